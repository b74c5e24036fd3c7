/*
 * dialect.c - the config files of Codex, OpenCode, Zed, Gemini CLI, Goose,
 * Windsurf and Cline (dialect.h), rewritten into the "mcpServers" form of
 * config.c before it reads them. Each dialect is a function from one of
 * its server entries to an entry of mcpfs's keys:
 *
 *   Codex     [mcp_servers.N] command args env cwd url http_headers
 *             env_http_headers bearer_token_env_var enabled
 *             tool_timeout_sec enabled_tools disabled_tools
 *   OpenCode  mcp.N {type local, command [..], environment} or
 *             {type remote, url, headers}; enabled; timeout (ms)
 *   Zed       context_servers.N {command, args, env} (or command {path,
 *             args, env}), {url, headers}; enabled
 *   Goose     extensions.N {type stdio: cmd args envs; sse or
 *             streamable_http: uri headers}; enabled; timeout;
 *             available_tools
 *   Gemini    mcpServers.N httpUrl (Streamable HTTP), url (SSE), timeout
 *             (ms), includeTools, excludeTools; mcp.allowed/excluded
 *   Windsurf  serverUrl;  Cline  autoApprove (a warning: nothing to ask)
 *   VS Code   its user settings.json: mcp.servers
 *
 * What mcpfs has a key for is kept (a timeout in seconds, a tool filter
 * as allowTools/denyTools, "disabled"); every other key is a warning,
 * never an error. A value of the wrong type for a key that is kept is an
 * error naming the key as the file spells it. Messages never quote
 * values.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dialect.h"

struct norm {
	const char *file;     /* for warnings */
	const char *label;    /* where the entries are: "mcp_servers" */
	const char *name;     /* the server being read */
	char *err;
	cJSON *warnings;
};

static void warn(struct norm *n, const char *key, const char *why)
{
	char *w;

	if (asprintf(&w, "server %s: %s.%s.%s: %s (%s)", n->name, n->label,
		     n->name, key, why, n->file) < 0)
		return;
	cJSON_AddItemToArray(n->warnings, cJSON_CreateString(w));
	free(w);
}

static int fail(struct norm *n, const char *key, const char *problem)
{
	if (!n->err && asprintf(&n->err, "%s.%s%s%s: %s", n->label, n->name,
				key ? "." : "", key ? key : "", problem) < 0)
		n->err = NULL;
	return -1;
}

enum want { W_STR, W_ARR, W_OBJ, W_NUM, W_BOOL };

static int is(const cJSON *v, enum want w)
{
	switch (w) {
	case W_STR: return cJSON_IsString(v);
	case W_ARR: return cJSON_IsArray(v);
	case W_OBJ: return cJSON_IsObject(v);
	case W_NUM: return cJSON_IsNumber(v);
	default: return cJSON_IsBool(v);
	}
}

/*
 * Move src[skey] to dst[dkey] (replacing one there), checking its type.
 * scale multiplies a number (ms to seconds). Returns 1 when moved, 0 when
 * absent, -1 on a type error.
 */
static int take(struct norm *n, cJSON *src, const char *skey, cJSON *dst,
		const char *dkey, enum want w, double scale)
{
	static const char *const what[] = {
		"must be a string", "must be an array of strings",
		"must be a table/object of strings", "must be a number",
		"must be true or false"};
	cJSON *v = cJSON_DetachItemFromObjectCaseSensitive(src, skey);

	if (!v)
		return 0;
	if (!is(v, w)) {
		cJSON_Delete(v);
		return fail(n, skey, what[w]);
	}
	if (w == W_NUM && scale != 1)
		cJSON_SetNumberValue(v, v->valuedouble * scale);
	cJSON_DeleteItemFromObjectCaseSensitive(dst, dkey);
	cJSON_AddItemToObject(dst, dkey, v);
	return 1;
}

/* One key a dialect renames: src[from] becomes dst[to] (see take). */
struct move {
	const char *from, *to;
	enum want w;
	double scale;
};

/* take() for each move of the table ms (ended by a NULL from), in order;
 * -1 at the first type error, else 0. */
static int take_all(struct norm *n, cJSON *src, cJSON *dst,
		    const struct move *ms)
{
	for (; ms->from; ms++)
		if (take(n, src, ms->from, dst, ms->to, ms->w, ms->scale) < 0)
			return -1;
	return 0;
}

