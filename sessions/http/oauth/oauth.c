/*
 * oauth.c - the OAuth client's state per server (oauth.h): the flow's
 * phases, the waiters (requests held until a token), the loopback redirect
 * listener, the auth file's JSON and verbs, and the table the core reaches
 * through module_auth.
 *
 * Phases. IDLE; DISCOVER (oauthflow.c's discovery and registration, the
 * listener already open so that the redirect URI is known); BROWSER (the
 * authorization URL is out: every waiting request fails with "authorization
 * required", the listener waits for the callback); CODE (the token request
 * for the code); REFRESH; CLIENT (a client_credentials or jwt_bearer
 * token request); EXCHANGE (jwt_bearer: the ID token for an ID-JAG at the
 * identity provider, SEP-990).
 * One step runs at a time per server, so concurrent requests over an
 * expired token share one refresh, and all threads share the tokens.
 *
 * Decisions where the spec is silent: a refresh is due when less than a
 * tenth of the token's lifetime or 30 s remain, whichever is smaller, and
 * is made before the next request (not by a timer); the listener's port is
 * redirectPort, else one of four ports in 20000-59999 derived from SHA-256
 * of the url (the first free); the callback is answered once the token
 * request ended, so a browser (or a test) that got the page sees the final
 * state; step-ups count per server since the last request answered 2xx,
 * at most two.
 */
#include <cjson/cJSON.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "curluv.h"
#include "oauth.h"
#include "oauthnet.h"
#include "oauthcrypto.h"
#include "oauthutil.h"
#include "sessions.h"

enum { PH_IDLE, PH_DISCOVER, PH_BROWSER, PH_CODE, PH_REFRESH, PH_CLIENT,
       PH_EXCHANGE };

static LIST_HEAD(, oauth) all = LIST_HEAD_INITIALIZER(all);

static void step_done(struct oauth *o, int r, const char *err);
static int callback_url(struct oauth *o, const char *url, char *why,
			size_t n);

static void set_str(char **dst, const char *v)
{
	free(*dst);
	*dst = v ? strdup(v) : NULL;
}

const char *oauth_state_name(const struct oauth *o)
{
	switch (o->state) {
	case OA_PENDING:
		return "pending";
	case OA_AUTHORIZED:
		return "authorized";
	case OA_FAILED:
		return "failed";
	default:
		return "none";
	}
}

static void set_state(struct oauth *o, enum oauth_state st,
		      const char *detail)
{
	if (st == OA_FAILED)
		snprintf(o->err, sizeof o->err, "%.390s", detail ? detail : "");
	o->state = st;
	mod_env.auth_note(o->name, oauth_state_name(o), detail);
}

/* ---- waiters ---- */

static void kick_cb(uv_timer_t *t)
{
	struct oauth *o = t->data;
	struct oauth_wait *w;

	while ((w = LIST_FIRST(&o->finished)) != NULL) {
		LIST_REMOVE(w, link);
		w->on = 0;
		w->done(w, w->res, w->msg);
	}
}

static void finish_one(struct oauth *o, struct oauth_wait *w, int res,
		       const char *msg)
{
	if (w->on)
		LIST_REMOVE(w, link);
	w->on = 1;
	w->res = res;
	snprintf(w->msg, sizeof w->msg, "%.390s", msg ? msg : "");
	LIST_INSERT_HEAD(&o->finished, w, link);
	uv_timer_start(&o->kick, kick_cb, 0, 0);
}

static void wake(struct oauth *o, int res, const char *msg)
{
	struct oauth_wait *w;

	while ((w = LIST_FIRST(&o->waiters)) != NULL)
		finish_one(o, w, res, msg);
}

static void add_waiter(struct oauth *o, struct oauth_wait *w)
{
	if (w->on)
		LIST_REMOVE(w, link);
	w->on = 1;
	LIST_INSERT_HEAD(&o->waiters, w, link);
}

void oauth_wait_cancel(struct oauth_wait *w)
{
	if (w->on) {
		LIST_REMOVE(w, link);
		w->on = 0;
	}
}

