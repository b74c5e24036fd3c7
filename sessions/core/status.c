/*
 * status.c - the read-only files of a thread rendered from its session:
 * status (JSON), stderr (the last 64 KiB) and events (the append-only log),
 * and the data a failed call carries (exit status, stderr tail). Reads
 * only; never changes a session. The status files show server text (its
 * serverInfo, the stderr line in last_error) with DEL and the C1 controls
 * escaped as well as C0 (status_buf), so cat cannot drive a terminal.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ctlesc.h"
#include "jsent.h"
#include "internal.h"
#include "lost.h"
#include "pages.h"
#include "policy.h"
#include "transport.h"

/* The last max bytes of stderr, from a line start when cut. */
static char *stderr_tail(const mcp_session *s, size_t max)
{
	size_t kept = ring_kept(&s->err), n = kept < max ? kept : max;
	char *t = malloc(n + 1), *p;

	if (!t)
		return NULL;
	n = ring_read(&s->err, s->err.total - n, t, n);
	t[n] = 0;
	p = t;
	if (n == max && (p = memchr(t, '\n', n)) != NULL)
		memmove(t, p + 1, strlen(p + 1) + 1);
	return t;
}

char *session_reason(const mcp_session *s, const char *msg)
{
	char *t, *line, *out = NULL;
	size_t n;

	if (!strstr(msg, "server exited with status") &&
	    !strstr(msg, "server killed by signal"))
		return strdup(msg); /* not a process that died: its own words */
	t = stderr_tail(s, 1024);
	if (!t)
		return strdup(msg);
	n = strlen(t);
	while (n && (t[n - 1] == '\n' || t[n - 1] == '\r'))
		t[--n] = 0;
	line = t + n;
	while (line > t && line[-1] != '\n')
		line--; /* the last line */
	if (!strncmp(line, "mcpfs: ", 7)) /* the supervisor's exec failure */
		line += 7;
	if (!*line || strstr(msg, line) ||
	    asprintf(&out, "%s: %s", msg, line) < 0)
		out = strdup(msg);
	free(t);
	return out;
}

cJSON *session_failure_data(const mcp_session *s)
{
	cJSON *d = cJSON_CreateObject();
	char *tail;

	if (s->has_exit) {
		if (s->term_signal)
			cJSON_AddNumberToObject(d, "signal", s->term_signal);
		else
			cJSON_AddNumberToObject(d, "exitStatus",
						s->exit_status);
	}
	tail = stderr_tail(s, 2048);
	if (tail && *tail)
		cJSON_AddStringToObject(d, "stderr", tail);
	free(tail);
	return d;
}

void session_auth_data(const mcp_session *s, cJSON *data)
{
	char err[200], path[300], *u;
	const struct auth_ops *a = s->srv->conf->url ?
		module_auth(transport_env_get(), err, sizeof err) : NULL;

	u = a ? a->url(s->srv->conf) : NULL;
	if (u)
		cJSON_AddStringToObject(data, "authorizationUrl", u);
	free(u);
	snprintf(path, sizeof path, "%s/auth", s->srv->conf->name);
	cJSON_AddStringToObject(data, "auth", path);
}

cJSON *session_failure_data_for(const mcp_session *s, int *code)
{
	cJSON *d = session_failure_data(s);

	if (*code == ERR_AUTH_UP) {
		session_auth_data(s, d);
		*code = ERR_AUTH;
	}
	return d;
}

mcp_buf *status_buf(const cJSON *o)
{
	size_t n;
	char *t = jsent_print(o, 1, &n), *e;
	mcp_buf *b = NULL;

	e = t ? ctlesc_json(t, n, &n) : NULL;
	if (e && (b = mcp_buf_new(NULL, n + 1)) != NULL) {
		memcpy(b->data, e, n);
		b->data[n] = '\n';
	}
	free(e);
	free(t);
	return b;
}

static const char *state_name(enum sstate st)
{
	switch (st) {
	case S_STARTING: return "starting";
	case S_READY: return "ready";
	case S_EXITED: return "exited";
	case S_CLOSING: return "closing";
	default: return "idle";
	}
}

/* Servers as they are (spec 9): "unsupported", the listings the server
 * answered with an error (method: the error), and "partial", those that
 * ended short (method: reason, pages, items, the error if any). */
static void list_notes(cJSON *o, const mcp_session *s)
{
	cJSON *un = cJSON_AddObjectToObject(o, "unsupported");
	cJSON *part = cJSON_AddObjectToObject(o, "partial");
	int i;

	for (i = 0; i < MCP_NLISTS; i++) {
		const cJSON *n = session_list_note_of(s, i);
		const cJSON *k = cJSON_GetObjectItemCaseSensitive(n, "kind");
		const cJSON *e = cJSON_GetObjectItemCaseSensitive(n, "error");
		cJSON *d;

		if (!n)
			continue;
		if (cJSON_IsString(k) && !strcmp(k->valuestring,
						 "unsupported")) {
			cJSON_AddItemToObject(un, msg_list_method(i),
					      cJSON_Duplicate(e, 1));
			continue;
		}
		d = cJSON_Duplicate(n, 1);
		cJSON_DeleteItemFromObjectCaseSensitive(d, "kind");
		cJSON_AddItemToObject(part, msg_list_method(i), d);
	}
}

