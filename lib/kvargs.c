/*
 * kvargs.c - the NAME=VALUE and NAME:=JSON request lines of tools/X and
 * prompts/X (spec 9), after HTTPie's convention.
 *
 *   NAME=VALUE    the rest of the line as it is (no quoting, a trailing CR
 *                 dropped), typed by the schema's type for NAME: integer
 *                 and number a JSON number, boolean true/false, array and
 *                 object a JSON value of that type, anything else a string
 *   NAME:=JSON    the JSON value as written
 *
 * A value that does not fit its type (a number is a JSON number, an
 * integer one without fraction or exponent), its schema's bounds
 * (minimum, maximum, exclusiveMinimum, exclusiveMaximum, in both the
 * number form and draft 4's boolean form) or its enum, or a line of
 * neither form, is refused with a message naming the line. Values that are JSON (numbers,
 * :=) go into the object as raw text, so 2^53+1 or 0.10 reach the server
 * as the user wrote them.
 *
 * A NAME=VALUE whose value is one of help/'s placeholders (<string>,
 * <integer>, ...: kvargs_placeholder) is refused whatever NAME's type, a
 * string's too: help/ writes one where mcpfs would have to invent a
 * value (spec 12), and a line copied as it is must fail, not send the
 * word. NAME:="<string>" sends those eight bytes if they are meant.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kvargs.h"

int kvargs_is_lines(const char *p, size_t len)
{
	size_t i;

	for (i = 0; i < len; i++)
		if (p[i] != ' ' && p[i] != '\t' && p[i] != '\r' &&
		    p[i] != '\n')
			return p[i] != '{';
	return 0;
}

static int fail(char **why, unsigned line, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int fail(char **why, unsigned line, const char *fmt, ...)
{
	char msg[400];
	int n;
	va_list ap;

	n = snprintf(msg, sizeof msg, "line %u: ", line);
	va_start(ap, fmt);
	vsnprintf(msg + n, sizeof msg - (size_t)n, fmt, ap);
	va_end(ap);
	*why = strdup(msg);
	return *why ? -EINVAL : -ENOMEM;
}

const char *kvargs_type(const cJSON *prop)
{
	const cJSON *t = cJSON_GetObjectItemCaseSensitive(prop, "type"), *it;

	if (cJSON_IsString(t))
		return t->valuestring;
	cJSON_ArrayForEach(it, (cJSON_IsArray(t) ? t : NULL))
		if (cJSON_IsString(it) && strcmp(it->valuestring, "null"))
			return it->valuestring;
	return NULL;
}

/* The types a placeholder names: JSON Schema's, and "value" for an
 * argument whose schema names none (or only null). */
static const char *const ph_types[] = {
	"string", "integer", "number", "boolean", "array", "object", "value",
};

const char *kvargs_placeholder(const cJSON *prop)
{
	static const char *const ph[] = {
		"<string>", "<integer>", "<number>", "<boolean>", "<array>",
		"<object>", "<value>",
	};
	const char *t = kvargs_type(prop);
	size_t i;

	for (i = 0; t && i < sizeof ph_types / sizeof *ph_types - 1; i++)
		if (!strcmp(t, ph_types[i]))
			return ph[i];
	return ph[sizeof ph / sizeof *ph - 1];
}

int kvargs_is_placeholder(const char *v)
{
	size_t i, n;

	v += strspn(v, " \t");
	if (*v++ != '<')
		return 0;
	for (i = 0; i < sizeof ph_types / sizeof *ph_types; i++) {
		n = strlen(ph_types[i]);
		if (!strncmp(v, ph_types[i], n) && v[n] == '>' &&
		    v[n + 1 + strspn(v + n + 1, " \t")] == 0)
			return 1;
	}
	return 0;
}

/* One JSON value, the whole of v (blanks around allowed): parsed, or NULL. */
static cJSON *json_of(const char *v)
{
	const char *end = NULL;
	cJSON *j = cJSON_ParseWithOpts(v, &end, 0);

	if (!j)
		return NULL;
	end += strspn(end, " \t");
	if (*end) {
		cJSON_Delete(j);
		return NULL;
	}
	return j;
}

/* An integer literal of JSON: -?(0|[1-9][0-9]*). */
static int is_integer(const char *v)
{
	if (*v == '-')
		v++;
	if (*v == '0')
		return v[1] == 0;
	if (*v < '1' || *v > '9')
		return 0;
	return strspn(v, "0123456789") == strlen(v);
}

/* A number literal of JSON: -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)? */
static int is_number(const char *v)
{
	if (*v == '-')
		v++;
	if (*v == '0')
		v++;
	else if (*v >= '1' && *v <= '9')
		v += strspn(v, "0123456789");
	else
		return 0;
	if (*v == '.') {
		if (!strspn(++v, "0123456789"))
			return 0;
		v += strspn(v, "0123456789");
	}
	if (*v == 'e' || *v == 'E') {
		v++;
		if (*v == '+' || *v == '-')
			v++;
		if (!strspn(v, "0123456789"))
			return 0;
		v += strspn(v, "0123456789");
	}
	return *v == 0;
}

