/*
 * writers.c - who wrote which call, so that a fresh read of a transaction
 * file reads the right one (spec 4): `echo "$req" > call; cat call`,
 * `/usr/bin/printf ... > call; cat call`, `... | tee call; cat call` and
 * tens of such shell loops on one thread, each reading its own reply.
 *
 * The rule: a read on an open file that sent nothing returns the newest
 * call written by the reader's own process; else the newest written by
 * its parent or any process the parent started (alive or gone); else by
 * the grandparent's subtree; and so on up to the top; else (callfile.c)
 * the session's latest. A fresh read of tools/X looks only at calls of X.
 *
 * Processes. FUSE names the caller by thread id; a process is named by
 * (thread id, identity), where the identity is one the kernel never gives
 * two processes: on Linux 6.9 and later (pidfs, PIDFD_THREAD) the inode
 * number of a pidfd of the thread, a 64-bit counter never reused while the
 * machine runs; on older kernels, where every pidfd shares one anonymous
 * inode, the start time (field 22 of /proc/PID/stat, clock ticks since
 * boot), which a pid reused within one tick (10 ms) defeats: the reused
 * process then passes for the writer and reads its reply. Each process is
 * one struct wproc, found in a hash by (pid, identity), with a reference
 * to its parent as it was when first seen (from the ppid of
 * /proc/PID/stat; a "parent" that started after the child is a reused
 * pid and ends the lineage), so the lineage of a writer stays known after
 * the writer, or its parent, exits. A thread other than the leader is an
 * alias node pointing at its process. Looking a process up costs one read
 * of /proc/TID/stat (plus pidfd_open, fstat and close on pidfs); a process
 * never seen before costs as much more per ancestor not seen before (and
 * one read of /proc/TID/status for a thread). procfs is generated from
 * in-memory task state and does not wait for I/O, so these synchronous
 * reads on the loop take microseconds.
 *
 * The callers of the last KEPT lookups keep their /proc/TID/stat open: an
 * open procfs file stays bound to the task it was opened for (a read fails
 * with ESRCH once that task is gone, whoever has its pid now), so the next
 * call of the same live process (a reused open file: write, read, write)
 * costs one pread and no identity check, and still sees an exec (the
 * image).
 * The last RECENT processes looked up are kept (a reference each) so that
 * the ancestors of short-lived readers stay cached; the rest lives as long
 * as a record or a child needs it.
 *
 * Records. Per owner (a thread, or a server for its one-shot call), one
 * record per (writer process, key): its newest call (a reference) and its
 * writer (a reference). A fresh read marks the reader's lineage with its
 * level (0 for the reader), then walks the records newest first: a
 * record's level is 0 if its writer is the reader, else the level of the
 * first of its writer's lineage that the reader's lineage holds (the
 * nearest common ancestor), and the lowest level wins, the newest among
 * equals. That is a walk of each record's lineage: records x depth.
 *
 * Bounds. A record can no longer be the answer of any read when its writer
 * is gone and a newer record of the same key was written from within the
 * subtree of the writer's nearest live ancestor: every reader that could
 * reach it reaches that newer one first. Such records are pruned once the
 * table has doubled since the last pruning (at least PRUNE_MIN), which
 * reads the liveness of each process once. What is left is at most one
 * record per live writer and key, plus one per subtree of live processes:
 * the table is not a cache that overflows into another writer's reply.
 * MAX_RECORDS is the generous cap of last resort: a table that holds that
 * many records after pruning refuses new calls on its owner (callfile.c
 * fails the write with EAGAIN and logs why) rather than forget a call that
 * a live writer may still read and hand that writer someone else's reply
 * (doc/mcpfs.1).
 *
 * A table goes when its owner no longer resolves (writers_sweep, called
 * by fs.c when a thread goes and here when a new owner's table is made),
 * and all of them at shutdown.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/queue.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "mlog.h"
#include "writers.h"

#define MAX_DEPTH 64        /* ancestors followed up from a process */
#define RECENT 256          /* processes kept after their lookup */
#define KEPT 16             /* callers whose /proc/TID/stat stays open */
#define HASH_SIZE 1024
#define PRUNE_MIN 64
#define MAX_RECORDS 16384   /* per owner, after pruning */

