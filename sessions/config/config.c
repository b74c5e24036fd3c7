/*
 * config.c - reads servers.json: the "mcpServers" object of Claude Desktop,
 * Cursor and .mcp.json, or VS Code's "servers". The text becomes a tree in
 * its syntax (JSON, JSON with comments, TOML, YAML: yamlconf.c) and the
 * dialects of other clients are rewritten into this form (dialect.c). Each enabled stdio entry
 * becomes a struct mcp_server_conf in file order with ${VAR} expanded:
 * stdio entries (command) and HTTP entries (url: Streamable HTTP, or the
 * 2024-11-05 HTTP+SSE transport with type sse); disabled ones are left
 * out silently. Errors name the file, the line or the field path
 * ("mcpServers.foo.args[2]") and the problem.
 *
 * The dialects of other clients (where the servers are, ${env:VAR},
 * ${workspaceFolder}, ${input:ID}, envFile, the known keys of an entry:
 * unknown ones are a warning) are configfmt.c's; a parse takes its
 * mcp_config_ctx.
 *
 * Messages never quote values from the tree (they may be secrets); only a
 * syntax error quotes a few bytes of the text around it.
 *
 * env and headers entries are kept sorted by name, so the digest and the
 * launch comparison do not depend on their order in the file.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "config.h"
#include "configfmt.h"
#include "dialect.h"
#include "gbuf.h"

static int is_alnum(unsigned char c)
{
	return (c >= '0' && c <= '9') || (c >= 'A' && c <= 'Z') ||
	       (c >= 'a' && c <= 'z');
}

/* Names are checked in configfmt.c; ${VAR} expansion and the dialects of other clients: configfmt.c */

/* ---- messages ---- */

/* A field path, e.g. mcpServers.foo.args[2]; odd names are quoted.
 * Overlong paths are cut short. */
struct path {
	char s[512];
};

static void path_cat(struct path *p, size_t *n, const char *s, size_t len)
{
	size_t room = sizeof(p->s) - 1 - *n;

	if (len > room)
		len = room;
	memcpy(p->s + *n, s, len);
	*n += len;
	p->s[*n] = '\0';
}

static void path_key(struct path *dst, const struct path *base,
		     const char *key)
{
	const unsigned char *k = (const unsigned char *)key;
	int plain = *k != '\0';
	size_t n = 0, i;
	char hex[8];

	for (i = 0; k[i]; i++)
		if (!is_alnum(k[i]) && k[i] != '_' && k[i] != '-')
			plain = 0;
	path_cat(dst, &n, base->s, strlen(base->s));
	if (plain) {
		path_cat(dst, &n, ".", 1);
		path_cat(dst, &n, key, strlen(key));
		return;
	}
	path_cat(dst, &n, "[\"", 2);
	for (i = 0; k[i] && i < 64; i++) {
		if (k[i] < 0x20 || k[i] >= 0x7f || k[i] == '"' ||
		    k[i] == '\\') {
			snprintf(hex, sizeof(hex), "\\x%02x", k[i]);
			path_cat(dst, &n, hex, 4);
		} else {
			path_cat(dst, &n, (const char *)k + i, 1);
		}
	}
	if (k[i])
		path_cat(dst, &n, "...", 3);
	path_cat(dst, &n, "\"]", 2);
}

static void path_index(struct path *dst, const struct path *base, size_t i)
{
	char idx[32];
	size_t n = 0;

	snprintf(idx, sizeof(idx), "[%zu]", i);
	path_cat(dst, &n, base->s, strlen(base->s));
	path_cat(dst, &n, idx, strlen(idx));
}

/* ---- parse state ---- */

struct parse {
	const char *file;
	const struct mcp_config_ctx *ctx; /* the file's dialect, or NULL */
	char *err;                    /* first error, malloc'd */
	struct mcp_config *cfg;
	struct mcp_server_conf **tail;
	char at[128];                 /* where a dialect keeps its servers */
	const char *server;           /* the entry being read, or NULL */
	char *left_out;               /* why it is left out (${input:}) */
};

static int field_error(struct parse *ps, const struct path *field,
		       const char *problem)
{
	if (!ps->err)
		ps->err = cfmt_str("%s: %s: %s", ps->file, field->s, problem);
	return -1;
}

static int add_warning(struct parse *ps, char *w);

