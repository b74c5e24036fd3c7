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

/* A session's reads kept (mcp_session.kept), newest last, made at the
 * first. */
struct res_kept {
	size_t n, bytes;   /* how many; their bytes together */
	struct {
		unsigned long idx; /* the URI's number (mcp_name_intern) */
		mcp_buf *b;
	} v[KEPT_MAX];
};

static void kept_drop(struct res_kept *k, size_t i)
{
	k->bytes -= k->v[i].b->len;
	mcp_buf_unref(k->v[i].b);
	memmove(k->v + i, k->v + i + 1, (--k->n - i) * sizeof *k->v);
}

static long kept_find(const struct res_kept *k, unsigned long idx)
{
	size_t i;

	for (i = 0; k && i < k->n; i++)
		if (k->v[i].idx == idx)
			return (long)i;
	return -1;
}

void res_kept_set(mcp_session *s, const char *uri, mcp_buf *b)
{
	long idx = mcp_name_intern(s, MCP_RESOURCES, uri), i;
	struct res_kept *k = s->kept;

	if (idx < 0)
		return;
	if ((i = kept_find(k, (unsigned long)idx)) >= 0)
		kept_drop(k, (size_t)i);
	if (!b || b->len > KEPT_BYTES)
		return;
	if (!k && !(k = s->kept = calloc(1, sizeof *k)))
		return;
	while (k->n && (k->n == KEPT_MAX || k->bytes + b->len > KEPT_BYTES))
		kept_drop(k, 0); /* the oldest */
	k->v[k->n].idx = (unsigned long)idx;
	k->v[k->n++].b = mcp_buf_ref(b);
	k->bytes += b->len;
}

size_t mcp_resource_size(mcp_session *s, unsigned long idx)
{
	long i = kept_find(s->kept, idx);

	return i < 0 ? 0 : s->kept->v[i].b->len;
}

void res_kept_free(mcp_session *s)
{
	if (!s->kept)
		return;
	while (s->kept->n)
		kept_drop(s->kept, s->kept->n - 1);
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
