/*
 * reskept.c - resources/ files as last read (spec 9, 12): the bytes a
 * resources/read reply holds for a file (mcp_resource_file), and the
 * newest of them kept with the session so that stat gives a resource the
 * length a read gave it (tar reads as many bytes as stat says). A read
 * that fails forgets what was kept; nothing here sends a request.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

/* The newest KEPT_MAX reads, at most KEPT_BYTES together, of resources
 * of a session (a longer one is not kept: its size is then 0). */
#define KEPT_MAX 256
#define KEPT_BYTES ((size_t)16 << 20)

struct res_kept {
	unsigned long idx; /* the URI's number (mcp_name_intern) */
	mcp_buf *b;
};

static void kept_drop(mcp_session *s, size_t i)
{
	s->kept_bytes -= s->kept[i].b->len;
	mcp_buf_unref(s->kept[i].b);
	memmove(s->kept + i, s->kept + i + 1,
		(--s->nkept - i) * sizeof *s->kept);
}

static long kept_find(const mcp_session *s, unsigned long idx)
{
	size_t i;

	for (i = 0; i < s->nkept; i++)
		if (s->kept[i].idx == idx)
			return (long)i;
	return -1;
}

void res_kept_set(mcp_session *s, const char *uri, mcp_buf *b)
{
	long idx = mcp_name_intern(s, MCP_RESOURCES, uri), i;

	if (idx < 0)
		return;
	if ((i = kept_find(s, (unsigned long)idx)) >= 0)
		kept_drop(s, (size_t)i);
	if (!b || b->len > KEPT_BYTES)
		return;
	if (!s->kept && !(s->kept = malloc(KEPT_MAX * sizeof *s->kept)))
		return;
	while (s->nkept && (s->nkept == KEPT_MAX ||
			    s->kept_bytes + b->len > KEPT_BYTES))
		kept_drop(s, 0); /* the oldest */
	s->kept[s->nkept].idx = (unsigned long)idx;
	s->kept[s->nkept++].b = mcp_buf_ref(b);
	s->kept_bytes += b->len;
}

size_t mcp_resource_size(mcp_session *s, unsigned long idx)
{
	long i = kept_find(s, idx);

	return i < 0 ? 0 : s->kept[i].b->len;
}

void res_kept_free(mcp_session *s)
{
	while (s->nkept)
		kept_drop(s, s->nkept - 1);
	free(s->kept);
	s->kept = NULL;
}

mcp_buf *mcp_resource_file(mcp_session *s, const char *uri,
			   const mcp_buf *reply, int *err)
{
	mcp_buf *b = mcp_resource_bytes(reply, err);

	if (*err != -ENOMEM)
		res_kept_set(s, uri, b);
	if (b)
		return b;
	if (*err == -EIO)
		mlog(MLOG_INFO, "resources/read of %s failed: %.200s", uri,
		     reply->data);
	if (*err != -ENOMEM) /* where the user looks */
		mcp_resource_failed(s, uri, reply);
	return NULL;
}
