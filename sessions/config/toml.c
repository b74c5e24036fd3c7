/*
 * toml.c - a strict reader of the part of TOML 1.0 that MCP client configs
 * use (toml.h), building a cJSON tree. Debian 12 packages no TOML library
 * for C, so this is one recursive-descent pass over the text:
 *
 *   document  = *( blank | comment | [table] | [[array of tables]] | k = v )
 *   key       = part *( "." part ), part = bare | "basic" | 'literal'
 *   value     = string | integer | float | boolean | array | inline table
 *
 * TOML's rules on redefinition are kept with a list of marks on the tables
 * and arrays made here: a [table] header may name a table once; an inline
 * table or an array value is closed; [[x]] extends only an array it made.
 * A table made by a dotted key cannot get a header later. Nesting of
 * arrays and inline tables is bounded (64), so the recursion is too.
 */
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gbuf.h"
#include "toml.h"

#define MAX_DEPTH 64
#define MAX_PARTS 32

enum { M_EXPLICIT = 1, M_SEALED = 2, M_AOT = 4, M_DOTTED = 8 };

struct mark {
	const cJSON *node;
	int flags;
};

struct tp {
	const char *p;
	size_t n, i;
	char *err;
	cJSON *root, *cur;
	struct mark *marks;
	size_t nmarks, cap;
	int depth;
};

