/*
 * pages.c - listing pages (tools, resources, templates, prompts): the items
 * gathered until there is no nextCursor, then printed as one document.
 * Each item is kept as the server sent it (jsent.h), page by page, so that
 * the listing prints every number and string of every page as it came; the
 * tool policy (policy_filter) and the modern era's filter of tools
 * (era_filter_tools) look at an item before.
 *
 * Servers as they are (spec 9): a listing ends with what it has, and a
 * note in status (session_list_note), when the server answers a page with
 * an error (the first page: the list is "none"), repeats a cursor, or
 * passes LIST_MAX_PAGES pages or LIST_MAX_ITEMS items.
 *
 * The loop is never busy for long (spec 6): a long page (FAST_REPLY_MIN
 * and up, found by inbound.c's scan of the reply's structure) is read item
 * by item, and a long listing printed item by item, a slice of at most
 * SLICE_NS at a time from an idle handle, so that the other sessions'
 * files answer in between. A page of 100,000 tools was one turn of the
 * loop of about 2 s, every other thread's `status` waiting behind it.
 *
 * A skills listing is neither parsed nor printed: each page is kept as it
 * came (a long one in the very block it was read into) and its items
 * only counted, and its tree (live/skills.c) is made from the pages, a
 * slice at a time, before the listing completes; its reply is only the
 * count. One skill of 100,000 files is one item of 15 MB: its parse and
 * its print were a second each on the loop.
 */
#include <stdlib.h>
#include <string.h>

#include "era.h"
#include "bigmem.h"
#include "gbuf.h"
#include "internal.h"
#include "jscan.h"
#include "jsent.h"
#include "pages.h"
#include "policy.h"

#define LIST_MAX_PAGES 1000
#define LIST_MAX_ITEMS 100000
#define SLICE_NS (4 * 1000 * 1000ULL) /* one slice of a long listing */
/* ... of a skills tree: a tree of 100,000 files is a hundred slices, and
 * each FUSE request of another thread (a `cat status` is five) waits for
 * the one under way */
#define SKILLS_SLICE_NS (2 * 1000 * 1000ULL)
#define PRINT_SLICED 2048             /* items and up: printed in slices */
#define WALK_PART (1 << 20)           /* bytes of an item walked at once */

/* A listing call's pages (mcp_call.pg), made at its first page. */
struct pages {
	cJSON *acc;              /* its items so far */
	struct pagejob *job;     /* a long page or print under way */
	unsigned n;              /* how many pages */
	cJSON *cursors;          /* the cursors asked for */
};

/* c's pages, made at the first; NULL when out of memory. */
static struct pages *pages_of(mcp_call *c)
{
	if (!c->pg)
		c->pg = calloc(1, sizeof *c->pg);
	return c->pg;
}

int pages_busy(const mcp_call *c)
{
	return c->pg && c->pg->job;
}

void pages_release(mcp_call *c)
{
	if (!c->pg)
		return;
	cJSON_Delete(c->pg->acc);
	cJSON_Delete(c->pg->cursors);
	free(c->pg);
	c->pg = NULL;
}

static size_t skip_ws(const char *p, size_t i, size_t end)
{
	while (i < end && (p[i] == ' ' || p[i] == '\t' || p[i] == '\r' ||
			   p[i] == '\n'))
		i++;
	return i;
}

