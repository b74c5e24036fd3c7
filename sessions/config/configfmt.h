/*
 * configfmt.h - the dialects of the config files MCP users already have
 * (Claude Desktop, Claude Code's ~/.claude.json and .mcp.json, Cursor,
 * VS Code's .vscode/mcp.json): variable expansion, envFile, the keys an
 * entry may have, and where a file keeps its servers. Used by config.c;
 * calls nothing of it.
 */
#ifndef MCPFS_CONFIGFMT_H
#define MCPFS_CONFIGFMT_H

#include <stddef.h>

#include <cjson/cJSON.h>

/* printf into a malloc'd string; NULL on ENOMEM. */
char *cfmt_str(const char *f, ...) __attribute__((format(printf, 1, 2)));

/* How one file is read. */
struct mcp_config_ctx {
	const char *project;    /* --project DIR (absolute), or NULL */
	int project_pass;       /* 1: read projects[DIR].mcpServers only */
	const char *workspace;  /* ${workspaceFolder}: the parent of the
				 * file's folder; NULL = not known */
};

/*
 * Expand ${VAR}, ${VAR:-default} and ${env:VAR} from the environment, and
 * ${workspaceFolder} and ${userHome}. Returns a malloc'd string, or NULL
 * with *err (malloc'd): bad syntax, or a variable mcpfs cannot give
 * (${input:ID} names the input). "$" not followed by "{" is kept.
 */
char *cfmt_expand(const char *s, const struct mcp_config_ctx *ctx,
		  char **err);
/* The same; *unset (when unset is not NULL and *unset NULL) gets the name
 * of the first ${VAR} that is not set and has no default (malloc'd): it
 * expanded to nothing. */
char *cfmt_expand_note(const char *s, const struct mcp_config_ctx *ctx,
		       char **err, char **unset);

/*
 * Read an env file (KEY=VALUE lines, "#" comments, optional "export ",
 * values optionally quoted) into env (sorted "KEY=value" entries, n of
 * them, NULL-terminated, realloc'd): keys already in env keep their value.
 * A relative path is taken from ctx->workspace. Returns 0, or -1 with *err
 * (malloc'd, naming the file and line, never a value).
 */
int cfmt_env_file(const char *path, const struct mcp_config_ctx *ctx,
		  char ***env, size_t *n, char **err);

/* 1 if key is a key of a server entry that mcpfs knows. */
int cfmt_known_key(const char *key);

/* The "era" value v (NULL: absent, auto) into *era (MCP_ERA_*, config.h);
 * 0, or -1 if v is not "auto", "modern" or "legacy". */
int cfmt_era(const cJSON *v, int *era);
/* The "restart" value v (NULL: absent, "report") into *silent (1 for
 * "silent": the server keeps no state, a lost one is not reported);
 * 0, or -1 (*silent 0) if v is neither. */
int cfmt_restart(const cJSON *v, int *silent);

/*
 * The object of servers in root (an object): "mcpServers", else VS Code's
 * "servers"; in the project pass, projects[DIR].mcpServers of Claude
 * Code's ~/.claude.json. Sets at (size atlen) to its field path. Returns
 * the object (maybe not an object: the caller checks), or NULL: then
 * *note is NULL if the file lacks its servers (an error), else a static
 * note, "" when there is nothing to serve and nothing to say.
 */
const cJSON *cfmt_servers(const cJSON *root, const struct mcp_config_ctx *ctx,
			  char *at, size_t atlen, const char **note);

#endif
