/*
 * oauth.h - the OAuth 2.1 client of the HTTP module (spec 8; MCP
 * authorization 2025-11-25): one struct oauth per server (name and url),
 * shared by every session of it, so all threads share its tokens.
 *
 * oauth.c keeps the state, the waiters, the loopback listener, the auth
 * file and the store; oauthflow.c does the HTTP steps (discovery,
 * registration, token requests) and reports each end through
 * o->step_done; oauthstore.c reads and writes the store file.
 *
 * The transports (http.c, httpsse.c) see: oauth_for, oauth_bearer (the
 * Authorization header value), oauth_challenge (a 401 or 403 answer) and
 * oauth_fresh (a refresh due before sending), each finishing a struct
 * oauth_wait later, never from inside the call.
 */
#ifndef MCPFS_OAUTH_H
#define MCPFS_OAUTH_H

#include <sys/queue.h>
#include <uv.h>

#include "config.h"
#include "modenv.h"
#include "transport.h"

/* A request waiting on the server's authorization. */
struct oauth_wait {
	/* res 1: send again (a new token); 0: authorization required (msg,
	 * -32001); -1: not an authorization matter (keep the HTTP error). */
	void (*done)(struct oauth_wait *w, int res, const char *msg);
	int on, res;
	char msg[400];
	LIST_ENTRY(oauth_wait) link;
};

enum oauth_state { OA_NONE, OA_PENDING, OA_AUTHORIZED, OA_FAILED };
enum oauth_tok { FT_CODE, FT_REFRESH, FT_CLIENT, FT_JAG };
enum { AM_BASIC = 1, AM_POST = 2, AM_NONE = 4, AM_JWT = 8 };

struct oauth_conn; /* a connection to the loopback listener */

struct oauth {
	char *name, *url;
	struct mcp_oauth_conf cfg;      /* copy; strings owned */
	enum oauth_state state;
	int busy;                       /* a step runs (oauthflow.c) */
	int discovering;                /* ... of a code flow's start */
	char err[400];
	/* tokens */
	char *access, *refresh, *scopes; /* granted scopes, space-separated */
	double expires_at, lifetime;    /* 0: no expiry */
	unsigned gen;                   /* bumped at each new access token */
	/* DPoP (SEP-1932, oauthdpop.c): the key, an EC P-256 private key
	 * as PEM, is kept in the store and never shown */
	char *dpop_key;
	char *as_nonce, *rs_nonce;      /* the servers' last DPoP-Nonce */
	int dpop;                       /* proofs sent (config, metadata) */
	int dpop_bound;                 /* the access token's type is DPoP */
	int rs_nonce_new;               /* rs_nonce not yet retried with */
	/* the client and the authorization server (kept in the store) */
	char *issuer, *authz_ep, *token_ep, *reg_ep, *resource, *revoke_ep;
	char *client_id, *client_secret, *redirect_uri;
	int auth_method;                /* AM_* used at the token endpoint */
	int registered;                 /* client_id from registration */
	/* from the last discovery */
	char *prm_url;                  /* resource_metadata of a challenge */
	char *challenge_scope;          /* scope of the last challenge */
	char *prm_scopes, *as_scopes;
	int as_methods;                 /* AM_* the server lists, 0 = none */
	int cimd, iss_required, legacy, have_meta;
	char *want_scope;               /* requested in this flow */
	char *jag;                      /* an ID-JAG from the identity provider */
	unsigned stepups;               /* since the last answered request */
	/* a pending code flow */
	char verifier[64], state_param[48];
	char *authz_url;
	int port;
	uv_tcp_t *lis;                  /* the loopback listener, or NULL */
	struct oauth_conn *answer;      /* the callback waiting for the token */
	TAILQ_HEAD(, oauth_conn) conns; /* the listener's connections */
	unsigned nconns;
	int phase;                      /* oauth.c's PH_* */
	char *stepup_scope;             /* the union a step-up asks for */
	/* waiters */
	LIST_HEAD(, oauth_wait) waiters, finished;
	uv_timer_t kick;
	int store_refused;
	int net_class;                  /* the server's (oauthnet.c) */
	void *net_lookup;               /* ... while being looked up */
	void (*step_done)(struct oauth *o, int r, const char *err);
	void *fetch;                    /* oauthflow.c's transfer */
	LIST_ENTRY(oauth) link;
};

/* oauth.c */
/* The server's state (made at first use, the store read then); NULL when
 * its config says "oauth": false, or out of memory. */
struct oauth *oauth_for(const struct mcp_server_conf *conf);
const char *oauth_bearer(const struct oauth *o);
/* An answer status (401/403) with its WWW-Authenticate value (may be NULL)
 * to a request sent with token generation gen: w finishes later. Returns
 * -1 (w not taken) when the answer is not an authorization matter. */
