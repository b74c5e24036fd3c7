/*
 * guide.c - finding one's way in the mount (spec 12): MOUNT/README.md and
 * the help/ files of server and thread directories.
 *
 * Both are made from what the core already has and never start a process:
 * the listings cached by mcp_list (the one place tools come from, so a
 * filter applied there applies here), and what the servers said of
 * themselves at their handshake (serverInfo, instructions), kept per
 * server by about_learn. help/ names are numbered per server or session
 * for their inodes, as the names of tools/.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ctlesc.h"
#include "gbuf.h"
#include "help.h"
#include "kvargs.h"
#include "internal.h"
#include "jsent.h"

#define PROMPT_PREFIX "prompt:"

/* The result key of the listings help/ reads (as message.c's table). */
static const char *key_of(enum mcp_list what)
{
	return what == MCP_PROMPTS ? "prompts" : "tools";
}

mcp_call *mcp_list_cached(mcp_server *srv, mcp_session *s,
			  enum mcp_list what)
{
	mcp_call *c = s ? s->lists[what] : srv->lists[what];

	if (!c || !c->done || mcp_call_failed(c))
		return NULL;
	return c;
}

/* The parsed reply of a listing, kept for the next few asks (ls -l of
 * help/ renders every file): borrowed, NULL on a parse failure. */
static cJSON *parsed(mcp_call *c)
{
	static struct {
		mcp_buf *buf;
		cJSON *doc;
	} cache[4];
	static unsigned next;
	unsigned i;

	for (i = 0; i < 4; i++)
		if (cache[i].buf == c->reply)
			return cache[i].doc;
	i = next++ % 4;
	mcp_buf_unref(cache[i].buf);
	cJSON_Delete(cache[i].doc);
	cache[i].buf = mcp_buf_ref(c->reply);
	cache[i].doc = cJSON_ParseWithLength(c->reply->data, c->reply->len);
	return cache[i].doc;
}

/* The entry named name in the cached listing what of srv or s. */
static const cJSON *entry(mcp_server *srv, mcp_session *s,
			  enum mcp_list what, const char *name)
{
	mcp_call *c = mcp_list_cached(srv, s, what);
	const cJSON *it, *n;

	if (!c)
		return NULL;
	cJSON_ArrayForEach(it, cJSON_GetObjectItemCaseSensitive(
				       parsed(c), key_of(what))) {
		n = cJSON_GetObjectItemCaseSensitive(it, "name");
		if (cJSON_IsString(n) && !strcmp(n->valuestring, name))
			return it;
	}
	return NULL;
}

long mcp_help_intern(mcp_server *srv, mcp_session *s, const char *file)
{
	if (s && !s->help && !(s->help = calloc(1, sizeof *s->help)))
		return -ENOMEM;
	return names_intern(s ? s->help : &srv->help, file);
}

const char *mcp_help_name_at(mcp_server *srv, mcp_session *s,
			     unsigned long i)
{
	const struct names *t = s ? s->help : &srv->help;

	return t && i < t->n ? t->v[i] : NULL;
}

/* The entry is found in the listing's index and parsed alone: no help
 * file parses a whole listing. */
mcp_buf *mcp_help(mcp_server *srv, mcp_session *s, const char *key)
{
	int prompt = !strncmp(key, "p:", 2);
	mcp_call *c = mcp_list_cached(srv, s, prompt ? MCP_PROMPTS
						     : MCP_TOOLS);
	const struct mcp_entry *e = c && strlen(key) > 2
		? mcp_entry_find(c, s, key + 2, 1) : NULL;
	cJSON *j = e ? jsent_parse(c->reply->data + e->at, e->n) : NULL;
	char *txt = j ? help_render(j, prompt, e->file) : NULL;
	mcp_buf *b = txt ? mcp_buf_new(txt, strlen(txt)) : NULL;

	cJSON_Delete(j);
	free(txt);
	return b;
}

/* How many entries the cached listing what of srv, or of one of its
 * threads, has: -1 when none is cached. */
static int count(mcp_server *srv, enum mcp_list what)
{
	mcp_call *c = mcp_list_cached(srv, NULL, what);
	mcp_session *s;

	for (s = mcp_session_next(srv, NULL); !c && s;
	     s = mcp_session_next(srv, s))
		c = mcp_list_cached(srv, s, what);
	if (!c)
		return -1;
	return cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(
		parsed(c), key_of(what)));
}

