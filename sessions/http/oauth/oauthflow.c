/*
 * oauthflow.c - the HTTP steps of the OAuth client (oauth.h), each a
 * chain of transfers on the libcurl-on-libuv engine (curluv.c) that ends
 * in o->step_done:
 *
 * oauth_discover: protected resource metadata (RFC 9728) from the
 *   challenge's resource_metadata, else /.well-known/oauth-protected-
 *   resource with the server's path, else at its root; its resource must
 *   name the server. Then the authorization server's metadata: for an
 *   issuer with a path, RFC 8414 path-inserted, OpenID path-inserted, then
 *   OpenID path-appended; without one, RFC 8414 then OpenID at the root.
 *   The issuer in the document must be the one asked for (not when no
 *   resource metadata named it: the 2025-03-26 servers, whose metadata sits
 *   at the server's origin). No metadata at all: the 2025-03-26 fallbacks
 *   /authorize, /token and /register at the origin. An http:// endpoint is
 *   refused unless on loopback. Then the client: the configured clientId,
 *   else clientMetadataUrl when the server supports client ID metadata
 *   documents, else the stored registration for this redirect URI, else
 *   dynamic registration (RFC 7591).
 * oauth_token: the token request (authorization_code with the PKCE
 *   verifier, refresh_token, or client_credentials with a secret or a
 *   private_key_jwt assertion), with resource (RFC 8707) and the client
 *   authentication the server allows.
 */
#include <cjson/cJSON.h>
#include <curl/curl.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

#include "curluv.h"
#include "gbuf.h"
#include "oauth.h"
#include "oauthcrypto.h"
#include "oauthfetch.h"
#include "oauthnet.h"
#include "oauthutil.h"
#include "sessions.h"

#define BODY_MAX (256 * 1024)

static void fetch_done_cb(struct cu_xfer *cu, CURLcode res);

static void fetch_free(struct fetch *f)
{
	unsigned i;

	for (i = 0; i < f->ncand; i++)
		free(f->cand[i]);
	curl_slist_free_all(f->hdrs);
	free(f->body);
	free(f->form);
	gbuf_free(&f->in);
	free(f);
}

static void fetch_release_cb(struct cu_xfer *cu)
{
	fetch_free((struct fetch *)cu);
}

static size_t write_cb(char *p, size_t size, size_t n, void *ud)
{
	struct fetch *f = ud;

	if (f->in.len + size * n > BODY_MAX || gbuf_add(&f->in, p, size * n))
		return 0;
	return size * n;
}

/* End the step: the transfer goes (outside curl's callbacks). */
void fetch_finish(struct fetch *f, int r, const char *err)
{
	struct oauth *o = f->o;

	o->fetch = NULL;
	o->busy = 0;
	if (!f->killed) {
		f->killed = 1;
		cu_kill(&f->cu);
	}
	o->step_done(o, r, err);
}

/* Send one request of f: GET url, or POST body (form, or JSON when json). */
int fetch_send(struct fetch *f, const char *url, int post, int json)
{
	CURL *e = f->cu.easy ? NULL : curl_easy_init();

	if (!e)
		return -ENOMEM;
	gbuf_clear(&f->in);
	f->cu.easy = e;
	f->hdrs = curl_slist_append(f->hdrs, "Accept: application/json");
	if (post)
		f->hdrs = curl_slist_append(f->hdrs, json ?
			"Content-Type: application/json" :
			"Content-Type: application/x-www-form-urlencoded");
	f->hdrs = curl_slist_append(f->hdrs, "Expect:");
	cu_defaults(&f->cu);
	curl_easy_setopt(e, CURLOPT_URL, url);
	curl_easy_setopt(e, CURLOPT_HTTPHEADER, f->hdrs);
	curl_easy_setopt(e, CURLOPT_WRITEFUNCTION, write_cb);
	curl_easy_setopt(e, CURLOPT_WRITEDATA, f);
	curl_easy_setopt(e, CURLOPT_TIMEOUT_MS, 30000L);
	f->guard.o = f->o;
	oauth_net_guard(e, &f->guard);
	if (f->step == ST_TOKEN) { /* its DPoP-Nonce */
		curl_easy_setopt(e, CURLOPT_HEADERFUNCTION, oauth_dpop_as_header);
		curl_easy_setopt(e, CURLOPT_HEADERDATA, f->o);
	}
	if (post) {
		curl_easy_setopt(e, CURLOPT_POSTFIELDSIZE_LARGE,
				 (curl_off_t)strlen(f->body));
		curl_easy_setopt(e, CURLOPT_POSTFIELDS, f->body);
	}
	return cu_start(&f->cu) < 0 ? -EIO : 0;
}

