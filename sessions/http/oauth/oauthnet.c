/*
 * oauthnet.c - the address check of the OAuth client's requests (spec 8).
 * A remote server can name any URL in its 401 challenge or its metadata;
 * without a check mcpfs would GET (or POST to) whatever sits on the user's
 * own machine or network. Every socket the discovery, registration, token
 * and revocation requests open passes through curl's open-socket callback
 * here, so the address checked is the one connected to (a name that
 * resolves to 127.0.0.1 is caught too). Loopback ranks above private above
 * public: a server on loopback may send mcpfs anywhere, one on a private
 * network to private and public addresses, a public one only to public
 * ones. The server's own class is learnt once per server from its URL's
 * host, by uv_getaddrinfo for a name (off the loop thread).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>

#include "oauth.h"
#include "oauthnet.h"
#include "oauthutil.h"
#include "sessions.h"

static int v4_class(uint32_t a)
{
	static const struct { uint32_t net, mask; int cls; } t[] = {
		{0x7f000000, 0xff000000, NET_LOOPBACK},  /* 127/8 */
		{0x00000000, 0xff000000, NET_LOOPBACK},  /* 0/8: this host */
		{0x0a000000, 0xff000000, NET_PRIVATE},   /* 10/8 */
		{0xac100000, 0xfff00000, NET_PRIVATE},   /* 172.16/12 */
		{0xc0a80000, 0xffff0000, NET_PRIVATE},   /* 192.168/16 */
		{0xa9fe0000, 0xffff0000, NET_PRIVATE},   /* 169.254/16 */
		{0x64400000, 0xffc00000, NET_PRIVATE},   /* 100.64/10 */
		{0xc0000000, 0xffffff00, NET_PRIVATE},   /* 192.0.0/24 */
		{0xc0000200, 0xffffff00, NET_PRIVATE},   /* 192.0.2/24 */
		{0xc6120000, 0xfffe0000, NET_PRIVATE},   /* 198.18/15 */
		{0xc6336400, 0xffffff00, NET_PRIVATE},   /* 198.51.100/24 */
		{0xcb007100, 0xffffff00, NET_PRIVATE},   /* 203.0.113/24 */
		{0xe0000000, 0xe0000000, NET_PRIVATE},   /* multicast, 240/4 */
	};
	size_t i;

	for (i = 0; i < sizeof t / sizeof *t; i++)
		if ((a & t[i].mask) == t[i].net)
			return t[i].cls;
	return NET_PUBLIC;
}

int oauth_net_class(const struct sockaddr *sa)
{
	if (sa->sa_family == AF_INET)
		return v4_class(ntohl(((const struct sockaddr_in *)sa)
				      ->sin_addr.s_addr));
	if (sa->sa_family == AF_INET6) {
		const struct in6_addr *a =
			&((const struct sockaddr_in6 *)sa)->sin6_addr;
		uint32_t v4;

		if (IN6_IS_ADDR_V4MAPPED(a) || IN6_IS_ADDR_V4COMPAT(a)) {
			memcpy(&v4, a->s6_addr + 12, 4);
			return v4_class(ntohl(v4));
		}
		if (IN6_IS_ADDR_LOOPBACK(a) || IN6_IS_ADDR_UNSPECIFIED(a))
			return NET_LOOPBACK;
		if (IN6_IS_ADDR_LINKLOCAL(a) || IN6_IS_ADDR_SITELOCAL(a) ||
		    IN6_IS_ADDR_MULTICAST(a) || (a->s6_addr[0] & 0xfe) == 0xfc)
			return NET_PRIVATE;     /* fe80::/10, fc00::/7 */
		return NET_PUBLIC;
	}
	return NET_PRIVATE;             /* unix sockets and the like */
}

struct lookup {
	uv_getaddrinfo_t req;
	struct oauth *o;
};