/* Drop src[key] silently (what only the client's own UI means). */
static void drop(cJSON *src, const char *key)
{
	cJSON_DeleteItemFromObjectCaseSensitive(src, key);
}

/* Drop src[key] with a warning. */
static void drop_warn(struct norm *n, cJSON *src, const char *key,
		      const char *why)
{
	if (cJSON_GetObjectItemCaseSensitive(src, key))
		warn(n, key, why);
	drop(src, key);
}

/* "enabled": false becomes "disabled": true. */
static int enabled(struct norm *n, cJSON *src, cJSON *dst, const char *key)
{
	cJSON *v = cJSON_GetObjectItemCaseSensitive(src, key);

	if (!v)
		return 0;
	if (!cJSON_IsBool(v))
		return fail(n, key, "must be true or false");
	if (cJSON_IsFalse(v))
		cJSON_AddTrueToObject(dst, "disabled");
	drop(src, key);
	return 0;
}

/* Every key left in src: a warning. */
static void rest(struct norm *n, cJSON *src)
{
	const cJSON *v;

	cJSON_ArrayForEach(v, src)
		warn(n, v->string, "unknown key, ignored");
}

/* headers[name] = value (a header the file set itself wins). */
static void header(cJSON *dst, const char *name, const char *value)
{
	cJSON *h = cJSON_GetObjectItemCaseSensitive(dst, "headers");

	if (!h)
		h = cJSON_AddObjectToObject(dst, "headers");
	if (cJSON_IsObject(h) && !cJSON_GetObjectItemCaseSensitive(h, name))
		cJSON_AddStringToObject(h, name, value);
}

/* ---- Codex ---- */

static const struct move codex_keys[] = {
	{"command", "command", W_STR, 1},
	{"args", "args", W_ARR, 1},
	{"env", "env", W_OBJ, 1},
	{"cwd", "cwd", W_STR, 1},
	{"url", "url", W_STR, 1},
	{"http_headers", "headers", W_OBJ, 1},
	{"tool_timeout_sec", "timeout", W_NUM, 1},
	{"enabled_tools", "allowTools", W_ARR, 1},
	{"disabled_tools", "denyTools", W_ARR, 1},
	{NULL, NULL, W_STR, 1}};

static cJSON *codex(struct norm *n, cJSON *e)
{
	cJSON *d = cJSON_CreateObject(), *v, *h;
	char buf[320];

	if (take_all(n, e, d, codex_keys) < 0 ||
	    enabled(n, e, d, "enabled") < 0)
		goto bad;
	h = cJSON_GetObjectItemCaseSensitive(e, "env_http_headers");
	if (h && !cJSON_IsObject(h)) {
		fail(n, "env_http_headers", "must be a table of strings");
		goto bad;
	}
	cJSON_ArrayForEach(v, h) {
		if (!cJSON_IsString(v)) {
			fail(n, "env_http_headers", "must be a table of strings");
			goto bad;
		}
		snprintf(buf, sizeof buf, "${%.256s}", v->valuestring);
		header(d, v->string, buf);
	}
	drop(e, "env_http_headers");
	v = cJSON_GetObjectItemCaseSensitive(e, "bearer_token_env_var");
	if (v && !cJSON_IsString(v)) {
		fail(n, "bearer_token_env_var", "must be a string");
		goto bad;
	}
	if (v) {
		snprintf(buf, sizeof buf, "Bearer ${%.256s}", v->valuestring);
		header(d, "Authorization", buf);
	}
	drop(e, "bearer_token_env_var");
	if (cJSON_GetObjectItemCaseSensitive(d, "url"))
		cJSON_AddStringToObject(d, "type", "http");
	drop_warn(n, e, "startup_timeout_sec", "ignored (mcpfs has no "
		  "start-up timeout of its own; the call timeout covers it)");
	drop_warn(n, e, "startup_timeout_ms", "ignored (mcpfs has no "
		  "start-up timeout of its own; the call timeout covers it)");
	drop_warn(n, e, "env_vars", "ignored (servers get mcpfs's whole "
		  "environment)");
	rest(n, e);
	return d;
bad:
	cJSON_Delete(d);
	return NULL;
}

/* ---- OpenCode ---- */

