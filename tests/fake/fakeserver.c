/*
 * fakeserver.c - an MCP stdio server that misbehaves on purpose, for the
 * mount tests. Options and tools are in README.md beside this file.
 *
 * One thread: poll() on stdin with a queue of timers, so sleep, hang,
 * progress and ask never block other requests and replies can come out of
 * order.
 */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <cjson/cJSON.h>

enum { T_SLEEP, T_PROGRESS };

struct timer {
	double at;
	int type;
	cJSON *id;      /* request id */
	cJSON *token;   /* progress token */
	long ms, step, steps;
	struct timer *next;
};

struct ask {
	char id[32];
	cJSON *req_id;
	struct ask *next;
};

static struct timer *timers;
static struct ask *asks;
static cJSON *cancelled_ids;
static long counter, ask_seq;
static int opt_garbage, opt_wrong_id, opt_no_init, opt_init_error;
static int opt_ignore_eof, out_closed;
static long opt_slow_start, opt_tools, opt_page;
static const char *opt_protocol;

static const char *const builtin[] = {
	"echo", "pid", "counter", "sleep", "crash", "hang", "close_stdout",
	"big", "hugeline", "progress", "log", "ask", "list_changed", "fail",
	"structured", "cancelled", "env", "cwd",
};
#define NBUILTIN (sizeof builtin / sizeof builtin[0])

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void write_all(const char *p, size_t n)
{
	while (n && !out_closed) {
		ssize_t k = write(1, p, n);

		if (k < 0) {
			if (errno == EINTR)
				continue;
			return;
		}
		p += k;
		n -= (size_t)k;
	}
}

static void send_json(cJSON *m)
{
	char *txt = cJSON_PrintUnformatted(m);

	if (txt) {
		size_t n = strlen(txt);

		txt[n] = '\n'; /* the NUL goes; write n + 1 bytes */
		write_all(txt, n + 1);
		cJSON_free(txt);
	}
	cJSON_Delete(m);
}

static void reply(cJSON *id, cJSON *result, cJSON *error)
{
	cJSON *m = cJSON_CreateObject();

	if (opt_garbage)
		write_all("this is not json\n", 17);
	cJSON_AddStringToObject(m, "jsonrpc", "2.0");
	cJSON_AddItemToObject(m, "id", cJSON_Duplicate(id, 1));
	if (error)
		cJSON_AddItemToObject(m, "error", error);
	else
		cJSON_AddItemToObject(m, "result", result);
	send_json(m);
}

static cJSON *text(const char *s)
{
	cJSON *r = cJSON_CreateObject();
	cJSON *c = cJSON_AddArrayToObject(r, "content"), *t = cJSON_CreateObject();

	cJSON_AddStringToObject(t, "type", "text");
	cJSON_AddStringToObject(t, "text", s);
	cJSON_AddItemToArray(c, t);
	return r;
}

static cJSON *err(int code, const char *msg)
{
	cJSON *e = cJSON_CreateObject();

	cJSON_AddNumberToObject(e, "code", code);
	cJSON_AddStringToObject(e, "message", msg);
	return e;
}

static void notify(const char *method, cJSON *params)
{
	cJSON *m = cJSON_CreateObject();

	cJSON_AddStringToObject(m, "jsonrpc", "2.0");
	cJSON_AddStringToObject(m, "method", method);
	cJSON_AddItemToObject(m, "params", params);
	send_json(m);
}

static long num(cJSON *o, const char *k, long dflt)
{
	cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k);

	return cJSON_IsNumber(v) ? (long)v->valuedouble : dflt;
}

static const char *str(cJSON *o, const char *k)
{
	cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k);

	return cJSON_IsString(v) ? v->valuestring : "";
}

static void add_timer(struct timer *t)
{
	t->next = timers;
	timers = t;
}

static void tools_list(cJSON *id, cJSON *params)
{
	long total = (long)NBUILTIN + opt_tools;
	long start = 0, end, i;
	const char *cur = str(params, "cursor");
	cJSON *r = cJSON_CreateObject(), *a = cJSON_AddArrayToObject(r, "tools");
	char name[32];

	if (*cur)
		start = atol(cur + 1); /* cursors are "c<index>" */
	end = opt_page > 0 && start + opt_page < total ? start + opt_page : total;
	for (i = start; i < end; i++) {
		cJSON *t = cJSON_CreateObject(), *s;

		if (i < (long)NBUILTIN)
			snprintf(name, sizeof name, "%s", builtin[i]);
		else
			snprintf(name, sizeof name, "t%ld", i - (long)NBUILTIN);
		cJSON_AddStringToObject(t, "name", name);
		cJSON_AddStringToObject(t, "description", "fake tool");
		s = cJSON_AddObjectToObject(t, "inputSchema");
		cJSON_AddStringToObject(s, "type", "object");
		cJSON_AddItemToArray(a, t);
	}
	if (end < total) {
		snprintf(name, sizeof name, "c%ld", end);
		cJSON_AddStringToObject(r, "nextCursor", name);
	}
	reply(id, r, NULL);
}