void session_list_note(mcp_session *s, const mcp_call *c, const cJSON *err,
		       const char *why)
{
	const char *method = msg_list_method(c->list);
	cJSON *n = cJSON_CreateObject();
	cJSON *code = cJSON_GetObjectItemCaseSensitive(err, "code");
	cJSON *msg = cJSON_GetObjectItemCaseSensitive(err, "message");
	unsigned pages = c->pg ? c->pg->n : 0;
	int none = err && pages == 0;
	char line[160];

	if (err) {
		snprintf(line, sizeof line, "page %u: error %d%s%.100s",
			 pages + 1, cJSON_IsNumber(code) ? code->valueint
							    : 0,
			 cJSON_IsString(msg) ? ": " : "",
			 cJSON_IsString(msg) ? msg->valuestring : "");
		why = line;
	}
	cJSON_AddStringToObject(n, "kind", none ? "unsupported" : "partial");
	if (err)
		cJSON_AddItemToObject(n, "error", cJSON_Duplicate(err, 1));
	if (!none) {
		cJSON_AddStringToObject(n, "reason", why);
		cJSON_AddNumberToObject(n, "pages", pages);
		cJSON_AddNumberToObject(n, "items", c->pg ?
					cJSON_GetArraySize(c->pg->acc) : 0);
	}
	list_note_set(s, c->list, n);
	mlog(MLOG_INFO, "server %s thread %s: %s %s: %s", s->srv->conf->name,
	     s->oneshot ? "(one-shot)" : s->name, method, none
	     ? "taken as none" : "ends short", why);
}

/* ---- a long page or listing, a slice at a time ---- */

struct pagejob {
	uv_idle_t idle;
	mcp_call *c;             /* a reference; its pages' job is this */
	char *mem;               /* the page's line (reading), owned ... */
	int big;                 /* ... a bigmem block or malloc'd */
	const char *line;
	size_t len;
	struct jscan_span res;   /* its result */
	struct jscan_members it; /* its items still to take */
	size_t wat, wi;          /* ... the one being walked: its start, */
	int depth, walking;      /* ... where the walk is, how deep */
	cJSON *next;             /* printing: the next item of acc */
	size_t printed;          /* ... how many are */
	struct gbuf out;         /* ... the document so far */
	mcp_buf *doc;            /* indexing: the document, then its reply */
	struct lindex_walk *walk; /* ... the walk */
	struct skills_walk *sk;  /* ... of a skills listing: its tree's */
	struct jscan_span arr;   /* reading: the page's items */
	struct jscan_span *items; /* ... a skills page: where each is */
	size_t nitems, icap;
};

static void job_closed(uv_handle_t *h)
{
	struct pagejob *j = h->data;

	gbuf_free(&j->out);
	surface_index_drop(j->walk);
	skills_drop(j->sk);
	mcp_buf_unref(j->doc);
	free(j->items);
	free(j);
}

static void job_end(struct pagejob *j)
{
	if (j->mem && j->big)
		bigmem_free(j->mem);
	else
		free(j->mem);
	j->mem = NULL;
	j->c->pg->job = NULL;
	mcp_call_unref(j->c);
	uv_idle_stop(&j->idle);
	uv_close((uv_handle_t *)&j->idle, job_closed);
}

static struct pagejob *job_new(mcp_call *c, uv_idle_cb cb)
{
	struct pagejob *j;

	if (!pages_of(c) || !(j = calloc(1, sizeof *j)))
		return NULL;
	uv_idle_init(process.loop, &j->idle);
	j->idle.data = j;
	j->c = mcp_call_ref(c);
	c->pg->job = j;
	uv_idle_start(&j->idle, cb);
	return j;
}

static void index_slice(uv_idle_t *h)
{
	struct pagejob *j = h->data;
	mcp_call *c = j->c;
	mcp_buf *b = j->doc;
	int r;

	if (c->done) {
		job_end(j);
		return;
	}
	r = surface_index_step(j->walk, SLICE_NS);
	if (r == 0)
		return;
	if (r < 0 || surface_index_end(c, j->walk, c->s->oneshot ? NULL
								  : c->s) < 0)
		surface_index_drop(r < 0 ? j->walk : NULL); /* end freed it;
			mcp_entries makes the index when it is asked */
	j->walk = NULL;
	j->doc = NULL;
	job_end(j);
	call_complete(c, b);
}

