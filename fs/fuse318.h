/* fs/fuse318.h - bench only (fuse318.c; built with -Dfuse_prefix only):
 * io_uring's ring threads hand each operation to the loop; passthrough of
 * a finished big reply. */
#ifndef MCPFS_FUSE318_H
#define MCPFS_FUSE318_H

#include <uv.h>
#include <fuse_lowlevel.h>

/* ops wrapped: an operation a ring thread brings runs on the loop */
const struct fuse_lowlevel_ops *
fuse318_ops(const struct fuse_lowlevel_ops *ops);
void fuse318_start(uv_loop_t *loop);
/* op_open of n, before its reply: with MCPFS_BENCH_PASSTHROUGH=1, a
 * finished reply of 1 MiB or more as a passthrough backing file */
struct node;
void fuse318_open(fuse_req_t req, const struct node *n,
		  struct fuse_file_info *fi);
void fuse318_stop(void);

#endif