/* OpenCode's {env:NAME} as ${NAME}, in every string of v. */
static void opencode_vars(cJSON *v)
{
	cJSON *c;

	if (cJSON_IsString(v)) {
		const char *s = v->valuestring, *p;
		size_t k = 0, len = strlen(s);
		char *o = malloc(len + 1);

		if (!o)
			return;
		for (p = s; *p; p++) {
			if (!strncmp(p, "{env:", 5) && (p == s || p[-1] != '$') &&
			    strchr(p, '}')) {
				o[k++] = '$';
				o[k++] = '{';
				p += 4;
				continue;
			}
			o[k++] = *p;
		}
		o[k] = 0;
		cJSON_SetValuestring(v, o);
		free(o);
		return;
	}
	cJSON_ArrayForEach(c, v)
		opencode_vars(c);
}

static const struct move opencode_keys[] = {
	{"environment", "env", W_OBJ, 1},
	{"url", "url", W_STR, 1},
	{"headers", "headers", W_OBJ, 1},
	{"timeout", "timeout", W_NUM, 0.001},
	{NULL, NULL, W_STR, 1}};

static cJSON *opencode(struct norm *n, cJSON *e)
{
	cJSON *d = cJSON_CreateObject(), *cmd, *a, *args;
	int first = 1;

	cmd = cJSON_GetObjectItemCaseSensitive(e, "command");
	if (cmd) {
		if (!cJSON_IsArray(cmd) || !cJSON_GetArraySize(cmd)) {
			fail(n, "command", "must be a non-empty array of strings");
			goto bad;
		}
		args = cJSON_AddArrayToObject(d, "args");
		cJSON_ArrayForEach(a, cmd) {
			if (!cJSON_IsString(a)) {
				fail(n, "command", "must be an array of strings");
				goto bad;
			}
			if (first)
				cJSON_AddStringToObject(d, "command",
							a->valuestring);
			else
				cJSON_AddItemToArray(args, cJSON_Duplicate(a, 0));
			first = 0;
		}
		drop(e, "command");
	}
	if (take_all(n, e, d, opencode_keys) < 0 ||
	    enabled(n, e, d, "enabled") < 0)
		goto bad;
	a = cJSON_GetObjectItemCaseSensitive(e, "type");
	if (a && (!cJSON_IsString(a) || (strcmp(a->valuestring, "local") &&
					 strcmp(a->valuestring, "remote")))) {
		fail(n, "type", "must be \"local\" or \"remote\"");
		goto bad;
	}
	drop(e, "type");
	a = cJSON_GetObjectItemCaseSensitive(e, "oauth");
	if (cJSON_IsFalse(a))
		cJSON_AddFalseToObject(d, "oauth");
	else
		drop_warn(n, e, "oauth", "ignored (mcpfs finds the "
			  "authorization server itself)");
	drop(e, "oauth");
	rest(n, e);
	opencode_vars(d);
	return d;
bad:
	cJSON_Delete(d);
	return NULL;
}

/* ---- Zed ---- */

/* The older form: command {path, args, env}. */
static const struct move zed_command_keys[] = {
	{"path", "command", W_STR, 1},
	{"args", "args", W_ARR, 1},
	{"env", "env", W_OBJ, 1},
	{NULL, NULL, W_STR, 1}};

static const struct move zed_keys[] = {
	{"command", "command", W_STR, 1},
	{"args", "args", W_ARR, 1},
	{"env", "env", W_OBJ, 1},
	{"url", "url", W_STR, 1},
	{"headers", "headers", W_OBJ, 1},
	{NULL, NULL, W_STR, 1}};

static cJSON *zed(struct norm *n, cJSON *e)
{
	cJSON *d = cJSON_CreateObject(), *cmd;

	cmd = cJSON_GetObjectItemCaseSensitive(e, "command");
	if (cJSON_IsObject(cmd)) { /* the older form: command {path, ...} */
		if (take_all(n, cmd, d, zed_command_keys) < 0)
			goto bad;
		drop(e, "command");
	}
	if (take_all(n, e, d, zed_keys) < 0 ||
	    enabled(n, e, d, "enabled") < 0)
		goto bad;
	drop(e, "source");
	if (!cJSON_GetObjectItemCaseSensitive(d, "command") &&
	    !cJSON_GetObjectItemCaseSensitive(d, "url")) {
		warn(n, "settings", "a server of a Zed extension: only Zed can "
		     "start it; left out");
		cJSON_Delete(d);
		return cJSON_CreateNull();
	}
	drop_warn(n, e, "settings", "ignored (settings of a Zed extension)");
	rest(n, e);
	return d;
bad:
	cJSON_Delete(d);
	return NULL;
}

