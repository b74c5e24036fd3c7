/*
 * askcheck.c - checks of the server's questions and of their answers
 * (askcheck.h), after MCP 2025-11-25 "Elicitation" and "Sampling".
 *
 * A form's requestedSchema is the restricted subset the spec allows: a flat
 * object whose properties are strings (minLength, maxLength, format, enum,
 * oneOf of consts), numbers and integers (minimum, maximum), booleans, and
 * multi-select arrays (items with enum or anyOf/oneOf of consts, minItems,
 * maxItems). An accepted answer is checked field by field: only fields of
 * the schema, each of its type and within its rules; then the fields left
 * out that have a default get it (SEP-1034), and every required field must
 * be there. "pattern" is not checked (it is an ECMA-262 regular
 * expression, which no C library here speaks); other keywords are ignored.
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "askcheck.h"

static int refuse(char *why, size_t n, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int refuse(char *why, size_t n, const char *fmt, ...)
{
	va_list ap;

	if (n) {
		va_start(ap, fmt);
		vsnprintf(why, n, fmt, ap);
		va_end(ap);
	}
	return -EINVAL;
}

static const cJSON *get(const cJSON *o, const char *k)
{
	return cJSON_GetObjectItemCaseSensitive(o, k);
}

/* ---- the request ---- */

int ask_url_host(const char *url, char *host, size_t n)
{
	const char *p = url, *a, *e, *at, *h;
	size_t len;

	if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z')))
		return -EINVAL;
	while (*p && *p != ':' && *p != '/')
		p++;
	if (strncmp(p, "://", 3))
		return -EINVAL;
	a = p + 3;
	e = a + strcspn(a, "/?#");
	at = NULL;
	for (h = a; h < e; h++)
		if (*h == '@')
			at = h;
	h = at ? at + 1 : a;
	if (*h == '[') {
		const char *r = memchr(h, ']', (size_t)(e - h));

		if (!r)
			return -EINVAL;
		len = (size_t)(r + 1 - h);
	} else {
		const char *c = memchr(h, ':', (size_t)(e - h));

		len = (size_t)((c ? c : e) - h);
	}
	if (!len || len >= n || memchr(h, ' ', len))
		return -EINVAL;
	memcpy(host, h, len);
	host[len] = 0;
	return 0;
}

int ask_check_question(const char *method, const cJSON *params,
		       enum ask_kind *kind, char *why, size_t n)
{
	const cJSON *mode = get(params, "mode"), *v;
	char host[256];

	if (params && !cJSON_IsObject(params))
		return refuse(why, n, "params must be an object");
	if (!strcmp(method, "sampling/createMessage")) {
		*kind = ASK_SAMPLING;
		if (!cJSON_IsArray(get(params, "messages")))
			return refuse(why, n, "sampling needs a messages array");
		return 0;
	}
	if (!mode || (cJSON_IsString(mode) &&
		      !strcmp(mode->valuestring, "form"))) {
		*kind = ASK_FORM;
		v = get(params, "requestedSchema");
		if (!cJSON_IsObject(v))
			return refuse(why, n, "a form needs a requestedSchema "
				      "object");
		v = get(v, "properties");
		if (v && !cJSON_IsObject(v))
			return refuse(why, n, "requestedSchema.properties must "
				      "be an object");
		return 0;
	}
	if (cJSON_IsString(mode) && !strcmp(mode->valuestring, "url")) {
		*kind = ASK_URL;
		v = get(params, "url");
		if (!cJSON_IsString(v) ||
		    ask_url_host(v->valuestring, host, sizeof host) < 0)
			return refuse(why, n, "url mode needs an absolute url "
				      "with a host");
		return 0;
	}
	return refuse(why, n, "unsupported elicitation mode (mcpfs has form "
		      "and url)");
}

/* ---- formats ---- */