#ifndef PIDFD_THREAD
#define PIDFD_THREAD O_EXCL /* Linux 6.9 */
#endif
#ifndef PIDFS_MAGIC
#define PIDFS_MAGIC 0x50494446
#endif

struct wproc {
	pid_t pid;                /* thread group id (or a thread's id) */
	unsigned long long id;    /* identity: pidfd inode, or start time */
	unsigned long long start; /* start time, clock ticks since boot */
	struct wproc *parent;     /* as first seen (a reference); NULL: top */
	struct wproc *canon;      /* an alias: the thread's process (ref) */
	unsigned refs;
	unsigned long mark;       /* the find that marked it ... */
	int level;                /* ... and its level in the reader's line */
	unsigned long live_mark;  /* the pruning that checked it ... */
	int live;                 /* ... and whether it was alive */
	unsigned long cover;      /* a newer record's lineage holds it */
	struct wproc *hnext;
};

struct wrec {
	TAILQ_ENTRY(wrec) link;   /* newest first */
	struct wproc *w;          /* the writer (a reference) */
	unsigned long long image; /* the program it ran (parse_stat) */
	char *key;                /* "t:<name>", "p:<name>" or NULL */
	mcp_call *call;           /* its newest call of key (a reference) */
	int seen;                 /* pruning: its key was done */
};

struct wtable {
	uint64_t owner;
	unsigned n, prune_at;
	TAILQ_HEAD(, wrec) recs;
	LIST_ENTRY(wtable) link;
};

/* A caller whose /proc/TID/stat stays open (see the top). */
struct kept {
	pid_t tid;
	int fd;                   /* -1: a free slot */
	struct wproc *p;          /* its process (a reference) */
};

static LIST_HEAD(, wtable) tables = LIST_HEAD_INITIALIZER(tables);
static struct wproc *hash[HASH_SIZE];
static struct wproc *recent[RECENT];
static unsigned recent_at;
static struct kept kept[KEPT];
static unsigned kept_at, kept_n;
static unsigned long marks; /* one counter for every marking pass */
static int pidfs = -1;      /* pidfd inodes unique: 1, 0 no, -1 unknown */
static writers_probe_fn *probe_fn; /* a test's stand-in, or NULL */

/* ---- /proc and pidfds ---- */

/* Fields 3 to STAT_LAST of a stat line, given p just after the ')', in
 * one pass: f[k] for the fields in STAT_WANT, their leading decimal digits
 * as a number (0 for one past the line's end); the others are skipped. */
#define STAT_LAST 28
#define STAT_WANT (1u << 4 | 1u << 20 | 1u << 22 | 1u << 26 | 1u << 27 | \
		   1u << 28)
static void fields(const char *p, unsigned long long f[STAT_LAST + 1])
{
	unsigned long long v;
	int k;

	for (k = 3; k <= STAT_LAST; k++) {
		while (*p == ' ')
			p++;
		if (STAT_WANT >> k & 1) {
			for (v = 0; *p >= '0' && *p <= '9'; p++)
				v = v * 10 + (unsigned)(*p - '0');
			f[k] = v;
		}
		while (*p && *p != ' ')
			p++;
	}
}

/* /proc/TID/stat, read from fd at offset 0: ppid (field 4), num_threads
 * (20), starttime (22), and an id of the program image it runs: startcode,
 * endcode and startstack (26-28), which exec changes (address space
 * randomization), or 0 when procfs hides them. The name (field 2) is in
 * parentheses and may hold anything: count fields after the last ')'. */
