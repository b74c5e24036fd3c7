/*
 * bigmem.h - blocks for long lines: each in its own mapping, aligned to
 * 2 MiB and backed by transparent huge pages where the kernel gives them.
 *
 * Why: filling fresh memory costs one page fault per 4 KiB page, and on
 * the VM mcpfs is measured on that is most of the time a long reply takes
 * (copying 16 MiB into fresh malloc'd memory: about 70 ms; into a block
 * with huge pages: 2-3 ms, one fault per 2 MiB). The pages are only taken
 * as they are touched, so a block may be as large as the longest line
 * allowed (64 MiB of address space) and never needs to grow or move.
 *
 * A block is not malloc'd: release it with bigmem_free only.
 */
#ifndef MCPFS_BIGMEM_H
#define MCPFS_BIGMEM_H

#include <stddef.h>

/* A block of at least n bytes (address space; its pages are allocated as
 * they are touched). NULL on ENOMEM. */
char *bigmem_alloc(size_t n);
/* Give the pages past the first n bytes of the block back (the block
 * keeps its start; bytes past n are gone). */
void bigmem_trim(char *p, size_t n);
/* Release the block (NULL: nothing). */
void bigmem_free(char *p);

#endif