static int digits(const char *s, int k)
{
	int i;

	for (i = 0; i < k; i++)
		if (s[i] < '0' || s[i] > '9')
			return 0;
	return 1;
}

static int num(const char *s, int k)
{
	int v = 0, i;

	for (i = 0; i < k; i++)
		v = v * 10 + (s[i] - '0');
	return v;
}

/* YYYY-MM-DD with a day that exists. */
static int date_ok(const char *s)
{
	static const int mdays[] = {31, 29, 31, 30, 31, 30, 31, 31, 30, 31,
				    30, 31};
	int y, m, d;

	if (!digits(s, 4) || s[4] != '-' || !digits(s + 5, 2) ||
	    s[7] != '-' || !digits(s + 8, 2))
		return 0;
	y = num(s, 4);
	m = num(s + 5, 2);
	d = num(s + 8, 2);
	if (m < 1 || m > 12 || d < 1 || d > mdays[m - 1])
		return 0;
	return !(m == 2 && d == 29 &&
		 (y % 4 || (y % 100 == 0 && y % 400)));
}

/* RFC 3339: date T HH:MM:SS[.frac](Z|+HH:MM|-HH:MM). */
static int date_time_ok(const char *s)
{
	const char *p;

	if (!date_ok(s) || (s[10] != 'T' && s[10] != 't'))
		return 0;
	p = s + 11;
	if (!digits(p, 2) || p[2] != ':' || !digits(p + 3, 2) ||
	    p[5] != ':' || !digits(p + 6, 2) || num(p, 2) > 23 ||
	    num(p + 3, 2) > 59 || num(p + 6, 2) > 60)
		return 0;
	p += 8;
	if (*p == '.') {
		if (!digits(++p, 1))
			return 0;
		while (*p >= '0' && *p <= '9')
			p++;
	}
	if ((*p == 'Z' || *p == 'z') && !p[1])
		return 1;
	return (*p == '+' || *p == '-') && digits(p + 1, 2) && p[3] == ':' &&
	       digits(p + 4, 2) && !p[6] && num(p + 1, 2) < 24 &&
	       num(p + 4, 2) < 60;
}

/* local@domain.tld: one @, no spaces, a dot inside the domain. */
static int email_ok(const char *s)
{
	const char *at = strchr(s, '@'), *dot;

	if (!at || at == s || strchr(at + 1, '@') || strpbrk(s, " \t\r\n"))
		return 0;
	dot = strrchr(at + 1, '.');
	return dot && dot > at + 1 && dot[1] && at[1] != '.';
}

/* scheme:rest, RFC 3986's scheme, no white space or control bytes. */
static int uri_ok(const char *s)
{
	const char *p = s;

	if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z')))
		return 0;
	while ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
	       (*p >= '0' && *p <= '9') || *p == '+' || *p == '-' ||
	       *p == '.')
		p++;
	if (*p != ':' || !p[1])
		return 0;
	for (; *p; p++)
		if ((unsigned char)*p <= ' ' || *p == 0x7f)
			return 0;
	return 1;
}

int ask_format_ok(const char *format, const char *s)
{
	if (!strcmp(format, "email"))
		return email_ok(s);
	if (!strcmp(format, "uri"))
		return uri_ok(s);
	if (!strcmp(format, "date"))
		return date_ok(s);
	if (!strcmp(format, "date-time"))
		return date_time_ok(s);
	return 1;
}

/* ---- a form's fields ---- */

/* Code points of a UTF-8 string (cJSON gives valid UTF-8 from jscan). */
static size_t utf8_len(const char *s)
{
	size_t n = 0;

	for (; *s; s++)
		if (((unsigned char)*s & 0xc0) != 0x80)
			n++;
	return n;
}

static int num_of(const cJSON *sch, const char *k, double *v)
{
	const cJSON *j = get(sch, k);

	if (!cJSON_IsNumber(j))
		return 0;
	*v = j->valuedouble;
	return 1;
}