struct fetch *fetch_new(struct oauth *o, enum step step)
{
	struct fetch *f = calloc(1, sizeof *f);

	if (!f)
		return NULL;
	f->o = o;
	f->step = step;
	f->cu.done = fetch_done_cb;
	f->cu.release = fetch_release_cb;
	o->fetch = f;
	o->busy = 1;
	return f;
}

/* The fetch of step that follows old (whose transfer is killed), or NULL
 * with the step reported failed (out of memory). */
struct fetch *fetch_next(struct fetch *old, enum step step)
{
	struct oauth *o = old->o;
	struct fetch *f = fetch_new(o, step);

	old->killed = 1;
	cu_kill(&old->cu);
	if (!f) {
		o->busy = 0;
		o->step_done(o, -1, "out of memory");
	}
	return f;
}

/* Start f's candidate at, or the next one; a new transfer each time. */
static void try_candidate(struct fetch *f);

void fetch_set_str(char **dst, const char *v)
{
	free(*dst);
	*dst = v ? strdup(v) : NULL;
}

const char *fetch_jstr(const cJSON *j, const char *k)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(j, k);

	return cJSON_IsString(v) && *v->valuestring ? v->valuestring : NULL;
}

static char *jwords(const cJSON *j, const char *k)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(j, k), *e;
	char *acc = NULL;

	cJSON_ArrayForEach(e, v) {
		char *n;

		if (!cJSON_IsString(e))
			continue;
		n = oauth_scope_union(acc, e->valuestring);
		free(acc);
		acc = n;
	}
	return acc;
}

/* ---- discovery ---- */

static void start_prm(struct oauth *o);
static void start_asm(struct fetch *old);
static void start_client(struct fetch *old);

static void add_cand(struct fetch *f, char *url)
{
	unsigned i;

	if (!url)
		return;
	for (i = 0; i < f->ncand; i++)
		if (!strcmp(f->cand[i], url)) {
			free(url);
			return;
		}
	if (f->ncand < MAX_CANDIDATES)
		f->cand[f->ncand++] = url;
	else
		free(url);
}

static void try_candidate(struct fetch *f)
{
	int r;

	/* a transfer object can carry one request: the next candidate
	 * takes a fresh one, handed the list */
	if (f->cu.easy) {
		struct fetch *n = fetch_new(f->o, f->step);
		unsigned i;

		if (!n) {
			fetch_finish(f, -1, "out of memory");
			return;
		}
		for (i = 0; i < f->ncand; i++) {
			n->cand[i] = f->cand[i];
			f->cand[i] = NULL;
		}
		n->ncand = f->ncand;
		n->at = f->at;
		n->tok = f->tok;
		f->killed = 1;
		cu_kill(&f->cu);
		f = n;
	}
	oauth_log_url(MLOG_DEBUG, f->o, "GET at", f->cand[f->at]);
	r = fetch_send(f, f->cand[f->at], 0, 0);
	if (r < 0)
		fetch_finish(f, -1, "cannot start an HTTP request");
}

