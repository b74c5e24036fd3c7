/*
 * ctlesc.h - server text made safe for a terminal and a document
 * (spec 6): control characters shown as visible escapes. Pure.
 */
#ifndef MCPFS_CTLESC_H
#define MCPFS_CTLESC_H

#include <stddef.h>

#include "gbuf.h"

/*
 * Append s to b with what could drive a terminal or forge a line shown:
 *
 *   C0 controls and DEL   \x1b, \x07, \x7f ... (CR as \r)
 *   a newline             kept when multiline, else \n
 *   a tab                 kept
 *   C1 controls           \u0080 ... \u009f
 *   bidi and line marks   \u061c, \u200e, \u202e, \u2066, \u2028 ...
 *   a NUL kept as C0 80   \x00 (jsent.h)
 *   a byte not UTF-8      \xNN
 *
 * Everything else is copied as it is. 0 or -ENOMEM.
 */
int ctlesc_text(struct gbuf *b, const char *s, int multiline);

/* The same for n bytes that may hold a NUL (shown as \x00; C0 80 is two
 * bytes not UTF-8 here): a server's raw stderr. 0 or -ENOMEM. */
int ctlesc_bytes(struct gbuf *b, const char *s, size_t n, int multiline);

/* The same as a malloc'd string (NULL on ENOMEM). */
char *ctlesc_dup(const char *s, int multiline);

/*
 * The one definition of an unsafe code point, for text and for file
 * names alike (sessions/protocol/surface.c percent-encodes it in a
 * directory entry): C0 controls, DEL, C1 controls, the bidi controls
 * (U+061C, U+200E, U+200F, U+202A to U+202E, U+2066 to U+2069) and the
 * line and paragraph separators (U+2028, U+2029).
 */
int ctlesc_unsafe(unsigned cp);
/* The length of the UTF-8 sequence of an unsafe code point at s (avail
 * bytes there), else 0 (a safe one, or bytes that are not UTF-8). */
size_t ctlesc_unsafe_at(const char *s, size_t avail);

/* 1 if ctlesc_text would change s (multiline or not). */
int ctlesc_needed(const char *s, int multiline);

/*
 * NUL-terminated JSON text of n bytes (as cJSON prints it: C0 controls
 * already escaped) with DEL and every other unsafe code point above it
 * (ctlesc_unsafe: C1, bidi and line marks) escaped as \u007f, \u202e ...,
 * so that a terminal showing the file runs none of them and shows it in
 * its order. The whitespace between tokens stays. The JSON means the
 * same. Malloc'd, its length in *len; NULL on ENOMEM.
 */
char *ctlesc_json(const char *json, size_t n, size_t *len);

#endif
