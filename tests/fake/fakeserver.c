/*
 * fakeserver.c - an MCP stdio server that misbehaves on purpose, for the
 * mount tests. Its options and tools are specified in README.md beside
 * this file; the stdio plumbing is examples/mini_mcp.c.
 *
 * One thread. Requests that take time (sleep, progress, hang, ask, a slow
 * initialize) wait in a list of pending requests; mini_mcp's loop fires
 * the due ones between reads of stdin, so replies can come out of order
 * and nothing blocks the other requests.
 */
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "fakeera.h"
#include "fakeexact.h"
#include "fakepartial.h"
#include "mini_mcp.h"

enum kind { P_INIT, P_SLEEP, P_PROGRESS, P_HANG, P_ASK };

/* A request that has not been answered yet. */
struct pending {
	enum kind kind;
	cJSON *id;              /* the client's request id (a copy) */
	long long due;          /* mm_now_ms() of the next step, -1: none */
	long long ms;           /* sleep length, progress interval */
	long long step, steps;  /* progress */
	cJSON *token;           /* progressToken, or NULL */
	cJSON *init;            /* P_INIT: the result, NULL for the error */
	char ask_id[32];        /* P_ASK: the id of our request */
	struct pending *next;
};

struct tool {
	const char *name;
	const char *description;
	const char *schema;     /* inputSchema, as JSON text */
	void (*run)(const cJSON *id, const cJSON *args, const cJSON *params);
};

static struct pending *pending;
static cJSON *cancelled_ids;
static long long counter, ask_seq;

static long long opt_slow_start, opt_tools, opt_page, opt_stderr_lines;
static const char *opt_start_gate; /* answer initialize once it exists */
static long long opt_exit_code;
static int opt_exit_at_start, opt_no_init, opt_init_error, opt_ignore_term;
static int opt_ignore_eof, opt_garbage, opt_wrong_id, opt_exact;
static const char *opt_protocol;

/* ---------------------------------------------------------------- replies */

static void garbage(void)
{
	static const char line[] = "this is not json\n";

	if (opt_garbage)
		mm_write(line, sizeof line - 1);
}

/* A reply to anything but tools/call. */
static void reply(const cJSON *id, cJSON *result)
{
	garbage();
	if (era_active()) {
		if (!result)
			result = cJSON_CreateObject();
		era_complete(result);
	}
	mm_result(id, result);
}

static void reply_error(const cJSON *id, int code, const char *message)
{
	garbage();
	mm_error(id, code, message);
}

/* --wrong-id: a stray reply before the real one, with id + 1000 (a string
 * id gets "+1000" appended). */
static void stray(const cJSON *id)
{
	cJSON *wrong;
	char buf[512];

	if (!opt_wrong_id)
		return;
	if (cJSON_IsNumber(id)) {
		wrong = cJSON_CreateNumber(id->valuedouble + 1000);
	} else if (cJSON_IsString(id)) {
		snprintf(buf, sizeof buf, "%.400s+1000", id->valuestring);
		wrong = cJSON_CreateString(buf);
	} else {
		wrong = cJSON_CreateNumber(1000);
	}
	reply(wrong, mm_text("stray", 0));
	cJSON_Delete(wrong);
}

/* The reply to a tools/call: the stray first if asked for. */
static void tool_reply(const cJSON *id, cJSON *result)
{
	stray(id);
	reply(id, result);
}

static void tool_error(const cJSON *id, int code, const char *message)
{
	stray(id);
	reply_error(id, code, message);
}

static void tool_text(const cJSON *id, const char *text)
{
	tool_reply(id, mm_text(text, 0));
}

/* ---------------------------------------------------------------- pending */

static struct pending *pending_add(enum kind kind, const cJSON *id)
{
	struct pending *p = calloc(1, sizeof *p), **pp;

	if (!p) {
		fprintf(stderr, "fakeserver: out of memory\n");
		exit(70);
	}
	p->kind = kind;
	p->id = cJSON_Duplicate(id, 1);
	p->due = -1;
	for (pp = &pending; *pp; pp = &(*pp)->next)
		;
	*pp = p;
	return p;
}

static void pending_free(struct pending *p)
{
	cJSON_Delete(p->id);
	cJSON_Delete(p->token);
	cJSON_Delete(p->init);
	free(p);
}