mcp_buf *mcp_session_status_json(mcp_session *s)
{
	cJSON *o = cJSON_CreateObject();
	mcp_buf *b;

	cJSON_AddStringToObject(o, "server", s->srv->conf->name);
	cJSON_AddStringToObject(o, "thread", s->name);
	cJSON_AddStringToObject(o, "state", state_name(s->state));
	if (s->t && (s->ops->caps & TRANSPORT_PID))
		cJSON_AddNumberToObject(o, "pid", s->ops->pid(s->t));
	else
		cJSON_AddNullToObject(o, "pid");
	cJSON_AddNumberToObject(o, "generation", s->generation);
	msg_add_time(o, "created", s->created);
	msg_add_time(o, "last_used", s->last_used);
	cJSON_AddNumberToObject(o, "calls", (double)s->calls);
	cJSON_AddNumberToObject(o, "in_flight", s->in_flight);
	cJSON_AddNumberToObject(o, "questions", s->nasks);
	if (s->era == MCP_ERA_AUTO)
		cJSON_AddNullToObject(o, "era");
	else
		cJSON_AddStringToObject(o, "era", s->era == MCP_ERA_MODERN ?
					"modern" : "legacy");
	if (s->protocol[0])
		cJSON_AddStringToObject(o, "protocolVersion", s->protocol);
	else
		cJSON_AddNullToObject(o, "protocolVersion");
	cJSON_AddItemToObject(o, "serverInfo", s->server_info ?
			      cJSON_Duplicate(s->server_info, 1) :
			      cJSON_CreateNull());
	cJSON_AddItemToObject(o, "capabilities", s->capabilities ?
			      cJSON_Duplicate(s->capabilities, 1) :
			      cJSON_CreateNull());
	cJSON_AddItemToObject(o, "subscriptions", s->subs ?
			      cJSON_Duplicate(s->subs, 1) :
			      cJSON_CreateArray());
	cJSON_AddItemToObject(o, "warnings", surface_warnings(s) ?
			      cJSON_Duplicate(surface_warnings(s), 1) :
			      cJSON_CreateArray());
	list_notes(o, s);
	if (s->last_error) {
		cJSON_AddStringToObject(o, "last_error", s->last_error);
		msg_add_time(o, "last_error_at", s->last_error_at);
	} else {
		cJSON_AddNullToObject(o, "last_error");
		cJSON_AddNullToObject(o, "last_error_at");
	}
	if (s->call_error) {
		cJSON_AddItemToObject(o, "last_call_error",
				      cJSON_Duplicate(s->call_error, 1));
		msg_add_time(o, "last_call_error_at", s->call_error_at);
	} else {
		cJSON_AddNullToObject(o, "last_call_error");
		cJSON_AddNullToObject(o, "last_call_error_at");
	}
	lost_json(o, s);
	if (s->has_exit) {
		cJSON *e = cJSON_AddObjectToObject(o, "exit");

		if (s->term_signal)
			cJSON_AddNumberToObject(e, "signal", s->term_signal);
		else
			cJSON_AddNumberToObject(e, "status", s->exit_status);
	} else {
		cJSON_AddNullToObject(o, "exit");
	}
	cJSON_AddStringToObject(o, "transport",
				transport_name(s->ops, s->t, s->srv->conf));
	if (s->srv->conf->command)
		cJSON_AddStringToObject(o, "command",
					mcp_base_name(s->srv->conf->command));
	cJSON_AddStringToObject(o, "digest", s->srv->conf->digest);
	cJSON_AddItemToObject(o, "policy", policy_json(s->srv->conf));
	b = status_buf(o);
	cJSON_Delete(o);
	return b;
}

/* stderr: the last 64 KiB the server wrote, escaped as status is (spec
 * 6; lib/ctlesc.h): newline and tab kept, so it reads as the lines it
 * was; CR as \r, ESC as \x1b, a NUL as \x00, C1 and bidi controls as
 * \u0080..., a byte not UTF-8 as \xNN. NULL on ENOMEM. */
mcp_buf *mcp_session_stderr(mcp_session *s)
{
	size_t n = ring_kept(&s->err);
	char *raw = malloc(n ? n : 1);
	struct gbuf g = {0};
	mcp_buf *b = NULL;

	if (raw) {
		n = ring_read(&s->err, s->err.total - n, raw, n);
		if (ctlesc_bytes(&g, raw, n, 1) == 0)
			b = mcp_buf_new(g.p, g.len);
	}
	free(raw);
	gbuf_free(&g);
	return b;
}

static const struct ring *log_ring(const mcp_session *s, enum mcp_log which)
{
	return which == MCP_TRACE ? &s->trace : &s->events;
}

/*
 * The oldest kept line: the byte after the first newline in the window (a
 * line the window cut is not shown in part). The window is full once
 * anything was dropped, so it starts at first % cap and wraps.
 */
static uint64_t log_start(const mcp_session *s, enum mcp_log which)
{
	const struct ring *r = log_ring(s, which);
	uint64_t first = r->total > r->cap ? r->total - r->cap : 0;
	size_t at;
	const char *nl;

	if (!first || !r->buf)
		return first;
	at = (size_t)(first % r->cap);
	nl = memchr(r->buf + at, '\n', r->cap - at);
	if (nl)
		return first + (uint64_t)(nl - (r->buf + at)) + 1;
	nl = memchr(r->buf, '\n', at);
	if (nl)
		return first + (r->cap - at) + (uint64_t)(nl - r->buf) + 1;
	return r->total;
}

size_t mcp_session_log(const mcp_session *s, enum mcp_log which,
		       uint64_t off, char *dst, size_t n, uint64_t *start,
		       uint64_t *end)
{
	const struct ring *r = log_ring(s, which);
	uint64_t first = log_start(s, which);

	if (start)
		*start = first;
	if (end)
		*end = r->total;
	if (!r->buf || !n)
		return 0;
	return ring_read(r, off < first ? first : off, dst, n);
}
