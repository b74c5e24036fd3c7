/*
 * jspan.c - reading a JSON text already checked (jscan.c) by its spans,
 * with no parse: where a string or a value ends, an object's members and
 * an array's items one at a time (each noting whitespace between tokens,
 * for jcompact.h), a string compared with a C string through its
 * escapes, a member found by name.
 */
#include <stdint.h>
#include <string.h>

#include "jscan.h"

static int is_ws(unsigned char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

size_t jscan_string_end(const char *p, size_t i, size_t n)
{
	i++;
	while (i < n) {
		const char *q = memchr(p + i, '"', n - i);
		size_t j, k;

		if (!q)
			return 0;
		j = (size_t)(q - p);
		for (k = j; k > i && p[k - 1] == '\\'; k--)
			;
		i = j + 1;
		if ((j - k) % 2 == 0)
			return i;
	}
	return 0;
}

/* jscan_value_end; *ws set when whitespace stands between the tokens of
 * the value (outside its strings): it is not compact (jcompact.h). */
static size_t value_end(const char *p, size_t i, size_t n, int *ws)
{
	int depth = 0;

	while (i < n) {
		char ch = p[i];

		if (ch == '"') {
			if (!(i = jscan_string_end(p, i, n)))
				return 0;
			if (!depth)
				return i;
			continue;
		}
		if (ch == '{' || ch == '[') {
			depth++;
		} else if (ch == '}' || ch == ']') {
			if (!depth)
				return i;
			if (--depth == 0)
				return i + 1;
		} else if (!depth && (ch == ',' || is_ws((unsigned char)ch))) {
			return i;
		} else if (is_ws((unsigned char)ch)) {
			*ws = 1;
		}
		i++;
	}
	return depth ? 0 : i;
}

size_t jscan_value_end(const char *p, size_t i, size_t n)
{
	int ws = 0;

	return value_end(p, i, n, &ws);
}

static size_t skip_ws(const char *p, size_t i, size_t n)
{
	while (i < n && is_ws((unsigned char)p[i]))
		i++;
	return i;
}

/* Opens the cursor m on the container at p[at] that begins with open and
 * ends with close (an object or an array); bad when p[at] is not open. */
static void cursor_init(struct jscan_members *m, const char *p, size_t at,
			size_t end, char open, char close)
{
	m->p = p;
	m->end = end;
	m->bad = at >= end || p[at] != open;
	m->i = m->bad ? end : skip_ws(p, at + 1, end);
	if (!m->bad && m->i < end && p[m->i] == close) {
		m->i++;
		m->bad = -1; /* empty: closed at the first next */
	}
}

/* Whether m is spent (closed or bad); a close seen last time is spent now,
 * and the cursor reads bad until the next entry proves whole. */
static int cursor_spent(struct jscan_members *m)
{
	if (m->bad) {
		if (m->bad < 0)
			m->bad = 0;
		return 1;
	}
	m->bad = 1;
	return 0;
}

/* Reads the value at p[i] into val and steps m past it and the comma or
 * the close after it; 0 when no whole value stands at i. */
static int cursor_value(struct jscan_members *m, size_t i,
			struct jscan_span *val, char close)
{
	const char *p = m->p;
	size_t e;

	m->ws = 0;
	e = i < m->end ? value_end(p, i, m->end, &m->ws) : 0;
	if (e <= i)
		return 0;
	val->at = i;
	val->n = e - i;
	i = skip_ws(p, e, m->end);
	if (i < m->end && p[i] == ',') {
		m->i = skip_ws(p, i + 1, m->end);
		m->bad = 0;
	} else if (i < m->end && p[i] == close) {
		m->i = i + 1;
		m->bad = -1; /* the last entry */
	} else {
		m->i = m->end;
	}
	return 1;
}

void jscan_members_init(struct jscan_members *m, const char *p, size_t at,
			size_t end)
{
	cursor_init(m, p, at, end, '{', '}');
}

int jscan_members_next(struct jscan_members *m, struct jscan_span *key,
		       struct jscan_span *val)
{
	const char *p = m->p;
	size_t i = m->i, e;

	if (cursor_spent(m))
		return 0;
	if (i >= m->end || p[i] != '"' || !(e = jscan_string_end(p, i, m->end)))
		return 0;
	key->at = i;
	key->n = e - i;
	i = skip_ws(p, e, m->end);
	if (i >= m->end || p[i] != ':')
		return 0;
	return cursor_value(m, skip_ws(p, i + 1, m->end), val, '}');
}

void jscan_items_init(struct jscan_members *m, const char *p, size_t at,
		      size_t end)
{
	cursor_init(m, p, at, end, '[', ']');
}

int jscan_items_next(struct jscan_members *m, struct jscan_span *val)
{
	if (cursor_spent(m))
		return 0;
	return cursor_value(m, m->i, val, ']');
}

/* The four hex digits at p as a number, or -1. */
static long hex4(const char *p)
{
	long v = 0;
	int i, h;

	for (i = 0; i < 4; i++) {
		if ((h = jscan_hexval((unsigned char)p[i])) < 0)
			return -1;
		v = v * 16 + h;
	}
	return v;
}

int jscan_str_is(const char *p, struct jscan_span s, const char *want)
{
	const unsigned char *w = (const unsigned char *)want;
	size_t i, end;

	if (s.n < 2 || p[s.at] != '"' || p[s.at + s.n - 1] != '"')
		return 0;
	end = s.at + s.n - 1;
	for (i = s.at + 1; i < end;) {
		unsigned char one[4];
		size_t k, len;
		long cp, lo;

		if (p[i] != '\\') {
			if (!*w || *w != (unsigned char)p[i])
				return 0;
			w++;
			i++;
			continue;
		}
		if (i + 1 >= end)
			return 0;
		switch (p[i + 1]) {
		case '"': case '\\': case '/':
			cp = p[i + 1];
			break;
		case 'b': cp = '\b'; break;
		case 'f': cp = '\f'; break;
		case 'n': cp = '\n'; break;
		case 'r': cp = '\r'; break;
		case 't': cp = '\t'; break;
		case 'u':
			if (i + 6 > end || (cp = hex4(p + i + 2)) < 0)
				return 0;
			if (cp >= 0xd800 && cp < 0xdc00) {
				if (i + 12 > end || p[i + 6] != '\\' ||
				    p[i + 7] != 'u' ||
				    (lo = hex4(p + i + 8)) < 0xdc00 ||
				    lo > 0xdfff)
					return 0;
				cp = 0x10000 + ((cp - 0xd800) << 10) +
				     (lo - 0xdc00);
				i += 6;
			} else if (cp >= 0xdc00 && cp <= 0xdfff) {
				return 0;
			}
			i += 4;
			break;
		default:
			return 0;
		}
		i += 2;
		len = jscan_utf8_put((uint32_t)cp, one);
		for (k = 0; k < len; k++, w++)
			if (!*w || *w != one[k])
				return 0; /* \u0000 never matches: want ends */
	}
	return !*w;
}

int jscan_top_member(const char *p, size_t n, const char *key,
		     struct jscan_span *val)
{
	struct jscan_span top;

	top.at = skip_ws(p, 0, n);
	top.n = n - top.at;
	return jscan_member(p, top, key, val);
}

int jscan_member(const char *p, struct jscan_span obj, const char *key,
		 struct jscan_span *val)
{
	struct jscan_members m;
	struct jscan_span k, v;

	jscan_members_init(&m, p, obj.at, obj.at + obj.n);
	while (jscan_members_next(&m, &k, &v))
		if (jscan_str_is(p, k, key)) {
			*val = v;
			return 1;
		}
	return 0;
}
