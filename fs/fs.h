/*
 * fs.h - the FUSE side: the low-level ops table, and the transaction files
 * (callfile.c) and answer files (askfile.c) it hands open files to.
 */
#ifndef MCPFS_FS_H
#define MCPFS_FS_H

#include <fuse_lowlevel.h>

#include "gbuf.h"
#include "mlog.h"
#include "sessions.h"
#include "surface.h"

#define MAX_REQUEST (16u << 20)
#define MAX_REQUEST_TEXT "16 MiB" /* MAX_REQUEST, for messages */

/*
 * File kinds. An inode number is (object id << 25 | index << 5 | kind):
 * the object is a server or a session; the index numbers a tool, prompt or
 * resource name of the session (mcp_name_intern), a part of result/, a
 * question or a help/ file. What each kind may do is fs_kinds[kind].
 */
enum kind {
	K_DIR, K_CALL, K_TOOLS, K_STATUS, K_STDERR, K_EVENTS, K_TRACE, K_CTL,
	/* spec 9, in a thread directory */
	K_TOOLDIR, K_RESULTDIR, K_RESDIR, K_RESJSON, K_PROMPTDIR,
	K_PROMPTSJSON,
	K_QUESTIONDIR, /* requests/, the server's questions (spec 10) */
	K_TASKDIR,  /* tasks/, the calls run as tasks (spec 15) */
	K_SKILLSDIR, /* skills/, the server's skills (spec 15) */
	K_HELPDIR,  /* help/ of a server or a thread (spec 12) */
	/* ... and in those directories, with an index */
	K_TOOL, K_RESULT, K_RESOURCE, K_PROMPT,
	K_QUESTION, /* requests/<n>: the index is the question's number */
	K_TASK,     /* tasks/<id>: the index is the task's number */
	K_SKILLDIR, K_SKILLFILE, /* below skills/: the index numbers the path */
	K_HELP,     /* help/<tool>, help/prompt:<name> */
	K_AUTH,     /* <server>/auth of a url server (spec 8) */
	/* at the mount's root, each at a fixed inode (kind_info.ino) */
	K_DOTSTATUS, K_README, K_SERVEJSON,
	K_NKINDS
};

struct node;

/*
 * The table of file kinds (as a Plan 9 file server keeps its Qid types):
 * the name a kind has in a server or thread directory, and what it may do.
 * Every op asks here instead of listing kinds.
 */
enum {
	KF_DIR = 1,        /* a directory */
	KF_WRITE = 2,      /* may be opened for writing (mode 0600) */
	KF_SERVER = 4,     /* an entry of every server directory */
	KF_THREAD = 8,     /* an entry of every thread directory */
	KF_INDEXED = 16,   /* one of many, numbered, in a directory above */
	KF_LISTING = 32,   /* listing.c serves its open (and its entries) */
	KF_ROOT = 64,      /* an entry of the mount's root, at inode .ino */
};

struct fh;

/*
 * What an open file of a kind does (fi->fh is a struct fh whose ops are
 * its kind's). Any hook may be NULL: no open work; a read of h->snap
 * (fs_read_snap); a write EBADF; a flush that succeeds; nothing to free.
 */
struct file_ops {
	/* Fill h (kind, session and server ids set) for node n opened with
	 * access mode acc; 0 or -errno. */
	int (*open)(struct fh *h, const struct node *n, int acc);
	/* Instead of open: replies to req itself, now or later, or fails
	 * and frees h (listing.c). */
	void (*open_reply)(fuse_req_t req, fuse_ino_t ino, struct fh *h,
			   struct fuse_file_info *fi);
	void (*read)(struct fh *h, fuse_req_t req, size_t size, off_t off);
	void (*write)(struct fh *h, fuse_req_t req, const char *buf,
		      size_t size);
	void (*flush)(struct fh *h, fuse_req_t req);
	void (*release)(struct fh *h); /* frees what open made */
	/* poll(2): reply with the events now; ph (may be NULL) is the
	 * kernel's to notify when that changes, kept (NULL hook: always
	 * readable and writable) */
	void (*poll)(struct fh *h, fuse_req_t req,
		     struct fuse_pollhandle *ph);
};
/*
 * What a directory does (fs_dir picks it for a node: the root, a server
 * and a thread directory by the node, the others by their kind's .dir).
 * Each op replies to req itself, now or later (a listing may park it);
 * opendir gets h with "." and ".." in it and ends in fs_dir_reply (or
 * fails and frees h). A NULL mkdir is EPERM, rmdir ENOTDIR, unlink EPERM.
 */
