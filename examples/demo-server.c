/*
 * demo-server.c - the small stateful MCP stdio server behind mcpfs's
 * built-in "demo" config: a counter and a key-value store that live as long
 * as the process, so a session directory visibly keeps state between calls.
 *
 * Newline-delimited JSON-RPC 2.0 on stdin/stdout, one request at a time.
 * Tools: echo, incr, get_count, set, get, keys, sleep.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <cjson/cJSON.h>

struct kv {
	char *key, *value;
	struct kv *next;
};

static long counter;
static struct kv *store;

static const char tools_json[] =
	"{\"tools\":["
	"{\"name\":\"echo\",\"description\":\"Return the text given.\","
	"\"inputSchema\":{\"type\":\"object\",\"properties\":{\"text\":"
	"{\"type\":\"string\"}},\"required\":[\"text\"]}},"
	"{\"name\":\"incr\",\"description\":\"Add by (default 1) to the "
	"counter of this process and return the new value.\","
	"\"inputSchema\":{\"type\":\"object\",\"properties\":{\"by\":"
	"{\"type\":\"integer\"}}}},"
	"{\"name\":\"get_count\",\"description\":\"Return the counter.\","
	"\"inputSchema\":{\"type\":\"object\",\"properties\":{}}},"
	"{\"name\":\"set\",\"description\":\"Store value under key.\","
	"\"inputSchema\":{\"type\":\"object\",\"properties\":{\"key\":"
	"{\"type\":\"string\"},\"value\":{\"type\":\"string\"}},"
	"\"required\":[\"key\",\"value\"]}},"
	"{\"name\":\"get\",\"description\":\"Return the value of key.\","
	"\"inputSchema\":{\"type\":\"object\",\"properties\":{\"key\":"
	"{\"type\":\"string\"}},\"required\":[\"key\"]}},"
	"{\"name\":\"keys\",\"description\":\"Return the stored keys as a "
	"JSON array.\",\"inputSchema\":{\"type\":\"object\","
	"\"properties\":{}}},"
	"{\"name\":\"sleep\",\"description\":\"Wait ms milliseconds.\","
	"\"inputSchema\":{\"type\":\"object\",\"properties\":{\"ms\":"
	"{\"type\":\"integer\"}},\"required\":[\"ms\"]}}]}";

static void send_msg(cJSON *id, cJSON *result, cJSON *error)
{
	cJSON *m = cJSON_CreateObject();
	char *txt;

	cJSON_AddStringToObject(m, "jsonrpc", "2.0");
	cJSON_AddItemToObject(m, "id", cJSON_Duplicate(id, 1));
	if (error)
		cJSON_AddItemToObject(m, "error", error);
	else
		cJSON_AddItemToObject(m, "result", result);
	txt = cJSON_PrintUnformatted(m);
	if (txt) {
		fputs(txt, stdout);
		fputc('\n', stdout);
		fflush(stdout);
		cJSON_free(txt);
	}
	cJSON_Delete(m);
}

static cJSON *text_result(const char *text, int is_error)
{
	cJSON *r = cJSON_CreateObject();
	cJSON *c = cJSON_AddArrayToObject(r, "content");
	cJSON *t = cJSON_CreateObject();

	cJSON_AddStringToObject(t, "type", "text");
	cJSON_AddStringToObject(t, "text", text);
	cJSON_AddItemToArray(c, t);
	if (is_error)
		cJSON_AddTrueToObject(r, "isError");
	return r;
}

static cJSON *rpc_error(int code, const char *msg)
{
	cJSON *e = cJSON_CreateObject();

	cJSON_AddNumberToObject(e, "code", code);
	cJSON_AddStringToObject(e, "message", msg);
	return e;
}

static const char *str_arg(cJSON *args, const char *k)
{
	cJSON *v = cJSON_GetObjectItemCaseSensitive(args, k);

	return cJSON_IsString(v) ? v->valuestring : NULL;
}

static struct kv *kv_find(const char *key)
{
	struct kv *e;

	for (e = store; e; e = e->next)
		if (!strcmp(e->key, key))
			return e;
	return NULL;
}

/* Run one tool; returns the result, or NULL with *err set. */
static cJSON *call_tool(const char *name, cJSON *args, cJSON **err)
{
	char buf[64];
	const char *k, *v;
	struct kv *e;

	if (!strcmp(name, "echo")) {
		v = str_arg(args, "text");
		return text_result(v ? v : "", 0);
	}
	if (!strcmp(name, "incr")) {
		cJSON *by = cJSON_GetObjectItemCaseSensitive(args, "by");

		counter += cJSON_IsNumber(by) ? (long)by->valuedouble : 1;
		snprintf(buf, sizeof buf, "%ld", counter);
		return text_result(buf, 0);
	}
	if (!strcmp(name, "get_count")) {
		snprintf(buf, sizeof buf, "%ld", counter);
		return text_result(buf, 0);
	}
	if (!strcmp(name, "set")) {
		k = str_arg(args, "key");
		v = str_arg(args, "value");
		if (!k || !v) {
			*err = rpc_error(-32602, "set needs key and value");
			return NULL;
		}
		if ((e = kv_find(k)) != NULL) {
			free(e->value);
		} else {
			e = calloc(1, sizeof *e);
			e->key = strdup(k);
			e->next = store;
			store = e;
		}
		e->value = strdup(v);
		return text_result("ok", 0);
	}
	if (!strcmp(name, "get")) {
		k = str_arg(args, "key");
		e = k ? kv_find(k) : NULL;
		if (!e) {
			char msg[300];

			snprintf(msg, sizeof msg, "no such key: %.256s",
				 k ? k : "");
			return text_result(msg, 1);
		}
		return text_result(e->value, 0);
	}
	if (!strcmp(name, "keys")) {
		cJSON *a = cJSON_CreateArray(), *r;
		char *txt;

		for (e = store; e; e = e->next)
			cJSON_AddItemToArray(a, cJSON_CreateString(e->key));
		txt = cJSON_PrintUnformatted(a);
		r = text_result(txt ? txt : "[]", 0);
		cJSON_free(txt);
		cJSON_Delete(a);
		return r;
	}
	if (!strcmp(name, "sleep")) {
		cJSON *ms = cJSON_GetObjectItemCaseSensitive(args, "ms");
		long n = cJSON_IsNumber(ms) ? (long)ms->valuedouble : 0;
		struct timespec ts = { n / 1000, (n % 1000) * 1000000L };

		if (n > 0)
			nanosleep(&ts, NULL);
		snprintf(buf, sizeof buf, "slept %ld", n);
		return text_result(buf, 0);
	}
	snprintf(buf, sizeof buf, "Unknown tool: %.40s", name);
	*err = rpc_error(-32602, buf);
	return NULL;
}

