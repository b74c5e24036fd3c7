/*
 * configfmt.c - what differs between the config files MCP clients keep:
 * Claude Desktop's claude_desktop_config.json, Cursor's mcp.json and
 * Claude Code's .mcp.json ("mcpServers"), Claude Code's ~/.claude.json
 * (top-level "mcpServers", and "projects"[DIR]."mcpServers"), and VS
 * Code's .vscode/mcp.json ("servers", ${workspaceFolder}, ${env:VAR},
 * ${input:ID}, envFile). config.c calls it for variable expansion, env
 * files, the known keys of an entry and where the servers are; this file
 * calls nothing of config.c.
 *
 * Messages never quote values: a variable's name or an input's id, a file
 * name and a line number at most.
 */
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "configfmt.h"
#include "gbuf.h"

char *cfmt_str(const char *f, ...)
{
	va_list ap;
	char *s;
	int r;

	va_start(ap, f);
	r = vasprintf(&s, f, ap);
	va_end(ap);
	return r < 0 ? NULL : s;
}

/* ---- ${...} ---- */

static int var_start(char c)
{
	return c == '_' || (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z');
}

static int var_char(char c)
{
	return var_start(c) || (c >= '0' && c <= '9');
}

static const char bad_ref[] =
	"bad ${...}: expected ${NAME} or ${NAME:-default}";
static const char open_ref[] =
	"unterminated ${ (expected ${NAME} or ${NAME:-default})";

static size_t name_len(const char *s)
{
	size_t n = 0;

	if (!var_start(*s))
		return 0;
	while (var_char(s[n]))
		n++;
	return n;
}

/*
 * One reference, the text r of length n between "${" and "}": appends its
 * value to b. Returns 0, or -1 with *err.
 */
static int expand_ref(struct gbuf *b, const char *r, size_t n,
		      const struct mcp_config_ctx *ctx, char **err,
		      char **unset)
{
	size_t k = name_len(r);
	const char *val;
	char *var;
	int dflt = 0;

	if (k > 0 && k < n && r[k] == ':' && !(k + 1 < n && r[k + 1] == '-')) {
		/* ${namespace:...}, VS Code's */
		if (k == 3 && !strncmp(r, "env", 3) && name_len(r + 4) == n - 4) {
			r += 4;
			n -= 4;
			k = n;
		} else if (k == 5 && !strncmp(r, "input", 5)) {
			*err = cfmt_str("${input:%.*s}: VS Code asks the "
					"user for this input and mcpfs "
					"cannot; write the value in the file "
					"or take it from the environment "
					"with ${env:NAME}",
					(int)(n - 6 > 64 ? 64 : n - 6), r + 6);
			return -1;
		} else {
			*err = cfmt_str("${%.*s:...}: variables of this "
					"kind are not supported (only "
					"${env:NAME}, ${workspaceFolder} and "
					"${userHome})",
					(int)(k > 32 ? 32 : k), r);
			return -1;
		}
	}
	if (k == 0 || (k < n && (k + 1 >= n || r[k] != ':' || r[k + 1] != '-'))) {
		*err = strdup(bad_ref);
		return -1;
	}
	dflt = k < n;
	if (ctx && ctx->workspace && k == n && n == 15 &&
	    !strncmp(r, "workspaceFolder", 15)) {
		gbuf_add(b, ctx->workspace, strlen(ctx->workspace));
		return 0;
	}
	var = strndup(r, k);
	if (!var) {
		*err = strdup("out of memory");
		return -1;
	}
	if (!strcmp(var, "userHome"))
		val = getenv("HOME");
	else
		val = getenv(var);
	if (!val && !dflt && unset && !*unset)
		*unset = strdup(var); /* empty, and the caller warns */
	free(var);
	if (dflt && (!val || !*val))
		gbuf_add(b, r + k + 2, n - k - 2);
	else if (val)
		gbuf_add(b, val, strlen(val));
	return 0;
}

char *cfmt_expand(const char *s, const struct mcp_config_ctx *ctx,
		  char **err)
{
	return cfmt_expand_note(s, ctx, err, NULL);
}

char *cfmt_expand_note(const char *s, const struct mcp_config_ctx *ctx,
		       char **err, char **unset)
{
	struct gbuf b = {0};
	const char *p = s, *q, *end;
	char *out;

	*err = NULL;
	while ((q = strstr(p, "${")) != NULL) {
		gbuf_add(&b, p, (size_t)(q - p));
		end = strchr(q + 2, '}');
		if (!end) {
			gbuf_free(&b);
			*err = strdup(open_ref);
			return NULL;
		}
		if (expand_ref(&b, q + 2, (size_t)(end - q - 2), ctx, err,
			       unset) < 0) {
			gbuf_free(&b);
			if (!*err)
				*err = strdup("out of memory");
			return NULL;
		}
		p = end + 1;
	}
	gbuf_add(&b, p, strlen(p));
	out = gbuf_take(&b);
	if (!out)
		*err = strdup("out of memory");
	return out;
}

/* ---- envFile ---- */

static int key_cmp(const char *x, const char *y)
{
	for (;; x++, y++) {
		int a = *x == '=' ? 0 : (unsigned char)*x;
		int c = *y == '=' ? 0 : (unsigned char)*y;

		if (a != c || !a)
			return a - c;
	}
}

static int entry_cmp(const void *a, const void *b)
{
	return key_cmp(*(const char *const *)a, *(const char *const *)b);
}

static int env_has(char **env, size_t n, const char *kv)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (!key_cmp(env[i], kv))
			return 1;
	return 0;
}