/* a skills listing: its tree (live/skills.c), then it completes */
static void skills_slice(uv_idle_t *h)
{
	struct pagejob *j = h->data;
	mcp_call *c = j->c;
	mcp_buf *b = j->doc;
	int r;

	if (c->done) {
		job_end(j);
		return;
	}
	r = skills_step(j->sk, SKILLS_SLICE_NS);
	if (r == 0)
		return;
	if (r < 0)
		skills_drop(j->sk); /* out of memory: an empty skills/ */
	else
		skills_end(c, j->sk, c->s->oneshot ? NULL : c->s);
	j->sk = NULL;
	j->doc = NULL;
	job_end(j);
	call_complete(c, b);
}

/* The end of skills listing c: its tree, a slice at a time, then its
 * reply b, the count of its items. */
static void skills_end_list(mcp_call *c, int items)
{
	struct pagejob *j;
	mcp_buf *b = NULL;
	cJSON *out = cJSON_CreateObject();

	if (out && cJSON_AddNumberToObject(out, "count", items))
		b = mcp_buf_json(out, 1);
	cJSON_Delete(out);
	if (b && (j = job_new(c, skills_slice)) != NULL) {
		if ((j->sk = skills_take(c, c->s->oneshot ? NULL : c->s))) {
			j->doc = b;
			return;
		}
		job_end(j);
	}
	call_complete(c, b); /* NULL: out of memory */
}

static void print_slice(uv_idle_t *h)
{
	struct pagejob *j = h->data;
	mcp_call *c = j->c;
	uint64_t t0 = uv_hrtime();
	unsigned k;
	mcp_buf *b;
	size_t n;
	char *t;

	if (c->done) { /* failed meanwhile: its timeout, its server gone */
		job_end(j);
		return;
	}
	for (k = 0; j->next; k++) {
		cJSON *it = j->next;

		if ((k & 15) == 15 && uv_hrtime() - t0 > SLICE_NS)
			return; /* the rest at the next turn */
		j->next = it->next;
		t = jsent_print_at(it, 2, &n);
		if (!t || (j->printed++ && gbuf_add(&j->out, ", ", 2) < 0) ||
		    gbuf_add(&j->out, t, n) < 0)
			j->out.oom = 1;
		free(t);
		/* printed: freed now, not in one cJSON_Delete at the end */
		cJSON_Delete(cJSON_DetachItemViaPointer(c->pg->acc, it));
		if (j->out.oom)
			break;
	}
	b = NULL;
	if (!j->out.oom && gbuf_add(&j->out, "]\n}\n", 4) == 0) {
		n = j->out.len;
		t = gbuf_take(&j->out);
		b = t ? mcp_buf_wrap(t, 0, 0, n) : NULL;
		if (t && !b)
			free(t);
	}
	cJSON_Delete(c->pg->acc);
	c->pg->acc = NULL;
	/* its index too, before anyone asks for it in one piece */
	if (b && (j->walk = surface_index_begin(c, b)) != NULL) {
		j->doc = b;
		uv_idle_stop(&j->idle); /* a started handle keeps its cb */
		uv_idle_start(&j->idle, index_slice);
		return;
	}
	job_end(j);
	call_complete(c, b); /* NULL: an out of memory error */
}

/* The listing c is complete: its document, printed now or (a long one)
 * a slice at a time. */
void pages_end(mcp_call *c)
{
	const char *key = mcp_list_key(c->list);
	cJSON *out, *acc = c->pg ? c->pg->acc : NULL;
	struct pagejob *j;

	if (c->pg) {
		cJSON_Delete(c->pg->cursors);
		c->pg->cursors = NULL;
	}
	if (c->list == MCP_SKILLS) {
		skills_end_list(c, cJSON_GetArraySize(acc));
		cJSON_Delete(acc);
		if (c->pg)
			c->pg->acc = NULL;
		return;
	}
	if (acc && cJSON_GetArraySize(acc) >= PRINT_SLICED &&
	    (j = job_new(c, print_slice)) != NULL) {
		j->next = acc->child;
		if (gbuf_printf(&j->out, "{\n\t\"%s\":\t[", key) < 0)
			j->out.oom = 1;
		return;
	}
	out = cJSON_CreateObject();
	cJSON_AddItemToObject(out, key, acc ? acc : cJSON_CreateArray());
	if (c->pg)
		c->pg->acc = NULL;
	call_complete(c, mcp_buf_json(out, 1));
	cJSON_Delete(out);
}

