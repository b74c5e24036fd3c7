/*
 * jnames.h - the I-JSON member-name check behind jscan_names (jscan.h
 * holds struct jscan_names and says what is checked): jscan.c feeds it
 * each name's decoded bytes and the ends of names and objects. jnames.c.
 */
#ifndef MCPFS_JNAMES_H
#define MCPFS_JNAMES_H

#include <stddef.h>

#include "jscan.h"

/* Forget the names of a previous text (memory is kept). */
void jnames_reset(struct jscan_names *n);
/* A name begins (its opening quote): 0, or -1 (n->nomem). */
int jnames_start(struct jscan_names *n);
/* k more decoded bytes of the name being read: 0, or -1 (n->nomem). */
int jnames_put(struct jscan_names *n, const void *b, size_t k);
/* The name ended (its closing quote): NULL, or why it fails (n->why; or
 * "out of memory" with n->nomem set). */
const char *jnames_end(struct jscan_names *n);
/* An object at depth d opens (its names start here); closes: NULL, or
 * why it fails (n->why names the duplicate). */
void jnames_open(struct jscan_names *n, int d);
const char *jnames_close(struct jscan_names *n, int d);

#endif