static const char intro[] =
"# This mount: MCP servers as files\n"
"\n"
"Each directory here is an MCP server from the config. A server's tools\n"
"run in a *thread*: a directory you make, which keeps one server process\n"
"(and its state: an open page, a connection) from one call to the next.\n"
"\n"
"## Start a session\n"
"\n"
"    mkdir SERVER/t1             # starts the server; returns at once\n"
"    ls SERVER/t1/tools          # its tools, one file each\n"
"    cat SERVER/help/TOOL        # how to call one: arguments, examples\n"
"\n"
"## Call a tool\n"
"\n"
"Write the arguments to the tool's file, then read the same file:\n"
"\n"
"    echo 'NAME=VALUE' > SERVER/t1/tools/TOOL; cat SERVER/t1/tools/TOOL\n"
"    printf '%%s\\n' 'a=1' 'b=text' > SERVER/t1/tools/TOOL  # one per line\n"
"    echo '{\"a\": 1}' > SERVER/t1/tools/TOOL                # or JSON\n"
"    : > SERVER/t1/tools/TOOL                              # no arguments\n"
"\n"
"`NAME=VALUE` takes the rest of the line as the value, typed by the\n"
"tool's schema (numbers, true/false, JSON for arrays and objects);\n"
"`NAME:=JSON` gives a JSON value as is. A file takes only the arguments;\n"
"`SERVER/t1/call` takes a whole request: {\"name\": \"TOOL\", \"arguments\":\n"
"{...}} or {\"method\": \"...\", \"params\": {...}}.\n"
"\n"
"## The reply\n"
"\n"
"Reading the file you wrote gives the reply as JSON. The latest reply is\n"
"also unpacked into SERVER/t1/result/: `text` (all text), 0.txt, 1.png,\n"
"... per content block, structured.json, and `error` when it failed.\n"
"SERVER/t1/status says whether the server runs and its last error;\n"
"SERVER/t1/stderr is what it printed; SERVER/t1/events its\n"
"notifications (tail -f events | grep updated, after\n"
"echo 'subscribe URI' > SERVER/t1/ctl); SERVER/t1/trace every message\n"
"both ways, one JSON line each (cat trace | jq); SERVER/t1/tasks/ the\n"
"calls the server runs as tasks, while they run (ls tasks; cat\n"
"tasks/*); SERVER/t1/skills/ the server's skills as folders (cat\n"
"skills/*/SKILL.md). .status (hidden: ls -a) describes the mount.\n"
"\n"
"## Questions from the server\n"
"\n"
"A server that asks something (a form, a confirmation) shows it as\n"
"SERVER/t1/requests/N; answer by writing JSON to it:\n"
"{\"action\": \"accept\", \"content\": {...}}, or {\"action\": \"decline\"}.\n"
"\n"
"## Closing\n"
"\n"
"    rmdir SERVER/t1             # or: echo close > SERVER/t1/ctl\n"
"\n"
"A thread left unused for the idle timeout (%g s) is closed for you;\n"
".status lists the threads closed lately and why. SERVER/call runs one\n"
"request on a fresh process that ends right after (no state kept).\n"
"\n"
"## Servers\n"
"\n";

/* A server's instructions, as a quote ("> " lines: its headings stay
 * inside it; a run of blank lines one ">"), cut after INSTR_MAX bytes at
 * a line end so that the guide stays a few screens long; controls
 * escaped (help_quote). */
#define INSTR_MAX 800
static void quote(struct gbuf *b, const char *text)
{
	gbuf_puts(b, "\n");
	help_quote(b, text, ">", INSTR_MAX);
}

/* "- WHAT: TEXT\n", the server's text on one line (ctlesc). */
static void field(struct gbuf *b, const char *what, const char *text)
{
	gbuf_printf(b, "- %s: ", what);
	ctlesc_text(b, text, 0);
	gbuf_puts(b, "\n");
}

/* What the README says of a server's tools: how many, how to list them,
 * or why it cannot start (its last start's error, about.c). */
