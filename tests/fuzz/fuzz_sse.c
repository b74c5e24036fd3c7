/*
 * fuzz_sse.c - libFuzzer target for the text/event-stream parser. The first
 * byte picks the limit (0..127, or 16384 when >= 128), the next two the
 * first cut (big-endian, modulo the length) and the fourth the length of the
 * middle part (0 too); the rest is the stream. It is fed whole, in three
 * parts at the cuts and, when short, byte by byte.
 * Every delivered event must be non-empty, NUL-terminated, at most max
 * bytes, free of '\r' and '\n', and as long as its strlen() unless the
 * stream holds a NUL; every way of feeding must deliver the same events and
 * end with the same return code, id and retry.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "sse.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

struct seen {
	size_t max;
	int has_nul;          /* the stream holds a NUL */
	size_t events, bytes;
	uint64_t hash;        /* FNV-1a over every event's length and data */
	int rc;
	char id[SSE_ID_MAX];
	long retry;
};

static void mix(struct seen *s, const void *p, size_t n)
{
	const unsigned char *b = p;
	size_t i;

	for (i = 0; i < n; i++)
		s->hash = (s->hash ^ b[i]) * 1099511628211ULL;
}

static int event_cb(void *ctx, char *d, size_t len)
{
	struct seen *s = ctx;

	if (!len || len > s->max || d[len] != '\0' ||
	    memchr(d, '\n', len) || memchr(d, '\r', len))
		abort();
	if (s->has_nul ? strlen(d) > len : strlen(d) != len)
		abort();
	mix(s, &len, sizeof(len));
	mix(s, d, len);
	s->events++;
	s->bytes += len;
	return 0;
}

/* Feed s in the parts ending at ends[0..nends) (the last one is n). */
static void run(struct seen *out, const char *s, size_t n, size_t max,
		const size_t *ends, size_t nends)
{
	struct sse p;
	size_t i, off = 0;
	int r;

	memset(out, 0, sizeof(*out));
	out->max = max;
	out->has_nul = memchr(s, 0, n) != NULL;
	out->hash = 1469598103934665603ULL;
	sse_init(&p, max);
	for (i = 0; i < nends; i++) {
		r = sse_feed(&p, s + off, ends[i] - off, event_cb, out);
		off = ends[i];
		if (r != 0 && r != -E2BIG)
			abort();
		if (out->rc == -E2BIG && r != -E2BIG)
			abort(); /* broken for good */
		if (!out->rc)
			out->rc = r;
	}
	if (out->rc == 0 && (p.line.len > max || p.data.len > max))
		abort();
	if (memchr(p.id, 0, sizeof(p.id)) == NULL || p.retry < -1)
		abort();
	memcpy(out->id, p.id, sizeof(out->id));
	out->retry = p.retry;
	sse_free(&p);
}

static void same(const struct seen *a, const struct seen *b)
{
	if (a->events != b->events || a->bytes != b->bytes ||
	    a->hash != b->hash || a->rc != b->rc ||
	    strcmp(a->id, b->id) != 0 || a->retry != b->retry)
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct seen whole, cut;
	size_t max, n, ends[3], i, *bytes;
	const char *s;

	if (size < 4)
		return 0;
	max = data[0] < 128 ? data[0] : 16384;
	s = (const char *)data + 4;
	n = size - 4;
	ends[0] = ((size_t)data[1] << 8 | data[2]) % (n + 1);
	ends[1] = ends[0] + data[3] % (n - ends[0] + 1);
	ends[2] = n;

	run(&whole, s, n, max, &n, 1);
	run(&cut, s, n, max, ends, 3);
	same(&whole, &cut);
	if (n && n <= 512) {
		bytes = malloc(n * sizeof(*bytes));
		if (!bytes)
			return 0;
		for (i = 0; i < n; i++)
			bytes[i] = i + 1;
		run(&cut, s, n, max, bytes, n);
		same(&whole, &cut);
		free(bytes);
	}
	return 0;
}
