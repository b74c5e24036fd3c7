/*
 * result.c - result/ (spec 9): a thread's latest completed reply unpacked
 * into its parts, once per reply (base64 decoded here, with a small
 * decoder: the crypto library is loaded only for HTTP servers), and the
 * bytes of a resources/read reply.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gbuf.h"
#include "internal.h"
#include "jscan.h"
#include "jsent.h"
#include "mimetab.h"

static int b64val(unsigned char c)
{
	if (c >= 'A' && c <= 'Z')
		return c - 'A';
	if (c >= 'a' && c <= 'z')
		return c - 'a' + 26;
	if (c >= '0' && c <= '9')
		return c - '0' + 52;
	if (c == '+' || c == '-')
		return 62;
	if (c == '/' || c == '_')
		return 63;
	return -1;
}

/* Standard or URL-safe base64, padding optional, whitespace skipped. NULL
 * on a byte outside the alphabet. */
static mcp_buf *b64_decode(const char *in)
{
	size_t n = strlen(in);
	mcp_buf *b = mcp_buf_new(NULL, n / 4 * 3 + 3);
	unsigned acc = 0, bits = 0;
	size_t o = 0;
	const unsigned char *p;
	int v;

	if (!b)
		return NULL;
	for (p = (const unsigned char *)in; *p; p++) {
		if (*p == '=' || *p == ' ' || *p == '\n' || *p == '\r' ||
		    *p == '\t')
			continue;
		if ((v = b64val(*p)) < 0) {
			mcp_buf_unref(b);
			return NULL;
		}
		acc = acc << 6 | (unsigned)v;
		bits += 6;
		if (bits >= 8) {
			bits -= 8;
			b->data[o++] = (char)(acc >> bits & 0xff);
		}
	}
	b->len = o;
	b->data[o] = 0;
	return b;
}

/* The extension of a block of type mime (lib/mimetab.c: the spec's names,
 * then /etc/mime.types), else dflt. */
static const char *ext_of(const char *mime, const char *dflt)
{
	return mimetab_ext(mime, dflt);
}

struct unpack {
	struct mcp_part *v;
	size_t n, cap;
	struct gbuf text;   /* the text blocks, joined */
	int ntext;
};

static void add_part(struct unpack *u, const char *name, mcp_buf *data)
{
	struct mcp_part *v;

	if (!data)
		return;
	if (!(v = gbuf_grow(u->v, &u->cap, u->n + 1, sizeof *v, 8))) {
		mcp_buf_unref(data);
		return;
	}
	u->v = v;
	snprintf(u->v[u->n].name, sizeof u->v[u->n].name, "%s", name);
	u->v[u->n++].data = data;
}

static const char *str_of(const cJSON *o, const char *k)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k);

	return cJSON_IsString(v) ? v->valuestring : NULL;
}

/* The string s of a parse with jsent_hide_nul into b: C0 80 as the NUL it
 * stands for. */
static void str_add(struct gbuf *b, const char *s)
{
	const char *c;

	while ((c = strstr(s, "\xc0\x80")) != NULL) {
		gbuf_add(b, s, (size_t)(c - s));
		gbuf_add(b, "", 1);
		s = c + 2;
	}
	gbuf_puts(b, s);
}

static mcp_buf *str_buf(const char *s)
{
	struct gbuf b = {0};
	mcp_buf *out;

	if (!strstr(s, "\xc0\x80"))
		return mcp_buf_new(s, strlen(s));
	str_add(&b, s);
	out = b.oom ? NULL : mcp_buf_new(b.p, b.len);
	gbuf_free(&b);
	return out;
}

/* Content block i of a reply (a tools/call content item, a resources/read
 * contents item, a prompts/get message's content). */
