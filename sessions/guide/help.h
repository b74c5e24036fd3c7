/*
 * help.h - the text of help/<tool> and help/prompt:<name> (spec 12), from
 * one entry of a tools/list or prompts/list result. Pure: no session.
 */
#ifndef MCPFS_HELP_H
#define MCPFS_HELP_H

#include <cjson/cJSON.h>

/* The help of tool (an entry of "tools") or, prompt set, of a prompt (an
 * entry of "prompts"): malloc'd text, NULL on ENOMEM. file: its file name
 * under tools/ or prompts/ (the name percent-encoded), NULL: the name. */
char *help_render(const cJSON *entry, int prompt, const char *file);

/* The placeholder of a required argument without default or enum: its
 * name in capitals (non-alphanumerics as '_'), as help_render writes it. */
void help_placeholder(const char *name, char *out, size_t n);

#endif
