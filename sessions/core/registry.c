/*
 * registry.c - the configured servers and their thread sessions: loading and
 * live-reloading the config (SIGHUP via mcp_load_config, and a libuv watch
 * on the folder of each of its files, read and merged by configset.c),
 * lookups by name and by id, the soft session cap, .status, and shutdown.
 *
 * Reload keeps what did not change: a server whose launch fields (command,
 * args, env, cwd) are unchanged keeps its sessions and processes and only
 * picks up the new timeouts; a changed one has its sessions closed; a removed
 * or disabled one disappears with its sessions. An invalid file changes
 * nothing and its error shows in .status.
 */
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "buildconfig.h"
#include "configset.h"
#include "gbuf.h"
#include "index.h"
#include "internal.h"
#include "jsent.h"
#include "policy.h"

static mcp_server *servers, *dead_servers;
static struct idtab server_ids;
static char *config_paths[MCP_MAX_CONFIGS]; /* none = built-in */
static size_t nconfigs;
static char *project;       /* --project DIR */
static char *config_error;  /* last reload error */
static char **warnings;
static size_t nwarnings;
static uv_fs_event_t watches[MCP_MAX_CONFIGS];
static uv_timer_t debounce;
static int watching;

int mcp_init(uv_loop_t *loop, const struct mcp_options *opts,
	     const struct mcp_hooks *hooks)
{
	process.loop = loop;
	process.opts = *opts;
	process.hooks = hooks;
	jsent_count_failures(); /* message.c: no request built short */
	{
		struct transport_env env = {
			.loop = loop,
			.max_line = opts->max_line,
			.self_exe = opts->self_exe,
			.start_dir = opts->start_dir,
			.obj_hold = session_obj_hold,
			.obj_drop = session_obj_drop,
			.log = mlogv,
			.auth_note = mcp_auth_note,
			.conf_dup = mcp_conf_reach_dup,
			.conf_free = mcp_server_conf_free,
			.oauth_conf_dup = mcp_oauth_conf_dup,
		};

		transport_setup(&env);
	}
	idtab_init(&server_ids);
	sessions_init();
	return 0;
}

/* ---- lookups ---- */

mcp_server *mcp_server_next(mcp_server *prev)
{
	return prev ? prev->next : servers;
}

void mcp_server_stat(const mcp_server *srv, struct mcp_stat *st)
{
	*st = (struct mcp_stat){ .kind = MCP_SERVER, .id = srv->id,
				 .server_id = srv->id,
				 .name = srv->conf->name,
				 .server = (mcp_server *)srv,
				 .auth = srv->conf->url != NULL }; /* auth.c */
}

int mcp_lookup(uint64_t id, enum mcp_kind kind, struct mcp_stat *st)
{
	mcp_server *srv;
	mcp_session *s;
	mcp_ask *q;

	if ((srv = mcp_server_by_id(id)) != NULL)
		mcp_server_stat(srv, st);
	else if ((s = mcp_session_by_id(id)) != NULL)
		mcp_session_stat(s, st);
	else if ((q = mcp_ask_by_id(id)) != NULL)
		mcp_ask_stat(q, st);
	else
		return -ENOENT;
	return kind == MCP_ANY || st->kind == kind ? 0 : -ENOENT;
}

int mcp_walk(uint64_t parent, const char *name, struct mcp_stat *st)
{
	struct mcp_stat p;
	mcp_server *srv;
	mcp_session *s;
	mcp_ask *q = NULL;

	if (!parent) {
		if (!(srv = mcp_server_find(name)))
			return -ENOENT;
		mcp_server_stat(srv, st);
		return 0;
	}
	if (mcp_lookup(parent, MCP_ANY, &p) < 0)
		return -ENOENT;
	if (p.kind == MCP_SERVER) {
		if (!(s = mcp_session_find(p.server, name)))
			return -ENOENT;
		mcp_session_stat(s, st);
		return 0;
	}
	if (p.kind == MCP_THREAD)
		while ((q = mcp_ask_next(p.session, q)) != NULL) {
			mcp_ask_stat(q, st);
			if (!strcmp(st->name, name))
				return 0;
		}
	return -ENOENT;
}