static void handle(cJSON *msg)
{
	cJSON *id = cJSON_GetObjectItemCaseSensitive(msg, "id");
	cJSON *method = cJSON_GetObjectItemCaseSensitive(msg, "method");
	cJSON *params = cJSON_GetObjectItemCaseSensitive(msg, "params");
	const char *m = cJSON_IsString(method) ? method->valuestring : "";
	cJSON *err = NULL, *res = NULL;

	if (!id || !cJSON_IsString(method))
		return; /* notifications and replies need no answer */
	if (!strcmp(m, "initialize")) {
		cJSON *v = cJSON_GetObjectItemCaseSensitive(params,
							    "protocolVersion");
		cJSON *info;

		res = cJSON_CreateObject();
		cJSON_AddStringToObject(res, "protocolVersion",
					cJSON_IsString(v) ? v->valuestring
							  : "2025-06-18");
		cJSON_AddObjectToObject(cJSON_AddObjectToObject(res,
					"capabilities"), "tools");
		info = cJSON_AddObjectToObject(res, "serverInfo");
		cJSON_AddStringToObject(info, "name", "mcpfs-demo");
		cJSON_AddStringToObject(info, "version", "1.0");
	} else if (!strcmp(m, "ping")) {
		res = cJSON_CreateObject();
	} else if (!strcmp(m, "tools/list")) {
		res = cJSON_Parse(tools_json);
	} else if (!strcmp(m, "tools/call")) {
		const char *name = str_arg(params, "name");

		res = call_tool(name ? name : "",
				cJSON_GetObjectItemCaseSensitive(params,
								 "arguments"),
				&err);
	} else {
		err = rpc_error(-32601, "Method not found");
	}
	send_msg(id, res, err);
}

int main(void)
{
	char *line = NULL;
	size_t cap = 0;
	ssize_t n;

	while ((n = getline(&line, &cap, stdin)) > 0) {
		cJSON *msg = cJSON_ParseWithLength(line, (size_t)n);

		if (cJSON_IsObject(msg))
			handle(msg);
		cJSON_Delete(msg);
	}
	free(line);
	while (store) {
		struct kv *e = store;

		store = e->next;
		free(e->key);
		free(e->value);
		free(e);
	}
	return 0;
}