static int oom(struct parse *ps)
{
	if (!ps->err)
		ps->err = cfmt_str("%s: out of memory", ps->file);
	return -1;
}

/* ---- fields ---- */

static int get_string(struct parse *ps, const cJSON *v, const struct path *at,
		      char **out)
{
	char *why = NULL;

	char *unset = NULL;

	if (!cJSON_IsString(v))
		return field_error(ps, at, "must be a string");
	*out = cfmt_expand_note(v->valuestring, ps->ctx, &why, &unset);
	if (unset && ps->server &&
	    add_warning(ps, cfmt_str("server %s: %s: ${%s} is not set and has "
				     "no default: it is empty (%s)", ps->server,
				     at->s, unset, ps->file)) < 0) {
		free(unset);
		free(*out);
		*out = NULL;
		return -1;
	}
	free(unset);
	if (!*out && why && ps->server && !strncmp(why, "${input:", 8)) {
		if (!ps->left_out) /* VS Code's prompt: this server only */
			ps->left_out = why;
		else
			free(why);
		*out = strdup("");
		return *out ? 0 : oom(ps);
	}
	if (!*out) {
		field_error(ps, at, why ? why : "out of memory");
		free(why);
		return -1;
	}
	return 0;
}

static int get_seconds(struct parse *ps, const cJSON *obj, const char *key,
		       const struct path *base, double *out)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
	struct path at;

	*out = -1;
	if (!v)
		return 0;
	path_key(&at, base, key);
	if (!cJSON_IsNumber(v) || !isfinite(v->valuedouble) ||
	    v->valuedouble < 0)
		return field_error(ps, &at, "must be a number >= 0 (seconds)");
	*out = v->valuedouble;
	return 0;
}

/* A true|false field into *out; dflt when the key is absent. */
static int get_bool(struct parse *ps, const cJSON *obj, const char *key,
		    const struct path *base, int dflt, int *out)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
	struct path at;

	*out = v ? cJSON_IsTrue(v) : dflt;
	if (!v || cJSON_IsBool(v))
		return 0;
	path_key(&at, base, key);
	return field_error(ps, &at, "must be true or false");
}

/* "warm": spare sessions, 0 to MAX_WARM. */
#define MAX_WARM 16
static int get_warm(struct parse *ps, const cJSON *obj,
		    const struct path *base, unsigned *out)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, "warm");
	struct path at;

	*out = 0;
	if (!v)
		return 0;
	path_key(&at, base, "warm");
	if (!cJSON_IsNumber(v) || v->valuedouble != (int)v->valuedouble ||
	    v->valuedouble < 0 || v->valuedouble > MAX_WARM)
		return field_error(ps, &at, "must be a whole number from 0 "
				   "to 16 (spare sessions)");
	*out = (unsigned)v->valuedouble;
	return 0;
}

/*
 * obj[key] (into *v), a list of strings (object 0: an array; 1: an
 * object), at its path *at, with *out a zeroed vector with room for its
 * entries and a NULL after them. 1 when there, 0 when absent, -1 when it
 * is not a list of that kind or memory is short (with ps->err).
 */
static int get_vector(struct parse *ps, const cJSON *obj,
		      const struct path *base, const char *key, int object,
		      struct path *at, const cJSON **v, char ***out)
{
	*v = cJSON_GetObjectItemCaseSensitive(obj, key);
	if (!*v)
		return 0;
	path_key(at, base, key);
	if (object ? !cJSON_IsObject(*v) : !cJSON_IsArray(*v))
		return field_error(ps, at, object ?
				   "must be an object of strings" :
				   "must be an array of strings");
	*out = calloc((size_t)cJSON_GetArraySize(*v) + 1, sizeof(char *));
	if (!*out)
		return oom(ps);
	return 1;
}

/* obj[key], if there: an array of strings, each through get (which sets
 * the string or fails with a message), into *out (NULL-terminated), *n. */
static int get_strings(struct parse *ps, const cJSON *obj,
		       const struct path *base, const char *key, char ***out,
		       size_t *n,
		       int (*get)(struct parse *, const cJSON *,
				  const struct path *, char **))
{
	const cJSON *v, *a;
	struct path at, el;
	int r = get_vector(ps, obj, base, key, 0, &at, &v, out);

	if (r <= 0)
		return r;
	cJSON_ArrayForEach(a, v) {
		path_index(&el, &at, *n);
		if (get(ps, a, &el, &(*out)[*n]) < 0)
			return -1;
		(*n)++;
	}
	return 0;
}