static int fail(struct tp *t, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static int fail(struct tp *t, const char *fmt, ...)
{
	size_t line = 1, col = 1, k;
	char msg[200];
	va_list ap;

	if (t->err)
		return -1;
	for (k = 0; k < t->i && k < t->n; k++) {
		if (t->p[k] == '\n') {
			line++;
			col = 1;
		} else {
			col++;
		}
	}
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	if (asprintf(&t->err, "%zu:%zu: %s", line, col, msg) < 0)
		t->err = NULL;
	if (!t->err)
		t->err = strdup("out of memory");
	return -1;
}

static int flags_of(const struct tp *t, const cJSON *node)
{
	size_t k;

	for (k = 0; k < t->nmarks; k++)
		if (t->marks[k].node == node)
			return t->marks[k].flags;
	return 0;
}

static int mark(struct tp *t, const cJSON *node, int flags)
{
	struct mark *m;
	size_t k;

	for (k = 0; k < t->nmarks; k++) {
		if (t->marks[k].node == node) {
			t->marks[k].flags |= flags;
			return 0;
		}
	}
	if (!(m = gbuf_grow(t->marks, &t->cap, t->nmarks + 1, sizeof *m, 16)))
		return fail(t, "out of memory");
	t->marks = m;
	t->marks[t->nmarks].node = node;
	t->marks[t->nmarks++].flags = flags;
	return 0;
}

/* ---- characters ---- */

static int peek(const struct tp *t, size_t ahead)
{
	return t->i + ahead < t->n ? (unsigned char)t->p[t->i + ahead] : -1;
}

static int starts(const struct tp *t, const char *s)
{
	size_t l = strlen(s);

	return t->n - t->i >= l && !memcmp(t->p + t->i, s, l);
}

static void skip_ws(struct tp *t)
{
	while (peek(t, 0) == ' ' || peek(t, 0) == '\t')
		t->i++;
}

/* A comment: up to the end of the line; control characters are errors. */
static int skip_comment(struct tp *t)
{
	int c;

	if (peek(t, 0) != '#')
		return 0;
	while ((c = peek(t, 0)) >= 0 && c != '\n') {
		if (c == '\r' && peek(t, 1) == '\n')
			break;
		if ((c < 0x20 && c != '\t') || c == 0x7f)
			return fail(t, "control character in a comment");
		t->i++;
	}
	return 0;
}

/* The end of a line (or of the text): 1 if one was taken, 0 if not. */
static int newline(struct tp *t)
{
	if (peek(t, 0) == '\n') {
		t->i++;
		return 1;
	}
	if (peek(t, 0) == '\r' && peek(t, 1) == '\n') {
		t->i += 2;
		return 1;
	}
	return 0;
}

/* White space, comments and newlines (inside arrays). */
static int skip_all(struct tp *t)
{
	for (;;) {
		skip_ws(t);
		if (skip_comment(t) < 0)
			return -1;
		if (!newline(t))
			return 0;
	}
}

static int bare_char(int c)
{
	return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') ||
	       (c >= '0' && c <= '9') || c == '_' || c == '-';
}

/* ---- strings ---- */

static void utf8_put(struct gbuf *b, uint32_t u)
{
	char s[4];
	size_t n;

	if (u < 0x80) {
		s[0] = (char)u;
		n = 1;
	} else if (u < 0x800) {
		s[0] = (char)(0xc0 | u >> 6);
		s[1] = (char)(0x80 | (u & 0x3f));
		n = 2;
	} else if (u < 0x10000) {
		s[0] = (char)(0xe0 | u >> 12);
		s[1] = (char)(0x80 | ((u >> 6) & 0x3f));
		s[2] = (char)(0x80 | (u & 0x3f));
		n = 3;
	} else {
		s[0] = (char)(0xf0 | u >> 18);
		s[1] = (char)(0x80 | ((u >> 12) & 0x3f));
		s[2] = (char)(0x80 | ((u >> 6) & 0x3f));
		s[3] = (char)(0x80 | (u & 0x3f));
		n = 4;
	}
	gbuf_add(b, s, n);
}

static int escape(struct tp *t, struct gbuf *b)
{
	static const char from[] = "btnfr\"\\", to[] = "\b\t\n\f\r\"\\";
	int c = peek(t, 1), len, k;
	const char *at;
	uint32_t u = 0;

	if (c > 0 && (at = strchr(from, c)) != NULL) {
		gbuf_add(b, to + (at - from), 1);
		t->i += 2;
		return 0;
	}
	if (c != 'u' && c != 'U')
		return fail(t, "bad escape in a string");
	len = c == 'u' ? 4 : 8;
	for (k = 0; k < len; k++) {
		int h = peek(t, 2 + (size_t)k);

		u <<= 4;
		if (h >= '0' && h <= '9')
			u |= (uint32_t)(h - '0');
		else if ((h | 0x20) >= 'a' && (h | 0x20) <= 'f')
			u |= (uint32_t)((h | 0x20) - 'a' + 10);
		else
			return fail(t, "bad \\%c escape: expected %d hex digits",
				    c, len);
	}
	if (u > 0x10ffff || (u >= 0xd800 && u <= 0xdfff))
		return fail(t, "\\%c escape is not a Unicode scalar value", c);
	utf8_put(b, u);
	t->i += 2 + (size_t)len;
	return 0;
}

/*
 * A string at t->i ("...", '...', """...""" or '''...'''); its bytes go
 * to *out (malloc'd). Multi-line strings drop a newline right after the
 * opening quotes, and a basic one drops a backslash at a line's end with
 * the white space after it.
 */
static int string(struct tp *t, char **out)
{
	int q = peek(t, 0), multi, c;
	struct gbuf b = {0};

	multi = q == '"' ? starts(t, "\"\"\"") : starts(t, "'''");
	t->i += multi ? 3 : 1;
	if (multi)
		newline(t);
	for (;;) {
		c = peek(t, 0);
		if (c < 0) {
			gbuf_free(&b);
			return fail(t, "unterminated string");
		}
		if (c == q && (!multi || (peek(t, 1) == q && peek(t, 2) == q))) {
			size_t extra = 0;

			if (multi) /* up to two quotes may end the content */
				while (extra < 2 && peek(t, 3 + extra) == q)
					extra++;
			gbuf_add(&b, t->p + t->i, extra);
			t->i += multi ? 3 + extra : 1;
			break;
		}
		if (q == '"' && c == '\\') {
			size_t k = t->i + 1;

			if (multi) { /* a line-ending backslash */
				while (k < t->n && (t->p[k] == ' ' ||
						    t->p[k] == '\t'))
					k++;
				if (k < t->n && (t->p[k] == '\n' ||
						 t->p[k] == '\r')) {
					t->i = k;
					while (skip_ws(t), newline(t))
						;
					continue;
				}
			}
			if (escape(t, &b) < 0) {
				gbuf_free(&b);
				return -1;
			}
			continue;
		}
		if (multi && (c == '\n' || (c == '\r' && peek(t, 1) == '\n'))) {
			newline(t);
			gbuf_add(&b, "\n", 1);
			continue;
		}
		if ((c < 0x20 && c != '\t') || c == 0x7f) {
			gbuf_free(&b);
			return fail(t, c == '\n' ? "newline in a one-line string"
					       : "control character in a string");
		}
		gbuf_add(&b, t->p + t->i, 1);
		t->i++;
	}
	*out = gbuf_take(&b);
	if (!*out)
		*out = strdup("");
	return *out ? 0 : fail(t, "out of memory");
}

/* ---- keys ---- */

static void free_parts(char **parts, size_t n)
{
	while (n > 0)
		free(parts[--n]);
}

/* A dotted key into parts (malloc'd, *n of them). */
static int key(struct tp *t, char **parts, size_t *n)
{
	*n = 0;
	for (;;) {
		int c;

		skip_ws(t);
		c = peek(t, 0);
		if (*n == MAX_PARTS) {
			free_parts(parts, *n);
			return fail(t, "key with more than %d parts", MAX_PARTS);
		}
		if (c == '"' || c == '\'') {
			if (starts(t, c == '"' ? "\"\"\"" : "'''")) {
				free_parts(parts, *n);
				return fail(t, "a key cannot be a multi-line string");
			}
			if (string(t, &parts[*n]) < 0) {
				free_parts(parts, *n);
				return -1;
			}
		} else {
			size_t s = t->i;

			while (bare_char(peek(t, 0)))
				t->i++;
			if (t->i == s) {
				free_parts(parts, *n);
				return fail(t, "expected a key");
			}
			parts[*n] = strndup(t->p + s, t->i - s);
			if (!parts[*n]) {
				free_parts(parts, *n);
				return fail(t, "out of memory");
			}
		}
		(*n)++;
		skip_ws(t);
		if (peek(t, 0) != '.')
			return 0;
		t->i++;
	}
}

/* ---- values ---- */

static cJSON *value(struct tp *t);

static int digits_ok(const char *s, size_t n, int (*digit)(int))
{
	size_t k;

	if (n == 0 || !digit((unsigned char)s[0]) ||
	    !digit((unsigned char)s[n - 1]))
		return 0;
	for (k = 1; k < n; k++)
		if (s[k] == '_' ? !digit((unsigned char)s[k + 1])
				: !digit((unsigned char)s[k]))
			return 0;
	return 1;
}

static int is_dec(int c) { return c >= '0' && c <= '9'; }
static int is_hex(int c)
{
	return is_dec(c) || ((c | 0x20) >= 'a' && (c | 0x20) <= 'f');
}
static int is_oct(int c) { return c >= '0' && c <= '7'; }
static int is_bin(int c) { return c == '0' || c == '1'; }

/* A number token s (n bytes): a cJSON number, or NULL (t->err set). */
static cJSON *number(struct tp *t, const char *s, size_t n)
{
	char buf[128], *end;
	size_t k, o = 0, sign = (s[0] == '+' || s[0] == '-');
	const char *e, *dot;
	double v;

	if (n - sign == 3 && (!memcmp(s + sign, "inf", 3) ||
			      !memcmp(s + sign, "nan", 3))) {
		v = s[sign] == 'i' ? INFINITY : NAN;
		return cJSON_CreateNumber(s[0] == '-' ? -v : v);
	}
	if (n >= sizeof buf)
		goto bad;
	if (!sign && n > 2 && s[0] == '0' && strchr("xob", s[1])) {
		int (*d)(int) = s[1] == 'x' ? is_hex : s[1] == 'o' ? is_oct
								   : is_bin;
		unsigned long long u;

		if (!digits_ok(s + 2, n - 2, d))
			goto bad;
		for (k = 2; k < n; k++)
			if (s[k] != '_')
				buf[o++] = s[k];
		buf[o] = 0;
		u = strtoull(buf, &end, s[1] == 'x' ? 16 : s[1] == 'o' ? 8 : 2);
		return cJSON_CreateNumber((double)u);
	}
	for (k = 0; k < n; k++)
		if (s[k] == ':' || (k > sign && s[k] == '-' &&
				    (s[k - 1] | 0x20) != 'e'))
			return fail(t, "dates and times are not supported"),
			       NULL;
	/* [+-] int [. digits] [e [+-] digits], int without leading zeros */
	e = memchr(s, 'e', n);
	if (!e)
		e = memchr(s, 'E', n);
	dot = memchr(s, '.', e ? (size_t)(e - s) : n);
	k = (size_t)((dot ? dot : e ? e : s + n) - s);
	if (!digits_ok(s + sign, k - sign, is_dec) ||
	    (s[sign] == '0' && k - sign > 1))
		goto bad;
	if (dot && !digits_ok(dot + 1, (size_t)((e ? e : s + n) - dot - 1),
			      is_dec))
		goto bad;
	if (e) {
		size_t es = (size_t)(e - s) + 1;

		if (es < n && (s[es] == '+' || s[es] == '-'))
			es++;
		if (!digits_ok(s + es, n - es, is_dec))
			goto bad;
	}
	for (k = 0; k < n; k++)
		if (s[k] != '_')
			buf[o++] = s[k];
	buf[o] = 0;
	v = strtod(buf, &end);
	return cJSON_CreateNumber(v);
bad:
	fail(t, "not a valid value (strings need quotes)");
	return NULL;
}

static cJSON *array(struct tp *t)
{
	cJSON *a = cJSON_CreateArray(), *v;

	t->i++;
	if (!a || mark(t, a, M_SEALED) < 0) {
		cJSON_Delete(a);
		return fail(t, "out of memory"), NULL;
	}
	for (;;) {
		if (skip_all(t) < 0)
			break;
		if (peek(t, 0) == ']') {
			t->i++;
			return a;
		}
		v = value(t);
		if (!v)
			break;
		cJSON_AddItemToArray(a, v);
		if (skip_all(t) < 0)
			break;
		if (peek(t, 0) == ',') {
			t->i++;
			continue;
		}
		if (peek(t, 0) == ']') {
			t->i++;
			return a;
		}
		fail(t, "expected ',' or ']' in an array");
		break;
	}
	cJSON_Delete(a);
	return NULL;
}

static int keyval(struct tp *t, cJSON *into);

static cJSON *inline_table(struct tp *t)
{
	cJSON *o = cJSON_CreateObject();

	t->i++;
	if (!o) {
		fail(t, "out of memory");
		return NULL;
	}
	skip_ws(t);
	if (peek(t, 0) == '}') {
		t->i++;
		goto done;
	}
	for (;;) {
		if (keyval(t, o) < 0)
			goto bad;
		skip_ws(t);
		if (peek(t, 0) == ',') {
			t->i++;
			continue;
		}
		if (peek(t, 0) == '}') {
			t->i++;
			break;
		}
		fail(t, "expected ',' or '}' in an inline table (on one line)");
		goto bad;
	}
done:
	if (mark(t, o, M_SEALED) == 0)
		return o;
bad:
	cJSON_Delete(o);
	return NULL;
}

static cJSON *value(struct tp *t)
{
	int c = peek(t, 0);
	size_t s = t->i, n;
	cJSON *v;
	char *str;

	if (c == '"' || c == '\'') {
		if (string(t, &str) < 0)
			return NULL;
		v = cJSON_CreateString(str);
		free(str);
		return v ? v : (fail(t, "out of memory"), NULL);
	}
	if (c == '[' || c == '{') {
		if (t->depth >= MAX_DEPTH)
			return fail(t, "nested deeper than %d", MAX_DEPTH),
			       NULL;
		t->depth++;
		v = c == '[' ? array(t) : inline_table(t);
		t->depth--;
		return v;
	}
	while (bare_char(peek(t, 0)) || peek(t, 0) == '+' ||
	       peek(t, 0) == '.' || peek(t, 0) == ':')
		t->i++;
	if (t->i - s == 4 && !memcmp(t->p + s, "true", 4))
		return cJSON_CreateTrue();
	if (t->i - s == 5 && !memcmp(t->p + s, "false", 5))
		return cJSON_CreateFalse();
	if (t->i == s) {
		fail(t, "expected a value");
		return NULL;
	}
	if (peek(t, 0) == ' ' && t->i - s == 10 && t->p[s + 4] == '-')
		return fail(t, "dates and times are not supported"), NULL;
	n = t->i - s;
	t->i = s; /* messages point at the start of the value */
	v = number(t, t->p + s, n);
	if (v)
		t->i = s + n;
	return v;
}

/* key = value into the table into (dotted keys make tables on the way). */
static int keyval(struct tp *t, cJSON *into)
{
	char *parts[MAX_PARTS];
	size_t n, k, at = t->i;
	cJSON *v, *next;
	int r = -1;

	while (peek(t, 0) == ' ' || peek(t, 0) == '\t')
		at = ++t->i;
	if (key(t, parts, &n) < 0)
		return -1;
	for (k = 0; k + 1 < n; k++) {
		next = cJSON_GetObjectItemCaseSensitive(into, parts[k]);
		if (!next) {
			next = cJSON_AddObjectToObject(into, parts[k]);
			if (!next || mark(t, next, M_DOTTED) < 0) {
				fail(t, "out of memory");
				goto out;
			}
		} else if (!cJSON_IsObject(next) ||
			   (flags_of(t, next) & (M_SEALED | M_EXPLICIT))) {
			t->i = at;
			fail(t, "key '%.64s' is already defined", parts[k]);
			goto out;
		}
		into = next;
	}
	if (cJSON_GetObjectItemCaseSensitive(into, parts[n - 1])) {
		t->i = at;
		fail(t, "key '%.64s' is defined twice", parts[n - 1]);
		goto out;
	}
	skip_ws(t);
	if (peek(t, 0) != '=') {
		fail(t, "expected '=' after a key");
		goto out;
	}
	t->i++;
	skip_ws(t);
	v = value(t);
	if (!v)
		goto out;
	cJSON_AddItemToObject(into, parts[n - 1], v);
	r = 0;
out:
	free_parts(parts, n);
	return r;
}

/* [a.b] or [[a.b]]: sets t->cur. */
static int header(struct tp *t)
{
	int aot = starts(t, "[[");
	char *parts[MAX_PARTS];
	cJSON *at = t->root, *next;
	size_t n, k, start = t->i;
	int r = -1, f;

	t->i += aot ? 2 : 1;
	if (key(t, parts, &n) < 0)
		return -1;
	if (!(aot ? starts(t, "]]") : peek(t, 0) == ']')) {
		fail(t, aot ? "expected ']]'" : "expected ']'");
		goto out;
	}
	t->i += aot ? 2 : 1;
	for (k = 0; k + 1 < n; k++) {
		next = cJSON_GetObjectItemCaseSensitive(at, parts[k]);
		f = next ? flags_of(t, next) : 0;
		if (!next) {
			next = cJSON_AddObjectToObject(at, parts[k]);
			if (!next) {
				fail(t, "out of memory");
				goto out;
			}
		} else if (cJSON_IsArray(next) && (f & M_AOT)) {
			next = cJSON_GetArrayItem(next,
						  cJSON_GetArraySize(next) - 1);
		} else if (!cJSON_IsObject(next) || (f & M_SEALED)) {
			t->i = start;
			fail(t, "key '%.64s' is already defined", parts[k]);
			goto out;
		}
		at = next;
	}
	next = cJSON_GetObjectItemCaseSensitive(at, parts[n - 1]);
	f = next ? flags_of(t, next) : 0;
	if (aot) {
		if (!next) {
			next = cJSON_AddArrayToObject(at, parts[n - 1]);
			if (!next || mark(t, next, M_AOT) < 0)
				goto oom;
		} else if (!cJSON_IsArray(next) || !(f & M_AOT)) {
			t->i = start;
			fail(t, "key '%.64s' is already defined", parts[n - 1]);
			goto out;
		}
		at = cJSON_CreateObject();
		if (!at)
			goto oom;
		cJSON_AddItemToArray(next, at);
	} else {
		if (!next) {
			next = cJSON_AddObjectToObject(at, parts[n - 1]);
			if (!next)
				goto oom;
		} else if (!cJSON_IsObject(next) ||
			   (f & (M_EXPLICIT | M_SEALED | M_DOTTED))) {
			t->i = start;
			fail(t, "table '%.64s' is defined twice", parts[n - 1]);
			goto out;
		}
		if (mark(t, next, M_EXPLICIT) < 0)
			goto out;
		at = next;
	}
	t->cur = at;
	r = 0;
	goto out;
oom:
	fail(t, "out of memory");
out:
	free_parts(parts, n);
	return r;
}

cJSON *toml_parse(const char *text, size_t len, char **err)
{
	struct tp t = {.p = text, .n = len};

	*err = NULL;
	if (len >= 3 && !memcmp(text, "\xef\xbb\xbf", 3))
		t.i = 3;
	t.root = t.cur = cJSON_CreateObject();
	if (!t.root) {
		*err = strdup("out of memory");
		return NULL;
	}
	while (t.i < t.n) {
		skip_ws(&t);
		if (skip_comment(&t) < 0)
			break;
		if (newline(&t) || t.i >= t.n)
			continue;
		if (peek(&t, 0) == '[' ? header(&t) < 0
				       : keyval(&t, t.cur) < 0)
			break;
		skip_ws(&t);
		if (skip_comment(&t) < 0)
			break;
		if (!newline(&t) && t.i < t.n) {
			fail(&t, peek(&t, 0) == 0 ? "NUL byte in the text" :
				 "expected the end of the line");
			break;
		}
	}
	free(t.marks);
	if (t.err) {
		cJSON_Delete(t.root);
		*err = t.err;
		return NULL;
	}
	return t.root;
}
