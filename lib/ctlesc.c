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
 * The length of the UTF-8 sequence at p, of the avail bytes there (1 to
 * 4), 0 if p does not start one; *cp gets its code point. With nul_c080,
 * a NUL kept as C0 80 (jsent.h) is code point 0.
 */
static size_t utf8_at(const unsigned char *p, size_t avail, unsigned *cp,
		      int nul_c080)
{
	size_t n, i;
	unsigned c = p[0];

	if (c < 0x80) {
		*cp = c;
		return 1;
	}
	if (nul_c080 && c == 0xc0 && avail >= 2 && p[1] == 0x80) {
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
	if (avail < n)
		return 0;
	for (i = 1; i < n; i++) {
		if ((p[i] & 0xc0) != 0x80)
			return 0;
		c = c << 6 | (p[i] & 0x3f);
	}
	*cp = c;
	return n;
}

/* A code point shown as an escape beside C0 and DEL: C1 controls, the
 * bidi controls (Unicode's Bidi_Control: ALM, LRM, RLM, the embeddings
 * and overrides, the isolates) and the line and paragraph separators. */
static int hidden(unsigned cp)
{
	return (cp >= 0x80 && cp <= 0x9f) || cp == 0x061c || cp == 0x200e ||
	       cp == 0x200f || (cp >= 0x2028 && cp <= 0x202e) ||
	       (cp >= 0x2066 && cp <= 0x2069);
}

int ctlesc_unsafe(unsigned cp)
{
	return cp < 0x20 || cp == 0x7f || hidden(cp);
}

size_t ctlesc_unsafe_at(const char *s, size_t avail)
{
	unsigned cp = 0;
	size_t n = avail ? utf8_at((const unsigned char *)s, avail, &cp, 0)
			 : 0;

	return n && ctlesc_unsafe(cp) ? n : 0;
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

/* The n bytes at s to b escaped; raw: a NUL is a byte of the text (and
 * C0 80 two bytes not UTF-8), else C0 80 is the NUL of jsent.h. */
static int escape_run(struct gbuf *b, const char *s, size_t len,
		      int multiline, int raw)
{
	const unsigned char *p = (const unsigned char *)s, *run = p,
			    *end = p + len;
	char buf[16];

	while (p < end) {
		unsigned cp = 0;
		size_t n = utf8_at(p, (size_t)(end - p), &cp, !raw);
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

int ctlesc_text(struct gbuf *b, const char *s, int multiline)
{
	return escape_run(b, s, strlen(s), multiline, 0);
}

int ctlesc_bytes(struct gbuf *b, const char *s, size_t n, int multiline)
{
	return escape_run(b, s, n, multiline, 1);
}

char *ctlesc_dup(const char *s, int multiline)
{
	struct gbuf b = {0};

	ctlesc_text(&b, s, multiline);
	return gbuf_take(&b);
}

int ctlesc_needed(const char *s, int multiline)
{
	const unsigned char *p = (const unsigned char *)s,
			    *end = p + strlen(s);
	char buf[16];

	while (p < end) {
		unsigned cp = 0;
		size_t n = utf8_at(p, (size_t)(end - p), &cp, 1);

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
		size_t k = p[i] < 0x7f ? 1 : utf8_at(p + i, n - i, &cp, 1);

		if (p[i] == 0x7f)
			cp = 0x7f;
		else if (k == 0 || (k == 2 && cp == 0)) {
			i++; /* not UTF-8, or C0 80: left as it is */
			continue;
		}
		if (cp >= 0x7f && ctlesc_unsafe(cp)) {
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
