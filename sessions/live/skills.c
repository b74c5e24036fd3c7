/*
 * skills.c - a server's skills as a tree of files (spec 15; the skills
 * extension io.modelcontextprotocol/skills, SEP-2640).
 *
 * The skills listing (skills/list, all pages, MCP_SKILLS) names each skill
 * by the URI of its SKILL.md, its frontmatter and its files: every file
 * with the SHA-256 digest and the size of its bytes, or "dynamic" for a
 * skill made on the fly. skills/ in a thread shows that as folders:
 *
 *   skills/NAME/SKILL.md, skills/NAME/references/FORMS.md, ...
 *
 * NAME is frontmatter.name (the SEP makes it the last segment of the
 * skill's path) when it keeps the Agent Skills rules (1 to 64 of a-z, 0-9
 * and '-', no '-' at either end or twice in a row) and no other skill of
 * the listing has it. Any other skill (a name shared, or one that breaks
 * the rules: dotted, too long, holding a NUL or a control) is shown by its
 * whole skill path with '/' as '.' (acme.billing.refunds), which no valid
 * name can be, its controls, '%' and bidirectional overrides
 * percent-encoded; one longer than MCP_FILE_MAX, or taken, is cut and
 * ends in '~' and 16 hex digits of a hash of its URI (as surface.c names
 * a long tool). So one name is never listed twice.
 *
 * A file is a resource URI under the skill's root (the URI of SKILL.md
 * without "/SKILL.md"), listed with "sha256:HEX" and its size. What cannot
 * be a file here is left out, counted in one warning of the thread's
 * status: a file without a digest and size (the SEP: every file carries
 * both, and unverified content is never used), outside its root, with a
 * segment that is empty, "." or "..", longer than 255 bytes or holding a
 * control, or listed twice (or as a file and a folder). A skill whose
 * "resources" is neither a list nor "dynamic" is left out whole (the SEP:
 * hosts MUST NOT load it); a dynamic one shows SKILL.md alone.
 *
 * The tree is indexed (skilltree.c: a hash of paths, each folder's
 * entries in a list): a lookup is one probe, a listing as long as the
 * folder. It is made from the listing's pages, kept unparsed, a slice at
 * a time before the listing completes (skillwalk.c, run by pages.c), so
 * that a skill of 100,000 files keeps the loop free for the other
 * sessions; skills_build makes it at once for a listing that did not go
 * that way (one answered without asking the server).
 *
 * A SKILL.md listed with a digest is also checked against its entry's
 * frontmatter (skillfm.c): a discrepancy is an error, never the content.
 *
 * A file's size is the listing's. A read is resources/read of the file's
 * URI (fs/ sends it at the open); its bytes are checked against the
 * listing's size and digest (skillcheck.c) and a mismatch is an error,
 * never the content. The verified bytes are kept with the listing (the
 * digest pins them), for the next open. A dynamic SKILL.md has no digest
 * and no size: it is read at its lookup, for its size, kept until the
 * listing is asked again, and refused past the SEP's 16 MiB a skill.
 */
#include <errno.h>
#include <string.h>

#include "pages.h"
#include "skillfm.h"
#include "skilltree.h"

static struct stree *tree_of(mcp_session *s, mcp_call *listing)
{
	return listing->skills ? listing->skills
			       : skills_build(listing, s);
}

/* The node at path of listing's tree, or NULL (*t NULL: ENOMEM). */
static struct snode *node_of(mcp_session *s, mcp_call *listing,
			     const char *path, struct stree **t)
{
	long k;

	if (!(*t = tree_of(s, listing)))
		return NULL;
	k = stree_at(*t, path, strlen(path));
	return k < 0 ? NULL : &(*t)->v[k];
}

int mcp_skill_stat(mcp_session *s, mcp_call *listing, const char *path)
{
	struct stree *t;
	struct snode *d = node_of(s, listing, path, &t);

	if (!t)
		return -ENOMEM;
	if (!*path)
		return MCP_SKILL_DIR;
	return !d ? 0 : d->isdir ? MCP_SKILL_DIR : MCP_SKILL_FILE;
}

int mcp_skill_first(mcp_session *s, mcp_call *listing, const char *path,
		    long *at)
{
	struct stree *t;
	struct snode *d = node_of(s, listing, path, &t);

	if (!t)
		return -ENOMEM;
	if (*path && (!d || !d->isdir))
		return -ENOTDIR;
	*at = *path ? d->first : t->first;
	return 0;
}

long mcp_skill_next(mcp_call *listing, long at, struct mcp_skill_ent *e)
{
	const struct stree *t = listing->skills;
	const struct snode *d;

	if (!t || at < 0 || (size_t)at >= t->n)
		return -1;
	d = &t->v[at];
	e->name = d->path + d->base;
	e->path = d->path;
	e->idx = d->idx;
	e->isdir = d->isdir;
	return d->next;
}

const char *mcp_skill_uri(mcp_session *s, mcp_call *listing,
			  const char *path)
{
	struct stree *t;
	struct snode *d = node_of(s, listing, path, &t);

	return d ? d->uri : NULL;
}

long long mcp_skill_size(mcp_session *s, mcp_call *listing, const char *path)
{
	struct stree *t;
	struct snode *d = node_of(s, listing, path, &t);

	if (!d || d->isdir)
		return -1;
	return d->bytes ? (long long)d->bytes->len : d->size;
}

mcp_buf *mcp_skill_cached(mcp_session *s, mcp_call *listing,
			  const char *path)
{
	struct stree *t;
	struct snode *d = node_of(s, listing, path, &t);

	return d ? mcp_buf_ref(d->bytes) : NULL;
}

mcp_buf *mcp_skill_bytes(mcp_session *s, mcp_call *listing, const char *path,
			 const mcp_buf *reply, int *err)
{
	struct stree *t;
	struct snode *d = node_of(s, listing, path, &t);
	const char *why;
	mcp_buf *b;

	if (!d) {
		*err = t ? -ENOENT : -ENOMEM;
		return NULL;
	}
	if (!(b = mcp_resource_bytes(reply, err)))
		return NULL;
	if ((*err = skill_verify(s, path, b, d->has_digest ? d->sha : NULL,
				    d->size)) < 0) {
		mcp_buf_unref(b);
		return NULL;
	}
	if (skill_frontmatter_check(b->data, b->len, d->fm, &why) < 0) {
		surface_warn(s, "skills: %s not loaded: %s", path, why);
		mcp_buf_unref(b);
		*err = -EIO;
		return NULL;
	}
	if (!d->bytes)
		d->bytes = mcp_buf_ref(b); /* the next open's */
	return b;
}