/* Compare two "KEY<sep>value" entries by key; sep is '=' (env) or ':'
 * (headers, whose names compare case-insensitively). Keys never hold sep. */
static int pair_cmp(const char *x, const char *y, char sep, int nocase)
{
	for (;; x++, y++) {
		int a = (unsigned char)*x, b = (unsigned char)*y;

		a = a == sep ? 0 : a; /* the key ends at sep */
		b = b == sep ? 0 : b;
		if (nocase && a >= 'A' && a <= 'Z')
			a += 'a' - 'A';
		if (nocase && b >= 'A' && b <= 'Z')
			b += 'a' - 'A';
		if (a != b || !a)
			return a - b;
	}
}

static int env_cmp(const void *a, const void *b)
{
	return pair_cmp(*(const char *const *)a, *(const char *const *)b, '=',
			0);
}

static int header_cmp(const void *a, const void *b)
{
	return pair_cmp(*(const char *const *)a, *(const char *const *)b, ':',
			1);
}

/* HTTP header names are tokens (RFC 9110). */
static int header_name_ok(const char *s)
{
	if (!*s)
		return 0;
	for (; *s; s++)
		if (!is_alnum((unsigned char)*s) &&
		    !strchr("!#$%&'*+-.^_`|~", *s))
			return 0;
	return 1;
}

/*
 * An object of strings (env, headers) as a sorted vector of
 * "KEY<sep>value" entries, values expanded. sep is "=" or ": ".
 */
static int get_map(struct parse *ps, const cJSON *obj,
		   const struct path *base, const char *key, const char *sep,
		   char ***out, size_t *n)
{
	const cJSON *v, *e;
	int hdr = *sep == ':';
	int (*cmp)(const void *, const void *) = hdr ? header_cmp : env_cmp;
	struct path at, el;
	char *val, *name;
	size_t i;
	int r = get_vector(ps, obj, base, key, 1, &at, &v, out);

	if (r <= 0)
		return r;
	cJSON_ArrayForEach(e, v) {
		path_key(&el, &at, e->string);
		if (hdr ? !header_name_ok(e->string)
			: !*e->string || strchr(e->string, '='))
			return field_error(ps, &el, hdr ?
				"header name must be a token ([A-Za-z0-9!#$%&'*+.^_`|~-])" :
				"variable name must be non-empty, without '='");
		if (get_string(ps, e, &el, &val) < 0)
			return -1;
		if (hdr && strpbrk(val, "\r\n")) {
			free(val);
			return field_error(ps, &el,
					   "header value must not hold CR or LF");
		}
		(*out)[*n] = cfmt_str("%s%s%s", e->string, sep, val);
		free(val);
		if (!(*out)[*n])
			return oom(ps);
		(*n)++;
	}
	qsort(*out, *n, sizeof(char *), cmp);
	for (i = 1; i < *n; i++) {
		if (cmp(&(*out)[i - 1], &(*out)[i]) == 0) {
			name = strndup((*out)[i], strcspn((*out)[i], sep));
			if (!name)
				return oom(ps);
			path_key(&el, &at, name);
			free(name);
			return field_error(ps, &el, hdr ? "header set twice" :
						   "variable set twice");
		}
	}
	return 0;
}

static int uri_plain(unsigned char c)
{
	return is_alnum(c) || strchr("-._~/!$&'()*+,;=:@", c);
}

/* An absolute path as a file:// URI, percent-encoding what URIs forbid. */
static char *file_uri(const char *path)
{
	struct gbuf b = {0};
	const unsigned char *p;
	char hex[4];

	gbuf_add(&b, "file://", 7);
	for (p = (const unsigned char *)path; *p; p++) {
		if (uri_plain(*p)) {
			gbuf_add(&b, (const char *)p, 1);
		} else {
			snprintf(hex, sizeof(hex), "%%%02X", *p);
			gbuf_add(&b, hex, 3);
		}
	}
	return gbuf_take(&b);
}

