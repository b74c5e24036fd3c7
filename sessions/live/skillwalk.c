/*
 * skillwalk.c - a skills listing's tree made from its pages (skills.c's
 * top comment says what it holds): each skill entry taken (phase 0), the
 * folder names given once all are known, then each file of each skill
 * (phase 1), a step at a time: pages.c runs the steps a slice at a time
 * before the listing completes. The pages are the server's text, read by
 * structure (jscan.h) as untrusted: never past their end.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ctlesc.h"
#include "gbuf.h"
#include "jscan.h"
#include "jsent.h"
#include "pages.h"
#include "skilltree.h"

#define SKILL_NAME_MAX 64        /* the Agent Skills rules */
#define SKILL_SEGMENT_MAX 255    /* NAME_MAX */
#define SKILL_PATH_MAX 3072      /* a file below its skill, with its
				  * folder still short of PATH_MAX */
#define SKILL_DEPTH_MAX 64       /* its segments */
#define SLICE_CHECK 63           /* steps between two looks at the time */
/* the shortest text of a file: {"uri":"","digest":"sha256:64 hex",
 * "size":0}, less its uri */
#define FILE_BYTES_MIN 96

/* ---- names ---- */

/* 1 when name keeps the Agent Skills rules for a skill's name. */
static int name_valid(const char *name)
{
	size_t i, n = strlen(name);

	if (!n || n > SKILL_NAME_MAX || name[0] == '-' || name[n - 1] == '-')
		return 0;
	for (i = 0; i < n; i++)
		if (!((name[i] >= 'a' && name[i] <= 'z') ||
		      (name[i] >= '0' && name[i] <= '9') ||
		      (name[i] == '-' && name[i + 1] != '-')))
			return 0;
	return 1;
}

/* The length of the unsafe code point at p (lib/ctlesc.h's: a control,
 * C1, a bidirectional control; the NUL, also as the C0 80 that jsent.h
 * keeps), or 0. */
static size_t control_at(const unsigned char *p)
{
	if (!p[0])
		return 1;
	if (p[0] == 0xc0 && p[1] == 0x80)
		return 2;
	return ctlesc_unsafe_at((const char *)p, strnlen((const char *)p, 4));
}

/* The folder of a skill without a name of its own: its skill path (root
 * past "scheme://"), '/' as '.', '%' and controls percent-encoded (the
 * NUL as %00), a first '.' of "." or ".." too. NULL: ENOMEM. */
static char *path_name(const char *root)
{
	const char *at = strstr(root, "://");
	const unsigned char *p = (const unsigned char *)(at ? at + 3 : root);
	struct gbuf b = {0};
	size_t k, i;

	for (; *p; p += k ? k : 1) {
		k = control_at(p);
		if (p[0] == 0xc0 && k == 2)
			gbuf_puts(&b, "%00");
		else
			for (i = 0; i < k; i++)
				gbuf_printf(&b, "%%%02X", p[i]);
		if (k)
			continue;
		if (*p == '/')
			gbuf_add(&b, ".", 1);
		else if (*p == '%' || (*p == '.' && !b.len &&
				       (!p[1] || (p[1] == '.' && !p[2]))))
			gbuf_printf(&b, "%%%02X", *p);
		else
			gbuf_add(&b, p, 1);
	}
	if (!b.len)
		gbuf_puts(&b, "%2F"); /* "scheme:///SKILL.md" */
	return gbuf_take(&b);
}

/* want cut to fit MCP_FILE_MAX with its tail, "~" and the hash of uri
 * with salt (not inside a %XX or a UTF-8 sequence). */
static char *shorten(const char *want, const char *uri, uint64_t salt)
{
	size_t cut = strlen(want), max = MCP_FILE_MAX - 17;
	char *out = NULL;

	if (cut > max)
		cut = max;
	while (cut && ((want[cut] & 0xc0) == 0x80 || want[cut - 1] == '%' ||
		       (cut >= 2 && want[cut - 2] == '%')))
		cut--;
	if (asprintf(&out, "%.*s~%016llx", (int)cut, want,
		     (unsigned long long)skill_hash(uri, strlen(uri), salt)) < 0)
		return NULL;
	return out;
}

/* ---- the walk of a listing's document ---- */