static void add_block(struct unpack *u, size_t i, const cJSON *blk)
{
	const char *type = str_of(blk, "type"), *t;
	const cJSON *res = cJSON_GetObjectItemCaseSensitive(blk, "resource");
	char name[32];

	if (!type && (str_of(blk, "text") || str_of(blk, "blob")) &&
	    str_of(blk, "uri")) {
		res = blk; /* a resources/read item */
		type = "resource";
	}
	if (type && !strcmp(type, "text") && (t = str_of(blk, "text"))) {
		snprintf(name, sizeof name, "%zu.txt", i);
		if (i < MCP_PARTS_MAX)
			add_part(u, name, str_buf(t));
		if (u->ntext++)
			gbuf_add(&u->text, "\n", 1);
		str_add(&u->text, t);
	} else if (i >= MCP_PARTS_MAX) {
		return; /* not a file: see unpack */
	} else if (type && (!strcmp(type, "image") || !strcmp(type, "audio")) &&
		   (t = str_of(blk, "data"))) {
		snprintf(name, sizeof name, "%zu.%s", i,
			 ext_of(str_of(blk, "mimeType"), "bin"));
		add_part(u, name, b64_decode(t));
	} else if (type && !strcmp(type, "resource") && cJSON_IsObject(res)) {
		const char *mime = str_of(res, "mimeType");

		if ((t = str_of(res, "text"))) {
			snprintf(name, sizeof name, "%zu.%s", i,
				 ext_of(mime, "txt"));
			add_part(u, name, str_buf(t));
		} else if ((t = str_of(res, "blob"))) {
			snprintf(name, sizeof name, "%zu.%s", i,
				 ext_of(mime, "bin"));
			add_part(u, name, b64_decode(t));
		}
	} else if (type && !strcmp(type, "resource_link") &&
		   (t = str_of(blk, "uri"))) {
		mcp_buf *b = mcp_buf_new(NULL, strlen(t) + 1);

		snprintf(name, sizeof name, "%zu.uri", i);
		if (b) {
			memcpy(b->data, t, b->len - 1);
			b->data[b->len - 1] = '\n';
		}
		add_part(u, name, b);
	} else {
		snprintf(name, sizeof name, "%zu.json", i);
		add_part(u, name, mcp_buf_json((cJSON *)blk, 1));
	}
}

/* The value of member key of the object at span o of p, parsed (a NUL as
 * C0 80), or NULL. */
static cJSON *member_json(const char *p, struct jscan_span o, const char *key,
			  struct jscan_span *v)
{
	if (!jscan_member(p, o, key, v))
		return NULL;
	return jsent_parse(p + v->at, v->n);
}

/*
 * The reply unpacked block by block: its content blocks are found by
 * structure and parsed one at a time (never the whole reply at once), so
 * what unpacking holds is the parts, and parts are made of the first
 * MCP_PARTS_MAX blocks only; `text` has the text of every block.
 */
static void unpack(struct unpack *u, mcp_session *s, const mcp_buf *reply)
{
	const char *p = reply->data;
	struct jscan_span top = {0, reply->len}, k, v, list = {0, 0};
	struct jscan_members m;
	cJSON *j;
	size_t i = 0, members = 0;
	int msgs = 0;

	while (top.at < top.n && strchr(" \t\r\n", p[top.at]))
		top.at++;
	top.n -= top.at;
	if (!top.n || p[top.at] != '{')
		return;
	jscan_members_init(&m, p, top.at, top.at + top.n);
	while (jscan_members_next(&m, &k, &v))
		members++;
	if (members == 1 && (j = member_json(p, top, "error", &v))) {
		if (cJSON_IsObject(j)) {
			jsent_keep(j, p + v.at, v.n);
			add_part(u, "error", mcp_buf_json(j, 1));
			cJSON_Delete(j);
			return;
		}
		cJSON_Delete(j);
	}
	if (!jscan_member(p, top, "content", &list) &&
	    !jscan_member(p, top, "contents", &list))
		msgs = jscan_member(p, top, "messages", &list);
	if (list.n && p[list.at] == '[') {
		jscan_items_init(&m, p, list.at, list.at + list.n);
		while (jscan_items_next(&m, &v)) {
			cJSON *blk = jsent_parse(p + v.at, v.n);

			add_block(u, i++, msgs ? cJSON_GetObjectItemCaseSensitive(
						   blk, "content") : blk);
			cJSON_Delete(blk);
		}
		if (i > MCP_PARTS_MAX)
			surface_warn(s, "result/: a reply of %zu content blocks "
				     "shows the first %d as files (all are in "
				     "`text` and the reply)", i,
				     MCP_PARTS_MAX);
	}
	if (u->ntext) {
		gbuf_add(&u->text, "\n", 1);
		add_part(u, "text", mcp_buf_new(u->text.p, u->text.len));
	}
	if ((j = member_json(p, top, "structuredContent", &v))) {
		jsent_keep(j, p + v.at, v.n);
		add_part(u, "structured.json", mcp_buf_json(j, 1));
		cJSON_Delete(j);
	}
	if (jscan_member(p, top, "isError", &v) && v.n == 4 &&
	    !memcmp(p + v.at, "true", 4))
		add_part(u, "error", u->ntext ? mcp_buf_new(u->text.p,
							    u->text.len)
					      : str_buf("isError\n"));
}

