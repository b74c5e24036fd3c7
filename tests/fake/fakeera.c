/*
 * fakeera.c - the modern era of tests/fake/fakeserver (fakeera.h,
 * README.md). Strict on purpose: a request without the required _meta
 * fields is refused with -32602, an unknown version with -32022, so the
 * mount tests prove what the client sends.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fakeera.h"
#include "mini_mcp.h"

#define META_VERSION "io.modelcontextprotocol/protocolVersion"
#define META_CAPS "io.modelcontextprotocol/clientCapabilities"
#define META_INFO "io.modelcontextprotocol/clientInfo"
#define META_SERVER "io.modelcontextprotocol/serverInfo"
#define META_SUB "io.modelcontextprotocol/subscriptionId"

enum era { ERA_LEGACY, ERA_MODERN, ERA_DUAL };

/* An input_required result we gave out, until its retry is answered. */
struct issued {
	char state[64];
	cJSON *id;              /* the id of the request that got it */
	struct issued *next;
};

/* An open subscriptions/listen stream. */
struct listen {
	cJSON *id;
	int tools;              /* toolsListChanged was asked for */
	struct listen *next;
};

static enum era era = ERA_LEGACY;
static const char *version = ERA_MODERN_VERSION;  /* --supported */
static int discover_silent, legacy_session, no_list_changed;
static FILE *logfile;
static struct issued *issued;
static struct listen *listens;
static cJSON *added;            /* names of the tools add_tool added */
static long long state_seq, added_seq;

static void die_nomem(void)
{
	fprintf(stderr, "fakeserver: out of memory\n");
	exit(70);
}

/* ---------------------------------------------------------------- options */

int era_option(int argc, char **argv, int *i)
{
	const char *a = argv[*i];

	if (!strcmp(a, "--discover-silent")) {
		discover_silent = 1;
		return 1;
	}
	if (!strcmp(a, "--no-list-changed")) {
		no_list_changed = 1;
		return 1;
	}
	if (strcmp(a, "--era") && strcmp(a, "--log") &&
	    strcmp(a, "--supported"))
		return 0;
	if (*i + 1 >= argc) {
		fprintf(stderr, "fakeserver: missing value for: %s\n", a);
		exit(2);
	}
	++*i;
	if (!strcmp(a, "--supported")) {
		version = argv[*i];
		return 1;
	}
	if (!strcmp(a, "--log")) {
		logfile = fopen(argv[*i], "a");
		if (!logfile) {
			perror(argv[*i]);
			exit(2);
		}
		return 1;
	}
	if (!strcmp(argv[*i], "legacy")) {
		era = ERA_LEGACY;
	} else if (!strcmp(argv[*i], "modern")) {
		era = ERA_MODERN;
	} else if (!strcmp(argv[*i], "dual")) {
		era = ERA_DUAL;
	} else {
		fprintf(stderr, "fakeserver: bad value for: --era\n");
		exit(2);
	}
	return 1;
}

void era_log(const cJSON *msg)
{
	char *t;

	if (!logfile)
		return;
	t = cJSON_PrintUnformatted(msg);
	if (!t)
		die_nomem();
	fprintf(logfile, "%s\n", t);
	fflush(logfile);
	cJSON_free(t);
}

/* ---------------------------------------------------------------- replies */

int era_active(void)
{
	return era == ERA_MODERN || (era == ERA_DUAL && !legacy_session);
}

static cJSON *server_info(void)
{
	cJSON *i = cJSON_CreateObject();

	cJSON_AddStringToObject(i, "name", "fakeserver");
	cJSON_AddStringToObject(i, "version", "1.0");
	return i;
}