/* The message of a call that needs the browser. */
static void required_msg(const struct oauth *o, char *m, size_t n)
{
	if (o->state == OA_FAILED)
		snprintf(m, n, "authorization required: %.300s", o->err);
	else
		snprintf(m, n, "authorization required: open the "
			 "authorizationUrl of %s/auth in a browser", o->name);
}

/* ---- the flow ---- */

static void pick_scope(struct oauth *o)
{
	/* a step-up's union already holds what was asked before */
	const char *base = o->stepup_scope ? o->stepup_scope :
			   o->cfg.scopes ? o->cfg.scopes :
			   o->challenge_scope ? o->challenge_scope :
			   o->prm_scopes;
	char *s = base ? strdup(base) : NULL;

	if (!o->cfg.client_credentials &&
	    oauth_scope_has(o->as_scopes, "offline_access") &&
	    !oauth_scope_has(s, "offline_access")) {
		char *n = oauth_scope_union(s, "offline_access");

		free(s);
		s = n;
	}
	free(o->want_scope);
	o->want_scope = s;
}

/* Start a flow (the browser's, or a client_credentials request). */
static void begin(struct oauth *o)
{
	int r;

	if (o->busy || o->phase == PH_DISCOVER)
		return;
	if (o->store_refused) {
		char m[500];

		required_msg(o, m, sizeof m);
		wake(o, 0, m);
		return;
	}
	if (!o->cfg.client_credentials) {
		r = oauth_listen_open(o, callback_url);
		if (r < 0) {
			char m[500];

			snprintf(m, sizeof m, "cannot open the loopback "
				 "redirect listener: %s", uv_strerror(r));
			set_state(o, OA_FAILED, m);
			required_msg(o, m, sizeof m);
			wake(o, 0, m);
			return;
		}
		set_str(&o->authz_url, NULL);
	}
	/* the state shows pending once the authorization URL is known */
	mod_log(MLOG_DEBUG, "server %s: auth: discovering the authorization "
	        "server", o->name);
	o->phase = PH_DISCOVER;
	o->step_done = step_done;
	oauth_discover(o);
}

static int build_url(struct oauth *o)
{
	char *q = NULL, ch[48];
	int r = 0;

	if (oauth_random_b64url(32, o->verifier) < 0 ||
	    oauth_random_b64url(24, o->state_param) < 0)
		return -EIO;
	oauth_pkce_challenge(o->verifier, ch);
	r |= oauth_form_add(&q, "response_type", "code");
	r |= oauth_form_add(&q, "client_id", o->client_id);
	r |= oauth_form_add(&q, "redirect_uri", o->redirect_uri);
	r |= oauth_form_add(&q, "code_challenge", ch);
	r |= oauth_form_add(&q, "code_challenge_method", "S256");
	r |= oauth_form_add(&q, "state", o->state_param);
	if (o->resource)
		r |= oauth_form_add(&q, "resource", o->resource);
	if (o->want_scope && *o->want_scope)
		r |= oauth_form_add(&q, "scope", o->want_scope);
	free(o->authz_url);
	o->authz_url = NULL;
	if (r || asprintf(&o->authz_url, "%s%c%s", o->authz_ep,
			  strchr(o->authz_ep, '?') ? '&' : '?', q) < 0) {
		o->authz_url = NULL;
		free(q);
		return -ENOMEM;
	}
	free(q);
	return 0;
}

static void flow_failed(struct oauth *o, const char *err)
{
	char m[500];

	o->phase = PH_IDLE;
	oauth_listen_close(o);
	set_str(&o->authz_url, NULL);
	set_state(o, OA_FAILED, err);
	required_msg(o, m, sizeof m);
	wake(o, 0, m);
	if (o->answer) {
		oauth_conn_answer(o->answer, 400, err);
		o->answer = NULL;
	}
}

static void got_token(struct oauth *o)
{
	char d[300];

	o->phase = PH_IDLE;
	oauth_listen_close(o);
	set_str(&o->authz_url, NULL);
	set_str(&o->stepup_scope, NULL);
	oauth_store_save(o);
	snprintf(d, sizeof d, "scopes %s", o->scopes ? o->scopes : "(none)");
	set_state(o, OA_AUTHORIZED, d);
	wake(o, 1, NULL);
	if (o->answer) {
		oauth_conn_answer(o->answer, 200, "mcpfs: signed in; you can close "
			    "this page.");
		o->answer = NULL;
	}
}