static size_t skip_ws(const char *p, size_t i, size_t end)
{
	while (i < end && (p[i] == ' ' || p[i] == '\t' || p[i] == '\r' ||
			   p[i] == '\n'))
		i++;
	return i;
}

/* internal.h; pages.c's too */
int member_start(const char *p, struct jscan_span obj, const char *key,
		 size_t *at)
{
	size_t i = obj.at, end = obj.at + obj.n, e;
	struct jscan_span k;

	if (i >= end || p[i] != '{')
		return 0;
	for (i = skip_ws(p, i + 1, end); i < end && p[i] == '"';) {
		if (!(e = jscan_string_end(p, i, end)))
			return 0;
		k.at = i;
		k.n = e - i;
		i = skip_ws(p, e, end);
		if (i >= end || p[i] != ':')
			return 0;
		i = skip_ws(p, i + 1, end);
		if (i < end && jscan_str_is(p, k, key)) {
			*at = i;
			return 1;
		}
		if (i >= end || (e = jscan_value_end(p, i, end)) <= i)
			return 0;
		i = skip_ws(p, e, end);
		if (i >= end || p[i] != ',')
			return 0;
		i = skip_ws(p, i + 1, end);
	}
	return 0;
}

enum { RES_LIST, RES_DYNAMIC };

struct skill {
	char *uri, *root, *name, *folder;
	cJSON *fm;            /* its frontmatter, for its SKILL.md's node */
	struct jscan_span res;
	size_t page;          /* res is in that page */
	int kind;
	long node;            /* its folder */
};

/* a page of the listing: its text, and where its items are (each one's
 * span when its read found them: items, malloc'd) */
struct spage {
	mcp_buf *b;
	struct jscan_span arr;
	struct jscan_span *items;
	size_t nitems;
};

struct skills_walk {
	struct stree *t;
	struct spage *pv;
	size_t pn, pcap, pi;  /* ... pi: the page being read */
	size_t ii;            /* ... its next item (of its items) */
	const char *p;        /* its text */
	struct jscan_members m; /* the skills still to take, then the files
				 * of skill at */
	struct skill *sv;
	size_t sn, scap, at;
	int phase;            /* 0 skills, 1 files, 2 done */
	/* what was left out, for the warnings at the end */
	unsigned long bad_skill, no_digest, bad_path, twice, full;
	char first[3][120];
};

static void note(char *first, size_t size, const char *what)
{
	if (!first[0])
		snprintf(first, size, "%s", what);
}

/* The string member key of the object at span o, decoded (malloc'd), or
 * NULL (none, no string, or ENOMEM: *oom). */
static char *string_of(const char *p, struct jscan_span o, const char *key,
		       int *oom)
{
	struct jscan_span v;
	char *out = NULL;

	if (p[o.at] != '{' || !jscan_member(p, o, key, &v) || p[v.at] != '"')
		return NULL;
	if (jsent_unquote(p + v.at, v.n, &out) < 0)
		*oom = 1;
	return out;
}

static void skill_free(struct skill *k)
{
	free(k->uri);
	free(k->root);
	free(k->name);
	cJSON_Delete(k->fm);
}

