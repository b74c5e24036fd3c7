/*
 * index.c - the index of sessions: every live session (threads and
 * one-shots), each server's threads by name, threads by id for fs/, the
 * idle test and the least recently used idle thread (for the cap), each
 * server's spare sessions (warm.c; not threads, not counted), and the
 * count of objects shutdown waits for. Looks and counts only: closing a
 * session is session.c's, which uses this file and is never used by it.
 */
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "index.h"
#include "internal.h"

struct sessions_process process;

static uint64_t id_counter;
static LIST_HEAD(, mcp_session) all_sessions =
	LIST_HEAD_INITIALIZER(all_sessions);
static struct idtab session_ids;  /* threads by id */
static unsigned closing_objects;  /* transports, sessions not yet freed */
static void (*reaped_cb)(void);

double mcp_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

uint64_t mcp_new_id(void)
{
	return ++id_counter;
}

void index_init(void)
{
	idtab_init(&session_ids);
}

void index_fini(void)
{
	idtab_free(&session_ids);
}

/* ---- objects shutdown waits for: held from creation until freed ---- */

void session_obj_hold(void)
{
	closing_objects++;
}

void session_obj_drop(void)
{
	if (--closing_objects == 0 && reaped_cb)
		reaped_cb();
}

void sessions_when_reaped(void (*cb)(void))
{
	reaped_cb = cb;
	if (closing_objects == 0)
		cb();
}

/* ---- membership ---- */

int sessions_link(mcp_session *s)
{
	mcp_server *srv = s->srv;

	if (!s->oneshot && !s->spare &&
	    idtab_put(&session_ids, s->id, s) < 0)
		return -ENOMEM; /* a thread no lookup would find */
	LIST_INSERT_HEAD(&all_sessions, s, link);
	if (s->oneshot)
		return 0;
	if (s->spare) {
		LIST_INSERT_HEAD(&srv->spares, s, srv_link);
		srv->nspares++;
		return 0;
	}
	LIST_INSERT_HEAD(&srv->sessions, s, srv_link);
	srv->nsessions++;
	return 0;
}

void sessions_unlink(mcp_session *s)
{
	LIST_REMOVE(s, link);
	if (s->oneshot)
		return;
	LIST_REMOVE(s, srv_link);
	if (s->spare) {
		s->srv->nspares--;
		return;
	}
	s->srv->nsessions--;
	idtab_del(&session_ids, s->id);
}

int sessions_adopt(mcp_session *s, const char *name)
{
	mcp_server *srv = s->srv;

	if (idtab_put(&session_ids, s->id, s) < 0)
		return -ENOMEM; /* it stays a spare */
	LIST_REMOVE(s, srv_link);
	srv->nspares--;
	s->spare = 0;
	snprintf(s->name, sizeof s->name, "%s", name);
	LIST_INSERT_HEAD(&srv->sessions, s, srv_link);
	srv->nsessions++;
	return 0;
}

mcp_session *sessions_any(void)
{
	return LIST_FIRST(&all_sessions);
}

unsigned session_live_count(void)
{
	unsigned n = 0;
	mcp_session *s;

	LIST_FOREACH(s, &all_sessions, link)
		if (!s->oneshot && !s->spare)
			n++;
	return n;
}

int session_idle(const mcp_session *s)
{
	size_t pos = 0;

	return !s->closed && !s->holds && TAILQ_EMPTY(&s->queue) &&
	       (!idtab_next(&s->pending, &pos, NULL) ||
		(s->init && s->pending.count == 1));
}

mcp_session *sessions_lru_idle(void)
{
	mcp_session *s, *best = NULL;

	LIST_FOREACH(s, &all_sessions, link)
		if (!s->oneshot && !s->spare && session_idle(s) &&
		    (!best || s->last_used < best->last_used))
			best = s;
	return best;
}

/* ---- lookups and accessors for fs/ ---- */

mcp_session *mcp_session_next(mcp_server *srv, mcp_session *prev)
{
	return prev ? LIST_NEXT(prev, srv_link) : LIST_FIRST(&srv->sessions);
}

mcp_session *mcp_session_find(mcp_server *srv, const char *name)
{
	mcp_session *s;

	LIST_FOREACH(s, &srv->sessions, srv_link)
		if (!strcmp(s->name, name))
			return s;
	return NULL;
}

mcp_session *mcp_session_by_id(uint64_t id)
{
	return idtab_get(&session_ids, id);
}

void mcp_session_stat(const mcp_session *s, struct mcp_stat *st)
{
	*st = (struct mcp_stat){ .kind = MCP_THREAD, .id = s->id,
				 .server_id = s->srv->id, .thread_id = s->id,
				 .name = s->name,
				 .server = s->srv,
				 .session = (mcp_session *)s,
				 .created = s->created, .used = s->last_used,
				 .asks = s->nasks };
}

/* ---- the threads closed lately (.status, spec 5) ---- */

#define CLOSED_KEEP 64

static struct closed {
	char server[256], thread[129], reason[16];
	double when;
} closed_ring[CLOSED_KEEP];
static unsigned closed_n; /* how many were ever noted */

/* The word of spec 5 for session.c's reason. */
static const char *reason_word(const char *why)
{
	static const struct {
		const char *why, *word;
	} words[] = {
		{"idle", "idle"}, {"session cap", "cap"}, {"rmdir", "rmdir"},
		{"ctl", "ctl"}, {"config changed", "config change"},
		{"server removed", "config change"},
		{"shutting down", "unmount"},
	};
	size_t i;

	for (i = 0; i < sizeof words / sizeof words[0]; i++)
		if (!strncmp(why, words[i].why, strlen(words[i].why)))
			return words[i].word;
	return why;
}

void sessions_closed_note(const mcp_session *s, const char *why)
{
	struct closed *c = &closed_ring[closed_n++ % CLOSED_KEEP];

	snprintf(c->server, sizeof c->server, "%s", s->srv->conf->name);
	snprintf(c->thread, sizeof c->thread, "%s", s->name);
	snprintf(c->reason, sizeof c->reason, "%s", reason_word(why));
	c->when = mcp_now();
}

cJSON *sessions_closed_json(void)
{
	cJSON *a = cJSON_CreateArray();
	unsigned i, n = closed_n < CLOSED_KEEP ? closed_n : CLOSED_KEEP;

	for (i = 0; a && i < n; i++) { /* newest first */
		const struct closed *c =
			&closed_ring[(closed_n - 1 - i) % CLOSED_KEEP];
		cJSON *o = cJSON_CreateObject();
		time_t t = (time_t)c->when;
		struct tm tm;
		char ts[32];

		gmtime_r(&t, &tm);
		strftime(ts, sizeof ts, "%Y-%m-%dT%H:%M:%SZ", &tm);
		cJSON_AddStringToObject(o, "server", c->server);
		cJSON_AddStringToObject(o, "thread", c->thread);
		cJSON_AddStringToObject(o, "closed", ts);
		cJSON_AddStringToObject(o, "reason", c->reason);
		cJSON_AddItemToArray(a, o);
	}
	return a;
}
