/*
 * serve.h - the second front door (spec 14): the mount spoken to as one MCP
 * server, on the session core of sessions/sessions.h, so that an agent and
 * a shell share one live thread.
 *
 * A client's MCP session is a peer. Its transport (serve/unix.c behind
 * `mcpfs serve`, serve/http.c behind --serve) hands the peer one JSON-RPC
 * message at a time and carries out what the peer sends back; the peer
 * knows nothing of the transport but the tag each message came with.
 */
#ifndef MCPFS_SERVE_H
#define MCPFS_SERVE_H

#include <stddef.h>
#include <stdint.h>

struct serve_peer;

/* How a peer's messages leave; the transport embeds it. */
struct serve_out {
	/* One message for the client, a complete JSON text without a
	 * newline (borrowed for the call). tag: the tag of the client's
	 * message it belongs to (the reply to that request, or a progress
	 * notification or a server request made while it runs); 0 when it
	 * belongs to none (list_changed, logging). last: 1 when it is the
	 * reply that ends tag's request. */
	void (*send)(struct serve_out *o, const char *json, size_t len,
		     uint64_t tag, int last);
	/* 1: send carries requests to the client (a server's elicitation
	 * or sampling, with last = 0) and the transport hands the client's
	 * responses to serve_peer_input; 0: such questions wait under
	 * requests/ for the shell. */
	int asks;
};

/* A new client session whose calls run in the thread named thread of each
 * server (made on first use), or in serve-N threads of its own when thread
 * is NULL. NULL when out of memory. */
struct serve_peer *serve_peer_new(const char *thread, struct serve_out *out);
/* One message from the client (len bytes of JSON). tag: nonzero, the
 * transport's name for it. Returns 1 for a request (its reply will be sent
 * with this tag and last = 1), 0 when nothing will answer (a notification
 * or a response), -EINVAL for what is not a JSON-RPC message (the error
 * reply has been sent with this tag and last = 1 when it had an id). */
int serve_peer_input(struct serve_peer *p, const char *json, size_t len,
		     uint64_t tag);
/* The transport of tag went away before its reply (an HTTP POST whose
 * connection closed): that request is cancelled. */
void serve_peer_drop(struct serve_peer *p, uint64_t tag);
/* The client session ended: its calls in flight are cancelled, its serve-N
 * threads close, named threads stay; send is not called again and p is
 * freed. */
void serve_peer_end(struct serve_peer *p);

/* serve/scope.c: what a client sees (spec 14). servers: "a,b", the only
 * servers it lists and reaches (NULL: every one); tools: "all" or
 * "search" (the three tools of the search surface; NULL: the mount's
 * default, -o serve_tools, which serve_tools_default sets: 0 or
 * -EINVAL). check, before the client's session starts: 0, or -EINVAL
 * with why (no such server, saying which there are; a bad tools). scope,
 * of a new peer after the check: 0 or -ENOMEM. refusal: the JSON-RPC
 * error answering the request body with why (malloc'd, NULL on ENOMEM). */
int serve_tools_default(const char *tools);
int serve_scope_check(const char *servers, const char *tools, char *why,
		      size_t n);
int serve_peer_scope(struct serve_peer *p, const char *servers,
		     const char *tools);
char *serve_scope_refusal(const char *body, size_t len, const char *why);

/* serve/unix.c: `mcpfs serve` joins a mount through a unix socket of its
 * own. serve_listen after the mount (0, or -errno: logged, the mount
 * goes on without it); serve_close at shutdown (every client's session
 * ends). The socket's path for a mountpoint (make: its directory too):
 * 0, or -errno; out holds the path also when its directory is refused
 * (so a message can name it), "" when mnt itself cannot be resolved. */
#include <uv.h>
int serve_listen(uv_loop_t *loop, const char *mountpoint);
void serve_close(void);
int serve_socket_path(const char *mnt, char *out, size_t n, int make);
/* `mcpfs serve [--thread NAME] [--servers a,b] [--tools all|search]
 * MOUNTPOINT` (argv[0] is "serve"): relays
 * stdin and stdout to the mount; the exit status. */
int serve_relay(int argc, char **argv);

/* serve/http.c: --serve [ADDR:]PORT, Streamable HTTP (spec 14), in the
 * module mcpfs-serve.so that serve/door.c loads (door.h). check, at start
 * before the mount, loads it: 0, -ENOEXEC when it cannot be loaded (err
 * says why), -EINVAL for what is no address to listen at, -EPERM for a
 * non-loopback one without remote (-o serve_remote). start after the
 * mount (0, or -errno: logged); stop at shutdown (nothing when never
 * loaded). */
struct serve_http_opts {
	const char *addr;           /* [ADDR:]PORT */
	const char *mountpoint;     /* whose token is kept (serve_token) */
	size_t max_message;         /* a body's limit (413); 4 x: all bodies' */
	unsigned idle;              /* -o serve_idle: seconds a session lives
				     * with no request and no open stream */
	unsigned connections;       /* -o serve_connections */
	int remote;                 /* -o serve_remote */
};
int serve_http_check(const char *addr, int remote, char *err, size_t n);
int serve_http_start(uv_loop_t *loop, const struct serve_http_opts *o);
void serve_http_stop(void);

#endif