/* 1 if v is one of the allowed values: "enum", or the "const" of each
 * entry of "oneOf"/"anyOf"; also 1 when the schema lists none. */
static int allowed(const cJSON *sch, const cJSON *v)
{
	static const char *const lists[] = {"oneOf", "anyOf"};
	const cJSON *e = get(sch, "enum"), *it;
	int listed = 0;
	size_t i;

	if (cJSON_IsArray(e)) {
		listed = 1;
		cJSON_ArrayForEach(it, e)
			if (cJSON_Compare(it, v, 1))
				return 1;
	}
	for (i = 0; i < sizeof lists / sizeof lists[0]; i++) {
		e = get(sch, lists[i]);
		if (!cJSON_IsArray(e))
			continue;
		cJSON_ArrayForEach(it, e) {
			const cJSON *c = get(it, "const");

			if (!c)
				continue;
			listed = 1;
			if (cJSON_Compare(c, v, 1))
				return 1;
		}
	}
	return !listed;
}

static const char *type_of(const cJSON *sch)
{
	const cJSON *t = get(sch, "type");

	return cJSON_IsString(t) ? t->valuestring : NULL;
}

static int check_string(const char *f, const cJSON *sch, const cJSON *v,
			char *why, size_t n)
{
	const cJSON *fmt = get(sch, "format");
	double lim;
	size_t len;

	if (!cJSON_IsString(v))
		return refuse(why, n, "field \"%s\": must be a string", f);
	len = utf8_len(v->valuestring);
	if (num_of(sch, "minLength", &lim) && (double)len < lim)
		return refuse(why, n, "field \"%s\": minLength %g", f, lim);
	if (num_of(sch, "maxLength", &lim) && (double)len > lim)
		return refuse(why, n, "field \"%s\": maxLength %g", f, lim);
	if (cJSON_IsString(fmt) &&
	    !ask_format_ok(fmt->valuestring, v->valuestring))
		return refuse(why, n, "field \"%s\": format %s", f,
			      fmt->valuestring);
	return 0;
}

static int integral(double d)
{
	if (!isfinite(d))
		return 0;
	if (d > 9e15 || d < -9e15) /* beyond 2^53 every double is whole */
		return 1;
	return (double)(long long)d == d;
}

static int check_number(const char *f, const cJSON *sch, const cJSON *v,
			int integer, char *why, size_t n)
{
	double lim, d;

	if (!cJSON_IsNumber(v))
		return refuse(why, n, "field \"%s\": must be %s", f,
			      integer ? "an integer" : "a number");
	d = v->valuedouble;
	if (integer && !integral(d))
		return refuse(why, n, "field \"%s\": must be an integer", f);
	if (num_of(sch, "minimum", &lim) && d < lim)
		return refuse(why, n, "field \"%s\": minimum %g", f, lim);
	if (num_of(sch, "maximum", &lim) && d > lim)
		return refuse(why, n, "field \"%s\": maximum %g", f, lim);
	return 0;
}

static int check_array(const char *f, const cJSON *sch, const cJSON *v,
		       char *why, size_t n)
{
	const cJSON *items = get(sch, "items"), *it;
	const char *t = type_of(items);
	double lim;
	int count, i = 0;

	if (!cJSON_IsArray(v))
		return refuse(why, n, "field \"%s\": must be an array", f);
	count = cJSON_GetArraySize(v);
	if (num_of(sch, "minItems", &lim) && count < lim)
		return refuse(why, n, "field \"%s\": minItems %g", f, lim);
	if (num_of(sch, "maxItems", &lim) && count > lim)
		return refuse(why, n, "field \"%s\": maxItems %g", f, lim);
	cJSON_ArrayForEach(it, v) {
		if (t && !strcmp(t, "string") && !cJSON_IsString(it))
			return refuse(why, n, "field \"%s\": item %d must be "
				      "a string", f, i);
		if (!allowed(items, it))
			return refuse(why, n, "field \"%s\": item %d is not "
				      "one of the allowed values", f, i);
		i++;
	}
	return 0;
}