static void pending_unlink(struct pending *p)
{
	struct pending **pp;

	for (pp = &pending; *pp != p; pp = &(*pp)->next)
		;
	*pp = p->next;
}

static int timeout_cb(void)
{
	long long soonest = -1, now = mm_now_ms();
	struct pending *p;

	for (p = pending; p; p = p->next)
		if (p->due >= 0 && (soonest < 0 || p->due < soonest))
			soonest = p->due;
	if (soonest < 0)
		return -1;
	if (soonest <= now)
		return 0;
	return soonest - now > INT_MAX ? INT_MAX : (int)(soonest - now);
}

/* Advances p by one step; returns 1 if p is finished (answered). */
static int pending_fire(struct pending *p, long long now)
{
	char buf[64];

	switch (p->kind) {
	case P_INIT:
		if (opt_start_gate && access(opt_start_gate, F_OK) != 0) {
			p->due = now + 10; /* the gate is shut: look again */
			return 0;
		}
		if (p->init) {
			reply(p->id, p->init);
			p->init = NULL;
		} else {
			reply_error(p->id, -32603, "init refused");
		}
		return 1;
	case P_SLEEP:
		snprintf(buf, sizeof buf, "slept %lld", p->ms);
		tool_text(p->id, buf);
		return 1;
	case P_PROGRESS:
		if (p->step < p->steps) {
			p->step++;
			if (p->token) {
				cJSON *n = cJSON_CreateObject();

				cJSON_AddItemToObject(n, "progressToken",
						cJSON_Duplicate(p->token, 1));
				cJSON_AddNumberToObject(n, "progress",
							(double)p->step);
				cJSON_AddNumberToObject(n, "total",
							(double)p->steps);
				mm_notify("notifications/progress", n);
			}
		}
		if (p->step < p->steps) {
			p->due = now + p->ms;
			return 0;
		}
		tool_text(p->id, "done");
		return 1;
	case P_HANG:
	case P_ASK:
		break;
	}
	p->due = -1;
	return 0;
}

/* Fires the first due request (one per call: firing may change the list). */
static void timers_cb(void)
{
	long long now = mm_now_ms();
	struct pending *p, *first = NULL;

	for (p = pending; p; p = p->next)
		if (p->due >= 0 && p->due <= now &&
		    (!first || p->due < first->due))
			first = p;
	if (first && pending_fire(first, now)) {
		pending_unlink(first);
		pending_free(first);
	}
}

/* ---------------------------------------------------------------- tools */

static void tool_echo(const cJSON *id, const cJSON *args,
		      const cJSON *params)
{
	const char *t = mm_str(args, "text");

	tool_text(id, t ? t : "");
}

static void tool_pid(const cJSON *id, const cJSON *args, const cJSON *params)
{
	char buf[32];

	snprintf(buf, sizeof buf, "%ld", (long)getpid());
	tool_text(id, buf);
}

static void tool_counter(const cJSON *id, const cJSON *args,
			 const cJSON *params)
{
	char buf[32];

	snprintf(buf, sizeof buf, "%lld", ++counter);
	tool_text(id, buf);
}

static long long nonneg(const cJSON *args, const char *key, long long dflt)
{
	long long v = dflt;

	if (mm_int(args, key, &v) < 0 || v < 0)
		v = dflt;
	return v;
}

static void tool_sleep(const cJSON *id, const cJSON *args,
		       const cJSON *params)
{
	struct pending *p = pending_add(P_SLEEP, id);

	p->ms = nonneg(args, "ms", 0);
	p->due = mm_now_ms() + p->ms;
}

static int signal_number(const cJSON *v)
{
	static const struct { const char *name; int sig; } names[] = {
		{ "HUP", SIGHUP }, { "INT", SIGINT }, { "QUIT", SIGQUIT },
		{ "ILL", SIGILL }, { "ABRT", SIGABRT }, { "FPE", SIGFPE },
		{ "KILL", SIGKILL }, { "SEGV", SIGSEGV }, { "PIPE", SIGPIPE },
		{ "ALRM", SIGALRM }, { "TERM", SIGTERM }, { "USR1", SIGUSR1 },
		{ "USR2", SIGUSR2 }, { "BUS", SIGBUS },
	};
	const char *s;
	size_t i;

	if (cJSON_IsNumber(v))
		return (int)v->valuedouble;
	if (!cJSON_IsString(v))
		return 0;
	s = v->valuestring;
	if (!strncasecmp(s, "SIG", 3))
		s += 3;
	for (i = 0; i < sizeof names / sizeof names[0]; i++)
		if (!strcasecmp(s, names[i].name))
			return names[i].sig;
	return atoi(s);
}

