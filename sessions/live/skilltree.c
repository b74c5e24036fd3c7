/*
 * skilltree.c - the tree of a skills listing (skills.c): nodes in one
 * array, an open-addressing table of their numbers by path, each folder's
 * entries in a list. A lookup is one probe, a folder's listing as long as
 * the folder; stree_reserve makes room for a whole listing at once, so
 * that a tree of 100,000 files never grows (a copy and a rehash of
 * everything) in one turn of the loop.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "gbuf.h"
#include "skilltree.h"

uint64_t skill_hash(const char *p, size_t n, uint64_t salt)
{
	uint64_t h = 14695981039346656037ull ^ salt;

	while (n--)
		h = (h ^ (unsigned char)*p++) * 1099511628211ull;
	return h;
}

static size_t slot_of(const struct stree *t, const char *path, size_t n)
{
	size_t i = (size_t)skill_hash(path, n, 0) & (t->scap - 1);
	long k;

	while ((k = t->slot[i]) != 0 &&
	       (strncmp(t->v[k - 1].path, path, n) || t->v[k - 1].path[n]))
		i = (i + 1) & (t->scap - 1);
	return i;
}

long stree_at(const struct stree *t, const char *path, size_t n)
{
	return t->scap ? t->slot[slot_of(t, path, n)] - 1 : -1;
}

/* The slot table made cap slots long (cap a power of two, above twice
 * the nodes), every node hashed in again. 0 or -ENOMEM. */
static int rehash(struct stree *t, size_t cap)
{
	size_t i;
	long *s;

	if (cap == t->scap)
		return 0;
	if (!(s = calloc(cap, sizeof *s)))
		return -ENOMEM;
	free(t->slot);
	t->slot = s;
	t->scap = cap;
	for (i = 0; i < t->n; i++)
		t->slot[slot_of(t, t->v[i].path, strlen(t->v[i].path))] =
			(long)i + 1;
	return 0;
}

/* Room for n nodes at once: a growth of 100,000 nodes (the copy, the
 * rehash) is a long turn of the loop. 0 or -ENOMEM. */
int stree_reserve(struct stree *t, size_t n)
{
	size_t cap = t->scap ? t->scap : 128;
	struct snode *v;

	if (n > SKILL_NODES_MAX)
		n = SKILL_NODES_MAX;
	if (n > t->cap) {
		if (!(v = realloc(t->v, n * sizeof *v)))
			return -ENOMEM;
		t->v = v;
		t->cap = n;
	}
	while ((n + 1) * 2 > cap)
		cap *= 2;
	return rehash(t, cap);
}

static int grow(struct stree *t)
{
	struct snode *v = gbuf_grow(t->v, &t->cap, t->n + 1, sizeof *v, 64);

	if (!v)
		return -ENOMEM;
	t->v = v;
	if ((t->n + 1) * 2 <= t->scap)
		return 0;
	return rehash(t, t->scap ? t->scap * 2 : 128);
}

void stree_free(void *p)
{
	struct stree *t = p;
	size_t i;

	for (i = 0; t && i < t->n; i++) {
		free(t->v[i].path);
		free(t->v[i].uri);
		cJSON_Delete(t->v[i].fm);
		mcp_buf_unref(t->v[i].bytes);
	}
	if (t) {
		free(t->v);
		free(t->slot);
	}
	free(t);
}

long stree_add(struct stree *t, const char *path, size_t n, long parent,
	       int isdir)
{
	struct snode *d;
	const char *slash;
	long k;

	if (t->n >= SKILL_NODES_MAX)
		return -ENOSPC;
	if (grow(t) < 0)
		return -ENOMEM;
	d = &t->v[t->n];
	memset(d, 0, sizeof *d);
	if (!(d->path = strndup(path, n)))
		return -ENOMEM;
	slash = memrchr(path, '/', n);
	d->base = slash ? (size_t)(slash - path) + 1 : 0;
	d->first = d->last = d->next = -1;
	d->isdir = isdir;
	/* numbered now, in the walk's slices, not all at a readdir */
	d->idx = t->s ? mcp_name_intern(t->s, MCP_SKILLS, d->path) : -1;
	k = (long)t->n++;
	t->slot[slot_of(t, path, n)] = k + 1;
	if (parent < 0) {
		t->kids++;
		if (t->last >= 0)
			t->v[t->last].next = k;
		else
			t->first = k;
		t->last = k;
	} else {
		t->v[parent].kids++;
		if (t->v[parent].last >= 0)
			t->v[t->v[parent].last].next = k;
		else
			t->v[parent].first = k;
		t->v[parent].last = k;
	}
	return k;
}

long stree_folder(struct stree *t, const char *path, size_t n)
{
	const char *slash;
	long k = stree_at(t, path, n), up = -1;

	if (k >= 0)
		return t->v[k].isdir ? k : -EEXIST;
	slash = memrchr(path, '/', n);
	if (slash && (up = stree_folder(t, path, (size_t)(slash - path))) < 0)
		return up;
	return stree_add(t, path, n, up, 1);
}

