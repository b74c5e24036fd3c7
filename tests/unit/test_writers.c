/*
 * test_writers.c - the read rule's writer identity (fs/writers.c, spec 4)
 * with a stand-in for /proc and pidfds: a pid reused within one clock tick
 * (same pid, same start time) by a process that never wrote must not read
 * the call of the process that had that pid before; a "parent" that
 * started after its child is a reused pid, not the parent; an exec is
 * seen; and the newest call of the reader's nearest subtree wins.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "mlog.h"
#include "writers.h"

/* ---- what writers.c needs of sessions/ ---- */

struct mcp_call {
	unsigned refs;
	const char *text;
};

mcp_call *mcp_call_ref(mcp_call *c)
{
	if (c)
		c->refs++;
	return c;
}

void mcp_call_unref(mcp_call *c)
{
	if (c)
		c->refs--;
}

static char a_session; /* thread 1, the one tested, exists */

int mcp_lookup(uint64_t id, enum mcp_kind kind, struct mcp_stat *st)
{
	if (id != 1 || (kind != MCP_ANY && kind != MCP_THREAD))
		return -ENOENT;
	*st = (struct mcp_stat){ .kind = MCP_THREAD, .id = 1,
				 .session = (mcp_session *)&a_session };
	return 0;
}

void mlog(int level, const char *fmt, ...)
{
}

/* ---- the processes the kernel would show ---- */

#define NPROCS 16
static struct proc {
	pid_t pid;
	struct writers_pinfo pi;
} procs[NPROCS];

static void spawn(pid_t pid, pid_t ppid, unsigned long long id,
		  unsigned long long start)
{
	int i;

	for (i = 0; i < NPROCS && procs[i].pid; i++)
		;
	assert_true(i < NPROCS);
	procs[i].pid = pid;
	procs[i].pi.ppid = ppid;
	procs[i].pi.tgid = pid;
	procs[i].pi.id = id;
	procs[i].pi.start = start;
	procs[i].pi.image = 7;
}

static struct proc *find(pid_t pid)
{
	int i;

	for (i = 0; i < NPROCS; i++)
		if (procs[i].pid == pid)
			return &procs[i];
	return NULL;
}

static void reap(pid_t pid)
{
	struct proc *p = find(pid);

	assert_non_null(p);
	memset(p, 0, sizeof *p);
}

/* ---- failures on demand ---- */

static pid_t probe_fails;   /* this pid's probe fails ... */
static int probe_error;     /* ... with this -errno */
static int calloc_fail_at;  /* the nth calloc from now fails (0: none) */
static int calloc_failed;   /* how many calloc failed */

static long live;            /* writers.c's blocks not freed yet */

/* writers.c's calloc, strdup and free (linked with --wrap of each,
 * tests/unit/meson.build): its only allocations and their frees */
void *__real_calloc(size_t n, size_t size);
void *__wrap_calloc(size_t n, size_t size);
void *__wrap_calloc(size_t n, size_t size)
{
	void *p;

	if (calloc_fail_at > 0 && --calloc_fail_at == 0) {
		calloc_failed++;
		errno = ENOMEM;
		return NULL;
	}
	if ((p = __real_calloc(n, size)) != NULL)
		live++;
	return p;
}

char *__real_strdup(const char *s);
char *__wrap_strdup(const char *s);
char *__wrap_strdup(const char *s)
{
	char *p = __real_strdup(s);

	if (p)
		live++;
	return p;
}

void __real_free(void *p);
void __wrap_free(void *p);
void __wrap_free(void *p)
{
	if (p)
		live--;
	__real_free(p);
}

/* Every process node, table and record writers.c made is freed once it
 * lets go of everything (a reference kept too many keeps a node). */
static void assert_all_freed(void)
{
	writers_clear();
	assert_int_equal(live, 0);
}

static int fake_probe(pid_t tid, struct writers_pinfo *pi)
{
	struct proc *p = find(tid);

	if (tid == probe_fails)
		return probe_error;
	if (!p)
		return -ESRCH;
	*pi = p->pi;
	return 0;
}

static int setup(void **state)
{
	memset(procs, 0, sizeof procs);
	probe_fails = 0;
	calloc_fail_at = calloc_failed = 0;
	live = 0; /* what a test that failed left is not the next one's */
	writers_probe_set(fake_probe);
	spawn(1, 0, 1, 0);       /* init */
	spawn(50, 1, 500, 100);  /* the shell (the test) */
	return 0;
}

static int teardown(void **state)
{
	writers_clear();
	writers_probe_set(NULL);
	return 0;
}

/* Process pid writes call c on thread 1. */
static void write_call(pid_t pid, mcp_call *c)
{
	unsigned long long image;
	struct wproc *w = writers_proc(pid, &image);
	struct wrec *rec;

	assert_non_null(w);
	assert_int_equal(writers_prepare(1, NULL, w, image, &rec), 0);
	writers_commit(1, rec, c);
	writers_proc_unref(w);
}