static void tool_crash(const cJSON *id, const cJSON *args,
		       const cJSON *params)
{
	int sig = signal_number(cJSON_GetObjectItemCaseSensitive(args,
								 "signal"));
	long long code = 3, linger = 0;

	mm_int(args, "code", &code);
	fprintf(stderr, "crashing now\n");
	if (mm_int(args, "linger_ms", &linger) == 1 && linger > 0) {
		/* both pipes closed, the exit later: a dying process on a
		 * loaded machine */
		fflush(stderr);
		close(1);
		close(2);
		usleep((useconds_t)(linger * 1000));
	}
	if (sig > 0 && sig < NSIG) {
		sigset_t set;

		signal(sig, SIG_DFL);
		sigemptyset(&set);
		sigaddset(&set, sig);
		sigprocmask(SIG_UNBLOCK, &set, NULL);
		raise(sig);
	}
	_exit((int)(code & 255));
}

static void tool_hang(const cJSON *id, const cJSON *args,
		      const cJSON *params)
{
	pending_add(P_HANG, id);
}

static void tool_close_stdout(const cJSON *id, const cJSON *args,
			      const cJSON *params)
{
	mm_close_stdout();
}

/* n bytes of 'x', written in big slices of one static block. */
static void write_xs(long long n)
{
	static char block[1 << 20];

	if (!block[0])
		memset(block, 'x', sizeof block);
	while (n > 0) {
		size_t k = n > (long long)sizeof block ? sizeof block
						       : (size_t)n;

		mm_write(block, k);
		n -= (long long)k;
	}
}

static void mm_puts(const char *t)
{
	mm_write(t, strlen(t));
}

/*
 * The unit of the "esc" text as sent (26 bytes): escaped quotes after odd
 * runs of 1, 5 and 7 backslashes, even runs, and after each quote three
 * closing braces and brackets, so that a scanner that takes any of these
 * quotes for the end of the string closes the result there; it decodes to
 * 18 characters (the test decodes it with json). Repeated, its runs fall
 * across every read and buffer boundary.
 */
static const char esc_unit[] = "\\\"" "}]}" "\\\\\\\\" "\\\"" "}]}"
			       "\\\\\\\\\\\\" "\\\"" "}]}q";
#define ESC_UNIT (sizeof esc_unit - 1)

/* units units of the esc text, in big slices of one static block (a whole
 * number of units, so that slices join seamlessly). */
static void write_esc(long long units)
{
	static char block[ESC_UNIT * 40329];
	size_t i;

	if (!block[0])
		for (i = 0; i < sizeof block; i += ESC_UNIT)
			memcpy(block + i, esc_unit, ESC_UNIT);
	while (units > 0) {
		long long per = (long long)(sizeof block / ESC_UNIT);
		long long k = units > per ? per : units;

		mm_write(block, (size_t)k * ESC_UNIT);
		units -= k;
	}
}

/* n bytes of text as sent: n of 'x', or (esc) n / 26 units of esc text. */
static void write_text(long long n, int esc)
{
	if (esc)
		write_esc(n / (long long)ESC_UNIT);
	else
		write_xs(n);
}

/* The reply is written by hand: the payload never goes through cJSON.
 * order "id" (default): jsonrpc, id, result; "result": result first, then
 * jsonrpc and id (as the TypeScript SDK writes); "extra": an unknown member
 * "x" before result; "bad": an "error" member after result, which makes
 * the line no reply at all. pause_ms: stop that long (the whole process)
 * halfway through the text (after split bytes of it, when given), so that
 * the line arrives in two parts; gate (a path): stop there until that
 * file exists (at most 120 s), so that a test decides when the second
 * part comes, whatever the load. text
 * "esc": instead of x, bytes / 26 units of esc_unit (escapes, braces),
 * split between whole units. */
