/*
 * task.c - tool calls run as tasks, on both eras, transparent to call and
 * tools/X: the reader sees only the final result (spec 15).
 *
 * 2025-11-25 (SEP-1686): a tool whose listing says execution.taskSupport
 * "required" works in the plain {"name", "arguments"} form:
 *
 *   tools/call + "task": {}  ->  CreateTaskResult {task: {taskId, ...}}
 *   tasks/result {taskId}    ->  (blocks until the task ends) the result
 *
 * A user's own "task" member is forwarded as written and left to the user
 * (the reply is the CreateTaskResult).
 *
 * 2026-07-28 (the extension io.modelcontextprotocol/tasks, SEP-2663):
 * mcpfs declares the extension in every request's clientCapabilities
 * (era.c) and a server may answer any tools/call with
 * {"resultType": "task", "taskId", "status", "pollIntervalMs", ...}; mcpfs
 * polls tasks/get at that interval (50 ms to 5 s) until the task ends:
 * "completed" completes the call with its result, "failed" with its error,
 * "cancelled" with an error that says so; "input_required" asks its
 * inputRequests as MRTR does (mrtr_ask, requests/) and sends the answers
 * with tasks/update, each key asked once.
 *
 * On both eras a task is listed in its thread's tasks/ while it runs
 * (tasks/ID: the Task as last seen, from the CreateTaskResult, each
 * tasks/get and notifications/tasks[/status]); on 2025-11-25 tasks/get
 * polls only that view (a server that answers it with an error is not
 * polled again). The call keeps its one timer over everything; a change
 * of the task's lastUpdatedAt counts as progress (call_progress). Ctrl-C,
 * ctl cancel and the timeout send tasks/cancel.
 *
 * A tool call over modern HTTP waits here for the tools listing all the
 * same, since its Mcp-Param-* headers come from the tool's inputSchema
 * (era.c).
 */
#include <stdlib.h>
#include <string.h>

#include "ctlesc.h"
#include "internal.h"
#include "mrtr.h"
#include "pages.h"
#include "policy.h"
#include "task.h"

#define TASK_NUM_MAX 1000000 /* numbers fit the 20-bit index of fs/ inodes */
#define TASK_ID_MAX 128
#define POLL_MS_MIN 50
#define POLL_MS_MAX 5000
#define POLL_MS_DEFAULT 1000

/* A call's task (mcp_call.tk), from its CreateTaskResult to the call's
 * end; listed in tasks/ while the call runs. */
struct task {
	mcp_call *c;             /* whose (c frees it: task_free) */
	char id[TASK_ID_MAX];
	char file[TASK_ID_MAX];  /* its name in tasks/ */
	unsigned long num;       /* its number in tasks/ (0: not listed) */
	TAILQ_ENTRY(task) link;  /* on its session's tasks */
	cJSON *state;            /* the Task as last seen (tasks/ID) */
	cJSON *seen;             /* input request keys asked already */
	unsigned ms;             /* the poll interval */
};

/* A session's tasks/ (mcp_session.tasks), made at its first task. */
struct tasks {
	TAILQ_HEAD(, task) list; /* listed, oldest first */
	unsigned long seq;       /* the last number given */
};

static int server_has_tool_tasks(const mcp_session *s)
{
	cJSON *t = cJSON_GetObjectItemCaseSensitive(s->capabilities, "tasks");
	cJSON *r = cJSON_GetObjectItemCaseSensitive(t, "requests");

	return cJSON_GetObjectItemCaseSensitive(
		       cJSON_GetObjectItemCaseSensitive(r, "tools"), "call") != NULL;
}

/* 0 when a tool's entry (n bytes of JSON at j) cannot say taskSupport
 * "required": no backslash (nothing escaped, so a "taskSupport" followed
 * by a colon is a member name) and no such member whose value is
 * "required"; 1 when it may (then it is parsed). Spares the parse of the
 * entry on each call of a server with tool tasks. */
static int may_require(const char *j, size_t n)
{
	static const char key[] = "\"taskSupport\"", val[] = "\"required\"";
	const char *p = j, *end = j + n, *k;

	if (memchr(j, '\\', n))
		return 1;
	while ((k = memmem(p, (size_t)(end - p), key, sizeof key - 1))) {
		p = k + sizeof key - 1;
		while (p < end && (*p == ' ' || *p == '\t' || *p == '\r' ||
				   *p == '\n'))
			p++;
		if (p == end || *p++ != ':')
			continue;
		while (p < end && (*p == ' ' || *p == '\t' || *p == '\r' ||
				   *p == '\n'))
			p++;
		if ((size_t)(end - p) >= sizeof val - 1 &&
		    !memcmp(p, val, sizeof val - 1))
			return 1;
	}
	return 0;
}