void era_complete(cJSON *result)
{
	cJSON *meta;

	if (!result || cJSON_GetObjectItemCaseSensitive(result, "resultType"))
		return;
	cJSON_AddStringToObject(result, "resultType", "complete");
	meta = cJSON_GetObjectItemCaseSensitive(result, "_meta");
	if (!cJSON_IsObject(meta))
		meta = cJSON_AddObjectToObject(result, "_meta");
	if (!cJSON_GetObjectItemCaseSensitive(meta, META_SERVER))
		cJSON_AddItemToObject(meta, META_SERVER, server_info());
}

static void result(const cJSON *id, cJSON *r)
{
	era_complete(r);
	mm_result(id, r);
}

static void text(const cJSON *id, const char *t)
{
	result(id, mm_text(t, 0));
}

/* An error reply with data (taken over; NULL: none). */
static void error(const cJSON *id, int code, const char *message,
		  cJSON *data)
{
	cJSON *m = cJSON_CreateObject(), *e;

	cJSON_AddStringToObject(m, "jsonrpc", "2.0");
	cJSON_AddItemToObject(m, "id", id ? cJSON_Duplicate(id, 1)
					  : cJSON_CreateNull());
	e = cJSON_AddObjectToObject(m, "error");
	cJSON_AddNumberToObject(e, "code", code);
	cJSON_AddStringToObject(e, "message", message);
	if (data)
		cJSON_AddItemToObject(e, "data", data);
	mm_send(m);
}

static cJSON *supported(void)
{
	cJSON *s = cJSON_CreateArray();

	cJSON_AddItemToArray(s, cJSON_CreateString(version));
	if (era == ERA_DUAL)
		cJSON_AddItemToArray(s, cJSON_CreateString(ERA_LEGACY_VERSION));
	return s;
}

static void unsupported(const cJSON *id, const char *requested,
			const char *message)
{
	cJSON *d = cJSON_CreateObject();

	cJSON_AddItemToObject(d, "supported", supported());
	if (requested)
		cJSON_AddStringToObject(d, "requested", requested);
	error(id, -32022, message, d);
}

/* ---------------------------------------------------------------- _meta */

/* 0 if params carries the per-request fields of basic/index.mdx; else
 * refuses the request and returns -1. */
static int check_meta(const cJSON *id, const cJSON *params)
{
	const cJSON *meta = cJSON_GetObjectItemCaseSensitive(params, "_meta");
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(meta, META_VERSION);
	const cJSON *caps = cJSON_GetObjectItemCaseSensitive(meta, META_CAPS);
	const cJSON *info = cJSON_GetObjectItemCaseSensitive(meta, META_INFO);
	char buf[200];

	if (!cJSON_IsObject(params) || !cJSON_IsObject(meta)) {
		error(id, -32602, "Invalid params: no params._meta with "
		      META_VERSION " and " META_CAPS, NULL);
		return -1;
	}
	if (!cJSON_IsString(v)) {
		error(id, -32602, "Invalid params: _meta has no string "
		      META_VERSION, NULL);
		return -1;
	}
	if (!cJSON_IsObject(caps)) {
		error(id, -32602, "Invalid params: _meta has no object "
		      META_CAPS, NULL);
		return -1;
	}
	if (info && (!cJSON_IsString(cJSON_GetObjectItemCaseSensitive(info,
			"name")) || !cJSON_IsString(
			cJSON_GetObjectItemCaseSensitive(info, "version")))) {
		error(id, -32602, "Invalid params: _meta " META_INFO
		      " needs string name and version", NULL);
		return -1;
	}
	if (strcmp(v->valuestring, version)) {
		snprintf(buf, sizeof buf, "Unsupported protocol version: "
			 "%.40s (this server supports %.40s in _meta)",
			 v->valuestring, version);
		unsupported(id, v->valuestring, buf);
		return -1;
	}
	return 0;
}

static const cJSON *client_caps(const cJSON *params)
{
	const cJSON *meta = cJSON_GetObjectItemCaseSensitive(params, "_meta");

	return cJSON_GetObjectItemCaseSensitive(meta, META_CAPS);
}