int mcp_next(uint64_t parent, uint64_t prev, struct mcp_stat *st)
{
	struct mcp_stat p = { .kind = MCP_ANY }, c = { .kind = MCP_ANY };
	enum mcp_kind child;
	mcp_server *srv;
	mcp_session *s;
	mcp_ask *q;

	if (parent && mcp_lookup(parent, MCP_ANY, &p) < 0)
		return -ENOENT;
	child = !parent ? MCP_SERVER : p.kind == MCP_SERVER ? MCP_THREAD
	      : p.kind == MCP_THREAD ? MCP_QUESTION : MCP_ANY;
	if (child == MCP_ANY || (prev && mcp_lookup(prev, child, &c) < 0) ||
	    (prev && parent && parent != (child == MCP_THREAD ? c.server_id
							      : c.thread_id)))
		return -ENOENT; /* a question has no children; prev not one */
	if (child == MCP_SERVER && (srv = mcp_server_next(c.server)) != NULL)
		mcp_server_stat(srv, st);
	else if (child == MCP_THREAD &&
		 (s = mcp_session_next(p.server, c.session)) != NULL)
		mcp_session_stat(s, st);
	else if (child == MCP_QUESTION &&
		 (q = mcp_ask_next(p.session, c.ask)) != NULL)
		mcp_ask_stat(q, st);
	else
		return -ENOENT;
	return 0;
}

mcp_server *mcp_server_find(const char *name)
{
	mcp_server *srv;

	for (srv = servers; srv; srv = srv->next)
		if (!strcmp(srv->conf->name, name))
			return srv;
	return NULL;
}

mcp_server *mcp_server_by_id(uint64_t id)
{
	return idtab_get(&server_ids, id);
}

void mcp_session_close(mcp_session *s)
{
	mlog(MLOG_INFO, "server %s thread %s: rmdir", s->srv->conf->name,
	     s->name);
	session_close(s, "rmdir");
}

/* ---- config ---- */

static void cref_unref(struct conf_ref *r)
{
	if (r && --r->refs == 0) {
		mcp_config_free(r->cfg);
		free(r);
	}
}

static void server_drop_lists(mcp_server *srv)
{
	int i;

	for (i = 0; i < MCP_NLISTS; i++) {
		mcp_call_unref(srv->lists[i]);
		srv->lists[i] = NULL;
	}
}

static void server_close_sessions(mcp_server *srv, const char *why)
{
	mcp_session *s;

	while ((s = mcp_session_next(srv, NULL)) != NULL)
		session_close_notify(s, why);
	session_spares_close(srv, why);
}

static mcp_server *server_new(struct mcp_server_conf *conf,
			      struct conf_ref *cref)
{
	mcp_server *srv = calloc(1, sizeof *srv);

	if (!srv)
		return NULL;
	srv->id = mcp_new_id();
	srv->conf = conf;
	if (idtab_put(&server_ids, srv->id, srv) < 0) {
		free(srv);
		return NULL;
	}
	srv->cref = cref;
	cref->refs++;
	return srv;
}

static void server_adopt(mcp_server *srv, struct mcp_server_conf *conf,
			 struct conf_ref *cref)
{
	struct conf_ref *old = srv->cref;

	srv->conf = conf;
	srv->cref = cref;
	cref->refs++;
	cref_unref(old);
}

/* Make cfg (taken) the servers: 0, or -ENOMEM with cfg freed and the
 * servers as they were. */
static int apply_config(struct mcp_config *cfg)
{
	struct conf_ref *cref = calloc(1, sizeof *cref);
	struct mcp_server_conf *conf;
	mcp_server *old = servers, *list = NULL, **tail = &list, *srv, **pp;
	size_t i;
	int repol, reroots;

	if (!cref) {
		mcp_config_free(cfg);
		return -ENOMEM;
	}
	cref->cfg = cfg;
	cref->refs = 1; /* ours, dropped at the end */
	for (conf = cfg->servers; conf; conf = conf->next) {
		for (pp = &old; *pp && strcmp((*pp)->conf->name, conf->name);
		     pp = &(*pp)->next)
			;
		srv = *pp;
		if (srv) {
			*pp = srv->next;
			reroots = !mcp_conf_same_roots(srv->conf, conf);
			repol = !policy_same(srv->conf, conf);
			if (!mcp_conf_same_launch(srv->conf, conf)) {
				mlog(MLOG_INFO, "server %s: launch changed, "
				     "closing its sessions", conf->name);
				server_close_sessions(srv, "config changed");
				server_drop_lists(srv);
				reroots = 0;
			}
			server_adopt(srv, conf, cref);
			if (reroots) /* live roots (spec 5) */
				session_roots_changed(srv);
			if (repol) /* at once, in every session (spec 13) */
				policy_reload(srv);
		} else {
			srv = server_new(conf, cref);
			if (!srv)
				continue;
			mlog(MLOG_INFO, "server %s: added", conf->name);
		}
		srv->next = NULL;
		*tail = srv;
		tail = &srv->next;
		session_warm(srv);
	}
	while ((srv = old) != NULL) {
		old = srv->next;
		mlog(MLOG_INFO, "server %s: removed", srv->conf->name);
		server_close_sessions(srv, "server removed");
		idtab_del(&server_ids, srv->id);
		srv->removed = 1;
		srv->next = dead_servers;
		dead_servers = srv;
	}
	servers = list;
	for (i = 0; i < nwarnings; i++)
		free(warnings[i]);
	free(warnings);
	warnings = cfg->warnings;
	nwarnings = cfg->nwarnings;
	cfg->warnings = NULL;
	cfg->nwarnings = 0;
	for (i = 0; i < nwarnings; i++)
		mlog(MLOG_WARN, "%s", warnings[i]);
	cref_unref(cref);
	if (process.hooks && process.hooks->servers_changed)
		process.hooks->servers_changed();
	return 0;
}

