/*
 * skilltree.h - the tree of a skills listing (skills.c's top comment),
 * private to sessions/live/skill*.c: its nodes, numbered in the order
 * they came, indexed by path, each folder's entries in a list.
 */
#ifndef MCPFS_SKILLTREE_H
#define MCPFS_SKILLTREE_H

#include <stdint.h>

#include "internal.h"

#define SKILL_NODES_MAX 500000   /* files and folders of one listing */

struct snode {
	char *path;           /* below skills/: "NAME", "NAME/a/b.md" */
	size_t base;          /* its last segment starts there */
	long first, last;     /* a folder: its entries, in order */
	size_t kids;          /* ... how many */
	long next;            /* the next entry of its folder */
	int isdir;
	int has_digest;       /* a file: sha holds its SHA-256 */
	unsigned char sha[32];
	long long size;       /* ... its listed size; -1: dynamic */
	char *uri;
	mcp_buf *bytes;       /* read and verified, or NULL */
	cJSON *fm;            /* a listed SKILL.md: its entry's frontmatter */
	long idx;             /* its number in the session's names, or -1 */
};

/* an open-addressing table of node numbers + 1 by path */
struct stree {
	struct snode *v;
	size_t n, cap;
	long *slot;
	size_t scap;
	long first, last;     /* skills/ itself: its entries */
	size_t kids;          /* ... how many */
	mcp_session *s;       /* while it is made: whose names number it */
};


/* FNV-1a of the n bytes at p, 64 bits. */
uint64_t skill_hash(const char *p, size_t n, uint64_t salt);
/* The node at the n bytes of path, or -1. */
long stree_at(const struct stree *t, const char *path, size_t n);
/* Room for n nodes at once (see skilltree.c): 0 or -ENOMEM. */
int stree_reserve(struct stree *t, size_t n);
/* A new node for the n bytes of path (copied) in folder parent (-1:
 * skills/), numbered in t->s's names when t->s is set: its number, or
 * -ENOMEM, -ENOSPC (SKILL_NODES_MAX). */
long stree_add(struct stree *t, const char *path, size_t n, long parent,
	       int isdir);
/* The folder at the n bytes of path, made with its parents as needed:
 * its number, -EEXIST when a file is there, or -ENOMEM, -ENOSPC. */
long stree_folder(struct stree *t, const char *path, size_t n);
void stree_free(void *t);

/* skillwalk.c: the tree of listing made now, from its reply (it was not
 * made in slices as it completed: pages.c), handed to it; NULL: ENOMEM. */
struct stree *skills_build(mcp_call *listing, mcp_session *s);

#endif