static void tools_line(struct gbuf *b, mcp_server *srv)
{
	const cJSON *err = cJSON_GetObjectItemCaseSensitive(srv->about,
							    "startError");
	const char *nm = srv->conf->name;
	int n = count(srv, MCP_TOOLS);

	if (cJSON_IsString(err)) {
		field(b, "cannot start", err->valuestring);
		gbuf_printf(b, "- tools: unknown until it starts (mkdir %s/t1 "
			    "tries again; %s/t1/status and stderr say why)\n",
			    nm, nm);
	} else if (n >= 0) {
		gbuf_printf(b, "- tools: %d (ls %s/help)\n", n, nm);
	} else {
		gbuf_printf(b, "- tools: not listed yet (ls %s/help or "
			    "cat %s/tools.json lists them)\n", nm, nm);
	}
}

mcp_buf *mcp_readme(void)
{
	struct gbuf b = {0};
	mcp_server *srv;
	mcp_buf *out;
	char *txt;

	gbuf_printf(&b, intro, process.opts.idle_timeout);
	for (srv = mcp_server_next(NULL); srv; srv = mcp_server_next(srv)) {
		const cJSON *info = cJSON_GetObjectItemCaseSensitive(
			srv->about, "serverInfo");
		const cJSON *in = cJSON_GetObjectItemCaseSensitive(
			srv->about, "instructions");
		const cJSON *t = cJSON_GetObjectItemCaseSensitive(info,
								  "title");
		const cJSON *d = cJSON_GetObjectItemCaseSensitive(
			info, "description");
		const cJSON *nm = cJSON_GetObjectItemCaseSensitive(info,
								   "name");
		const cJSON *v = cJSON_GetObjectItemCaseSensitive(info,
								  "version");

		gbuf_printf(&b, "### %s\n\n", srv->conf->name);
		gbuf_printf(&b, "- transport: %s\n",
		     transport_name(NULL, NULL, srv->conf));
		if (cJSON_IsString(nm)) {
			gbuf_puts(&b, "- server: ");
			ctlesc_text(&b, cJSON_IsString(t) ? t->valuestring
							   : nm->valuestring, 0);
			gbuf_puts(&b, cJSON_IsString(t) ? " (" : "");
			if (cJSON_IsString(t))
				ctlesc_text(&b, nm->valuestring, 0);
			if (cJSON_IsString(v)) {
				gbuf_puts(&b, " ");
				ctlesc_text(&b, v->valuestring, 0);
			}
			gbuf_puts(&b, cJSON_IsString(t) ? ")\n" : "\n");
		}
		if (cJSON_IsString(d))
			field(&b, "description", d->valuestring);
		tools_line(&b, srv);
		if (cJSON_IsString(in) && *in->valuestring)
			quote(&b, in->valuestring);
		if (!info && !cJSON_GetObjectItemCaseSensitive(srv->about,
							       "startError"))
			gbuf_puts(&b, "- description: known once a session "
				      "of it has started\n");
		gbuf_puts(&b, "\n");
	}
	if (!mcp_server_next(NULL))
		gbuf_puts(&b, "(none configured; see .status for the "
			      "config)\n");
	txt = gbuf_take(&b);
	out = txt ? mcp_buf_new(txt, strlen(txt)) : NULL;
	free(txt);
	return out;
}

/* The inputSchema of tool name in the cached listing of s (of any thread
 * of srv for a one-shot); NULL for a prompt or when none is cached. */
static const cJSON *args_schema(mcp_server *srv, mcp_session *s, int prompt,
				const char *name)
{
	const cJSON *e = prompt ? NULL : entry(srv, s, MCP_TOOLS, name);

	if (!prompt && !e && !s) /* a one-shot: any thread's listing */
		for (s = mcp_session_next(srv, NULL); s && !e;
		     s = mcp_session_next(srv, s))
			e = entry(srv, s, MCP_TOOLS, name);
	return cJSON_GetObjectItemCaseSensitive(e, "inputSchema");
}

int mcp_args_lines(mcp_server *srv, mcp_session *s, int prompt,
		   const char *name, const char *text, size_t len, char **json,
		   char **why)
{
	char *out = NULL;
	int r;

	r = kvargs_parse(text, len, args_schema(srv, s, prompt, name), &out,
			 why);
	*json = out ? strdup(out) : NULL;
	cJSON_free(out);
	if (r == 0 && !*json)
		r = -ENOMEM;
	return r;
}

int mcp_args_check(mcp_server *srv, mcp_session *s, int prompt,
		   const char *name, const char *text, size_t len,
		   unsigned *line, char **why)
{
	return kvargs_check(text, len, args_schema(srv, s, prompt, name),
			    line, why);
}