int task_required(mcp_session *s, const mcp_call *c, mcp_call *listing)
{
	const struct mcp_entry *e;
	cJSON *t, *ts;
	int r = 0;

	if (c->kind == CALL_USER && policy_wants_listing(s, c) &&
	    (!listing || !listing->done))
		return -1; /* readOnly: decided by the annotations */
	if (c->kind != CALL_USER || !c->req.tool)
		return 0;
	/* modern over HTTP: the x-mcp-header headers come from the listing */
	if (s->era == MCP_ERA_MODERN && (s->ops->caps & TRANSPORT_EXCHANGES) &&
	    (!listing || !listing->done))
		return -1;
	if (c->req.task.n || c->task != TASK_NONE || !server_has_tool_tasks(s))
		return 0;
	if (!listing || !listing->done)
		return -1;
	e = listing->reply && c->tool ? mcp_entry_find(listing, s, c->tool, 1)
				      : NULL;
	if (e && !may_require(listing->reply->data + e->at, e->n))
		return 0;
	t = surface_entry_json(listing, s, c->tool); /* policy.c's reading */
	ts = cJSON_GetObjectItemCaseSensitive(
		cJSON_GetObjectItemCaseSensitive(t, "execution"), "taskSupport");
	r = cJSON_IsString(ts) && !strcmp(ts->valuestring, "required");
	cJSON_Delete(t);
	return r;
}

int task_augment(mcp_call *c)
{
	size_t len = strlen(c->line), at = strcspn(c->line, "{");
	char *line = malloc(len + 12);
	const char *why;
	struct mcp_request req;

	if (!line || at == len) {
		free(line);
		return -1;
	}
	memcpy(line, c->line, at + 1);
	memcpy(line + at + 1, "\"task\":{},", 10);
	memcpy(line + at + 11, c->line + at + 1, len - at);
	if (mcp_request_parse(line, len + 10, &req, &why) < 0) {
		free(line);
		return -1;
	}
	free(c->line);
	c->line = line;
	c->req = req;
	c->task = TASK_ASKED;
	return 0;
}

/* ---- the Task as last seen, for tasks/ID ---- */

static void task_seen(mcp_call *c, const cJSON *task)
{
	struct task *k = c->tk;
	cJSON *t = cJSON_Duplicate(task, 1), *old = k->state;
	cJSON *ms = cJSON_GetObjectItemCaseSensitive(task, "pollIntervalMs")
		?: cJSON_GetObjectItemCaseSensitive(task, "pollInterval");
	const char *drop[] = {"result", "error", "inputRequests",
			      "resultType", "_meta"};
	cJSON *a, *b;
	size_t i;

	if (!t)
		return;
	for (i = 0; i < sizeof drop / sizeof *drop; i++)
		cJSON_DeleteItemFromObjectCaseSensitive(t, drop[i]);
	a = cJSON_GetObjectItemCaseSensitive(old, "lastUpdatedAt");
	b = cJSON_GetObjectItemCaseSensitive(t, "lastUpdatedAt");
	if (old && (!cJSON_Compare(a, b, 1) ||
		    !cJSON_Compare(cJSON_GetObjectItemCaseSensitive(old,
								    "status"),
				   cJSON_GetObjectItemCaseSensitive(t,
								    "status"),
				   1)))
		call_progress(c); /* the task moved: a sign of life */
	k->state = t;
	cJSON_Delete(old);
	k->ms = POLL_MS_DEFAULT;
	if (cJSON_IsNumber(ms))
		k->ms = ms->valuedouble < POLL_MS_MIN ? POLL_MS_MIN
			   : ms->valuedouble > POLL_MS_MAX ? POLL_MS_MAX
			   : (unsigned)ms->valuedouble;
}

/* A task id that can be a file name as it is: not empty, "." or "..",
 * no '/', no unsafe code point (a control, DEL, C1, a bidi control:
 * lib/ctlesc.h), so a terminal's ls shows it as sent. */
static int file_name_ok(const char *id)
{
	size_t i, n = strlen(id);

	if (!n || !strcmp(id, ".") || !strcmp(id, ".."))
		return 0;
	for (i = 0; i < n; i++)
		if (id[i] == '/' || ctlesc_unsafe_at(id + i, n - i))
			return 0;
	return 1;
}