/* The bound k of prop as a number in *b: 1 if it has one. Draft 4's
 * exclusiveMinimum: true makes minimum exclusive (*excl). */
static int bound(const cJSON *prop, const char *k, const char *ek,
		 double *b, int *excl)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(prop, k);
	const cJSON *e = cJSON_GetObjectItemCaseSensitive(prop, ek);

	*excl = 0;
	if (cJSON_IsNumber(e)) { /* draft 6 on: the exclusive bound itself */
		if (!cJSON_IsNumber(v) || (*k == 'm' && k[1] == 'i'
					   ? e->valuedouble >= v->valuedouble
					   : e->valuedouble <= v->valuedouble)) {
			*b = e->valuedouble;
			*excl = 1;
			return 1;
		}
	}
	if (!cJSON_IsNumber(v))
		return 0;
	*b = v->valuedouble;
	*excl = cJSON_IsTrue(e);
	return 1;
}

/* The enum of prop as text for a message (JSON, cut short). */
static void enum_text(const cJSON *en, char *out, size_t size)
{
	char *t = cJSON_PrintUnformatted(en);

	snprintf(out, size, "%s", t ? t : "[...]");
	if (t && strlen(t) >= size)
		memcpy(out + size - 4, "...", 4);
	cJSON_free(t);
}

/* 0 if the value j (v as written, NULL for a string) of name fits the
 * bounds and enum of prop, else fail()'s error. */
static int fits(const cJSON *prop, const char *name, const char *v,
		const cJSON *j, unsigned line, char **why)
{
	const cJSON *en = cJSON_GetObjectItemCaseSensitive(prop, "enum"), *it;
	double b;
	int excl;

	if (cJSON_IsNumber(j)) {
		double x = j->valuedouble;

		if (bound(prop, "minimum", "exclusiveMinimum", &b, &excl) &&
		    (excl ? x <= b : x < b))
			return fail(why, line, "%s=%s: %s is %s %.17g", name, v,
				    name, excl ? "more than" : "at least", b);
		if (bound(prop, "maximum", "exclusiveMaximum", &b, &excl) &&
		    (excl ? x >= b : x > b))
			return fail(why, line, "%s=%s: %s is %s %.17g", name, v,
				    name, excl ? "less than" : "at most", b);
	}
	if (cJSON_IsArray(en) && cJSON_GetArraySize(en) > 0) {
		char list[200];

		cJSON_ArrayForEach(it, en)
			if (cJSON_Compare(it, j, 1) ||
			    (cJSON_IsNumber(it) && cJSON_IsNumber(j) &&
			     it->valuedouble == j->valuedouble))
				return 0;
		enum_text(en, list, sizeof list);
		return fail(why, line, "%s=%s: %s is one of %s", name, v, name,
			    list);
	}
	return 0;
}

/* The item for NAME=VALUE: typed by the schema, or NULL with *why. */
static cJSON *typed(const cJSON *schema, const char *name, char *v,
		    unsigned line, char **why, int *err)
{
	const cJSON *prop = cJSON_GetObjectItemCaseSensitive(
		cJSON_GetObjectItemCaseSensitive(schema, "properties"), name);
	const char *t = kvargs_type(prop);
	cJSON *j;
	char *e;

	if (!t || (strcmp(t, "integer") && strcmp(t, "number") &&
		   strcmp(t, "boolean") && strcmp(t, "array") &&
		   strcmp(t, "object"))) {
		j = cJSON_CreateString(v);
		if (!t && j && fits(prop, name, v, j, line, why) < 0) {
			cJSON *k = json_of(v); /* an untyped enum of JSON */

			free(*why);
			*why = NULL;
			if (k && fits(prop, name, v, k, line, why) == 0) {
				cJSON_Delete(j);
				cJSON_Delete(k);
				return cJSON_CreateRaw(v);
			}
			free(*why);
			*why = NULL;
			cJSON_Delete(k);
		}
		if (j && (*err = fits(prop, name, v, j, line, why)) < 0) {
			cJSON_Delete(j);
			return NULL;
		}
		return j;
	}
	v += strspn(v, " \t"); /* a typed value: blanks around it go */
	for (e = (char *)v + strlen(v); e > v && (e[-1] == ' ' ||
						  e[-1] == '\t');)
		*--e = 0;
	if (!strcmp(t, "boolean")) {
		if (strcmp(v, "true") && strcmp(v, "false")) {
			*err = fail(why, line, "%s=%s: %s is a boolean (true "
				    "or false)", name, v, name);
			return NULL;
		}
		j = cJSON_CreateBool(*v == 't');
	} else {
		j = json_of(v);
		if (!strcmp(t, "integer") ? !cJSON_IsNumber(j) || !is_integer(v)
		    : !strcmp(t, "number") ? !cJSON_IsNumber(j) || !is_number(v)
		    : !strcmp(t, "array") ? !cJSON_IsArray(j)
					  : !cJSON_IsObject(j)) {
			cJSON_Delete(j);
			*err = fail(why, line, "%s=%s: %s is %s %s%s", name, v,
				    name, *t == 'a' || *t == 'i' || *t == 'o'
				    ? "an" : "a", t, *t == 'a' || *t == 'o'
				    ? " (as JSON)" : "");
			return NULL;
		}
	}
	if (j && (*err = fits(prop, name, v, j, line, why)) < 0) {
		cJSON_Delete(j);
		return NULL;
	}
	if (j && !cJSON_IsBool(j)) {
		cJSON_Delete(j);
		j = cJSON_CreateRaw(v);
	}
	return j;
}