/* A root: an absolute path (made a file:// URI) or a URI. */
static int get_root(struct parse *ps, const cJSON *r, const struct path *at,
		    char **out)
{
	if (!cJSON_IsString(r))
		return field_error(ps, at, "must be a string");
	if (r->valuestring[0] == '/')
		*out = file_uri(r->valuestring);
	else if (strstr(r->valuestring, "://"))
		*out = strdup(r->valuestring);
	else
		return field_error(ps, at, "must be an absolute path or a URI");
	return *out ? 0 : oom(ps);
}

/*
 * The transport an entry asks for (MCP_TRANSPORT_*); -1 after a field
 * error.
 */
static int transport_of(struct parse *ps, const cJSON *e,
			const struct path *at)
{
	const cJSON *type = cJSON_GetObjectItemCaseSensitive(e, "type");
	const char *t = cJSON_GetStringValue(type);
	struct path f;

	if (!type)
		return cJSON_GetObjectItemCaseSensitive(e, "url") ?
		       MCP_TRANSPORT_HTTP_OR_SSE : MCP_TRANSPORT_STDIO;
	if (t && !strcmp(t, "stdio"))
		return MCP_TRANSPORT_STDIO;
	if (t && !strcmp(t, "http"))
		return MCP_TRANSPORT_HTTP_OR_SSE;
	if (t && (!strcmp(t, "streamable-http") ||
		  !strcmp(t, "streamableHttp")))
		return MCP_TRANSPORT_HTTP;
	if (t && !strcmp(t, "sse"))
		return MCP_TRANSPORT_SSE;
	path_key(&f, at, "type");
	return field_error(ps, &f, "must be \"stdio\", \"http\" or \"sse\"");
}

/* Keep w (malloc'd, or NULL: out of memory) in the config's warnings. */
static int add_warning(struct parse *ps, char *w)
{
	char **nw;

	if (!w)
		return oom(ps);
	nw = realloc(ps->cfg->warnings,
		     (ps->cfg->nwarnings + 1) * sizeof(char *));
	if (!nw) {
		free(w);
		return oom(ps);
	}
	ps->cfg->warnings = nw;
	nw[ps->cfg->nwarnings++] = w;
	return 0;
}

static int name_taken(const struct parse *ps, const char *name)
{
	const struct mcp_server_conf *sc;

	for (sc = ps->cfg->servers; sc; sc = sc->next)
		if (!strcmp(sc->name, name))
			return 1;
	return 0;
}

/* VS Code's envFile: its variables join env (env wins). */
static int env_file(struct parse *ps, struct mcp_server_conf *sc,
		    const cJSON *e, const struct path *at)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(e, "envFile");
	char *file, *why = NULL;
	struct path f;
	int r;

	if (!v)
		return 0;
	path_key(&f, at, "envFile");
	if (get_string(ps, v, &f, &file) < 0)
		return -1;
	r = cfmt_env_file(file, ps->ctx, &sc->env, &sc->nenv, &why);
	free(file);
	if (r < 0)
		field_error(ps, &f, why ? why : "out of memory");
	free(why);
	return r;
}

static int fill_stdio(struct parse *ps, struct mcp_server_conf *sc,
		      const cJSON *e, const struct path *at)
{
	const cJSON *v;
	struct path f;

	v = cJSON_GetObjectItemCaseSensitive(e, "command");
	path_key(&f, at, "command");
	if (!v)
		return field_error(ps, &f, "missing (required for stdio servers)");
	if (get_string(ps, v, &f, &sc->command) < 0)
		return -1;
	if (!*sc->command)
		return field_error(ps, &f, "must not be empty");
	if (get_strings(ps, e, at, "args", &sc->args, &sc->nargs,
			get_string) < 0 ||
	    get_map(ps, e, at, "env", "=", &sc->env, &sc->nenv) < 0 ||
	    env_file(ps, sc, e, at) < 0)
		return -1;
	v = cJSON_GetObjectItemCaseSensitive(e, "cwd");
	if (v) {
		path_key(&f, at, "cwd");
		if (get_string(ps, v, &f, &sc->cwd) < 0)
			return -1;
		if (!*sc->cwd)
			return field_error(ps, &f, "must not be empty");
	}
	return 0;
}

