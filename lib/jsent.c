/*
 * jsent.c - cJSON trees that print what was sent: escaped NULs kept through
 * cJSON's C strings as the bytes C0 80, and numbers and strings kept as the
 * text they were parsed from (raw items), by walking the tree and its text
 * side by side with the structure-only scanner of jscan.c. See jsent.h.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "jexact.h"
#include "jscan.h"
#include "jsent.h"

#define KEEP_MAX_DEPTH 512

size_t jsent_hide_nul(char *p, size_t n)
{
	size_t r = 0, w = 0;

	while (r < n) {
		if (p[r] != '\\') {
			p[w++] = p[r++];
		} else if (n - r >= 6 && !memcmp(p + r + 1, "u0000", 5)) {
			p[w++] = (char)0xc0;
			p[w++] = (char)0x80;
			r += 6;
		} else {
			/* any other escape: its two first bytes as they are */
			p[w++] = p[r++];
			if (r < n)
				p[w++] = p[r++];
		}
	}
	if (w < n)
		p[w] = 0;
	return w;
}

int jsent_has_nul(const char *p, size_t n)
{
	size_t i = 0;

	while (i + 6 <= n) {
		const char *b = memchr(p + i, '\\', n - i);

		if (!b)
			return 0;
		i = (size_t)(b - p);
		if (i + 6 <= n && !memcmp(p + i + 1, "u0000", 5))
			return 1;
		i += 2; /* the escaped byte is never the start of another */
	}
	return 0;
}

static unsigned long failures; /* of cJSON's and jsent_parse's mallocs */

cJSON *jsent_parse(const char *p, size_t n)
{
	char *copy;
	cJSON *j;

	if (!jsent_has_nul(p, n))
		return cJSON_ParseWithLength(p, n);
	if (!(copy = malloc(n + 1))) {
		failures++;
		return NULL;
	}
	memcpy(copy, p, n);
	j = cJSON_ParseWithLength(copy, jsent_hide_nul(copy, n));
	free(copy);
	return j;
}

static void *counted_malloc(size_t n)
{
	void *p = malloc(n);

	if (!p)
		failures++;
	return p;
}

void jsent_count_failures(void)
{
	cJSON_Hooks h = { counted_malloc, free };

	cJSON_InitHooks(&h);
}

unsigned long jsent_failures(void)
{
	return failures;
}

char *jsent_print(const cJSON *j, int pretty, size_t *len)
{
	char *t = jexact_print(j, pretty); /* numbers that read back */
	char *out, *w;
	size_t n, pairs = 0, i;

	if (!t)
		return NULL;
	n = strlen(t);
	for (i = 0; i + 1 < n; i++)
		if ((unsigned char)t[i] == 0xc0 &&
		    (unsigned char)t[i + 1] == 0x80)
			pairs++;
	out = malloc(n + 4 * pairs + 1);
	if (out) {
		for (i = 0, w = out; i < n; i++) {
			if ((unsigned char)t[i] == 0xc0 && i + 1 < n &&
			    (unsigned char)t[i + 1] == 0x80) {
				memcpy(w, "\\u0000", 6);
				w += 6;
				i++;
			} else {
				*w++ = t[i];
			}
		}
		*w = 0;
		if (len)
			*len = (size_t)(w - out);
	}
	cJSON_free(t);
	return out;
}

/* cJSON's pretty print indents every line after the first by the depth
 * alone, and a newline is never inside a printed value (a string's is
 * escaped, a raw item holds a number or a string): the depth more tabs
 * after each newline are what nesting would have added. */
char *jsent_print_at(const cJSON *j, unsigned depth, size_t *len)
{
	size_t n, lines = 0, i, k;
	char *t = jsent_print(j, 1, &n), *out, *w;

	if (!t || !depth) {
		if (t && len)
			*len = n;
		return t;
	}
	for (i = 0; i < n; i++)
		lines += t[i] == '\n';
	if (!lines) {
		if (len)
			*len = n;
		return t;
	}
	out = malloc(n + lines * depth + 1);
	if (out) {
		for (i = 0, w = out; i < n; i++) {
			*w++ = t[i];
			if (t[i] == '\n')
				for (k = 0; k < depth; k++)
					*w++ = '\t';
		}
		*w = 0;
		if (len)
			*len = (size_t)(w - out);
	}
	free(t);
	return out;
}

static size_t skip_ws(const char *p, size_t i, size_t n)
{
	while (i < n && (p[i] == ' ' || p[i] == '\t' || p[i] == '\r' ||
			 p[i] == '\n'))
		i++;
	return i;
}

