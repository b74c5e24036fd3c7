/*
 * idtab.c - the pending-request table of a session: JSON-RPC id -> call.
 * Open addressing over a power-of-two array, linear probing, load factor at
 * most 3/4; deletion shifts the following run back instead of leaving
 * tombstones, so lookups stay short however many requests come and go.
 * Id 0 marks an empty slot. The table is made at the first entry and freed
 * when its last goes: most of the time a session waits for no reply.
 *
 * Beyond the header's contract, idtab_put refuses id 0 and NULL values with
 * -EINVAL (NULL could not be told apart from "absent") and a present id with
 * -EEXIST. The table must not change while it is being walked with
 * idtab_next: a deletion may move a not yet visited entry behind the cursor.
 */
#include <errno.h>
#include <stdlib.h>

#include "idtab.h"

#define IDTAB_MIN_CAP 4

static size_t home(const struct idtab *t, uint64_t id)
{
	/* Fibonacci hashing: consecutive ids spread over the table. */
	return (size_t)((id * UINT64_C(0x9e3779b97f4a7c15)) >> 32) &
	       (t->cap - 1);
}

/* Index of id's slot, or of the empty slot where it would go. */
static size_t probe(const struct idtab *t, uint64_t id)
{
	size_t i = home(t, id);

	while (t->slots[i].id != 0 && t->slots[i].id != id)
		i = (i + 1) & (t->cap - 1);
	return i;
}

void idtab_init(struct idtab *t)
{
	t->slots = NULL;
	t->cap = 0;
	t->count = 0;
}

void idtab_free(struct idtab *t)
{
	free(t->slots);
	idtab_init(t);
}

static int grow(struct idtab *t)
{
	struct idtab_slot *old = t->slots;
	size_t oldcap = t->cap, i, cap;

	cap = oldcap ? oldcap * 2 : IDTAB_MIN_CAP;
	if (cap < oldcap || cap > SIZE_MAX / sizeof(*old))
		return -ENOMEM;
	t->slots = calloc(cap, sizeof(*old));
	if (!t->slots) {
		t->slots = old;
		return -ENOMEM;
	}
	t->cap = cap;
	for (i = 0; i < oldcap; i++)
		if (old[i].id != 0)
			t->slots[probe(t, old[i].id)] = old[i];
	free(old);
	return 0;
}

int idtab_put(struct idtab *t, uint64_t id, void *val)
{
	size_t i;

	if (id == 0 || !val)
		return -EINVAL;
	if (idtab_get(t, id))
		return -EEXIST;
	if ((t->count + 1) * 4 > t->cap * 3 && grow(t) < 0)
		return -ENOMEM;
	i = probe(t, id);
	t->slots[i].id = id;
	t->slots[i].val = val;
	t->count++;
	return 0;
}

void *idtab_get(const struct idtab *t, uint64_t id)
{
	size_t i;

	if (id == 0 || t->count == 0)
		return NULL;
	i = probe(t, id);
	return t->slots[i].id == id ? t->slots[i].val : NULL;
}

/* 1 if an entry whose home is k may move from slot j to the hole at i, that
 * is, k does not lie cyclically in (i, j]. */
static int may_shift(size_t i, size_t j, size_t k)
{
	if (i <= j)
		return k <= i || k > j;
	return k <= i && k > j;
}

void *idtab_del(struct idtab *t, uint64_t id)
{
	size_t i, j, mask;
	void *val;

	if (id == 0 || t->count == 0)
		return NULL;
	mask = t->cap - 1;
	i = probe(t, id);
	if (t->slots[i].id != id)
		return NULL;
	val = t->slots[i].val;
	for (j = (i + 1) & mask; t->slots[j].id != 0; j = (j + 1) & mask) {
		if (may_shift(i, j, home(t, t->slots[j].id))) {
			t->slots[i] = t->slots[j];
			i = j;
		}
	}
	t->slots[i].id = 0;
	t->slots[i].val = NULL;
	if (--t->count == 0)
		idtab_free(t); /* an idle session holds no table */
	return val;
}

void *idtab_next(const struct idtab *t, size_t *pos, uint64_t *id)
{
	size_t i;

	for (i = *pos; i < t->cap; i++) {
		if (t->slots[i].id != 0) {
			*pos = i + 1;
			if (id)
				*id = t->slots[i].id;
			return t->slots[i].val;
		}
	}
	*pos = t->cap;
	return NULL;
}
