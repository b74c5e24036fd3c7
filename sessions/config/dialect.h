/*
 * dialect.h - the config files of more MCP clients, recognised by name and
 * content and rewritten into the "mcpServers" form that config.c reads:
 * Codex (config.toml, [mcp_servers.NAME]), OpenCode (opencode.json, "mcp"),
 * Zed (settings.json, "context_servers", JSON with comments), Gemini CLI
 * (.gemini/settings.json), Goose (config.yaml, "extensions"), Windsurf
 * ("serverUrl") and Cline ("autoApprove"). Pure: no I/O.
 */
#ifndef MCPFS_DIALECT_H
#define MCPFS_DIALECT_H

#include <stddef.h>

#include <cjson/cJSON.h>

/* The syntax of a file. */
enum { DIALECT_JSON, DIALECT_JSONC, DIALECT_TOML, DIALECT_YAML };

/* The syntax of text (len bytes) read from path (NULL: unknown name): by
 * its name (.toml, .yaml/.yml; JSON with comments: .jsonc, settings.json,
 * opencode.json, a file under .vscode/), else by its content. */
int dialect_syntax(const char *text, size_t len, const char *path);

/* JSON with comments and trailing commas as strict JSON of the same length
 * (each comment and such comma becomes spaces, newlines kept, so line and
 * column numbers stay right). Returns a malloc'd copy (NUL-terminated), or
 * NULL when memory runs out. */
char *dialect_jsonc(const char *text, size_t len);

/* A TOML or YAML text as a cJSON tree, or NULL with *err (malloc'd
 * "LINE:COL: invalid TOML: problem"). */
cJSON *dialect_parse(int syntax, const char *text, size_t len, char **err);

/* The whole of a file's text (len bytes, read from file: used in
 * messages) as a cJSON object in its syntax (set in *syntax), or NULL with
 * *err (malloc'd "FILE:LINE[:COL]: invalid JSON: problem", or FILE: ...).
 * (yamlconf.c) */
cJSON *dialect_tree(const char *text, size_t len, const char *file,
		    int *syntax, char **err);

/*
 * Rewrite root (an object, from path of syntax) into the mcpServers form:
 * the servers of the client's dialect become root["mcpServers"] with the
 * keys config.c knows (a tool filter as allowTools/denyTools, a timeout in
 * seconds, "disabled"), and each thing mcpfs has no use for is a string
 * appended to warnings. at (atlen bytes) gets where the servers are in the
 * file ("" = where config.c looks: mcpServers or servers). Returns 0, or -1
 * with *err (malloc'd "FIELD: problem", a field path of the file).
 */
int dialect_normalize(cJSON *root, int syntax, const char *path, char *at,
		      size_t atlen, cJSON *warnings, char **err);

#endif