/* c runs as task id: listed in tasks/ of s (0, or -1 when out of
 * memory). A server that gives an id a listed task has (a running
 * call's) reused it: c takes that one entry, its number and name (one
 * inode), and the older call, which runs on and polls as before, is no
 * longer listed (spec 6: one name never listed twice). */
static int task_list(mcp_session *s, mcp_call *c, const char *id,
		     const cJSON *task)
{
	struct task *k = c->tk, *old;

	if (!s->tasks && (s->tasks = calloc(1, sizeof *s->tasks)))
		TAILQ_INIT(&s->tasks->list);
	if (!k && (k = c->tk = calloc(1, sizeof *k)))
		k->c = c;
	if (!s->tasks || !k)
		return -1;
	snprintf(k->id, sizeof k->id, "%s", id);
	TAILQ_FOREACH(old, &s->tasks->list, link)
		if (!strcmp(old->id, k->id))
			break;
	if (old) {
		k->num = old->num;
		memcpy(k->file, old->file, sizeof k->file);
		TAILQ_INSERT_AFTER(&s->tasks->list, old, k, link);
		TAILQ_REMOVE(&s->tasks->list, old, link);
		old->num = 0;
		mlog(MLOG_INFO, "server %s: task %s given again (request "
		     "%llu): tasks/ shows the latest", s->srv->conf->name,
		     k->id, (unsigned long long)c->rpc_id);
		task_seen(c, task);
		return 0;
	}
	if (++s->tasks->seq >= TASK_NUM_MAX)
		s->tasks->seq = 1;
	k->num = s->tasks->seq;
	if (file_name_ok(id))
		snprintf(k->file, sizeof k->file, "%s", id);
	else
		snprintf(k->file, sizeof k->file, "task-%lu", k->num);
	TAILQ_INSERT_TAIL(&s->tasks->list, k, link);
	task_seen(c, task);
	mlog(MLOG_DEBUG, "server %s: request %llu runs as task %s",
	     s->srv->conf->name, (unsigned long long)c->rpc_id, k->id);
	return 0;
}

void task_notified(mcp_session *s, const cJSON *params)
{
	cJSON *id = cJSON_GetObjectItemCaseSensitive(params, "taskId");
	struct task *k;

	if (!cJSON_IsString(id) || !s->tasks)
		return;
	TAILQ_FOREACH(k, &s->tasks->list, link)
		if (!strcmp(k->id, id->valuestring)) {
			task_seen(k->c, params);
			return;
		}
}

mcp_call *task_first(mcp_session *s)
{
	return s->tasks && !TAILQ_EMPTY(&s->tasks->list)
		       ? TAILQ_FIRST(&s->tasks->list)->c : NULL;
}

void task_unlist(mcp_session *s, mcp_call *c)
{
	if (c->tk && c->tk->num) {
		TAILQ_REMOVE(&s->tasks->list, c->tk, link);
		c->tk->num = 0;
	}
}

void task_free(mcp_call *c)
{
	if (!c->tk)
		return;
	cJSON_Delete(c->tk->state);
	cJSON_Delete(c->tk->seen);
	free(c->tk);
	c->tk = NULL;
}

void tasks_free(mcp_session *s)
{
	free(s->tasks);
	s->tasks = NULL;
}

/* ---- tasks/ (sessions.h) ---- */

const char *mcp_task_next(mcp_session *s, unsigned long *num)
{
	struct task *k;
	int past = *num == 0;

	if (!s->tasks)
		return NULL;
	TAILQ_FOREACH(k, &s->tasks->list, link) {
		if (past) {
			*num = k->num;
			return k->file;
		}
		past = k->num == *num;
	}
	return NULL;
}

static struct task *task_by_num(mcp_session *s, unsigned long num)
{
	struct task *k;

	if (!s->tasks)
		return NULL;
	TAILQ_FOREACH(k, &s->tasks->list, link)
		if (k->num == num)
			return k;
	return NULL;
}

mcp_buf *mcp_task_json(mcp_session *s, unsigned long num)
{
	struct task *k = task_by_num(s, num);

	return k && k->state ? mcp_buf_json(k->state, 1) : NULL;
}

/* ---- requests about a task, each a side call of its own ---- */

struct side {
	struct mcp_listener l; /* first: the listener is the side */
	mcp_call *c;           /* the task's call, a reference */
	void (*got)(mcp_call *c, cJSON *reply); /* NULL: reply dropped */
};

