/*
 * search.c - the search surface of a serve client (spec 14): three tools
 * in place of every tool, so that an agent's context holds a few hundred
 * bytes of listing instead of every schema of every server.
 *
 *   mcpfs__search_tools {query, limit}: the tools whose names or
 *     descriptions hold the query's words, best first, one line each
 *     (SERVER__TOOL: the description's first line);
 *   mcpfs__describe_tool {name}: that tool's entry of the full listing
 *     (name, title, description, inputSchema, outputSchema, annotations);
 *   mcpfs__call_tool {name, arguments}: a tools/call of that tool, made
 *     by peer.c as the client's own (its thread, progress, cancel,
 *     questions).
 *
 * Both look in the listing the client's tools/list would give (peer.c
 * gathers it: each server's probe listing, the one help/ reads, asked
 * for once and cached; the tool policy and the client's servers
 * applied). Pure: the listing in, the result out.
 *
 * Ranking: the query is cut into words (runs of letters and digits, a
 * character beyond ASCII counting as a letter; ASCII case folded). Each
 * word scores 4 when it is a whole word of the tool's SERVER__TOOL name
 * (cut the same way), else 3 when it is part of the name, else 1 when it
 * is in the title or description, else 0. A
 * tool's score is the sum; a tool scoring 0 is left out; ties keep the
 * listing's order (the config's order of servers, each server's own).
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gbuf.h"
#include "scope.h"

#define LIMIT_DEFAULT 10
#define LIMIT_MAX 50
#define WORDS_MAX 16             /* of a query: the rest are not counted */
#define LINE_MAX_DESC 160        /* bytes of a one-line description */

static const char tools_json[] =
"{\"tools\":["
"{\"name\":\"mcpfs__search_tools\",\"description\":\"Find tools of the "
"MCP servers behind this mount by words of their names and descriptions: "
"the best matches as SERVER__TOOL with one line each. Then "
"mcpfs__describe_tool for its arguments, mcpfs__call_tool to run it.\","
"\"inputSchema\":{\"type\":\"object\",\"properties\":{\"query\":{\"type\":"
"\"string\",\"description\":\"words to look for, e.g. read file\"},"
"\"limit\":{\"type\":\"integer\",\"minimum\":1,\"maximum\":50,"
"\"description\":\"at most this many (10)\"}},\"required\":[\"query\"]},"
"\"annotations\":{\"readOnlyHint\":true}},"
"{\"name\":\"mcpfs__describe_tool\",\"description\":\"The full "
"definition of one tool: description, inputSchema, annotations.\","
"\"inputSchema\":{\"type\":\"object\",\"properties\":{\"name\":{\"type\":"
"\"string\",\"description\":\"SERVER__TOOL\"}},\"required\":[\"name\"]},"
"\"annotations\":{\"readOnlyHint\":true}},"
"{\"name\":\"mcpfs__call_tool\",\"description\":\"Call a tool by its "
"SERVER__TOOL name with its arguments, as a direct call would.\","
"\"inputSchema\":{\"type\":\"object\",\"properties\":{\"name\":{\"type\":"
"\"string\",\"description\":\"SERVER__TOOL\"},\"arguments\":{\"type\":"
"\"object\"}},\"required\":[\"name\"]}}"
"]}";

const char search_instructions[] =
	"The tools of every server of an mcpfs mount, found with "
	"mcpfs__search_tools, read with mcpfs__describe_tool and called with "
	"mcpfs__call_tool (names are SERVER__TOOL). Calls run in the thread "
	"directories of the mount, which a shell can read and call into.";

static const char *const names[] = {
	[SEARCH_FIND] = "mcpfs__search_tools",
	[SEARCH_DESCRIBE] = "mcpfs__describe_tool",
	[SEARCH_CALL] = "mcpfs__call_tool",
};

cJSON *search_listing(void)
{
	return cJSON_Parse(tools_json);
}

enum search_tool search_which(const cJSON *params)
{
	const cJSON *n = cJSON_GetObjectItemCaseSensitive(params, "name");
	int i;

	for (i = SEARCH_FIND; cJSON_IsString(n) && i <= SEARCH_CALL; i++)
		if (!strcmp(n->valuestring, names[i]))
			return (enum search_tool)i;
	return SEARCH_NONE;
}

static const cJSON *args_of(const cJSON *params)
{
	return cJSON_GetObjectItemCaseSensitive(params, "arguments");
}

