/*
 * jcompact.c - JSON text as one compact line: whitespace outside strings
 * dropped, raw control bytes inside strings escaped, every other byte
 * kept (numbers and strings as they were written). See jcompact.h.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "jcompact.h"
#include "jscan.h"

/* Four words tested at once for a byte below 0x20 (with x - 0x20 in
 * every byte, a byte below 0x20 and not above 0x7f borrows into its top
 * bit: exact for "is there one", Hacker's Delight, "haszero"), then byte
 * by byte in the 32 that have one. GCC 12 at -O2 does not vectorize a
 * byte loop, and this scan of a long reply was most of mcpfs's time
 * (perf: 60% of a 63 MiB call, tests/bench/README.md). */
size_t jcompact_control(const char *p, size_t i, size_t n)
{
	const uint64_t ones = 0x0101010101010101ull, high = ones << 7;
	const uint64_t sub = ones * 0x20;
	uint64_t w[4];

	while (i < n && n - i >= sizeof w) {
		memcpy(w, p + i, sizeof w);
		if ((((w[0] - sub) & ~w[0]) | ((w[1] - sub) & ~w[1]) |
		     ((w[2] - sub) & ~w[2]) | ((w[3] - sub) & ~w[3])) & high)
			break;
		i += sizeof w;
	}
	while (i < n && (unsigned char)p[i] >= 0x20)
		i++;
	return i;
}

int jcompact_is(const char *p, size_t n)
{
	size_t i = 0;

	if (jcompact_control(p, 0, n) < n)
		return 0;
	while (i < n) {
		const char *q = memchr(p + i, '"', n - i);
		size_t e = q ? (size_t)(q - p) : n;

		if (memchr(p + i, ' ', e - i))
			return 0; /* a space between two strings */
		if (!q)
			return 1;
		/* the string: its bytes are kept, a space in it too */
		if (!(i = jscan_string_end(p, e, n)))
			return 1; /* no end: nothing outside it follows */
	}
	return 1;
}

int jcompact(const char *p, size_t n, char **out, size_t *outn)
{
	static const char hex[] = "0123456789abcdef";
	size_t i, ctl = 0;
	int in_str = 0;
	char *o, *w;

	if (jcompact_is(p, n))
		return 0;
	for (i = jcompact_control(p, 0, n); i < n;
	     i = jcompact_control(p, i + 1, n))
		ctl++;
	if (!(o = malloc(n + 5 * ctl + 1)))
		return -1;
	for (i = 0, w = o; i < n; i++) {
		unsigned char c = (unsigned char)p[i];

		if (!in_str) {
			if (c > 0x20)
				*w++ = (char)c;
			in_str = c == '"';
		} else if (c >= 0x20) {
			*w++ = (char)c;
			if (c == '\\' && i + 1 < n &&
			    (unsigned char)p[i + 1] >= 0x20)
				*w++ = p[++i]; /* an escape: its byte as is */
			else if (c == '"')
				in_str = 0;
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