static void tool_call(cJSON *id, cJSON *params)
{
	const char *name = str(params, "name");
	cJSON *args = cJSON_GetObjectItemCaseSensitive(params, "arguments");
	cJSON *meta = cJSON_GetObjectItemCaseSensitive(params, "_meta");
	char buf[256];

	if (opt_wrong_id && cJSON_IsNumber(id)) {
		cJSON *stray = cJSON_CreateNumber(id->valuedouble + 1000);

		reply(stray, text("stray"), NULL);
		cJSON_Delete(stray);
	}
	if (!strcmp(name, "echo") || (name[0] == 't' && name[1] >= '0' &&
				      name[1] <= '9')) {
		reply(id, text(str(args, "text")), NULL);
	} else if (!strcmp(name, "pid")) {
		snprintf(buf, sizeof buf, "%d", (int)getpid());
		reply(id, text(buf), NULL);
	} else if (!strcmp(name, "counter")) {
		snprintf(buf, sizeof buf, "%ld", ++counter);
		reply(id, text(buf), NULL);
	} else if (!strcmp(name, "sleep") || !strcmp(name, "progress")) {
		struct timer *t = calloc(1, sizeof *t);

		t->id = cJSON_Duplicate(id, 1);
		if (!strcmp(name, "sleep")) {
			t->type = T_SLEEP;
			t->ms = num(args, "ms", 0);
		} else {
			t->type = T_PROGRESS;
			t->ms = num(args, "ms", 100);
			t->steps = num(args, "steps", 3);
			t->token = cJSON_Duplicate(
				cJSON_GetObjectItemCaseSensitive(meta,
							"progressToken"), 1);
		}
		t->at = now() + t->ms / 1000.0;
		add_timer(t);
	} else if (!strcmp(name, "crash")) {
		long sig = num(args, "signal", 0);

		fprintf(stderr, "crashing now\n");
		fflush(stderr);
		if (sig) {
			signal((int)sig, SIG_DFL);
			raise((int)sig);
		}
		_exit((int)num(args, "code", 3));
	} else if (!strcmp(name, "hang")) {
		/* never answered */
	} else if (!strcmp(name, "close_stdout")) {
		close(1);
		out_closed = 1;
	} else if (!strcmp(name, "big")) {
		long n = num(args, "bytes", 0), k;
		cJSON *idc = cJSON_Duplicate(id, 1);
		char *idt = cJSON_PrintUnformatted(idc);
		static const char pre[] = "{\"jsonrpc\":\"2.0\",\"id\":";
		static const char mid[] =
			",\"result\":{\"content\":[{\"type\":\"text\",\"text\":\"";
		char *x = malloc(n > 0 ? (size_t)n : 1);

		for (k = 0; k < n; k++)
			x[k] = 'x';
		write_all(pre, sizeof pre - 1);
		write_all(idt, strlen(idt));
		write_all(mid, sizeof mid - 1);
		write_all(x, (size_t)n);
		write_all("\"}]}}\n", 6);
		free(x);
		cJSON_free(idt);
		cJSON_Delete(idc);
	} else if (!strcmp(name, "hugeline")) {
		long n = num(args, "bytes", 0);
		char *x = malloc(n > 0 ? (size_t)n : 1);

		memset(x, 'x', (size_t)n);
		write_all(x, (size_t)n);
		write_all("\n", 1);
		free(x);
	} else if (!strcmp(name, "log")) {
		cJSON *p = cJSON_CreateObject();

		cJSON_AddStringToObject(p, "level", *str(args, "level") ?
					str(args, "level") : "info");
		cJSON_AddStringToObject(p, "logger", "fake");
		cJSON_AddItemToObject(p, "data", cJSON_Duplicate(
			cJSON_GetObjectItemCaseSensitive(args, "data"), 1));
		notify("notifications/message", p);
		reply(id, text("logged"), NULL);
	} else if (!strcmp(name, "ask")) {
		struct ask *a = calloc(1, sizeof *a);
		cJSON *m = cJSON_CreateObject();

		snprintf(a->id, sizeof a->id, "srv-%ld", ++ask_seq);
		a->req_id = cJSON_Duplicate(id, 1);
		a->next = asks;
		asks = a;
		cJSON_AddStringToObject(m, "jsonrpc", "2.0");
		cJSON_AddStringToObject(m, "id", a->id);
		cJSON_AddStringToObject(m, "method", str(args, "method"));
		cJSON_AddItemToObject(m, "params", cJSON_Duplicate(
			cJSON_GetObjectItemCaseSensitive(args, "params"), 1));
		if (!cJSON_GetObjectItemCaseSensitive(m, "params") ||
		    cJSON_IsNull(cJSON_GetObjectItemCaseSensitive(m, "params")))
			cJSON_ReplaceItemInObject(m, "params",
						  cJSON_CreateObject());
		send_json(m);
	} else if (!strcmp(name, "list_changed")) {
		notify("notifications/tools/list_changed", cJSON_CreateObject());
		reply(id, text("ok"), NULL);
	} else if (!strcmp(name, "fail")) {
		cJSON *r = text("tool failed");

		cJSON_AddTrueToObject(r, "isError");
		reply(id, r, NULL);
	} else if (!strcmp(name, "structured")) {
		cJSON *r = text("{\"a\":1,\"b\":[1,2]}");

		cJSON_AddItemToObject(r, "structuredContent",
				      cJSON_Parse("{\"a\":1,\"b\":[1,2]}"));
		reply(id, r, NULL);
	} else if (!strcmp(name, "cancelled")) {
		char *t = cJSON_PrintUnformatted(cancelled_ids);

		reply(id, text(t), NULL);
		cJSON_free(t);
	} else if (!strcmp(name, "env")) {
		const char *v = getenv(str(args, "name"));

		reply(id, text(v ? v : ""), NULL);
	} else if (!strcmp(name, "cwd")) {
		char *d = getcwd(NULL, 0);

		reply(id, text(d ? d : ""), NULL);
		free(d);
	} else {
		snprintf(buf, sizeof buf, "Unknown tool: %.200s", name);
		reply(id, NULL, err(-32602, buf));
	}
}