/* Until the file named by gate (a string) exists: at most 120 s. */
static void gate_wait(const cJSON *gate)
{
	int i;

	for (i = 0; cJSON_IsString(gate) && i < 12000 &&
		    access(gate->valuestring, F_OK) != 0; i++)
		usleep(10000);
}

static void tool_big(const cJSON *id, const cJSON *args, const cJSON *params)
{
	static const char res[] = "\"result\":{\"content\":[{\"type\":"
				  "\"text\",\"text\":\"";
	const cJSON *o = cJSON_GetObjectItemCaseSensitive(args, "order");
	const char *order = cJSON_IsString(o) ? o->valuestring : "id";
	const cJSON *tx = cJSON_GetObjectItemCaseSensitive(args, "text");
	int esc = cJSON_IsString(tx) && !strcmp(tx->valuestring, "esc");
	cJSON *copy = cJSON_Duplicate(id, 1);
	char *idtext = cJSON_PrintUnformatted(copy);

	stray(id);
	garbage();
	if (!strcmp(order, "result")) {
		mm_write("{", 1);
		mm_write(res, sizeof res - 1);
		write_text(nonneg(args, "bytes", 0), esc);
		mm_puts("\"}]},\"jsonrpc\":\"2.0\",\"id\":");
		mm_write(idtext, strlen(idtext));
		mm_puts("}\n");
	} else {
		long long n = nonneg(args, "bytes", 0);
		long long pause = nonneg(args, "pause_ms", 0);
		long long half = esc ? n / (long long)ESC_UNIT / 2 *
				       (long long)ESC_UNIT : n / 2;

		if (!esc && cJSON_GetObjectItemCaseSensitive(args, "split"))
			half = nonneg(args, "split", 0) < n ?
			       nonneg(args, "split", 0) : n;

		mm_puts("{\"jsonrpc\":\"2.0\",\"id\":");
		mm_write(idtext, strlen(idtext));
		if (!strcmp(order, "extra"))
			mm_puts(",\"x\":\"\"");
		mm_write(",", 1);
		mm_write(res, sizeof res - 1);
		write_text(half, esc);
		if (pause)
			usleep((useconds_t)(pause * 1000));
		gate_wait(cJSON_GetObjectItemCaseSensitive(args, "gate"));
		write_text(n - half, esc);
		mm_puts(strcmp(order, "bad") ? "\"}]}}\n"
			: "\"}]},\"error\":{\"code\":1,\"message\":\"x\"}}\n");
	}
	cJSON_free(idtext);
	cJSON_Delete(copy);
}

static void tool_hugeline(const cJSON *id, const cJSON *args,
			  const cJSON *params)
{
	write_xs(nonneg(args, "bytes", 0));
	mm_write("\n", 1);
}

static void tool_progress(const cJSON *id, const cJSON *args,
			  const cJSON *params)
{
	cJSON *meta = cJSON_GetObjectItemCaseSensitive(params, "_meta");
	cJSON *token = cJSON_GetObjectItemCaseSensitive(meta, "progressToken");
	struct pending *p = pending_add(P_PROGRESS, id);

	p->steps = nonneg(args, "steps", 3);
	p->ms = nonneg(args, "ms", 100);
	p->token = token ? cJSON_Duplicate(token, 1) : NULL;
	p->due = mm_now_ms() + p->ms;
}

static void tool_log(const cJSON *id, const cJSON *args, const cJSON *params)
{
	const char *level = mm_str(args, "level");
	cJSON *data = cJSON_GetObjectItemCaseSensitive(args, "data");
	cJSON *n = cJSON_CreateObject();

	cJSON_AddStringToObject(n, "level", level ? level : "info");
	cJSON_AddStringToObject(n, "logger", "fake");
	cJSON_AddItemToObject(n, "data", data ? cJSON_Duplicate(data, 1)
					      : cJSON_CreateNull());
	mm_notify("notifications/message", n);
	tool_text(id, "logged");
}

