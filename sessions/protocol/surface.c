/*
 * surface.c - what the MCP surface files of spec 9 need from a session:
 * the names given out under tools/, resources/ and prompts/ (a number per
 * name for its inode, kept while the session lives), the percent-encoding
 * of names into path components, and the index of a listing's entries.
 * result/ is result.c's.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "ctlesc.h"
#include "gbuf.h"
#include "internal.h"
#include "jscan.h"
#include "jsent.h"
#include "pages.h"

/* The names a session gave out as files and its warnings
 * (mcp_session.sf), made at the first: an idle session has none. */
struct surface {
	struct names names[MCP_NLISTS]; /* names given out */
	cJSON *warnings;                /* what status notes */
};

/* s's surface, made at the first use; NULL when out of memory. */
static struct surface *surface_of(mcp_session *s)
{
	if (!s->sf)
		s->sf = calloc(1, sizeof *s->sf);
	return s->sf;
}

/* ---- names ---- */

long mcp_name_intern(mcp_session *s, enum mcp_list what, const char *name)
{
	struct surface *sf = surface_of(s);

	return sf ? names_intern(&sf->names[what], name) : -ENOMEM;
}

int surface_names_reserve(mcp_session *s, enum mcp_list what, size_t more)
{
	struct surface *sf = surface_of(s);

	return sf ? names_reserve(&sf->names[what], more) : -ENOMEM;
}

const cJSON *surface_warnings(const mcp_session *s)
{
	return s->sf ? s->sf->warnings : NULL;
}

/* FNV-1a, 64 bits: the hash tables', and the tail of a shortened name. */
static uint64_t hash_str(const char *p, uint64_t salt)
{
	uint64_t h = 14695981039346656037ull ^ salt;

	while (*p)
		h = (h ^ (unsigned char)*p++) * 1099511628211ull;
	return h;
}

/* The slot of name in a table of numbers + 1 (0 empty) of size hcap (a
 * power of two), where v names the numbers: its own, or an empty one. */
static size_t slot_of(const unsigned long *hash, size_t hcap, char **v,
		      const char *name)
{
	size_t i = (size_t)hash_str(name, 0) & (hcap - 1);

	while (hash[i] && strcmp(v[hash[i] - 1], name))
		i = (i + 1) & (hcap - 1);
	return i;
}

/* Room for want in a hash of size *hcap holding n: 0 or -ENOMEM. */
static int hash_grow(unsigned long **hash, size_t *hcap, size_t n,
		     size_t want, char **v)
{
	size_t cap = *hcap ? *hcap * 2 : 32, i;
	unsigned long *h;

	if (want * 2 <= *hcap)
		return 0;
	while (want * 2 > cap)
		cap *= 2;
	if (!(h = calloc(cap, sizeof *h)))
		return -ENOMEM;
	for (i = 0; i < n; i++)
		h[slot_of(h, cap, v, v[i])] = i + 1;
	free(*hash);
	*hash = h;
	*hcap = cap;
	return 0;
}

/* The number of name in t, given now if it has none: or -ENOSPC, -ENOMEM. */
long names_intern(struct names *t, const char *name)
{
	size_t i;
	char **v;

	if (t->hcap && t->hash[i = slot_of(t->hash, t->hcap, t->v, name)])
		return (long)t->hash[i] - 1;
	if (t->n >= MCP_NAMES_MAX)
		return -ENOSPC;
	if (!(v = gbuf_grow(t->v, &t->cap, t->n + 1, sizeof *v, 16)))
		return -ENOMEM;
	t->v = v;
	if (hash_grow(&t->hash, &t->hcap, t->n, t->n + 1, t->v) < 0 ||
	    !(t->v[t->n] = strdup(name)))
		return -ENOMEM;
	t->hash[slot_of(t->hash, t->hcap, t->v, name)] = t->n + 1;
	return (long)t->n++;
}

int names_reserve(struct names *t, size_t more)
{
	return hash_grow(&t->hash, &t->hcap, t->n, t->n + more + 1, t->v);
}

const char *mcp_name_at(mcp_session *s, enum mcp_list what, unsigned long i)
{
	return s->sf && i < s->sf->names[what].n ? s->sf->names[what].v[i]
						   : NULL;
}

/* The bytes to percent-encode at p of name: '%', '/', the first dot of
 * "." and "..", and each byte of an unsafe code point (C0, DEL, C1, the
 * bidi controls: lib/ctlesc.h, the one definition text uses too), so
 * that no directory entry can drive a terminal or reorder what ls shows;
 * 0 to copy one byte. */