int jsent_escape_controls(const char *p, size_t n, char **out, size_t *outn)
{
	static const char hex[] = "0123456789abcdef";
	size_t i, bad = 0;
	int in_str = 0;
	char *o, *w;

	for (i = 0; i < n; i++)
		if ((unsigned char)p[i] < 0x20 && p[i] != ' ')
			bad++;
	if (!bad)
		return 0;
	if (!(o = malloc(n + 5 * bad + 1)))
		return -1;
	for (i = 0, w = o; i < n; i++) {
		unsigned char c = (unsigned char)p[i];

		if (c >= 0x20) {
			*w++ = (char)c;
			if (in_str && c == '\\' && i + 1 < n &&
			    (unsigned char)p[i + 1] >= 0x20)
				*w++ = p[++i]; /* an escape: its byte as is */
			else if (c == '"')
				in_str = !in_str;
		} else if (!in_str) {
			*w++ = c == '\t' || c == '\n' || c == '\r' ? (char)c : ' ';
		} else {
			memcpy(w, "\\u00", 4);
			w[4] = hex[c >> 4];
			w[5] = hex[c & 15];
			w += 6;
		}
	}
	*w = 0;
	*out = o;
	*outn = (size_t)(w - o);
	return 1;
}

/* The scalar j (a number or a string) becomes a raw item of p[at, end),
 * raw control bytes escaped. */
static void to_raw(cJSON *j, const char *p, size_t at, size_t end)
{
	char *raw, *esc = NULL;
	size_t n = end - at;

	if (cJSON_IsString(j) ? p[at] != '"' :
	    p[at] != '-' && (p[at] < '0' || p[at] > '9'))
		return;
	if (jsent_escape_controls(p + at, n, &esc, &n) < 0)
		return; /* no memory: cJSON prints it, escaped */
	raw = cJSON_malloc(n + 1);
	if (!raw) {
		free(esc);
		return;
	}
	memcpy(raw, esc ? esc : p + at, n);
	raw[n] = 0;
	free(esc);
	if (j->valuestring && !(j->type & cJSON_IsReference))
		cJSON_free(j->valuestring);
	j->valuestring = raw;
	j->type = cJSON_Raw | (j->type & cJSON_StringIsConst);
}

/* j is the value at p[at, end); 0, or -1 where the two disagree. */
static int keep(cJSON *j, const char *p, size_t at, size_t end, int depth)
{
	cJSON *c;
	size_t e;

	at = skip_ws(p, at, end);
	if (at >= end || depth > KEEP_MAX_DEPTH)
		return -1;
	if (cJSON_IsObject(j)) {
		struct jscan_members m;
		struct jscan_span k, v;

		if (p[at] != '{')
			return -1;
		jscan_members_init(&m, p, at, end);
		for (c = j->child; c; c = c->next) {
			if (!jscan_members_next(&m, &k, &v) ||
			    keep(c, p, v.at, v.at + v.n, depth + 1) < 0)
				return -1;
		}
		return 0;
	}
	if (cJSON_IsArray(j)) {
		struct jscan_members m;
		struct jscan_span v;

		if (p[at] != '[')
			return -1;
		jscan_items_init(&m, p, at, end);
		for (c = j->child; c; c = c->next) {
			if (!jscan_items_next(&m, &v) ||
			    keep(c, p, v.at, v.at + v.n, depth + 1) < 0)
				return -1;
		}
		return 0;
	}
	if (cJSON_IsNumber(j) || cJSON_IsString(j)) {
		e = jscan_value_end(p, at, end);
		if (e <= at)
			return -1;
		to_raw(j, p, at, e);
	}
	return 0;
}

void jsent_keep(cJSON *j, const char *p, size_t n)
{
	if (j && p)
		keep(j, p, 0, n, 0);
}

char *jsent_quote(const char *s)
{
	cJSON *j = cJSON_CreateString(s);
	char *t = j ? jsent_print(j, 0, NULL) : NULL;

	cJSON_Delete(j);
	return t;
}

int jsent_unquote(const char *p, size_t n, char **out)
{
	cJSON *j = jsent_parse(p, n);

	*out = NULL;
	if (!j)
		return n && p[0] == '"' && jscan_is_value(p, n) ? -ENOMEM : 0;
	if (cJSON_IsString(j) && !(*out = strdup(j->valuestring))) {
		cJSON_Delete(j);
		return -ENOMEM;
	}
	cJSON_Delete(j);
	return 0;
}