static void step_done(struct oauth *o, int r, const char *err)
{
	char m[500];

	switch (o->phase) {
	case PH_DISCOVER:
		if (r < 0) {
			flow_failed(o, err);
			return;
		}
		pick_scope(o);
		if (o->cfg.jwt_bearer && o->cfg.assertion) { /* SEP-1933 */
			o->phase = PH_CLIENT;
			oauth_token(o, FT_JAG, NULL);
			return;
		}
		if (o->cfg.jwt_bearer) {
			o->phase = PH_EXCHANGE;
			oauth_exchange(o);
			return;
		}
		if (o->cfg.client_credentials) {
			o->phase = PH_CLIENT;
			oauth_token(o, FT_CLIENT, NULL);
			return;
		}
		if (build_url(o) < 0) {
			flow_failed(o, "cannot build the authorization URL");
			return;
		}
		o->phase = PH_BROWSER;
		set_state(o, OA_PENDING, "waiting for the browser");
		required_msg(o, m, sizeof m);
		wake(o, 0, m);
		return;
	case PH_EXCHANGE:
		if (r < 0) {
			flow_failed(o, err);
			return;
		}
		o->phase = PH_CLIENT;
		oauth_token(o, FT_JAG, NULL);
		return;
	case PH_CODE:
	case PH_CLIENT:
		if (r < 0) {
			flow_failed(o, err);
			return;
		}
		got_token(o);
		return;
	case PH_REFRESH:
		o->phase = PH_IDLE;
		if (r == 0) {
			oauth_store_save(o);
			mod_env.auth_note(o->name, "authorized", "token refreshed");
			wake(o, 1, NULL);
			return;
		}
		mod_log(MLOG_INFO, "server %s: auth: refresh failed (%s)",
		        o->name, err);
		set_str(&o->access, NULL);
		set_str(&o->refresh, NULL);
		begin(o);
		return;
	default:
		return;
	}
}

/* A callback URL (the listener's request, or pasted): 1 when the code is
 * being exchanged, else -EINVAL with why. */
static int callback_url(struct oauth *o, const char *url, char *why,
			size_t n)
{
	char *st = oauth_query_get(url, "state");
	char *code = oauth_query_get(url, "code");
	char *err = oauth_query_get(url, "error");
	char *iss = oauth_query_get(url, "iss");
	int r = -EINVAL;

	if (o->phase != PH_BROWSER || !o->state_param[0]) {
		snprintf(why, n, "no sign-in is waiting for a callback");
	} else if (!st || strcmp(st, o->state_param)) {
		snprintf(why, n, "state mismatch: not the callback of this "
			 "sign-in");
		mod_log(MLOG_WARN, "server %s: auth: a callback with a wrong "
		        "state refused", o->name);
	} else if (err) {
		snprintf(why, n, "authorization denied: %.100s", err);
		flow_failed(o, why);
	} else if ((iss && (!o->issuer || strcmp(iss, o->issuer))) ||
		   (!iss && o->iss_required)) {
		snprintf(why, n, "iss mismatch: the authorization response %s "
			 "(RFC 9207)", iss ? "names another issuer" :
			 "lacks the iss its server promised");
		flow_failed(o, why);
	} else if (!code || !*code) {
		snprintf(why, n, "the callback has no code");
	} else {
		o->phase = PH_CODE;
		o->state_param[0] = 0;
		oauth_token(o, FT_CODE, code);
		snprintf(why, n, "signing in");
		r = 1;
	}
	if (code)
		memset(code, 0, strlen(code));
	free(st), free(code), free(err), free(iss);
	return r;
}

/* ---- what the transports call ---- */

static void oauth_clear(struct oauth *o, int all_of_it)
{
	set_str(&o->access, NULL);
	set_str(&o->refresh, NULL);
	set_str(&o->scopes, NULL);
	o->expires_at = o->lifetime = 0;
	if (all_of_it) {
		set_str(&o->dpop_key, NULL);
		set_str(&o->as_nonce, NULL);
		set_str(&o->rs_nonce, NULL);
		set_str(&o->client_id, NULL);
		set_str(&o->client_secret, NULL);
		set_str(&o->issuer, NULL);
		set_str(&o->token_ep, NULL);
		set_str(&o->authz_ep, NULL);
		set_str(&o->resource, NULL);
		set_str(&o->challenge_scope, NULL);
		set_str(&o->stepup_scope, NULL);
		set_str(&o->prm_url, NULL);
		set_str(&o->revoke_ep, NULL);
		o->registered = 0;
	}
}