static int check_field(const char *f, const cJSON *sch, const cJSON *v,
		       char *why, size_t n)
{
	const char *t = type_of(sch);
	int r = 0;

	if (cJSON_IsNumber(v) && !isfinite(v->valuedouble))
		return refuse(why, n, "field \"%s\": a number too large to "
			      "send (JSON has no infinity)", f);
	if (!t)
		r = 0;
	else if (!strcmp(t, "string"))
		r = check_string(f, sch, v, why, n);
	else if (!strcmp(t, "number") || !strcmp(t, "integer"))
		r = check_number(f, sch, v, !strcmp(t, "integer"), why, n);
	else if (!strcmp(t, "boolean"))
		r = cJSON_IsBool(v) ? 0 : refuse(why, n, "field \"%s\": must "
						 "be true or false", f);
	else if (!strcmp(t, "array"))
		return check_array(f, sch, v, why, n);
	if (r == 0 && !allowed(sch, v))
		r = refuse(why, n, "field \"%s\": not one of the allowed "
			   "values (enum)", f);
	return r;
}

/* The first key of object o given twice (cJSON would see the first, a
 * server in JavaScript the last), or NULL. */
static const char *twice(const cJSON *o)
{
	const cJSON *a, *b;

	cJSON_ArrayForEach(a, o)
		for (b = a->next; b; b = b->next)
			if (!strcmp(a->string, b->string))
				return a->string;
	return NULL;
}

/* The content of an accepted form: checked, then completed. */
static int check_form(const cJSON *params, const cJSON *content,
		      cJSON **out, char *why, size_t n)
{
	const cJSON *schema = get(params, "requestedSchema");
	const cJSON *props = get(schema, "properties"), *req, *f, *p;
	cJSON *c;

	if (content && !cJSON_IsObject(content))
		return refuse(why, n, "content must be an object");
	if (twice(content))
		return refuse(why, n, "field \"%s\": given twice",
			      twice(content));
	cJSON_ArrayForEach(f, content) {
		p = get(props, f->string);
		if (!cJSON_IsObject(p))
			return refuse(why, n, "field \"%s\": not in the "
				      "requested schema", f->string);
		if (check_field(f->string, p, f, why, n) < 0)
			return -EINVAL;
	}
	c = content ? cJSON_Duplicate(content, 1) : cJSON_CreateObject();
	if (!c)
		return refuse(why, n, "out of memory");
	cJSON_ArrayForEach(p, props) {
		const cJSON *d = get(p, "default");

		if (d && !get(c, p->string))
			cJSON_AddItemToObject(c, p->string,
					      cJSON_Duplicate(d, 1));
	}
	req = get(schema, "required");
	cJSON_ArrayForEach(f, req) {
		if (cJSON_IsString(f) && !get(c, f->valuestring)) {
			cJSON_Delete(c);
			return refuse(why, n, "field \"%s\": required (and has "
				      "no default)", f->valuestring);
		}
	}
	*out = c;
	return 0;
}

/* ---- answers ---- */


static int only_keys(const cJSON *o, const char *const *keys, size_t nk,
		     char *why, size_t n, const char *want)
{
	const cJSON *f;
	size_t i;

	cJSON_ArrayForEach(f, o) {
		for (i = 0; i < nk; i++)
			if (!strcmp(f->string, keys[i]))
				break;
		if (i == nk)
			return refuse(why, n, "unknown key \"%s\" (%s)",
				      f->string, want);
	}
	return 0;
}