struct dir_ops {
	void (*lookup)(fuse_req_t req, fuse_ino_t parent, const struct node *d,
		       const char *name);
	void (*opendir)(fuse_req_t req, fuse_ino_t ino, const struct node *d,
			struct fh *h, struct fuse_file_info *fi);
	void (*mkdir)(fuse_req_t req, const struct node *d, const char *name);
	void (*rmdir)(fuse_req_t req, const struct node *d, const char *name);
	void (*unlink)(fuse_req_t req, const struct node *d, const char *name);
};
/* dirs.c: the root, a server, a thread, requests/ and tasks/; listing.c:
 * tools/, prompts/, resources/, result/, help/, and skills/ and its
 * folders (listing_tree_dir: rmdir too) */
extern const struct dir_ops root_dir, server_dir, thread_dir, numbered_dir,
	listing_dir, listing_tree_dir;

/*
 * listing.c: what a kind of fs_kinds does there (its .lops), each step run
 * again from the start when it waited for a call: 1 done, 0 when it waits
 * for *wait (a reference), or -errno. have: the call the step waited for
 * (NULL at the first run); got: the listings this request got so far
 * (listing_need).
 */
struct listing_ops {
	/* a directory: the index of entry name in *idx (-1: none), of kind
	 * *child (set to the directory's .child before the call) */
	int (*entry)(const struct node *d, const char *name, mcp_call *have,
		     mcp_call **got, mcp_call **wait, long *idx,
		     enum kind *child);
	/* a directory: its entries added to h */
	int (*fill)(fuse_req_t req, const struct node *d, struct fh *h,
		    mcp_call **got, mcp_call **wait);
	/* a file: h made ready for reading */
	int (*open)(const struct node *n, struct fh *h,
		    struct fuse_file_info *fi, mcp_call *have, mcp_call **got,
		    mcp_call **wait);
	/* an interrupted wait of open cancels the call it waited for (never
	 * a listing) */
	int cancel;
};
extern const struct listing_ops helpdir_lops, resultdir_lops, resdir_lops,
	namedir_lops, help_lops, result_lops, tool_lops, promptsjson_lops,
	resjson_lops, resource_lops, skilldir_lops, skillfile_lops;
/* The listing what of n's thread (of its server's one-shots when n is a
 * server's): 1 with *c done, 0 when it is not there yet (*c
 * to wait for), -errno; the one this request got before (got[what]) if
 * any, else kept there. */
int listing_need(const struct node *n, enum mcp_list what, mcp_call **got,
		 mcp_call **c);

struct kind_info {
	const char *name;  /* in a server, thread or root directory, else NULL */
	unsigned flags;
	/* st_size: the length of content in memory that a fresh read by
	 * process reader would return (spec 12); NULL or 0 = unknown (a kind
	 * with snap: the length of what snap makes). Sends no request. */
	off_t (*size)(const struct node *n, pid_t reader);
	/* a listing directory: the kind of its entries, and the listing
	 * that names them */
	enum kind child;
	enum mcp_list list;
	const struct file_ops *ops; /* NULL: a directory */
	/* a directory below a server or thread directory: what it does */
	const struct dir_ops *dir;
	/* a directory or file of listing.c: its steps there */
	const struct listing_ops *lops;
	/* a snapshot kind (snapfile.c): its content, made at the open;
	 * NULL when out of memory */
	mcp_buf *(*snap)(const struct node *n);
	/* NULL or whether the node is there now (else ENOENT) */
	int (*present)(const struct node *n);
	/* NULL or its times (mtime and ctime), else the session's */
	double (*created)(const struct node *n);
	/* a directory whose entries (of kind child) the session names and
	 * numbers (requests/, tasks/): the index of the one called name (0:
	 * none), and the name of the one after index *i (0: the first), its
	 * index then in *i, NULL after the last */
	unsigned long (*find)(const struct node *dir, const char *name);
	const char *(*next)(const struct node *dir, unsigned long *i);
	fuse_ino_t ino;   /* KF_ROOT: its inode number */
	const char *what; /* an entry's kind in messages: "tool" */
};
extern const struct kind_info fs_kinds[K_NKINDS];
/* kinds.c: the ops of directory n (NULL: n is no directory), and the
 * inode of its parent. */
const struct dir_ops *fs_dir(const struct node *n);
fuse_ino_t fs_dir_parent(const struct node *n);
#define KIND_IS(k, f) ((fs_kinds[k].flags & (f)) != 0)