/* One skill entry at span e: kept in w->sv, or counted as left out. */
static int take_skill(struct skills_walk *w, struct jscan_span e)
{
	struct skill k = {.kind = -1};
	struct jscan_span fm;
	const char *slash;
	size_t n, ra, end = e.at + e.n;
	int oom = 0, bad_fm = 0;

	k.uri = string_of(w->p, e, "uri", &oom);
	n = k.uri ? strlen(k.uri) : 0;
	if (n > 9 && !strcmp(k.uri + n - 9, "/SKILL.md") &&
	    !(k.root = strndup(k.uri, n - 9)))
		oom = 1;
	if (w->p[e.at] == '{' && jscan_member(w->p, e, "frontmatter", &fm)) {
		k.name = string_of(w->p, fm, "name", &oom);
		/* NULL past cJSON's nesting limit too: left out below */
		k.fm = jsent_parse(w->p + fm.at, fm.n);
		bad_fm = !k.fm;
	}
	if (!k.name && k.root && !oom) { /* the SEP makes them equal */
		slash = strrchr(k.root, '/');
		oom = !(k.name = strdup(slash ? slash + 1 : k.root));
	}
	/* where its files start: their end is found as they are taken
	 * (one skill's 100,000 files are 15 MB, once is enough) */
	if (k.root && w->p[e.at] == '{' &&
	    member_start(w->p, e, "resources", &ra)) {
		k.res.at = ra;
		k.res.n = end - ra;
		if (w->p[ra] == '[')
			k.kind = RES_LIST;
		else if ((n = jscan_value_end(w->p, ra, end)) > ra &&
			 jscan_str_is(w->p, (struct jscan_span){ra, n - ra},
				      "dynamic"))
			k.kind = RES_DYNAMIC;
	}
	if (bad_fm)
		k.kind = -1;
	if (!oom && k.kind < 0) {
		w->bad_skill++;
		note(w->first[0], sizeof w->first[0],
		     k.uri ? k.uri : "(no uri)");
		skill_free(&k);
		return 0;
	}
	if (!oom) {
		struct skill *v = gbuf_grow(w->sv, &w->scap, w->sn + 1,
					    sizeof *v, 16);

		if (v)
			w->sv = v;
		oom = !v;
	}
	if (oom) {
		skill_free(&k);
		return -ENOMEM;
	}
	k.page = w->pi;
	w->sv[w->sn++] = k;
	return 0;
}

/* 1 for each skill of w whose name another skill has too (malloc'd
 * flags), by a hash of the names; NULL: ENOMEM. */
static char *shared_names(const struct skills_walk *w)
{
	size_t cap = 32, i, h;
	long *slot;
	char *shared = calloc(w->sn + 1, 1);

	while (cap < 2 * w->sn + 2)
		cap *= 2;
	if (!shared || !(slot = calloc(cap, sizeof *slot))) {
		free(shared);
		return NULL;
	}
	for (i = 0; i < w->sn; i++) {
		const char *name = w->sv[i].name;

		h = (size_t)skill_hash(name, strlen(name), 0) & (cap - 1);
		while (slot[h] && strcmp(w->sv[slot[h] - 1].name, name))
			h = (h + 1) & (cap - 1);
		if (slot[h])
			shared[i] = shared[slot[h] - 1] = 1;
		else
			slot[h] = (long)i + 1;
	}
	free(slot);
	return shared;
}

/* Each skill's folder: its name when valid and its own, else its path
 * name, cut and made unique as needed (the top comment). The tree and the
 * session's names get room first for as many nodes as the listing can
 * hold (a file is at least FILE_BYTES_MIN of its text; as many folders
 * again), so that neither grows in one long turn. */
static int name_skills(struct skills_walk *w)
{
	struct stree *t = w->t;
	char *shared = shared_names(w), *want, *f;
	size_t i, est = w->sn;
	uint64_t salt;
	int pass;

	for (i = 0; i < w->sn; i++)
		est += 2 * (w->sv[i].res.n / FILE_BYTES_MIN);
	if (est > SKILL_NODES_MAX)
		est = SKILL_NODES_MAX;
	if (!shared || stree_reserve(t, est) < 0 ||
	    (t->s && surface_names_reserve(t->s, MCP_SKILLS, est) < 0)) {
		free(shared);
		return -ENOMEM;
	}
	for (pass = 0; pass < 2; pass++)
		for (i = 0; i < w->sn; i++) {
			struct skill *k = &w->sv[i];
			int own = !shared[i] && name_valid(k->name);

			if (own != !pass)
				continue;
			if (own) {
				want = strdup(k->name);
				f = want ? strdup(want) : NULL;
			} else {
				want = path_name(k->root);
				f = want && strlen(want) <= MCP_FILE_MAX
					    ? strdup(want) : NULL;
			}
			for (salt = 0; want && (!f || stree_at(t, f,
						strlen(f)) >= 0); salt++) {
				free(f);
				f = shorten(want, k->uri, salt);
				if (!f)
					break;
			}
			free(want);
			k->node = f ? stree_add(t, f, strlen(f), -1, 1)
				    : -ENOMEM;
			free(f);
			if (k->node < 0) {
				free(shared);
				return (int)k->node;
			}
			k->folder = t->v[k->node].path;
		}
	free(shared);
	return 0;
}