/* 1 if cursor was the cursor of a page asked before (else it is kept). */
static int cursor_seen(mcp_call *c, const char *cursor)
{
	cJSON *it;

	if (!c->pg->cursors)
		c->pg->cursors = cJSON_CreateArray();
	cJSON_ArrayForEach(it, c->pg->cursors)
		if (!strcmp(it->valuestring, cursor))
			return 1;
	cJSON_AddItemToArray(c->pg->cursors, cJSON_CreateString(cursor));
	return 0;
}

/* A page of c has been gathered; next: its nextCursor or NULL. Ask for the
 * next page, or end the listing. */
static void page_done(mcp_session *s, mcp_call *c, const char *next)
{
	char why[96];
	cJSON *m;

	if (!next || !*next) {
		pages_end(c);
		return;
	}
	why[0] = 0;
	if (cursor_seen(c, next))
		snprintf(why, sizeof why, "page %u repeats a cursor", c->pg->n);
	else if (c->pg->n >= LIST_MAX_PAGES)
		snprintf(why, sizeof why, "stopped after %u pages (the limit)",
			 c->pg->n);
	else if (cJSON_GetArraySize(c->pg->acc) >= LIST_MAX_ITEMS)
		snprintf(why, sizeof why, "stopped at %d items (the limit)",
			 cJSON_GetArraySize(c->pg->acc));
	if (why[0]) {
		session_list_note(s, c, NULL, why);
		pages_end(c);
		return;
	}
	idtab_del(&s->pending, c->rpc_id);
	c->rpc_id = s->next_id++;
	if (call_track(s, c) < 0)
		return;
	m = msg_list(c->rpc_id, c->list, next);
	session_send_json(s, m, c->rpc_id);
	cJSON_Delete(m);
}

/* d, an item of a page of c, through the filters of its kind: d, or NULL
 * when it is left out (then freed). */
static cJSON *admit(mcp_session *s, mcp_call *c, cJSON *d)
{
	cJSON *one;

	if (c->list != MCP_TOOLS)
		return d;
	one = cJSON_CreateArray();
	cJSON_AddItemToArray(one, d);
	policy_filter(s->srv->conf, one); /* spec 13 */
	if (s->era == MCP_ERA_MODERN)
		era_filter_tools(s, one); /* x-mcp-header */
	d = one->child ? cJSON_DetachItemViaPointer(one, one->child) : NULL;
	cJSON_Delete(one);
	return d;
}

/* A page of skills listing c whose items are parsed, and (iv) at iv of
 * its line: counted, and kept as its text (a copy of the line: it is
 * short) or printed again. */
static void skills_got(mcp_call *c, const cJSON *items, const char *line,
		       size_t len, const struct jscan_span *iv)
{
	int i, k = cJSON_IsArray(items) ? cJSON_GetArraySize(items) : 0;
	mcp_buf *b = NULL;
	char *txt;
	size_t n;

	for (i = 0; i < k; i++)
		cJSON_AddItemToArray(c->pg->acc, cJSON_CreateNull());
	if (!k)
		return;
	if (iv && line[iv->at] == '[') {
		if ((b = mcp_buf_new(line, len)) != NULL)
			skills_page(c, b, iv->at, iv->n, NULL, 0);
	} else if ((txt = jsent_print(items, 0, &n)) != NULL) {
		b = mcp_buf_wrap(txt, 0, 0, n);
		if (!b)
			free(txt);
		else
			skills_page(c, b, 0, n, NULL, 0);
	}
	mcp_buf_unref(b); /* kept by the walk; lost to ENOMEM: fewer */
}