static void start_prm(struct oauth *o)
{
	struct fetch *f = fetch_new(o, ST_PRM);

	if (!f) {
		o->busy = 0;
		o->step_done(o, -1, "out of memory");
		return;
	}
	if (o->prm_url && oauth_url_allowed(o->prm_url))
		add_cand(f, strdup(o->prm_url));
	if (oauth_url_has_path(o->url))
		add_cand(f, oauth_wellknown(o->url, "oauth-protected-resource",
					    OAUTH_WK_INSERT));
	add_cand(f, oauth_wellknown(o->url, "oauth-protected-resource",
				    OAUTH_WK_ROOT));
	if (!f->ncand) {
		fetch_finish(f, -1, "the server url has no origin");
		return;
	}
	try_candidate(f);
}

/* A protected resource metadata document arrived (or none will). */
static void prm_result(struct fetch *f, cJSON *j)
{
	struct oauth *o = f->o;
	const cJSON *as = cJSON_GetObjectItemCaseSensitive(j, "authorization_servers");
	const char *res = fetch_jstr(j, "resource");
	char msg[400];

	if (!j) { /* none: a 2025-03-26 server, its own authorization server */
		char *origin = oauth_url_origin(o->url);

		o->legacy = 1;
		free(o->issuer);
		o->issuer = origin;
		fetch_set_str(&o->resource, o->url);
		free(o->prm_scopes);
		o->prm_scopes = NULL;
		mod_log(MLOG_INFO, "server %s: auth: no protected resource "
		        "metadata; the 2025-03-26 discovery at the server's origin",
		        o->name);
		start_asm(f);
		return;
	}
	if (res && !oauth_resource_matches(res, o->url)) {
		snprintf(msg, sizeof msg, "resource mismatch: the protected "
			 "resource metadata names %.150s, not this server", res);
		fetch_finish(f, -1, msg);
		return;
	}
	if (!cJSON_IsArray(as) || !cJSON_IsString(cJSON_GetArrayItem(as, 0))) {
		fetch_finish(f, -1, "the protected resource metadata names no "
		       "authorization server");
		return;
	}
	o->legacy = 0;
	if (o->issuer && strcmp(o->issuer,
				cJSON_GetArrayItem(as, 0)->valuestring) &&
	    o->registered) {
		/* another authorization server: its own registration */
		o->registered = 0;
		fetch_set_str(&o->client_id, NULL);
		fetch_set_str(&o->client_secret, NULL);
	}
	fetch_set_str(&o->issuer, cJSON_GetArrayItem(as, 0)->valuestring);
	fetch_set_str(&o->resource, res ? res : o->url);
	free(o->prm_scopes);
	o->prm_scopes = jwords(j, "scopes_supported");
	start_asm(f);
}

static void start_asm(struct fetch *old)
{
	struct oauth *o = old->o;
	struct fetch *f = fetch_next(old, ST_ASM);
	const char *is = o->issuer;
	char *origin;

	if (!f)
		return;
	origin = is ? oauth_url_origin(is) : NULL;
	if (!origin) {
		fetch_finish(f, -1, "bad authorization server issuer");
		return;
	}
	free(origin);
	if (!oauth_url_allowed(is)) {
		fetch_finish(f, -1, "http:// endpoint refused: the authorization "
		       "server is not https and not on loopback");
		return;
	}
	if (oauth_url_has_path(is)) {
		add_cand(f, oauth_wellknown(is, "oauth-authorization-server",
					    OAUTH_WK_INSERT));
		add_cand(f, oauth_wellknown(is, "openid-configuration",
					    OAUTH_WK_INSERT));
		add_cand(f, oauth_wellknown(is, "openid-configuration",
					    OAUTH_WK_APPEND));
	} else {
		add_cand(f, oauth_wellknown(is, "oauth-authorization-server",
					    OAUTH_WK_ROOT));
		add_cand(f, oauth_wellknown(is, "openid-configuration",
					    OAUTH_WK_ROOT));
	}
	try_candidate(f);
}

static int same_issuer(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b);

	if (la && a[la - 1] == '/')
		la--;
	if (lb && b[lb - 1] == '/')
		lb--;
	return la == lb && !strncmp(a, b, la);
}