static void tool_ask(const cJSON *id, const cJSON *args, const cJSON *params)
{
	const char *method = mm_str(args, "method");
	cJSON *p = cJSON_GetObjectItemCaseSensitive(args, "params");
	cJSON *m;
	struct pending *a;

	if (!method) {
		tool_error(id, -32602, "ask needs a method");
		return;
	}
	a = pending_add(P_ASK, id);
	snprintf(a->ask_id, sizeof a->ask_id, "srv-%lld", ++ask_seq);
	m = cJSON_CreateObject();
	cJSON_AddStringToObject(m, "jsonrpc", "2.0");
	cJSON_AddStringToObject(m, "id", a->ask_id);
	cJSON_AddStringToObject(m, "method", method);
	cJSON_AddItemToObject(m, "params", cJSON_IsObject(p) || cJSON_IsArray(p)
				? cJSON_Duplicate(p, 1) : cJSON_CreateObject());
	mm_send(m);
}

/* --exact: elicitation/create with exact_question as its params, as ask
 * does. */
static void tool_exact_ask(const cJSON *id)
{
	struct pending *a = pending_add(P_ASK, id);
	cJSON *m = cJSON_CreateObject();

	snprintf(a->ask_id, sizeof a->ask_id, "srv-%lld", ++ask_seq);
	cJSON_AddStringToObject(m, "jsonrpc", "2.0");
	cJSON_AddStringToObject(m, "id", a->ask_id);
	cJSON_AddStringToObject(m, "method", "elicitation/create");
	cJSON_AddRawToObject(m, "params", exact_question);
	mm_send(m);
}

static void tool_list_changed(const cJSON *id, const cJSON *args,
			      const cJSON *params)
{
	mm_notify("notifications/tools/list_changed", NULL);
	tool_text(id, "ok");
}

static void tool_fail(const cJSON *id, const cJSON *args, const cJSON *params)
{
	tool_reply(id, mm_text("tool failed", 1));
}

static void tool_structured(const cJSON *id, const cJSON *args,
			    const cJSON *params)
{
	static const char doc[] = "{\"a\":1,\"b\":[1,2]}";
	cJSON *r = mm_text(doc, 0);

	cJSON_AddItemToObject(r, "structuredContent", cJSON_Parse(doc));
	tool_reply(id, r);
}

static void tool_cancelled(const cJSON *id, const cJSON *args,
			   const cJSON *params)
{
	char *t = cJSON_PrintUnformatted(cancelled_ids);

	tool_text(id, t);
	cJSON_free(t);
}

static void tool_env(const cJSON *id, const cJSON *args, const cJSON *params)
{
	const char *name = mm_str(args, "name");
	const char *v = name ? getenv(name) : NULL;

	tool_text(id, v ? v : "");
}

static void tool_cwd(const cJSON *id, const cJSON *args, const cJSON *params)
{
	char *d = getcwd(NULL, 0);

	tool_text(id, d ? d : "");
	free(d);
}

#define NO_ARGS "{\"type\":\"object\",\"properties\":{}}"
#define ECHO_ARGS "{\"type\":\"object\",\"properties\":{\"text\":" \
	"{\"type\":\"string\",\"description\":\"text to return\"}}," \
	"\"required\":[\"text\"]}"
#define BYTES_ARGS "{\"type\":\"object\",\"properties\":{\"bytes\":" \
	"{\"type\":\"integer\",\"minimum\":0}},\"required\":[\"bytes\"]}"

