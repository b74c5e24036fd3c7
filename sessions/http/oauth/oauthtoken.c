/*
 * oauthtoken.c - the token requests of the OAuth client (oauth.h), on
 * oauthflow.c's transfers: oauth_token (authorization_code with the PKCE
 * verifier, refresh_token, or client_credentials with a secret or a
 * private_key_jwt assertion; a jwt-bearer grant with an ID-JAG), with
 * resource (RFC 8707), the client authentication the server allows and a
 * DPoP proof (retried once with the server's nonce); oauth_exchange (the
 * SEP-990 token exchange at the identity provider). Each answer comes
 * back through its fetch's got.
 */
#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "oauth.h"
#include "oauthcrypto.h"
#include "oauthfetch.h"
#include "oauthutil.h"

static void token_result(struct fetch *f, cJSON *j);
static void exchange_result(struct fetch *f, cJSON *j);

/* Send token request f of form (taken): the client's authentication and
 * a DPoP proof made for this sending (RFC 9449 8: a nonce retry is a new
 * proof, and a new client assertion). */
static void token_send(struct fetch *f, char *form)
{
	struct oauth *o = f->o;
	char *body = form ? strdup(form) : NULL, err[300] = "out of memory";

	f->form = form;
	if (!body || oauth_client_auth(o, &f->hdrs, &body, err, sizeof err) < 0 ||
	    oauth_dpop_token(o, &f->hdrs, o->token_ep, err, sizeof err) < 0) {
		free(body);
		fetch_finish(f, -1, err);
		return;
	}
	f->body = body;
	oauth_log_url(MLOG_DEBUG, o, f->tok == FT_CODE ? "token request "
		"(authorization_code) to" : f->tok == FT_REFRESH ? "token request "
		"(refresh_token) to" : f->tok == FT_JAG ? "token request "
		"(jwt-bearer) to" : "token request (client_credentials) to",
		o->token_ep);
	if (fetch_send(f, o->token_ep, 1, 0) < 0)
		fetch_finish(f, -1, "cannot start the token request");
}

void oauth_token(struct oauth *o, enum oauth_tok kind, const char *code)
{
	struct fetch *f = fetch_new(o, ST_TOKEN);
	char *body = NULL;
	int r = 0;

	if (!f) {
		o->busy = 0;
		o->step_done(o, -1, "out of memory");
		return;
	}
	f->got = token_result;
	f->tok = kind;
	if (!o->token_ep || !o->client_id) {
		fetch_finish(f, -1, "no token endpoint or client id known");
		return;
	}
	if (kind == FT_CODE) {
		r |= oauth_form_add(&body, "grant_type", "authorization_code");
		r |= oauth_form_add(&body, "code", code);
		r |= oauth_form_add(&body, "redirect_uri", o->redirect_uri);
		r |= oauth_form_add(&body, "code_verifier", o->verifier);
	} else if (kind == FT_REFRESH) {
		r |= oauth_form_add(&body, "grant_type", "refresh_token");
		r |= oauth_form_add(&body, "refresh_token", o->refresh);
	} else if (kind == FT_JAG) {
		r |= oauth_form_add(&body, "grant_type",
				    "urn:ietf:params:oauth:grant-type:jwt-bearer");
		r |= oauth_form_add(&body, "assertion", o->jag ? o->jag :
				    o->cfg.assertion ? o->cfg.assertion : "");
		if (o->want_scope && *o->want_scope)
			r |= oauth_form_add(&body, "scope", o->want_scope);
	} else {
		r |= oauth_form_add(&body, "grant_type", "client_credentials");
		if (o->want_scope && *o->want_scope)
			r |= oauth_form_add(&body, "scope", o->want_scope);
	}
	if (o->resource)
		r |= oauth_form_add(&body, "resource", o->resource);
	if (r) {
		free(body);
		body = NULL;
	}
	token_send(f, body);
}

