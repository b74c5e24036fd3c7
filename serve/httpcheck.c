/*
 * httpcheck.c - the pure checks of the HTTP door (httpcheck.h): what is
 * parsed of a request's headers before mcpfs believes it, and the count
 * of the request bodies held at once. Every string here comes from
 * whoever reached the port: each is parsed whole, never matched as a
 * prefix.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <string.h>
#include <strings.h>

#include "httpcheck.h"

int hc_listen_addr(const char *s, struct sockaddr_storage *ss,
		   socklen_t *len, int *loopback)
{
	char host[128];
	const char *colon = strrchr(s, ':');
	const char *digits = colon ? colon + 1 : s; /* a bare port */
	size_t hlen = colon ? (size_t)(colon - s) : 0;
	unsigned long port = 0;
	const char *p;

	if (hlen >= sizeof host || !*digits || strlen(digits) > 5)
		return -EINVAL;
	for (p = digits; *p; p++) {
		if (*p < '0' || *p > '9')
			return -EINVAL;
		port = port * 10 + (unsigned long)(*p - '0');
	}
	if (port > 65535)
		return -EINVAL;
	memcpy(host, s, hlen);
	host[hlen] = 0;
	memset(ss, 0, sizeof *ss);
	if (!*host || !strcmp(host, "localhost"))
		strcpy(host, "127.0.0.1");
	if (host[0] == '[' && host[strlen(host) - 1] == ']') {
		struct sockaddr_in6 *a = (struct sockaddr_in6 *)ss;

		host[strlen(host) - 1] = 0;
		if (inet_pton(AF_INET6, host + 1, &a->sin6_addr) != 1)
			return -EINVAL;
		a->sin6_family = AF_INET6;
		a->sin6_port = htons((uint16_t)port);
		*len = sizeof *a;
		*loopback = IN6_IS_ADDR_LOOPBACK(&a->sin6_addr);
	} else {
		struct sockaddr_in *a = (struct sockaddr_in *)ss;

		if (inet_pton(AF_INET, host, &a->sin_addr) != 1)
			return -EINVAL;
		a->sin_family = AF_INET;
		a->sin_port = htons((uint16_t)port);
		*len = sizeof *a;
		*loopback = (ntohl(a->sin_addr.s_addr) >> 24) == 127;
	}
	return 0;
}

/* 1 when s is empty or ":" and 1 to 5 digits up to 65535. */
static int port_ok(const char *s)
{
	unsigned long port = 0;
	size_t i;

	if (!*s)
		return 1;
	if (*s++ != ':' || !*s || strlen(s) > 5)
		return 0;
	for (i = 0; s[i]; i++) {
		if (s[i] < '0' || s[i] > '9')
			return 0;
		port = port * 10 + (unsigned long)(s[i] - '0');
	}
	return port <= 65535;
}

/* The length of the host of "host[:port]" (an IPv6 one in brackets,
 * brackets counted), or 0 when it is none. */
static size_t host_len(const char *s)
{
	const char *e;

	if (*s == '[')
		return (e = strchr(s, ']')) ? (size_t)(e - s) + 1 : 0;
	return strcspn(s, ":");
}

static const char *const loopback_names[] = {
	"localhost", "127.0.0.1", "[::1]",
};

static int is_loopback_name(const char *h, size_t n)
{
	size_t i;

	for (i = 0; i < sizeof loopback_names / sizeof *loopback_names; i++)
		if (strlen(loopback_names[i]) == n &&
		    !strncasecmp(h, loopback_names[i], n))
			return 1;
	return 0;
}

int hc_host_ok(const char *host, const char *local)
{
	size_t n;

	if (!host || !(n = host_len(host)) || !port_ok(host + n))
		return 0;
	if (is_loopback_name(host, n))
		return 1;
	if (!local || !*local)
		return 0;
	if (strchr(local, ':')) /* IPv6: in brackets in a Host */
		return host[0] == '[' && n == strlen(local) + 2 &&
		       !strncasecmp(host + 1, local, n - 2);
	return n == strlen(local) && !strncmp(host, local, n);
}

int hc_origin_ok(const char *o)
{
	size_t n;

	if (!o)
		return 1;
	if (!strncasecmp(o, "http://", 7))
		o += 7;
	else if (!strncasecmp(o, "https://", 8))
		o += 8;
	else
		return 0;
	return (n = host_len(o)) && is_loopback_name(o, n) &&
	       port_ok(o + n);
}

int hc_bearer_ok(const char *a, const char *token)
{
	unsigned char d = 0;
	size_t i;

	if (!a || strncmp(a, "Bearer ", 7) || strlen(a + 7) != 64 ||
	    strlen(token) != 64)
		return 0;
	for (i = 0; i < 64; i++)
		d |= (unsigned char)(a[7 + i] ^ token[i]);
	return d == 0;
}

int hc_content_length(const char *s, uint64_t *n)
{
	uint64_t v = 0;

	if (!s)
		return 0;
	if (!*s)
		return -1;
	for (; *s; s++) {
		if (*s < '0' || *s > '9' || v > (UINT64_MAX - 9) / 10)
			return -1;
		v = v * 10 + (uint64_t)(*s - '0');
	}
	*n = v;
	return 1;
}

const char *hc_thread_of_path(const char *url)
{
	if (!strcmp(url, "/mcp"))
		return "";
	if (!strncmp(url, "/mcp/", 5) && url[5] && !strchr(url + 5, '/') &&
	    url[5] != '.' && strlen(url + 5) <= 128)
		return url + 5;
	return NULL;
}

void hc_body_drop(struct hc_pool *pool, struct hc_body *b)
{
	pool->held -= b->buf.len;
	gbuf_free(&b->buf);
}

int hc_body_add(struct hc_pool *pool, struct hc_body *b, const char *data,
		size_t n, size_t max)
{
	b->seen += n; /* the rest of a refused body: counted, dropped */
	if (b->state != HC_BODY_OK)
		return b->state;
	if (b->seen > max || b->seen < n)
		b->state = HC_BODY_TOO_LONG;
	else if (n > pool->cap - pool->held)
		b->state = HC_BODY_POOL;
	else if (gbuf_add(&b->buf, data, n) < 0)
		b->state = HC_BODY_OOM;
	else
		pool->held += n;
	if (b->state != HC_BODY_OK)
		hc_body_drop(pool, b);
	return b->state;
}

int hc_body_expect(const struct hc_pool *pool, uint64_t n, size_t max)
{
	if (n > max)
		return HC_BODY_TOO_LONG;
	if (n > pool->cap - pool->held)
		return HC_BODY_POOL;
	return HC_BODY_OK;
}