/* ---------------------------------------------------------------- discover */

static void discover(const cJSON *id)
{
	cJSON *r = cJSON_CreateObject(), *caps, *meta;

	cJSON_AddStringToObject(r, "resultType", "complete");
	cJSON_AddItemToObject(r, "supportedVersions", supported());
	caps = cJSON_AddObjectToObject(r, "capabilities");
	cJSON_AddBoolToObject(cJSON_AddObjectToObject(caps, "tools"),
			      "listChanged", !no_list_changed);
	cJSON_AddObjectToObject(caps, "logging");
	meta = cJSON_AddObjectToObject(r, "_meta");
	cJSON_AddItemToObject(meta, META_SERVER, server_info());
	cJSON_AddStringToObject(r, "instructions",
				"The misbehaving fake of the mcpfs tests.");
	mm_result(id, r);
}

/* ---------------------------------------------------------------- listen */

static void listen_open(const cJSON *id, const cJSON *params)
{
	const cJSON *f = cJSON_GetObjectItemCaseSensitive(params,
							  "notifications");
	struct listen *l;
	cJSON *n, *meta, *ack;

	if (!cJSON_IsObject(f)) {
		error(id, -32602, "Invalid params: subscriptions/listen needs "
		      "a notifications object", NULL);
		return;
	}
	l = calloc(1, sizeof *l);
	if (!l)
		die_nomem();
	l->id = cJSON_Duplicate(id, 1);
	l->tools = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(
					f, "toolsListChanged"));
	l->next = listens;
	listens = l;
	n = cJSON_CreateObject();
	meta = cJSON_AddObjectToObject(n, "_meta");
	cJSON_AddItemToObject(meta, META_SUB, cJSON_Duplicate(id, 1));
	ack = cJSON_AddObjectToObject(n, "notifications");
	if (l->tools)
		cJSON_AddTrueToObject(ack, "toolsListChanged");
	mm_notify("notifications/subscriptions/acknowledged", n);
}

static void listen_cancel(const cJSON *params)
{
	const cJSON *rid = cJSON_GetObjectItemCaseSensitive(params,
							    "requestId");
	struct listen **lp, *l;

	for (lp = &listens; (l = *lp); ) {
		if (rid && cJSON_Compare(l->id, rid, 1)) {
			*lp = l->next;
			cJSON_Delete(l->id);
			free(l);
		} else {
			lp = &l->next;
		}
	}
}

/* Sends notifications/tools/list_changed on every stream that asked for
 * it; returns how many. */
static int tools_changed(void)
{
	struct listen *l;
	int n = 0;

	for (l = listens; l; l = l->next) {
		cJSON *p, *meta;

		if (!l->tools)
			continue;
		p = cJSON_CreateObject();
		meta = cJSON_AddObjectToObject(p, "_meta");
		cJSON_AddItemToObject(meta, META_SUB,
				      cJSON_Duplicate(l->id, 1));
		mm_notify("notifications/tools/list_changed", p);
		n++;
	}
	return n;
}

/* ---------------------------------------------------------------- tools */

static void add_tool(const cJSON *id, const cJSON *args)
{
	const char *name = mm_str(args, "name");
	char buf[200], gen[32];
	int n;

	if (!name) {
		snprintf(gen, sizeof gen, "added%lld", ++added_seq);
		name = gen;
	}
	if (!added)
		added = cJSON_CreateArray();
	cJSON_AddItemToArray(added, cJSON_CreateString(name));
	n = tools_changed();
	snprintf(buf, sizeof buf, "added %.100s; notified %d subscription(s)",
		 name, n);
	text(id, buf);
}

