/*
 * fakeexact.h - --exact of tests/fake/fakeserver (fakeexact.c): the texts
 * and tools that must reach the client byte for byte.
 */
#ifndef FAKEEXACT_H
#define FAKEEXACT_H

#include <cjson/cJSON.h>

/* The params of the elicitation/create that exact_ask sends. */
extern const char exact_question[];

/* tools/list with cursor (or NULL): 1 when answered here (the two exact
 * pages), 0 for the usual pages. */
int exact_list(const cJSON *id, const char *cursor);

/* tools/call of name: 1 when it is an exact tool (answered), else 0. */
int exact_call(const cJSON *id, const char *name);

#endif
