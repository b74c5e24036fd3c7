/*
 * skills.c - a server's skills as a tree of files (spec 15; the skills
 * extension io.modelcontextprotocol/skills, SEP-2640).
 *
 * The skills listing (skills/list, all pages, MCP_SKILLS) names each skill
 * by the URI of its SKILL.md, its frontmatter and, for a skill whose
 * content is fixed, every file it holds with the SHA-256 digest of its
 * bytes. skills/ in a thread shows that as folders:
 *
 *   skills/NAME/SKILL.md, skills/NAME/references/FORMS.md, ...
 *
 * NAME is frontmatter.name, which the SEP makes the last segment of the
 * skill's path; two skills of one listing with the same name are both
 * shown by their whole skill path with '/' as '.' (acme.billing.refunds),
 * which no skill name can be (names are lowercase letters, digits and
 * '-'). A file is a resource URI under the skill's root (the URI of
 * SKILL.md without "/SKILL.md"); a skill without "resources" (made on
 * the fly) shows its SKILL.md alone. What cannot be a path here (a name
 * or segment that is empty, "." or "..", or holds '/' or a control byte;
 * a file outside its skill's root; a SKILL.md URI that does not end in
 * "/SKILL.md") is left out, with a warning in the thread's status.
 *
 * A read is resources/read of the file's URI (fs/ sends it); its bytes
 * are checked against the listing's digest (sha256:HEX) and a mismatch is
 * an error, never the content (the SEP: hosts MUST NOT use unverified
 * content). The tree is made at the first ask and kept on the listing
 * call (freed with it), with the verified bytes of each file read: the
 * digest pins them, so they are the next open's and give st_size (tar
 * reads as many bytes as stat says).
 *
 * SHA-256 is libcrypto's (OpenSSL), loaded with dlopen at the first file
 * checked: mcpfs keeps libcrypto out of a mount that reads no skill and
 * starts no HTTP server (as the HTTP module does, test_module.py). A
 * machine without it fails the read (EIO, said in status).
 */
#include <dlfcn.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "jsent.h"
#include "skillfm.h"

struct sfile {
	char *path;   /* NAME/rel/path */
	char *uri;
	char *digest; /* "sha256:hex", or NULL: none given */
	mcp_buf *bytes; /* read and verified (a digest pins them), or NULL */
	cJSON *fm;    /* SKILL.md: its entry's frontmatter (skillfm.c) */
};

/* The tree of a skills listing, kept on the listing call (c->skills) as
 * long as it lives. */
struct stree {
	struct sfile *v;
	size_t n;
};

static void tree_free(void *p)
{
	struct stree *t = p;
	size_t i;

	for (i = 0; t && i < t->n; i++) {
		free(t->v[i].path);
		free(t->v[i].uri);
		free(t->v[i].digest);
		cJSON_Delete(t->v[i].fm);
		mcp_buf_unref(t->v[i].bytes);
	}
	if (t)
		free(t->v);
	free(t);
}

/* A path segment mcpfs can show: not empty, "." or "..", no '/' or
 * control byte (or DEL). */
static int segment_ok(const char *p, size_t n)
{
	size_t i;

	if (!n || (n == 1 && p[0] == '.') || (n == 2 && !memcmp(p, "..", 2)))
		return 0;
	for (i = 0; i < n; i++)
		if (p[i] == '/' || (unsigned char)p[i] < 0x20 || p[i] == 0x7f)
			return 0;
	return 1;
}

static int rel_ok(const char *rel)
{
	const char *slash;

	for (;;) {
		slash = strchr(rel, '/');
		if (!segment_ok(rel, slash ? (size_t)(slash - rel)
					   : strlen(rel)))
			return 0;
		if (!slash)
			return 1;
		rel = slash + 1;
	}
}

static int add(struct stree *tree, const char *name, const char *rel,
	       const char *uri, const char *digest)
{
	struct sfile *v = realloc(tree->v, (tree->n + 1) * sizeof *v), *f;

	if (!v)
		return -ENOMEM;
	tree->v = v;
	f = &v[tree->n];
	f->bytes = NULL;
	f->fm = NULL;
	f->uri = strdup(uri);
	f->digest = digest ? strdup(digest) : NULL;
	f->path = malloc(strlen(name) + strlen(rel) + 2);
	if (!f->uri || (digest && !f->digest) || !f->path) {
		free(f->uri);
		free(f->digest);
		free(f->path);
		return -ENOMEM;
	}
	sprintf(f->path, "%s/%s", name, rel);
	tree->n++;
	return 0;
}

/* The root of a skill: its SKILL.md URI without "/SKILL.md" (malloc'd),
 * or NULL. */
static char *root_of(const char *uri)
{
	size_t n = strlen(uri);

	if (n <= 9 || strcmp(uri + n - 9, "/SKILL.md"))
		return NULL;
	return strndup(uri, n - 9);
}

/* The name of a skill in skills/: its frontmatter name, or (shared) its
 * skill path with '/' as '.' (malloc'd; NULL: none it can have). */