void era_tools(cJSON *list)
{
	const cJSON *a;
	cJSON *t;

	if (!era_active())
		return;
	t = cJSON_CreateObject();
	cJSON_AddStringToObject(t, "name", "add_tool");
	cJSON_AddStringToObject(t, "description", "Add a tool (name, default "
				"addedN) that echoes, and send "
				"notifications/tools/list_changed on the "
				"subscriptions/listen streams.");
	cJSON_AddItemToObject(t, "inputSchema", cJSON_Parse(
		"{\"type\":\"object\",\"properties\":{\"name\":"
		"{\"type\":\"string\"}}}"));
	cJSON_AddItemToArray(list, t);
	cJSON_ArrayForEach(a, added) {
		t = cJSON_CreateObject();
		cJSON_AddStringToObject(t, "name", a->valuestring);
		cJSON_AddStringToObject(t, "description",
					"Added by add_tool: return text.");
		cJSON_AddItemToObject(t, "inputSchema", cJSON_Parse(
			"{\"type\":\"object\",\"properties\":{\"text\":"
			"{\"type\":\"string\"}}}"));
		cJSON_AddItemToArray(list, t);
	}
}

static int is_added(const char *name)
{
	const cJSON *a;

	cJSON_ArrayForEach(a, added)
		if (!strcmp(a->valuestring, name))
			return 1;
	return 0;
}

/* The kinds of input request ask can make, by the key it gives each. */
enum { K_ELICIT = 1, K_SAMPLE = 2, K_ROOTS = 4 };
static const struct {
	int bit;
	const char *kind, *key, *capability;
} kinds[] = {
	{ K_ELICIT, "elicitation", "answer", "elicitation" },
	{ K_SAMPLE, "sampling", "model", "sampling" },
	{ K_ROOTS, "roots", "roots", "roots" },
};
#define NKINDS ((int)(sizeof kinds / sizeof kinds[0]))

/* args.kinds as a mask (default: elicitation), or -1 if it is bad. */
static int ask_kinds(const cJSON *args)
{
	const cJSON *k = cJSON_GetObjectItemCaseSensitive(args, "kinds"), *e;
	int mask = 0, i;

	if (!k)
		return K_ELICIT;
	if (!cJSON_IsArray(k) || !cJSON_GetArraySize(k))
		return -1;
	cJSON_ArrayForEach(e, k) {
		for (i = 0; i < NKINDS; i++)
			if (cJSON_IsString(e) &&
			    !strcmp(e->valuestring, kinds[i].kind))
				break;
		if (i == NKINDS)
			return -1;
		mask |= kinds[i].bit;
	}
	return mask;
}

/* The input_required result of ask: one input request per kind. */
static void ask_input(const cJSON *id, const char *state, int mask,
		      const char *msg)
{
	cJSON *r = cJSON_CreateObject(), *reqs, *q, *p, *s, *props, *m;

	cJSON_AddStringToObject(r, "resultType", "input_required");
	reqs = cJSON_AddObjectToObject(r, "inputRequests");
	if (mask & K_ELICIT) {
		q = cJSON_AddObjectToObject(reqs, "answer");
		cJSON_AddStringToObject(q, "method", "elicitation/create");
		p = cJSON_AddObjectToObject(q, "params");
		cJSON_AddStringToObject(p, "mode", "form");
		cJSON_AddStringToObject(p, "message",
					msg ? msg : "What do you say?");
		s = cJSON_AddObjectToObject(p, "requestedSchema");
		cJSON_AddStringToObject(s, "type", "object");
		props = cJSON_AddObjectToObject(s, "properties");
		cJSON_AddStringToObject(cJSON_AddObjectToObject(props, "text"),
					"type", "string");
		cJSON_AddItemToObject(s, "required", cJSON_Parse("[\"text\"]"));
	}
	if (mask & K_SAMPLE) {
		q = cJSON_AddObjectToObject(reqs, "model");
		cJSON_AddStringToObject(q, "method", "sampling/createMessage");
		p = cJSON_AddObjectToObject(q, "params");
		m = cJSON_CreateObject();
		cJSON_AddStringToObject(m, "role", "user");
		cJSON_AddItemToObject(m, "content", cJSON_Parse(
			"{\"type\":\"text\",\"text\":\"Say something.\"}"));
		cJSON_AddItemToArray(cJSON_AddArrayToObject(p, "messages"), m);
		cJSON_AddNumberToObject(p, "maxTokens", 50);
	}
	if (mask & K_ROOTS) {
		q = cJSON_AddObjectToObject(reqs, "roots");
		cJSON_AddStringToObject(q, "method", "roots/list");
	}
	cJSON_AddStringToObject(r, "requestState", state);
	mm_result(id, r);
}