/* 1 when the n bytes at p can be a segment of a file's path here. */
static int segment_ok(const char *p, size_t n)
{
	size_t i;

	if (!n || n > SKILL_SEGMENT_MAX || (n == 1 && p[0] == '.') ||
	    (n == 2 && !memcmp(p, "..", 2)))
		return 0;
	for (i = 0; i < n; i++)
		if (p[i] == '/' || control_at((const unsigned char *)p + i))
			return 0;
	return 1;
}

static int rel_ok(const char *rel)
{
	const char *slash;
	unsigned depth = 0;

	if (strlen(rel) > SKILL_PATH_MAX)
		return 0;
	for (;; depth++) {
		if (depth >= SKILL_DEPTH_MAX)
			return 0;
		slash = strchr(rel, '/');
		if (!segment_ok(rel, slash ? (size_t)(slash - rel)
					   : strlen(rel)))
			return 0;
		if (!slash)
			return 1;
		rel = slash + 1;
	}
}

/* "sha256:" and 64 hex digits at the n bytes of s, into sha. */
static int digest_of(const char *s, unsigned char sha[32])
{
	int i, hi, lo;

	if (strncmp(s, "sha256:", 7) || strlen(s) != 7 + 64)
		return 0;
	for (i = 0; i < 32; i++) {
		hi = jscan_hexval((unsigned char)s[7 + 2 * i]);
		lo = jscan_hexval((unsigned char)s[8 + 2 * i]);
		if (hi < 0 || lo < 0)
			return 0;
		sha[i] = (unsigned char)(hi << 4 | lo);
	}
	return 1;
}

/* The size member of the file at o: a whole number of bytes, or -1. */
static long long size_of(const char *p, struct jscan_span o)
{
	struct jscan_span v;
	long long n = 0;
	size_t i;

	if (!jscan_member(p, o, "size", &v) || v.n > 15)
		return -1;
	for (i = 0; i < v.n; i++) {
		if (p[v.at + i] < '0' || p[v.at + i] > '9')
			return -1;
		n = n * 10 + (p[v.at + i] - '0');
	}
	return v.n ? n : -1;
}

/* A file of skill k: the file at path (n bytes) with uri; digest NULL for
 * a dynamic SKILL.md. 0, or -ENOMEM (other failures are counted). */
static int add_file(struct skills_walk *w, const char *path, size_t n,
		    char *uri, const unsigned char *sha, long long size)
{
	struct stree *t = w->t;
	const char *slash = memrchr(path, '/', n);
	long up = stree_folder(t, path, (size_t)(slash - path)), k;

	if (up >= 0 && stree_at(t, path, n) >= 0)
		up = -EEXIST;
	k = up < 0 ? up : stree_add(t, path, n, up, 0);
	if (k == -ENOMEM) {
		free(uri);
		return -ENOMEM;
	}
	if (k < 0) {
		if (k == -ENOSPC)
			w->full++;
		else if (!w->twice++)
			note(w->first[2], sizeof w->first[2], path);
		free(uri);
		return 0;
	}
	t->v[k].uri = uri;
	t->v[k].size = size;
	if ((t->v[k].has_digest = sha != NULL))
		memcpy(t->v[k].sha, sha, 32);
	return 0;
}

/* The file at span o of skill k (a RES_LIST one). */
static int take_file(struct skills_walk *w, struct skill *k,
		     struct jscan_span o)
{
	size_t rn = strlen(k->root);
	unsigned char sha[32];
	char *uri, *digest, *path = NULL;
	long long size;
	int oom = 0, r;

	if (w->p[o.at] != '{')
		return 0;
	uri = string_of(w->p, o, "uri", &oom);
	digest = string_of(w->p, o, "digest", &oom);
	size = size_of(w->p, o);
	if (oom) {
		free(uri);
		free(digest);
		return -ENOMEM;
	}
	if (!digest || !digest_of(digest, sha) || size < 0) {
		if (!w->no_digest++)
			note(w->first[1], sizeof w->first[1],
			     uri ? uri : "(no uri)");
		r = 0;
	} else if (!uri || strncmp(uri, k->root, rn) || uri[rn] != '/' ||
		   !rel_ok(uri + rn + 1)) {
		if (!w->bad_path++)
			note(w->first[2], sizeof w->first[2],
			     uri ? uri : "(no uri)");
		r = 0;
	} else if (asprintf(&path, "%s/%s", k->folder, uri + rn + 1) < 0) {
		r = -ENOMEM;
	} else {
		int md = !strcmp(uri, k->uri);
		long at;

		r = add_file(w, path, strlen(path), uri, sha, size);
		uri = NULL; /* taken */
		at = md && k->fm ? stree_at(w->t, path, strlen(path)) : -1;
		if (r == 0 && at >= 0 && !w->t->v[at].fm &&
		    !strcmp(w->t->v[at].uri, k->uri)) {
			w->t->v[at].fm = k->fm; /* its SKILL.md: checked */
			k->fm = NULL;
		}
	}
	free(uri);
	free(digest);
	free(path);
	return r;
}