/* The built-in config: one server, demo, running the example server. */
static char *default_config(void)
{
	char *dir = strdup(process.opts.self_exe), *d = dirname(dir);
	char path[4096];
	cJSON *o = cJSON_CreateObject(), *s, *demo;
	char *txt;

	snprintf(path, sizeof path, "%s/examples/demo-server", d);
	if (access(path, X_OK))
		snprintf(path, sizeof path, "%s/demo-server", d);
	if (access(path, X_OK))
		snprintf(path, sizeof path, "demo-server");
	free(dir);
	s = cJSON_AddObjectToObject(o, "mcpServers");
	demo = cJSON_AddObjectToObject(s, "demo");
	cJSON_AddStringToObject(demo, "command", path);
	txt = cJSON_PrintUnformatted(o);
	cJSON_Delete(o);
	return txt;
}

static void watch_start(void);

/* The config of the files given, or the built-in one. */
static int parse_config(struct mcp_config **cfg, char **err)
{
	char *text;
	int r;

	if (nconfigs)
		return mcp_config_load_files((const char *const *)config_paths,
					     nconfigs, project, cfg, err);
	text = default_config();
	if (!text) {
		*err = strdup("out of memory");
		return -1;
	}
	r = mcp_config_parse(text, strlen(text), "(built-in)", cfg, err);
	cJSON_free(text);
	return r;
}

int mcp_config_check(const char *const *paths, size_t n, const char *dir,
		     char **err)
{
	struct mcp_config *cfg;

	*err = NULL;
	if (mcp_config_load_files(paths, n, dir, &cfg, err) < 0)
		return -1;
	mcp_config_free(cfg);
	return 0;
}

int mcp_load_configs(const char *const *paths, size_t n, const char *dir,
		     char **err)
{
	static int loaded;
	struct mcp_config *cfg = NULL;
	char *perr = NULL;
	size_t i;

	*err = NULL;
	if (!loaded) {
		for (i = 0; i < n && i < MCP_MAX_CONFIGS; i++)
			config_paths[nconfigs++] = strdup(paths[i]);
		project = dir ? strdup(dir) : NULL;
	}
	if (parse_config(&cfg, &perr) < 0) {
		mlog(MLOG_ERR, "config rejected: %s", perr ? perr : "?");
		free(config_error);
		config_error = perr ? strdup(perr) : strdup("invalid config");
		*err = perr;
		return -EINVAL;
	}
	if (apply_config(cfg) < 0) {
		mlog(MLOG_ERR, "config not applied: %s", strerror(ENOMEM));
		free(config_error);
		config_error = strdup(strerror(ENOMEM));
		*err = strdup(strerror(ENOMEM));
		return -ENOMEM;
	}
	free(config_error);
	config_error = NULL;
	if (!loaded) {
		loaded = 1;
		watch_start();
	} else {
		mlog(MLOG_INFO, "config reloaded");
	}
	return 0;
}

int mcp_load_config(const char *path, char **err)
{
	return mcp_load_configs(&path, path ? 1 : 0, NULL, err);
}

static void debounce_cb(uv_timer_t *t)
{
	char *err;

	if (mcp_load_config(NULL, &err) < 0)
		free(err);
}