static const char *arg_str(const cJSON *params, const char *k)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(args_of(params), k);

	return cJSON_IsString(v) ? v->valuestring : NULL;
}

cJSON *search_call_params(const cJSON *params, const char **why)
{
	const cJSON *a = cJSON_GetObjectItemCaseSensitive(args_of(params),
							  "arguments");
	const cJSON *meta = cJSON_GetObjectItemCaseSensitive(params, "_meta");
	const char *name = arg_str(params, "name");
	cJSON *in, *parsed = NULL;

	*why = NULL;
	if (!name) {
		*why = "mcpfs__call_tool needs a name (SERVER__TOOL)";
		return NULL;
	}
	/* arguments given as a JSON text (a model's habit): its object */
	if (cJSON_IsString(a) && (parsed = cJSON_Parse(a->valuestring)) &&
	    cJSON_IsObject(parsed))
		a = parsed;
	in = cJSON_CreateObject();
	cJSON_AddStringToObject(in, "name", name);
	if (a)
		cJSON_AddItemToObject(in, "arguments", cJSON_Duplicate(a, 1));
	if (meta)
		cJSON_AddItemToObject(in, "_meta", cJSON_Duplicate(meta, 1));
	cJSON_Delete(parsed);
	return in;
}

/* ---- results ---- */

/* {"content": [{"type": "text", "text": t}]}, isError when err. */
static cJSON *text_result(const char *t, int err)
{
	cJSON *r = cJSON_CreateObject(), *c = cJSON_AddArrayToObject(r,
								     "content");
	cJSON *b = cJSON_CreateObject();

	cJSON_AddItemToArray(c, b);
	cJSON_AddStringToObject(b, "type", "text");
	cJSON_AddStringToObject(b, "text", t);
	if (err)
		cJSON_AddTrueToObject(r, "isError");
	if (!cJSON_GetObjectItemCaseSensitive(b, "text")) {
		cJSON_Delete(r);
		return NULL;
	}
	return r;
}

static const char *str(const cJSON *o, const char *k)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k);

	return cJSON_IsString(v) ? v->valuestring : NULL;
}

static cJSON *describe(const cJSON *tools, const cJSON *params)
{
	const char *name = arg_str(params, "name");
	const cJSON *t;
	char msg[400];
	cJSON *r;
	char *j;

	cJSON_ArrayForEach(t, tools) {
		const char *n = str(t, "name");

		if (!name || !n || strcmp(n, name))
			continue;
		j = cJSON_PrintUnformatted(t);
		r = j ? text_result(j, 0) : NULL;
		cJSON_free(j);
		return r;
	}
	snprintf(msg, sizeof msg, name ? "no tool %.300s here: "
		 "mcpfs__search_tools finds the names (SERVER__TOOL)"
		 : "mcpfs__describe_tool needs a name (SERVER__TOOL)%.0s",
		 name ? name : "");
	return text_result(msg, 1);
}

/* A letter or digit: ASCII ones, and every byte of a character beyond
 * ASCII (UTF-8), so that "café" and "日本" are words too. */
static int word_char(char c)
{
	return isalnum((unsigned char)c) || (unsigned char)c >= 0x80;
}

/* The words of s, ASCII lower case, as one buffer of NUL-ended words ending in
 * an empty one; at most max of them. NULL when out of memory. */
static char *words(const char *s, size_t max)
{
	size_t n = strlen(s), k = 0, w = 0;
	char *out = malloc(2 * n + 2), *o = out;

	if (!out)
		return NULL;
	while (*s && w < max) {
		while (*s && !word_char(*s))
			s++;
		if (!*s)
			break;
		while (word_char(*s))
			o[k++] = (char)tolower((unsigned char)*s++);
		o[k++] = 0;
		w++;
	}
	o[k] = 0;
	return out;
}

/* 1 if word is one of the words ws (as words() gives them) */
static int has_word(const char *ws, const char *word)
{
	for (; *ws; ws += strlen(ws) + 1)
		if (!strcmp(ws, word))
			return 1;
	return 0;
}

/* 1 if word is in s, ASCII case folded */
static int has_part(const char *s, const char *word)
{
	size_t n = strlen(word);

	for (; s && *s; s++)
		if (!strncasecmp(s, word, n))
			return 1;
	return 0;
}