static void token_result(struct fetch *f, cJSON *j)
{
	struct oauth *o = f->o;
	const char *at = fetch_jstr(j, "access_token"), *rt = fetch_jstr(j, "refresh_token");
	const char *sc = fetch_jstr(j, "scope"), *e = fetch_jstr(j, "error");
	const cJSON *ex = cJSON_GetObjectItemCaseSensitive(j, "expires_in");
	char msg[300];
	struct fetch *nf;

	if (f->code == 400 && e && !strcmp(e, "use_dpop_nonce") && o->dpop &&
	    o->as_nonce && !f->nonce_again) { /* once, with its nonce */
		char *form = f->form;

		f->form = NULL;
		if (!(nf = fetch_next(f, ST_TOKEN))) {
			free(form);
			return;
		}
		nf->got = token_result;
		nf->tok = f->tok;
		nf->nonce_again = 1;
		token_send(nf, form);
		return;
	}
	if (!at || f->code < 200 || f->code > 299) {
		snprintf(msg, sizeof msg, "token request refused (HTTP %ld%s%.80s)",
			 f->code, e ? ": " : "", e ? e : "");
		fetch_finish(f, -1, msg);
		return;
	}
	if (!oauth_token_ok(at) || (rt && !oauth_token_ok(rt))) {
		fetch_finish(f, -1, "token request: the server sent a token with "
		       "characters outside RFC 6750's (refused)");
		return;
	}
	fetch_set_str(&o->access, at);
	o->dpop_bound = o->dpop && fetch_jstr(j, "token_type") &&
			!strcasecmp(fetch_jstr(j, "token_type"), "DPoP");
	if (rt)
		fetch_set_str(&o->refresh, rt);
	else if (f->tok != FT_REFRESH)
		fetch_set_str(&o->refresh, NULL);
	if (sc)
		fetch_set_str(&o->scopes, sc);
	else if (f->tok != FT_REFRESH)
		fetch_set_str(&o->scopes, o->want_scope);
	if (cJSON_IsNumber(ex)) {
		o->lifetime = oauth_clamp_expiry(ex->valuedouble);
		o->expires_at = (double)time(NULL) + o->lifetime;
	} else {
		o->lifetime = o->expires_at = 0;
	}
	o->gen++;
	fetch_finish(f, 0, NULL);
}

/* SEP-990: the ID token for an ID-JAG (RFC 8693 token exchange) at the
 * identity provider, for this authorization server and resource. */
void oauth_exchange(struct oauth *o)
{
	struct fetch *f = fetch_new(o, ST_EXCHANGE);
	const struct mcp_oauth_conf *c = &o->cfg;
	char *body = NULL;
	int r = 0;

	if (!f) {
		o->busy = 0;
		o->step_done(o, -1, "out of memory");
		return;
	}
	f->got = exchange_result;
	if (!oauth_url_allowed(c->idp_token_endpoint)) {
		fetch_finish(f, -1, "http:// endpoint refused: the identity "
		       "provider's token endpoint");
		return;
	}
	r |= oauth_form_add(&body, "grant_type",
			    "urn:ietf:params:oauth:grant-type:token-exchange");
	r |= oauth_form_add(&body, "subject_token", c->idp_id_token);
	r |= oauth_form_add(&body, "subject_token_type",
			    "urn:ietf:params:oauth:token-type:id_token");
	r |= oauth_form_add(&body, "requested_token_type",
			    "urn:ietf:params:oauth:token-type:id-jag");
	r |= oauth_form_add(&body, "audience", o->issuer ? o->issuer : "");
	if (o->resource)
		r |= oauth_form_add(&body, "resource", o->resource);
	if (o->want_scope && *o->want_scope)
		r |= oauth_form_add(&body, "scope", o->want_scope);
	if (c->idp_client_id)
		r |= oauth_form_add(&body, "client_id", c->idp_client_id);
	f->body = body;
	oauth_log_url(MLOG_DEBUG, o, "token exchange at", c->idp_token_endpoint);
	if (r || !body || fetch_send(f, c->idp_token_endpoint, 1, 0) < 0)
		fetch_finish(f, -1, "cannot start the token exchange");
}

static void exchange_result(struct fetch *f, cJSON *j)
{
	const char *at = fetch_jstr(j, "access_token"), *e = fetch_jstr(j, "error");
	char msg[300];

	if (!at || f->code < 200 || f->code > 299) {
		snprintf(msg, sizeof msg, "token exchange at the identity "
			 "provider refused (HTTP %ld%s%.80s)", f->code,
			 e ? ": " : "", e ? e : "");
		fetch_finish(f, -1, msg);
		return;
	}
	if (!oauth_token_ok(at)) {
		fetch_finish(f, -1, "token exchange: the identity provider sent a "
		       "token with characters outside RFC 6750's (refused)");
		return;
	}
	fetch_set_str(&f->o->jag, at);
	fetch_finish(f, 0, NULL);
}
