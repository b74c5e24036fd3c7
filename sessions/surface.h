/*
 * surface.h - the MCP surface as files (spec 9, 12, 15): the layer between
 * sessions.h's listings and replies and fs/'s tree. It names what a
 * listing holds as files (tools/, prompts/, resources/, skills/, help/),
 * unpacks a reply into result/, renders help and parses NAME=VALUE lines
 * against a tool's schema. Only fs/ uses it; serve/ speaks MCP and needs
 * none of it. The code is in sessions/ (protocol/surface.c, guide/,
 * live/skills.c) because it reads the listings' JSON, which fs/ never
 * holds.
 */
#ifndef MCPFS_SURFACE_H
#define MCPFS_SURFACE_H

#include "sessions.h"

/* ---- skills (spec 15): skills/NAME/... of a thread, from the done
 * skills listing (mcp_list MCP_SKILLS); a path is relative to skills/
 * ("" is skills/ itself, "NAME", "NAME/references/FORMS.md") ---- */

enum { MCP_SKILL_FILE = 1, MCP_SKILL_DIR = 2 };
/* What path is: MCP_SKILL_FILE, MCP_SKILL_DIR, 0 (nothing), -ENOMEM. */
int mcp_skill_stat(mcp_session *s, mcp_call *listing, const char *path);
/* An entry of a directory: its name, its path, its number in s's names
 * for MCP_SKILLS (-1: not numbered yet), whether it is a directory. */
struct mcp_skill_ent {
	const char *name, *path;
	long idx;
	int isdir;
};
/* The entries of directory path, each once, in the listing's order, one
 * at a time (a folder of 100,000 is read a part at each readdir): *at
 * the number of its first (-1: none), for mcp_skill_next; 0, -ENOTDIR or
 * -ENOMEM. */
int mcp_skill_first(mcp_session *s, mcp_call *listing, const char *path,
		    long *at);
/* The entry at of listing (a number mcp_skill_first or this gave) in *e:
 * the next one's number, or -1 after the last. */
long mcp_skill_next(mcp_call *listing, long at, struct mcp_skill_ent *e);
/* The size of file path: its listed size, the length of its bytes once
 * read (a dynamic SKILL.md), or -1 (not read yet, or no file). */
long long mcp_skill_size(mcp_session *s, mcp_call *listing,
			 const char *path);
/* The resource URI of file path (valid until another listing is asked
 * about), or NULL. */
const char *mcp_skill_uri(mcp_session *s, mcp_call *listing,
			  const char *path);
/* The bytes of file path from its resources/read reply, checked against
 * the listing's size and digest: NULL with *err -EIO (a mismatch, said in
 * status, or the read failed), -ENOENT, -ENOMEM. */
mcp_buf *mcp_skill_bytes(mcp_session *s, mcp_call *listing, const char *path,
			 const mcp_buf *reply, int *err);
/* The bytes of file path as mcp_skill_bytes last gave them (a
 * reference; the digest pins them), or NULL when not read yet. */
mcp_buf *mcp_skill_cached(mcp_session *s, mcp_call *listing,
			  const char *path);

/* The file resources/URI of s: the contents of the resources/read reply
 * (text, or the decoded blob, of each, joined), or NULL with *err:
 * -ENOENT for "resource not found" (-32002), else -EIO, and the server's
 * message in s's status.last_error (spec 9) and the log; -ENOMEM. */
mcp_buf *mcp_resource_file(mcp_session *s, const char *uri,
			   const mcp_buf *reply, int *err);

/* The length of resources/ file idx (its URI's mcp_name_intern number)
 * of s as its last read gave it (mcp_resource_file), while that read is
 * kept: the newest 256 of a session, 16 MiB at most together; else 0
 * (never read, failed since, or no longer kept). Never sends a request. */
size_t mcp_resource_size(mcp_session *s, unsigned long idx);

/* resources.json: the done listings res (MCP_RESOURCES) and tpl
 * (MCP_TEMPLATES) in one document {"resources", "resourceTemplates"},
 * pretty, every number and string as the server sent it; NULL on ENOMEM. */
mcp_buf *mcp_resources_doc(mcp_call *res, mcp_call *tpl);

/* ---- the MCP surface as files (spec 9; surface.c) ---- */