static int parse_stat(int fd, struct writers_pinfo *pi, long *nthreads)
{
	char buf[1024], *p;
	unsigned long long f[STAT_LAST + 1];
	ssize_t n = pread(fd, buf, sizeof buf - 1, 0);

	if (n <= 0)
		return -1;
	buf[n] = 0;
	if (!(p = strrchr(buf, ')')))
		return -1;
	fields(p + 1, f);
	pi->ppid = (pid_t)f[4];
	*nthreads = (long)f[20];
	pi->start = f[22];
	pi->image = f[26] * 31 + f[27] * 17 + f[28];
	return 0;
}

/* The thread group of thread tid (/proc/TID/status, "Tgid:"). */
static pid_t read_tgid(pid_t tid)
{
	char path[40], buf[2048], *p;
	int fd;
	ssize_t n;

	snprintf(path, sizeof path, "/proc/%d/status", (int)tid);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return -1;
	n = read(fd, buf, sizeof buf - 1);
	close(fd);
	if (n <= 0)
		return -1;
	buf[n] = 0;
	if (!(p = strstr(buf, "\nTgid:")))
		return -1;
	return (pid_t)atoi(p + 6);
}

/* The identity of thread tid on pidfs (Linux 6.9 and later): the inode of
 * a pidfd of it, in *id; 0 there when the kernel has none (older kernels:
 * the caller uses the start time). 0, or -ESRCH (gone), or -ENOMEM (out
 * of memory or of file descriptors: no identity can be told). */
static int read_id(pid_t tid, unsigned long long *id)
{
	struct statfs sf;
	struct stat st;
	int fd, r = 0;

	*id = 0;
	if (!pidfs)
		return 0;
	fd = (int)syscall(SYS_pidfd_open, tid, PIDFD_THREAD);
	if (fd < 0) {
		if (errno == ESRCH)
			return -ESRCH;
		if (errno == EMFILE || errno == ENFILE)
			return -EMFILE;
		if (errno == ENOMEM)
			return -ENOMEM;
		pidfs = 0; /* no pidfd_open, or no PIDFD_THREAD: before 6.9 */
		return 0;
	}
	if (pidfs < 0)
		pidfs = fstatfs(fd, &sf) == 0 && sf.f_type == PIDFS_MAGIC;
	if (pidfs && fstat(fd, &st) == 0)
		*id = (unsigned long long)st.st_ino;
	else if (pidfs)
		r = -ENOMEM;
	close(fd);
	return r;
}

/* What the kernel says of thread tid, its identity first (so that the
 * stat read after it is of the same thread while that thread lives: a
 * FUSE caller waits in its system call). With keep, the open
 * /proc/TID/stat in *keep (else -1). 0, -ESRCH or -ENOMEM. */
static int probe(pid_t tid, struct writers_pinfo *pi, int *keep)
{
	char path[40];
	long nthreads = 1;
	int fd, r;

	if (keep)
		*keep = -1;
	if (probe_fn)
		return probe_fn(tid, pi);
	if ((r = read_id(tid, &pi->id)) < 0)
		return r;
	snprintf(path, sizeof path, "/proc/%d/stat", (int)tid);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return errno == EMFILE || errno == ENFILE ? -EMFILE : -ESRCH;
	r = parse_stat(fd, pi, &nthreads) < 0 ? -ESRCH : 0;
	if (r == 0 && keep)
		*keep = fd;
	else
		close(fd);
	if (!pi->id)
		pi->id = pi->start;
	pi->tgid = tid;
	if (r == 0 && nthreads > 1 && (pi->tgid = read_tgid(tid)) <= 0)
		pi->tgid = tid;
	return r;
}

void writers_probe_set(writers_probe_fn *fn)
{
	probe_fn = fn;
}

/* ---- process nodes ---- */

static unsigned slot(pid_t pid, unsigned long long id)
{
	return (unsigned)(((unsigned long long)pid * 2654435761u) ^ id) %
	       HASH_SIZE;
}

static struct wproc *hash_get(pid_t pid, unsigned long long id)
{
	struct wproc *p;

