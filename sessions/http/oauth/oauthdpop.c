/*
 * oauthdpop.c - DPoP (RFC 9449) for the OAuth client, as SEP-1932 asks of
 * an MCP client (contract in oauth.h): when the config says "dpop": true,
 * or the authorization server's metadata offers ES256 in
 * dpop_signing_alg_values_supported (and the config does not say false),
 * every token request carries a proof (htm POST, htu the token endpoint)
 * and an access token the server says is of type DPoP is sent as
 * "Authorization: DPoP TOKEN" with a fresh proof per request (htm, htu,
 * ath). The key is one EC P-256 key per server, made at the first proof
 * and kept in the token store (mode 0600) with the tokens; it is never in
 * auth, status or the log. A server's DPoP-Nonce is kept and put in the
 * next proof to that server: a token request answered use_dpop_nonce is
 * sent again once (oauthflow.c), a resource request answered 401 DPoP
 * error="use_dpop_nonce" once per new nonce (oauth_challenge).
 */
#include <cjson/cJSON.h>
#include <curl/curl.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "oauth.h"
#include "oauthcrypto.h"
#include "oauthutil.h"

#define NONCE_MAX 512

void oauth_dpop_meta(struct oauth *o, const cJSON *j)
{
	const cJSON *a = cJSON_GetObjectItemCaseSensitive(j,
					"dpop_signing_alg_values_supported");
	const cJSON *e;
	int es256 = 0;

	if (!cJSON_IsArray(a))
		a = NULL;
	cJSON_ArrayForEach(e, a)
		es256 |= cJSON_IsString(e) && !strcmp(e->valuestring, "ES256");
	o->dpop = o->cfg.dpop > 0 || (!o->cfg.dpop && es256);
	if (o->dpop)
		mod_log(MLOG_INFO, "server %s: auth: DPoP (ES256) %s", o->name,
		        o->cfg.dpop > 0 ? "as the config says" :
		        "as the authorization server offers it");
}

static int add_proof(const struct oauth *o, struct curl_slist **hdrs,
		     const char *method, const char *url, const char *token,
		     const char *nonce, char *err, size_t n)
{
	char *p = oauth_dpop_proof(o->dpop_key, method, url, token, nonce,
				   (long)time(NULL), err, n), *line = NULL;
	struct curl_slist *l = NULL;

	if (p && asprintf(&line, "DPoP: %s", p) >= 0)
		l = curl_slist_append(*hdrs, line);
	free(p);
	free(line);
	if (!l)
		return -1;
	*hdrs = l;
	return 0;
}

int oauth_dpop_token(struct oauth *o, struct curl_slist **hdrs,
		     const char *url, char *err, size_t n)
{
	if (!o->dpop)
		return 0;
	if (!o->dpop_key && !(o->dpop_key = oauth_dpop_keygen())) {
		snprintf(err, n, "cannot make a DPoP key");
		return -1;
	}
	return add_proof(o, hdrs, "POST", url, NULL, o->as_nonce, err, n);
}

char *oauth_resource_auth(const struct oauth *o, struct curl_slist **hdrs,
			  const char *method, const char *url, int *err)
{
	const char *t = o && !o->store_refused ? o->access : NULL;
	char *out = NULL, why[100];

	if (!t)
		return NULL;
	if (asprintf(&out, "%s %s", o->dpop_bound ? "DPoP" : "Bearer", t) < 0)
		out = NULL;
	if (out && o->dpop_bound && (!o->dpop_key ||
	    add_proof(o, hdrs, method, url, t, o->rs_nonce, why,
		      sizeof why) < 0)) {
		mod_log(MLOG_WARN, "server %s: auth: %s", o->name, o->dpop_key ?
		        why : "a DPoP token without its key in the store");
		free(out);
		out = NULL;
	}
	if (!out)
		*err = -ENOMEM;
	return out;
}

void oauth_dpop_nonce(struct oauth *o, const char *p, size_t len, int as)
{
	size_t k = sizeof "dpop-nonce:" - 1, e, i;
	char **dst;

	if (!o || len <= k || strncasecmp(p, "dpop-nonce:", k))
		return;
	while (k < len && (p[k] == ' ' || p[k] == '\t'))
		k++;
	for (e = len; e > k && (p[e - 1] == '\r' || p[e - 1] == '\n' ||
				p[e - 1] == ' ' || p[e - 1] == '\t'); e--)
		;
	for (i = k; i < e; i++) /* RFC 9449 8.1: NQCHAR, within reason */
		if (p[i] < 0x21 || p[i] > 0x7e || p[i] == '"' || p[i] == '\\')
			return;
	if (e == k || e - k > NONCE_MAX)
		return;
	dst = as ? &o->as_nonce : &o->rs_nonce;
	if (*dst && strlen(*dst) == e - k && !memcmp(*dst, p + k, e - k))
		return;
	free(*dst);
	*dst = strndup(p + k, e - k);
	if (!as)
		o->rs_nonce_new = *dst != NULL;
}

size_t oauth_dpop_as_header(char *p, size_t size, size_t n, void *ud)
{
	oauth_dpop_nonce(ud, p, size * n, 1);
	return size * n;
}

int oauth_dpop_retry(struct oauth *o, const char *www)
{
	char v[64];

	if (!o->dpop_bound || !www || !o->rs_nonce_new ||
	    oauth_www_param(www, "error", v, sizeof v) < 0 ||
	    strcmp(v, "use_dpop_nonce"))
		return 0;
	o->rs_nonce_new = 0;
	mod_log(MLOG_DEBUG, "server %s: auth: the server asks for a DPoP "
	        "nonce: sent again with it", o->name);
	return 1;
}
