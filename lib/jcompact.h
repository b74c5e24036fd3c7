/*
 * jcompact.h - JSON text as one compact line (spec 6: what a server sends
 * is passed on only as mcpfs's own serialization). The text keeps its
 * bytes but for two things: whitespace outside strings is dropped, and a
 * raw control byte inside a string becomes its \u00XX escape. So no raw
 * newline can remain: a message is one line whatever the server's
 * whitespace. Structure only (strings found by their quotes): whether
 * the text is valid JSON is the caller's check (jscan_is_value).
 */
#ifndef MCPFS_JCOMPACT_H
#define MCPFS_JCOMPACT_H

#include <stddef.h>

/* The offset of the first byte below 0x20 in p[i, n), or n; a word at a
 * time (the scan of a long reply). */
size_t jcompact_control(const char *p, size_t i, size_t n);

/* 1 when the n bytes at p are compact already: no byte below 0x20
 * anywhere and no space outside a string. */
int jcompact_is(const char *p, size_t n);

/*
 * The n bytes at p made compact. Returns 0 when they are already
 * (jcompact_is; *out untouched), 1 with *out a malloc'd copy
 * (NUL-terminated, *outn its length), -1 when memory ran out. Outside a
 * string every byte up to 0x20 is dropped (cJSON reads them all as
 * whitespace); inside one a byte below 0x20 becomes \u00XX, and the
 * escapes the text holds stay as they are.
 */
int jcompact(const char *p, size_t n, char **out, size_t *outn);

#endif
