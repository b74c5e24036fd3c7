/*
 * era.c - which protocol era a server speaks (MCP 2026-07-28, "Versioning
 * and Compatibility") and what the modern era adds to each request.
 *
 * Modern (2026-07-28) has no initialize: every request carries
 * params._meta["io.modelcontextprotocol/protocolVersion"], clientInfo and
 * clientCapabilities, and over HTTP the MCP-Protocol-Version, Mcp-Method,
 * Mcp-Name and Mcp-Param-* headers. Legacy (2025-11-25 and earlier) is the
 * initialize handshake of session.c.
 *
 * Detection ("era": "auto"): the session core sends server/discover first
 * (with the modern _meta); era_probe_verdict sorts its answer: a
 * DiscoverResult (a result with supportedVersions) is modern;
 * UnsupportedProtocolVersionError (-32022) naming 2026-07-28 means retry
 * it; another recognized modern error
 * (-32020, -32021) means a modern server that refused; any other error,
 * and any failure of the probe's exchange (an HTTP 4xx or 5xx without
 * such a body, a closed connection: the transport's call_error, which
 * session.c keeps out of the thread's stderr) or no answer within the
 * probe timeout means legacy, and initialize follows. On stdio the answer holds for the
 * process (each start probes again); over HTTP it is kept per origin
 * (scheme, host and port of the url) and forgotten when a start in that
 * era fails, so the next start probes again.
 *
 * Everything here is a leaf: it reads and fills session fields and calls
 * through the transport's table, but calls no other file of sessions/
 * that calls back (message.c, inbound.c and session.c call it).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "buildconfig.h"
#include "era.h"
#include "internal.h"
#include "gbuf.h"
#include "jscan.h"

/* ---- the era cache of HTTP origins ---- */

struct origin {
	char *key;
	int era;
	struct origin *next;
};

static struct origin *origins;

/* scheme://host[:port] of url into out (n bytes). */
static void origin_of(const char *url, char *out, size_t n)
{
	const char *p = strstr(url, "://"), *e;

	p = p ? p + 3 : url;
	e = p + strcspn(p, "/?#");
	snprintf(out, n, "%.*s", (int)(e - url), url);
}

static struct origin *origin_find(const struct mcp_server_conf *conf)
{
	char key[512];
	struct origin *o;

	if (!conf->url)
		return NULL;
	origin_of(conf->url, key, sizeof key);
	for (o = origins; o; o = o->next)
		if (!strcmp(o->key, key))
			return o;
	return NULL;
}

int era_first(const mcp_session *s)
{
	const struct mcp_server_conf *conf = s->srv->conf;
	struct origin *o;

	if (conf->era != MCP_ERA_AUTO)
		return conf->era;
	if (s->ops->caps & TRANSPORT_HANDSHAKE_ONLY)
		return MCP_ERA_LEGACY; /* HTTP+SSE is of the handshake era */
	o = origin_find(conf);
	return o ? o->era : MCP_ERA_AUTO;
}

void era_learned(const mcp_session *s, int era)
{
	const struct mcp_server_conf *conf = s->srv->conf;
	struct origin *o = origin_find(conf);
	char key[512];

	if (!conf->url || conf->era != MCP_ERA_AUTO)
		return;
	if (!o) {
		o = calloc(1, sizeof *o);
		origin_of(conf->url, key, sizeof key);
		if (!o || !(o->key = strdup(key))) {
			free(o);
			return;
		}
		o->next = origins;
		origins = o;
	}
	o->era = era;
}

void era_forget(const mcp_session *s)
{
	struct origin *o = origin_find(s->srv->conf);

	if (o)
		o->era = MCP_ERA_AUTO;
}

void era_fini(void)
{
	struct origin *o;

	while ((o = origins) != NULL) {
		origins = o->next;
		free(o->key);
		free(o);
	}
}

/* ---- the probe ---- */

static int lists(const cJSON *a, const char *v)
{
	const cJSON *e;

	cJSON_ArrayForEach(e, a)
		if (cJSON_IsString(e) && !strcmp(e->valuestring, v))
			return 1;
	return 0;
}

/* 1 when a names a legacy version session.c's initialize speaks. */
static int lists_legacy(const cJSON *a)
{
	size_t i;

	for (i = 0; i < MCP_VERSIONS_SPOKEN; i++)
		if (lists(a, mcp_versions[i]))
			return 1;
	return 0;
}

