/*
 * surface.c - what the MCP surface files of spec 9 need from a session:
 * the names given out under tools/, resources/ and prompts/ (a number per
 * name for its inode, kept while the session lives), the percent-encoding
 * of names into path components, and result/: the latest completed reply
 * unpacked into its parts, once per reply (base64 decoded here, with a
 * small decoder: the crypto library is loaded only for HTTP servers).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "gbuf.h"
#include "internal.h"
#include "jscan.h"
#include "jsent.h"

/* ---- names ---- */

long mcp_name_intern(mcp_session *s, enum mcp_list what, const char *name)
{
	return names_intern(&s->names[what], name);
}

/* The number of name in t, given now if it has none: or -ENOSPC, -ENOMEM. */
long names_intern(struct names *t, const char *name)
{
	unsigned long i;
	char **v;

	for (i = 0; i < t->n; i++)
		if (!strcmp(t->v[i], name))
			return (long)i;
	if (t->n >= MCP_NAMES_MAX)
		return -ENOSPC;
	if (t->n == t->cap) {
		v = realloc(t->v, (t->cap ? t->cap * 2 : 16) * sizeof *v);
		if (!v)
			return -ENOMEM;
		t->v = v;
		t->cap = t->cap ? t->cap * 2 : 16;
	}
	if (!(t->v[t->n] = strdup(name)))
		return -ENOMEM;
	return (long)t->n++;
}

const char *mcp_name_at(mcp_session *s, enum mcp_list what, unsigned long i)
{
	return i < s->names[what].n ? s->names[what].v[i] : NULL;
}

static int needs_escape(const char *name, const unsigned char *p)
{
	if (*p == '%' || *p == '/' || *p < 0x20 || *p == 0x7f)
		return 1;
	/* "." and "..": the first dot is escaped */
	return p == (const unsigned char *)name && *p == '.' &&
	       (!p[1] || (p[1] == '.' && !p[2]));
}

char *mcp_name_encode(const char *name)
{
	const unsigned char *p;
	char *out = malloc(3 * strlen(name) + 1), *o = out;

	if (!out)
		return NULL;
	for (p = (const unsigned char *)name; *p; p++) {
		if (p[0] == 0xc0 && p[1] == 0x80) { /* a NUL (jsent.h) */
			o += sprintf(o, "%%00");
			p++;
		} else if (needs_escape(name, p))
			o += sprintf(o, "%%%02X", *p);
		else
			*o++ = (char)*p;
	}
	*o = 0;
	return out;
}

char *mcp_name_decode(const char *file)
{
	char *out = malloc(strlen(file) + 1), *o = out;
	const char *p;
	int hi, lo;

	if (!out)
		return NULL;
	for (p = file; *p; p++) {
		if (*p != '%') {
			*o++ = *p;
			continue;
		}
		hi = jscan_hexval((unsigned char)p[1]);
		lo = hi < 0 ? -1 : jscan_hexval((unsigned char)p[2]);
		if (lo < 0) {
			free(out);
			return NULL;
		}
		if (hi == 0 && lo == 0) { /* a NUL, as jsent.h keeps it */
			*o++ = (char)0xc0;
			*o++ = (char)0x80;
		} else {
			*o++ = (char)(hi << 4 | lo);
		}
		p += 2;
	}
	*o = 0;
	return out;
}

/* ---- result/ ---- */

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

