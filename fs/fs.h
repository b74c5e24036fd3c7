/*
 * fs.h - the FUSE side: the low-level ops table, and the transaction files
 * (callfile.c) and answer files (askfile.c) it hands open files to.
 */
#ifndef MCPFS_FS_H
#define MCPFS_FS_H

#include <fuse_lowlevel.h>

#include "sessions.h"

#define MAX_REQUEST (16u << 20)
#define MAX_REQUEST_TEXT "16 MiB" /* MAX_REQUEST, for messages */

/* File kinds, the low 4 bits of an inode number: ino = id << 4 | kind. */
enum kind {
	K_DIR, K_CALL, K_TOOLS, K_STATUS, K_STDERR, K_EVENTS, K_CTL,
	K_REQS,   /* <thread>/requests/ (of the session's id) */
	K_REQ,    /* <thread>/requests/<n> (of the question's id) */
};

/* Per-open state of call and tools.json (fi->fh). */
struct callfile;

struct callfile *callfile_new(enum kind kind, uint64_t server_id,
			      uint64_t session_id);
void callfile_write(struct callfile *cf, fuse_req_t req, const char *buf,
		    size_t size);
void callfile_read(struct callfile *cf, fuse_req_t req, size_t size,
		   off_t off);
void callfile_flush(struct callfile *cf, fuse_req_t req);
void callfile_free(struct callfile *cf);

/* Per-open state of requests/<n> (askfile.c): the answer being written. */
struct askfile;

struct askfile *askfile_new(uint64_t ask_id);
void askfile_write(struct askfile *af, fuse_req_t req, const char *buf,
		   size_t size);
void askfile_flush(struct askfile *af, fuse_req_t req);
void askfile_free(struct askfile *af);

extern const struct fuse_lowlevel_ops mcpfs_ops;
void fs_set_session(struct fuse_session *se);
void fs_session_gone(uint64_t server_id, const char *name);

#endif