int era_modern_error(const cJSON *err)
{
	const cJSON *c = cJSON_GetObjectItemCaseSensitive(err, "code");

	return cJSON_IsNumber(c) && (c->valueint == ERA_E_HEADER ||
				     c->valueint == ERA_E_CAPABILITY ||
				     c->valueint == ERA_E_VERSION);
}

static void took(mcp_session *s, cJSON *res)
{
	cJSON *meta = cJSON_GetObjectItemCaseSensitive(res, "_meta");
	const char *k = "io.modelcontextprotocol/serverInfo";

	snprintf(s->protocol, sizeof s->protocol, "%s", ERA_VERSION);
	cJSON_Delete(s->server_info);
	cJSON_Delete(s->capabilities);
	s->server_info = cJSON_DetachItemFromObjectCaseSensitive(meta, k);
	if (!s->server_info) /* as some servers of 0.2.0-alpha send it */
		s->server_info = cJSON_DetachItemFromObjectCaseSensitive(
			res, "serverInfo");
	s->capabilities = cJSON_DetachItemFromObjectCaseSensitive(
		res, "capabilities");
	about_learn(s->srv, s->server_info,
		    cJSON_GetObjectItemCaseSensitive(res, "instructions"));
	if (!cJSON_IsObject(s->capabilities)) {
		cJSON_Delete(s->capabilities);
		s->capabilities = cJSON_CreateObject();
	}
}

int era_probe_verdict(mcp_session *s, cJSON *msg, char *why, size_t n)
{
	cJSON *res = cJSON_GetObjectItemCaseSensitive(msg, "result");
	cJSON *err = cJSON_GetObjectItemCaseSensitive(msg, "error");
	cJSON *m = cJSON_GetObjectItemCaseSensitive(err, "message");
	cJSON *d = cJSON_GetObjectItemCaseSensitive(err, "data");
	cJSON *sup = cJSON_GetObjectItemCaseSensitive(d, "supported");
	int forced = s->srv->conf->era == MCP_ERA_MODERN;

	if (!err && cJSON_IsObject(res)) {
		sup = cJSON_GetObjectItemCaseSensitive(res, "supportedVersions");
		if (!cJSON_IsArray(sup) && !forced) {
			/* not a DiscoverResult: a legacy server that answers
			 * any method (the 0.1.16 suite's initialize one) */
			snprintf(why, n, "server/discover answered without "
				 "supportedVersions");
			return ERA_FALLBACK;
		}
		if (!cJSON_IsArray(sup) || lists(sup, ERA_VERSION)) {
			took(s, res);
			return ERA_OK;
		}
		snprintf(why, n, "server/discover: the server supports none "
			 "of mcpfs's modern versions (it lists %s)",
			 lists_legacy(sup) ? "legacy ones" : "others");
		return lists_legacy(sup) && !forced ? ERA_FALLBACK : ERA_FAIL;
	}
	snprintf(why, n, "server/discover failed: %s",
		 cJSON_IsString(m) ? m->valuestring : "bad reply");
	if (!era_modern_error(err))
		return forced ? ERA_FAIL : ERA_FALLBACK;
	if (cJSON_GetObjectItemCaseSensitive(err, "code")->valueint ==
	    ERA_E_VERSION) {
		if (lists(sup, ERA_VERSION))
			return ERA_RETRY;
		if (lists_legacy(sup) && !forced)
			return ERA_FALLBACK; /* a dual server, legacy for us */
		snprintf(why, n, "the server supports no protocol version "
			 "mcpfs speaks");
	}
	return ERA_FAIL;
}

/* ---- the per-request _meta ---- */

static void put(struct gbuf *o, const char *s)
{
	gbuf_add(o, s, strlen(s));
}

static void put_meta_members(struct gbuf *o, const mcp_session *s,
			     unsigned have)
{
	const struct mcp_server_conf *conf = s->srv->conf;
	int comma = 0;

	if (!(have & 1)) {
		put(o, "\"io.modelcontextprotocol/protocolVersion\":\""
		       ERA_VERSION "\"");
		comma = 1;
	}
	if (!(have & 2)) {
		put(o, comma ? "," : "");
		put(o, "\"io.modelcontextprotocol/clientInfo\":{\"name\":"
		       "\"mcpfs\",\"version\":\"" MCPFS_VERSION "\"}");
		comma = 1;
	}
	if (!(have & 4)) {
		put(o, comma ? "," : "");
		put(o, "\"io.modelcontextprotocol/clientCapabilities\":{");
		if (conf->nroots) /* spec 5 */
			put(o, "\"roots\":{},");
		if (conf->elicitation)
			put(o, "\"elicitation\":{\"form\":{},\"url\":{}},");
		if (conf->sampling)
			put(o, "\"sampling\":{},");
		/* spec 15: tasks followed to their end (task.c), skills
		 * as files (live/skills.c) */
		put(o, "\"extensions\":{\"io.modelcontextprotocol/tasks\":{},"
		       "\"io.modelcontextprotocol/skills\":{}}}");
	}
}

