/*
 * jexact.c - a cJSON value printed with its numbers exact (jexact.h), so
 * that a number mcpfs passes on (serve's requests to a server, status,
 * result/) or shows (help/'s bounds, defaults and enums) reads back as
 * the number it was given.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "jexact.h"

void jexact_number(char *buf, size_t n, double d)
{
	int p;

	if (d != d || d - d != 0) { /* NaN, infinite: none in parsed JSON */
		snprintf(buf, n, "null");
		return;
	}
	if (d < 1e21 && d > -1e21 && d == floor(d)) { /* as JavaScript */
		snprintf(buf, n, "%.0f", d);
		return;
	}
	for (p = 15; p < 17; p++) {
		snprintf(buf, n, "%.*g", p, d);
		if (strtod(buf, NULL) == d)
			return;
	}
	snprintf(buf, n, "%.17g", d);
}

/* v's numbers, at any depth, made raw items of their exact text: 0, or
 * -1 when out of memory. */
static int exact_numbers(cJSON *v)
{
	cJSON *it, *next, *raw;
	char buf[40];

	for (it = v->child; it; it = next) {
		next = it->next;
		if (cJSON_IsNumber(it)) {
			jexact_number(buf, sizeof buf, it->valuedouble);
			if (!(raw = cJSON_CreateRaw(buf)))
				return -1;
			/* a member's name goes with it (replacing by
			 * pointer keeps none) */
			raw->string = it->string;
			raw->type |= it->type & cJSON_StringIsConst;
			it->string = NULL;
			cJSON_ReplaceItemViaPointer(v, it, raw);
		} else if (it->child && exact_numbers(it) < 0) {
			return -1;
		}
	}
	return 0;
}

/* 1 when cJSON's printing of a number of v, at any depth, could read
 * back as another number (not an int, which it prints whole, and its 15
 * significant digits do not read back as it: cJSON then takes them if
 * they are within a relative DBL_EPSILON), or print a whole number of 16
 * to 21 digits with an exponent (9.00719925474e+15, which NAME=VALUE
 * does not take as an integer). Most JSON has none, and is printed with
 * no copy. */
static int inexact(const cJSON *v)
{
	const cJSON *it;
	char buf[40];
	double d;

	if (cJSON_IsNumber(v)) {
		d = v->valuedouble;
		if (d >= -2147483648.0 && d <= 2147483647.0 && d == (int)d)
			return 0;
		if (d == floor(d) && d > -1e21 && d < 1e21 &&
		    (d <= -1e15 || d >= 1e15))
			return 1; /* whole, not 9.00719925474e+15 */
		snprintf(buf, sizeof buf, "%1.15g", d);
		return strtod(buf, NULL) != d;
	}
	for (it = v->child; it; it = it->next)
		if (inexact(it))
			return 1;
	return 0;
}

char *jexact_print(const cJSON *v, int formatted)
{
	char buf[40], *t;
	cJSON *c;

	if (!v)
		return NULL; /* as cJSON's own */
	if (!inexact(v))
		return formatted ? cJSON_Print(v) : cJSON_PrintUnformatted(v);
	if (cJSON_IsNumber(v)) {
		jexact_number(buf, sizeof buf, v->valuedouble);
		c = cJSON_CreateRaw(buf);
	} else {
		c = cJSON_Duplicate(v, 1);
	}
	if (!c || exact_numbers(c) < 0) {
		cJSON_Delete(c);
		return NULL;
	}
	t = formatted ? cJSON_Print(c) : cJSON_PrintUnformatted(c);
	cJSON_Delete(c);
	return t;
}
