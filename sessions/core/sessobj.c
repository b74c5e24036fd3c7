/*
 * sessobj.c - a session object: made (session_new) and freed once its
 * timer is closed (session_free), with what each feature of it holds.
 * The lifecycle around it (start, crash, idle, close, restart) is
 * session.c's.
 */
#include <stdio.h>
#include <stdlib.h>

#include "index.h"
#include "internal.h"
#include "lost.h"
#include "mrtr.h"
#include "pages.h"
#include "stream.h"
#include "task.h"

mcp_session *session_new(mcp_server *srv, const char *name, int oneshot,
			 int spare)
{
	mcp_session *s = calloc(1, sizeof *s);

	if (!s)
		return NULL;
	s->id = mcp_new_id();
	snprintf(s->name, sizeof s->name, "%s", name);
	s->srv = srv;
	s->oneshot = oneshot;
	s->spare = spare;
	s->state = S_IDLE;
	s->created = s->last_used = mcp_now();
	s->next_id = 1;
	idtab_init(&s->pending);
	TAILQ_INIT(&s->queue);
	windows_init(s);
	if (sessions_link(s) < 0) {
		free(s);
		return NULL;
	}
	uv_timer_init(process.loop, &s->idle_timer);
	s->idle_timer.data = s;
	session_obj_hold();
	return s;
}

static void free_cb(uv_handle_t *h)
{
	mcp_session *s = h->data;

	idtab_free(&s->pending);
	cJSON_Delete(s->server_info);
	cJSON_Delete(s->capabilities);
	cJSON_Delete(s->subs);
	free(s->last_error);
	cJSON_Delete(s->call_error);
	lost_free(s);
	session_list_forget(s, MCP_NLISTS);
	windows_free(s);
	res_kept_free(s);
	surface_free(s);
	result_free(s);
	tasks_free(s);
	stream_free(s);
	free(s);
	session_obj_drop();
}

void session_free(mcp_session *s)
{
	uv_close((uv_handle_t *)&s->idle_timer, free_cb);
}

void session_call_detached(mcp_session *s, mcp_call *c)
{
	task_unlist(s, c);
	stream_forget(s, c);
}

void session_call_freed(mcp_call *c)
{
	task_free(c);
	mrtr_free(c);
	pages_release(c);
	surface_index_free(c);
	skills_release(c);
}
