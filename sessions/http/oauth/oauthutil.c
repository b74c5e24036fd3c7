/*
 * oauthutil.c - the pure parts of the OAuth client (contract in
 * oauthutil.h).
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "oauthutil.h"

/* ---- WWW-Authenticate (RFC 9110 section 11.6.1) ---- */

static const char *skip_ws(const char *p)
{
	while (*p == ' ' || *p == '\t' || *p == ',')
		p++;
	return p;
}

static int is_tchar(unsigned char c)
{
	return isalnum(c) || strchr("!#$%&'*+-.^_`|~/=:", c);
}

/*
 * Walk the challenges: a scheme token, then auth-params "k=v" or "k="v""
 * separated by commas, until the next scheme (a token not followed by
 * "="). Only the Bearer and DPoP (RFC 9449 7.1) challenges' parameters
 * are looked at.
 */
int oauth_www_param(const char *hdr, const char *name, char *out, size_t n)
{
	const char *p = hdr;
	int bearer = 0, seen = 0;
	size_t nl = strlen(name);

	while (*(p = skip_ws(p))) {
		const char *k = p, *ke;
		size_t kl;

		while (*p && is_tchar((unsigned char)*p) && *p != '=')
			p++;
		ke = p;
		kl = (size_t)(ke - k);
		while (*p == ' ' || *p == '\t')
			p++;
		if (*p != '=') { /* a scheme */
			if (!kl)
				return seen ? -ENOENT : -EINVAL;
			bearer = (kl == 6 && !strncasecmp(k, "Bearer", 6)) ||
				 (kl == 4 && !strncasecmp(k, "DPoP", 4));
			seen |= bearer;
			continue;
		}
		p++;
		while (*p == ' ' || *p == '\t')
			p++;
		{
			char val[4096];
			size_t vl = 0;

			if (*p == '"') {
				p++;
				while (*p && *p != '"') {
					if (*p == '\\' && p[1])
						p++;
					if (vl + 1 < sizeof val)
						val[vl++] = *p;
					p++;
				}
				if (*p == '"')
					p++;
			} else {
				while (*p && *p != ',' && *p != ' ' &&
				       *p != '\t') {
					if (vl + 1 < sizeof val)
						val[vl++] = *p;
					p++;
				}
			}
			val[vl] = 0;
			if (bearer && kl == nl && !strncasecmp(k, name, nl)) {
				if (vl + 1 > n)
					return -E2BIG;
				memcpy(out, val, vl + 1);
				return 0;
			}
		}
	}
	return seen ? -ENOENT : -EINVAL;
}

/* ---- URLs ---- */

/* Split url into the origin's length and the path (up to "?" or "#"). */
static int url_split(const char *url, size_t *olen, const char **path,
		     size_t *plen)
{
	const char *s = strstr(url, "://"), *a, *e;

	if (!s || s == url)
		return -EINVAL;
	a = s + 3;
	e = a + strcspn(a, "/?#");
	if (e == a)
		return -EINVAL;
	*olen = (size_t)(e - url);
	*path = e;
	*plen = *e == '/' ? strcspn(e, "?#") : 0;
	return 0;
}

char *oauth_url_origin(const char *url)
{
	size_t ol, pl;
	const char *p;

	if (url_split(url, &ol, &p, &pl) < 0)
		return NULL;
	return strndup(url, ol);
}

int oauth_url_has_path(const char *url)
{
	size_t ol, pl;
	const char *p;

	if (url_split(url, &ol, &p, &pl) < 0)
		return 0;
	return pl > 1;
}

char *oauth_wellknown(const char *url, const char *suffix, int mode)
{
	size_t ol, pl;
	const char *p;
	char *out = NULL;
	int r;

	if (url_split(url, &ol, &p, &pl) < 0)
		return NULL;
	if (pl && p[pl - 1] == '/')
		pl--;
	if (mode == OAUTH_WK_ROOT)
		pl = 0;
	if (mode == OAUTH_WK_APPEND)
		r = asprintf(&out, "%.*s%.*s/.well-known/%s", (int)ol, url,
			     (int)pl, p, suffix);
	else
		r = asprintf(&out, "%.*s/.well-known/%s%.*s", (int)ol, url,
			     suffix, (int)pl, p);
	return r < 0 ? NULL : out;
}

int oauth_url_allowed(const char *url)
{
	static const char *const loop[] = {"127.0.0.1", "[::1]", "localhost"};
	const char *h;
	size_t i, hl;

	if (!strncasecmp(url, "https://", 8))
		return url[8] != 0;
	if (strncasecmp(url, "http://", 7))
		return 0;
	h = url + 7;
	hl = strcspn(h, "/?#");
	if (memchr(h, '@', hl))
		return 0;
	for (i = 0; i < 3; i++) {
		size_t l = strlen(loop[i]);

		if (hl >= l && !strncasecmp(h, loop[i], l) &&
		    (hl == l || h[l] == ':'))
			return 1;
	}
	return 0;
}

int oauth_resource_matches(const char *resource, const char *url)
{
	size_t ro, rl, uo, ul;
	const char *rp, *up;

	if (url_split(resource, &ro, &rp, &rl) < 0 ||
	    url_split(url, &uo, &up, &ul) < 0)
		return 0;
	if (ro != uo || strncasecmp(resource, url, ro))
		return 0;
	if (rl && rp[rl - 1] == '/')
		rl--;
	if (ul && up[ul - 1] == '/')
		ul--;
	if (rl > ul || strncmp(rp, up, rl))
		return 0;
	return rl == ul || up[rl] == '/';
}

/* ---- encodings ---- */