static void cfg_take(struct oauth *o, const struct mcp_oauth_conf *c)
{
	struct mcp_oauth_conf *d = c ? mod_env.oauth_conf_dup(c) : NULL;

	free(o->cfg.client_id);
	free(o->cfg.client_secret);
	free(o->cfg.client_metadata_url);
	free(o->cfg.scopes);
	free(o->cfg.private_key_file);
	free(o->cfg.idp_token_endpoint);
	free(o->cfg.idp_id_token);
	free(o->cfg.idp_client_id);
	free(o->cfg.assertion);
	memset(&o->cfg, 0, sizeof o->cfg);
	o->cfg.enabled = 1;
	if (d) {
		o->cfg = *d;
		free(d);
	}
}

struct oauth *oauth_for(const struct mcp_server_conf *conf)
{
	struct oauth *o;

	size_t i;

	if (!conf->url || (conf->oauth && !conf->oauth->enabled) || !mod_env_ready())
		return NULL;
	for (i = 0; i < conf->nheaders; i++) /* the user's own credentials */
		if (!strncasecmp(conf->headers[i], "authorization:", 14))
			return NULL;
	LIST_FOREACH(o, &all, link)
		if (!strcmp(o->name, conf->name) && !strcmp(o->url, conf->url))
			break;
	if (o) {
		cfg_take(o, conf->oauth);
		return o;
	}
	o = calloc(1, sizeof *o);
	if (!o)
		return NULL;
	o->name = strdup(conf->name);
	o->url = strdup(conf->url);
	if (!o->name || !o->url) {
		free(o->name);
		free(o->url);
		free(o);
		return NULL;
	}
	cfg_take(o, conf->oauth);
	LIST_INIT(&o->waiters);
	LIST_INIT(&o->finished);
	TAILQ_INIT(&o->conns);
	uv_timer_init(mod_env.loop, &o->kick);
	o->kick.data = o;
	oauth_net_learn(o, mod_env.loop);
	o->step_done = step_done;
	LIST_INSERT_HEAD(&all, o, link);
	if (oauth_store_load(o) == -EPERM) {
		o->store_refused = 1;
		o->state = OA_FAILED;
		mod_env.auth_note(o->name, "failed", o->err);
	} else if (o->state == OA_AUTHORIZED) {
		mod_env.auth_note(o->name, "authorized", "tokens from the store");
	}
	return o;
}

const char *oauth_bearer(const struct oauth *o)
{
	return o && o->access && !o->store_refused ? o->access : NULL;
}

void oauth_answered(struct oauth *o)
{
	if (o)
		o->stepups = 0;
}

static void start_refresh(struct oauth *o)
{
	if (o->busy || o->phase != PH_IDLE)
		return;
	if (o->refresh && o->token_ep && o->client_id) {
		o->phase = PH_REFRESH;
		o->step_done = step_done;
		oauth_token(o, FT_REFRESH, NULL);
	} else {
		begin(o);
	}
}

