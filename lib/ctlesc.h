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
 *   bidi and line marks   \u200e, \u202e, \u2066, \u2028 ...
 *   a NUL kept as C0 80   \x00 (jsent.h)
 *   a byte not UTF-8      \xNN
 *
 * Everything else is copied as it is. 0 or -ENOMEM.
 */
int ctlesc_text(struct gbuf *b, const char *s, int multiline);

/* The same as a malloc'd string (NULL on ENOMEM). */
char *ctlesc_dup(const char *s, int multiline);

/* 1 if ctlesc_text would change s (multiline or not). */
int ctlesc_needed(const char *s, int multiline);

/*
 * NUL-terminated JSON text of n bytes (as cJSON prints it: C0 controls already escaped) with DEL and
 * the C1 controls inside its strings escaped too (\u007f, \u0080 ...), so
 * that a terminal showing the file runs none of them. The JSON means the
 * same. Malloc'd, its length in *len; NULL on ENOMEM.
 */
char *ctlesc_json(const char *json, size_t n, size_t *len);

#endif