static void walk_free(struct skills_walk *w)
{
	size_t i;

	for (i = 0; w && i < w->sn; i++)
		skill_free(&w->sv[i]);
	for (i = 0; w && i < w->pn; i++) {
		mcp_buf_unref(w->pv[i].b);
		free(w->pv[i].items);
	}
	if (w) {
		free(w->sv);
		free(w->pv);
		stree_free(w->t);
	}
	free(w);
}

static struct skills_walk *walk_new(void)
{
	struct skills_walk *w = calloc(1, sizeof *w);

	if (!w || !(w->t = calloc(1, sizeof *w->t))) {
		free(w);
		return NULL;
	}
	w->t->first = w->t->last = -1;
	return w;
}

/* Page b of w, its items at arr (a '['), each at items if known (taken):
 * kept (a reference). */
static int walk_add(struct skills_walk *w, mcp_buf *b, struct jscan_span arr,
		    struct jscan_span *items, size_t nitems)
{
	struct spage *v = gbuf_grow(w->pv, &w->pcap, w->pn + 1, sizeof *v, 8);

	if (!v) {
		free(items);
		return -ENOMEM;
	}
	w->pv = v;
	w->pv[w->pn].b = mcp_buf_ref(b);
	w->pv[w->pn].items = items;
	w->pv[w->pn].nitems = nitems;
	w->pv[w->pn++].arr = arr;
	return 0;
}

int skills_page(mcp_call *c, mcp_buf *b, size_t at, size_t n,
		struct jscan_span *items, size_t nitems)
{
	struct jscan_span arr = {at, n};

	if (!c->skw && !(c->skw = walk_new())) {
		free(items);
		return -ENOMEM;
	}
	return walk_add(c->skw, b, arr, items, nitems);
}

void skills_release(mcp_call *c)
{
	if (c->skills)
		stree_free(c->skills);
	if (c->skw)
		walk_free(c->skw);
	c->skills = NULL;
	c->skw = NULL;
}

void skills_drop(struct skills_walk *w)
{
	walk_free(w);
}

/* The first page of w to read (phase 0), from page i on. */
static void page_from(struct skills_walk *w, size_t i)
{
	w->pi = i;
	if (i >= w->pn) {
		w->p = NULL;
		return;
	}
	w->p = w->pv[i].b->data;
	w->ii = 0;
	jscan_items_init(&w->m, w->p, w->pv[i].arr.at,
			 w->pv[i].arr.at + w->pv[i].arr.n);
}

/* The next skill entry of the page being read in *v: 1, or 0 after its
 * last. */
static int next_entry(struct skills_walk *w, struct jscan_span *v)
{
	const struct spage *pg = &w->pv[w->pi];

	if (!pg->items)
		return jscan_items_next(&w->m, v);
	if (w->ii >= pg->nitems)
		return 0;
	*v = pg->items[w->ii++];
	return 1;
}

/* A walk of the skills of doc (a document {"skills": [...]}), or NULL. */
static struct skills_walk *walk_of(const mcp_buf *doc)
{
	struct skills_walk *w = walk_new();
	struct jscan_span top = {0, doc->len}, arr = {0, 0};
	const char *p = doc->data;

	if (!w)
		return NULL;
	while (top.at < top.n && strchr(" \t\r\n", p[top.at]))
		top.at++;
	top.n -= top.at;
	if (p[top.at] == '{' && jscan_member(p, top, "skills", &arr) &&
	    p[arr.at] == '[' && walk_add(w, (mcp_buf *)doc, arr, NULL, 0) < 0) {
		walk_free(w);
		return NULL;
	}
	return w;
}