static int endpoint(struct fetch *f, char **dst, const char *url,
		    const char *what)
{
	char msg[400];

	if (!url) {
		free(*dst);
		*dst = NULL;
		return 0;
	}
	if (!oauth_url_allowed(url)) {
		snprintf(msg, sizeof msg, "http:// endpoint refused: the %s "
			 "endpoint %.200s is neither https nor loopback", what,
			 url);
		fetch_finish(f, -1, msg);
		return -1;
	}
	fetch_set_str(dst, url);
	return 0;
}

/* No authorization server metadata: the default endpoints at the
 * origin (the 2025-03-26 fallback), then the client. */
static void no_metadata(struct fetch *f)
{
	struct oauth *o = f->o;
	char *origin;

	origin = oauth_url_origin(o->legacy ? o->url : o->issuer);
	mod_log(MLOG_INFO, "server %s: auth: no authorization server "
	        "metadata; the default endpoints at %s", o->name,
	        origin ? origin : "?");
	o->have_meta = 0;
	oauth_dpop_meta(o, NULL);
	o->as_methods = AM_BASIC | AM_POST | AM_NONE;
	o->cimd = o->iss_required = 0;
	free(o->as_scopes);
	o->as_scopes = NULL;
	if (origin) {
		char *a = NULL, *t = NULL, *r = NULL;

		if (asprintf(&a, "%s/authorize", origin) < 0)
			a = NULL;
		if (asprintf(&t, "%s/token", origin) < 0)
			t = NULL;
		if (asprintf(&r, "%s/register", origin) < 0)
			r = NULL;
		if (endpoint(f, &o->authz_ep, a, "authorization") < 0 ||
		    endpoint(f, &o->token_ep, t, "token") < 0 ||
		    endpoint(f, &o->reg_ep, r, "registration") < 0) {
			free(a), free(t), free(r), free(origin);
			return;
		}
		free(a), free(t), free(r);
	}
	free(origin);
	start_client(f);
}

static void asm_result(struct fetch *f, cJSON *j)
{
	struct oauth *o = f->o;
	const char *is = fetch_jstr(j, "issuer");
	const cJSON *pk;
	char msg[400];

	if (!j) {
		no_metadata(f);
		return;
	}
	if (!is || (!o->legacy && !same_issuer(is, o->issuer))) {
		snprintf(msg, sizeof msg, "issuer mismatch: metadata of %.150s "
			 "says issuer %.150s", o->issuer, is ? is : "(none)");
		fetch_finish(f, -1, msg);
		return;
	}
	if (o->legacy)
		fetch_set_str(&o->issuer, is);
	pk = cJSON_GetObjectItemCaseSensitive(j,
					      "code_challenge_methods_supported");
	if (cJSON_IsArray(pk) && !o->cfg.client_credentials) {
		const cJSON *e;
		int s256 = 0;

		cJSON_ArrayForEach(e, pk)
			s256 |= cJSON_IsString(e) &&
				!strcmp(e->valuestring, "S256");
		if (!s256) {
			fetch_finish(f, -1, "the authorization server does not "
			       "support PKCE S256");
			return;
		}
	}
	if (endpoint(f, &o->revoke_ep, fetch_jstr(j, "revocation_endpoint"),
		     "revocation") < 0 ||
	    endpoint(f, &o->authz_ep, fetch_jstr(j, "authorization_endpoint"),
		     "authorization") < 0 ||
	    endpoint(f, &o->token_ep, fetch_jstr(j, "token_endpoint"), "token") < 0 ||
	    endpoint(f, &o->reg_ep, fetch_jstr(j, "registration_endpoint"),
		     "registration") < 0)
		return;
	if (!o->token_ep || (!o->authz_ep && !o->cfg.client_credentials)) {
		fetch_finish(f, -1, "the authorization server metadata lacks its "
		       "endpoints");
		return;
	}
	o->have_meta = 1;
	oauth_dpop_meta(o, j);
	o->as_methods = oauth_methods_of(j);
	o->cimd = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(j,
				"client_id_metadata_document_supported"));
	o->iss_required = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(j,
				"authorization_response_iss_parameter_supported"));
	free(o->as_scopes);
	o->as_scopes = jwords(j, "scopes_supported");
	start_client(f);
}