static char *name_of(const cJSON *skills, const cJSON *e, const char *root)
{
	const char *name = cJSON_GetStringValue(
		cJSON_GetObjectItemCaseSensitive(
			cJSON_GetObjectItemCaseSensitive(e, "frontmatter"),
			"name"));
	const char *path = strstr(root, "://");
	const cJSON *o;
	unsigned same = 0;
	char *p, *out;

	if (!name) { /* the last segment, as the SEP makes them equal */
		name = strrchr(root, '/');
		name = name ? name + 1 : root;
	}
	cJSON_ArrayForEach(o, skills) {
		const char *n2 = cJSON_GetStringValue(
			cJSON_GetObjectItemCaseSensitive(
				cJSON_GetObjectItemCaseSensitive(o,
								 "frontmatter"),
				"name"));
		same += n2 && !strcmp(n2, name);
	}
	out = strdup(same > 1 ? (path ? path + 3 : root) : name);
	if (out && same > 1)
		for (p = out; *p; p++)
			if (*p == '/')
				*p = '.';
	if (out && !segment_ok(out, strlen(out))) {
		free(out);
		return NULL;
	}
	return out;
}

/* One skill entry e of the listing: its files into the tree. */
static int add_skill(mcp_session *s, struct stree *tree, const cJSON *skills,
		     const cJSON *e)
{
	const char *uri = cJSON_GetStringValue(
		cJSON_GetObjectItemCaseSensitive(e, "uri"));
	const cJSON *res = cJSON_GetObjectItemCaseSensitive(e, "resources");
	const cJSON *r;
	char *root = uri ? root_of(uri) : NULL, *name = NULL;
	size_t rn;
	int err = 0;

	if (!root || !(name = name_of(skills, e, root))) {
		surface_warn(s, "skills: an entry left out of skills/ (its uri "
			     "is no SKILL.md, or its name cannot be a file "
			     "name): %.200s", uri ? uri : "(no uri)");
		free(root);
		return 0;
	}
	rn = strlen(root);
	if (!cJSON_IsArray(res)) /* made on the fly: SKILL.md alone */
		err = add(tree, name, "SKILL.md", uri, NULL);
	if (!cJSON_IsArray(res))
		res = NULL;
	cJSON_ArrayForEach(r, res) {
		const char *fu = cJSON_GetStringValue(
			cJSON_GetObjectItemCaseSensitive(r, "uri"));
		const char *dg = cJSON_GetStringValue(
			cJSON_GetObjectItemCaseSensitive(r, "digest"));

		if (!fu || strncmp(fu, root, rn) || fu[rn] != '/' ||
		    !rel_ok(fu + rn + 1)) {
			surface_warn(s, "skills: a file of %s left out (not "
				     "under its root, or no path mcpfs can "
				     "show): %.200s", name, fu ? fu : "(none)");
			continue;
		}
		if ((err = add(tree, name, fu + rn + 1, fu, dg)) < 0)
			break;
		if (!strcmp(fu, uri)) /* SKILL.md: checked against this */
			tree->v[tree->n - 1].fm = cJSON_Duplicate(
				cJSON_GetObjectItemCaseSensitive(
					e, "frontmatter"), 1);
	}
	free(root);
	free(name);
	return err;
}

/* The tree of listing (done) of s, made at the first ask. */
static struct stree *tree_of(mcp_session *s, mcp_call *listing)
{
	struct stree *t = listing->skills;
	const mcp_buf *b;
	cJSON *doc, *skills, *e;
	int err = 0;

	if (t)
		return t;
	b = mcp_call_reply(listing);
	if (!b || !(t = calloc(1, sizeof *t)) ||
	    !(doc = jsent_parse(b->data, b->len))) {
		free(t);
		return NULL;
	}
	skills = cJSON_GetObjectItemCaseSensitive(doc, "skills");
	cJSON_ArrayForEach(e, skills)
		if ((err = add_skill(s, t, skills, e)) < 0)
			break;
	cJSON_Delete(doc);
	if (err < 0) {
		tree_free(t);
		return NULL;
	}
	listing->skills = t;
	listing->skills_free = tree_free;
	return t;
}

int mcp_skill_stat(mcp_session *s, mcp_call *listing, const char *path)
{
	struct stree *t = tree_of(s, listing);
	size_t i, n = strlen(path);

	if (!t)
		return -ENOMEM;
	if (!n)
		return MCP_SKILL_DIR;
	for (i = 0; i < t->n; i++) {
		if (!strcmp(t->v[i].path, path))
			return MCP_SKILL_FILE;
		if (!strncmp(t->v[i].path, path, n) && t->v[i].path[n] == '/')
			return MCP_SKILL_DIR;
	}
	return 0;
}

