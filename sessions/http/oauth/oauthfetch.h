/*
 * oauthfetch.h - one HTTP transfer of the OAuth client (oauthflow.c),
 * shared with the token requests (oauthtoken.c).
 */
#ifndef MCPFS_OAUTHFETCH_H
#define MCPFS_OAUTHFETCH_H

#include <cjson/cJSON.h>
#include <curl/curl.h>

#include "curluv.h"
#include "gbuf.h"
#include "oauth.h"
#include "oauthnet.h"

#define MAX_CANDIDATES 4

enum step { ST_PRM, ST_ASM, ST_REG, ST_TOKEN, ST_EXCHANGE, ST_REVOKE };

struct fetch {
	struct cu_xfer cu;
	struct oauth *o;
	enum step step;
	enum oauth_tok tok;
	struct curl_slist *hdrs;
	char *body, *form; /* form: a token request's, before client auth */
	int nonce_again;   /* sent again with the server's DPoP nonce */
	struct gbuf in;
	long code;
	/* discovery: the URLs still to try */
	char *cand[MAX_CANDIDATES];
	unsigned ncand, at;
	int killed;
	struct oauth_netguard guard;
	/* a token or exchange request: its answer (a JSON object, or NULL
	 * when the body is none) */
	void (*got)(struct fetch *f, cJSON *j);
};

/* The step ends (o->step_done) with r and err; f is let go. */
void fetch_finish(struct fetch *f, int r, const char *err);
/* f sent to url (a POST of f->body, form or JSON): 0, or -1. */
int fetch_send(struct fetch *f, const char *url, int post, int json);
/* A transfer of o for step; NULL when out of memory. */
struct fetch *fetch_new(struct oauth *o, enum step step);
/* The next transfer after old (let go) for step; NULL when out of memory
 * (the step then ended). */
struct fetch *fetch_next(struct fetch *old, enum step step);
void fetch_set_str(char **dst, const char *v); /* *dst a copy of v */
const char *fetch_jstr(const cJSON *j, const char *k); /* a string member */

#endif