/* ---- Goose ---- */

static const struct move goose_keys[] = {
	{"cmd", "command", W_STR, 1},
	{"args", "args", W_ARR, 1},
	{"envs", "env", W_OBJ, 1},
	{"cwd", "cwd", W_STR, 1},
	{"uri", "url", W_STR, 1},
	{"headers", "headers", W_OBJ, 1},
	{"timeout", "timeout", W_NUM, 1},
	{NULL, NULL, W_STR, 1}};

static cJSON *goose(struct norm *n, cJSON *e)
{
	cJSON *d = cJSON_CreateObject(), *t, *tools;
	char type[32];

	t = cJSON_GetObjectItemCaseSensitive(e, "type");
	snprintf(type, sizeof type, "%s", cJSON_IsString(t) ? t->valuestring
							    : "stdio");
	if (strcmp(type, "stdio") && strcmp(type, "sse") &&
	    strcmp(type, "streamable_http")) {
		warn(n, "type", "a Goose built-in extension: only Goose can "
		     "run it; left out");
		cJSON_Delete(d);
		return cJSON_CreateNull();
	}
	drop(e, "type");
	if (take_all(n, e, d, goose_keys) < 0 ||
	    enabled(n, e, d, "enabled") < 0)
		goto bad;
	if (strcmp(type, "stdio"))
		cJSON_AddStringToObject(d, "type", strcmp(type, "sse") ?
					"streamable-http" : "sse");
	tools = cJSON_GetObjectItemCaseSensitive(e, "available_tools");
	if (cJSON_GetArraySize(tools) > 0 &&
	    take(n, e, "available_tools", d, "allowTools", W_ARR, 1) < 0)
		goto bad;
	drop(e, "available_tools");
	drop(e, "name");
	drop(e, "description");
	drop(e, "display_name");
	drop(e, "bundled");
	drop_warn(n, e, "env_keys", "ignored (Goose reads these from its "
		  "keyring; a server gets mcpfs's environment)");
	rest(n, e);
	return d;
bad:
	cJSON_Delete(d);
	return NULL;
}

/* ---- the mcpServers family: Claude, Cursor, VS Code, Gemini, Windsurf,
 * Cline, in place ---- */

static const struct move gemini_keys[] = {
	{"timeout", "timeout", W_NUM, 0.001},
	{"includeTools", "allowTools", W_ARR, 1},
	{"excludeTools", "denyTools", W_ARR, 1},
	{NULL, NULL, W_STR, 1}};

static int family(struct norm *n, cJSON *e, int gemini)
{
	cJSON *v;

	if (!cJSON_IsObject(e))
		return 0; /* config.c says what is wrong */
	if (take(n, e, "serverUrl", e, "url", W_STR, 1) < 0) /* Windsurf */
		return -1;
	drop_warn(n, e, "autoApprove", "ignored (Cline's; mcpfs asks no "
		  "approval before a call: see allowTools and denyTools)");
	if (!gemini)
		return 0;
	v = cJSON_GetObjectItemCaseSensitive(e, "httpUrl");
	if (v) {
		if (take(n, e, "httpUrl", e, "url", W_STR, 1) < 0)
			return -1;
		cJSON_DeleteItemFromObjectCaseSensitive(e, "type");
		cJSON_AddStringToObject(e, "type", "streamable-http");
	} else if (cJSON_GetObjectItemCaseSensitive(e, "url") &&
		   !cJSON_GetObjectItemCaseSensitive(e, "type")) {
		cJSON_AddStringToObject(e, "type", "sse");
	}
	if (take_all(n, e, e, gemini_keys) < 0)
		return -1;
	drop_warn(n, e, "trust", "ignored (mcpfs asks no confirmation)");
	drop(e, "description");
	v = cJSON_GetObjectItemCaseSensitive(e, "oauth");
	if (v && !cJSON_IsBool(v))
		drop_warn(n, e, "oauth", "ignored (Gemini's form; mcpfs finds "
			  "the authorization server itself)");
	drop_warn(n, e, "authProviderType", "ignored");
	return 0;
}