/* The final text of ask from complete inputResponses, into buf. */
static void ask_text(char *buf, size_t n, int mask, const cJSON *ir)
{
	const cJSON *ans = cJSON_GetObjectItemCaseSensitive(ir, "answer");
	const cJSON *mod = cJSON_GetObjectItemCaseSensitive(ir, "model");
	const cJSON *roots = cJSON_GetObjectItemCaseSensitive(ir, "roots");
	const cJSON *c;
	const char *action;
	size_t k = 0;
	char *json;

	buf[0] = 0;
	if (mask & K_ELICIT) {
		action = mm_str(ans, "action");
		c = cJSON_GetObjectItemCaseSensitive(ans, "content");
		json = c ? cJSON_PrintUnformatted(c) : NULL;
		if (!strcmp(action, "accept"))
			k += snprintf(buf + k, n - k, "you said: %.500s",
				      json ? json : "null");
		else
			k += snprintf(buf + k, n - k, "you did not answer: "
				      "%.100s", action);
		cJSON_free(json);
	}
	if ((mask & K_SAMPLE) && k < n) {
		c = cJSON_GetObjectItemCaseSensitive(mod, "content");
		json = cJSON_PrintUnformatted(c);
		k += snprintf(buf + k, n - k, "%sthe model said: %.500s",
			      k ? "; " : "", mm_str(c, "text") ? mm_str(c,
			      "text") : json ? json : "null");
		cJSON_free(json);
	}
	if ((mask & K_ROOTS) && k < n) {
		json = cJSON_PrintUnformatted(cJSON_GetObjectItemCaseSensitive(
						roots, "roots"));
		snprintf(buf + k, n - k, "%sroots: %.500s", k ? "; " : "",
			 json ? json : "null");
		cJSON_free(json);
	}
}

/* -32021 unless the client declared every capability mask needs. */
static int ask_caps(const cJSON *id, const cJSON *params, int mask)
{
	cJSON *d = NULL, *req = NULL;
	int i;

	for (i = 0; i < NKINDS; i++) {
		if (!(mask & kinds[i].bit) || cJSON_IsObject(
			    cJSON_GetObjectItemCaseSensitive(client_caps(params),
						kinds[i].capability)))
			continue;
		if (!d) {
			d = cJSON_CreateObject();
			req = cJSON_AddObjectToObject(d, "requiredCapabilities");
		}
		cJSON_AddItemToObject(req, kinds[i].capability,
				      cJSON_CreateObject());
	}
	if (!d)
		return 0;
	error(id, -32021, "Missing required client capability", d);
	return -1;
}

