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

void trace_msg(mcp_session *s, int in, const char *line, size_t len)
{
	char head[160], at[40], *flat = NULL;
	const char *msg = line;
	size_t n;
	int ws = 0, ok = 1;
	struct timeval tv;
	struct tm tm;
	time_t sec;
	int k;

	if (process.opts.notrace)
		return;
	while (len && (line[len - 1] == '\n' || line[len - 1] == '\r'))
		len--;
	gettimeofday(&tv, NULL);
	sec = tv.tv_sec;
	gmtime_r(&sec, &tm);
	strftime(at, sizeof at, "%Y-%m-%dT%H:%M:%S", &tm);
	n = len;
	if (len <= TRACE_MSG_MAX) {
		/* checked once: a message valid and compact is kept as it
		 * is; what mcpfs sends is JSON and compact by construction
		 * (cJSON, or a request the strict scanner passed and made
		 * compact), so only a line end in it would be made so */
		if (in)
			ok = jscan_is_value_ws(line, len, &ws);
		else
			ws = memchr(line, '\n', len) || memchr(line, '\r', len);
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
			k = snprintf(head, sizeof head, "{\"at\":\"%s.%03ldZ\","
				     "\"dir\":\"%s\",\"msg\":", at,
				     (long)tv.tv_usec / 1000,
				     in ? "in" : "out");
			ring_append(&s->trace, head, (size_t)k);
			ring_append(&s->trace, msg, n);
			ring_line(&s->trace, "}", 1);
			free(flat);
			return;
		}
	}
	free(flat);
	k = snprintf(head, sizeof head,
		     "{\"at\":\"%s.%03ldZ\",\"dir\":\"%s\",\"bytes\":%zu,"
		     "\"note\":\"%s\"}", at, (long)tv.tv_usec / 1000,
		     in ? "in" : "out", len,
		     len > TRACE_MSG_MAX ? "longer than 65536 bytes: not kept"
					 : "not JSON");
	ring_line(&s->trace, head, (size_t)k);
}