static const char *read_call(pid_t pid)
{
	mcp_call *c = NULL;

	assert_int_equal(writers_find(1, NULL, pid, &c), 0);
	return c ? c->text : NULL;
}

/* A child A of the shell writes Y and exits; the shell writes X; a new
 * child B gets A's pid in the same clock tick (the same start time) and
 * reads without having written: it reads its parent's X. With the start
 * time as the identity (kernels before 6.9), B passed for A and read Y. */
static void test_reused_pid_in_one_tick(void **state)
{
	mcp_call y = {0, "Y"}, x = {0, "X"};

	spawn(100, 50, 1001, 230);
	write_call(100, &y);
	reap(100);
	write_call(50, &x);
	spawn(100, 50, 1002, 230); /* same pid, same tick, new process */
	assert_string_equal(read_call(100), "X");
	/* and A's own reply is still A's: a reader in A's place reads Y */
	reap(100);
	spawn(100, 50, 1001, 230);
	assert_string_equal(read_call(100), "Y");
}

/* The reader's own call wins over its parent's newer one. */
static void test_own_call_first(void **state)
{
	mcp_call y = {0, "Y"}, x = {0, "X"};

	spawn(100, 50, 1001, 230);
	write_call(100, &y);
	write_call(50, &x);
	assert_string_equal(read_call(100), "Y");
	spawn(101, 50, 1003, 240); /* a sibling: the shell's subtree */
	assert_string_equal(read_call(101), "X");
}

/* A reader whose parent pid now names a process that started after it
 * (its parent exited, the pid was reused) has no parent there: it does
 * not read the new holder's call as its parent's. */
static void test_parent_started_later_is_not_the_parent(void **state)
{
	mcp_call z = {0, "Z"}, w = {0, "W"};

	spawn(60, 1, 600, 500);    /* started after the reader below */
	spawn(200, 60, 2001, 400); /* its ppid 60 is a reused pid */
	write_call(60, &z);
	write_call(50, &w);
	/* no lineage holds a call: the caller falls back to the session's
	 * latest (callfile.c), rather than Z as the "parent's" */
	assert_null(read_call(200));
}

/* The same process after an exec reads its pre-exec call too (own
 * subtree), and a call written after the exec is its own. */
static void test_exec_is_seen(void **state)
{
	mcp_call a = {0, "A"}, b = {0, "B"};

	spawn(100, 50, 1001, 230);
	write_call(100, &a);
	find(100)->pi.image = 8; /* exec */
	assert_string_equal(read_call(100), "A");
	write_call(100, &b);
	assert_string_equal(read_call(100), "B");
}

/* At shutdown (writers_clear) every record goes, and with it the
 * reference it held on its call. */
static void test_clear_lets_go_of_every_call(void **state)
{
	static mcp_call a = {0, "A"}, b = {0, "B"};

	spawn(100, 50, 1001, 230);
	write_call(100, &a);
	write_call(50, &b);
	assert_int_equal(a.refs + b.refs, 2);
	writers_clear();
	assert_int_equal(a.refs, 0);
	assert_int_equal(b.refs, 0);
}

/* One live process that wrote 16384 different tools' calls on a thread
 * has 16384 records no pruning can drop: the next call is refused
 * (EAGAIN, doc/decisions.md) rather than the table growing further. */
static void test_records_per_thread_are_capped(void **state)
{
	static mcp_call c = {0, "C"};
	unsigned long long image;
	struct wproc *w;
	struct wrec *rec;
	char key[32];
	int i;

	spawn(100, 50, 1001, 230);
	w = writers_proc(100, &image);
	assert_non_null(w);
	for (i = 0; i < 16384; i++) {
		snprintf(key, sizeof key, "t:tool%d", i);
		assert_int_equal(writers_prepare(1, key, w, image, &rec), 0);
		writers_commit(1, rec, &c);
	}
	assert_int_equal(writers_prepare(1, "t:one-more", w, image, &rec),
			 -EAGAIN);
	assert_null(rec);
	writers_proc_unref(w);
}

/* A parent that cannot be looked up for want of descriptors or memory
 * fails the child's lookup with that errno: a lineage cut short there
 * would make the reader miss its parent's call (and keep missing it:
 * the node is kept); a parent that is gone (ESRCH) only ends it. */
static void test_parent_out_of_descriptors_fails_the_lookup(void **state)
{
	static mcp_call x = {0, "X"};
	unsigned long long image;
	mcp_call *c = NULL;
	struct wproc *w;

	write_call(50, &x);
	spawn(100, 50, 1001, 230);
	probe_fails = 50;
	probe_error = -EMFILE;
	errno = 0;
	assert_null(writers_proc(100, &image));
	assert_int_equal(errno, EMFILE);
	assert_int_equal(writers_find(1, NULL, 100, &c), -EMFILE);
	probe_error = -ENOMEM;
	assert_int_equal(writers_find(1, NULL, 100, &c), -ENOMEM);
	probe_fails = 0; /* nothing of the failures was kept */
	assert_string_equal(read_call(100), "X");
	/* a parent gone (ESRCH) only ends the lineage */
	spawn(101, 60, 1002, 240);
	w = writers_proc(101, &image);
	assert_non_null(w);
	writers_proc_unref(w);
	assert_null(read_call(101));
}

