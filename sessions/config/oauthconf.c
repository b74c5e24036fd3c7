/*
 * oauthconf.c - the "oauth" member of an http server entry (spec 8):
 * false, true, or an object of clientId, clientSecret, clientMetadataUrl,
 * scopes (an array of strings or one space-separated string), grant,
 * privateKeyFile, redirectPort and dpop (true or false: DPoP proofs,
 * SEP-1932; absent: as the authorization server offers), and
 * idpTokenEndpoint, idpIdToken and idpClientId for the jwt_bearer grant
 * of SEP-990, or assertion (the workload's JWT, SEP-1933) for it instead.
 * Strings take ${VAR} as every config string does. An unknown key is an error naming it. Pure code.
 */
#include <cjson/cJSON.h>
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "configfmt.h"

/* The string members of struct mcp_oauth_conf, by their key in the file:
 * what is freed, copied and read as a string. */
static const struct {
	const char *key;
	size_t off;
} strs[] = {
	{"clientId", offsetof(struct mcp_oauth_conf, client_id)},
	{"clientSecret", offsetof(struct mcp_oauth_conf, client_secret)},
	{"clientMetadataUrl",
	 offsetof(struct mcp_oauth_conf, client_metadata_url)},
	{"scopes", offsetof(struct mcp_oauth_conf, scopes)},
	{"privateKeyFile", offsetof(struct mcp_oauth_conf, private_key_file)},
	{"idpTokenEndpoint",
	 offsetof(struct mcp_oauth_conf, idp_token_endpoint)},
	{"idpIdToken", offsetof(struct mcp_oauth_conf, idp_id_token)},
	{"idpClientId", offsetof(struct mcp_oauth_conf, idp_client_id)},
	{"assertion", offsetof(struct mcp_oauth_conf, assertion)},
};
#define NSTRS (sizeof strs / sizeof strs[0])

/* The member of c that strs[i] names. */
static char **str_of(const struct mcp_oauth_conf *c, size_t i)
{
	return (char **)((char *)c + strs[i].off);
}

void mcp_oauth_conf_free(struct mcp_oauth_conf *c)
{
	size_t i;

	if (!c)
		return;
	for (i = 0; i < NSTRS; i++)
		free(*str_of(c, i));
	free(c);
}

static int dup_str(char **dst, const char *src)
{
	*dst = src ? strdup(src) : NULL;
	return src && !*dst ? -1 : 0;
}

struct mcp_oauth_conf *mcp_oauth_conf_dup(const struct mcp_oauth_conf *c)
{
	struct mcp_oauth_conf *d;
	size_t i;

	if (!c)
		return NULL;
	d = calloc(1, sizeof *d);
	if (!d)
		return NULL;
	*d = *c;
	for (i = 0; i < NSTRS; i++)
		*str_of(d, i) = NULL;
	for (i = 0; i < NSTRS; i++)
		if (dup_str(str_of(d, i), *str_of(c, i))) {
			mcp_oauth_conf_free(d);
			return NULL;
		}
	return d;
}

static int fail(char **why, const char *key, const char *problem)
{
	if (asprintf(why, "%s%s%s", key, *key ? ": " : "", problem) < 0)
		*why = NULL;
	return -1;
}

static int get_str(const cJSON *v, const struct mcp_config_ctx *ctx,
		   char **out, char **why)
{
	char *err = NULL;

	if (!cJSON_IsString(v))
		return fail(why, v->string, "must be a string");
	free(*out); /* a key given twice: the last one counts */
	*out = cfmt_expand(v->valuestring, ctx, &err);
	if (!*out) {
		fail(why, v->string, err ? err : "out of memory");
		free(err);
		return -1;
	}
	return 0;
}

/* scopes: one space-separated string, or an array of scope strings. */
static int get_scopes(const cJSON *v, const struct mcp_config_ctx *ctx,
		      char **out, char **why)
{
	const cJSON *e;
	char *acc = NULL;

	if (cJSON_IsString(v))
		return get_str(v, ctx, out, why);
	if (!cJSON_IsArray(v))
		return fail(why, "scopes", "must be a string or an array of "
			    "strings");
	cJSON_ArrayForEach(e, v) {
		char *s = NULL, *n = NULL, *err = NULL;

		if (!cJSON_IsString(e) ||
		    !(s = cfmt_expand(e->valuestring, ctx, &err)) ||
		    !*s || strchr(s, ' ')) {
			free(s);
			free(acc);
			fail(why, "scopes", err ? err : "each must be a "
			     "non-empty string without spaces");
			free(err);
			return -1;
		}
		if (asprintf(&n, "%s%s%s", acc ? acc : "", acc ? " " : "",
			     s) < 0)
			n = NULL;
		free(s);
		free(acc);
		if (!(acc = n))
			return fail(why, "scopes", "out of memory");
	}
	free(*out);
	*out = acc;
	return 0;
}

