/*
 * program.h - starting and stopping the sessions side: the options and
 * hooks of the mount, the config files, the server supervisor, shutdown.
 * fs/main.c alone calls these; the front doors work through sessions.h.
 */
#ifndef MCPFS_PROGRAM_H
#define MCPFS_PROGRAM_H

#include "sessions.h"

struct mcp_options {
	double idle_timeout;    /* seconds, 0 = never */
	double call_timeout;    /* seconds, 0 = unlimited */
	unsigned max_sessions;  /* cap on live threads (mkdir: EAGAIN) */
	size_t max_line;        /* longest stdout line accepted from a server */
	const char *self_exe;   /* path of the mcpfs binary (exec helper) */
	const char *start_dir;  /* where mcpfs was started: servers' cwd */
	int notrace;            /* -o notrace: no thread keeps a trace */
};

/* Notifications from sessions/ to fs/ (for kernel cache invalidation). */
struct mcp_hooks {
	/* A session directory went away without an rmdir (idle, cap, reload). */
	void (*session_gone)(uint64_t server_id, const char *name);
	/* The set of servers changed (reload). */
	void (*servers_changed)(void);
	/* A line was added to the events or trace of s (a poll(2) on that
	 * file may wake up, spec 15). */
	void (*log_grew)(uint64_t thread_id, enum mcp_log which);
};

int mcp_init(uv_loop_t *loop, const struct mcp_options *opts,
	     const struct mcp_hooks *hooks);

/* Load (first call) or reload the config file. Returns 0, or -EINVAL with
 * *err set to a malloc'd message naming the file, field and problem (on
 * reload the old config stays in force). path NULL = built-in default. */
int mcp_load_config(const char *path, char **err);
/* The most config files (-c) mcpfs reads. */
#define MCP_MAX_CONFIGS 16

/* Parse n config files (as mcp_load_configs) without keeping them, so
 * that errors reach the terminal before mounting: 0, or -1 with *err
 * (malloc'd, naming the file). */
int mcp_config_check(const char *const *paths, size_t n, const char *dir,
		     char **err);

/* Run as the supervisor of a server (supervise.c): main calls it first
 * when argv[1] is "--mcpfs-exec" (argv: --mcpfs-exec PPID COMMAND
 * ARGS...). Returns, exits or dies of a signal with the server's own
 * exit status; 127 when the command cannot be run or mcpfs is gone. */
int mcp_supervise(int argc, char **argv);

/* The first load of n config files (absolute paths; none = built-in),
 * merged, later files winning by server name; dir: --project DIR or
 * NULL. Every file is watched. Reload with mcp_load_config(NULL, err). */
int mcp_load_configs(const char *const *paths, size_t n, const char *dir,
		     char **err);

/* Close every session (calls in flight fail with "session closed
 * (shutting down: WHY)"); done_cb runs once all processes are reaped and
 * all handles are closed. */
void mcp_shutdown(const char *why, void (*done_cb)(void));

#endif
