/*
 * mimetab.h - the file extension of a media type (spec 9, result/): the
 * names of the spec first, then the system's table (/etc/mime.types, read
 * once at start), else the caller's default. mimetab.c.
 */
#ifndef MCPFS_MIMETAB_H
#define MCPFS_MIMETAB_H

/* Read the table at path (a mime.types file: "type ext..." lines, '#'
 * comments) in place of any read before. 0, or a negated errno (the
 * built-in names stay). */
int mimetab_load(const char *path);
void mimetab_free(void);

/* The extension (no dot) of mime, whose parameters (";...") and case do
 * not count; dflt for NULL or a type neither knows. */
const char *mimetab_ext(const char *mime, const char *dflt);

#endif
