/*
 * demo-server.c - the small stateful MCP stdio server behind mcpfs's
 * built-in "demo" config: a counter and a key-value store that live as long
 * as the process, so a session directory visibly keeps its state from one
 * call to the next while a fresh session starts from zero.
 *
 * Tools: echo, incr, get_count, set, get, keys, sleep. Requests are served
 * one at a time in arrival order (sleep blocks the server); the stdio
 * plumbing is mini_mcp.c. Bad arguments come back as tool results with
 * isError set, so a model can read them and retry; an unknown tool is a
 * JSON-RPC error.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "mini_mcp.h"

#ifndef MCPFS_VERSION
#define MCPFS_VERSION "0"
#endif

#define SLEEP_MAX_MS 600000

/* One key of the store; the list keeps the order keys were first set. */
struct kv {
	char *key, *value;
	struct kv *next;
};

struct tool {
	const char *name;
	const char *title;
	const char *description;
	const char *schema;     /* inputSchema, as JSON text */
	int read_only;
	cJSON *(*run)(const cJSON *args);
};

static long long counter;
static struct kv *store, **store_tail = &store;

static cJSON *bad_args(const char *msg)
{
	return mm_text(msg, 1);
}

static cJSON *number_text(long long n)
{
	char buf[32];

	snprintf(buf, sizeof buf, "%lld", n);
	return mm_text(buf, 0);
}

static cJSON *tool_echo(const cJSON *args)
{
	const char *text = mm_str(args, "text");

	return text ? mm_text(text, 0) : bad_args("text must be a string");
}

static cJSON *tool_incr(const cJSON *args)
{
	long long by = 1, n;
	int r = mm_int(args, "by", &by);

	if (r < 0)
		return bad_args("by must be an integer");
	if (__builtin_add_overflow(counter, by, &n))
		return bad_args("the counter would overflow");
	counter = n;
	return number_text(counter);
}

static cJSON *tool_get_count(const cJSON *args)
{
	return number_text(counter);
}

static struct kv *kv_find(const char *key)
{
	struct kv *e;

	for (e = store; e; e = e->next)
		if (!strcmp(e->key, key))
			return e;
	return NULL;
}

static cJSON *tool_set(const cJSON *args)
{
	const char *key = mm_str(args, "key"), *value = mm_str(args, "value");
	struct kv *e;
	char *v;

	if (!key || !value)
		return bad_args("key and value must be strings");
	v = strdup(value);
	if (!v)
		return bad_args("out of memory");
	e = kv_find(key);
	if (!e) {
		e = calloc(1, sizeof *e);
		if (!e || !(e->key = strdup(key))) {
			free(e);
			free(v);
			return bad_args("out of memory");
		}
		*store_tail = e;
		store_tail = &e->next;
	}
	free(e->value);
	e->value = v;
	return mm_text("ok", 0);
}

static cJSON *tool_get(const cJSON *args)
{
	static const char prefix[] = "no such key: ";
	const char *key = mm_str(args, "key");
	struct kv *e;
	cJSON *r;
	char *msg;

	if (!key)
		return bad_args("key must be a string");
	e = kv_find(key);
	if (e)
		return mm_text(e->value, 0);
	msg = malloc(sizeof prefix + strlen(key));
	if (!msg)
		return bad_args("out of memory");
	strcpy(msg, prefix);
	strcat(msg, key);
	r = mm_text(msg, 1);
	free(msg);
	return r;
}

static cJSON *tool_keys(const cJSON *args)
{
	cJSON *a = cJSON_CreateArray(), *r;
	struct kv *e;
	char *text;

	for (e = store; e; e = e->next)
		cJSON_AddItemToArray(a, cJSON_CreateString(e->key));
	text = mm_print(a);
	r = text ? mm_text(text, 0) : bad_args("out of memory");
	free(text);
	cJSON_Delete(a);
	return r;
}

static cJSON *tool_sleep(const cJSON *args)
{
	long long ms = 0;
	struct timespec ts;
	char buf[48];

	if (mm_int(args, "ms", &ms) <= 0 || ms < 0 || ms > SLEEP_MAX_MS)
		return bad_args("ms must be an integer from 0 to 600000");
	ts.tv_sec = (time_t)(ms / 1000);
	ts.tv_nsec = (long)(ms % 1000) * 1000000L;
	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
	snprintf(buf, sizeof buf, "slept %lld", ms);
	return mm_text(buf, 0);
}