int oauth_challenge(struct oauth *o, long status, const char *www,
		    unsigned gen, struct oauth_wait *w);
/* 1 when the token may be used now; 0 when w finishes once a refresh that
 * was due is done. */
int oauth_fresh(struct oauth *o, struct oauth_wait *w);
void oauth_wait_cancel(struct oauth_wait *w);
/* A request was answered 2xx: step-ups count from 0 again. */
void oauth_answered(struct oauth *o);
void oauth_fini(void);
const char *oauth_state_name(const struct oauth *o);
/* The auth file's verbs (oauthfile.c). paste: 0, or -EINVAL with why. */
void oauth_login(struct oauth *o);
void oauth_logout(struct oauth *o);
int oauth_paste(struct oauth *o, const char *url, char *why, size_t n);

/* oauthflow.c: each ends with o->step_done(o, 0 or -1, message). */
void oauth_discover(struct oauth *o);
void oauth_token(struct oauth *o, enum oauth_tok kind, const char *code);
/* jwt_bearer: the configured ID token for an ID-JAG (into o->jag). */
void oauth_exchange(struct oauth *o);
void oauth_flow_abort(struct oauth *o);
/* RFC 7009 revocation of token, when the server has the endpoint; no
 * report. */
void oauth_revoke(struct oauth *o, const char *token, const char *hint);

/* oauthauth.c: the client's authentication at the token endpoint, as
 * o->auth_method says: a header added to *hdrs, or fields to *body.
 * 0, or -errno with err. */
struct curl_slist;
struct cJSON;
int oauth_client_auth(const struct oauth *o, struct curl_slist **hdrs,
		      char **body, char *err, size_t n);
/* The AM_* a metadata's token_endpoint_auth_methods_supported lists
 * (RFC 8414's default when absent); the one to use of what the server
 * allows (have_secret: a client secret is known); its name. */
int oauth_methods_of(const struct cJSON *j);
int oauth_pick_method(const struct oauth *o, int have_secret);
const char *oauth_method_name(int m);

/* oauthdpop.c (SEP-1932, RFC 9449) */
/* The authorization server's metadata j: DPoP on when the config says
 * "dpop": true, or, unless it says false, when j's
 * dpop_signing_alg_values_supported lists ES256. */
void oauth_dpop_meta(struct oauth *o, const struct cJSON *j);
/* "DPoP: PROOF" for a token request to url added to *hdrs when o uses
 * DPoP (the key made at the first): 0, or -1 with err. */
int oauth_dpop_token(struct oauth *o, struct curl_slist **hdrs,
		     const char *url, char *err, size_t n);
/* The Authorization value of a resource request (malloc'd: "DPoP TOKEN"
 * when the token is DPoP-bound, else "Bearer TOKEN"), and for a bound one
 * its proof (method, url, ath) added to *hdrs. NULL: no token, or out of
 * memory (*err -ENOMEM then). */
char *oauth_resource_auth(const struct oauth *o, struct curl_slist **hdrs,
			  const char *method, const char *url, int *err);
/* A response header line (p, len): a DPoP-Nonce is kept, as the
 * authorization server's (as) or the resource server's. */
void oauth_dpop_nonce(struct oauth *o, const char *p, size_t len, int as);
/* The curl header callback of a token request (ud: the struct oauth). */
size_t oauth_dpop_as_header(char *p, size_t size, size_t n, void *ud);
/* A 401's WWW-Authenticate www: 1 when it is DPoP error="use_dpop_nonce"
 * and a new nonce came with it (sent again once per nonce). */
int oauth_dpop_retry(struct oauth *o, const char *www);

/* oauthstore.c */
/* The store file's path for url, malloc'd (NULL on ENOMEM). */
char *oauth_store_path(const char *url);
/* Read the store into o: 0 (or nothing stored), -EPERM with o->err set
 * (permissions or owner), -EINVAL (unreadable: ignored, logged). */
int oauth_store_load(struct oauth *o);
int oauth_store_save(const struct oauth *o);
int oauth_store_remove(const struct oauth *o);
/* The permission check alone, of an open file's stat: 0 or -EPERM. */
struct stat;
int oauth_store_check(const struct stat *st, unsigned uid);

/* oauthlisten.c: the loopback listener. A redirect's URL goes to cb (1:
 * the code taken, and the connection waits in o->answer for its page; 0
 * or -1 with why, which the browser is shown). Open: 0, or a negated
 * errno; close: the listener and every connection but o->answer. */
typedef int (*oauth_callback_fn)(struct oauth *o, const char *url, char *why,
				 size_t n);
int oauth_listen_open(struct oauth *o, oauth_callback_fn cb);
void oauth_listen_close(struct oauth *o);
/* The page of connection c (code, text), then it closes. */
void oauth_conn_answer(struct oauth_conn *c, int code, const char *text);
void oauth_conn_close(struct oauth_conn *c);

#endif
