/*
 * mini_mcp.c - newline-delimited JSON-RPC 2.0 on stdin/stdout for the
 * example and fake MCP servers (see mini_mcp.h).
 *
 * Input goes into one buffer that doubles as needed, so a line may be as
 * long as memory allows; the scan for the next newline resumes where the
 * last one stopped, so a huge line costs linear time however it arrives.
 * Output is printed into one reusable buffer (no allocation per message
 * once it has grown, up to a few MiB) and written with a loop that
 * survives partial writes.
 *
 * An escaped NUL ("\u0000") would end a cJSON string (a C string) there:
 * the escape is turned into the two bytes C0 80 before parsing (NUL as
 * "modified UTF-8" writes it) and back into "\u0000" when a message is
 * written (jsent_hide_nul and jsent_print of lib/jsent.c). So strings
 * hold NULs as C0 80 and keep their whole length through strcmp, strdup
 * and the rest. The pair never appears in JSON text otherwise: JSON is
 * UTF-8, where the byte C0 is invalid.
 */
#include "mini_mcp.h"

#include "jsent.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define READ_CHUNK 65536
#define PRINT_START 65536
#define PRINT_KEEP (4 << 20) /* largest print buffer kept for reuse */

static int out_gone;

static char *out_buf;
static size_t out_cap;

static void die_nomem(void)
{
	static const char msg[] = "out of memory\n";
	ssize_t k = write(2, msg, sizeof msg - 1);

	(void)k;
	_exit(70);
}

long long mm_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

void mm_write(const void *p, size_t n)
{
	const char *c = p;

	while (n && !out_gone) {
		ssize_t k = write(1, c, n);

		if (k < 0) {
			if (errno == EINTR)
				continue;
			out_gone = 1;
			return;
		}
		c += k;
		n -= (size_t)k;
	}
}

void mm_close_stdout(void)
{
	int fd = open("/dev/null", O_WRONLY | O_CLOEXEC);

	/* /dev/null over fd 1 closes the pipe and keeps fd 1 from being
	 * reused by a later open. */
	if (fd < 0 || dup2(fd, 1) < 0)
		close(1);
	if (fd > 1)
		close(fd);
	out_gone = 1;
}

/* Writes n bytes of printed JSON, C0 80 (a NUL) back as "\u0000". */
static void write_json(const char *t, size_t n)
{
	const char *end = t + n, *from = t, *c = t;

	while ((c = memchr(c, 0xc0, (size_t)(end - c))) != NULL) {
		if (c + 1 < end && (unsigned char)c[1] == 0x80) {
			mm_write(from, (size_t)(c - from));
			mm_write("\\u0000", 6);
			from = c += 2;
		} else {
			c++;
		}
	}
	mm_write(from, (size_t)(end - from));
}

char *mm_print(const cJSON *j)
{
	return jsent_print(j, 0, NULL);
}

void mm_send(cJSON *msg)
{
	char *text;
	size_t n;

	if (!out_buf) {
		out_cap = PRINT_START;
		out_buf = malloc(out_cap);
		if (!out_buf)
			die_nomem();
	}
	/* cJSON may need a few bytes more than the text: keep 5 spare, and
	 * one for the newline. */
	if (cJSON_PrintPreallocated(msg, out_buf, (int)(out_cap - 6), 0)) {
		n = strlen(out_buf);
		out_buf[n] = '\n';
		write_json(out_buf, n + 1);
		cJSON_Delete(msg);
		return;
	}
	/* Too big for the buffer: a failed attempt costs a whole render, so
	 * print once with allocation and grow the buffer for next time. */
	text = cJSON_PrintUnformatted(msg);
	if (!text)
		die_nomem();
	n = strlen(text);
	write_json(text, n);
	mm_write("\n", 1);
	cJSON_free(text);
	cJSON_Delete(msg);
	if (n + 6 > out_cap && n < PRINT_KEEP) {
		while (out_cap < n + 6)
			out_cap *= 2;
		free(out_buf);
		out_buf = malloc(out_cap);
		if (!out_buf)
			die_nomem();
	}
}

static cJSON *envelope(const cJSON *id)
{
	cJSON *m = cJSON_CreateObject();

	cJSON_AddStringToObject(m, "jsonrpc", "2.0");
	cJSON_AddItemToObject(m, "id", id ? cJSON_Duplicate(id, 1)
					  : cJSON_CreateNull());
	return m;
}

void mm_result(const cJSON *id, cJSON *result)
{
	cJSON *m = envelope(id);

	cJSON_AddItemToObject(m, "result", result ? result
						  : cJSON_CreateObject());
	mm_send(m);
}

void mm_error(const cJSON *id, int code, const char *message)
{
	cJSON *m = envelope(id);
	cJSON *e = cJSON_AddObjectToObject(m, "error");

	cJSON_AddNumberToObject(e, "code", code);
	cJSON_AddStringToObject(e, "message", message);
	mm_send(m);
}