static size_t needs_escape(const char *name, const unsigned char *p,
			   size_t avail)
{
	size_t n;

	if (*p == '%' || *p == '/')
		return 1;
	if ((n = ctlesc_unsafe_at((const char *)p, avail)))
		return n;
	/* "." and "..": the first dot is escaped */
	return p == (const unsigned char *)name && *p == '.' &&
	       (!p[1] || (p[1] == '.' && !p[2]));
}

char *mcp_name_encode(const char *name)
{
	const unsigned char *p, *end = (const unsigned char *)name +
				       strlen(name);
	char *out = malloc(3 * strlen(name) + 1), *o = out;
	size_t n;

	if (!out)
		return NULL;
	for (p = (const unsigned char *)name; *p; p++) {
		if (p[0] == 0xc0 && p[1] == 0x80) { /* a NUL (jsent.h) */
			o += sprintf(o, "%%00");
			p++;
			continue;
		}
		if (!(n = needs_escape(name, p, (size_t)(end - p)))) {
			*o++ = (char)*p;
			continue;
		}
		for (; n--; p++)
			o += sprintf(o, "%%%02X", *p);
		p--;
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

/* ---- the entries of a listing ---- */

struct lindex {
	struct mcp_entry *v;
	char **nv, **fv;           /* v[i].name, v[i].file: the hashes' keys */
	size_t n, cap;
	unsigned long *byname, *byfile;
	size_t hn, hf;
	int failed;
};

static void lindex_free(struct lindex *x)
{
	size_t i;

	if (!x)
		return;
	for (i = 0; i < x->n; i++) {
		free(x->nv[i]);
		free(x->fv[i]);
	}
	free(x->v);
	free(x->nv);
	free(x->fv);
	free(x->byname);
	free(x->byfile);
	free(x);
}

void surface_warn(mcp_session *s, const char *fmt, ...)
{
	char msg[512];
	const cJSON *it;
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	if (!s) {
		mlog(MLOG_WARN, "%s", msg);
		return;
	}
	if (!surface_of(s) ||
	    (!s->sf->warnings && !(s->sf->warnings = cJSON_CreateArray())))
		return;
	cJSON_ArrayForEach(it, s->sf->warnings)
		if (!strcmp(it->valuestring, msg))
			return;
	mlog(MLOG_WARN, "server %s thread %s: %s", s->srv->conf->name,
	     s->name, msg);
	if (cJSON_GetArraySize(s->sf->warnings) >= 8)
		cJSON_Delete(cJSON_DetachItemFromArray(s->sf->warnings, 0));
	cJSON_AddItemToArray(s->sf->warnings, cJSON_CreateString(msg));
}

/* 1 when the n bytes at p are UTF-8 (RFC 3629: no overlong form, no
 * surrogate, nothing past U+10FFFF). */
static int utf8_ok(const unsigned char *p, size_t n)
{
	size_t i = 0, need, k;
	unsigned long cp;

	while (i < n) {
		if (p[i] < 0x80) {
			i++;
			continue;
		}
		if (p[i] >= 0xc2 && p[i] <= 0xdf)
			need = 1, cp = p[i] & 0x1f;
		else if (p[i] >= 0xe0 && p[i] <= 0xef)
			need = 2, cp = p[i] & 0x0f;
		else if (p[i] >= 0xf0 && p[i] <= 0xf4)
			need = 3, cp = p[i] & 0x07;
		else
			return 0;
		if (n - i <= need)
			return 0;
		for (k = 1; k <= need; k++) {
			if ((p[i + k] & 0xc0) != 0x80)
				return 0;
			cp = cp << 6 | (p[i + k] & 0x3f);
		}
		if ((need == 2 && (cp < 0x800 || (cp >= 0xd800 &&
						  cp <= 0xdfff))) ||
		    (need == 3 && (cp < 0x10000 || cp > 0x10ffff)))
			return 0;
		i += need + 1;
	}
	return 1;
}

/* A hash table for n keys (a power of two, at least twice n). */
static unsigned long *hash_new(size_t n, size_t *hcap)
{
	size_t cap = 32;

	while (cap < 2 * n + 2)
		cap *= 2;
	*hcap = cap;
	return calloc(cap, sizeof(unsigned long));
}

/* file, too long, cut at MCP_FILE_MAX less the tail (not inside a %XX or
 * a UTF-8 sequence), then "~" and the hash of name with salt. */
static char *shorten(const char *file, const char *name, uint64_t salt)
{
	size_t cut = MCP_FILE_MAX - 17;
	char *out = NULL;

	while (cut && ((file[cut] & 0xc0) == 0x80 || file[cut - 1] == '%' ||
		       (cut >= 2 && file[cut - 2] == '%')))
		cut--;
	if (asprintf(&out, "%.*s~%016llx", (int)cut, file,
		     (unsigned long long)hash_str(name, salt)) < 0)
		return NULL;
	return out;
}

/* Entry n of x: its name and file (taken), or -ENOMEM. */
static int lindex_add(struct lindex *x, char *name, char *file,
		      struct jscan_span it)
{
	if (x->n == x->cap) {
		size_t cap = x->cap ? x->cap * 2 : 16;
		struct mcp_entry *v = realloc(x->v, cap * sizeof *v);
		char **nv = v ? realloc(x->nv, cap * sizeof *nv) : NULL;
		char **fv = nv ? (x->nv = nv, realloc(x->fv, cap * sizeof *fv))
			       : NULL;

		if (v)
			x->v = v;
		if (!fv)
			goto oom;
		x->fv = fv;
		x->cap = cap;
	}
	if (hash_grow(&x->byname, &x->hn, x->n, x->n + 1, x->nv) < 0)
		goto oom;
	x->nv[x->n] = name;
	x->fv[x->n] = file;
	x->v[x->n] = (struct mcp_entry){name, file, it.at, it.n};
	x->byname[slot_of(x->byname, x->hn, x->nv, name)] = x->n + 1;
	x->n++;
	return 0;
oom:
	free(name);
	free(file);
	return -ENOMEM;
}

/* The file names of x: each name's own first, then the shortened ones,
 * each unique. */
static int lindex_files(struct lindex *x)
{
	size_t i, k;
	int pass;

	if (!(x->byfile = hash_new(x->n, &x->hf)))
		return -ENOMEM;
	for (pass = 0; pass < 2; pass++)
		for (i = 0; i < x->n; i++) {
			int long_ = strlen(x->fv[i]) > MCP_FILE_MAX;

			if (long_ != pass)
				continue;
			for (k = 0; pass; k++) {
				char *f = shorten(x->fv[i], x->nv[i], k);

				if (!f)
					return -ENOMEM;
				if (!x->byfile[slot_of(x->byfile, x->hf,
						       x->fv, f)]) {
					free(x->fv[i]);
					x->v[i].file = x->fv[i] = f;
					break;
				}
				free(f);
			}
			x->byfile[slot_of(x->byfile, x->hf, x->fv,
					  x->fv[i])] = i + 1;
		}
	return 0;
}

/* The walk of a listing's document that makes its index, a part at a
 * time when the listing is long (pages.c). */
struct lindex_walk {
	struct lindex *x;
	const char *p, *what, *key;
	struct jscan_members m;
	int any;                   /* the document has the array */
	unsigned long bad, dup;
	char first[80];
};

struct lindex_walk *surface_index_begin(mcp_call *c, const mcp_buf *reply)
{
	struct lindex_walk *w = calloc(1, sizeof *w);
	struct jscan_span top = {0, reply->len}, arr = {0, 0};
	const char *p = reply->data;

	if (!w || !(w->x = calloc(1, sizeof *w->x))) {
		free(w);
		return NULL;
	}
	w->p = p;
	w->what = mcp_list_key(c->list);
	w->key = c->list == MCP_RESOURCES ? "uri" : "name";
	if (mcp_call_failed(c)) {
		w->x->failed = 1;
		return w;
	}
	while (top.at < top.n && strchr(" \t\r\n", p[top.at]))
		top.at++;
	top.n -= top.at;
	if (!jscan_member(p, top, w->what, &arr) || p[arr.at] != '[')
		arr.n = 0;
	w->any = arr.n != 0;
	jscan_items_init(&w->m, p, arr.at, arr.at + arr.n);
	return w;
}

void surface_index_drop(struct lindex_walk *w)
{
	if (w)
		lindex_free(w->x);
	free(w);
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

int surface_index_step(struct lindex_walk *w, uint64_t budget)
{
	struct lindex *x = w->x;
	const char *p = w->p;
	uint64_t until = budget ? now_ns() + budget : 0;
	struct jscan_span it, v;
	unsigned k;

	for (k = 0; w->any; k++) {
		cJSON *j;
		char *name, *file;

		if (until && (k & 63) == 63 && now_ns() > until)
			return 0;
		if (!jscan_items_next(&w->m, &it))
			break;
		if (p[it.at] != '{' || !jscan_member(p, it, w->key, &v) ||
		    p[v.at] != '"')
			continue;
		if (!utf8_ok((const unsigned char *)p + v.at, v.n)) {
			w->bad++;
			continue;
		}
		j = jsent_parse(p + v.at, v.n);
		if (!cJSON_IsString(j) || !*j->valuestring) {
			cJSON_Delete(j);
			continue;
		}
		if (x->hn && x->byname[slot_of(x->byname, x->hn, x->nv,
					       j->valuestring)]) {
			if (!w->dup++)
				snprintf(w->first, sizeof w->first, "%s",
					 j->valuestring);
			cJSON_Delete(j);
			continue;
		}
		name = strdup(j->valuestring);
		file = name ? mcp_name_encode(name) : NULL;
		cJSON_Delete(j);
		if (!file || lindex_add(x, name, file, it) < 0) {
			if (!file)
				free(name);
			return -ENOMEM;
		}
	}
	return 1;
}

int surface_index_end(mcp_call *c, struct lindex_walk *w, mcp_session *s)
{
	struct lindex *x = w->x;
	const char *what = w->what, *key = w->key;
	unsigned long bad = w->bad, dup = w->dup;

	if (!x->failed && lindex_files(x) < 0) {
		surface_index_drop(w);
		return -ENOMEM;
	}
	if (bad)
		surface_warn(s, "%s: %lu %s%s that %s not UTF-8 left out", what,
			     bad, key, bad > 1 ? "s" : "", bad > 1 ? "are"
								: "is");
	if (dup)
		surface_warn(s, "%s: %lu duplicate %s%s listed once (the "
			     "first: \"%s\")", what, dup, key,
			     dup > 1 ? "s" : "", w->first);
	if (c->lidx)
		lindex_free(c->lidx);
	c->lidx = x;
	free(w);
	return 0;
}

static struct lindex *lindex_build(mcp_call *c, mcp_session *s)
{
	struct lindex_walk *w = surface_index_begin(c, c->reply);

	if (!w)
		return NULL;
	if (surface_index_step(w, 0) < 0) {
		surface_index_drop(w);
		return NULL;
	}
	return surface_index_end(c, w, s) < 0 ? NULL : c->lidx;
}

static struct lindex *lindex_of(mcp_call *c, mcp_session *s)
{
	if (!c->lidx)
		lindex_build(c, s);
	return c->lidx;
}

int mcp_entries(mcp_call *c, mcp_session *s, const struct mcp_entry **v,
		size_t *n)
{
	struct lindex *x = lindex_of(c, s);

	if (!x)
		return -ENOMEM;
	*v = x->v;
	*n = x->n;
	return x->failed ? -EIO : 0;
}

const struct mcp_entry *mcp_entry_find(mcp_call *c, mcp_session *s,
				       const char *file, int by_name)
{
	struct lindex *x = lindex_of(c, s);
	unsigned long i;

	if (!x || !x->n)
		return NULL;
	i = by_name ? x->byname[slot_of(x->byname, x->hn, x->nv, file)]
		    : x->byfile[slot_of(x->byfile, x->hf, x->fv, file)];
	return i ? &x->v[i - 1] : NULL;
}

/* The listing's entry named name, parsed alone (jsent_parse), or NULL:
 * what policy.c and task.c ask of a tool without parsing a listing of
 * 100,000 tools for each call. */
cJSON *surface_entry_json(mcp_call *listing, mcp_session *s,
			  const char *name)
{
	const struct mcp_entry *e;

	if (!listing || !listing->done || !listing->reply || !name)
		return NULL;
	e = mcp_entry_find(listing, s, name, 1);
	return e ? jsent_parse(listing->reply->data + e->at, e->n) : NULL;
}

void names_free(struct names *t)
{
	unsigned long i;

	for (i = 0; i < t->n; i++)
		free(t->v[i]);
	free(t->v);
	free(t->hash);
	memset(t, 0, sizeof *t);
}

void surface_free(mcp_session *s)
{
	int k;

	if (s->help)
		names_free(s->help);
	free(s->help);
	s->help = NULL;
	if (!s->sf)
		return;
	for (k = 0; k < MCP_NLISTS; k++)
		names_free(&s->sf->names[k]);
	cJSON_Delete(s->sf->warnings);
	free(s->sf);
	s->sf = NULL;
}

void surface_index_free(mcp_call *c)
{
	if (c->lidx)
		lindex_free(c->lidx);
	c->lidx = NULL;
}