static void start_client(struct fetch *old)
{
	struct oauth *o = old->o;
	struct fetch *f;
	cJSON *j, *a;
	char *txt;
	int m;

	if (o->cfg.client_id) {
		fetch_set_str(&o->client_id, o->cfg.client_id);
		fetch_set_str(&o->client_secret, o->cfg.client_secret);
		o->registered = 0;
		o->auth_method = oauth_pick_method(o, o->client_secret != NULL);
		fetch_finish(old, 0, NULL);
		return;
	}
	if (o->cfg.client_metadata_url && o->cimd) {
		fetch_set_str(&o->client_id, o->cfg.client_metadata_url);
		fetch_set_str(&o->client_secret, NULL);
		o->registered = 0;
		o->auth_method = AM_NONE;
		fetch_finish(old, 0, NULL);
		return;
	}
	if (o->registered && o->client_id) {
		fetch_finish(old, 0, NULL);
		return;
	}
	if (!o->reg_ep) {
		fetch_finish(old, -1, "no client id: the authorization server offers "
		       "no registration (set oauth.clientId)");
		return;
	}
	f = fetch_next(old, ST_REG);
	if (!f)
		return;
	m = o->as_methods;
	m = (m & AM_NONE) && !(m & (AM_BASIC | AM_POST)) ? AM_NONE :
	    (m & AM_BASIC) ? AM_BASIC : (m & AM_POST) ? AM_POST : AM_NONE;
	j = cJSON_CreateObject();
	cJSON_AddStringToObject(j, "client_name", "mcpfs");
	/* a native application: its redirect URI is on loopback (SEP-837) */
	cJSON_AddStringToObject(j, "application_type", "native");
	a = cJSON_AddArrayToObject(j, "redirect_uris");
	cJSON_AddItemToArray(a, cJSON_CreateString(o->redirect_uri ?
						   o->redirect_uri : ""));
	a = cJSON_AddArrayToObject(j, "grant_types");
	cJSON_AddItemToArray(a, cJSON_CreateString("authorization_code"));
	cJSON_AddItemToArray(a, cJSON_CreateString("refresh_token"));
	a = cJSON_AddArrayToObject(j, "response_types");
	cJSON_AddItemToArray(a, cJSON_CreateString("code"));
	cJSON_AddStringToObject(j, "token_endpoint_auth_method",
				oauth_method_name(m));
	txt = cJSON_PrintUnformatted(j);
	cJSON_Delete(j);
	f->body = txt ? strdup(txt) : NULL;
	cJSON_free(txt);
	oauth_log_url(MLOG_INFO, o, "registering a client at", o->reg_ep);
	if (!f->body || fetch_send(f, o->reg_ep, 1, 1) < 0)
		fetch_finish(f, -1, "cannot start the registration request");
}

static void reg_result(struct fetch *f, cJSON *j)
{
	struct oauth *o = f->o;
	const char *id = fetch_jstr(j, "client_id"), *sec = fetch_jstr(j, "client_secret");
	const char *m = fetch_jstr(j, "token_endpoint_auth_method");
	char msg[300];

	if (!id || f->code < 200 || f->code > 299) {
		snprintf(msg, sizeof msg, "client registration failed (HTTP "
			 "%ld)", f->code);
		fetch_finish(f, -1, msg);
		return;
	}
	fetch_set_str(&o->client_id, id);
	fetch_set_str(&o->client_secret, sec);
	o->registered = 1;
	if (m && !strcmp(m, "client_secret_post"))
		o->auth_method = AM_POST;
	else if (m && !strcmp(m, "client_secret_basic") && sec)
		o->auth_method = AM_BASIC;
	else if (m && !strcmp(m, "none"))
		o->auth_method = AM_NONE;
	else
		o->auth_method = oauth_pick_method(o, sec != NULL);
	fetch_finish(f, 0, NULL);
}

