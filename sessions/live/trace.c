/*
 * trace.c - the trace of a thread (spec 15): every JSON-RPC message of the
 * session, both ways, one JSON line each,
 *
 *     {"at":"2026-12-04T16:55:01.123Z","dir":"out","msg":{...}}
 *
 * in a window of the last TRACE_KEEP bytes of whole lines, read like
 * events. msg is the message as it went or came, made one compact line
 * (jcompact.h: whitespace outside strings dropped, raw control bytes
 * escaped, every other byte as it was), so that no server can write a
 * line of its own into the trace (spec 6). A message that is then not
 * JSON, or longer than TRACE_MSG_MAX (a long reply would push everything
 * else out of the window), is a line without msg that says so:
 * {"at":...,"dir":"in","bytes":N,"note":"not JSON"}. Nothing else is
 * written: HTTP headers (where secrets live) are not messages.
 * -o notrace (process.opts.notrace) turns it off. The session's other
 * windows (stderr, events) are set up and freed here with it.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <time.h>

#include "internal.h"
#include "jcompact.h"
#include "jscan.h"

#define TRACE_MSG_MAX (64 * 1024)

static void grew(struct ring *r, void *arg)
{
	mcp_session *s = arg;

	if (process.hooks && process.hooks->log_grew)
		process.hooks->log_grew(s->id, r == &s->trace ? MCP_TRACE
							: MCP_EVENTS);
}

void windows_init(mcp_session *s)
{
	s->err.cap = STDERR_KEEP;
	s->events.cap = EVENTS_KEEP;
	s->trace.cap = TRACE_KEEP;
	s->events.grew = s->trace.grew = grew;
	s->events.arg = s->trace.arg = s;
}

void windows_free(mcp_session *s)
{
	free(s->err.buf);
	free(s->events.buf);
	free(s->trace.buf);
}

/*
 * The head of a record, {"at":"...Z","dir":"in", in head; its length.
 * The date and time to the second are formatted only when the second
 * changes (a call traces two lines in the same second); the rest is
 * copied, no snprintf (issue 53 item 5: this was a quarter of a call's
 * instructions).
 */
static size_t trace_head(char *head, int in)
{
	static char at[40];
	static size_t atn;
	static time_t last = -1;
	struct timeval tv;
	struct tm tm;
	size_t n;
	long ms;

	gettimeofday(&tv, NULL);
	if (tv.tv_sec != last || !atn) {
		gmtime_r(&tv.tv_sec, &tm);
		atn = strftime(at, sizeof at, "%Y-%m-%dT%H:%M:%S", &tm);
		last = tv.tv_sec;
	}
	ms = (long)tv.tv_usec / 1000;
	memcpy(head, "{\"at\":\"", 7);
	memcpy(head + 7, at, atn);
	n = 7 + atn;
	head[n++] = '.';
	head[n++] = (char)('0' + ms / 100);
	head[n++] = (char)('0' + ms / 10 % 10);
	head[n++] = (char)('0' + ms % 10);
	memcpy(head + n, in ? "Z\",\"dir\":\"in\"" : "Z\",\"dir\":\"out\"",
	       in ? 13 : 14);
	return n + (in ? 13 : 14);
}

/*
 * A message traced, its scan known: ok and ws as jscan_is_value_ws gave
 * them for the same bytes (an incoming line, which inbound.c scans
 * anyway); for an outgoing one, ok is 1 and ws says if a line end is in
 * it. len has no line end at its end.
 */
static void trace_scanned(mcp_session *s, int in, const char *line,
			  size_t len, int ok, int ws)
{
	char head[160], *flat = NULL;
	const char *msg = line;
	size_t n = len, h = trace_head(head, in);
	int k;

	if (len <= TRACE_MSG_MAX) {
		if (ws || !ok) {
			k = jcompact(line, len, &flat, &n);
			if (k > 0) {
				msg = flat;
				ok = !in || jscan_is_value(msg, n);
			} else if (k < 0) {
				ok = 0; /* no memory: noted */
			}
		}
		if (ok) {
			memcpy(head + h, ",\"msg\":", 7);
			ring_append(&s->trace, head, h + 7);
			ring_append(&s->trace, msg, n);
			ring_line(&s->trace, "}", 1);
			free(flat);
			return;
		}
	}
	free(flat);
	k = snprintf(head + h, sizeof head - h, ",\"bytes\":%zu,\"note\":\"%s\"}",
		     len, len > TRACE_MSG_MAX ? "longer than 65536 bytes: not "
			   "kept" : "not JSON");
	ring_line(&s->trace, head, h + (size_t)k);
}

static size_t trimmed(const char *line, size_t len)
{
	while (len && (line[len - 1] == '\n' || line[len - 1] == '\r'))
		len--;
	return len;
}

/* internal.h */
int trace_in(mcp_session *s, const char *line, size_t len, int *ws)
{
	int ok;

	if (process.opts.notrace || trimmed(line, len) != len ||
	    len > TRACE_MSG_MAX) {
		trace_msg(s, 1, line, len); /* scans nothing it can hand on */
		return -1;
	}
	ok = jscan_is_value_ws(line, len, ws);
	trace_scanned(s, 1, line, len, ok, *ws);
	return ok;
}

void trace_msg(mcp_session *s, int in, const char *line, size_t len)
{
	int ws = 0, ok = 1;

	if (process.opts.notrace)
		return;
	len = trimmed(line, len);
	/* checked once: a message valid and compact is kept as it is; what
	 * mcpfs sends is JSON and compact by construction (cJSON, or a
	 * request the strict scanner passed and made compact), so only a
	 * line end in it would be made so */
	if (len > TRACE_MSG_MAX)
		;
	else if (in)
		ok = jscan_is_value_ws(line, len, &ws);
	else
		ws = memchr(line, '\n', len) || memchr(line, '\r', len);
	trace_scanned(s, in, line, len, ok, ws);
}