/* The value of a line after "=": trimmed, or unquoted ('...' as is,
 * "..." with \n, \" and \\). NULL on an unclosed quote. */
static char *env_value(char *v)
{
	char *end = v + strlen(v), *o, *i;

	while (end > v && isspace((unsigned char)end[-1]))
		*--end = '\0';
	while (isspace((unsigned char)*v))
		v++;
	if (*v != '"' && *v != '\'')
		return strdup(v);
	if (end - v < 2 || end[-1] != *v)
		return NULL;
	end[-1] = '\0';
	if (*v == '\'')
		return strdup(v + 1);
	for (o = i = v + 1; *i; i++) {
		if (*i == '\\' && (i[1] == 'n' || i[1] == '"' || i[1] == '\\')) {
			i++;
			*o++ = *i == 'n' ? '\n' : *i;
		} else {
			*o++ = *i;
		}
	}
	*o = '\0';
	return strdup(v + 1);
}

/* One line: appended to env unless a comment, blank or a key already set. */
static int env_line(char *line, char ***env, size_t *n, size_t *cap)
{
	char *key = line, *eq, *val, *kv, **ne;
	size_t k;

	while (isspace((unsigned char)*key))
		key++;
	if (!*key || *key == '#')
		return 0;
	if (!strncmp(key, "export ", 7))
		key += 7;
	eq = strchr(key, '=');
	if (!eq)
		return -1;
	k = (size_t)(eq - key);
	while (k > 0 && isspace((unsigned char)key[k - 1]))
		k--;
	if (!k || name_len(key) != k)
		return -1;
	val = env_value(eq + 1);
	if (!val)
		return -1;
	kv = cfmt_str("%.*s=%s", (int)k, key, val);
	free(val);
	if (!kv)
		return -2;
	if (env_has(*env, *n, kv)) {
		free(kv);
		return 0;
	}
	/* room for kv and the NULL that ends env */
	if (!(ne = gbuf_grow(*env, cap, *n + 2, sizeof *ne, *n + 8))) {
		free(kv);
		return -2;
	}
	*env = ne;
	(*env)[(*n)++] = kv;
	(*env)[*n] = NULL;
	return 0;
}

int cfmt_env_file(const char *path, const struct mcp_config_ctx *ctx,
		  char ***env, size_t *n, char **err)
{
	char *full = NULL, *line = NULL;
	size_t cap = *n + 1, lcap = 0, lineno = 0;
	const char *shown = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
	ssize_t got;
	FILE *f;
	int r = 0;

	if (path[0] != '/' && ctx && ctx->workspace)
		full = cfmt_str("%s/%s", ctx->workspace, path);
	f = fopen(full ? full : path, "r");
	free(full);
	if (!f) {
		*err = cfmt_str("env file %s: %s", shown, strerror(errno));
		return -1;
	}
	while (r == 0 && (got = getline(&line, &lcap, f)) >= 0) {
		lineno++;
		if (got > 0 && line[got - 1] == '\n')
			line[got - 1] = '\0';
		r = env_line(line, env, n, &cap);
	}
	free(line);
	fclose(f);
	if (r == -1)
		*err = cfmt_str("env file %s:%zu: expected NAME=VALUE", shown,
				lineno);
	else if (r < 0)
		*err = strdup("out of memory");
	if (r < 0)
		return -1;
	qsort(*env, *n, sizeof **env, entry_cmp);
	return 0;
}

/* ---- keys and where the servers are ---- */