int oauth_challenge(struct oauth *o, long status, const char *www,
		    unsigned gen, struct oauth_wait *w)
{
	char v[2048], m[500];

	if (!o)
		return -1;
	if (www && oauth_www_param(www, "resource_metadata", v, sizeof v) == 0)
		set_str(&o->prm_url, v);
	if (status == 401 && oauth_dpop_retry(o, www)) {
		finish_one(o, w, 1, NULL); /* its proof with the new nonce */
		return 0;
	}
	if (status == 403) {
		if (!www || oauth_www_param(www, "error", v, sizeof v) < 0 ||
		    strcmp(v, "insufficient_scope"))
			return -1;
		if (o->stepups >= 2) {
			mod_log(MLOG_INFO, "server %s: auth: insufficient scope "
			        "after %u step-ups; not asking again", o->name,
			        o->stepups);
			return -1;
		}
		o->stepups++;
		if (oauth_www_param(www, "scope", v, sizeof v) == 0) {
			char *u = oauth_scope_union(o->want_scope ?
						    o->want_scope : o->scopes, v);

			free(o->stepup_scope);
			o->stepup_scope = u;
		}
		mod_log(MLOG_INFO, "server %s: auth: step-up %u for scopes %s",
		        o->name, o->stepups, o->stepup_scope ? o->stepup_scope :
		        "(same)");
		add_waiter(o, w);
		if (o->phase == PH_BROWSER) {
			o->phase = PH_IDLE;
			oauth_listen_close(o);
		}
		if (o->phase == PH_IDLE)
			begin(o);
		return 0;
	}
	if (status != 401)
		return -1;
	if (www && oauth_www_param(www, "scope", v, sizeof v) == 0)
		set_str(&o->challenge_scope, v);
	if (o->store_refused) {
		required_msg(o, m, sizeof m);
		finish_one(o, w, 0, m);
		return 0;
	}
	if (o->access && gen != o->gen) { /* a newer token came meanwhile */
		finish_one(o, w, 1, NULL);
		return 0;
	}
	add_waiter(o, w);
	if (o->phase == PH_BROWSER) {
		required_msg(o, m, sizeof m);
		wake(o, 0, m);
		return 0;
	}
	if (o->phase != PH_IDLE)
		return 0; /* the step running wakes it */
	if (o->access && !o->refresh)
		set_str(&o->access, NULL); /* refused: a new one is needed */
	if (o->refresh || o->cfg.client_credentials)
		start_refresh(o);
	else
		begin(o);
	return 0;
}

int oauth_fresh(struct oauth *o, struct oauth_wait *w)
{
	double left, margin;

	if (!o || !o->access || !o->expires_at || o->phase != PH_IDLE)
		return o && o->phase == PH_REFRESH ? (add_waiter(o, w), 0) : 1;
	left = o->expires_at - (double)time(NULL);
	margin = o->lifetime > 0 && o->lifetime * 0.1 < 30 ? o->lifetime * 0.1
							    : 30;
	if (left >= margin || (!o->refresh && !o->cfg.client_credentials))
		return 1;
	add_waiter(o, w);
	start_refresh(o);
	return 0;
}

/* ---- the auth file's verbs (oauthfile.c) ---- */

void oauth_login(struct oauth *o)
{
	oauth_flow_abort(o);
	o->phase = PH_IDLE;
	oauth_listen_close(o);
	if (o->store_refused && oauth_store_load(o) == 0)
		o->store_refused = 0;
	mod_log(MLOG_INFO, "server %s: auth: login", o->name);
	begin(o);
}

void oauth_logout(struct oauth *o)
{
	oauth_flow_abort(o);
	o->phase = PH_IDLE;
	oauth_listen_close(o);
	if (!o->store_refused) {
		oauth_revoke(o, o->refresh, "refresh_token");
		oauth_revoke(o, o->access, "access_token");
	}
	oauth_clear(o, 1);
	o->store_refused = 0;
	o->stepups = 0;
	oauth_store_remove(o);
	set_state(o, OA_NONE, "logged out: tokens and registration forgotten");
	wake(o, 0, "authorization required: logged out (write login to "
	     "auth)");
}

int oauth_paste(struct oauth *o, const char *url, char *why, size_t n)
{
	return callback_url(o, url, why, n) == 1 ? 0 : -EINVAL;
}

static void oauth_free_cb(uv_handle_t *h)
{
	free(h->data);
}

void oauth_fini(void)
{
	struct oauth *o;

	while ((o = LIST_FIRST(&all)) != NULL) {
		LIST_REMOVE(o, link);
		oauth_flow_abort(o);
		oauth_net_forget(o);
		if (o->answer)
			oauth_conn_close(o->answer);
		oauth_listen_close(o);
		oauth_clear(o, 1);
		cfg_take(o, NULL);
		free(o->authz_url);
		free(o->redirect_uri);
		free(o->want_scope);
		free(o->prm_scopes);
		free(o->as_scopes);
		free(o->reg_ep);
		free(o->jag);
		free(o->name);
		free(o->url);
		uv_close((uv_handle_t *)&o->kick, oauth_free_cb);
	}
}