static int fill_http(struct parse *ps, struct mcp_server_conf *sc,
		     const cJSON *e, const struct path *at)
{
	static const char *const stdio_only[] = {"command", "args", "env",
						 "cwd"};
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(e, "url");
	struct path f;
	char *why = NULL;
	size_t i;

	for (i = 0; i < sizeof stdio_only / sizeof stdio_only[0]; i++) {
		if (cJSON_GetObjectItemCaseSensitive(e, stdio_only[i])) {
			path_key(&f, at, stdio_only[i]);
			return field_error(ps, &f, "only for stdio servers, "
					   "not with url");
		}
	}
	path_key(&f, at, "url");
	if (!v)
		return field_error(ps, &f, "missing (required for http servers)");
	if (get_string(ps, v, &f, &sc->url) < 0)
		return -1;
	if (strncmp(sc->url, "http://", 7) && strncmp(sc->url, "https://", 8))
		return field_error(ps, &f, "must start with http:// or https://");
	if (strpbrk(sc->url, " \t\r\n"))
		return field_error(ps, &f, "must not hold white space");
	v = cJSON_GetObjectItemCaseSensitive(e, "oauth");
	path_key(&f, at, "oauth");
	if (v && mcp_oauth_conf_parse(v, ps->ctx, &sc->oauth, &why) < 0) {
		field_error(ps, &f, why ? why : "out of memory");
		free(why);
		return -1;
	}
	return get_map(ps, e, at, "headers", ": ", &sc->headers,
		       &sc->nheaders);
}

static int fill_server(struct parse *ps, struct mcp_server_conf *sc,
		       const cJSON *e, const struct path *at, int transport)
{
	const cJSON *v;
	struct path f;

	sc->transport = transport;
	if ((transport != MCP_TRANSPORT_STDIO ? fill_http(ps, sc, e, at)
					      : fill_stdio(ps, sc, e, at)) < 0)
		return -1;
	if (get_strings(ps, e, at, "roots", &sc->roots, &sc->nroots,
			get_root) < 0 ||
	    get_seconds(ps, e, "timeout", at, &sc->timeout) < 0 ||
	    get_seconds(ps, e, "idleTimeout", at, &sc->idle_timeout) < 0 ||
	    get_bool(ps, e, "elicitation", at, 1, &sc->elicitation) < 0 ||
	    get_bool(ps, e, "sampling", at, 0, &sc->sampling) < 0 ||
	    get_bool(ps, e, "readOnly", at, 0, &sc->read_only) < 0 ||
	    get_strings(ps, e, at, "allowTools", &sc->allow_tools,
			&sc->nallow, get_string) < 0 ||
	    get_strings(ps, e, at, "denyTools", &sc->deny_tools,
			&sc->ndeny, get_string) < 0 ||
	    get_warm(ps, e, at, &sc->warm) < 0)
		return -1;
	if (cfmt_era(cJSON_GetObjectItemCaseSensitive(e, "era"), &sc->era)) {
		path_key(&f, at, "era");
		return field_error(ps, &f, "must be auto, modern or legacy");
	}
	v = cJSON_GetObjectItemCaseSensitive(e, "restart");
	if (cfmt_restart(v, &sc->restart_silent) < 0) {
		path_key(&f, at, "restart");
		if (add_warning(ps, cfmt_str("server %s: %s: unknown value "
					     "'%.40s', ignored: a lost state "
					     "is reported (%s)", sc->name, f.s,
					     cJSON_IsString(v) ? v->valuestring
					     : "(not a string)", ps->file)))
			return -1;
	}
	mcp_conf_digest(sc);
	return 0;
}