int cfmt_known_key(const char *key)
{
	static const char *const known[] = {
		"command", "args", "env", "cwd", "url", "headers", "type",
		"roots", "timeout", "idleTimeout", "disabled", "envFile", "warm",
		"elicitation", "sampling", "oauth", "era", "allowTools",
		"denyTools", "readOnly", "restart",
	};
	size_t i;

	for (i = 0; i < sizeof known / sizeof known[0]; i++)
		if (!strcmp(key, known[i]))
			return 1;
	return 0;
}

int cfmt_era(const cJSON *v, int *era)
{
	static const char *const names[] = {"auto", "modern", "legacy"};
	int i;

	*era = MCP_ERA_AUTO;
	if (!v)
		return 0;
	for (i = 0; i < 3; i++)
		if (cJSON_IsString(v) && !strcmp(v->valuestring, names[i])) {
			*era = i;
			return 0;
		}
	return -1;
}

int cfmt_restart(const cJSON *v, int *silent)
{
	*silent = 0;
	if (!v || (cJSON_IsString(v) && !strcmp(v->valuestring, "report")))
		return 0;
	if (cJSON_IsString(v) && !strcmp(v->valuestring, "silent")) {
		*silent = 1;
		return 0;
	}
	return -1;
}

const cJSON *cfmt_servers(const cJSON *root, const struct mcp_config_ctx *ctx,
			  char *at, size_t atlen, const char **note)
{
	const cJSON *s, *projects = cJSON_GetObjectItemCaseSensitive(root,
								"projects");

	*note = NULL;
	if (ctx && ctx->project_pass) {
		*note = "";
		if (!cJSON_IsObject(projects))
			return NULL; /* not Claude Code's file: nothing here */
		s = cJSON_GetObjectItemCaseSensitive(projects, ctx->project);
		if (!cJSON_IsObject(s)) {
			*note = "--project: no such project in this file "
				"(projects is keyed by absolute path)";
			return NULL;
		}
		snprintf(at, atlen, "projects[\"%.400s\"].mcpServers",
			 ctx->project);
		s = cJSON_GetObjectItemCaseSensitive(s, "mcpServers");
		if (!s)
			*note = "";
		return s;
	}
	snprintf(at, atlen, "mcpServers");
	s = cJSON_GetObjectItemCaseSensitive(root, "mcpServers");
	if (s)
		return s;
	snprintf(at, atlen, "servers");
	s = cJSON_GetObjectItemCaseSensitive(root, "servers");
	if (s)
		return s;
	if (cJSON_IsObject(projects)) {
		/* ~/.claude.json with no user-wide servers */
		*note = ctx && ctx->project ? "" :
			"no top-level mcpServers (--project DIR serves the "
			"servers of that project)";
		snprintf(at, atlen, "mcpServers");
	}
	return NULL;
}

/* config.h's expansion without a file around it (the unit tests and the
 * fuzzer use it); *err points to a static copy of the message. */
char *mcp_expand(const char *s, const char **err)
{
	static char msg[256];
	char *e = NULL, *out = cfmt_expand(s, NULL, &e);

	if (!out) {
		snprintf(msg, sizeof msg, "%s", e ? e : "out of memory");
		free(e);
		*err = msg;
	}
	return out;
}

/* ---- names (of servers, threads, executables) ---- */

#define NAME_MAX_LEN 255

const char *mcp_server_name_check(const char *name)
{
	const unsigned char *p;

	if (!name || !*name)
		return "server name must not be empty";
	if (name[0] == '.')
		return "server name must not start with '.'";
	if (!strcmp(name, "README.md"))
		return "server name README.md is taken by the mount's guide";
	if (strlen(name) > NAME_MAX_LEN)
		return "server name is longer than 255 bytes";
	for (p = (const unsigned char *)name; *p; p++) {
		if (*p == '/')
			return "server name must not contain '/'";
		if (*p < 0x20 || *p == 0x7f)
			return "server name must not contain control characters";
	}
	return NULL;
}

int mcp_thread_name_valid(const char *name)
{
	size_t n;

	if (!name || !*name || name[0] == '.')
		return 0;
	for (n = 0; name[n]; n++) {
		if (n >= 128)
			return 0;
		if (!isalnum((unsigned char)name[n]) && name[n] != '.' &&
		    name[n] != '_' && name[n] != '-')
			return 0;
	}
	return 1;
}

const char *mcp_base_name(const char *path)
{
	const char *b = strrchr(path, '/');

	return b ? b + 1 : path;
}