void pages_got(mcp_session *s, mcp_call *c, cJSON *res, const char *line,
	       size_t len)
{
	const char *key = mcp_list_key(c->list);
	cJSON *items = cJSON_GetObjectItemCaseSensitive(res, key);
	cJSON *next = cJSON_GetObjectItemCaseSensitive(res, "nextCursor");
	struct jscan_span rv = {0, 0}, iv = {0, 0}, v;
	struct jscan_members it;
	cJSON *t, *nx;
	int raw;

	if (!pages_of(c)) {
		call_complete(c, NULL); /* out of memory */
		return;
	}
	if (!c->pg->acc)
		c->pg->acc = cJSON_CreateArray();
	c->pg->n++;
	raw = jscan_top_member(line, len, "result", &rv) &&
	      jscan_member(line, rv, key, &iv);
	if (c->list == MCP_SKILLS) {
		skills_got(c, items, line, len, raw ? &iv : NULL);
		page_done(s, c, cJSON_IsString(next) ? next->valuestring
						     : NULL);
		return;
	}
	jscan_items_init(&it, line, iv.at, iv.at + iv.n);
	/* each item is taken out of the page (a copy of 100,000 tools was
	 * a quarter of the listing's time) */
	for (t = cJSON_IsArray(items) ? items->child : NULL; t; t = nx) {
		cJSON *d;
		int got = raw && jscan_items_next(&it, &v);

		nx = t->next;
		d = cJSON_DetachItemViaPointer(items, t);
		if (!d || !(d = admit(s, c, d)))
			continue;
		if (got)
			jsent_keep(d, line + v.at, v.n);
		cJSON_AddItemToArray(c->pg->acc, d);
	}
	page_done(s, c, cJSON_IsString(next) ? next->valuestring : NULL);
}

/* The page's nextCursor (malloc'd), NULL when it has none; *bad set when
 * it is there but no string. Looked for before the items, then after
 * them from where their walk ended, never through them again. */
static char *cursor_of(struct pagejob *j, int *bad)
{
	struct jscan_span v, k, before = {j->res.at, j->arr.at - j->res.at};
	struct jscan_members m;
	size_t end = j->res.at + j->res.n;
	int found = jscan_member(j->line, before, "nextCursor", &v);
	cJSON *s;
	char *out = NULL;

	m.p = j->line;
	m.i = skip_ws(j->line, j->it.i, end);
	m.end = end;
	m.bad = 0;
	if (!found && m.i < end && j->line[m.i] == ',') {
		m.i = skip_ws(j->line, m.i + 1, end);
		while (!found && jscan_members_next(&m, &k, &v))
			found = jscan_str_is(j->line, k, "nextCursor");
	}
	if (!found)
		return NULL;
	s = jsent_parse(j->line + v.at, v.n);
	if (cJSON_IsString(s))
		out = strdup(s->valuestring);
	else if (!cJSON_IsNull(s))
		*bad = 1;
	cJSON_Delete(s);
	return out;
}

/* The long page of skills that j read: kept as it is, its block taken
 * without a copy (skills/ lacks it when memory is short). */
static void skills_keep(struct pagejob *j)
{
	mcp_buf *b = mcp_buf_wrap(j->mem, j->big, (size_t)(j->line - j->mem),
				  j->len);

	if (!b)
		return;
	j->mem = NULL; /* b's */
	skills_page(j->c, b, j->arr.at, j->arr.n, j->items, j->nitems);
	j->items = NULL; /* the walk's */
	mcp_buf_unref(b);
}

/* Where item v of a skills page is, for the walk of its tree (which then
 * does not look for it again); all or none. */
static void keep_item(struct pagejob *j, struct jscan_span v)
{
	struct jscan_span *n;

	if (j->icap == (size_t)-1)
		return;
	n = gbuf_grow(j->items, &j->icap, j->nitems + 1, sizeof *n, 64);
	if (!n) {
		free(j->items);
		j->items = NULL;
		j->nitems = 0;
		j->icap = (size_t)-1; /* the walk finds them */
		return;
	}
	j->items = n;
	j->items[j->nitems++] = v;
}