static int empty_obj(const char *p, struct jscan_span o)
{
	size_t i = o.at + 1;

	while (i < o.at + o.n && strchr(" \t\r\n", p[i]))
		i++;
	return p[i] == '}';
}

char *era_line(const mcp_session *s, const char *line, size_t len,
	       size_t *outlen)
{
	struct jscan_span top = {0, 0}, params, meta, v;
	struct gbuf o = {0};
	size_t cut;
	unsigned have = 0;
	int how; /* 0 no params, 1 no _meta, 2 into _meta */

	while (top.at < len && line[top.at] != '{')
		top.at++;
	if (top.at == len)
		return NULL;
	cut = jscan_value_end(line, top.at, len);
	if (cut <= top.at)
		return NULL; /* not one whole object: sent as it is */
	top.n = cut - top.at;
	if (!jscan_member(line, top, "params", &params)) {
		how = 0;
		cut = top.at + top.n - 1; /* its '}' */
	} else if (line[params.at] != '{') {
		return NULL; /* array params: no place for _meta */
	} else if (!jscan_member(line, params, "_meta", &meta) ||
		   line[meta.at] != '{') {
		how = 1;
		cut = params.at + 1;
	} else {
		how = 2;
		cut = meta.at + 1;
		have |= jscan_member(line, meta, "io.modelcontextprotocol/"
				     "protocolVersion", &v) ? 1 : 0;
		have |= jscan_member(line, meta, "io.modelcontextprotocol/"
				     "clientInfo", &v) ? 2 : 0;
		have |= jscan_member(line, meta, "io.modelcontextprotocol/"
				     "clientCapabilities", &v) ? 4 : 0;
		if (have == 7)
			return NULL;
	}
	if (gbuf_reserve(&o, len + 512) < 0)
		return NULL;
	gbuf_add(&o, line, cut);
	if (how == 0)
		put(&o, ",\"params\":{\"_meta\":{");
	else if (how == 1)
		put(&o, "\"_meta\":{");
	put_meta_members(&o, s, have);
	if (how == 0)
		put(&o, "}}");
	else if (how == 1)
		put(&o, empty_obj(line, params) ? "}" : "},");
	else if (!empty_obj(line, meta) && have != 7)
		put(&o, ",");
	gbuf_add(&o, line + cut, len - cut);
	if (outlen)
		*outlen = o.len;
	return gbuf_take(&o);
}

/* ---- HTTP: the request metadata headers (streamable-http.mdx) ---- */

static int tchar(int c)
{
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') ||
	       (c >= 'A' && c <= 'Z') || (c && strchr("!#$%&'*+-.^_`|~", c));
}

/* 1 if v can go into a header as it is. */
static int header_safe(const char *v)
{
	size_t n = strlen(v), i;

	if (n && (v[0] == ' ' || v[n - 1] == ' '))
		return 0;
	for (i = 0; i < n; i++)
		if ((unsigned char)v[i] < 0x20 || (unsigned char)v[i] > 0x7e)
			return 0;
	return !(n >= 11 && !strncmp(v, "=?base64?", 9) &&
		 !strcmp(v + n - 2, "?="));
}