void mm_notify(const char *method, cJSON *params)
{
	cJSON *m = cJSON_CreateObject();

	cJSON_AddStringToObject(m, "jsonrpc", "2.0");
	cJSON_AddStringToObject(m, "method", method);
	cJSON_AddItemToObject(m, "params", params ? params
						  : cJSON_CreateObject());
	mm_send(m);
}

cJSON *mm_text(const char *text, int is_error)
{
	cJSON *r = cJSON_CreateObject();
	cJSON *content = cJSON_AddArrayToObject(r, "content");
	cJSON *t = cJSON_CreateObject();

	cJSON_AddStringToObject(t, "type", "text");
	cJSON_AddStringToObject(t, "text", text);
	cJSON_AddItemToArray(content, t);
	if (is_error)
		cJSON_AddTrueToObject(r, "isError");
	return r;
}

cJSON *mm_initialize_result(const cJSON *params, const char *protocol,
			    const char *name, const char *version)
{
	const char *offered = mm_str(params, "protocolVersion");
	cJSON *r = cJSON_CreateObject(), *info;

	if (!protocol)
		protocol = offered ? offered : MM_PROTOCOL_DEFAULT;
	cJSON_AddStringToObject(r, "protocolVersion", protocol);
	cJSON_AddObjectToObject(r, "capabilities");
	info = cJSON_AddObjectToObject(r, "serverInfo");
	cJSON_AddStringToObject(info, "name", name);
	cJSON_AddStringToObject(info, "version", version);
	return r;
}

const char *mm_str(const cJSON *obj, const char *key)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);

	return cJSON_IsString(v) ? v->valuestring : NULL;
}

int mm_int(const cJSON *obj, const char *key, long long *out)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
	double d;

	if (!v || cJSON_IsNull(v))
		return 0;
	if (!cJSON_IsNumber(v))
		return -1;
	d = v->valuedouble;
	if (d != floor(d) || d < -9.2e18 || d > 9.2e18)
		return -1;
	*out = (long long)d;
	return 1;
}

/* One input line, without its newline, NUL-terminated in place. */
static void dispatch(const struct mm_loop *loop, char *line, size_t n)
{
	size_t i;
	cJSON *msg;

	for (i = 0; i < n && (line[i] == ' ' || line[i] == '\t' ||
			      line[i] == '\r'); i++)
		;
	if (i == n)
		return;
	n = jsent_hide_nul(line, n);
	line[n] = '\0';
	/* n + 1 with require_null_terminated: trailing junk after the value
	 * is an error, trailing whitespace is not. */
	msg = cJSON_ParseWithLengthOpts(line, n + 1, NULL, 1);
	if (!msg)
		mm_error(NULL, -32700, "Parse error");
	else if (!cJSON_IsObject(msg))
		mm_error(NULL, -32600, "Invalid Request");
	else
		loop->message_cb(msg);
	cJSON_Delete(msg);
}

static void run_due(const struct mm_loop *loop)
{
	while (loop->timeout_cb && loop->timers_cb && loop->timeout_cb() == 0)
		loop->timers_cb();
}

int mm_run(const struct mm_loop *loop)
{
	char *buf = NULL;
	size_t start = 0, scan = 0, len = 0, cap = 0;
	int rc = 0;

	for (;;) {
		char *nl;
		ssize_t k;
		int wait;

		while (scan < len &&
		       (nl = memchr(buf + scan, '\n', len - scan)) != NULL) {
			size_t at = (size_t)(nl - buf);

			dispatch(loop, buf + start, at - start);
			start = scan = at + 1;
			run_due(loop);
		}
		scan = len;
		if (start > 0) {
			memmove(buf, buf + start, len - start);
			len -= start;
			scan = len;
			start = 0;
		}
		if (cap - len < READ_CHUNK) {
			size_t ncap = cap ? 2 * cap : 4 * READ_CHUNK;
			char *nbuf;

			while (ncap - len < READ_CHUNK)
				ncap *= 2;
			/* one spare byte for the NUL after a last line */
			nbuf = realloc(buf, ncap + 1);
			if (!nbuf)
				die_nomem();
			buf = nbuf;
			cap = ncap;
		}
		run_due(loop);
		wait = loop->timeout_cb ? loop->timeout_cb() : -1;
		if (wait >= 0) {
			struct pollfd p = { .fd = 0, .events = POLLIN };
			int r = poll(&p, 1, wait);

			if (r < 0 && errno != EINTR) {
				rc = -1;
				break;
			}
			if (r <= 0)
				continue;
		}
		k = read(0, buf + len, cap - len);
		if (k < 0) {
			if (errno == EINTR)
				continue;
			rc = -1;
			break;
		}
		if (k == 0) {
			if (len > 0)
				dispatch(loop, buf, len);
			break;
		}
		len += (size_t)k;
	}
	free(buf);
	return rc;
}

void mm_idle(const struct mm_loop *loop)
{
	for (;;) {
		int wait = loop->timeout_cb ? loop->timeout_cb() : -1;

		if (wait < 0)
			pause();
		else if (wait > 0)
			poll(NULL, 0, wait);
		else
			run_due(loop);
	}
}