/* The walk of the value at p[*i] on, as jscan_value_end's (*depth its
 * depth), at most WALK_PART bytes at a time: 1 when it ended at *i, 0
 * when not yet, -1 when it cannot end by n. */
static int walk_part(const char *p, size_t *i, int *depth, size_t n)
{
	size_t k = *i, stop = n - k > WALK_PART ? k + WALK_PART : n;

	while (k < stop) {
		char ch = p[k];

		if (ch == '"') {
			if (!(k = jscan_string_end(p, k, n)))
				return -1;
			if (!*depth) {
				*i = k;
				return 1;
			}
			continue;
		}
		if (ch == '{' || ch == '[') {
			++*depth;
		} else if (ch == '}' || ch == ']') {
			if (!*depth) {
				*i = k; /* no value: nothing before it */
				return 1;
			}
			if (--*depth == 0) {
				*i = k + 1;
				return 1;
			}
		} else if (!*depth && (ch == ',' || ch == ' ' || ch == '\t' ||
				       ch == '\r' || ch == '\n')) {
			*i = k;
			return 1;
		}
		k++;
	}
	*i = k;
	if (k >= n)
		return *depth ? -1 : 1;
	return 0;
}

/* The next item of j's page in *v, as jscan_items_next, its end found a
 * part at a time (one skill of 15 MB is one item): 1, 0 after the last
 * (j->it.bad as jscan_items_next leaves it), -1 when its walk goes on at
 * the next call. */
static int item_next(struct pagejob *j, struct jscan_span *v)
{
	struct jscan_members *m = &j->it;
	const char *p = j->line;
	size_t i;
	int r;

	if (!j->walking) {
		if (m->bad) { /* closed (the last item's ']': spent now) or bad */
			if (m->bad < 0)
				m->bad = 0;
			return 0;
		}
		m->bad = 1; /* until the item proves whole */
		if (m->i >= m->end)
			return 0;
		j->wat = j->wi = m->i;
		j->depth = 0;
		j->walking = 1;
	}
	if ((r = walk_part(p, &j->wi, &j->depth, m->end)) == 0)
		return -1;
	j->walking = 0;
	if (r < 0 || j->wi <= j->wat)
		return 0;
	v->at = j->wat;
	v->n = j->wi - j->wat;
	i = skip_ws(p, j->wi, m->end);
	if (i < m->end && p[i] == ',') {
		m->i = skip_ws(p, i + 1, m->end);
		m->bad = 0;
	} else if (i < m->end && p[i] == ']') {
		m->i = i + 1;
		m->bad = -1; /* the last item */
	} else {
		m->i = m->end;
	}
	return 1;
}

static void read_slice(uv_idle_t *h)
{
	struct pagejob *j = h->data;
	mcp_call *c = j->c;
	mcp_session *s = c->s;
	uint64_t t0 = uv_hrtime();
	struct jscan_span v;
	char why[96] = "", *next;
	unsigned k;
	int bad = 0;

	if (c->done) {
		job_end(j);
		return;
	}
	for (k = 0;; k++) {
		cJSON *d;
		int r;

		if ((k & 15) == 15 && uv_hrtime() - t0 > SLICE_NS)
			return; /* the rest at the next turn */
		if ((r = item_next(j, &v)) < 0) { /* a long item */
			if (uv_hrtime() - t0 > SLICE_NS)
				return; /* its walk goes on at the next turn */
			continue;
		}
		if (!r)
			break;
		if (c->list == MCP_SKILLS) { /* counted; the page is kept */
			cJSON_AddItemToArray(c->pg->acc, cJSON_CreateNull());
			keep_item(j, v);
			continue;
		}
		if (!(d = jsent_parse(j->line + v.at, v.n))) {
			bad = 1; /* cJSON's refusal or out of memory */
			break;
		}
		if ((d = admit(s, c, d)) != NULL) {
			jsent_keep(d, j->line + v.at, v.n);
			cJSON_AddItemToArray(c->pg->acc, d);
		}
	}
	next = bad || j->it.bad ? NULL : cursor_of(j, &bad);
	if (bad || j->it.bad)
		snprintf(why, sizeof why, "page %u is not valid JSON "
			 "(the items before are kept)", c->pg->n);
	else if (c->list == MCP_SKILLS)
		skills_keep(j);
	job_end(j); /* the page's bytes freed */
	if (why[0]) {
		session_list_note(s, c, NULL, why);
		pages_end(c);
	} else {
		page_done(s, c, next);
	}
	free(next);
}