#define KIND_BITS 5
#define INDEX_BITS 20

/* A resolved inode. */
struct node {
	enum { N_ROOT, N_ROOTFILE, N_SERVER, N_THREAD } type;
	enum kind kind;
	unsigned long idx;
	mcp_server *srv;
	mcp_session *s;
	struct mcp_stat st;  /* of s, or of srv when s is NULL */
};

/* Every producer of an index keeps it below 1 << INDEX_BITS (names:
 * MCP_NAMES_MAX; result/: MCP_PARTS_MAX blocks; requests/: ASK_NUM_MAX;
 * tasks/: TASK_NUM_MAX);
 * the mask is the last guard that an index never reaches the id's bits. */
#define INDEX_MASK ((1ul << INDEX_BITS) - 1)
static inline fuse_ino_t ino_make(uint64_t id, unsigned long idx,
				  enum kind k)
{
	return (fuse_ino_t)(id << (KIND_BITS + INDEX_BITS) |
			    (uint64_t)(idx & INDEX_MASK) << KIND_BITS | k);
}

#define ROOT_INO 1 /* the root's files: fs_kinds[k].ino, from 2 on */

/* node.c */
void node_mount_time(double t);
fuse_ino_t fs_ino(uint64_t id, enum kind k); /* index 0 */
int fs_resolve(fuse_ino_t ino, struct node *n);
/* The server, thread or question of id (mcp_lookup), NULL when gone or
 * another kind's (0 is no object's id). */
static inline void *fs_object(uint64_t id, enum mcp_kind kind)
{
	struct mcp_stat st;

	if (mcp_lookup(id, kind, &st) < 0)
		return NULL;
	return kind == MCP_SERVER ? (void *)st.server
	       : kind == MCP_THREAD ? (void *)st.session : (void *)st.ask;
}
#define fs_server(id) ((mcp_server *)fs_object(id, MCP_SERVER))
#define fs_thread(id) ((mcp_session *)fs_object(id, MCP_THREAD))
#define fs_question(id) ((mcp_ask *)fs_object(id, MCP_QUESTION))
/* The question numbered num of n's thread (requests/NUM): 0 with *st, or
 * -ENOENT (none, or n is no thread's). */
static inline int fs_question_at(const struct node *n, unsigned long num,
				 struct mcp_stat *st)
{
	char name[24];

	snprintf(name, sizeof name, "%lu", num);
	return n->s ? mcp_walk(n->st.id, name, st) : -ENOENT;
}
/* The attributes of n as process reader sees them (st_size: the length
 * a fresh read by it would return, where that is in memory). */
void node_attr(fuse_ino_t ino, const struct node *n, pid_t reader,
	       struct stat *st);
void fs_reply_entry(fuse_req_t req, fuse_ino_t ino, const struct node *n);
/* Per-open state of every file and directory (fi->fh). */
struct fh {
	enum kind kind;
	const struct file_ops *ops; /* fs_kinds[kind].ops (a file) */
	uint64_t thread_id;
	uint64_t server_id;      /* auth */
	mcp_buf *snap;           /* the bytes read: status, stderr, result/... */
	struct callfile *cf;     /* call, tools.json, tools/x, prompts/x */
	struct askfile *af;      /* requests/<n> */
	union {                  /* the kind's own part: */
		struct {         /* a directory (ops NULL) */
			struct gbuf dir; /* readdir snapshot */
			/* a directory added to as it is read (skillsdir.c):
			 * more adds the entries that fit below upto bytes
			 * of dir (all when they do not all fit: a part at
			 * each readdir, never the whole folder at once) */
			int (*more)(struct fh *h, fuse_req_t req, size_t upto);
			mcp_call *list;  /* ... from the entry list_at (-1: no
					  * more) of this listing (a
					  * reference) */
			long list_at;
			uint64_t list_dir; /* ... the directory's id
					      (ino_make) */
		};
		struct gbuf line; /* ctl: a line held until close
				   * (ctlfile.c; oom set: its open takes
				   * no more) */
		struct logfh *log; /* events, trace: where a reader is,
				    * logfile.c's (made at open) */
	};
	LIST_ENTRY(fh) link;     /* every open one (fs_fh_new) */
};

/* A new per-open state, zeroed and listed (node.c, as the three below);
 * NULL when out of memory. */