/* Add item as name (replacing an earlier one); item is taken. */
/* item (taken) as o's member name, replacing one of that name. cJSON
 * leaves an item it could not add (its key's copy failed) to the caller:
 * it is freed here. */
static int put(cJSON *o, const char *name, cJSON *item)
{
	cJSON_bool ok;

	if (!item)
		return -ENOMEM;
	if (cJSON_GetObjectItemCaseSensitive(o, name))
		ok = cJSON_ReplaceItemInObjectCaseSensitive(o, name, item);
	else
		ok = cJSON_AddItemToObject(o, name, item);
	if (!ok)
		cJSON_Delete(item);
	return ok ? 0 : -ENOMEM;
}

/* One non-blank line (NUL-terminated, CR dropped) into o. */
static int one_line(cJSON *o, const cJSON *schema, char *l, unsigned line,
		    char **why)
{
	char *eq = strchr(l, '='), *name = l, *v;
	int json, err = 0;
	cJSON *item;

	if (!eq || eq == l || (eq == l + 1 && *l == ':'))
		return fail(why, line, "'%.200s' is not NAME=VALUE or "
			    "NAME:=JSON (the arguments must be a JSON object "
			    "or such lines)", l);
	json = eq[-1] == ':';
	eq[json ? -1 : 0] = 0;
	v = eq + 1;
	if (json) {
		item = json_of(v);
		if (!item)
			return fail(why, line, "%s:=%.200s: not one JSON value",
				    name, v);
		cJSON_Delete(item);
		v += strspn(v, " \t");
		item = cJSON_CreateRaw(v);
	} else if (kvargs_is_placeholder(v)) {
		return fail(why, line, "%s=%.40s: a placeholder of help/: "
			    "write a value of %s in its place", name, v,
			    name);
	} else {
		item = typed(schema, name, v, line, why, &err);
		if (!item && err)
			return err;
	}
	return put(o, name, item);
}

/* The lines of text into o, numbered from *line + 1; *line is left at
 * the last line read. */
static int parse_into(cJSON *o, const char *text, size_t len,
		      const cJSON *schema, unsigned *line, char **why)
{
	size_t at = 0;
	int r = 0;

	while (at < len && r == 0) {
		const char *nl = memchr(text + at, '\n', len - at);
		size_t n = nl ? (size_t)(nl - (text + at)) : len - at;
		int nul = memchr(text + at, 0, n) != NULL;
		char *l = strndup(text + at, n);

		++*line;
		at += n + (nl ? 1 : 0);
		if (!l)
			return -ENOMEM;
		if (!nul && n && l[n - 1] == '\r')
			l[--n] = 0;
		if (nul)
			r = fail(why, *line, "a NUL byte in the line");
		else if (l[strspn(l, " \t")])
			r = one_line(o, schema, l + strspn(l, " \t"), *line,
				     why);
		free(l);
	}
	return r;
}

int kvargs_check(const char *text, size_t len, const cJSON *schema,
		 unsigned *line, char **why)
{
	cJSON *o = cJSON_CreateObject();
	int r;

	*why = NULL;
	if (!o)
		return -ENOMEM;
	r = parse_into(o, text, len, schema, line, why);
	cJSON_Delete(o);
	return r;
}

int kvargs_parse(const char *text, size_t len, const cJSON *schema,
		 char **out, char **why)
{
	cJSON *o = cJSON_CreateObject();
	unsigned line = 0;
	int r;

	*out = *why = NULL;
	if (!o)
		return -ENOMEM;
	r = parse_into(o, text, len, schema, &line, why);
	if (r == 0) {
		*out = cJSON_PrintUnformatted(o);
		if (!*out)
			r = -ENOMEM;
	}
	cJSON_Delete(o);
	return r;
}