/* Each allocation of a write (the writer's node, its parents', the
 * thread's table, the record) failing in turn: the write fails ENOMEM,
 * never succeeds with the failure swallowed, and the next write works. */
static void test_out_of_memory_at_each_allocation(void **state)
{
	static mcp_call y = {0, "Y"};
	unsigned long long image;
	struct wproc *w;
	struct wrec *rec;
	int k, r;

	spawn(100, 50, 1001, 230);
	for (k = 1;; k++) {
		assert_all_freed();
		calloc_failed = 0;
		calloc_fail_at = k;
		errno = 0;
		w = writers_proc(100, &image);
		if (!w) {
			assert_int_equal(errno, ENOMEM);
			assert_int_equal(calloc_failed, 1);
			continue;
		}
		r = writers_prepare(1, NULL, w, image, &rec);
		writers_proc_unref(w);
		if (r) {
			assert_int_equal(r, -ENOMEM);
			assert_null(rec);
			assert_int_equal(calloc_failed, 1);
			continue;
		}
		writers_commit(1, rec, &y);
		assert_int_equal(calloc_failed, 0); /* none swallowed */
		break;
	}
	calloc_fail_at = 0;
	/* 100, 50, 1: three nodes, the table, the record */
	assert_int_equal(k, 6);
	assert_string_equal(read_call(100), "Y");
	assert_all_freed();
}

/* A thread (101, of process 100) looked up while memory runs out at
 * each allocation in turn (its process's nodes 100, 50, 1, then its
 * own): the lookup fails ENOMEM and lets go of all it made, the process
 * it looked up first too; the next lookup gives the process. */
static void test_thread_out_of_memory_lets_go_of_its_process(void **state)
{
	unsigned long long image;
	struct wproc *w;
	int k;

	spawn(100, 50, 1001, 230);
	spawn(101, 50, 1002, 231);
	find(101)->pi.tgid = 100;
	for (k = 1;; k++) {
		assert_all_freed();
		calloc_failed = 0;
		calloc_fail_at = k;
		errno = 0;
		if ((w = writers_proc(101, &image)) != NULL)
			break;
		assert_int_equal(errno, ENOMEM);
		assert_int_equal(calloc_failed, 1);
	}
	calloc_fail_at = 0;
	assert_int_equal(calloc_failed, 0);
	assert_int_equal(k, 5);
	assert_ptr_equal(w, writers_proc(100, &image)); /* the process */
	writers_proc_unref(w);
	writers_proc_unref(w);
	assert_all_freed();
}

/* A table at the cap that holds records of writers gone since is pruned
 * before the cap refuses: 14 children of the shell, alive, write 16384
 * calls (no pruning can drop a live writer's), then exit; the next
 * call, of another child, is taken (each key's newest record is kept,
 * the others are covered by it) instead of refused EAGAIN. */
static void test_records_of_gone_writers_free_the_cap(void **state)
{
	static mcp_call c = {0, "C"}, d = {0, "D"};
	unsigned long long image;
	struct wproc *w[14];
	struct wrec *rec;
	char key[32];
	int i, k, n = 0;

	for (i = 0; i < 14; i++) {
		spawn(100 + i, 50, 1001 + i, 230 + i);
		w[i] = writers_proc(100 + i, &image);
		assert_non_null(w[i]);
	}
	for (k = 0; n < 16384; k++)
		for (i = 0; i < 14 && n < 16384; i++, n++) {
			snprintf(key, sizeof key, "t:tool%d", k);
			assert_int_equal(writers_prepare(1, key, w[i], image,
							 &rec), 0);
			writers_commit(1, rec, &c);
		}
	for (i = 0; i < 14; i++) {
		writers_proc_unref(w[i]);
		reap(100 + i);
	}
	spawn(200, 50, 2001, 300);
	write_call(200, &d);
	assert_string_equal(read_call(200), "D");
	assert_all_freed();
	assert_int_equal(c.refs + d.refs, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_reused_pid_in_one_tick,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_own_call_first, setup,
						teardown),
		cmocka_unit_test_setup_teardown(
			test_parent_started_later_is_not_the_parent, setup,
			teardown),
		cmocka_unit_test_setup_teardown(test_exec_is_seen, setup,
						teardown),
		cmocka_unit_test_setup_teardown(
			test_clear_lets_go_of_every_call, setup, teardown),
		cmocka_unit_test_setup_teardown(
			test_records_per_thread_are_capped, setup, teardown),
		cmocka_unit_test_setup_teardown(
			test_parent_out_of_descriptors_fails_the_lookup, setup,
			teardown),
		cmocka_unit_test_setup_teardown(
			test_out_of_memory_at_each_allocation, setup, teardown),
		cmocka_unit_test_setup_teardown(
			test_records_of_gone_writers_free_the_cap, setup,
			teardown),
		cmocka_unit_test_setup_teardown(
			test_thread_out_of_memory_lets_go_of_its_process,
			setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