/* The keys of c that go together, checked: 0, or -1 with *why. */
static int check(const struct mcp_oauth_conf *c, char **why)
{
	int r = 0;

	if (!r && c->client_metadata_url &&
	    strncmp(c->client_metadata_url, "https://", 8))
		r = fail(why, "clientMetadataUrl", "must be an https:// URL");
	if (!r && c->client_credentials && !c->client_id)
		r = fail(why, "clientId", c->jwt_bearer ? "required with the "
			 "jwt_bearer grant" : "required with the "
			 "client_credentials grant");
	if (!r && c->jwt_bearer && !c->assertion &&
	    (!c->idp_token_endpoint || !c->idp_id_token))
		r = fail(why, "grant", "jwt_bearer needs assertion, or "
			 "idpTokenEndpoint and idpIdToken");
	if (!r && c->assertion && (!c->jwt_bearer || c->idp_token_endpoint ||
				   c->idp_id_token))
		r = fail(why, "assertion", "goes with the jwt_bearer grant, "
			 "without idpTokenEndpoint and idpIdToken");
	return r;
}

int mcp_oauth_conf_parse(const void *val, const struct mcp_config_ctx *ctx,
			 struct mcp_oauth_conf **out, char **why)
{
	const cJSON *v = val, *e;
	struct mcp_oauth_conf *c;
	char *grant = NULL;
	int r = 0;

	*out = NULL;
	*why = NULL;
	if (cJSON_IsTrue(v))
		return 0;
	c = calloc(1, sizeof *c);
	if (!c)
		return fail(why, "", "out of memory");
	if (cJSON_IsFalse(v)) {
		*out = c;
		return 0;
	}
	if (!cJSON_IsObject(v)) {
		free(c);
		return fail(why, "", "must be true, false or an object");
	}
	c->enabled = 1;
	for (e = v->child; e && !r; e = e->next) {
		const char *k = e->string;
		size_t i;

		for (i = 0; i < NSTRS && strcmp(k, strs[i].key); i++)
			;
		if (i < NSTRS && !strcmp(k, "scopes"))
			r = get_scopes(e, ctx, str_of(c, i), why);
		else if (i < NSTRS)
			r = get_str(e, ctx, str_of(c, i), why);
		else if (!strcmp(k, "grant")) {
			r = get_str(e, ctx, &grant, why);
			if (!r && !strcmp(grant, "client_credentials"))
				c->client_credentials = 1;
			else if (!r && !strcmp(grant, "jwt_bearer"))
				c->client_credentials = c->jwt_bearer = 1;
			else if (!r && strcmp(grant, "authorization_code"))
				r = fail(why, k, "must be \"authorization_code\", "
					 "\"client_credentials\" or "
					 "\"jwt_bearer\"");
			free(grant);
			grant = NULL;
		} else if (!strcmp(k, "dpop")) {
			if (!cJSON_IsBool(e))
				r = fail(why, k, "must be true or false");
			c->dpop = cJSON_IsTrue(e) ? 1 : -1;
		} else if (!strcmp(k, "redirectPort")) {
			if (!cJSON_IsNumber(e) || e->valuedouble < 1 ||
			    e->valuedouble > 65535 ||
			    e->valuedouble != (double)(int)e->valuedouble)
				r = fail(why, k, "must be an integer port "
					 "(1-65535)");
			else
				c->redirect_port = (int)e->valuedouble;
		} else {
			r = fail(why, k, "unknown key (want clientId, "
				 "clientSecret, clientMetadataUrl, scopes, "
				 "grant, privateKeyFile, redirectPort, dpop, "
				 "idpTokenEndpoint, idpIdToken, idpClientId or "
				 "assertion)");
		}
	}
	if (!r)
		r = check(c, why);
	if (r) {
		mcp_oauth_conf_free(c);
		return -1;
	}
	*out = c;
	return 0;
}
