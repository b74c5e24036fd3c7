/*
 * buf.c - the refcounted, immutable byte buffers of buf.h.
 */
#include <stdlib.h>
#include <string.h>

#include "bigmem.h"
#include "buf.h"

mcp_buf *mcp_buf_new(const char *data, size_t len)
{
	mcp_buf *b = malloc(sizeof *b + len + 1);

	if (!b)
		return NULL;
	b->refs = 1;
	b->len = len;
	b->data = b->bytes;
	b->mem = NULL;
	b->big = 0;
	if (data)
		memcpy(b->data, data, len);
	b->data[len] = 0;
	return b;
}

/* The reply of a call whose own reply could not be kept: static, so it is
 * there when nothing can be allocated; its first reference is never
 * dropped. */
static char oom_text[] =
	"{\"error\":{\"code\":-32603,\"message\":\"out of memory\"}}\n";
static mcp_buf oom = { .refs = 1, .len = sizeof oom_text - 1,
		       .data = oom_text };

mcp_buf *mcp_buf_oom(void)
{
	return mcp_buf_ref(&oom);
}

mcp_buf *mcp_buf_wrap(char *mem, int big, size_t off, size_t len)
{
	mcp_buf *b = malloc(sizeof *b);
	char *m = mem;

	if (!b)
		return NULL;
	/* shrinking in place (or by mremap, or munmap of the tail) copies
	 * nothing */
	if (big)
		bigmem_trim(mem, off + len + 1);
	else
		m = realloc(mem, off + len + 1);
	b->refs = 1;
	b->len = len;
	b->big = big;
	b->mem = m ? m : mem;
	b->data = b->mem + off;
	return b;
}

mcp_buf *mcp_buf_ref(mcp_buf *b)
{
	if (b)
		b->refs++;
	return b;
}

void mcp_buf_unref(mcp_buf *b)
{
	if (b && --b->refs == 0) {
		if (b->big)
			bigmem_free(b->mem);
		else
			free(b->mem);
		free(b);
	}
}
