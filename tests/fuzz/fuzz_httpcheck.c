/*
 * fuzz_httpcheck.c - libFuzzer target for the HTTP door's pure checks
 * (serve/httpcheck.c): what a request's headers say and the bodies held
 * at once. The first byte picks the part:
 *
 * even: the rest (to its first NUL) is a header value, given to every
 * check. An accepted Origin or Host must stay refused with "@evil",
 * "/x", ".evil" or a space after it (parsed whole, never as a prefix),
 * and hold no '@', '?', '#', '\\' or whitespace; an accepted listen
 * address must print and parse back to the same address; Content-Length
 * must be digits only, with the value strtoull gives; a thread name has
 * no '/', no leading dot and is under 64 bytes.
 *
 * odd: the rest is a program over up to 8 bodies of one pool: byte 2
 * sets --max-message (1..4096; the pool 4x), then each pair of bytes is
 * (body, op): op < 200 adds op bytes of the input to the body, else the
 * body is dropped. After each step: the pool holds exactly the bytes its
 * bodies hold, never over its cap; a body never holds over max, holds
 * nothing once refused, never comes back from a refusal, and holds the
 * bytes it was given, in order.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "httpcheck.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char *const suffixes[] = {"@evil", "/x", ".evil", " ", "\t"};

static int refused_with_suffix(int (*ok)(const char *, const char *),
			       const char *s, const char *local)
{
	char buf[600];
	size_t i;

	for (i = 0; i < sizeof suffixes / sizeof *suffixes; i++) {
		snprintf(buf, sizeof buf, "%s%s", s, suffixes[i]);
		if (ok(buf, local))
			return 0;
	}
	return 1;
}

static int origin2(const char *o, const char *unused)
{
	(void)unused;
	return hc_origin_ok(o);
}

static void headers(const char *s)
{
	static const char *const locals[] = {NULL, "127.0.0.1", "10.0.0.5",
					     "::1", "fe80::1"};
	struct sockaddr_storage ss, ss2;
	char a[INET6_ADDRSTRLEN], again[80];
	socklen_t len, len2;
	int lb, lb2, k;
	uint64_t n;
	const char *t;
	size_t i;

	if (hc_origin_ok(s)) {
		if (strpbrk(s, "@?#\\ \t\r\n") ||
		    !refused_with_suffix(origin2, s, NULL))
			abort();
	}
	for (i = 0; i < sizeof locals / sizeof *locals; i++)
		if (hc_host_ok(s, locals[i]) &&
		    (strpbrk(s, "@/?#\\ \t\r\n") ||
		     !refused_with_suffix(hc_host_ok, s, locals[i])))
			abort();
	if (hc_host_ok(NULL, "127.0.0.1") || !hc_origin_ok(NULL))
		abort();
	k = hc_content_length(s, &n);
	if (k == 1 && (strspn(s, "0123456789") != strlen(s) ||
		       strtoull(s, NULL, 10) != n))
		abort();
	if (k == -1 && *s && strspn(s, "0123456789") == strlen(s) &&
	    strlen(s) < 19)
		abort();
	if ((t = hc_thread_of_path(s)) &&
	    (strchr(t, '/') || *t == '.' || strlen(t) > 128))
		abort();
	if (hc_bearer_ok(s, "0123456789abcdef0123456789abcdef"
			 "0123456789abcdef0123456789abcdef") &&
	    (strncmp(s, "Bearer ", 7) || strlen(s) != 71))
		abort();
	if (hc_listen_addr(s, &ss, &len, &lb) == 0) {
		if (ss.ss_family == AF_INET6) {
			struct sockaddr_in6 *v6 = (struct sockaddr_in6 *)&ss;

			inet_ntop(AF_INET6, &v6->sin6_addr, a, sizeof a);
			snprintf(again, sizeof again, "[%s]:%u", a,
				 ntohs(v6->sin6_port));
		} else {
			struct sockaddr_in *v4 = (struct sockaddr_in *)&ss;

			inet_ntop(AF_INET, &v4->sin_addr, a, sizeof a);
			snprintf(again, sizeof again, "%s:%u", a,
				 ntohs(v4->sin_port));
		}
		if (hc_listen_addr(again, &ss2, &len2, &lb2) != 0 ||
		    len != len2 || lb != lb2 || memcmp(&ss, &ss2, len))
			abort();
	}
}

#define BODIES 8

static void bodies(const uint8_t *p, size_t n)
{
	struct hc_pool pool = {0, 0};
	struct hc_body b[BODIES];
	size_t max, i, off = 1, sum;
	int was[BODIES];

	if (n < 1)
		return;
	memset(b, 0, sizeof b);
	memset(was, 0, sizeof was);
	max = (size_t)p[0] * 16 + 1;
	pool.cap = 4 * max;
	while (off + 2 <= n) {
		unsigned k = p[off] % BODIES, op = p[off + 1];
		size_t len = op < 200 ? op : 0;

		off += 2;
		if (op >= 200) {
			hc_body_drop(&pool, &b[k]);
			memset(&b[k], 0, sizeof b[k]);
			was[k] = 0;
		} else {
			size_t before = b[k].buf.len;
			int st;

			if (len > n - off)
				len = n - off;
			st = hc_body_add(&pool, &b[k], (const char *)p + off,
					 len, max);
			if (was[k] != HC_BODY_OK && st != was[k])
				abort(); /* a refusal is for good */
			if (st == HC_BODY_OK &&
			    (b[k].buf.len != before + len ||
			     (len && memcmp(b[k].buf.p + before, p + off,
					    len))))
				abort();
			was[k] = st;
			off += len;
		}
		for (sum = 0, i = 0; i < BODIES; i++) {
			if (b[i].buf.len > max ||
			    (b[i].state != HC_BODY_OK && b[i].buf.len))
				abort();
			sum += b[i].buf.len;
		}
		if (sum != pool.held || pool.held > pool.cap)
			abort();
		if (hc_body_expect(&pool, max + 1, max) != HC_BODY_TOO_LONG ||
		    (hc_body_expect(&pool, 0, max) != HC_BODY_OK))
			abort();
	}
	for (i = 0; i < BODIES; i++)
		hc_body_drop(&pool, &b[i]);
	if (pool.held)
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s;

	if (size < 1 || size > 4096)
		return 0;
	if (data[0] & 1) {
		bodies(data + 1, size - 1);
		return 0;
	}
	if (!(s = malloc(size)))
		return 0;
	memcpy(s, data + 1, size - 1);
	s[size - 1] = 0;
	headers(s);
	free(s);
	return 0;
}