/* An answer from the client to one of our ask requests. */
static void answer_in(cJSON *msg)
{
	cJSON *id = cJSON_GetObjectItemCaseSensitive(msg, "id");
	struct ask **pp, *a;
	cJSON *o;
	char *t;

	for (pp = &asks; (a = *pp) != NULL; pp = &a->next)
		if (cJSON_IsString(id) && !strcmp(a->id, id->valuestring))
			break;
	if (!a)
		return;
	*pp = a->next;
	o = cJSON_CreateObject();
	if (cJSON_GetObjectItemCaseSensitive(msg, "error"))
		cJSON_AddItemToObject(o, "error", cJSON_Duplicate(
			cJSON_GetObjectItemCaseSensitive(msg, "error"), 1));
	else
		cJSON_AddItemToObject(o, "result", cJSON_Duplicate(
			cJSON_GetObjectItemCaseSensitive(msg, "result"), 1));
	t = cJSON_PrintUnformatted(o);
	reply(a->req_id, text(t), NULL);
	cJSON_free(t);
	cJSON_Delete(o);
	cJSON_Delete(a->req_id);
	free(a);
}

static void cancel(cJSON *params)
{
	cJSON *rid = cJSON_GetObjectItemCaseSensitive(params, "requestId");
	struct timer **pp, *t;

	if (!rid)
		return;
	cJSON_AddItemToArray(cancelled_ids, cJSON_Duplicate(rid, 1));
	for (pp = &timers; (t = *pp) != NULL;) {
		if (cJSON_Compare(t->id, rid, 1)) {
			*pp = t->next;
			cJSON_Delete(t->id);
			cJSON_Delete(t->token);
			free(t);
		} else {
			pp = &t->next;
		}
	}
}

static void handle(cJSON *msg)
{
	cJSON *id = cJSON_GetObjectItemCaseSensitive(msg, "id");
	cJSON *m = cJSON_GetObjectItemCaseSensitive(msg, "method");
	cJSON *params = cJSON_GetObjectItemCaseSensitive(msg, "params");
	const char *method = cJSON_IsString(m) ? m->valuestring : NULL;

	if (!method) {
		answer_in(msg);
		return;
	}
	if (!id) {
		if (!strcmp(method, "notifications/cancelled"))
			cancel(params);
		return;
	}
	if (!strcmp(method, "initialize")) {
		cJSON *r, *caps, *info;
		const char *v = opt_protocol ? opt_protocol
					     : str(params, "protocolVersion");

		if (opt_no_init)
			return;
		if (opt_init_error) {
			reply(id, NULL, err(-32603, "init refused"));
			return;
		}
		if (opt_slow_start) {
			struct timespec ts = { opt_slow_start / 1000,
					       (opt_slow_start % 1000) * 1000000L };
			nanosleep(&ts, NULL);
		}
		r = cJSON_CreateObject();
		cJSON_AddStringToObject(r, "protocolVersion", v);
		caps = cJSON_AddObjectToObject(r, "capabilities");
		cJSON_AddTrueToObject(cJSON_AddObjectToObject(caps, "tools"),
				      "listChanged");
		cJSON_AddObjectToObject(caps, "logging");
		info = cJSON_AddObjectToObject(r, "serverInfo");
		cJSON_AddStringToObject(info, "name", "fakeserver");
		cJSON_AddStringToObject(info, "version", "1.0");
		reply(id, r, NULL);
	} else if (!strcmp(method, "ping")) {
		reply(id, cJSON_CreateObject(), NULL);
	} else if (!strcmp(method, "tools/list")) {
		tools_list(id, params);
	} else if (!strcmp(method, "tools/call")) {
		tool_call(id, params);
	} else {
		reply(id, NULL, err(-32601, "Method not found"));
	}
}