	for (p = hash[slot(pid, id)]; p; p = p->hnext)
		if (p->pid == pid && p->id == id)
			return p;
	return NULL;
}

static struct wproc *ref(struct wproc *p)
{
	if (p)
		p->refs++;
	return p;
}

void writers_proc_unref(struct wproc *p)
{
	while (p && --p->refs == 0) {
		struct wproc **pp = &hash[slot(p->pid, p->id)], *up;

		while (*pp != p)
			pp = &(*pp)->hnext;
		*pp = p->hnext;
		writers_proc_unref(p->canon); /* an alias has no parent */
		up = p->parent;
		free(p);
		p = up;
	}
}

/* Keep p (a node just looked up) for a while. */
static void keep(struct wproc *p)
{
	unsigned last = (recent_at + RECENT - 1) % RECENT;
	struct wproc *old = recent[recent_at];

	if (recent[last] == p)
		return;
	recent[recent_at] = ref(p); /* before the unref: old may be p */
	recent_at = (recent_at + 1) % RECENT;
	writers_proc_unref(old);
}

static struct wproc *node_new(pid_t pid, const struct writers_pinfo *pi)
{
	struct wproc *p = calloc(1, sizeof *p);
	unsigned h = slot(pid, pi->id);

	if (!p)
		return NULL;
	p->pid = pid;
	p->id = pi->id;
	p->start = pi->start;
	p->hnext = hash[h];
	hash[h] = p;
	return p;
}

/* The process of thread pid, a reference, and the image it runs (may be
 * NULL); depth: how far up we are; child_start: the start time of the
 * child whose parent pid is (a later one is a reused pid); *keepfd: as
 * probe's keep (may be NULL). */
static struct wproc *lookup(pid_t pid, int depth,
			    unsigned long long child_start,
			    unsigned long long *image, int *keepfd)
{
	struct writers_pinfo pi = {0};
	struct wproc *p, *proc;
	int r = 0;

	if (pid <= 0 || (r = probe(pid, &pi, keepfd)) < 0 ||
	    pi.start > child_start) {
		if (keepfd && *keepfd >= 0)
			close(*keepfd);
		errno = r == -ENOMEM || r == -EMFILE ? -r : ESRCH;
		return NULL;
	}
	if (image)
		*image = pi.image;
	p = hash_get(pid, pi.id);
	if (p) {
		keep(p);
		return ref(p->canon ? p->canon : p);
	}
	if (pi.tgid > 0 && pi.tgid != pid) {
		proc = lookup(pi.tgid, depth, pi.start, NULL, NULL);
		if (!proc)
			goto fail;
		if (!(p = node_new(pid, &pi))) {
			writers_proc_unref(proc);
			errno = ENOMEM;
			goto fail;
		}
		p->canon = proc;            /* the lookup's reference */
		p->refs = 1;                /* kept below, then dropped */
		keep(p);
		writers_proc_unref(p);
		return ref(proc);
	}
	p = node_new(pid, &pi);
	if (!p) {
		errno = ENOMEM;
		goto fail;
	}
	p->refs = 1;
	if (pi.ppid > 0 && depth < MAX_DEPTH &&
	    !(p->parent = lookup(pi.ppid, depth + 1, pi.start, NULL, NULL)) &&
	    (errno == ENOMEM || errno == EMFILE)) {
		int e = errno;

		writers_proc_unref(p); /* a lineage cut short would misread */
		errno = e;
		goto fail;
	}
	keep(p);
	return p;
fail:
	if (keepfd && *keepfd >= 0) {
		close(*keepfd);
		*keepfd = -1;
	}
	return NULL;
}

static void kept_drop(struct kept *k)
{
	close(k->fd);
	k->fd = -1;
	writers_proc_unref(k->p);
	k->p = NULL;
}

/* Out of file descriptors: the kept /proc files are closed (they only
 * save reads), so that the lookup can be tried once more. How many. */
static unsigned shed(void)
{
	unsigned i, n = 0;

	for (i = 0; i < kept_n; i++)
		if (kept[i].fd >= 0) {
			kept_drop(&kept[i]);
			n++;
		}
	return n;
}