static const char *ext_of(const char *mime, const char *dflt)
{
	static const char *const map[][2] = {
		{"image/png", "png"}, {"image/jpeg", "jpg"},
		{"image/jpg", "jpg"}, {"image/gif", "gif"},
		{"image/webp", "webp"}, {"image/svg+xml", "svg"},
		{"audio/wav", "wav"}, {"audio/x-wav", "wav"},
		{"audio/wave", "wav"}, {"audio/mpeg", "mp3"},
		{"audio/mp3", "mp3"}, {"text/plain", "txt"},
		{"text/html", "html"}, {"text/markdown", "md"},
		{"application/json", "json"}, {"application/pdf", "pdf"},
	};
	size_t i, n;

	if (!mime)
		return dflt;
	n = strcspn(mime, "; ");
	for (i = 0; i < sizeof map / sizeof map[0]; i++)
		if (strlen(map[i][0]) == n && !strncasecmp(mime, map[i][0], n))
			return map[i][1];
	return dflt;
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
	if (u->n == u->cap) {
		v = realloc(u->v, (u->cap ? u->cap * 2 : 8) * sizeof *v);
		if (!v) {
			mcp_buf_unref(data);
			return;
		}
		u->v = v;
		u->cap = u->cap ? u->cap * 2 : 8;
	}
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

/* The member key of the reply object, made to print as sent. */
static void keep_member(cJSON *j, const mcp_buf *reply, const char *key)
{
	struct jscan_span top = {0, reply->len}, v;

	while (top.at < reply->len &&
	       strchr(" \t\r\n", reply->data[top.at]))
		top.at++;
	top.n = reply->len - top.at;
	if (j && jscan_member(reply->data, top, key, &v))
		jsent_keep(j, reply->data + v.at, v.n);
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
		add_part(u, name, str_buf(t));
		if (u->ntext++)
			gbuf_add(&u->text, "\n", 1);
		str_add(&u->text, t);
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

static void unpack(struct unpack *u, const mcp_buf *reply)
{
	cJSON *r = jsent_parse(reply->data, reply->len);
	cJSON *err = cJSON_GetObjectItemCaseSensitive(r, "error");
	const cJSON *list, *it;
	size_t i = 0;

	if (!cJSON_IsObject(r)) {
		cJSON_Delete(r);
		return;
	}
	if (cJSON_IsObject(err) && cJSON_GetArraySize(r) == 1) {
		keep_member(err, reply, "error");
		add_part(u, "error", mcp_buf_json(err, 1));
		cJSON_Delete(r);
		return;
	}
	if ((list = cJSON_GetObjectItemCaseSensitive(r, "content")) ||
	    (list = cJSON_GetObjectItemCaseSensitive(r, "contents"))) {
		cJSON_ArrayForEach(it, list)
			add_block(u, i++, it);
	} else if ((list = cJSON_GetObjectItemCaseSensitive(r, "messages"))) {
		cJSON_ArrayForEach(it, list)
			add_block(u, i++, cJSON_GetObjectItemCaseSensitive(
						  it, "content"));
	}
	if (u->ntext) {
		gbuf_add(&u->text, "\n", 1);
		add_part(u, "text", mcp_buf_new(u->text.p, u->text.len));
	}
	if ((it = cJSON_GetObjectItemCaseSensitive(r, "structuredContent"))) {
		keep_member((cJSON *)it, reply, "structuredContent");
		add_part(u, "structured.json", mcp_buf_json((cJSON *)it, 1));
	}
	if (cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(r, "isError")))
		add_part(u, "error", u->ntext ? mcp_buf_new(u->text.p,
							    u->text.len)
					      : str_buf("isError\n"));
	cJSON_Delete(r);
}

static void parts_free(mcp_session *s)
{
	size_t i;

	for (i = 0; i < s->nparts; i++)
		mcp_buf_unref(s->parts[i].data);
	free(s->parts);
	s->parts = NULL;
	s->nparts = 0;
	mcp_call_unref(s->unpacked);
	s->unpacked = NULL;
}

void mcp_result(mcp_session *s, const struct mcp_part **parts, size_t *n)
{
	mcp_call *c = s->last_done;

	if (c != s->unpacked) {
		struct unpack u = {0};

		parts_free(s);
		if (c && c->reply)
			unpack(&u, c->reply);
		gbuf_free(&u.text);
		s->parts = u.v;
		s->nparts = u.n;
		s->unpacked = mcp_call_ref(c);
	}
	*parts = s->parts;
	*n = s->nparts;
}

void names_free(struct names *t)
{
	unsigned long i;

	for (i = 0; i < t->n; i++)
		free(t->v[i]);
	free(t->v);
	memset(t, 0, sizeof *t);
}

void surface_free(mcp_session *s)
{
	int k;

	for (k = 0; k < MCP_NLISTS; k++)
		names_free(&s->names[k]);
	names_free(&s->help);
	parts_free(s);
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