static void side_done(struct mcp_listener *l, mcp_call *sc)
{
	struct side *w = (struct side *)l;
	const mcp_buf *b = mcp_call_reply(sc);
	cJSON *r = b ? cJSON_ParseWithLength(b->data, b->len) : NULL;

	if (w->got && !w->c->done && w->c->s)
		w->got(w->c, r);
	cJSON_Delete(r);
	mcp_call_unref(w->c);
	free(w);
}

/* method {taskId: c's, and params' members (taken)} sent on s. */
static void side_send(mcp_session *s, mcp_call *c, const char *method,
		      cJSON *params, void (*got)(mcp_call *c, cJSON *reply))
{
	struct side *w = calloc(1, sizeof *w);
	cJSON *p = params ? params : cJSON_CreateObject();
	mcp_call *sc;

	if (!w || !p || !cJSON_AddStringToObject(p, "taskId", c->tk->id)) {
		free(w);
		cJSON_Delete(p);
		return;
	}
	w->l.done = side_done;
	w->c = mcp_call_ref(c);
	w->got = got;
	sc = call_side(s, method, p, &w->l);
	if (!sc) {
		mcp_call_unref(w->c);
		free(w);
		return;
	}
	sc->task = TASK_REQUEST; /* a task's own request: ctl cancel leaves it */
	mcp_call_unref(sc);
}

/* ---- polling tasks/get ---- */

struct poll {
	uv_timer_t timer;
	mcp_call *c; /* a reference */
};

static void poll_free(uv_handle_t *h)
{
	struct poll *p = h->data;

	mcp_call_unref(p->c);
	free(p);
}

static void polled(mcp_call *c, cJSON *r);

static void poll_cb(uv_timer_t *t)
{
	struct poll *p = t->data;

	if (!p->c->done && p->c->s)
		side_send(p->c->s, p->c, "tasks/get", NULL, polled);
	uv_close((uv_handle_t *)t, poll_free);
}

static void poll_later(mcp_call *c)
{
	struct poll *p = calloc(1, sizeof *p);

	if (!p)
		return; /* the call's timer ends it */
	uv_timer_init(process.loop, &p->timer);
	p->timer.data = p;
	p->c = mcp_call_ref(c);
	uv_timer_start(&p->timer, poll_cb, c->tk->ms, 0);
}

static void updated(mcp_call *c, cJSON *r)
{
	cJSON *e = cJSON_GetObjectItemCaseSensitive(r, "error");
	char *msg;

	if (!e)
		return;
	msg = cJSON_PrintUnformatted(e);
	mlog(MLOG_WARN, "server %s: tasks/update of task %s failed: %.300s",
	     c->srv->conf->name, c->tk->id, msg ? msg : "error");
	free(msg);
}

/* Every input request of this round answered: tasks/update sends them. */
static void answers_ready(mcp_call *c)
{
	cJSON *p = cJSON_CreateObject(), *resp = mrtr_answers(c), *k;

	if (!c->tk->seen)
		c->tk->seen = cJSON_CreateObject();
	cJSON_ArrayForEach(k, resp)
		if (c->tk->seen)
			cJSON_AddItemToObject(c->tk->seen, k->string,
					      cJSON_CreateTrue());
	if (!p || !resp || !c->s) {
		cJSON_Delete(p);
		cJSON_Delete(resp);
		return;
	}
	cJSON_AddItemToObject(p, "inputResponses", resp);
	side_send(c->s, c, "tasks/update", p, updated);
}

/* The input requests of a task not asked before, asked. */
static void ask_new(mcp_session *s, mcp_call *c, const cJSON *reqs)
{
	cJSON *fresh, *r;

	if (mrtr_waiting(c) || !(fresh = cJSON_CreateObject()))
		return; /* a round still open: its answers go first */
	cJSON_ArrayForEach(r, reqs)
		if (r->string && !cJSON_GetObjectItemCaseSensitive(c->tk->seen,
								   r->string))
			cJSON_AddItemReferenceToObject(fresh, r->string, r);
	if (fresh->child && !mrtr_ask(s, c, fresh, answers_ready))
		mlog(MLOG_INFO, "server %s: task %s needs input: asked in "
		     "requests/", s->srv->conf->name, c->tk->id);
	cJSON_Delete(fresh);
}