struct wproc *writers_proc(pid_t pid, unsigned long long *image)
{
	struct writers_pinfo pi;
	struct wproc *p;
	struct kept *k;
	long nthreads;
	unsigned i;
	int fd;

	*image = 0;
	for (i = 0; i < kept_n; i++) {
		k = &kept[i];
		if (k->fd < 0 || k->tid != pid)
			continue;
		if (parse_stat(k->fd, &pi, &nthreads) == 0) {
			*image = pi.image; /* the same task: only exec changes */
			keep(k->p);
			return ref(k->p);
		}
		kept_drop(k); /* that task is gone */
	}
	fd = -1;
	p = lookup(pid, 0, ~0ULL, image, probe_fn ? NULL : &fd);
	if (!p && errno == EMFILE && shed())
		p = lookup(pid, 0, ~0ULL, image, probe_fn ? NULL : &fd);
	if (!p || fd < 0)
		return p;
	for (i = 0; i < kept_n && kept[i].fd >= 0; i++)
		;
	if (i < kept_n) {
		k = &kept[i];
	} else if (kept_n < KEPT) {
		k = &kept[kept_n++];
	} else {
		k = &kept[kept_at];
		kept_at = (kept_at + 1) % KEPT;
		kept_drop(k);
	}
	k->tid = pid;
	k->fd = fd;
	k->p = ref(p);
	return p;
}

/* Is p still the process it was? Read once per pruning (pass). */
static int alive(struct wproc *p, unsigned long pass)
{
	struct writers_pinfo pi = {0};

	if (p->live_mark != pass) {
		p->live_mark = pass;
		p->live = probe(p->pid, &pi, NULL) == 0 && pi.id == p->id;
	}
	return p->live;
}

/* ---- tables ---- */

static struct wtable *table_of(uint64_t owner)
{
	struct wtable *t;

	LIST_FOREACH(t, &tables, link)
		if (t->owner == owner)
			return t;
	return NULL;
}

static void rec_free(struct wrec *r)
{
	writers_proc_unref(r->w);
	mcp_call_unref(r->call);
	free(r->key);
	free(r);
}

static void drop(struct wtable *t, struct wrec *r)
{
	TAILQ_REMOVE(&t->recs, r, link);
	t->n--;
	rec_free(r);
}

static void table_free(struct wtable *t)
{
	while (!TAILQ_EMPTY(&t->recs))
		drop(t, TAILQ_FIRST(&t->recs));
	free(t);
}

static int same_key(const char *a, const char *b)
{
	return a == b || (a && b && !strcmp(a, b));
}

/* Drop the records no read can reach any more (see the top). */
static void prune(struct wtable *t)
{
	struct wrec *r, *k, *next;
	struct wproc *p;
	unsigned long pass = ++marks;

	TAILQ_FOREACH(r, &t->recs, link)
		r->seen = 0;
	TAILQ_FOREACH(k, &t->recs, link) {
		unsigned long cover;

		if (k->seen)
			continue;
		cover = ++marks; /* marks of this key's pass */
		for (r = k; r; r = next) {
			next = TAILQ_NEXT(r, link);
			if (r->seen || !same_key(r->key, k->key))
				continue;
			r->seen = 1;
			p = r->w;
			if (!alive(p, pass)) {
				while (p && !alive(p, pass))
					p = p->parent;
				if (r != k && (!p || p->cover == cover)) {
					drop(t, r);
					continue;
				}
			}
			for (p = r->w; p; p = p->parent)
				p->cover = cover;
		}
	}
}

