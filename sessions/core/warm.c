/*
 * warm.c - creating thread sessions (mkdir) under the session cap, and
 * holding them while files of theirs are open (no idle close) (spec 5:
 * at --max-sessions, mkdir closes the least recently used idle thread, or
 * fails with EAGAIN when every thread is busy; nothing else closes a
 * thread for the cap), and the spare sessions of a server whose config
 * entry says "warm": N. A spare is a started session
 * with no name: its server runs and its handshake is done (or under way)
 * before anyone asks, so mkdir adopts one at once, names it and starts
 * another in the background. Spares are not threads: they are not in the
 * tree, not counted against the session cap, never picked by it to close,
 * and never reaped as idle. A spare that dies is closed and not restarted
 * until the next mkdir or reload asks for spares again, so a server that
 * cannot start does not spin. The spare that replaces an adopted one is
 * started REFILL_DELAY later, so that its start (a node server takes a
 * second of CPU) does not slow the first calls on the thread that was
 * just adopted.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "index.h"
#include "internal.h"

#define REFILL_DELAY 1000 /* ms */

static uv_timer_t refill;
static int refill_on, stopped;
/* Servers waiting for the refill. A server that leaves the config stays
 * allocated (and marked removed) until shutdown, which stops this first. */
static mcp_server *waiting[64];
static unsigned nwaiting;

/* The spare to adopt: a ready one, else one still starting. */
static mcp_session *pick(mcp_server *srv)
{
	mcp_session *s, *best = NULL;

	LIST_FOREACH(s, &srv->spares, srv_link) {
		if (s->state == S_READY)
			return s;
		if (s->state == S_STARTING && !best)
			best = s;
	}
	return best;
}

void session_warm(mcp_server *srv)
{
	mcp_session *s;

	if (srv->removed || stopped)
		return;
	while (srv->nspares > srv->conf->warm)
		session_close(LIST_FIRST(&srv->spares), "fewer spares");
	while (srv->nspares < srv->conf->warm) {
		s = session_new(srv, "", 0, 1);
		if (!s)
			return;
		if (session_start(s) < 0 && s->state == S_EXITED) {
			mlog(MLOG_WARN, "server %s: a spare session cannot "
			     "start: %s", srv->conf->name,
			     s->last_error ? s->last_error : "");
			session_close(s, "spare failed to start");
			return;
		}
	}
}

static void refill_cb(uv_timer_t *t)
{
	unsigned i, n = nwaiting;

	nwaiting = 0;
	for (i = 0; i < n; i++)
		session_warm(waiting[i]);
}

static void refill_later(mcp_server *srv)
{
	unsigned i;

	if (stopped || !srv->conf->warm)
		return;
	for (i = 0; i < nwaiting && waiting[i] != srv; i++)
		;
	if (i == nwaiting) {
		if (nwaiting == sizeof waiting / sizeof waiting[0]) {
			session_warm(srv);
			return;
		}
		waiting[nwaiting++] = srv;
	}
	if (!refill_on) {
		uv_timer_init(process.loop, &refill);
		refill_on = 1;
	}
	if (!uv_is_active((uv_handle_t *)&refill))
		uv_timer_start(&refill, refill_cb, REFILL_DELAY, 0);
}

void session_warm_stop(void)
{
	stopped = 1;
	if (refill_on)
		uv_close((uv_handle_t *)&refill, NULL);
	refill_on = 0;
}

void session_spares_close(mcp_server *srv, const char *why)
{
	while (!LIST_EMPTY(&srv->spares))
		session_close(LIST_FIRST(&srv->spares), why);
}

static char cap_refusal[300]; /* the last mkdir refused at the cap */

/* mkdir of thread name of server srv refused at the cap: log it and keep
 * it for .status. */
static void cap_refused(const char *srv, const char *name)
{
	time_t now = time(NULL);
	struct tm tm;
	char when[32] = "";

	if (gmtime_r(&now, &tm))
		strftime(when, sizeof when, "%Y-%m-%dT%H:%M:%SZ", &tm);
	snprintf(cap_refusal, sizeof cap_refusal, "%s: mkdir %s/%s refused "
		 "(EAGAIN): the session cap (--max-sessions %u) is reached "
		 "and every session is busy (a call in flight or an open "
		 "file)", when, srv, name, process.opts.max_sessions);
	mlog(MLOG_WARN, "%s", cap_refusal + strlen(when) + 2);
}

const char *session_cap_refusal(void)
{
	return cap_refusal[0] ? cap_refusal : NULL;
}

/* The names a server directory holds itself (fs/kinds.c's KF_SERVER). */
static const char *const reserved[] = { "call", "tools.json", "help", "auth" };

int mcp_thread_name_check(const char *name)
{
	size_t i;

	if (!name || !mcp_thread_name_valid(name))
		return -EINVAL;
	for (i = 0; i < sizeof reserved / sizeof *reserved; i++)
		if (!strcmp(name, reserved[i]))
			return -EEXIST;
	return 0;
}

int mcp_session_create(mcp_server *srv, const char *name,
		       struct mcp_stat *st)
{
	mcp_session *s;
	int r = mcp_thread_name_check(name);

	if (r < 0)
		return r;
	if (mcp_session_find(srv, name))
		return -EEXIST;
	if (process.opts.max_sessions) { /* the cap: make room, or refuse */
		while (session_live_count() >= process.opts.max_sessions &&
		       (s = sessions_lru_idle()) != NULL)
			session_close_notify(s, "session cap");
		if (session_live_count() >= process.opts.max_sessions) {
			cap_refused(srv->conf->name, name);
			return -EAGAIN;
		}
	}
	if ((s = pick(srv)) != NULL && sessions_adopt(s, name) == 0) {
		session_idle_check(s);
		mlog(MLOG_INFO, "server %s thread %s: adopted a spare session "
		     "(gen %u)", srv->conf->name, name, s->generation);
		refill_later(srv);
		mcp_session_stat(s, st);
		return 0;
	}
	s = session_new(srv, name, 0, 0);
	if (!s)
		return -ENOMEM;
	session_start(s);
	refill_later(srv);
	mcp_session_stat(s, st);
	return 0;
}

/* An open file of a thread holds it: no idle close meanwhile. */
void mcp_session_hold(mcp_session *s)
{
	s->holds++;
	uv_timer_stop(&s->idle_timer);
}

void mcp_session_release(mcp_session *s)
{
	if (s->holds > 0)
		s->holds--;
	if (!s->closed)
		session_idle_check(s);
}