static size_t b64(const unsigned char *p, size_t n, char *out,
		  const char *alpha, int pad)
{
	size_t i, k = 0;

	for (i = 0; i + 2 < n; i += 3) {
		unsigned v = (unsigned)p[i] << 16 | (unsigned)p[i + 1] << 8 |
			     p[i + 2];

		out[k++] = alpha[v >> 18 & 63];
		out[k++] = alpha[v >> 12 & 63];
		out[k++] = alpha[v >> 6 & 63];
		out[k++] = alpha[v & 63];
	}
	if (n - i == 1) {
		unsigned v = (unsigned)p[i] << 16;

		out[k++] = alpha[v >> 18 & 63];
		out[k++] = alpha[v >> 12 & 63];
		if (pad) {
			out[k++] = '=';
			out[k++] = '=';
		}
	} else if (n - i == 2) {
		unsigned v = (unsigned)p[i] << 16 | (unsigned)p[i + 1] << 8;

		out[k++] = alpha[v >> 18 & 63];
		out[k++] = alpha[v >> 12 & 63];
		out[k++] = alpha[v >> 6 & 63];
		if (pad)
			out[k++] = '=';
	}
	out[k] = 0;
	return k;
}

size_t oauth_b64url(const unsigned char *p, size_t n, char *out)
{
	return b64(p, n, out, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_", 0);
}

size_t oauth_b64(const unsigned char *p, size_t n, char *out)
{
	return b64(p, n, out, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/", 1);
}

char *oauth_form_escape(const char *s)
{
	size_t n = strlen(s), k = 0;
	char *out = malloc(3 * n + 1);

	if (!out)
		return NULL;
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (isalnum(c) || c == '-' || c == '.' || c == '_' || c == '~') {
			out[k++] = (char)c;
		} else {
			snprintf(out + k, 4, "%%%02X", c);
			k += 3;
		}
	}
	out[k] = 0;
	return out;
}

int oauth_form_add(char **buf, const char *key, const char *value)
{
	char *v = oauth_form_escape(value), *n = NULL;
	int r;

	if (!v)
		return -ENOMEM;
	r = asprintf(&n, "%s%s%s=%s", *buf ? *buf : "",
		     *buf && **buf ? "&" : "", key, v);
	free(v);
	if (r < 0)
		return -ENOMEM;
	free(*buf);
	*buf = n;
	return 0;
}

static int hexval(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	c = tolower(c);
	return c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

char *oauth_query_get(const char *url, const char *key)
{
	const char *q = strchr(url, '?');
	size_t kl = strlen(key);

	if (!q)
		return NULL;
	q++;
	while (*q && *q != '#') {
		size_t l = strcspn(q, "&#");

		if (l > kl && q[kl] == '=' && !strncmp(q, key, kl)) {
			const char *v = q + kl + 1, *e = q + l;
			char *out = malloc((size_t)(e - v) + 1);
			size_t k = 0;

			if (!out)
				return NULL;
			for (; v < e; v++) {
				if (*v == '+') {
					out[k++] = ' ';
				} else if (*v == '%' && v + 2 < e &&
					   hexval(v[1]) >= 0 &&
					   hexval(v[2]) >= 0) {
					out[k++] = (char)(hexval(v[1]) << 4 |
							  hexval(v[2]));
					v += 2;
				} else {
					out[k++] = *v;
				}
			}
			out[k] = 0;
			return out;
		}
		q += l;
		if (*q == '&')
			q++;
	}
	return NULL;
}

int oauth_scope_has(const char *list, const char *word)
{
	size_t wl = strlen(word);

	while (list && *list) {
		size_t l;

		list += strspn(list, " ");
		l = strcspn(list, " ");
		if (l == wl && l && !strncmp(list, word, l))
			return 1;
		list += l;
	}
	return 0;
}

int oauth_scope_next(const char **p, char w[OAUTH_SCOPE_MAX])
{
	while (*p && **p) {
		size_t l;

		*p += strspn(*p, " ");
		l = strcspn(*p, " ");
		if (l && l < OAUTH_SCOPE_MAX) {
			memcpy(w, *p, l);
			w[l] = 0;
			*p += l;
			return 1;
		}
		*p += l;
	}
	return 0;
}

char *oauth_scope_union(const char *a, const char *b)
{
	size_t n = (a ? strlen(a) : 0) + (b ? strlen(b) : 0) + 2, k = 0;
	char *out = malloc(n), w[OAUTH_SCOPE_MAX];
	const char *lists[2] = {a, b};
	int i;

	if (!out)
		return NULL;
	out[0] = 0;
	for (i = 0; i < 2; i++) {
		const char *p = lists[i];

		while (oauth_scope_next(&p, w)) {
			if (oauth_scope_has(out, w))
				continue;
			if (k)
				out[k++] = ' ';
			memcpy(out + k, w, strlen(w) + 1);
			k += strlen(w);
		}
	}
	return out;
}

int oauth_token_ok(const char *t)
{
	size_t n = 0;

	if (!t)
		return 0;
	while (t[n] && (isalnum((unsigned char)t[n]) ||
			strchr("-._~+/", t[n])))
		n++;
	if (n == 0)
		return 0;
	while (t[n] == '=')
		n++;
	return t[n] == 0 && n <= OAUTH_TOKEN_MAX;
}

double oauth_clamp_expiry(double v)
{
	if (!(v >= OAUTH_EXPIRY_MIN))   /* NaN too */
		return OAUTH_EXPIRY_MIN;
	return v > OAUTH_EXPIRY_MAX ? OAUTH_EXPIRY_MAX : v;
}
