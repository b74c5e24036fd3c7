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
 * A value that does not fit its type, or a line of neither form, is
 * refused with a message naming the line. Values that are JSON (numbers,
 * :=) go into the object as raw text, so 2^53+1 or 0.10 reach the server
 * as the user wrote them.
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

/* The type the schema gives name (NULL: none). */
static const char *type_of(const cJSON *schema, const char *name)
{
	return kvargs_type(cJSON_GetObjectItemCaseSensitive(
		cJSON_GetObjectItemCaseSensitive(schema, "properties"), name));
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

/* The item for NAME=VALUE: typed by the schema, or NULL with *why. */
static cJSON *typed(const cJSON *schema, const char *name, char *v,
		    unsigned line, char **why, int *err)
{
	const char *t = type_of(schema, name);
	cJSON *j;
	char *e;

	if (!t || (strcmp(t, "integer") && strcmp(t, "number") &&
		   strcmp(t, "boolean") && strcmp(t, "array") &&
		   strcmp(t, "object")))
		return cJSON_CreateString(v);
	v += strspn(v, " \t"); /* a typed value: blanks around it go */
	for (e = (char *)v + strlen(v); e > v && (e[-1] == ' ' ||
						  e[-1] == '\t');)
		*--e = 0;
	if (!strcmp(t, "boolean")) {
		if (!strcmp(v, "true") || !strcmp(v, "false"))
			return cJSON_CreateBool(*v == 't');
		*err = fail(why, line, "%s=%s: %s is a boolean (true or "
			    "false)", name, v, name);
		return NULL;
	}
	j = json_of(v);
	if (!strcmp(t, "integer") ? !j || !cJSON_IsNumber(j) ||
				    !is_integer(v)
	    : !strcmp(t, "number") ? !cJSON_IsNumber(j)
	    : !strcmp(t, "array") ? !cJSON_IsArray(j) : !cJSON_IsObject(j)) {
		cJSON_Delete(j);
		*err = fail(why, line, "%s=%s: %s is %s %s%s", name, v, name,
			    *t == 'a' || *t == 'i' || *t == 'o' ? "an" : "a", t,
			    *t == 'a' || *t == 'o' ? " (as JSON)" : "");
		return NULL;
	}
	cJSON_Delete(j);
	return cJSON_CreateRaw(v);
}

/* Add item as name (replacing an earlier one); item is taken. */
static int put(cJSON *o, const char *name, cJSON *item)
{
	if (!item)
		return -ENOMEM;
	if (cJSON_GetObjectItemCaseSensitive(o, name))
		return cJSON_ReplaceItemInObjectCaseSensitive(o, name, item)
			       ? 0 : -ENOMEM;
	return cJSON_AddItemToObject(o, name, item) ? 0 : -ENOMEM;
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
	} else {
		item = typed(schema, name, v, line, why, &err);
		if (!item && err)
			return err;
	}
	return put(o, name, item);
}

int kvargs_parse(const char *text, size_t len, const cJSON *schema,
		 char **out, char **why)
{
	cJSON *o = cJSON_CreateObject();
	size_t at = 0;
	unsigned line = 0;
	int r = 0;

	*out = *why = NULL;
	if (!o)
		return -ENOMEM;
	while (at < len && r == 0) {
		const char *nl = memchr(text + at, '\n', len - at);
		size_t n = nl ? (size_t)(nl - (text + at)) : len - at;
		int nul = memchr(text + at, 0, n) != NULL;
		char *l = strndup(text + at, n);

		line++;
		at += n + (nl ? 1 : 0);
		if (!l) {
			r = -ENOMEM;
			break;
		}
		if (!nul && n && l[n - 1] == '\r')
			l[--n] = 0;
		if (nul)
			r = fail(why, line, "a NUL byte in the line");
		else if (l[strspn(l, " \t")])
			r = one_line(o, schema, l + strspn(l, " \t"), line,
				     why);
		free(l);
	}
	if (r == 0) {
		*out = cJSON_PrintUnformatted(o);
		if (!*out)
			r = -ENOMEM;
	}
	cJSON_Delete(o);
	return r;
}
