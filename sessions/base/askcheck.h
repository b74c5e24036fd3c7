/*
 * askcheck.h - the pure half of the server's questions (ask.c): checking
 * an elicitation/create or sampling/createMessage request, checking the
 * answer written to requests/<id> against it (the requested schema for a
 * form, CreateMessageResult for sampling), filling the defaults of fields
 * left out of an accepted form (SEP-1034), and the host of a URL. cJSON
 * only, no I/O: unit tested directly.
 *
 * Every check returns 0, or -EINVAL with why (n bytes) saying which field
 * broke which rule, e.g. `field "age": maximum 100`.
 */
#ifndef MCPFS_ASKCHECK_H
#define MCPFS_ASKCHECK_H

#include <stddef.h>

#include <cjson/cJSON.h>

enum ask_kind { ASK_FORM, ASK_URL, ASK_SAMPLING };

/* The kind of an elicitation/create (params may be NULL) or
 * sampling/createMessage request, if it is well formed: a known mode, a
 * form with a requestedSchema object, a URL mode request with a url that
 * has a host; sampling with a messages array. */
int ask_check_question(const char *method, const cJSON *params,
		       enum ask_kind *kind, char *why, size_t n);

/* An answer to a question of kind with these params. On success *result
 * is the JSON-RPC result to send (a new tree: for a form the action and,
 * when accepted, the content with the defaults filled in) or, for a
 * declined sampling request, *error is the JSON-RPC error to send; the
 * other is NULL. */
int ask_check_answer(enum ask_kind kind, const cJSON *params,
		     const cJSON *answer, cJSON **result, cJSON **error,
		     char *why, size_t n);

/* The host of an absolute URL (scheme://[userinfo@]host[:port]...), into
 * host (n bytes); IPv6 literals keep their brackets. */
int ask_url_host(const char *url, char *host, size_t n);

/* Cheap checks of the formats of the elicitation schema: "email", "uri",
 * "date", "date-time". 1 if s fits (or the format is another one). */
int ask_format_ok(const char *format, const char *s);

#endif