/* Gemini's mcp.allowed / mcp.excluded: server names left out. */
static void gemini_lists(cJSON *root, cJSON *servers, struct norm *n)
{
	cJSON *mcp = cJSON_GetObjectItemCaseSensitive(root, "mcp");
	cJSON *allowed = cJSON_GetObjectItemCaseSensitive(mcp, "allowed");
	cJSON *excluded = cJSON_GetObjectItemCaseSensitive(mcp, "excluded");
	cJSON *e, *next, *x;

	for (e = servers->child; e; e = next) {
		int out = cJSON_IsArray(allowed);

		next = e->next;
		cJSON_ArrayForEach(x, allowed)
			if (cJSON_IsString(x) && !strcmp(x->valuestring, e->string))
				out = 0;
		cJSON_ArrayForEach(x, excluded)
			if (cJSON_IsString(x) && !strcmp(x->valuestring, e->string))
				out = 1;
		if (out) {
			n->name = e->string;
			warn(n, "", "left out by mcp.allowed/mcp.excluded");
			cJSON_Delete(cJSON_DetachItemViaPointer(servers, e));
		}
	}
}

/* ---- recognising a file ---- */

static const char *base(const char *path)
{
	const char *b = path ? strrchr(path, '/') : NULL;

	return b ? b + 1 : path ? path : "";
}

static int ends(const char *s, const char *tail)
{
	size_t a = strlen(s), b = strlen(tail);

	return a >= b && !strcmp(s + a - b, tail);
}

static int gemini_file(const char *path, const cJSON *servers)
{
	static const char *const keys[] = {"httpUrl", "includeTools",
					   "excludeTools", "trust"};
	const cJSON *e;
	size_t k;

	if (path && (strstr(path, "/.gemini/") || strstr(base(path), "gemini")))
		return 1;
	cJSON_ArrayForEach(e, servers)
		for (k = 0; k < sizeof keys / sizeof keys[0]; k++)
			if (cJSON_GetObjectItemCaseSensitive(e, keys[k]))
				return 1;
	return 0;
}

int dialect_syntax(const char *text, size_t len, const char *path)
{
	const char *b = base(path);
	size_t i = 0;

	if (ends(b, ".toml"))
		return DIALECT_TOML;
	if (ends(b, ".yaml") || ends(b, ".yml"))
		return DIALECT_YAML;
	if (ends(b, ".jsonc") || ends(b, "settings.json") ||
	    !strcmp(b, "opencode.json") || (path && strstr(path, "/.vscode/")))
		return DIALECT_JSONC;
	if (len >= 3 && !memcmp(text, "\xef\xbb\xbf", 3))
		i = 3;
	while (i < len && strchr(" \t\r\n", text[i]))
		i++;
	if (i < len && text[i] != '{' && text[i] != '[' && memchr(text, '=', len))
		return DIALECT_TOML;   /* key = value */
	if (i < len && text[i] == '[' && memchr(text, '=', len) &&
	    memchr(text, '\n', len))
		return DIALECT_TOML;   /* [table] */
	if (i < len && text[i] != '{' && text[i] != '[' && memchr(text, ':', len))
		return DIALECT_YAML;
	if (len < 100000 && memmem(text, len, "\"context_servers\"", 17))
		return DIALECT_JSONC;  /* Zed's */
	return DIALECT_JSON;
}

char *dialect_jsonc(const char *text, size_t len)
{
	char *o = malloc(len + 1);
	size_t i, last = (size_t)-1; /* the last ',' outside strings */

	if (!o)
		return NULL;
	memcpy(o, text, len);
	o[len] = 0;
	for (i = 0; i < len; i++) {
		char c = o[i];

		if (c == '"') {
			for (i++; i < len && o[i] != '"'; i++)
				if (o[i] == '\\')
					i++;
			last = (size_t)-1;
		} else if (c == '/' && i + 1 < len && o[i + 1] == '/') {
			while (i < len && o[i] != '\n')
				o[i++] = ' ';
		} else if (c == '/' && i + 1 < len && o[i + 1] == '*') {
			size_t s = i;

			for (i += 2; i + 1 < len && !(o[i] == '*' &&
						       o[i + 1] == '/'); i++)
				;
			if (i + 1 >= len) { /* unclosed: left to the scanner */
				i = s;
				continue;
			}
			for (i++; s <= i; s++)
				if (o[s] != '\n')
					o[s] = ' ';
		} else if (c == ',') {
			last = i;
		} else if ((c == '}' || c == ']') && last != (size_t)-1) {
			o[last] = ' ';
			last = (size_t)-1;
		} else if (!strchr(" \t\r\n", c)) {
			last = (size_t)-1;
		}
	}
	return o;
}