static void run_timers(void)
{
	struct timer **pp, *t;
	double n = now();
	char buf[64];

	for (pp = &timers; (t = *pp) != NULL;) {
		if (t->at > n) {
			pp = &t->next;
			continue;
		}
		if (t->type == T_PROGRESS && t->step < t->steps) {
			t->step++;
			if (t->token) {
				cJSON *p = cJSON_CreateObject();

				cJSON_AddItemToObject(p, "progressToken",
					cJSON_Duplicate(t->token, 1));
				cJSON_AddNumberToObject(p, "progress", t->step);
				cJSON_AddNumberToObject(p, "total", t->steps);
				notify("notifications/progress", p);
			}
			t->at = n + t->ms / 1000.0;
			if (t->step < t->steps) {
				pp = &t->next;
				continue;
			}
		}
		*pp = t->next;
		if (t->type == T_SLEEP)
			snprintf(buf, sizeof buf, "slept %ld", t->ms);
		else
			snprintf(buf, sizeof buf, "done");
		reply(t->id, text(buf), NULL);
		cJSON_Delete(t->id);
		cJSON_Delete(t->token);
		free(t);
	}
}

static int next_wait_ms(void)
{
	struct timer *t;
	double soonest = -1, n = now();

	for (t = timers; t; t = t->next)
		if (soonest < 0 || t->at < soonest)
			soonest = t->at;
	if (soonest < 0)
		return -1;
	return soonest <= n ? 0 : (int)((soonest - n) * 1000) + 1;
}

static void options(int argc, char **argv)
{
	int i;

	for (i = 1; i < argc; i++) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : "0";

		if (!strcmp(a, "--exit-at-start")) {
			fprintf(stderr, "fakeserver: exiting at start\n");
			exit(atoi(v));
		} else if (!strcmp(a, "--slow-start")) {
			opt_slow_start = atol(v), i++;
		} else if (!strcmp(a, "--no-init")) {
			opt_no_init = 1;
		} else if (!strcmp(a, "--init-error")) {
			opt_init_error = 1;
		} else if (!strcmp(a, "--protocol")) {
			opt_protocol = v, i++;
		} else if (!strcmp(a, "--ignore-sigterm")) {
			signal(SIGTERM, SIG_IGN);
		} else if (!strcmp(a, "--ignore-stdin-eof")) {
			opt_ignore_eof = 1;
		} else if (!strcmp(a, "--tools")) {
			opt_tools = atol(v), i++;
		} else if (!strcmp(a, "--page-size")) {
			opt_page = atol(v), i++;
		} else if (!strcmp(a, "--stderr-lines")) {
			long k, n = atol(v);

			for (k = 0; k < n; k++)
				fprintf(stderr, "stderr line %ld\n", k);
			fflush(stderr);
			i++;
		} else if (!strcmp(a, "--garbage")) {
			opt_garbage = 1;
		} else if (!strcmp(a, "--wrong-id")) {
			opt_wrong_id = 1;
		}
	}
}

int main(int argc, char **argv)
{
	char *buf = NULL;
	size_t len = 0, cap = 0;

	signal(SIGPIPE, SIG_IGN);
	cancelled_ids = cJSON_CreateArray();
	options(argc, argv);
	for (;;) {
		struct pollfd p = { .fd = 0, .events = POLLIN };
		int r = poll(&p, 1, next_wait_ms());
		ssize_t n;
		char *nl;

		run_timers();
		if (r <= 0)
			continue;
		if (len + 65536 > cap) {
			cap = 2 * cap + 65536;
			buf = realloc(buf, cap);
		}
		n = read(0, buf + len, cap - len);
		if (n <= 0) {
			if (n < 0 && errno == EINTR)
				continue;
			break;
		}
		len += (size_t)n;
		while ((nl = memchr(buf, '\n', len)) != NULL) {
			size_t k = (size_t)(nl - buf) + 1;
			cJSON *msg = cJSON_ParseWithLength(buf, k - 1);

			if (cJSON_IsObject(msg))
				handle(msg);
			cJSON_Delete(msg);
			memmove(buf, buf + k, len - k);
			len -= k;
		}
	}
	while (opt_ignore_eof)
		pause();
	free(buf);
	cJSON_Delete(cancelled_ids);
	return 0;
}
