/*
 * oauthnet.h - where the OAuth client may connect (spec 8, oauthnet.c):
 * a URL taken from a 401 or from metadata that resolves to a loopback or
 * private address is refused unless the MCP server itself is on one.
 */
#ifndef MCPFS_OAUTHNET_H
#define MCPFS_OAUTHNET_H

#include <curl/curl.h>
#include <uv.h>

struct oauth;
struct sockaddr;

/* Address classes, ordered: a target is allowed when its class is at most
 * the server's. */
enum { NET_PUBLIC, NET_PRIVATE, NET_LOOPBACK };

/* The class of an IPv4 or IPv6 address (v4-mapped v6 as v4). */
int oauth_net_class(const struct sockaddr *sa);
/* Start learning the class of the MCP server's own host (o->url): an IP
 * literal or "localhost" at once, a name by an asynchronous lookup on
 * loop. Until known, the server counts as public (fail closed). */
void oauth_net_learn(struct oauth *o, uv_loop_t *loop);
/* Forget o in a lookup still running (o is being freed). */
void oauth_net_forget(struct oauth *o);

/* Set on an easy handle: each socket curl opens is checked against the
 * server's class; a refused one sets g->blocked (curl then fails with
 * CURLE_COULDNT_CONNECT) and names the address class in g->what. */
struct oauth_netguard {
	const struct oauth *o;
	int blocked;
	const char *what;
};
void oauth_net_guard(CURL *e, struct oauth_netguard *g);

/* A log line "server NAME: auth: WHAT ORIGIN": a URL is logged by its
 * origin only (spec 6: hosted servers put keys in paths and queries). */
void oauth_log_url(int level, const struct oauth *o, const char *what,
		   const char *url);

/* Accept the connection pending on srv and close it at once (a listener
 * whose callback accepts nothing stops hearing of new ones). 0 or
 * -ENOMEM. */
int oauth_net_drop(uv_stream_t *srv);

#endif