static void learnt_cb(uv_getaddrinfo_t *req, int status, struct addrinfo *ai)
{
	struct lookup *l = req->data;
	struct addrinfo *a;
	int cls = NET_PUBLIC;

	/* a name that resolves to several classes counts as the lowest:
	 * what a resolver may answer to one query it may answer to curl */
	for (a = status == 0 ? ai : NULL; a; a = a->ai_next) {
		int c = oauth_net_class(a->ai_addr);

		cls = a == ai || c < cls ? c : cls;
	}
	if (l->o) {
		l->o->net_class = cls;
		l->o->net_lookup = NULL;
	}
	uv_freeaddrinfo(ai);
	free(l);
}

void oauth_net_learn(struct oauth *o, uv_loop_t *loop)
{
	CURLU *u = curl_url();
	char *host = NULL;
	struct sockaddr_in6 s6;
	struct sockaddr_in s4;
	struct addrinfo hints;
	struct lookup *l;
	size_t n;

	o->net_class = NET_PUBLIC;
	if (!u || curl_url_set(u, CURLUPART_URL, o->url, 0) ||
	    curl_url_get(u, CURLUPART_HOST, &host, 0)) {
		curl_url_cleanup(u);
		return;
	}
	curl_url_cleanup(u);
	n = strlen(host);
	if (n >= 2 && host[0] == '[') {   /* [v6] */
		host[n - 1] = 0;
		memset(&s6, 0, sizeof s6);
		s6.sin6_family = AF_INET6;
		if (inet_pton(AF_INET6, host + 1, &s6.sin6_addr) == 1)
			o->net_class = oauth_net_class((struct sockaddr *)&s6);
	} else if (memset(&s4, 0, sizeof s4),
		   inet_pton(AF_INET, host, &s4.sin_addr) == 1) {
		s4.sin_family = AF_INET;
		o->net_class = oauth_net_class((struct sockaddr *)&s4);
	} else if (!strcasecmp(host, "localhost") ||
		   (n > 10 && !strcasecmp(host + n - 10, ".localhost"))) {
		o->net_class = NET_LOOPBACK;
	} else if ((l = calloc(1, sizeof *l)) != NULL) {
		memset(&hints, 0, sizeof hints);
		hints.ai_socktype = SOCK_STREAM;
		l->o = o;
		l->req.data = l;
		if (uv_getaddrinfo(loop, &l->req, learnt_cb, host, NULL,
				   &hints) == 0)
			o->net_lookup = l;
		else
			free(l);
	}
	curl_free(host);
}

void oauth_net_forget(struct oauth *o)
{
	struct lookup *l = o->net_lookup;

	if (l)
		l->o = NULL;
	o->net_lookup = NULL;
}

static curl_socket_t opensocket_cb(void *ud, curlsocktype purpose,
				   struct curl_sockaddr *a)
{
	struct oauth_netguard *g = ud;
	int cls = oauth_net_class(&a->addr);

	if (cls > g->o->net_class) {
		g->blocked = 1;
		g->what = cls == NET_LOOPBACK ? "loopback" : "private";
		return CURL_SOCKET_BAD;
	}
	return socket(a->family, a->socktype | SOCK_CLOEXEC, a->protocol);
}

void oauth_net_guard(CURL *e, struct oauth_netguard *g)
{
	g->blocked = 0;
	curl_easy_setopt(e, CURLOPT_OPENSOCKETFUNCTION, opensocket_cb);
	curl_easy_setopt(e, CURLOPT_OPENSOCKETDATA, g);
}

void oauth_log_url(int level, const struct oauth *o, const char *what,
		   const char *url)
{
	char *origin = url ? oauth_url_origin(url) : NULL;

	mod_log(level, "server %s: auth: %s %s", o->name, what,
	     origin ? origin : "(a URL)");
	free(origin);
}

static void drop_cb(uv_handle_t *h)
{
	free(h);
}

int oauth_net_drop(uv_stream_t *srv)
{
	uv_tcp_t *t = malloc(sizeof *t);

	if (!t)
		return -ENOMEM;
	uv_tcp_init(srv->loop, t);
	uv_accept(srv, (uv_stream_t *)t);
	uv_close((uv_handle_t *)t, drop_cb);
	return 0;
}