static void base64(struct gbuf *o, const unsigned char *p, size_t n)
{
	static const char t[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrs"
				"tuvwxyz0123456789+/";
	size_t i;
	char q[4];

	for (i = 0; i + 2 < n; i += 3) {
		q[0] = t[p[i] >> 2];
		q[1] = t[((p[i] & 3) << 4) | (p[i + 1] >> 4)];
		q[2] = t[((p[i + 1] & 15) << 2) | (p[i + 2] >> 6)];
		q[3] = t[p[i + 2] & 63];
		gbuf_add(o, q, 4);
	}
	if (i < n) {
		q[0] = t[p[i] >> 2];
		q[1] = t[((p[i] & 3) << 4) | (i + 1 < n ? p[i + 1] >> 4 : 0)];
		q[2] = i + 1 < n ? t[(p[i + 1] & 15) << 2] : '=';
		q[3] = '=';
		gbuf_add(o, q, 4);
	}
}

/* "Name: value" of a string value, Base64 when it is not header-safe. */
static char *header(const char *name, const char *v)
{
	struct gbuf o = {0};

	put(&o, name);
	put(&o, *v ? ": " : ";"); /* curl sends "Name;" as an empty one */
	if (header_safe(v)) {
		put(&o, v);
	} else {
		put(&o, "=?base64?");
		base64(&o, (const unsigned char *)v, strlen(v));
		put(&o, "?=");
	}
	gbuf_add(&o, "", 1);
	return gbuf_take(&o);
}

struct hdrs {
	char **v;
	size_t n;
};

static void hdr_add(struct hdrs *h, char *line)
{
	char **nv;

	if (!line)
		return;
	nv = realloc(h->v, (h->n + 2) * sizeof *nv);
	if (!nv) {
		free(line);
		return;
	}
	h->v = nv;
	h->v[h->n++] = line;
	h->v[h->n] = NULL;
}

/* The x-mcp-header value of v (a primitive), as a header line. */
static char *param_header(const char *name, const cJSON *v)
{
	char hn[300], num[40];

	snprintf(hn, sizeof hn, "Mcp-Param-%s", name);
	if (cJSON_IsString(v))
		return header(hn, v->valuestring);
	if (cJSON_IsBool(v))
		return header(hn, cJSON_IsTrue(v) ? "true" : "false");
	if (cJSON_IsNumber(v) && v->valuedouble == (double)(long long)
						      v->valuedouble) {
		snprintf(num, sizeof num, "%lld", (long long)v->valuedouble);
		return header(hn, num);
	}
	return NULL; /* null, absent or not a primitive: omitted */
}

/* The Mcp-Param-* headers of the properties of schema, over args. */
static void param_headers(struct hdrs *h, const cJSON *schema,
			  const cJSON *args, int depth)
{
	const cJSON *props = cJSON_GetObjectItemCaseSensitive(schema,
							      "properties");
	const cJSON *p, *x;

	if (depth > 32 || !cJSON_IsObject(args))
		return;
	cJSON_ArrayForEach(p, props) {
		const cJSON *v = cJSON_GetObjectItemCaseSensitive(args,
								  p->string);

		x = cJSON_GetObjectItemCaseSensitive(p, "x-mcp-header");
		if (cJSON_IsString(x) && v)
			hdr_add(h, param_header(x->valuestring, v));
		else if (v)
			param_headers(h, p, v, depth + 1);
	}
}

/* The definition of tool name in the session's tools listing, parsed
 * (the caller deletes it), or NULL. */
static cJSON *tool_of(const mcp_session *s, const char *name)
{
	const mcp_call *l = s->lists[MCP_TOOLS];
	cJSON *all, *t, *one = NULL;

	if (!l || !l->done)
		l = s->srv->lists[MCP_TOOLS];
	if (!l || !l->done || !l->reply)
		return NULL;
	all = cJSON_ParseWithLength(l->reply->data, l->reply->len);
	cJSON_ArrayForEach(t, cJSON_GetObjectItemCaseSensitive(all, "tools")) {
		const cJSON *n = cJSON_GetObjectItemCaseSensitive(t, "name");

		if (cJSON_IsString(n) && !strcmp(n->valuestring, name)) {
			one = cJSON_Duplicate(t, 1);
			break;
		}
	}
	cJSON_Delete(all);
	return one;
}

/* The line is one mcpfs sends: a user's request in it passed the I-JSON
 * name check of mcp_request_parse (no name twice, none holding NUL or a
 * control character, spec 13), so cJSON's reading of it here, which
 * Mcp-Name and Mcp-Method come from, is the only one: the one the policy
 * checked and the one the server reads. */
char **era_headers(const mcp_session *s, const char *line, size_t len,
		   const char *tool)
{
	cJSON *m = cJSON_ParseWithLength(line, len), *p, *meta, *v, *t;
	const char *method;
	struct hdrs h = {0};
	char *name;

	if (!m)
		return NULL;
	v = cJSON_GetObjectItemCaseSensitive(m, "method");
	method = cJSON_IsString(v) ? v->valuestring : "";
	p = cJSON_GetObjectItemCaseSensitive(m, "params");
	meta = cJSON_GetObjectItemCaseSensitive(p, "_meta");
	v = cJSON_GetObjectItemCaseSensitive(meta, "io.modelcontextprotocol/"
					     "protocolVersion");
	hdr_add(&h, header("MCP-Protocol-Version", cJSON_IsString(v) ?
			   v->valuestring : ERA_VERSION));
	hdr_add(&h, header("Mcp-Method", method));
	v = cJSON_GetObjectItemCaseSensitive(p, strcmp(method,
		"resources/read") ? "name" : "uri");
	if (tool && *tool && !strcmp(method, "tools/call")) /* policy's */
		v = cJSON_CreateStringReference(tool);
	if (cJSON_IsString(v) && (!strcmp(method, "tools/call") ||
				  !strcmp(method, "prompts/get") ||
				  !strcmp(method, "resources/read")))
		hdr_add(&h, header("Mcp-Name", v->valuestring));
	t = cJSON_GetObjectItemCaseSensitive(p, "taskId"); /* SEP-2663 */
	if (cJSON_IsString(t) && !strncmp(method, "tasks/", 6))
		hdr_add(&h, header("Mcp-Name", t->valuestring));
	if (!strcmp(method, "tools/call") && cJSON_IsString(v)) {
		name = v->valuestring;
		t = tool_of(s, name);
		param_headers(&h, cJSON_GetObjectItemCaseSensitive(
				      t, "inputSchema"),
			      cJSON_GetObjectItemCaseSensitive(p, "arguments"),
			      0);
		cJSON_Delete(t);
	}
	if (tool && *tool && !strcmp(method, "tools/call"))
		cJSON_Delete(v); /* the reference only */
	cJSON_Delete(m);
	return h.v;
}

void era_headers_free(char **h)
{
	size_t i;

	for (i = 0; h && h[i]; i++)
		free(h[i]);
	free(h);
}

/* ---- HTTP: tools whose x-mcp-header annotations are invalid ---- */

struct seen {
	char names[64][128];
	int n;
};

/* NULL if the x-mcp-header annotations under node are valid, else why. */
static const char *walk(const cJSON *node, int reachable, struct seen *sn,
			int depth)
{
	const cJSON *k, *x, *ty;
	const char *why;
	int i;

	if (depth > 64)
		return "schema nested too deep";
	if (!cJSON_IsObject(node) && !cJSON_IsArray(node))
		return NULL;
	x = cJSON_IsObject(node) ? cJSON_GetObjectItemCaseSensitive(
					   node, "x-mcp-header") : NULL;
	if (x) {
		if (!reachable)
			return "x-mcp-header not reachable by properties "
			       "alone";
		if (!cJSON_IsString(x) || !*x->valuestring)
			return "x-mcp-header empty or not a string";
		for (i = 0; x->valuestring[i]; i++)
			if (!tchar((unsigned char)x->valuestring[i]))
				return "x-mcp-header not an HTTP token";
		ty = cJSON_GetObjectItemCaseSensitive(node, "type");
		if (!cJSON_IsString(ty) || (strcmp(ty->valuestring, "string") &&
					    strcmp(ty->valuestring, "integer") &&
					    strcmp(ty->valuestring, "boolean")))
			return "x-mcp-header on a type that is not string, "
			       "integer or boolean";
		for (i = 0; i < sn->n; i++)
			if (!strcasecmp(sn->names[i], x->valuestring))
				return "x-mcp-header used twice";
		if (sn->n < 64 && strlen(x->valuestring) < 128)
			strcpy(sn->names[sn->n++], x->valuestring);
	}
	cJSON_ArrayForEach(k, node) {
		if (cJSON_IsObject(node) && !strcmp(k->string, "properties") &&
		    reachable && cJSON_IsObject(k)) {
			const cJSON *pr;

			cJSON_ArrayForEach(pr, k)
				if ((why = walk(pr, 1, sn, depth + 1)))
					return why;
		} else if ((why = walk(k, 0, sn, depth + 1))) {
			return why;
		}
	}
	return NULL;
}

void era_filter_tools(const mcp_session *s, cJSON *tools)
{
	cJSON *t = tools ? tools->child : NULL, *next;
	struct seen *sn;
	const char *why;

	if (!(s->ops->caps & TRANSPORT_EXCHANGES) ||
	    !(sn = malloc(sizeof *sn)))
		return;
	for (; t; t = next) {
		const cJSON *n = cJSON_GetObjectItemCaseSensitive(t, "name");

		next = t->next;
		sn->n = 0;
		why = walk(cJSON_GetObjectItemCaseSensitive(t, "inputSchema"),
			   1, sn, 0);
		if (why) {
			mlog(MLOG_WARN, "server %s: tool %.100s left out of "
			     "tools/: %s", s->srv->conf->name,
			     cJSON_IsString(n) ? n->valuestring : "?", why);
			cJSON_Delete(cJSON_DetachItemViaPointer(tools, t));
		}
	}
	free(sn);
}
