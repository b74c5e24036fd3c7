/*
 * idtab.h - JSON-RPC request table: pending requests keyed by integer id.
 * Open addressing with linear probing and backward-shift deletion; grows as
 * needed. Values are opaque pointers owned by the caller.
 */
#ifndef MCPFS_IDTAB_H
#define MCPFS_IDTAB_H

#include <stddef.h>
#include <stdint.h>

struct idtab {
	struct idtab_slot { uint64_t id; void *val; } *slots; /* id 0 = empty */
	size_t cap, count;
};

void idtab_init(struct idtab *t);
void idtab_free(struct idtab *t);
/* id must be non-zero and not present. Returns 0 or -ENOMEM. */
int idtab_put(struct idtab *t, uint64_t id, void *val);
void *idtab_get(const struct idtab *t, uint64_t id);
/* Removes and returns the value, NULL if absent. */
void *idtab_del(struct idtab *t, uint64_t id);
/* Iterate: start with *pos = 0; returns NULL at the end. */
void *idtab_next(const struct idtab *t, size_t *pos, uint64_t *id);

#endif