struct fh *fs_fh_new(void);
void fs_fh_free(struct fh *h);
/* At exit: free what is still open (the kernel sends no release for a
 * file open when the mount goes away with mcpfs). */
void fs_fh_free_all(void);
/* Fail an open that holds its session: free h, release, reply err. */
void fs_open_fail(fuse_req_t req, struct fh *h, int err);
/* A directory being listed: add one entry (fuse_add_direntry). */
int fs_dir_add(struct fh *h, fuse_req_t req, const char *name,
	       fuse_ino_t ino, int isdir);
/* A directory's entries all added: the opendir's reply (h is fi->fh). */
void fs_dir_reply(fuse_req_t req, struct fh *h, struct fuse_file_info *fi);

/* snapfile.c: a file whose content is made at its open (h->snap) */
extern const struct file_ops snap_ops;
void fs_read_snap(struct fh *h, fuse_req_t req, size_t size, off_t off);
/* logfile.c: events and trace, the session's logs (spec 4) */
extern const struct file_ops events_ops, trace_ops;
/* A line was added to log which of s: its waiting polls are woken. */
void fs_log_grew(uint64_t thread_id, enum mcp_log which);
/* ctlfile.c: ctl, a thread's verbs */
extern const struct file_ops ctl_ops;

/* listing.c: tools/, resources/, prompts/, result/ and the .json files */
/* Each replies to req itself, now or once a listing arrives. */
void listing_open(fuse_req_t req, fuse_ino_t ino, struct fh *h,
		  struct fuse_file_info *fi);
/* a snapshot opened by listing.c (help/, result/, resources/, .json) */
extern const struct file_ops listing_snap_ops;

/* Per-open state of call and tools.json (fi->fh). */
struct callfile;
/* call and tools.json; tools/x and prompts/x (opened by listing.c) */
extern const struct file_ops call_ops, toolsjson_ops, tool_ops;
/* call_ops' hooks (tool_ops in listing.c has them too) */
void callfile_fh_read(struct fh *h, fuse_req_t req, size_t size, off_t off);
void callfile_fh_write(struct fh *h, fuse_req_t req, const char *buf,
		       size_t size);
void callfile_fh_flush(struct fh *h, fuse_req_t req);
void callfile_fh_release(struct fh *h);

/* listing: tools.json (the tools listing, read at offsets); prompt:
 * prompts/x (the request a prompts/get); write_only: opened O_WRONLY (nothing to queue for reading; for tools/x
 * and prompts/x, a last close with nothing written sends {}). NULL with
 * errno set (ENOENT: the thread or server is gone; ENOMEM). */
struct callfile *callfile_new(int listing, int prompt, uint64_t server_id,
			      uint64_t thread_id, int write_only);
/* The call a fresh read (an open file that sent nothing) of call, or of
 * tools/x or prompts/x with key "t:x" or "p:x", by process pid would read
 * now (spec 4; writers.h): 0 with *c (borrowed; NULL: none, it reads as
 * empty), -ENOENT (the thread or server is gone), -ENOMEM or -EMFILE
 * (the reader's lineage could not be learnt). Sends nothing. */
int callfile_fresh(uint64_t server_id, uint64_t thread_id, const char *key,
		   pid_t pid, mcp_call **c);
/* tools/<tool> and prompts/<prompt>: the request is the arguments object,
 * sent as a tools/call or prompts/get of name. */
int callfile_target(struct callfile *cf, const char *name);
void callfile_write(struct callfile *cf, fuse_req_t req, const char *buf,
		    size_t size);
void callfile_read(struct callfile *cf, fuse_req_t req, size_t size,
		   off_t off);
void callfile_flush(struct callfile *cf, fuse_req_t req);
/* The last close (release), or a failed open: for tools/x opened O_WRONLY,
 * closed with nothing written, sends {} first. */
void callfile_free(struct callfile *cf);

/* Per-open state of requests/<n> (askfile.c): the answer being written. */
struct askfile;

extern const struct file_ops ask_ops;
struct askfile *askfile_new(uint64_t ask_id);
void askfile_write(struct askfile *af, fuse_req_t req, const char *buf,
		   size_t size);
void askfile_flush(struct askfile *af, fuse_req_t req);
void askfile_free(struct askfile *af);

/* authfile.c: <server>/auth */
extern const struct file_ops authfile_ops;

extern const struct fuse_lowlevel_ops mcpfs_ops;
void fs_set_session(struct fuse_session *se);
void fs_session_gone(uint64_t server_id, const char *name);

#endif
