/*
 * oauthutil.h - the pure parts of the OAuth client (oauthutil.c): parsing
 * WWW-Authenticate challenges, building well-known metadata URLs, base64url,
 * form encoding, URL parts. No I/O, no crypto: unit tested directly.
 */
#ifndef MCPFS_OAUTHUTIL_H
#define MCPFS_OAUTHUTIL_H

#include <stddef.h>

/* The value of parameter name of the Bearer challenge in a WWW-Authenticate
 * header value (quoted or token form, quotes and escapes removed), copied
 * into out (n bytes). Returns 0, or -ENOENT when absent, -EINVAL when the
 * header holds no Bearer challenge, -E2BIG when it does not fit. */
int oauth_www_param(const char *hdr, const char *name, char *out, size_t n);

/* Well-known metadata URLs (RFC 8414 section 3.1, RFC 9728 section 3.1,
 * OpenID Connect Discovery): of url's origin and path (query and fragment
 * dropped, one trailing "/" of the path dropped), with suffix the
 * well-known name ("oauth-protected-resource", ...). Modes:
 *   OAUTH_WK_INSERT  origin + "/.well-known/" + suffix + path
 *   OAUTH_WK_ROOT    origin + "/.well-known/" + suffix
 *   OAUTH_WK_APPEND  origin + path + "/.well-known/" + suffix
 * Returns a malloc'd string, or NULL (bad URL, ENOMEM). */
enum { OAUTH_WK_INSERT, OAUTH_WK_ROOT, OAUTH_WK_APPEND };
char *oauth_wellknown(const char *url, const char *suffix, int mode);
/* 1 when url has a path other than "" or "/". */
int oauth_url_has_path(const char *url);
/* The origin of url ("scheme://host[:port]") malloc'd, or NULL. */
char *oauth_url_origin(const char *url);
/* 1 for an https:// URL, or an http:// one whose host is loopback
 * (127.0.0.1, [::1], localhost); 0 otherwise. */
int oauth_url_allowed(const char *url);
/* 1 when resource (from protected resource metadata) names url: same
 * scheme and authority (case-insensitive) and a path that is url's path or
 * a prefix of it ending at a "/". */
int oauth_resource_matches(const char *resource, const char *url);

/* base64url without padding of n bytes into out (at least 4 * n / 3 + 4
 * bytes); returns the length written (NUL after). */
size_t oauth_b64url(const unsigned char *p, size_t n, char *out);
/* Standard base64 with padding, as base64url. */
size_t oauth_b64(const unsigned char *p, size_t n, char *out);
/* application/x-www-form-urlencoded of s, malloc'd (NULL on ENOMEM). */
char *oauth_form_escape(const char *s);
/* Append "&key=value" (no "&" when *buf is empty) with value escaped to
 * the malloc'd *buf. 0 or -ENOMEM. */
int oauth_form_add(char **buf, const char *key, const char *value);
/* The decoded value of query parameter key of url (after "?", before "#"),
 * malloc'd, or NULL when absent (or ENOMEM). */
char *oauth_query_get(const char *url, const char *key);
/* 1 when the space-separated list has word. */
int oauth_scope_has(const char *list, const char *word);
/* The union of two space-separated lists (a's order, then b's new words),
 * malloc'd; NULL on ENOMEM. Either may be NULL. */
char *oauth_scope_union(const char *a, const char *b);
/* The next word of the space-separated list at *p into w (words of
 * OAUTH_SCOPE_MAX bytes or more are skipped), advancing *p; 0 at the end. */
#define OAUTH_SCOPE_MAX 256
int oauth_scope_next(const char **p, char w[OAUTH_SCOPE_MAX]);

/* 1 when t is a token RFC 6750 allows in a Bearer header (b64token:
 * 1*(ALPHA / DIGIT / "-" / "." / "_" / "~" / "+" / "/") *"=") of at most
 * OAUTH_TOKEN_MAX bytes; 0 otherwise (CR, LF, NUL, space, quotes...). */
#define OAUTH_TOKEN_MAX 16384
int oauth_token_ok(const char *t);
/* expires_in as the server sent it, clamped to [OAUTH_EXPIRY_MIN,
 * OAUTH_EXPIRY_MAX] seconds (NaN, negative and huge values included). */
#define OAUTH_EXPIRY_MIN 10.0
#define OAUTH_EXPIRY_MAX (366.0 * 86400)
double oauth_clamp_expiry(double v);

#endif