int pages_take(mcp_session *s, mcp_call *c, struct frame *f, char *line,
	       size_t len, size_t rs, size_t re)
{
	const char *key = mcp_list_key(c->list);
	struct jscan_span res = {rs, re - rs}, iv;
	struct pagejob *j;
	char *mem;
	int big = 0;

	if (!pages_of(c))
		return -1; /* out of memory: the cJSON path fails it */
	if (c->pg->job)
		return 0; /* a second reply to this page: dropped */
	/* where the items start; their end is the walk's (a skills page of
	 * one item of 15 MB was walked through twice more) */
	if (line[rs] != '{' || !member_start(line, res, key, &iv.at) ||
	    line[iv.at] != '[')
		return -1; /* not a page: the cJSON path says what it is */
	iv.n = re - iv.at;
	/* the job first: once the frame's block is taken, the line is the
	 * job's, and there is no way back to the cJSON path (it would read
	 * freed memory) */
	if (!(j = job_new(c, read_slice)))
		return -1;
	/* the frame's block holds the line where it is; a transport without
	 * one (HTTP) gets a copy, and the spans are offsets in either */
	if (f) {
		mem = frame_take(f, &big);
	} else if ((mem = malloc(len + 1)) != NULL) {
		memcpy(mem, line, len);
		mem[len] = 0;
		line = mem;
	}
	if (!mem) { /* the line is still where it was */
		job_end(j);
		return -1;
	}
	if (!c->pg->acc)
		c->pg->acc = cJSON_CreateArray();
	c->pg->n++;
	j->mem = mem;
	j->big = big;
	j->line = line;
	j->len = len;
	j->res = res;
	j->arr = iv;
	jscan_items_init(&j->it, line, iv.at, iv.at + iv.n);
	mlog(MLOG_DEBUG, "server %s thread %s: %s page %u (%zu bytes) read "
	     "a slice at a time", s->srv->conf->name, s->oneshot
	     ? "(one-shot)" : s->name, msg_list_method(c->list), c->pg->n,
	     len);
	return 0;
}

/* resources.json (sessions.h) */
mcp_buf *mcp_resources_doc(mcp_call *res, mcp_call *tpl)
{
	const mcp_buf *a = mcp_call_reply(res), *b = mcp_call_reply(tpl);
	cJSON *ja = jsent_parse(a->data, a->len);
	cJSON *jb = jsent_parse(b->data, b->len);
	cJSON *out = cJSON_CreateObject();
	mcp_buf *doc = NULL;
	size_t n;
	char *txt;

	jsent_keep(ja, a->data, a->len);
	jsent_keep(jb, b->data, b->len);
	cJSON_AddItemToObject(out, "resources", cJSON_DetachItemFromObject(
				ja, "resources") ?: cJSON_CreateArray());
	cJSON_AddItemToObject(out, "resourceTemplates",
			      cJSON_DetachItemFromObject(jb,
							 "resourceTemplates")
				      ?: cJSON_CreateArray());
	txt = jsent_print(out, 1, &n);
	if (txt && (doc = mcp_buf_new(NULL, n + 1)) != NULL) {
		memcpy(doc->data, txt, n);
		doc->data[n] = '\n';
	}
	free(txt);
	cJSON_Delete(ja);
	cJSON_Delete(jb);
	cJSON_Delete(out);
	return doc;
}