struct skills_walk *skills_take(mcp_call *c, mcp_session *s)
{
	struct skills_walk *w = c->skw;

	c->skw = NULL;
	if (!w && !(w = walk_new()))
		return NULL;
	w->t->s = s;
	page_from(w, 0);
	return w;
}

/* The files of skill k begin: a dynamic one's SKILL.md now. */
static int skill_files(struct skills_walk *w, struct skill *k)
{
	char *path = NULL, *uri;
	int r;

	if (k->kind == RES_LIST) {
		w->p = w->pv[k->page].b->data;
		jscan_items_init(&w->m, w->p, k->res.at, k->res.at + k->res.n);
		return 1;
	}
	if (asprintf(&path, "%s/SKILL.md", k->folder) < 0)
		return -ENOMEM;
	uri = strdup(k->uri);
	r = uri ? add_file(w, path, strlen(path), uri, NULL, -1) : -ENOMEM;
	free(path);
	return r;
}

int skills_step(struct skills_walk *w, uint64_t budget)
{
	uint64_t until = budget ? uv_hrtime() + budget : 0;
	struct jscan_span v;
	unsigned k;
	int r;

	for (k = 0; w->phase < 2; k++) {
		if (until && (k & SLICE_CHECK) == SLICE_CHECK &&
		    uv_hrtime() > until)
			return 0;
		if (w->phase == 0) {
			if (w->p && next_entry(w, &v)) {
				if ((r = take_skill(w, v)) < 0)
					return r;
				continue;
			}
			if (w->pi < w->pn) {
				page_from(w, w->pi + 1);
				continue;
			}
			if ((r = name_skills(w)) < 0)
				return r;
			w->phase = 1;
			w->at = 0;
			if (w->sn && (r = skill_files(w, &w->sv[0])) < 0)
				return r;
			if (!w->sn)
				w->phase = 2;
			continue;
		}
		/* the files of w->sv[w->at] (RES_LIST: the items of m) */
		if (w->sv[w->at].kind == RES_LIST &&
		    jscan_items_next(&w->m, &v)) {
			if ((r = take_file(w, &w->sv[w->at], v)) < 0)
				return r;
			continue;
		}
		if (++w->at == w->sn) {
			w->phase = 2;
			break;
		}
		if ((r = skill_files(w, &w->sv[w->at])) < 0)
			return r;
	}
	return 1;
}

void skills_end(mcp_call *c, struct skills_walk *w, mcp_session *s)
{
	if (w->bad_skill)
		surface_warn(s, "skills: %lu entr%s left out (its uri is no "
			     "SKILL.md, or its resources neither a list nor "
			     "\"dynamic\"; the first: %.100s)", w->bad_skill,
			     w->bad_skill > 1 ? "ies" : "y", w->first[0]);
	if (w->no_digest)
		surface_warn(s, "skills: %lu file%s without a sha256 digest "
			     "and size left out (never shown unverified; the "
			     "first: %.100s)", w->no_digest,
			     w->no_digest > 1 ? "s" : "", w->first[1]);
	if (w->bad_path || w->twice)
		surface_warn(s, "skills: %lu file%s left out (not under "
			     "its skill, no path mcpfs can show, or listed "
			     "twice; the first: %.100s)",
			     w->bad_path + w->twice,
			     w->bad_path + w->twice > 1 ? "s" : "",
			     w->first[2]);
	if (w->full)
		surface_warn(s, "skills: %lu file%s left out past %u files "
			     "and folders (the limit)", w->full,
			     w->full > 1 ? "s" : "", SKILL_NODES_MAX);
	if (c->skills)
		stree_free(c->skills);
	w->t->s = NULL;
	c->skills = w->t;
	w->t = NULL;
	walk_free(w);
}

/* The tree of listing (done) of s: made in slices before it completed
 * (pages.c), or now. */

struct stree *skills_build(mcp_call *listing, mcp_session *s)
{
	const mcp_buf *b = mcp_call_reply(listing);
	struct skills_walk *w = b ? walk_of(b) : NULL;

	if (!w)
		return NULL;
	w->t->s = s;
	page_from(w, 0);
	if (skills_step(w, 0) < 0) {
		walk_free(w);
		return NULL;
	}
	skills_end(listing, w, s);
	return listing->skills;
}
