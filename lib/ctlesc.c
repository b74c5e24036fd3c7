/*
 * ctlesc.c - control characters of server text shown as escapes (spec 6):
 * the one function help/, README.md and the status files use, so a
 * server's title, description or version cannot clear a screen, write the
 * clipboard (OSC 52), hide text, move the cursor over a line or start a
 * new section of a document. See ctlesc.h for what is escaped and how.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ctlesc.h"

/*
 * The length of the UTF-8 sequence at p (1 to 4), 0 if p does not start
 * one; *cp gets its code point. A NUL kept as C0 80 is code point 0.
 */
static size_t utf8_at(const unsigned char *p, unsigned *cp)
{
	size_t n, i;
	unsigned c = p[0];

	if (c < 0x80) {
		*cp = c;
		return 1;
	}
	if (c == 0xc0 && p[1] == 0x80) {
		*cp = 0;
		return 2;
	}
	if (c >= 0xc2 && c <= 0xdf)
		n = 2, c &= 0x1f;
	else if (c >= 0xe0 && c <= 0xef)
		n = 3, c &= 0x0f;
	else if (c >= 0xf0 && c <= 0xf4)
		n = 4, c &= 0x07;
	else
		return 0;
	for (i = 1; i < n; i++) {
		if ((p[i] & 0xc0) != 0x80)
			return 0;
		c = c << 6 | (p[i] & 0x3f);
	}
	*cp = c;
	return n;
}

/* A code point shown as an escape: C1 controls, bidi and line marks. */
static int hidden(unsigned cp)
{
	return (cp >= 0x80 && cp <= 0x9f) || cp == 0x200e || cp == 0x200f ||
	       (cp >= 0x2028 && cp <= 0x202e) ||
	       (cp >= 0x2066 && cp <= 0x2069);
}

/* What to write for the sequence at p (n bytes, code point cp): NULL to
 * copy it, else the escape in buf. */
static const char *escape_of(const unsigned char *p, size_t n, unsigned cp,
			     int multiline, char *buf, size_t len)
{
	if (n == 0) {
		snprintf(buf, len, "\\x%02x", p[0]);
		return buf;
	}
	if (cp == '\t' || (cp == '\n' && multiline))
		return NULL;
	if (cp == '\n')
		return "\\n";
	if (cp == '\r')
		return "\\r";
	if (cp < 0x20 || cp == 0x7f) {
		snprintf(buf, len, "\\x%02x", cp);
		return buf;
	}
	if (hidden(cp)) {
		snprintf(buf, len, "\\u%04x", cp);
		return buf;
	}
	return NULL;
}

int ctlesc_text(struct gbuf *b, const char *s, int multiline)
{
	const unsigned char *p = (const unsigned char *)s, *run = p;
	char buf[16];

	while (*p) {
		unsigned cp = 0;
		size_t n = utf8_at(p, &cp);
		const char *e = escape_of(p, n, cp, multiline, buf,
					  sizeof buf);

		if (!e) {
			p += n;
			continue;
		}
		gbuf_add(b, run, (size_t)(p - run));
		gbuf_puts(b, e);
		p += n ? n : 1;
		run = p;
	}
	gbuf_add(b, run, (size_t)(p - run));
	return b->oom ? -ENOMEM : 0;
}

char *ctlesc_dup(const char *s, int multiline)
{
	struct gbuf b = {0};

	ctlesc_text(&b, s, multiline);
	return gbuf_take(&b);
}

int ctlesc_needed(const char *s, int multiline)
{
	const unsigned char *p = (const unsigned char *)s;
	char buf[16];

	while (*p) {
		unsigned cp = 0;
		size_t n = utf8_at(p, &cp);

		if (escape_of(p, n, cp, multiline, buf, sizeof buf))
			return 1;
		p += n;
	}
	return 0;
}

char *ctlesc_json(const char *json, size_t n, size_t *len)
{
	const unsigned char *p = (const unsigned char *)json;
	struct gbuf b = {0};
	size_t i = 0, run = 0;
	char *out;

	while (i < n) {
		unsigned cp = 0;
		size_t k = p[i] < 0x7f ? 1 : utf8_at(p + i, &cp);

		if (p[i] == 0x7f)
			cp = 0x7f;
		else if (k == 0 || (k == 2 && cp == 0)) {
			i++; /* not UTF-8, or C0 80: left as it is */
			continue;
		}
		if (cp == 0x7f || (cp >= 0x80 && cp <= 0x9f)) {
			gbuf_add(&b, json + run, i - run);
			gbuf_printf(&b, "\\u%04x", cp);
			i += k;
			run = i;
			continue;
		}
		i += k;
	}
	gbuf_add(&b, json + run, n - run);
	if (len)
		*len = b.len;
	out = gbuf_take(&b);
	return out;
}