static const struct tool tools[] = {
	{ "echo", "Echo",
	  "Return the given text unchanged. A quick way to check that a "
	  "session answers.",
	  "{\"type\":\"object\",\"properties\":{\"text\":{\"type\":\"string\","
	  "\"description\":\"The text to return.\"}},"
	  "\"required\":[\"text\"],\"additionalProperties\":false}",
	  1, tool_echo },
	{ "incr", "Increment the counter",
	  "Add `by` (default 1) to this server's counter and return the new "
	  "value. The counter lives as long as the server process: calls in "
	  "the same session see it grow, a new session starts from 0.",
	  "{\"type\":\"object\",\"properties\":{\"by\":{\"type\":\"integer\","
	  "\"default\":1,\"description\":\"How much to add (may be "
	  "negative).\"}},\"additionalProperties\":false}",
	  0, tool_incr },
	{ "get_count", "Read the counter",
	  "Return the counter without changing it.",
	  "{\"type\":\"object\",\"properties\":{},"
	  "\"additionalProperties\":false}",
	  1, tool_get_count },
	{ "set", "Store a value",
	  "Store `value` under `key` in this server's key-value store, "
	  "replacing any earlier value. Returns \"ok\".",
	  "{\"type\":\"object\",\"properties\":{\"key\":{\"type\":\"string\","
	  "\"description\":\"The key.\"},\"value\":{\"type\":\"string\","
	  "\"description\":\"The value to store.\"}},"
	  "\"required\":[\"key\",\"value\"],\"additionalProperties\":false}",
	  0, tool_set },
	{ "get", "Read a value",
	  "Return the value stored under `key`. A key that was never set "
	  "gives an error result \"no such key: KEY\".",
	  "{\"type\":\"object\",\"properties\":{\"key\":{\"type\":\"string\","
	  "\"description\":\"The key.\"}},"
	  "\"required\":[\"key\"],\"additionalProperties\":false}",
	  1, tool_get },
	{ "keys", "List the keys",
	  "Return the stored keys as a JSON array of strings, in the order "
	  "they were first set.",
	  "{\"type\":\"object\",\"properties\":{},"
	  "\"additionalProperties\":false}",
	  1, tool_keys },
	{ "sleep", "Sleep",
	  "Wait `ms` milliseconds, then return \"slept MS\". The server "
	  "answers nothing else meanwhile, so this shows how mcpfs handles a "
	  "slow call.",
	  "{\"type\":\"object\",\"properties\":{\"ms\":{\"type\":\"integer\","
	  "\"minimum\":0,\"maximum\":600000,\"description\":\"How long to "
	  "wait, in milliseconds.\"}},"
	  "\"required\":[\"ms\"],\"additionalProperties\":false}",
	  1, tool_sleep },
};
#define NTOOLS (sizeof tools / sizeof tools[0])

static cJSON *tools_list(void)
{
	cJSON *r = cJSON_CreateObject(), *list;
	size_t i;

	list = cJSON_AddArrayToObject(r, "tools");
	for (i = 0; i < NTOOLS; i++) {
		cJSON *t = cJSON_CreateObject(), *ann;

		cJSON_AddStringToObject(t, "name", tools[i].name);
		cJSON_AddStringToObject(t, "title", tools[i].title);
		cJSON_AddStringToObject(t, "description", tools[i].description);
		cJSON_AddItemToObject(t, "inputSchema",
				      cJSON_Parse(tools[i].schema));
		ann = cJSON_AddObjectToObject(t, "annotations");
		cJSON_AddBoolToObject(ann, "readOnlyHint", tools[i].read_only);
		cJSON_AddFalseToObject(ann, "openWorldHint");
		cJSON_AddItemToArray(list, t);
	}
	return r;
}

static void tools_call(const cJSON *id, const cJSON *params)
{
	const char *name = mm_str(params, "name");
	const cJSON *args = cJSON_GetObjectItemCaseSensitive(params,
							     "arguments");
	char buf[300];
	size_t i;

	if (!name)
		name = "";
	for (i = 0; i < NTOOLS; i++) {
		if (!strcmp(name, tools[i].name)) {
			mm_result(id, tools[i].run(args));
			return;
		}
	}
	snprintf(buf, sizeof buf, "Unknown tool: %.256s", name);
	mm_error(id, -32602, buf);
}

static void message_cb(cJSON *msg)
{
	const cJSON *id = cJSON_GetObjectItemCaseSensitive(msg, "id");
	const cJSON *params = cJSON_GetObjectItemCaseSensitive(msg, "params");
	const char *method = mm_str(msg, "method");

	if (!method || !id)
		return; /* notifications and answers need no reply */
	if (!strcmp(method, "tools/call")) {
		tools_call(id, params);
	} else if (!strcmp(method, "initialize")) {
		cJSON *r = mm_initialize_result(params, NULL, "mcpfs-demo",
						MCPFS_VERSION);

		cJSON_AddObjectToObject(
			cJSON_GetObjectItemCaseSensitive(r, "capabilities"),
			"tools");
		cJSON_AddStringToObject(r, "instructions",
			"A demo server: a counter (incr, get_count) and a "
			"key-value store (set, get, keys) that live as long "
			"as this process.");
		mm_result(id, r);
	} else if (!strcmp(method, "ping")) {
		mm_result(id, NULL);
	} else if (!strcmp(method, "tools/list")) {
		mm_result(id, tools_list());
	} else {
		mm_error(id, -32601, "Method not found");
	}
}

int main(void)
{
	const struct mm_loop loop = { .message_cb = message_cb };
	int rc = mm_run(&loop);

	if (rc < 0)
		perror("demo-server: stdin");
	while (store) {
		struct kv *e = store;

		store = e->next;
		free(e->key);
		free(e->value);
		free(e);
	}
	return rc < 0;
}
