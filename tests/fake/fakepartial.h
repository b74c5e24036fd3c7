/*
 * fakepartial.h - the "partial server" options of tests/fake/fakeserver
 * (fakepartial.c): capabilities declared and methods left out or broken
 * (resources, templates, prompts, completion, subscribe, a listing's next
 * page, list_changed storms). README.md beside it says what each does.
 * fakeserver.c calls in here; nothing here calls back.
 */
#ifndef FAKEPARTIAL_H
#define FAKEPARTIAL_H

#include <cjson/cJSON.h>

/* Takes argv[*i] (and its value, moving *i) if it is one of the partial
 * options; returns 1 if so, 0 if not ours. Exits 2 on a bad value. */
int partial_option(int argc, char **argv, int *i);

/* Adds the capabilities the options declare to an initialize result's
 * capabilities object. */
void partial_caps(cJSON *caps);

/* Handles a request (id not NULL) the options concern: returns 1 if it
 * was answered here, 0 to leave it to fakeserver.c. */
int partial_request(const cJSON *id, const char *method,
		    const cJSON *params);

/* After a tools/list reply: --storm's notifications, if any. */
void partial_after_list(const char *method);

#endif
