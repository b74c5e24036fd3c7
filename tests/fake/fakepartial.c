/*
 * fakepartial.c - the "partial server" options of fakeserver (README.md):
 * a server that declares capabilities and implements part of them, as
 * many real ones do. Resources (with a template) and prompts it can serve,
 * capabilities it can declare without serving, methods it can fail with
 * any code, listings whose next page fails, repeats its cursor or never
 * ends, and storms of list_changed after each listing.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fakepartial.h"
#include "mini_mcp.h"

#define MAXOPT 16

static long long n_resources = -1, n_prompts = -1, storm;
static const char *declared[MAXOPT];
static int ndeclared;
static struct {
	const char *method;
	long long code;
} fails[MAXOPT];
static int nfails;
static struct {
	const char *method;
	int how;       /* 'f' next page fails, 'r' repeats, 'e' endless */
} pages[MAXOPT];
static int npages;

static void bad(const char *what, const char *arg)
{
	fprintf(stderr, "fakeserver: %s: %s\n", what, arg);
	exit(2);
}

static long long count_arg(const char *a)
{
	char *end;
	long long v;

	errno = 0;
	v = strtoll(a, &end, 10);
	if (errno || end == a || *end || v < 0)
		bad("bad value", a);
	return v;
}

int partial_option(int argc, char **argv, int *i)
{
	const char *a = argv[*i], *v;
	static const char *const page_opts[] = {
		"--page-fail", "--page-repeat", "--page-endless",
	};
	size_t k;

	if (strcmp(a, "--resources") && strcmp(a, "--prompts") &&
	    strcmp(a, "--declare") && strcmp(a, "--fail") &&
	    strcmp(a, "--storm") && strcmp(a, page_opts[0]) &&
	    strcmp(a, page_opts[1]) && strcmp(a, page_opts[2]))
		return 0;
	if (*i + 1 >= argc)
		bad("missing value for", a);
	v = argv[++*i];
	if (!strcmp(a, "--resources")) {
		n_resources = count_arg(v);
	} else if (!strcmp(a, "--prompts")) {
		n_prompts = count_arg(v);
	} else if (!strcmp(a, "--storm")) {
		storm = count_arg(v);
	} else if (!strcmp(a, "--declare")) {
		if (ndeclared == MAXOPT)
			bad("too many", a);
		declared[ndeclared++] = v;
	} else if (!strcmp(a, "--fail")) {
		const char *eq = strchr(v, '=');
		char *m;

		if (nfails == MAXOPT)
			bad("too many", a);
		m = strdup(v);
		if (!m)
			bad("out of memory", a);
		fails[nfails].code = -32601;
		if (eq) {
			m[eq - v] = 0;
			fails[nfails].code = -count_arg(eq + (eq[1] == '-' ?
								 2 : 1));
		}
		fails[nfails++].method = m;
	} else {
		if (npages == MAXOPT)
			bad("too many", a);
		for (k = 0; k < 3; k++)
			if (!strcmp(a, page_opts[k]))
				pages[npages].how = "fre"[k];
		pages[npages++].method = v;
	}
	return 1;
}

void partial_caps(cJSON *caps)
{
	int i;

	if (n_resources >= 0)
		cJSON_AddTrueToObject(cJSON_AddObjectToObject(caps,
					"resources"), "listChanged");
	if (n_prompts >= 0)
		cJSON_AddTrueToObject(cJSON_AddObjectToObject(caps, "prompts"),
				      "listChanged");
	for (i = 0; i < ndeclared; i++) {
		const char *dot = strchr(declared[i], '.');
		char name[64];
		cJSON *o;

		snprintf(name, sizeof name, "%.*s", dot ? (int)(dot -
			 declared[i]) : 63, declared[i]);
		o = cJSON_GetObjectItemCaseSensitive(caps, name);
		if (!o)
			o = cJSON_AddObjectToObject(caps, name);
		if (dot && !cJSON_GetObjectItemCaseSensitive(o, dot + 1))
			cJSON_AddTrueToObject(o, dot + 1);
	}
}

/* ---------------------------------------------------------------- lists */

static const struct {
	const char *method, *key, *notify;
} lists[] = {
	{"tools/list", "tools", "notifications/tools/list_changed"},
	{"resources/list", "resources",
	 "notifications/resources/list_changed"},
	{"resources/templates/list", "resourceTemplates",
	 "notifications/resources/list_changed"},
	{"prompts/list", "prompts", "notifications/prompts/list_changed"},
};
#define NLISTS (sizeof lists / sizeof lists[0])

/* Item k of listing l. */
static cJSON *item(size_t l, long long k)
{
	cJSON *o = cJSON_CreateObject();
	char b[64];

	switch (l) {
	case 0:
		snprintf(b, sizeof b, k ? "t%lld" : "echo", k - 1);
		cJSON_AddStringToObject(o, "name", b);
		cJSON_AddStringToObject(o, "description", "Return text.");
		cJSON_AddItemToObject(o, "inputSchema", cJSON_Parse(
			"{\"type\":\"object\",\"properties\":{\"text\":"
			"{\"type\":\"string\"}},\"required\":[\"text\"]}"));
		break;
	case 1:
		snprintf(b, sizeof b, "fake://r%lld", k);
		cJSON_AddStringToObject(o, "uri", b);
		snprintf(b, sizeof b, "r%lld", k);
		cJSON_AddStringToObject(o, "name", b);
		cJSON_AddStringToObject(o, "mimeType", "text/plain");
		break;
	case 2:
		cJSON_AddStringToObject(o, "uriTemplate", "fake://t/{x}");
		cJSON_AddStringToObject(o, "name", "t");
		break;
	default:
		snprintf(b, sizeof b, "p%lld", k);
		cJSON_AddStringToObject(o, "name", b);
		cJSON_AddStringToObject(o, "description", "A prompt.");
		break;
	}
	return o;
}