static const struct tool tools[] = {
	{ "echo", "Return text.", ECHO_ARGS, tool_echo },
	{ "pid", "Return the process id.", NO_ARGS, tool_pid },
	{ "counter", "Increment the per-process counter and return it.",
	  NO_ARGS, tool_counter },
	{ "sleep", "Answer \"slept MS\" after ms milliseconds, without "
	  "blocking other requests.",
	  "{\"type\":\"object\",\"properties\":{\"ms\":{\"type\":\"integer\","
	  "\"minimum\":0}},\"required\":[\"ms\"]}", tool_sleep },
	{ "crash", "Write \"crashing now\" to stderr and exit with code, or "
	  "die of signal; never answers.",
	  "{\"type\":\"object\",\"properties\":{\"code\":{\"type\":"
	  "\"integer\",\"default\":3},\"signal\":{\"type\":[\"integer\","
	  "\"string\"]}}}", tool_crash },
	{ "hang", "Never answer.", NO_ARGS, tool_hang },
	{ "close_stdout", "Close stdout and keep running until stdin EOF.",
	  NO_ARGS, tool_close_stdout },
	{ "big", "Return a text of exactly bytes bytes of x.", BYTES_ARGS,
	  tool_big },
	{ "hugeline", "Write one line of bytes bytes of x that is not JSON.",
	  BYTES_ARGS, tool_hugeline },
	{ "progress", "Send steps notifications/progress, one every ms "
	  "milliseconds, then answer \"done\".",
	  "{\"type\":\"object\",\"properties\":{\"steps\":{\"type\":"
	  "\"integer\",\"minimum\":0,\"default\":3},\"ms\":{\"type\":"
	  "\"integer\",\"minimum\":0,\"default\":100}}}", tool_progress },
	{ "log", "Send notifications/message with level and data, then "
	  "answer \"logged\".",
	  "{\"type\":\"object\",\"properties\":{\"level\":{\"type\":"
	  "\"string\",\"enum\":[\"debug\",\"info\",\"notice\",\"warning\","
	  "\"error\",\"critical\",\"alert\",\"emergency\"]},\"data\":{}}}",
	  tool_log },
	{ "ask", "Send the request method with params to the client and "
	  "answer with the JSON of its result or error.",
	  "{\"type\":\"object\",\"properties\":{\"method\":{\"type\":"
	  "\"string\"},\"params\":{\"type\":\"object\"}},"
	  "\"required\":[\"method\"]}", tool_ask },
	{ "list_changed", "Send notifications/tools/list_changed.", NO_ARGS,
	  tool_list_changed },
	{ "fail", "Return a result with isError: true.", NO_ARGS, tool_fail },
	{ "structured", "Return {\"a\":1,\"b\":[1,2]} as text and as "
	  "structuredContent.", NO_ARGS, tool_structured },
	{ "cancelled", "Return the request ids seen in "
	  "notifications/cancelled, as a JSON array.", NO_ARGS,
	  tool_cancelled },
	{ "env", "Return the value of an environment variable (empty if "
	  "unset).",
	  "{\"type\":\"object\",\"properties\":{\"name\":{\"type\":"
	  "\"string\"}},\"required\":[\"name\"]}", tool_env },
	{ "cwd", "Return the current directory.", NO_ARGS, tool_cwd },
};
#define NTOOLS ((long long)(sizeof tools / sizeof tools[0]))

/* Index of an extra tool tK, or -1. */
static long long extra_index(const char *name)
{
	char *end;
	long long k;

	if (name[0] != 't' || name[1] < '0' || name[1] > '9' ||
	    (name[1] == '0' && name[2]))
		return -1;
	errno = 0;
	k = strtoll(name + 1, &end, 10);
	return !errno && !*end && k < opt_tools ? k : -1;
}

/* ---------------------------------------------------------------- methods */

/* Cursors are "fake-page-<index>"; anything else is refused. */
static void tools_list(const cJSON *id, const cJSON *params)
{
	static const char prefix[] = "fake-page-";
	long long total = NTOOLS + opt_tools, start = 0, end, i;
	const char *cursor = mm_str(params, "cursor");
	cJSON *r, *list;
	char name[48];

	if (opt_exact && exact_list(id, cursor))
		return;
	if (cursor) {
		char *rest;

		errno = 0;
		if (strncmp(cursor, prefix, sizeof prefix - 1) ||
		    (start = strtoll(cursor + sizeof prefix - 1, &rest, 10),
		     errno || *rest || start < 0 || start >= total)) {
			reply_error(id, -32602, "Invalid cursor");
			return;
		}
	}
	end = opt_page > 0 && opt_page < total - start ? start + opt_page
							: total;
	r = cJSON_CreateObject();
	list = cJSON_AddArrayToObject(r, "tools");
	for (i = start; i < end; i++) {
		cJSON *t = cJSON_CreateObject();

		if (i < NTOOLS) {
			int modern = era_active() && tools[i].run == tool_ask;

			cJSON_AddStringToObject(t, "name", tools[i].name);
			cJSON_AddStringToObject(t, "description", modern
				? ERA_ASK_DESC : tools[i].description);
			cJSON_AddItemToObject(t, "inputSchema", cJSON_Parse(
				modern ? ERA_ASK_SCHEMA : tools[i].schema));
		} else {
			snprintf(name, sizeof name, "t%lld", i - NTOOLS);
			cJSON_AddStringToObject(t, "name", name);
			cJSON_AddStringToObject(t, "description",
						"Extra tool: return text.");
			cJSON_AddItemToObject(t, "inputSchema",
					      cJSON_Parse(ECHO_ARGS));
		}
		cJSON_AddItemToArray(list, t);
	}
	if (end < total) {
		snprintf(name, sizeof name, "%s%lld", prefix, end);
		cJSON_AddStringToObject(r, "nextCursor", name);
	} else {
		era_tools(list);
	}
	reply(id, r);
}