int mcp_skill_list(mcp_session *s, mcp_call *listing, const char *path,
		   void (*cb)(void *ctx, const char *name, size_t len,
			      int isdir), void *ctx)
{
	struct stree *t = tree_of(s, listing);
	size_t i, j, n = strlen(path), len;
	const char *rest, *slash, *prev;
	int seen;

	if (!t)
		return -ENOMEM;
	for (i = 0; i < t->n; i++) {
		if (n && (strncmp(t->v[i].path, path, n) ||
			  t->v[i].path[n] != '/'))
			continue;
		rest = t->v[i].path + (n ? n + 1 : 0);
		slash = strchr(rest, '/');
		len = slash ? (size_t)(slash - rest) : strlen(rest);
		/* once each: not if an earlier file gave this child */
		for (seen = 0, j = 0; j < i && !seen; j++) {
			if (n && (strncmp(t->v[j].path, path, n) ||
				  t->v[j].path[n] != '/'))
				continue;
			prev = t->v[j].path + (n ? n + 1 : 0);
			seen = !strncmp(prev, rest, len) &&
			       (prev[len] == '/' || !prev[len]);
		}
		if (!seen)
			cb(ctx, rest, len, slash != NULL);
	}
	return 0;
}

/* The file at path of tree t, or NULL. */
static struct sfile *file_at(struct stree *t, const char *path)
{
	size_t i;

	for (i = 0; t && i < t->n; i++)
		if (!strcmp(t->v[i].path, path))
			return &t->v[i];
	return NULL;
}

const char *mcp_skill_uri(mcp_session *s, mcp_call *listing,
			  const char *path)
{
	struct sfile *f = file_at(tree_of(s, listing), path);

	return f ? f->uri : NULL;
}

/* EVP_Digest and EVP_sha256 of libcrypto (its ABI since OpenSSL 1.1). */
static int (*evp_digest)(const void *data, size_t n, unsigned char *md,
			 unsigned int *mdn, const void *type, void *engine);
static const void *(*evp_sha256)(void);

static int crypto_load(mcp_session *s)
{
	static const char *const names[] = {"libcrypto.so.3",
					    "libcrypto.so.1.1", "libcrypto.so"};
	void *h = NULL;
	size_t i;

	if (evp_digest)
		return 0;
	for (i = 0; !h && i < sizeof names / sizeof *names; i++)
		h = dlopen(names[i], RTLD_NOW | RTLD_LOCAL);
	if (h) {
		*(void **)&evp_digest = dlsym(h, "EVP_Digest");
		*(void **)&evp_sha256 = dlsym(h, "EVP_sha256");
	}
	if (!evp_digest || !evp_sha256) {
		evp_digest = NULL;
		surface_warn(s, "skills: no libcrypto (OpenSSL) to check the "
			     "digests of skill files with: none is shown");
		return -1;
	}
	return 0;
}

/* "sha256:" and the lowercase hex SHA-256 of the n bytes at p, in out. */
static int sha256_hex(mcp_session *s, const char *p, size_t n,
		      char out[7 + 65])
{
	unsigned char md[64];
	unsigned int mdn = 0;
	size_t i;

	if (crypto_load(s) < 0 ||
	    !evp_digest(p, n, md, &mdn, evp_sha256(), NULL) || mdn != 32)
		return -1;
	memcpy(out, "sha256:", 7);
	for (i = 0; i < 32; i++)
		sprintf(out + 7 + 2 * i, "%02x", md[i]);
	return 0;
}

mcp_buf *mcp_skill_cached(mcp_session *s, mcp_call *listing,
			  const char *path)
{
	struct sfile *f = file_at(tree_of(s, listing), path);

	return f ? mcp_buf_ref(f->bytes) : NULL;
}

static mcp_buf *checked(mcp_session *s, const struct sfile *f,
			const char *path, const mcp_buf *reply, int *err)
{
	const char *want = f ? f->digest : NULL, *why;
	char got[7 + 65];
	mcp_buf *b = mcp_resource_bytes(reply, err);

	if (!b || !want)
		return b; /* no digest given: a skill made on the fly */
	if (sha256_hex(s, b->data, b->len, got) < 0) {
		mcp_buf_unref(b);
		*err = -EIO;
		return NULL;
	}
	if (strcasecmp(want, got)) {
		surface_warn(s, "skills: %s does not match its digest in the "
			     "listing (listed %.80s, read %s): not shown",
			     path, want, got);
		mcp_buf_unref(b);
		*err = -EIO;
		return NULL;
	}
	if (skill_frontmatter_check(b->data, b->len, f->fm, &why) < 0) {
		surface_warn(s, "skills: %s not loaded: %s", path, why);
		mcp_buf_unref(b);
		*err = -EIO;
		return NULL;
	}
	return b;
}

mcp_buf *mcp_skill_bytes(mcp_session *s, mcp_call *listing, const char *path,
			 const mcp_buf *reply, int *err)
{
	struct stree *t = tree_of(s, listing);
	struct sfile *f = file_at(t, path);
	mcp_buf *b;

	if (!t) {
		*err = -ENOMEM;
		return NULL;
	}
	b = checked(s, f, path, reply, err);
	if (b && f && !f->bytes)
		f->bytes = mcp_buf_ref(b); /* the size, and the next open */
	return b;
}