static void polled(mcp_call *c, cJSON *r)
{
	mcp_session *s = c->s;
	cJSON *e = cJSON_GetObjectItemCaseSensitive(r, "error"), *st, *m;
	const char *status;
	char why[300];

	if (!r || e) {
		if (c->task != TASK_POLLED) { /* 2025-11-25: the view only */
			mlog(MLOG_INFO, "server %s: tasks/get of task %s "
			     "failed: tasks/%s is not updated", s->srv->conf->name,
			     c->tk->id, c->tk->id);
			return;
		}
		/* a poll cancelled (ctl cancel takes every request of the
		 * thread) or failed: the task is not followed any more */
		task_cancel(s, c);
		call_complete_error(c, e);
		return;
	}
	task_seen(c, r);
	st = cJSON_GetObjectItemCaseSensitive(r, "status");
	status = cJSON_IsString(st) ? st->valuestring : "";
	if (c->task != TASK_POLLED) {
		if (!strcmp(status, "working") ||
		    !strcmp(status, "input_required"))
			poll_later(c);
		return;
	}
	if (!strcmp(status, "completed")) {
		e = cJSON_GetObjectItemCaseSensitive(r, "result");
		if (cJSON_IsObject(e))
			call_complete(c, mcp_buf_json(e, 0));
		else
			call_fail(c, ERR_PROTOCOL, "the task completed with no "
				  "result", NULL);
	} else if (!strcmp(status, "failed")) {
		e = cJSON_GetObjectItemCaseSensitive(r, "error");
		if (cJSON_IsObject(e))
			call_complete_error(c, e);
		else
			call_fail(c, ERR_PROTOCOL, "the task failed with no "
				  "error", NULL);
	} else if (!strcmp(status, "cancelled")) {
		m = cJSON_GetObjectItemCaseSensitive(r, "statusMessage");
		snprintf(why, sizeof why, "the server cancelled task %.128s%s"
			 "%.120s", c->tk->id, cJSON_IsString(m) ? ": " : "",
			 cJSON_IsString(m) ? m->valuestring : "");
		call_fail(c, ERR_CANCELLED, why, NULL);
	} else {
		if (!strcmp(status, "input_required"))
			ask_new(s, c, cJSON_GetObjectItemCaseSensitive(
					r, "inputRequests"));
		if (!c->done)
			poll_later(c);
	}
}

/* ---- a reply that is a task ---- */

static int modern_task(mcp_session *s, mcp_call *c, cJSON *res)
{
	cJSON *rt = cJSON_GetObjectItemCaseSensitive(res, "resultType");
	cJSON *id = cJSON_GetObjectItemCaseSensitive(res, "taskId");

	if (!cJSON_IsString(rt) || strcmp(rt->valuestring, "task"))
		return 0;
	if (c->kind != CALL_USER || (c->tk && c->tk->num) ||
	    !cJSON_IsString(id) || !id->valuestring[0] ||
	    strlen(id->valuestring) >= TASK_ID_MAX) {
		call_fail(c, ERR_PROTOCOL, "the server answered with a task "
			  "mcpfs cannot follow (a task for a request other "
			  "than tools/call, or no taskId)", NULL);
		return 1;
	}
	if (task_list(s, c, id->valuestring, res) < 0) {
		call_complete(c, NULL); /* out of memory */
		return 1;
	}
	c->task = TASK_POLLED;
	call_untrack(s, c); /* that exchange is over */
	c->rpc_id = 0;
	polled(c, res); /* a task may be born done */
	return 1;
}

int task_created(mcp_session *s, mcp_call *c, cJSON *res)
{
	cJSON *task, *id, *m;

	if (s->era == MCP_ERA_MODERN)
		return modern_task(s, c, res);
	task = cJSON_GetObjectItemCaseSensitive(res, "task");
	id = cJSON_GetObjectItemCaseSensitive(task, "taskId");
	if (c->task != TASK_ASKED || !cJSON_IsString(id) ||
	    strlen(id->valuestring) >= TASK_ID_MAX)
		return 0; /* not a task after all: the reply as it is */
	if (task_list(s, c, id->valuestring, task) < 0) {
		call_complete(c, NULL); /* out of memory */
		return 1;
	}
	c->task = TASK_AWAITED;
	idtab_del(&s->pending, c->rpc_id);
	c->rpc_id = s->next_id++;
	if (call_track(s, c) < 0)
		return 1;
	m = msg_request(c->rpc_id, "tasks/result");
	cJSON_AddStringToObject(cJSON_AddObjectToObject(m, "params"),
				"taskId", c->tk->id);
	session_send_json(s, m, c->rpc_id);
	cJSON_Delete(m);
	poll_later(c); /* for tasks/ID only */
	return 1;
}

void task_cancel(mcp_session *s, mcp_call *c)
{
	if (c->tk && !c->done)
		side_send(s, c, "tasks/cancel", NULL, NULL);
}