/* A session's file names for tools, resources and prompts: each name the
 * tree gave out has a small number (for inode numbers), kept while the
 * session lives. intern returns it, or -ENOSPC past MCP_NAMES_MAX. */
#define MCP_NAMES_MAX (1u << 20)
long mcp_name_intern(mcp_session *s, enum mcp_list what, const char *name);
const char *mcp_name_at(mcp_session *s, enum mcp_list what, unsigned long i);

/*
 * The entries of a listing that have a file: tools and prompts by name,
 * resources by uri, in the listing's order. Made once per listing (an
 * index of file names and names: no lookup parses the listing again).
 * A file name is the name percent-encoded (mcp_name_encode); one longer
 * than MCP_FILE_MAX bytes is cut there and ends in "~" and 16 hex digits
 * of a hash of the name, made unique. Left out, with a warning in the
 * status of s (NULL: the log only): an empty name, a duplicate (the
 * first is kept), a name whose bytes are not UTF-8 (its JSON is not
 * JSON, and it could not be called by its own name).
 */
#define MCP_FILE_MAX 240
struct mcp_entry {
	const char *name;   /* as mcp_name_at holds it (a NUL as C0 80) */
	const char *file;   /* its file name */
	size_t at, n;       /* its JSON in the listing's reply */
};
/* c a done CALL_LIST: 0, -EIO when the listing failed, -ENOMEM. */
int mcp_entries(mcp_call *c, mcp_session *s, const struct mcp_entry **v,
		size_t *n);
/* The entry of the listing c whose file is file (by_name 0) or whose name
 * is file (by_name 1); NULL if none. */
const struct mcp_entry *mcp_entry_find(mcp_call *c, mcp_session *s,
				       const char *file, int by_name);

/* result/: the latest completed reply of s unpacked, computed once per
 * reply. Parts are borrowed until the next reply completes on s (take a
 * reference to data to keep it). n = 0 when there is no reply yet. Only
 * the first MCP_PARTS_MAX content blocks are parts (the reply and `text`
 * have them all; the status of s says so), so that an index stays within
 * the inode's bits and the parts within a small multiple of the reply. */
#define MCP_PARTS_MAX 10000
struct mcp_part {
	char name[32];   /* "0.txt", "1.png", "text", "structured.json" */
	mcp_buf *data;
};
void mcp_result(mcp_session *s, const struct mcp_part **parts, size_t *n);

/* Percent-encode name for a path component ('%', '/', each byte of an
 * unsafe code point of lib/ctlesc.h (C0, DEL, C1, the bidi controls), and
 * a leading '.' of "." and ".."): malloc'd. decode: NULL if malformed.
 * A NUL in a name from a server is held as the bytes C0 80 (lib/jsent.h)
 * and is "%00" in its file name. */
char *mcp_name_encode(const char *name);
char *mcp_name_decode(const char *file);

/* help/ of s (of srv when s is NULL): a key is "t:" and a tool's name or
 * "p:" and a prompt's name. Numbered as mcp_name_intern. */
long mcp_help_intern(mcp_server *srv, mcp_session *s, const char *file);
const char *mcp_help_name_at(mcp_server *srv, mcp_session *s,
			     unsigned long i);
/* The text of the help of key (as mcp_help_intern's) from the cached
 * listings (refs = 1); NULL when the listing is not cached or has no such
 * entry. */
mcp_buf *mcp_help(mcp_server *srv, mcp_session *s, const char *file);
/* MOUNT/README.md (refs = 1), NULL on ENOMEM. */
mcp_buf *mcp_readme(void);
/* The parsing of NAME=VALUE lines to tools/X or prompts/X (kvargs.c):
 * the arguments object (to free with free) typed by X's schema in the
 * cached listing of s, or -EINVAL with *why (malloc'd) naming the line. */
int mcp_args_lines(mcp_server *srv, mcp_session *s, int prompt,
		   const char *name, const char *text, size_t len, char **json,
		   char **why);
/* The check of whole lines as they arrive (kvargs_check): len bytes of
 * lines numbered from *line + 1, typed by the same schema. 0, or -EINVAL
 * with *why (malloc'd) naming the line, -ENOMEM. */
int mcp_args_check(mcp_server *srv, mcp_session *s, int prompt,
		   const char *name, const char *text, size_t len,
		   unsigned *line, char **why);

#endif
