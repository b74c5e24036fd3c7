/*
 * jsent.h - cJSON trees that print what was sent (spec 5, Fidelity). cJSON
 * keeps a number as a double and a string as a C string, so a reprint turns
 * 9007199254740993 into 9007199254740992 and cuts "ab\u0000cd" to "ab".
 * Three helpers close both holes without leaving cJSON:
 *  - jsent_hide_nul before a parse: each escaped NUL becomes the bytes C0
 *    80 (never valid UTF-8, so never sent by anyone), and a string keeps
 *    its whole length as a C string;
 *  - jsent_print instead of cJSON_Print*: writes C0 80 back as "\u0000";
 *  - jsent_keep on a tree about to be printed: its numbers and string
 *    values become cJSON raw items holding the text they were parsed from,
 *    byte for byte (escapes included), but for raw control bytes, which
 *    are escaped (jsent_escape_controls): what is printed is valid JSON.
 */
#ifndef MCPFS_JSENT_H
#define MCPFS_JSENT_H

#include <stddef.h>

#include <cjson/cJSON.h>

/* cJSON's allocations through a counter of those that failed (with
 * jsent_parse's own): cJSON's builders (cJSON_Add*) leave a member out
 * silently when memory is short, so a message built since the count last
 * moved may lack one (its "id", making a request a notification), and a
 * parse that failed while it moved may have been of valid JSON. Once,
 * before any other cJSON use. */
void jsent_count_failures(void);
unsigned long jsent_failures(void);

/* Every "\u0000" escape of the n bytes at p as C0 80, in place; returns
 * the new length (a NUL is put there when it is shorter). */
size_t jsent_hide_nul(char *p, size_t n);

/* 1 when the n bytes at p hold an escaped NUL. */
int jsent_has_nul(const char *p, size_t n);

/* The n bytes of JSON text at p parsed, each escaped NUL as C0 80 (as
 * jsent_hide_nul, on a copy: p is left as it is); NULL when it is not
 * JSON or memory is short. */
cJSON *jsent_parse(const char *p, size_t n);

/* j printed (pretty or not), C0 80 written as "\u0000"; malloc'd (free
 * with free), *len its length when len is not NULL; NULL on ENOMEM. */
char *jsent_print(const cJSON *j, int pretty, size_t *len);
/* j printed pretty as cJSON_Print prints it when it is nested depth levels
 * deep (an element of an array that is a member of the top object: 2),
 * so that a long array can be printed element by element and joined with
 * ", " into what jsent_print of the whole would give. As above. */
char *jsent_print_at(const cJSON *j, unsigned depth, size_t *len);

/* The JSON string literal of the C string s (C0 80 as "\u0000");
 * malloc'd, NULL on ENOMEM. */
char *jsent_quote(const char *s);
/* The JSON string literal of the n bytes at p decoded into *out
 * (malloc'd, an escaped NUL as C0 80; NULL when it is no string):
 * 0, or -ENOMEM. */
int jsent_unquote(const char *p, size_t n, char **out);

/*
 * Raw control bytes (below 0x20) in the n bytes of JSON-like text at p,
 * as a server may send them (cJSON accepts them; RFC 8259 does not):
 * inside a string each becomes its \u00XX escape, outside one a space.
 * Escapes the server wrote stay byte for byte. Returns 0 when there are
 * none (*out untouched), 1 with *out a malloc'd copy (NUL-terminated,
 * *outn its length), or -1 when memory ran out.
 */
int jsent_escape_controls(const char *p, size_t n, char **out, size_t *outn);

/*
 * j was parsed from the n bytes at p (its value, whitespace around it
 * allowed; with or without jsent_hide_nul): each number and string value
 * under j becomes a raw item holding its text at p. The walk stops where
 * the two disagree (then the rest stays as parsed). Afterwards j is only
 * for printing: cJSON_IsNumber and cJSON_IsString are false on those
 * items.
 */
void jsent_keep(cJSON *j, const char *p, size_t n);

#endif
