/*
 * kvargs.h - arguments without JSON (spec 9): lines of NAME=VALUE and
 * NAME:=JSON, typed by a tool's inputSchema, made into the arguments
 * object. Pure: no session, no I/O.
 */
#ifndef MCPFS_KVARGS_H
#define MCPFS_KVARGS_H

#include <stddef.h>

#include <cjson/cJSON.h>

/* 1 if the len bytes at p start a request of lines: their first byte that
 * is not a blank (space, tab, CR, LF) exists and is not '{'. */
int kvargs_is_lines(const char *p, size_t len);

/* The JSON Schema type of a property: its "type", or the first of a list
 * that is not "null"; NULL when it says none. */
const char *kvargs_type(const cJSON *prop);

/* The placeholder help/ writes for a value it will not invent (spec 12):
 * "<TYPE>" with prop's type (kvargs_type), "<value>" when it has none. */
const char *kvargs_placeholder(const cJSON *prop);

/* 1 if v, blanks around it aside, is such a placeholder ("<string>",
 * "<integer>", "<number>", "<boolean>", "<array>", "<object>",
 * "<value>"): kvargs_parse refuses it as the value of any NAME=. */
int kvargs_is_placeholder(const char *v);

/*
 * The arguments object of the lines at text (len bytes, no NUL needed),
 * typed by schema (a tool's inputSchema: its "properties" give each name's
 * "type", bounds and enum; NULL or a name it does not list: a string).
 * Returns 0 with *out a JSON object text to free with cJSON_free (numbers
 * and JSON values kept as written), or
 * -EINVAL with *why a malloc'd message naming the line ("line 2: ..."),
 * -ENOMEM. Blank lines are skipped; a later NAME replaces an earlier one.
 */
int kvargs_parse(const char *text, size_t len, const cJSON *schema,
		 char **out, char **why);

/*
 * The check of whole lines as they arrive (spec 9: a bad line fails the
 * write that completes it): the len bytes at text are lines, numbered
 * from *line + 1 (*line is left at the last), checked as kvargs_parse
 * would. 0, -EINVAL with *why (malloc'd, naming the line), -ENOMEM.
 */
int kvargs_check(const char *text, size_t len, const cJSON *schema,
		 unsigned *line, char **why);

#endif
