/*
 * httpcheck.h - the pure checks of the HTTP door (serve/http.c, spec 14):
 * what a request's headers say (the listen address, Host, Origin, the
 * bearer token, Content-Length, the path) and the bodies held at once.
 * No libmicrohttpd, no loop: unit-tested and fuzzed (fuzz_httpcheck).
 */
#ifndef MCPFS_HTTPCHECK_H
#define MCPFS_HTTPCHECK_H

#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

#include "gbuf.h"

/* --serve [ADDR:]PORT: a bare port means 127.0.0.1:PORT; ADDR is an IPv4
 * address, [IPv6] or localhost (127.0.0.1). 0 and *ss filled, or
 * -EINVAL. *loopback: 1 when the address is a loopback one. */
int hc_listen_addr(const char *s, struct sockaddr_storage *ss,
		   socklen_t *len, int *loopback);

/* The Host header (DNS rebinding, spec 14): 1 when its name is a loopback
 * one (localhost, 127.0.0.1, [::1]) or local, the address the connection
 * came in at as text (a dotted IPv4 address or an IPv6 one without
 * brackets; NULL: none), with any port or none; 0 otherwise, also when
 * host is NULL. */
int hc_host_ok(const char *host, const char *local);

/* The Origin header: 1 when it is absent or exactly a loopback origin,
 * scheme://host[:port] with scheme http or https and host localhost,
 * 127.0.0.1 or [::1] (no user, path, query or anything else); 0
 * otherwise ("null", evil.example, http://127.0.0.1:1@evil). */
int hc_origin_ok(const char *origin);

/* 1 when the Authorization header is "Bearer TOKEN" with token's 64
 * characters, compared in constant time. */
int hc_bearer_ok(const char *header, const char *token);

/* Content-Length: 1 and *n when it is digits only and fits, 0 when the
 * header is absent, -1 when it is malformed. */
int hc_content_length(const char *s, uint64_t *n);

/* The thread a path names: "" for /mcp, NAME for /mcp/NAME (no dot
 * name, no slash, at most 128 bytes; serve/http.c asks the core's
 * mcp_thread_name_check too), NULL for any other path. */
const char *hc_thread_of_path(const char *url);

/*
 * The request bodies held at once: every body being read counts its bytes
 * against cap (4 x --max-message) until it is dropped; a body also stops
 * at max (--max-message) itself. hc_body_add takes a part of one body:
 * HC_BODY_OK, or the first limit it hit, after which its bytes are
 * released and the rest of it is only counted (the request is answered
 * when it is in). hc_body_drop releases a body's bytes (dispatched or
 * gone).
 */
struct hc_pool {
	size_t held, cap;
};
struct hc_body {
	struct gbuf buf;
	size_t seen;                 /* bytes of the body read so far */
	int state;                   /* HC_BODY_* */
};
enum { HC_BODY_OK, HC_BODY_TOO_LONG, HC_BODY_POOL, HC_BODY_OOM };
int hc_body_add(struct hc_pool *pool, struct hc_body *b, const char *data,
		size_t n, size_t max);
void hc_body_drop(struct hc_pool *pool, struct hc_body *b);
/* At the headers: the state a body of Content-Length n will end in
 * (HC_BODY_TOO_LONG, HC_BODY_POOL when the bodies held and n would pass
 * the cap, HC_BODY_OK). */
int hc_body_expect(const struct hc_pool *pool, uint64_t n, size_t max);

#endif
