/*
 * help.h - the text of help/<tool> and help/prompt:<name> (spec 12), from
 * one entry of a tools/list or prompts/list result. Pure: no session.
 */
#ifndef MCPFS_HELP_H
#define MCPFS_HELP_H

#include <stddef.h>

#include <cjson/cJSON.h>

#include "gbuf.h"

/* The help of tool (an entry of "tools") or, prompt set, of a prompt (an
 * entry of "prompts"): malloc'd text, NULL on ENOMEM. file: its file name
 * under tools/ or prompts/ (the name percent-encoded), NULL: the name. */
char *help_render(const cJSON *entry, int prompt, const char *file);

/* The placeholder of a required argument without default or enum: its
 * name in capitals (non-alphanumerics as '_'), as help_render writes it. */
void help_placeholder(const char *name, char *out, size_t n);

/* Server text as a quote (spec 12): every line shown as prefix, a space
 * and the line, controls escaped (ctlesc); a line that shows nothing
 * (blanks, Unicode spaces) as prefix alone, and only once between two
 * lines that show something (none before the first or after the last);
 * CRLF is one line end. Cut before max bytes of text (0: never) with
 * "prefix [...]". With a prefix such as "  |" no line of it can be taken
 * for one of mcpfs's own, and none runs as a shell command (a syntax
 * error at the '|'). */
void help_quote(struct gbuf *b, const char *text, const char *prefix,
		size_t max);

#endif
