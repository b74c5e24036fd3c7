/*
 * buf.h - a refcounted, immutable byte buffer: len bytes at data, then a
 * NUL. Replies and rendered files travel as these between sessions/ and
 * the front doors, so that a reader keeps what it read while the next
 * reply arrives.
 */
#ifndef MCPFS_BUF_H
#define MCPFS_BUF_H

#include <stddef.h>

typedef struct mcp_buf {
	unsigned refs;
	size_t len;
	char *data;
	char *mem;      /* a block data points into, owned (mcp_buf_wrap) */
	int big;        /* mem is a bigmem block (bigmem.h), not malloc'd */
	char bytes[];   /* else the data itself (mcp_buf_new) */
} mcp_buf;

mcp_buf *mcp_buf_new(const char *data, size_t len); /* refs = 1; NULL on ENOMEM */
/* A buffer of the len bytes at mem + off (followed by a NUL there) that
 * takes over mem (malloc'd, or a bigmem block when big; shrunk to fit),
 * without a copy. NULL on ENOMEM (then mem is still the caller's). */
mcp_buf *mcp_buf_wrap(char *mem, int big, size_t off, size_t len);
mcp_buf *mcp_buf_ref(mcp_buf *b);
void mcp_buf_unref(mcp_buf *b);
/* The JSON-RPC reply "out of memory" (-32603): static, so it is there
 * when nothing can be allocated; never NULL. */
mcp_buf *mcp_buf_oom(void);

#endif