static int check_content_block(const cJSON *b, int i, char *why, size_t n)
{
	const cJSON *t = get(b, "type");

	char at[24] = "";

	if (i >= 0)
		snprintf(at, sizeof at, "[%d]", i);
	if (!cJSON_IsObject(b) || !cJSON_IsString(t))
		return refuse(why, n, "content%s: must be an object with a "
			      "string type", at);
	if (!strcmp(t->valuestring, "text") &&
	    !cJSON_IsString(get(b, "text")))
		return refuse(why, n, "content%s: a text block needs a string "
			      "text", at);
	return 0;
}

static int check_sampling(const cJSON *a, cJSON **result, cJSON **error,
			  char *why, size_t n)
{
	const cJSON *act = get(a, "action"), *role, *content, *b;
	int i = 0;

	if (cJSON_IsString(act)) {
		static const char *const keys[] = {"action", "message"};
		const cJSON *msg = get(a, "message");

		if (strcmp(act->valuestring, "decline") &&
		    strcmp(act->valuestring, "cancel"))
			return refuse(why, n, "action must be decline or "
				      "cancel (or write a CreateMessageResult)");
		if (only_keys(a, keys, 2, why, n, "want action, message") < 0)
			return -EINVAL;
		*error = cJSON_CreateObject();
		cJSON_AddNumberToObject(*error, "code", -1);
		cJSON_AddStringToObject(*error, "message",
					cJSON_IsString(msg) ? msg->valuestring :
					"User rejected sampling request");
		return 0;
	}
	role = get(a, "role");
	if (!cJSON_IsString(role) || (strcmp(role->valuestring, "assistant") &&
				      strcmp(role->valuestring, "user")))
		return refuse(why, n, "role: must be \"assistant\" or \"user\"");
	content = get(a, "content");
	if (cJSON_IsArray(content)) {
		if (!cJSON_GetArraySize(content))
			return refuse(why, n, "content: must not be empty");
		cJSON_ArrayForEach(b, content)
			if (check_content_block(b, i++, why, n) < 0)
				return -EINVAL;
	} else if (check_content_block(content, -1, why, n) < 0) {
		return -EINVAL;
	}
	if (!cJSON_IsString(get(a, "model")))
		return refuse(why, n, "model: required, a string");
	b = get(a, "stopReason");
	if (b && !cJSON_IsString(b))
		return refuse(why, n, "stopReason: must be a string");
	*result = cJSON_Duplicate(a, 1);
	return *result ? 0 : refuse(why, n, "out of memory");
}

int ask_check_answer(enum ask_kind kind, const cJSON *params,
		     const cJSON *answer, cJSON **result, cJSON **error,
		     char *why, size_t n)
{
	static const char *const keys[] = {"action", "content", "_meta"};
	const cJSON *act = get(answer, "action"), *content;
	cJSON *res, *c = NULL;

	*result = *error = NULL;
	if (!cJSON_IsObject(answer))
		return refuse(why, n, "the answer must be a JSON object");
	if (twice(answer))
		return refuse(why, n, "key \"%s\" given twice", twice(answer));
	if (kind == ASK_SAMPLING)
		return check_sampling(answer, result, error, why, n);
	if (only_keys(answer, keys, 3, why, n, "want action and content") < 0)
		return -EINVAL;
	if (!cJSON_IsString(act) || (strcmp(act->valuestring, "accept") &&
				     strcmp(act->valuestring, "decline") &&
				     strcmp(act->valuestring, "cancel")))
		return refuse(why, n, "action: must be \"accept\", \"decline\" "
			      "or \"cancel\"");
	content = get(answer, "content");
	if (!strcmp(act->valuestring, "accept")) {
		if (kind == ASK_URL && content)
			return refuse(why, n, "content: none in url mode (the "
				      "data goes to the site, not to mcpfs)");
		if (kind == ASK_FORM &&
		    check_form(params, content, &c, why, n) < 0)
			return -EINVAL;
	}
	res = cJSON_CreateObject();
	cJSON_AddStringToObject(res, "action", act->valuestring);
	if (c)
		cJSON_AddItemToObject(res, "content", c);
	*result = res;
	return 0;
}