static void tools_call(const cJSON *id, const cJSON *params)
{
	const char *name = mm_str(params, "name");
	cJSON *args = cJSON_GetObjectItemCaseSensitive(params, "arguments");
	char buf[300];
	long long i;

	if (!name)
		name = "";
	if (opt_exact && !strcmp(name, "exact_ask")) {
		tool_exact_ask(id);
		return;
	}
	if (opt_exact && exact_call(id, name))
		return;
	for (i = 0; i < NTOOLS; i++) {
		if (!strcmp(name, tools[i].name)) {
			tools[i].run(id, args, params);
			return;
		}
	}
	if (extra_index(name) >= 0) {
		tool_echo(id, args, params);
		return;
	}
	snprintf(buf, sizeof buf, "Unknown tool: %.256s", name);
	tool_error(id, -32602, buf);
}

static void initialize(const cJSON *id, const cJSON *params)
{
	struct pending *p;
	cJSON *r = NULL, *caps;

	if (opt_no_init)
		return;
	if (!opt_init_error) {
		r = mm_initialize_result(params, opt_protocol, "fakeserver",
					 "1.0");
		caps = cJSON_GetObjectItemCaseSensitive(r, "capabilities");
		cJSON_AddTrueToObject(cJSON_AddObjectToObject(caps, "tools"),
				      "listChanged");
		cJSON_AddObjectToObject(caps, "logging");
		partial_caps(caps);
	}
	p = pending_add(P_INIT, id);
	p->init = r;
	p->due = mm_now_ms() + opt_slow_start;
}

/* The client's answer to one of our ask requests. */
static void answer(const cJSON *msg)
{
	cJSON *id = cJSON_GetObjectItemCaseSensitive(msg, "id");
	cJSON *error = cJSON_GetObjectItemCaseSensitive(msg, "error");
	cJSON *result = cJSON_GetObjectItemCaseSensitive(msg, "result");
	struct pending *p;
	cJSON *o;
	char *t;

	if (!cJSON_IsString(id))
		return;
	for (p = pending; p; p = p->next)
		if (p->kind == P_ASK && !strcmp(p->ask_id, id->valuestring))
			break;
	if (!p)
		return;
	o = cJSON_CreateObject();
	if (error)
		cJSON_AddItemToObject(o, "error", cJSON_Duplicate(error, 1));
	else
		cJSON_AddItemToObject(o, "result", result
				      ? cJSON_Duplicate(result, 1)
				      : cJSON_CreateNull());
	t = cJSON_PrintUnformatted(o);
	tool_text(p->id, t);
	cJSON_free(t);
	cJSON_Delete(o);
	pending_unlink(p);
	pending_free(p);
}

static void cancel(const cJSON *params)
{
	cJSON *rid = cJSON_GetObjectItemCaseSensitive(params, "requestId");
	struct pending *p, *next;

	if (!rid)
		return;
	cJSON_AddItemToArray(cancelled_ids, cJSON_Duplicate(rid, 1));
	for (p = pending; p; p = next) {
		next = p->next;
		if ((p->kind == P_SLEEP || p->kind == P_HANG ||
		     p->kind == P_PROGRESS) && cJSON_Compare(p->id, rid, 1)) {
			pending_unlink(p);
			pending_free(p);
		}
	}
}