/* The page of listing l at cursor (NULL: the first), broken as asked. */
static void list_page(const cJSON *id, size_t l, const char *cursor, int how)
{
	cJSON *r = cJSON_CreateObject(), *a;
	long long n = l == 0 ? 1 : l == 1 ? n_resources : l == 2 ? 1
		: n_prompts, k, at = 0;
	char next[48];

	if (cursor && sscanf(cursor, "p%lld", &at) != 1) {
		cJSON_Delete(r);
		mm_error(id, -32602, "Invalid cursor");
		return;
	}
	if (cursor && how == 'f') {
		cJSON_Delete(r);
		mm_error(id, -32603, "fake: the next page failed");
		return;
	}
	a = cJSON_AddArrayToObject(r, lists[l].key);
	if (how && how != 'e') { /* one item per page: the first */
		if (!cursor)
			cJSON_AddItemToArray(a, item(l, 0));
		snprintf(next, sizeof next, how == 'r' ? "p1" : "p%lld",
			 at + 1);
		cJSON_AddStringToObject(r, "nextCursor", next);
	} else if (how == 'e') { /* empty pages without end */
		snprintf(next, sizeof next, "p%lld", at + 1);
		cJSON_AddStringToObject(r, "nextCursor", next);
	} else {
		for (k = 0; k < n; k++)
			cJSON_AddItemToArray(a, item(l, k));
	}
	mm_result(id, r);
}

void partial_after_list(const char *method)
{
	size_t l;
	long long k;

	for (l = 0; l < NLISTS; l++)
		if (!strcmp(method, lists[l].method))
			for (k = 0; k < storm; k++)
				mm_notify(lists[l].notify, NULL);
}

static void read_resource(const cJSON *id, const cJSON *params)
{
	const char *uri = mm_str(params, "uri");
	cJSON *r, *c;

	if (!uri || strncmp(uri, "fake://", 7)) {
		mm_error(id, -32002, "Resource not found");
		return;
	}
	r = cJSON_CreateObject();
	c = cJSON_CreateObject();
	cJSON_AddStringToObject(c, "uri", uri);
	cJSON_AddStringToObject(c, "mimeType", "text/plain");
	cJSON_AddStringToObject(c, "text", uri + 7);
	cJSON_AddItemToArray(cJSON_AddArrayToObject(r, "contents"), c);
	mm_result(id, r);
}

static void get_prompt(const cJSON *id, const cJSON *params)
{
	cJSON *r = cJSON_CreateObject(), *m = cJSON_CreateObject(), *c;
	const char *name = mm_str(params, "name");

	cJSON_AddStringToObject(m, "role", "user");
	c = cJSON_AddObjectToObject(m, "content");
	cJSON_AddStringToObject(c, "type", "text");
	cJSON_AddStringToObject(c, "text", name ? name : "");
	cJSON_AddItemToArray(cJSON_AddArrayToObject(r, "messages"), m);
	mm_result(id, r);
}

/* --declare resources.subscribe with --resources N: subscriptions are
 * served (answered {}), unless --fail names them. */
static int serves_subscribe(void)
{
	int i;

	for (i = 0; i < ndeclared; i++)
		if (!strcmp(declared[i], "resources.subscribe"))
			return 1;
	return 0;
}

int partial_request(const cJSON *id, const char *method,
		    const cJSON *params)
{
	size_t l;
	int i, how = 0;

	for (i = 0; i < nfails; i++) {
		if (!strcmp(method, fails[i].method)) {
			mm_error(id, (int)fails[i].code, fails[i].code ==
				 -32601 ? "Method not found"
					: "fake: this method fails");
			return 1;
		}
	}
	for (i = 0; i < npages; i++)
		if (!strcmp(method, pages[i].method))
			how = pages[i].how;
	for (l = 0; l < NLISTS; l++) {
		if (strcmp(method, lists[l].method))
			continue;
		if ((l == 1 || l == 2) && n_resources < 0 && !how)
			return 0;
		if (l == 3 && n_prompts < 0 && !how)
			return 0;
		if (l == 0 && !how)
			return 0;
		list_page(id, l, mm_str(params, "cursor"), how);
		partial_after_list(method);
		return 1;
	}
	if ((!strcmp(method, "resources/subscribe") ||
	     !strcmp(method, "resources/unsubscribe")) && n_resources >= 0 &&
	    serves_subscribe()) {
		mm_result(id, NULL); /* served: {} */
		return 1;
	}
	if (!strcmp(method, "resources/read") && n_resources >= 0) {
		read_resource(id, params);
		return 1;
	}
	if (!strcmp(method, "prompts/get") && n_prompts >= 0) {
		get_prompt(id, params);
		return 1;
	}
	return 0;
}