/* The parts of a session's last reply (mcp_session.res), made at the
 * first read of result/. */
struct result {
	mcp_call *unpacked;      /* the reply they are of */
	struct mcp_part *parts;
	size_t nparts;
};

static void parts_free(struct result *sf)
{
	size_t i;

	for (i = 0; i < sf->nparts; i++)
		mcp_buf_unref(sf->parts[i].data);
	free(sf->parts);
	sf->parts = NULL;
	sf->nparts = 0;
	mcp_call_unref(sf->unpacked);
	sf->unpacked = NULL;
}

void mcp_result(mcp_session *s, const struct mcp_part **parts, size_t *n)
{
	mcp_call *c = s->last_done;
	struct result *sf = s->res;

	if (!sf)
		sf = s->res = calloc(1, sizeof *sf);
	*parts = NULL;
	*n = 0;
	if (!sf)
		return;
	if (c != sf->unpacked) {
		struct unpack u = {0};

		parts_free(sf);
		if (c && c->reply)
			unpack(&u, s, c->reply);
		gbuf_free(&u.text);
		sf->parts = u.v;
		sf->nparts = u.n;
		sf->unpacked = mcp_call_ref(c);
	}
	*parts = sf->parts;
	*n = sf->nparts;
}

void result_free(mcp_session *s)
{
	if (!s->res)
		return;
	parts_free(s->res);
	free(s->res);
	s->res = NULL;
}

mcp_buf *mcp_resource_bytes(const mcp_buf *reply, int *err)
{
	cJSON *r = jsent_parse(reply->data, reply->len);
	cJSON *e = cJSON_GetObjectItemCaseSensitive(r, "error");
	const cJSON *it;
	struct gbuf b = {0};
	const char *t;
	mcp_buf *out = NULL;

	*err = -EIO;
	if (cJSON_IsObject(e)) {
		const cJSON *code = cJSON_GetObjectItemCaseSensitive(e, "code");
		const char *msg = str_of(e, "message");

		/* the spec's code, or the TypeScript SDK's invalid params */
		if (cJSON_IsNumber(code) &&
		    (code->valueint == -32002 ||
		     (code->valueint == -32602 && msg &&
		      strstr(msg, "not found"))))
			*err = -ENOENT;
		cJSON_Delete(r);
		return NULL;
	}
	cJSON_ArrayForEach(it, cJSON_GetObjectItemCaseSensitive(r, "contents")) {
		if ((t = str_of(it, "text"))) {
			str_add(&b, t);
		} else if ((t = str_of(it, "blob"))) {
			mcp_buf *d = b64_decode(t);

			if (d)
				gbuf_add(&b, d->data, d->len);
			mcp_buf_unref(d);
		}
	}
	if (cJSON_IsObject(r) && !b.oom) {
		out = mcp_buf_new(b.p, b.len);
		*err = out ? 0 : -ENOMEM;
	}
	gbuf_free(&b);
	cJSON_Delete(r);
	return out;
}
