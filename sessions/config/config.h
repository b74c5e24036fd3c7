/*
 * config.h - the servers.json format (Claude Desktop / Cursor / .mcp.json
 * "mcpServers", or VS Code "servers"), ${VAR} expansion and name rules.
 * Pure code: no I/O but getenv, so it is unit tested and fuzzed directly.
 */
#ifndef MCPFS_CONFIG_H
#define MCPFS_CONFIG_H

#include <stddef.h>

/* The transport of an entry ("type"; section 7 of the spec). */
enum {
	MCP_TRANSPORT_STDIO,        /* command */
	MCP_TRANSPORT_HTTP_OR_SSE,  /* url, "http" or no type: Streamable
				     * HTTP, else the 2024-11-05 HTTP+SSE */
	MCP_TRANSPORT_HTTP,         /* "streamable-http": Streamable HTTP */
	MCP_TRANSPORT_SSE,          /* "sse": HTTP+SSE (2024-11-05) */
};

/* "oauth" of an http entry (spec 8; oauthconf.c). Absent = enabled with
 * nothing set. */
struct mcp_oauth_conf {
	int enabled;            /* 0: "oauth": false */
	char *client_id, *client_secret, *client_metadata_url;
	char *scopes;           /* space-separated, NULL = chosen */
	int client_credentials; /* "grant": "client_credentials" */
	char *private_key_file;
	int redirect_port;      /* 0 = derived from the url */
	/* "grant": "jwt_bearer" (SEP-990 cross-app access, also sets
	 * client_credentials: no browser): the ID token is exchanged at the
	 * identity provider's token endpoint for an ID-JAG (RFC 8693), which
	 * is the RFC 7523 assertion at the authorization server. */
	int jwt_bearer;
	char *idp_token_endpoint, *idp_id_token, *idp_client_id;
	/* ... or, for workload identity federation (SEP-1933), the
	 * workload's own JWT, the assertion as it is (no identity
	 * provider) */
	char *assertion;
	/* "dpop" (SEP-1932): 1 true, -1 false, 0 absent (as the
	 * authorization server's metadata offers) */
	int dpop;
};
/* The "era" key: detect (versioning page of MCP 2026-07-28), or one. */
enum { MCP_ERA_AUTO, MCP_ERA_MODERN, MCP_ERA_LEGACY };

struct mcp_server_conf {
	char *name;
	char *command;          /* expanded; NULL for an http server */
	char **args;            /* expanded, nargs entries */
	size_t nargs;
	char **env;             /* "KEY=value", expanded, nenv entries */
	size_t nenv;
	char *cwd;              /* expanded, NULL = inherit */
	char *url;              /* HTTP endpoint, NULL = stdio */
	int transport;          /* MCP_TRANSPORT_*: how the url is reached */
	char **headers;         /* "Name: value", expanded, nheaders entries */
	size_t nheaders;
	char **roots;           /* root URIs ("file:///x"), nroots entries */
	size_t nroots;
	double timeout;         /* call timeout seconds; -1 = global default */
	double idle_timeout;    /* seconds; -1 = global default */
	int elicitation;        /* declare elicitation (default 1) */
	int sampling;           /* declare sampling (default 0) */
	unsigned warm;          /* spare started sessions kept (0-16) */
	struct mcp_oauth_conf *oauth; /* NULL = absent */
	int era;                /* MCP_ERA_*: which protocol era to speak */
	int restart_silent;     /* "restart": "silent": a state lost with a
				   process is not reported (spec 5) */
	/* The tool policy (spec 13; not a launch field): globs on tool
	 * names; allow_tools NULL = every tool, deny wins. */
	char **allow_tools, **deny_tools;
	size_t nallow, ndeny;
	int read_only;          /* only tools annotated readOnlyHint */
	char digest[13];        /* hex digest of the launch fields */
	struct mcp_server_conf *next;
};

struct mcp_config {
	struct mcp_server_conf *servers; /* enabled servers, file order */
	char **warnings;                 /* unknown keys, files without servers */
	size_t nwarnings;
};

/* Parse text (len bytes) read from path (used in messages only). Returns 0
 * and *out, or -1 and *err: a malloc'd message "PATH:LINE: FIELD: problem"
 * or "PATH: FIELD: problem". */
int mcp_config_parse(const char *text, size_t len, const char *path,
		     struct mcp_config **out, char **err);
/* The same for one file of a dialect (configfmt.h; ctx NULL = none). */
struct mcp_config_ctx;
int mcp_config_parse_ctx(const char *text, size_t len, const char *path,
			 const struct mcp_config_ctx *ctx,
			 struct mcp_config **out, char **err);
void mcp_config_free(struct mcp_config *c);

/* 1 if the launch fields (command, args, env, cwd; url, transport,
 * headers) of a and b are equal. */
int mcp_conf_same_launch(const struct mcp_server_conf *a,
			 const struct mcp_server_conf *b);
/* 1 if the roots of a and b are the same list (order counts). */
int mcp_conf_same_roots(const struct mcp_server_conf *a,
			const struct mcp_server_conf *b);

/* A copy of the fields that reach conf's server over HTTP (name, url,
 * headers, oauth, transport, era, timeouts, digest; the rest zero), for a
 * transport that outlives conf; NULL when out of memory. */
struct mcp_server_conf *mcp_conf_reach_dup(const struct mcp_server_conf *c);
/* Free one entry (NULL is fine). */
void mcp_server_conf_free(struct mcp_server_conf *c);
/* confentry.c: sc->digest, of its launch fields (command, args, env, cwd,
 * url, transport, headers), set once the entry is parsed. */
void mcp_conf_digest(struct mcp_server_conf *sc);

/* The last component of a path (a command's name, for logs and status). */
const char *mcp_base_name(const char *path);

/* Expand ${VAR}, ${VAR:-default} and ${env:VAR} from the environment
 * (configfmt.c). Returns a malloc'd string, or NULL with *err (a static
 * message, valid until the next call) on bad syntax. An unset ${VAR}
 * expands to "". "$" not followed by "{" is kept. */
char *mcp_expand(const char *s, const char **err);

/* Parse "oauth" (v) with ${VAR} expansion by expand (ctx passed on).
 * Returns 0 with *out (NULL for true: the default), or -1 with *why a
 * malloc'd message "KEY: problem" ("" for the value itself). */
struct mcp_config_ctx;
int mcp_oauth_conf_parse(const void *v, const struct mcp_config_ctx *ctx,
			 struct mcp_oauth_conf **out, char **why);
void mcp_oauth_conf_free(struct mcp_oauth_conf *c);
struct mcp_oauth_conf *mcp_oauth_conf_dup(const struct mcp_oauth_conf *c);

/* Server names: a plain path component (non-empty, not "." or "..", no
 * "/", not starting with "."). Returns NULL if valid, else why. */
const char *mcp_server_name_check(const char *name);
/* Thread names: 1-128 of [A-Za-z0-9._-], not starting with ".". */
int mcp_thread_name_valid(const char *name);

#endif