/* ---- the rewrite ---- */

struct dialect {
	const char *key;
	cJSON *(*entry)(struct norm *, cJSON *);
};

static const struct dialect dialects[] = {
	{"mcp_servers", codex},
	{"context_servers", zed},
	{"mcp", opencode},
	{"extensions", goose},
};

/* A file whose name says it is a client's settings (maybe with no MCP
 * servers in it). */
static int known_name(const char *path)
{
	const char *b = base(path);

	return !strcmp(b, "config.toml") || !strcmp(b, "config.yaml") ||
	       ends(b, "settings.json") || !strcmp(b, "opencode.json") ||
	       !strcmp(b, "opencode.jsonc");
}

int dialect_normalize(cJSON *root, int syntax, const char *path, char *at,
		      size_t atlen, cJSON *warnings, char **err)
{
	struct norm n = {.file = path ? path : "(config)", .warnings = warnings};
	cJSON *src = NULL, *e, *out, *servers;
	const struct dialect *d = NULL;
	size_t k;

	*err = NULL;
	*at = 0;
	servers = cJSON_GetObjectItemCaseSensitive(root, "mcpServers");
	if (!servers)
		servers = cJSON_GetObjectItemCaseSensitive(root, "servers");
	e = cJSON_GetObjectItemCaseSensitive(root, "mcp");
	if (!servers && cJSON_IsObject(cJSON_GetObjectItemCaseSensitive(e,
								"servers"))) {
		/* VS Code's user settings.json: "mcp": {"servers": ...} */
		servers = cJSON_DetachItemFromObjectCaseSensitive(e, "servers");
		cJSON_AddItemToObject(root, "servers", servers);
		snprintf(at, atlen, "mcp.servers");
	}
	if (cJSON_IsObject(servers)) {
		int gem = gemini_file(path, servers);

		n.label = *at ? at : servers->string;
		cJSON_ArrayForEach(e, servers) {
			n.name = e->string;
			if (family(&n, e, gem) < 0)
				goto fail;
		}
		if (gem)
			gemini_lists(root, servers, &n);
		return 0;
	}
	if (servers)
		return 0;
	for (k = 0; k < sizeof dialects / sizeof dialects[0] && !src; k++) {
		src = cJSON_GetObjectItemCaseSensitive(root, dialects[k].key);
		d = &dialects[k];
		if (src && !cJSON_IsObject(src))
			src = NULL;
		if (src && d->entry == goose && syntax != DIALECT_YAML)
			src = NULL;
		if (src && d->entry == opencode && gemini_file(path, NULL))
			src = NULL;
	}
	if (!src) {
		if (!known_name(path) && syntax == DIALECT_JSON)
			return 0; /* config.c: mcpServers missing */
		cJSON_AddItemToArray(warnings, cJSON_CreateString(
			"no MCP servers in this file"));
		cJSON_AddObjectToObject(root, "mcpServers");
		return 0;
	}
	n.label = d->key;
	snprintf(at, atlen, "%s", d->key);
	out = cJSON_CreateObject();
	cJSON_ArrayForEach(e, src) {
		cJSON *c;

		n.name = e->string;
		if (!cJSON_IsObject(e)) {
			fail(&n, NULL, "must be a table/object");
			cJSON_Delete(out);
			goto fail;
		}
		c = d->entry(&n, e);
		if (!c) {
			cJSON_Delete(out);
			goto fail;
		}
		if (cJSON_IsNull(c))
			cJSON_Delete(c);
		else
			cJSON_AddItemToObject(out, e->string, c);
	}
	cJSON_AddItemToObject(root, "mcpServers", out);
	return 0;
fail:
	*err = n.err ? n.err : strdup("out of memory");
	return -1;
}
