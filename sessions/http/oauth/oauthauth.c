/*
 * oauthauth.c - client authentication at the token endpoint (RFC 6749
 * section 2.3, RFC 7523): client_secret_basic as an Authorization header
 * (id and secret form-encoded, then base64), client_secret_post and none
 * as body fields, private_key_jwt as a client assertion signed with the
 * key in privateKeyFile (read at each request, wiped after use).
 */
#include <cjson/cJSON.h>
#include <curl/curl.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "oauth.h"
#include "oauthcrypto.h"
#include "oauthutil.h"

static char *read_key(const char *path, size_t *len, char *err, size_t n)
{
	char *buf = malloc(65536);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t k = fd >= 0 && buf ? read(fd, buf, 65535) : -1;

	if (fd >= 0)
		close(fd);
	if (k <= 0) {
		snprintf(err, n, "privateKeyFile: cannot read %s", path);
		free(buf);
		return NULL;
	}
	buf[k] = 0;
	*len = (size_t)k;
	return buf;
}

int oauth_client_auth(const struct oauth *o, struct curl_slist **hdrs,
		      char **body, char *err, size_t n)
{
	int r = 0;

	if (o->auth_method == AM_BASIC && o->client_secret) {
		char *u = oauth_form_escape(o->client_id);
		char *p = oauth_form_escape(o->client_secret), *pair = NULL;
		char *b64, *hdr = NULL;

		if (!u || !p || asprintf(&pair, "%s:%s", u, p) < 0)
			pair = NULL;
		b64 = pair ? malloc(4 * strlen(pair) / 3 + 8) : NULL;
		if (b64)
			oauth_b64((unsigned char *)pair, strlen(pair), b64);
		if (b64 && asprintf(&hdr, "Authorization: Basic %s", b64) >= 0)
			*hdrs = curl_slist_append(*hdrs, hdr);
		else
			r = -ENOMEM;
		free(u), free(p), free(pair), free(b64), free(hdr);
		return r;
	}
	if (o->auth_method == AM_JWT) {
		size_t len;
		char *pem = read_key(o->cfg.private_key_file, &len, err, n);
		char *jwt = pem ? oauth_jwt_assertion(pem, len, NULL,
						      o->client_id, o->issuer,
						      (long)time(NULL), err, n)
				: NULL;

		if (pem)
			memset(pem, 0, len);
		free(pem);
		if (!jwt)
			return -EINVAL;
		r |= oauth_form_add(body, "client_id", o->client_id);
		r |= oauth_form_add(body, "client_assertion_type",
			"urn:ietf:params:oauth:client-assertion-type:jwt-bearer");
		r |= oauth_form_add(body, "client_assertion", jwt);
		free(jwt);
		return r;
	}
	r |= oauth_form_add(body, "client_id", o->client_id);
	if (o->auth_method == AM_POST && o->client_secret)
		r |= oauth_form_add(body, "client_secret", o->client_secret);
	return r;
}

/* ---- the methods (moved from oauthflow.c) ---- */

int oauth_methods_of(const cJSON *j)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(j,
		"token_endpoint_auth_methods_supported"), *e;
	int m = 0;

	if (!cJSON_IsArray(v))
		return AM_BASIC; /* RFC 8414's default */
	cJSON_ArrayForEach(e, v) {
		if (!cJSON_IsString(e))
			continue;
		if (!strcmp(e->valuestring, "client_secret_basic"))
			m |= AM_BASIC;
		else if (!strcmp(e->valuestring, "client_secret_post"))
			m |= AM_POST;
		else if (!strcmp(e->valuestring, "none"))
			m |= AM_NONE;
		else if (!strcmp(e->valuestring, "private_key_jwt"))
			m |= AM_JWT;
	}
	return m;
}

int oauth_pick_method(const struct oauth *o, int have_secret)
{
	int m = o->as_methods ? o->as_methods : AM_BASIC;

	if (o->cfg.private_key_file)
		return AM_JWT;
	if (!have_secret)
		return AM_NONE;
	if (m & AM_BASIC)
		return AM_BASIC;
	if (m & AM_POST)
		return AM_POST;
	return AM_BASIC;
}

const char *oauth_method_name(int m)
{
	return m == AM_BASIC ? "client_secret_basic" :
	       m == AM_POST ? "client_secret_post" :
	       m == AM_JWT ? "private_key_jwt" : "none";
}
