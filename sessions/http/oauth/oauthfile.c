/*
 * oauthfile.c - the auth file of a url server (spec 8) as the HTTP module
 * renders it, and the table the core reaches through module_auth: the
 * state as JSON (never a token, code, verifier or secret), and the verbs
 * login, logout and a pasted redirect URL.
 */
#include <cjson/cJSON.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "curluv.h"
#include "oauth.h"
#include "oauthutil.h"
#include "sessions.h"

static void add_scopes(cJSON *j, const char *p)
{
	cJSON *a = cJSON_AddArrayToObject(j, "scopes");
	char w[OAUTH_SCOPE_MAX];

	while (oauth_scope_next(&p, w))
		cJSON_AddItemToArray(a, cJSON_CreateString(w));
}

static char *auth_json(const struct mcp_server_conf *conf)
{
	struct oauth *o = oauth_for(conf);
	cJSON *j = cJSON_CreateObject();
	char *t, *out = NULL;

	if (!o) {
		cJSON_AddStringToObject(j, "state", "none"); /* "oauth": false */
	} else {
		cJSON_AddStringToObject(j, "state", oauth_state_name(o));
		if (o->state == OA_PENDING && o->authz_url) {
			cJSON_AddStringToObject(j, "authorizationUrl",
						o->authz_url);
			cJSON_AddStringToObject(j, "redirectUri",
						o->redirect_uri);
		} else if (o->state == OA_AUTHORIZED) {
			add_scopes(j, o->scopes);
			if (o->expires_at) {
				char ts[40];
				time_t e = (time_t)o->expires_at;
				struct tm tm;

				gmtime_r(&e, &tm);
				strftime(ts, sizeof ts, "%Y-%m-%dT%H:%M:%SZ",
					 &tm);
				cJSON_AddStringToObject(j, "expiresAt", ts);
			} else {
				cJSON_AddNullToObject(j, "expiresAt");
			}
		} else if (o->state == OA_FAILED) {
			cJSON_AddStringToObject(j, "error", o->err);
		}
	}
	t = cJSON_PrintUnformatted(j);
	cJSON_Delete(j);
	if (t && asprintf(&out, "%s\n", t) < 0)
		out = NULL;
	cJSON_free(t);
	return out;
}

static int auth_write(const struct mcp_server_conf *conf, const char *p,
		      size_t n)
{
	struct oauth *o = oauth_for(conf);
	char buf[8192], why[300];
	int r;

	while (n && (p[n - 1] == '\n' || p[n - 1] == '\r' || p[n - 1] == ' '))
		n--;
	if (!o) {
		mod_log(MLOG_INFO, "server %s: auth: write refused (oauth is off)",
		        conf->name);
		return -EINVAL;
	}
	if (n >= sizeof buf) {
		mod_log(MLOG_INFO, "server %s: auth: write too long", conf->name);
		return -EINVAL;
	}
	memcpy(buf, p, n);
	buf[n] = 0;
	if (!strcmp(buf, "login")) {
		oauth_login(o);
		return 0;
	}
	if (!strcmp(buf, "logout")) {
		oauth_logout(o);
		return 0;
	}
	if (!strncmp(buf, "http://", 7) || !strncmp(buf, "https://", 8)) {
		r = oauth_paste(o, buf, why, sizeof why);
		memset(buf, 0, sizeof buf);
		if (r < 0)
			mod_log(MLOG_INFO, "server %s: auth: pasted URL refused: "
			        "%s", o->name, why);
		return r;
	}
	mod_log(MLOG_INFO, "server %s: auth: unknown write (want login, logout "
	        "or the redirect URL)", o->name);
	return -EINVAL;
}

static char *auth_url(const struct mcp_server_conf *conf)
{
	struct oauth *o = oauth_for(conf);

	return o && o->state == OA_PENDING && o->authz_url ?
	       strdup(o->authz_url) : NULL;
}

static int auth_init(const struct transport_env *e)
{
	mod_env_set(e);
	return cu_init(e->loop);
}

const struct auth_ops mcpfs_auth_ops = {
	.init = auth_init,
	.json = auth_json,
	.write = auth_write,
	.url = auth_url,
};
