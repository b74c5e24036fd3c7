/*
 * ctl.c - a thread's ctl file (spec 3): the verbs a user writes to it,
 * `cancel` (every call in flight or queued), `restart` (a fresh process),
 * `close` (as rmdir), `subscribe URI` and `unsubscribe URI` (spec 15,
 * subscribe.c); any other word is EINVAL and named in status.last_error
 * with the verbs (lasterr.c).
 */
#include <string.h>

#include "internal.h"
#include "task.h"

int mcp_session_ctl(mcp_session *s, const char *verb, size_t len)
{
	while (len && (verb[len - 1] == '\n' || verb[len - 1] == ' ' ||
		       verb[len - 1] == '\t' || verb[len - 1] == '\r'))
		len--;
	if (len == 6 && !memcmp(verb, "cancel", 6)) {
		mcp_call *c;
		size_t pos;

		for (;;) {
			pos = 0;
			/* not the handshake, nor a task's own request (a
			 * tasks/cancel under way, task.c) */
			while ((c = idtab_next(&s->pending, &pos, NULL)) &&
			       (c->kind == CALL_INIT || c->task == TASK_REQUEST))
				;
			if (!c)
				c = TAILQ_FIRST(&s->queue);
			if (!c) /* a modern task between polls (task.c) */
				c = task_first(s);
			if (!c)
				break;
			mcp_call_cancel(c);
		}
		return 0;
	}
	if (len == 7 && !memcmp(verb, "restart", 7)) {
		mlog(MLOG_INFO, "server %s thread %s: restart",
		     s->srv->conf->name, s->name);
		session_restart(s);
		return 0;
	}
	if (len == 5 && !memcmp(verb, "close", 5)) {
		session_close_notify(s, "ctl close");
		return 0;
	}
	if (len > 10 && !memcmp(verb, "subscribe ", 10))
		return subs_ctl(s, 1, verb + 10, len - 10);
	if (len > 12 && !memcmp(verb, "unsubscribe ", 12))
		return subs_ctl(s, 0, verb + 12, len - 12);
	session_bad_verb(s, verb, len); /* where the user looks (spec 12) */
	return -EINVAL;
}