/* RFC 7009: revoke token at the server's revocation endpoint, fire and
 * forget (the transfer outlives the logout and never looks at o again). */
void oauth_revoke(struct oauth *o, const char *token, const char *hint)
{
	struct fetch *f;
	char *body = NULL, err[200];
	int r = 0;

	if (!o->revoke_ep || !token || !o->client_id ||
	    !(f = calloc(1, sizeof *f)))
		return;
	f->o = o;
	f->step = ST_REVOKE;
	f->cu.done = fetch_done_cb;
	f->cu.release = fetch_release_cb;
	r |= oauth_form_add(&body, "token", token);
	r |= oauth_form_add(&body, "token_type_hint", hint);
	if (!r)
		r = oauth_client_auth(f->o, &f->hdrs, &body, err, sizeof err);
	f->o = NULL;
	f->body = body;
	if (r || !body || fetch_send(f, o->revoke_ep, 1, 0) < 0) {
		f->killed = 1;
		cu_kill(&f->cu);
	}
}

/* ---- a finished transfer ---- */

static void fetch_done_cb(struct cu_xfer *cu, CURLcode res)
{
	struct fetch *f = (struct fetch *)cu;
	struct oauth *o = f->o;
	cJSON *j = NULL;
	char msg[300];

	if (f->killed)
		return;
	curl_easy_getinfo(cu->easy, CURLINFO_RESPONSE_CODE, &f->code);
	if (f->step == ST_REVOKE) { /* o is not looked at again */
		mod_log(MLOG_DEBUG, "auth: revocation answered %ld (%s)", f->code,
		        curl_easy_strerror(res));
		f->killed = 1;
		cu_kill(&f->cu);
		return;
	}
	if (f->guard.blocked) {
		char *url = NULL, *origin;

		curl_easy_getinfo(cu->easy, CURLINFO_EFFECTIVE_URL, &url);
		origin = url ? oauth_url_origin(url) : NULL;
		snprintf(msg, sizeof msg, "refused %.120s: it points at a %s "
			 "address and the MCP server is not on one", origin ?
			 origin : "a URL", f->guard.what);
		free(origin);
		mod_log(MLOG_WARN, "server %s: auth: %s", o->name, msg);
		fetch_finish(f, -1, msg);
		return;
	}
	if (res == CURLE_OK && f->in.len)
		j = cJSON_ParseWithLength(f->in.p, f->in.len);
	if (j && !cJSON_IsObject(j)) {
		cJSON_Delete(j);
		j = NULL;
	}
	if (f->step == ST_PRM || f->step == ST_ASM) {
		int ok = res == CURLE_OK && f->code == 200 && j;

		if (!ok && ++f->at < f->ncand) {
			cJSON_Delete(j);
			try_candidate(f);
			return;
		}
		if (f->step == ST_PRM)
			prm_result(f, ok ? j : NULL);
		else
			asm_result(f, ok ? j : NULL);
		cJSON_Delete(j);
		return;
	}
	if (res != CURLE_OK) {
		snprintf(msg, sizeof msg, "%s failed: %s", f->step == ST_REG ?
			 "client registration" : f->step == ST_EXCHANGE ?
			 "token exchange" : "token request",
			 curl_easy_strerror(res));
		cJSON_Delete(j);
		fetch_finish(f, -1, msg);
		return;
	}
	if (f->step == ST_REG)
		reg_result(f, j);
	else
		f->got(f, j); /* oauthtoken.c's */
	cJSON_Delete(j);
}

void oauth_discover(struct oauth *o)
{
	start_prm(o);
}

void oauth_flow_abort(struct oauth *o)
{
	struct fetch *f = o->fetch;

	if (!f)
		return;
	o->fetch = NULL;
	o->busy = 0;
	f->killed = 1;
	cu_kill(&f->cu);
}
