/*
 * toml.h - a small strict TOML reader for the config files of MCP clients
 * (Codex's ~/.codex/config.toml): tables and arrays of tables, dotted and
 * quoted keys, basic and literal strings (one line and multi-line),
 * integers, floats, booleans, arrays and inline tables. Dates and times
 * are refused with a message, as is anything else outside TOML 1.0.
 */
#ifndef MCPFS_TOML_H
#define MCPFS_TOML_H

#include <stddef.h>

#include <cjson/cJSON.h>

/*
 * Parse len bytes of text as TOML. Returns the document as a cJSON object
 * (the caller frees it with cJSON_Delete; integers and floats are numbers,
 * tables and inline tables objects), or NULL with *err set to a malloc'd
 * "LINE:COL: problem" (or "out of memory"). Messages never quote values.
 */
cJSON *toml_parse(const char *text, size_t len, char **err);

#endif