static int parse_entry(struct parse *ps, const cJSON *e,
		       const struct path *servers)
{
	const char *name = e->string, *why;
	struct mcp_server_conf *sc;
	const cJSON *v;
	int transport, disabled;
	struct path at, f;

	path_key(&at, servers, name);
	if (!cJSON_IsObject(e))
		return field_error(ps, &at, "must be an object");
	if (get_bool(ps, e, "disabled", &at, 0, &disabled) < 0 || disabled)
		return disabled ? 0 : -1;
	why = mcp_server_name_check(name);
	if (why)
		return field_error(ps, &at, why);
	if (name_taken(ps, name))
		return field_error(ps, &at, "server name used twice");
	for (v = e->child; v; v = v->next) {
		path_key(&f, &at, v->string);
		if (!cfmt_known_key(v->string) &&
		    add_warning(ps, cfmt_str("server %s: %s: unknown key, "
					     "ignored (%s)", name, f.s,
					     ps->file)) < 0)
			return -1;
	}
	transport = transport_of(ps, e, &at);
	if (transport < 0)
		return -1;
	sc = calloc(1, sizeof(*sc));
	if (!sc)
		return oom(ps);
	sc->name = strdup(name);
	if (!sc->name) {
		free(sc);
		return oom(ps);
	}
	ps->server = name;
	if (fill_server(ps, sc, e, &at, transport) < 0) {
		ps->server = NULL;
		free(ps->left_out);
		ps->left_out = NULL;
		mcp_server_conf_free(sc);
		return -1;
	}
	ps->server = NULL;
	if (ps->left_out) {
		char *w = cfmt_str("server %s left out: %s (%s)", name,
				   ps->left_out, ps->file);

		free(ps->left_out);
		ps->left_out = NULL;
		mcp_server_conf_free(sc);
		return add_warning(ps, w);
	}
	*ps->tail = sc;
	ps->tail = &sc->next;
	return 0;
}

void mcp_config_free(struct mcp_config *c)
{
	struct mcp_server_conf *sc, *next;
	size_t i;

	if (!c)
		return;
	for (sc = c->servers; sc; sc = next) {
		next = sc->next;
		mcp_server_conf_free(sc);
	}
	for (i = 0; i < c->nwarnings; i++)
		free(c->warnings[i]);
	free(c->warnings);
	free(c);
}

static int parse_tree(struct parse *ps, const cJSON *root)
{
	const cJSON *servers, *e;
	struct path top = {""};
	const char *note;

	if (!cJSON_IsObject(root)) {
		ps->err = cfmt_str("%s: the top level must be an object",
				   ps->file);
		return -1;
	}
	servers = cfmt_servers(root, ps->ctx, top.s, sizeof(top.s), &note);
	if (!servers && note)
		return *note ? add_warning(ps, cfmt_str("%s: %s", ps->file,
							note)) : 0;
	if (!servers) {
		ps->err = cfmt_str("%s: mcpServers: missing (the object of "
				   "servers)", ps->file);
		return -1;
	}
	if (*ps->at)
		snprintf(top.s, sizeof top.s, "%s", ps->at);
	if (!cJSON_IsObject(servers))
		return field_error(ps, &top, "must be an object");
	cJSON_ArrayForEach(e, servers)
		if (parse_entry(ps, e, &top) < 0)
			return -1;
	return 0;
}

int mcp_config_parse(const char *text, size_t len, const char *path,
		     struct mcp_config **out, char **err)
{
	return mcp_config_parse_ctx(text, len, path, NULL, out, err);
}

int mcp_config_parse_ctx(const char *text, size_t len, const char *path,
			 const struct mcp_config_ctx *ctx,
			 struct mcp_config **out, char **err)
{
	struct parse ps = {.ctx = ctx};
	cJSON *root, *warns = NULL, *w;
	char *why = NULL;
	int rc = -1, syntax;

	*out = NULL;
	*err = NULL;
	ps.file = path ? path : "(config)";
	root = dialect_tree(text, len, ps.file, &syntax, &ps.err);
	if (!root)
		goto fail;
	ps.cfg = calloc(1, sizeof(*ps.cfg));
	warns = cJSON_CreateArray();
	if (!ps.cfg || !warns) {
		oom(&ps);
		goto done;
	}
	ps.tail = &ps.cfg->servers;
	if (dialect_normalize(root, syntax, ps.file, ps.at, sizeof ps.at,
			      warns, &why) < 0) {
		ps.err = cfmt_str("%s: %s", ps.file, why);
		goto done;
	}
	cJSON_ArrayForEach(w, warns) /* once, not again in the project pass */
		if (!(ctx && ctx->project_pass) &&
		    add_warning(&ps, cfmt_str("%s: %s", ps.file,
					      w->valuestring)) < 0)
			goto done;
	rc = parse_tree(&ps, root);
done:
	free(why);
	cJSON_Delete(warns);
	cJSON_Delete(root);
	if (rc == 0) {
		*out = ps.cfg;
		return 0;
	}
fail:
	mcp_config_free(ps.cfg);
	*err = ps.err ? ps.err : strdup("out of memory");
	return -1;
}