static void message_cb(cJSON *msg)
{
	cJSON *id = cJSON_GetObjectItemCaseSensitive(msg, "id");
	cJSON *params = cJSON_GetObjectItemCaseSensitive(msg, "params");
	const char *method = mm_str(msg, "method");

	era_log(msg);
	if (era_message(msg))
		return;
	if (!method) {
		answer(msg);
	} else if (!id) {
		if (!strcmp(method, "notifications/cancelled"))
			cancel(params);
	} else if (!strcmp(method, "initialize")) {
		initialize(id, params);
	} else if (partial_request(id, method, params)) {
		return;
	} else if (!strcmp(method, "ping") ||
		   !strcmp(method, "logging/setLevel")) {
		reply(id, NULL);
	} else if (!strcmp(method, "tools/list")) {
		tools_list(id, params);
		partial_after_list(method);
	} else if (!strcmp(method, "tools/call")) {
		tools_call(id, params);
	} else {
		reply_error(id, -32601, "Method not found");
	}
}

/* ---------------------------------------------------------------- main */

static void usage_error(const char *what, const char *arg)
{
	fprintf(stderr, "fakeserver: %s: %s\n", what, arg);
	exit(2);
}

static long long number_arg(int argc, char **argv, int *i)
{
	const char *opt = argv[*i];
	char *end;
	long long v;

	if (*i + 1 >= argc)
		usage_error("missing value for", opt);
	errno = 0;
	v = strtoll(argv[++*i], &end, 10);
	if (errno || end == argv[*i] || *end || v < 0)
		usage_error("bad value for", opt);
	return v;
}

static void options(int argc, char **argv)
{
	int i;

	for (i = 1; i < argc; i++) {
		const char *a = argv[i];

		if (!strcmp(a, "--exit-at-start")) {
			opt_exit_at_start = 1;
			opt_exit_code = number_arg(argc, argv, &i);
		} else if (!strcmp(a, "--slow-start")) {
			opt_slow_start = number_arg(argc, argv, &i);
		} else if (!strcmp(a, "--start-gate") && i + 1 < argc) {
			opt_start_gate = argv[++i];
		} else if (!strcmp(a, "--no-init")) {
			opt_no_init = 1;
		} else if (!strcmp(a, "--init-error")) {
			opt_init_error = 1;
		} else if (!strcmp(a, "--protocol")) {
			if (i + 1 >= argc)
				usage_error("missing value for", a);
			opt_protocol = argv[++i];
		} else if (!strcmp(a, "--ignore-sigterm")) {
			opt_ignore_term = 1;
		} else if (!strcmp(a, "--ignore-stdin-eof")) {
			opt_ignore_eof = 1;
		} else if (!strcmp(a, "--tools")) {
			opt_tools = number_arg(argc, argv, &i);
		} else if (!strcmp(a, "--page-size")) {
			opt_page = number_arg(argc, argv, &i);
		} else if (!strcmp(a, "--stderr-lines")) {
			opt_stderr_lines = number_arg(argc, argv, &i);
		} else if (!strcmp(a, "--garbage")) {
			opt_garbage = 1;
		} else if (!strcmp(a, "--wrong-id")) {
			opt_wrong_id = 1;
		} else if (!strcmp(a, "--exact")) {
			opt_exact = 1;
		} else if (!era_option(argc, argv, &i) &&
			   !partial_option(argc, argv, &i)) {
			usage_error("unknown option", a);
		}
	}
	if (opt_tools > 1000000)
		usage_error("too many tools", "--tools");
}

int main(int argc, char **argv)
{
	const struct mm_loop l = {
		.message_cb = message_cb,
		.timeout_cb = timeout_cb,
		.timers_cb = timers_cb,
	};
	long long k;

	options(argc, argv);
	signal(SIGPIPE, SIG_IGN);
	if (opt_ignore_term)
		signal(SIGTERM, SIG_IGN);
	for (k = 0; k < opt_stderr_lines; k++)
		fprintf(stderr, "stderr line %lld\n", k);
	if (opt_exit_at_start) {
		fprintf(stderr, "fakeserver: exiting at start\n");
		exit((int)(opt_exit_code & 255));
	}
	cancelled_ids = cJSON_CreateArray();
	if (mm_run(&l) < 0)
		perror("fakeserver: stdin");
	if (opt_ignore_eof)
		mm_idle(&l);
	while (pending) {
		struct pending *p = pending;

		pending = p->next;
		pending_free(p);
	}
	cJSON_Delete(cancelled_ids);
	return 0;
}