int writers_prepare(uint64_t owner, const char *key, struct wproc *w,
		    unsigned long long image, struct wrec **rec)
{
	struct wtable *t = table_of(owner);
	struct wrec *r;

	*rec = NULL;
	if (t && t->n >= MAX_RECORDS) {
		prune(t);
		t->prune_at = t->n * 2 > PRUNE_MIN ? t->n * 2 : PRUNE_MIN;
		if (t->n >= MAX_RECORDS)
			return -EAGAIN;
	}
	if (!w)
		return 0;
	if (!t) {
		writers_sweep(); /* a new owner: forget the ones that went */
		t = calloc(1, sizeof *t);
		if (!t)
			return -ENOMEM;
		t->owner = owner;
		t->prune_at = PRUNE_MIN;
		TAILQ_INIT(&t->recs);
		LIST_INSERT_HEAD(&tables, t, link);
	}
	r = calloc(1, sizeof *r);
	if (!r || (key && !(r->key = strdup(key)))) {
		free(r);
		return -ENOMEM;
	}
	r->w = ref(w);
	r->image = image;
	*rec = r;
	return 0;
}

void writers_commit(uint64_t owner, struct wrec *rec, mcp_call *c)
{
	struct wtable *t;
	struct wrec *r;

	if (!rec)
		return;
	t = table_of(owner);
	if (!c || !t) { /* not sent, or the owner went meanwhile */
		rec_free(rec);
		return;
	}
	TAILQ_FOREACH(r, &t->recs, link)
		if (r->w == rec->w && same_key(r->key, rec->key))
			break;
	if (r)
		drop(t, r); /* the writer's previous call of this key */
	rec->call = mcp_call_ref(c);
	TAILQ_INSERT_HEAD(&t->recs, rec, link);
	t->n++;
	if (t->n > t->prune_at) {
		unsigned before = t->n;

		prune(t);
		t->prune_at = t->n * 2 > PRUNE_MIN ? t->n * 2 : PRUNE_MIN;
		mlog(MLOG_DEBUG, "writers: %u of %u records kept", t->n,
		     before);
	}
}

int writers_find(uint64_t owner, const char *key, pid_t pid,
		 mcp_call **found)
{
	struct wtable *t = table_of(owner);
	struct wrec *r, *best = NULL, *newest = NULL;
	struct wproc *reader, *p;
	unsigned long long image;
	int level, best_level = MAX_DEPTH + 3;

	*found = NULL;
	if (!t || TAILQ_EMPTY(&t->recs))
		return 0;
	reader = writers_proc(pid, &image);
	if (!reader && (errno == ENOMEM || errno == EMFILE))
		return -errno; /* not someone else's reply */
	marks++;
	for (p = reader, level = 1; p; p = p->parent, level++) {
		p->mark = marks;
		p->level = level;
	}
	TAILQ_FOREACH(r, &t->recs, link) {
		if (key && !same_key(r->key, key))
			continue;
		if (!newest)
			newest = r;
		level = -1;
		if (r->w == reader && r->image == image)
			level = 0;
		for (p = r->w; level < 0 && p; p = p->parent)
			if (p->mark == marks)
				level = p->level;
		if (level >= 0 && level < best_level) {
			best = r;
			best_level = level;
			if (!level)
				break;
		}
	}
	writers_proc_unref(reader);
	if (best)
		*found = best->call;
	else if (key && newest)
		*found = newest->call;
	return 0;
}

void writers_sweep(void)
{
	struct wtable *t = LIST_FIRST(&tables), *next;
	struct mcp_stat st;

	for (; t; t = next) {
		next = LIST_NEXT(t, link);
		if (mcp_lookup(t->owner, MCP_ANY, &st) < 0) {
			LIST_REMOVE(t, link);
			table_free(t);
		}
	}
}

void writers_clear(void)
{
	struct wtable *t;
	unsigned i;

	while ((t = LIST_FIRST(&tables)) != NULL) {
		LIST_REMOVE(t, link);
		table_free(t);
	}
	for (i = 0; i < kept_n; i++)
		if (kept[i].fd >= 0)
			kept_drop(&kept[i]);
	kept_n = kept_at = 0;
	for (i = 0; i < RECENT; i++) {
		writers_proc_unref(recent[i]);
		recent[i] = NULL;
	}
}