/* h watches the folder of config_paths[i]: reload if that file changed. */
static void watch_cb(uv_fs_event_t *h, const char *file, int events,
		     int status)
{
	size_t i = (size_t)(h - watches);
	char *copy = strdup(config_paths[i]), *base = basename(copy);

	if (status == 0 && (!file || !strcmp(file, base)))
		uv_timer_start(&debounce, debounce_cb, 150, 0);
	free(copy);
}

/* Watch each file's directory, so editors that replace a file are seen
 * too. */
static void watch_start(void)
{
	char *copy;
	size_t i;

	if (!nconfigs)
		return;
	uv_timer_init(process.loop, &debounce);
	watching = 1;
	for (i = 0; i < nconfigs; i++) {
		copy = strdup(config_paths[i]);
		uv_fs_event_init(process.loop, &watches[i]);
		if (uv_fs_event_start(&watches[i], watch_cb, dirname(copy),
				      0) < 0)
			mlog(MLOG_WARN, "cannot watch the folder of config "
			     "file %zu; reload with SIGHUP", i + 1);
		free(copy);
	}
}

/* ---- .status ---- */

/* A name one server's cached listing gives (serve's, spec 14): the tool
 * or prompt as SERVER__NAME, the resource by its URI. */
struct given {
	char *name;
	size_t at;                /* the server's place in the config */
	const char *server;
};

static int given_cmp(const void *a, const void *b)
{
	const struct given *x = a, *y = b;
	int c = strcmp(x->name, y->name);

	return c ? c : (x->at > y->at) - (x->at < y->at);
}

#define COLLISIONS_MAX 256

/* Add what's cached listing of srv (the at-th server) to *g. */
static void given_add(struct given **g, size_t *n, size_t *cap,
		      mcp_server *srv, size_t at, enum mcp_list what)
{
	mcp_call *c = srv->lists[what];
	cJSON *doc, *it;

	if (!c || !c->done || !c->reply || mcp_call_failed(c))
		return;
	doc = cJSON_ParseWithLength(c->reply->data, c->reply->len);
	cJSON_ArrayForEach(it, cJSON_GetObjectItemCaseSensitive(doc,
					mcp_list_key(what))) {
		cJSON *v = cJSON_GetObjectItemCaseSensitive(it,
				what == MCP_RESOURCES ? "uri" : "name");
		struct given *ng;
		char *name;

		if (!cJSON_IsString(v))
			continue;
		if (!(ng = gbuf_grow(*g, cap, *n + 1, sizeof *ng, 64)))
			break;
		*g = ng;
		if (what == MCP_RESOURCES)
			name = strdup(v->valuestring);
		else if (asprintf(&name, "%s__%s", srv->conf->name,
				  v->valuestring) < 0)
			name = NULL;
		if (!name)
			break;
		(*g)[(*n)++] = (struct given){ name, at, srv->conf->name };
	}
	cJSON_Delete(doc);
}

/* Every name or URI two servers give, of the listings fetched (spec 14):
 * [{"kind", "name", "server": the first in the config, which has it,
 * "shadowed": the other}], at most COLLISIONS_MAX. */
static cJSON *collisions_json(void)
{
	static const enum mcp_list kinds[] = {
		MCP_TOOLS, MCP_PROMPTS, MCP_RESOURCES,
	};
	static const char *const kname[] = { "tool", "prompt", "resource" };
	cJSON *out = cJSON_CreateArray();
	struct given *g = NULL;
	size_t k, i, j, n, cap = 0, at, nc = 0;
	mcp_server *srv;

	for (k = 0; k < sizeof kinds / sizeof *kinds; k++) {
		n = 0;
		for (srv = servers, at = 0; srv; srv = srv->next, at++)
			given_add(&g, &n, &cap, srv, at, kinds[k]);
		if (n)
			qsort(g, n, sizeof *g, given_cmp);
		for (i = 0; i < n; i = j) {
			for (j = i + 1; j < n && !strcmp(g[j].name, g[i].name);
			     j++) {
				cJSON *x;

				if (g[j].at == g[i].at || nc == COLLISIONS_MAX)
					continue;
				nc++;
				x = cJSON_CreateObject();
				cJSON_AddStringToObject(x, "kind", kname[k]);
				cJSON_AddStringToObject(x, "name", g[i].name);
				cJSON_AddStringToObject(x, "server",
							g[i].server);
				cJSON_AddStringToObject(x, "shadowed",
							g[j].server);
				cJSON_AddItemToArray(out, x);
			}
		}
		for (i = 0; i < n; i++)
			free(g[i].name);
	}
	free(g);
	return out;
}

