/*
 * pages.h - listing pages gathered and what is made of them, a part at a
 * time (pages.c, surface.c's index, live/skillwalk.c, live/skillcheck.c),
 * and the notes of a listing that ended short (listnotes.c).
 * Private to sessions/.
 */
#ifndef MCPFS_PAGES_H
#define MCPFS_PAGES_H

#include "internal.h"

/* pages.c: listing pages gathered, long ones a slice at a time */
/* A page (reply result res, parsed; line its text) of listing c of s. */
void pages_got(mcp_session *s, mcp_call *c, cJSON *res, const char *line,
	       size_t len);
/* The long reply line (a frame's, or f NULL: copied) to listing c, with
 * its result at [rs, re): 0 when it is read a slice at a time from here
 * (or dropped: a second reply to a page being read), -1 when it is no
 * page (the cJSON path then takes the line). */
int pages_take(mcp_session *s, mcp_call *c, struct frame *f, char *line,
	       size_t len, size_t rs, size_t re);
/* Listing c complete (or ended short): its document, now or in slices. */
void pages_end(mcp_call *c);
int pages_busy(const mcp_call *c); /* 1 while a page of c is being read */
void pages_release(mcp_call *c);      /* c's pages, as c is freed */
/* surface.c: the index of a listing's entries (mcp_entries) made from its
 * document reply a part at a time: begin, step until it returns 1 (0:
 * more, after about budget ns; 0: no budget; -ENOMEM), then end,
 * which hands it to c (0, or -ENOMEM with w freed); or drop. */
struct lindex_walk;
struct lindex_walk *surface_index_begin(mcp_call *c, const mcp_buf *reply);
int surface_index_step(struct lindex_walk *w, uint64_t budget);
int surface_index_end(mcp_call *c, struct lindex_walk *w, mcp_session *s);
void surface_index_drop(struct lindex_walk *w);
void surface_index_free(mcp_call *c); /* c's index, as c is freed */
/* live/skills.c: the tree of a skills listing (MCP_SKILLS) made from its
 * pages a part at a time, as surface_index_*: each page b whose items
 * are the array at of n bytes is kept with c (skills_page: 0 or -ENOMEM;
 * items, when not NULL, the nitems spans of its items found as it was
 * read, malloc'd, taken even on failure: no walk finds them again);
 * at its end, take them (NULL: ENOMEM; s, when not NULL, numbers each
 * path in its names as it goes), step until it returns 1 (0: more, after
 * about budget ns; 0: no budget; -ENOMEM), then end, which hands the tree
 * to c (warnings in s's status) and frees w. */
struct skills_walk;
/* skillwalk.c: where the value of the first member key of the object
 * obj (p[obj.at] its '{') starts, in *at, as jscan_member finds it,
 * without a walk to its end (a skills page's one item of 15 MB): 1 if
 * found. */
int member_start(const char *p, struct jscan_span obj, const char *key,
		 size_t *at);
int skills_page(mcp_call *c, mcp_buf *b, size_t at, size_t n,
		struct jscan_span *items, size_t nitems);
struct skills_walk *skills_take(mcp_call *c, mcp_session *s);
int skills_step(struct skills_walk *w, uint64_t budget);
void skills_end(mcp_call *c, struct skills_walk *w, mcp_session *s);
void skills_drop(struct skills_walk *w);
void skills_release(mcp_call *c); /* c's tree and pages, as c is freed */
/* live/skillcheck.c: the bytes b of skill file path as its listing says
 * (sha: its SHA-256, size its bytes; sha NULL: a dynamic SKILL.md, no
 * longer than the SEP's 16 MiB): 0, or -EIO (said in s's status). */
int skill_verify(mcp_session *s, const char *path, const mcp_buf *b,
		 const unsigned char *sha, long long size);
/* The entry of the done listing named name, parsed alone; NULL if none
 * (or the listing failed). */
cJSON *surface_entry_json(mcp_call *listing, mcp_session *s,
			  const char *name);
/* Listing c of s ends short: the server answered a page with err (on the
 * first page the listing is "none"), or why it stopped (a repeated
 * cursor, a limit). Noted in s->notes for status, and logged. */
void session_list_note(mcp_session *s, const mcp_call *c, const cJSON *err,
		       const char *why);
/* s's notes of listing what, or of all (what MCP_NLISTS), dropped: the
 * listing is asked again. */
void session_list_forget(mcp_session *s, int what);
/* listnotes.c: s's note of listing what, or NULL; and set (taken). */
const cJSON *session_list_note_of(const mcp_session *s, int what);
void list_note_set(mcp_session *s, enum mcp_list what, cJSON *note);

#endif