static void ask(const cJSON *id, const cJSON *params, const cJSON *args)
{
	const cJSON *st = cJSON_GetObjectItemCaseSensitive(params,
							   "requestState");
	const cJSON *ir = cJSON_GetObjectItemCaseSensitive(params,
							   "inputResponses");
	const char *msg = mm_str(args, "message");
	int mask = ask_kinds(args), i;
	struct issued *is, **ip;
	char buf[1600];

	if (mask < 0) {
		error(id, -32602, "ask: kinds must be a non-empty array of "
		      "elicitation, sampling, roots", NULL);
		return;
	}
	if (!st) {
		if (ir) {
			error(id, -32602, "ask: inputResponses without "
			      "requestState", NULL);
			return;
		}
		if (ask_caps(id, params, mask) < 0)
			return;
		is = calloc(1, sizeof *is);
		if (!is)
			die_nomem();
		snprintf(is->state, sizeof is->state, "fake-state-%ld-%lld",
			 (long)getpid(), ++state_seq);
		is->id = cJSON_Duplicate(id, 1);
		is->next = issued;
		issued = is;
		ask_input(id, is->state, mask, msg);
		return;
	}
	for (ip = &issued; (is = *ip); ip = &is->next)
		if (cJSON_IsString(st) && !strcmp(is->state, st->valuestring))
			break;
	if (!is) {
		error(id, -32602, "ask: unknown requestState", NULL);
		return;
	}
	if (cJSON_Compare(is->id, id, 1)) {
		error(id, -32600, "ask: the retry reuses the JSON-RPC id of "
		      "the request that got input_required", NULL);
		return;
	}
	for (i = 0; i < NKINDS; i++) {
		if (!(mask & kinds[i].bit))
			continue;
		if (!cJSON_IsObject(cJSON_GetObjectItemCaseSensitive(ir,
							kinds[i].key))) {
			/* mrtr.mdx: ask again rather than fail */
			ask_input(id, is->state, mask, msg);
			return;
		}
	}
	if ((mask & K_ELICIT) && !mm_str(cJSON_GetObjectItemCaseSensitive(ir,
					"answer"), "action")) {
		error(id, -32602, "ask: inputResponses.answer has no action",
		      NULL);
		return;
	}
	ask_text(buf, sizeof buf, mask, ir);
	*ip = is->next;
	cJSON_Delete(is->id);
	free(is);
	text(id, buf);
}

/* tools/call of the modern tools; 0 for the others. */
static int tool_call(const cJSON *id, const cJSON *params)
{
	const char *name = mm_str(params, "name");
	const cJSON *args = cJSON_GetObjectItemCaseSensitive(params,
							     "arguments");

	if (!name)
		return 0;
	if (!strcmp(name, "ask")) {
		ask(id, params, args);
	} else if (!strcmp(name, "add_tool")) {
		add_tool(id, args);
	} else if (!strcmp(name, "list_changed")) {
		tools_changed();
		text(id, "ok");
	} else if (is_added(name)) {
		const char *t = mm_str(args, "text");

		text(id, t ? t : "");
	} else {
		return 0;
	}
	return 1;
}

/* ---------------------------------------------------------------- dispatch */

int era_message(const cJSON *msg)
{
	const cJSON *id = cJSON_GetObjectItemCaseSensitive(msg, "id");
	const cJSON *params = cJSON_GetObjectItemCaseSensitive(msg, "params");
	const char *method = mm_str(msg, "method");

	if (!method)
		return 0;
	if (!id) {
		if (!strcmp(method, "notifications/cancelled"))
			listen_cancel(params);
		return 0;
	}
	if (era == ERA_LEGACY)
		return !strcmp(method, "server/discover") && discover_silent;
	if (era == ERA_DUAL && legacy_session)
		return 0;
	if (!strcmp(method, "initialize")) {
		if (era == ERA_DUAL) {
			legacy_session = 1;
			return 0;
		}
		char buf[200];

		snprintf(buf, sizeof buf, "initialize is not supported: this "
			 "server speaks only MCP %.40s (per-request _meta, no "
			 "initialize)", version);
		unsupported(id, mm_str(params, "protocolVersion"), buf);
		return 1;
	}
	if (check_meta(id, params) < 0)
		return 1;
	if (!strcmp(method, "server/discover")) {
		discover(id);
		return 1;
	}
	if (!strcmp(method, "subscriptions/listen")) {
		listen_open(id, params);
		return 1;
	}
	if (!strcmp(method, "tools/call"))
		return tool_call(id, params);
	return 0;
}