mcp_buf *mcp_status_json(void)
{
	cJSON *o = cJSON_CreateObject(), *a, *w;
	mcp_server *srv;
	size_t i;
	mcp_buf *b;

	cJSON_AddStringToObject(o, "version", MCPFS_VERSION);
	cJSON_AddStringToObject(o, "config",
				nconfigs ? config_paths[0] : "(built-in)");
	a = cJSON_AddArrayToObject(o, "configs");
	for (i = 0; i < nconfigs; i++)
		cJSON_AddItemToArray(a, cJSON_CreateString(config_paths[i]));
	if (config_error)
		cJSON_AddStringToObject(o, "config_error", config_error);
	else
		cJSON_AddNullToObject(o, "config_error");
	a = cJSON_AddArrayToObject(o, "servers");
	for (srv = servers; srv; srv = srv->next) {
		cJSON *s = cJSON_CreateObject();
		const char *cmd = srv->conf->command;

		cJSON_AddStringToObject(s, "name", srv->conf->name);
		cJSON_AddStringToObject(s, "transport",
					transport_name(NULL, NULL, srv->conf));
		if (cmd)
			cJSON_AddStringToObject(s, "command", strrchr(cmd, '/') ?
						strrchr(cmd, '/') + 1 : cmd);
		cJSON_AddStringToObject(s, "digest", srv->conf->digest);
		cJSON_AddItemToObject(s, "policy", policy_json(srv->conf));
		cJSON_AddNumberToObject(s, "sessions", srv->nsessions);
		cJSON_AddNumberToObject(s, "spares", srv->nspares);
		cJSON_AddItemToArray(a, s);
	}
	w = cJSON_AddArrayToObject(o, "warnings");
	for (i = 0; i < nwarnings; i++)
		cJSON_AddItemToArray(w, cJSON_CreateString(warnings[i]));
	cJSON_AddNumberToObject(o, "sessions", session_live_count());
	cJSON_AddNumberToObject(o, "max_sessions", process.opts.max_sessions);
	if (session_cap_refusal())
		cJSON_AddStringToObject(o, "cap_refusal",
					session_cap_refusal());
	else
		cJSON_AddNullToObject(o, "cap_refusal");
	cJSON_AddNumberToObject(o, "idle_timeout", process.opts.idle_timeout);
	cJSON_AddNumberToObject(o, "call_timeout", process.opts.call_timeout);
	cJSON_AddItemToObject(o, "closed", sessions_closed_json());
	cJSON_AddItemToObject(o, "collisions", collisions_json());
	b = status_buf(o);
	cJSON_Delete(o);
	return b;
}

/* ---- shutdown ---- */

static void (*shutdown_cb)(void);

static void free_servers(mcp_server *list)
{
	mcp_server *srv;

	while ((srv = list) != NULL) {
		list = srv->next;
		server_drop_lists(srv);
		about_server_free(srv);
		mcp_call_unref(srv->last_sent);
		mcp_call_unref(srv->last_done);
		cref_unref(srv->cref);
		free(srv);
	}
}

static void reaped(void)
{
	size_t i;

	free_servers(servers);
	free_servers(dead_servers);
	servers = dead_servers = NULL;
	idtab_free(&server_ids);
	sessions_fini();
	for (i = 0; i < nwarnings; i++)
		free(warnings[i]);
	free(warnings);
	for (i = 0; i < nconfigs; i++)
		free(config_paths[i]);
	nconfigs = 0;
	free(project);
	free(config_error);
	transport_fini_all();
	if (shutdown_cb)
		shutdown_cb();
}

void mcp_shutdown(const char *why, void (*done_cb)(void))
{
	size_t i;

	shutdown_cb = done_cb;
	session_warm_stop();
	if (watching) {
		for (i = 0; i < nconfigs; i++)
			uv_close((uv_handle_t *)&watches[i], NULL);
		uv_close((uv_handle_t *)&debounce, NULL);
		watching = 0;
	}
	sessions_reap_done(why, reaped);
}

/* ---- MOUNT/.serve.json (spec 14) ---- */

static mcp_buf *client_entry;

void mcp_set_client_entry(const char *json)
{
	mcp_buf_unref(client_entry);
	client_entry = json ? mcp_buf_new(json, strlen(json)) : NULL;
}

mcp_buf *mcp_client_entry(void)
{
	return mcp_buf_ref(client_entry);
}