/* The score of tool t for the query words q (the ranking above). */
static int score(const cJSON *t, const char *q)
{
	const cJSON *ann = cJSON_GetObjectItemCaseSensitive(t, "annotations");
	const char *name = str(t, "name"), *desc = str(t, "description");
	const char *title = str(t, "title");
	char *nw = name ? words(name, 64) : NULL;
	int sc = 0;

	if (!title)
		title = str(ann, "title");
	for (; nw && *q; q += strlen(q) + 1)
		sc += has_word(nw, q) ? 4 : has_part(name, q) ? 3
		    : has_part(desc, q) || has_part(title, q) ? 1 : 0;
	free(nw);
	return sc;
}

/* "NAME: the first line of the description", controls as spaces, cut at
 * LINE_MAX_DESC bytes on a character's start. */
static void one_line(struct gbuf *b, const cJSON *t)
{
	const char *d = str(t, "description"), *e;
	char line[LINE_MAX_DESC];
	size_t n, i;

	gbuf_puts(b, str(t, "name"));
	while (d && (*d == ' ' || *d == '\n' || *d == '\r' || *d == '\t'))
		d++;
	if (d && *d) {
		e = strchr(d, '\n');
		n = e ? (size_t)(e - d) : strlen(d);
		if (n > LINE_MAX_DESC) {
			n = LINE_MAX_DESC;
			while (n && ((unsigned char)d[n] & 0xc0) == 0x80)
				n--;
		}
		memcpy(line, d, n);
		for (i = 0; i < n; i++)
			if ((unsigned char)line[i] < 0x20 || line[i] == 0x7f)
				line[i] = ' ';
		gbuf_puts(b, ": ");
		gbuf_add(b, line, n);
		if (n < strlen(d) && d[n] != '\n')
			gbuf_puts(b, "...");
	}
	gbuf_puts(b, "\n");
}

struct hit {
	const cJSON *t;
	int score;
	size_t seq;
};

static int hit_cmp(const void *a, const void *b)
{
	const struct hit *x = a, *y = b;

	if (x->score != y->score)
		return x->score > y->score ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* The hits of query q among tools, best first: how many (*h malloc'd),
 * -1 when out of memory. */
static int rank(const cJSON *tools, const char *q, struct hit **h)
{
	int n = cJSON_GetArraySize(tools), k = 0, sc;
	const cJSON *t;

	*h = malloc(((size_t)n + 1) * sizeof **h);
	if (!*h)
		return -1;
	cJSON_ArrayForEach(t, tools)
		if ((sc = score(t, q)) > 0) {
			(*h)[k] = (struct hit){ t, sc, (size_t)k };
			k++;
		}
	qsort(*h, (size_t)k, sizeof **h, hit_cmp);
	return k;
}

static cJSON *find(const cJSON *tools, const cJSON *params)
{
	const char *query = arg_str(params, "query");
	const cJSON *lim = cJSON_GetObjectItemCaseSensitive(args_of(params),
							   "limit");
	double lv = cJSON_IsNumber(lim) ? lim->valuedouble : LIMIT_DEFAULT;
	/* 1 to LIMIT_MAX, compared as a double: 1e50 is no int */
	int limit = !(lv >= 1) ? 1 : lv > LIMIT_MAX ? LIMIT_MAX : (int)lv;
	int n, i;
	char *q = query ? words(query, WORDS_MAX) : NULL;
	struct gbuf b = { 0 };
	struct hit *h = NULL;
	cJSON *r;

	if (!q || !*q) {
		free(q);
		return text_result(query ? "the query has no words: give words "
				   "to look for in tool names and descriptions"
				   : "mcpfs__search_tools needs a query", 1);
	}
	n = rank(tools, q, &h);
	for (i = 0; i < n && i < limit; i++)
		one_line(&b, h[i].t);
	if (n > limit)
		gbuf_printf(&b, "(%d more: a larger limit, or more words)\n",
			    n - limit);
	if (n == 0)
		gbuf_printf(&b, "no tool matches (%d searched)\n",
			    cJSON_GetArraySize(tools));
	r = b.oom || n < 0 ? NULL : text_result(b.p, 0);
	gbuf_free(&b);
	free(h);
	free(q);
	return r;
}

cJSON *search_answer(const cJSON *tools, const cJSON *params)
{
	return search_which(params) == SEARCH_FIND
		? find(tools, params) : describe(tools, params);
}
