/*
 * curluv.c - libcurl's multi interface on the libuv loop (contract in
 * curluv.h). One multi handle for the process: curl's socket callback keeps
 * a uv_poll per socket, its timer callback one uv_timer; both call
 * curl_multi_socket_action, after which finished transfers are reported,
 * killed ones removed and deferred ones started.
 */
#include <errno.h>
#include <stdlib.h>
#include <sys/queue.h>

#include "buildconfig.h"
#include "curluv.h"

struct sock {
	uv_poll_t poll;
	curl_socket_t fd;
	LIST_ENTRY(sock) link;
};

static CURLM *multi;
static uv_timer_t multi_timer;
static LIST_HEAD(, sock) socks = LIST_HEAD_INITIALIZER(socks);
static uv_loop_t *loop;
static TAILQ_HEAD(, cu_xfer) dead = TAILQ_HEAD_INITIALIZER(dead),
	starting = TAILQ_HEAD_INITIALIZER(starting),
	nomem = TAILQ_HEAD_INITIALIZER(nomem);
static int in_curl;

static void check_done(void);

/* ---- the multi handle on the loop ---- */

static void sock_free_cb(uv_handle_t *hd)
{
	free(hd->data);
}

static void sock_close(struct sock *k)
{
	LIST_REMOVE(k, link);
	uv_close((uv_handle_t *)&k->poll, sock_free_cb);
}

static void reap(void)
{
	struct cu_xfer *x;

	if (in_curl)
		return;
	while ((x = TAILQ_FIRST(&dead)) != NULL) {
		TAILQ_REMOVE(&dead, x, qlink);
		if (x->easy) {
			curl_multi_remove_handle(multi, x->easy);
			curl_easy_cleanup(x->easy);
			x->easy = NULL;
		}
		x->release(x);
	}
}

/* Hand the transfers started inside curl's callbacks to curl. */
static void start_waiting(void)
{
	struct cu_xfer *x;

	while (!in_curl && (x = TAILQ_FIRST(&starting)) != NULL) {
		TAILQ_REMOVE(&starting, x, qlink);
		x->waiting = 0;
		if (cu_start(x) < 0)
			cu_kill(x);
	}
}

/* The transfers whose socket could not be watched for want of memory
 * (socket_cb) end with CURLE_OUT_OF_MEMORY, as finished ones do. */
static void fail_nomem(void)
{
	struct cu_xfer *x;

	while ((x = TAILQ_FIRST(&nomem)) != NULL) {
		TAILQ_REMOVE(&nomem, x, qlink);
		x->nomem = 0;
		in_curl++;
		x->done(x, CURLE_OUT_OF_MEMORY);
		in_curl--;
	}
}

static void socket_action(curl_socket_t fd, int flags)
{
	int running;

	in_curl++;
	curl_multi_socket_action(multi, fd, flags, &running);
	in_curl--;
	check_done();
	fail_nomem();
	reap();
	start_waiting();
}

static void poll_cb(uv_poll_t *p, int status, int events)
{
	struct sock *k = p->data;
	int flags = 0;

	if (status < 0)
		flags = CURL_CSELECT_ERR;
	if (events & UV_READABLE)
		flags |= CURL_CSELECT_IN;
	if (events & UV_WRITABLE)
		flags |= CURL_CSELECT_OUT;
	socket_action(k->fd, flags);
}

static int socket_cb(CURL *e, curl_socket_t fd, int what, void *userp,
		     void *socketp)
{
	struct sock *k = socketp;
	int ev = 0;

	if (what == CURL_POLL_REMOVE) {
		if (k) {
			uv_poll_stop(&k->poll);
			curl_multi_assign(multi, fd, NULL);
			sock_close(k);
		}
		return 0;
	}
	if (!k) {
		k = calloc(1, sizeof *k);
		if (!k || uv_poll_init_socket(loop, &k->poll, fd) < 0) {
			struct cu_xfer *x = NULL;

			/* not -1, which would make curl fail every transfer:
			 * this one fails once curl returns (fail_nomem) */
			free(k);
			curl_easy_getinfo(e, CURLINFO_PRIVATE, &x);
			if (x && !x->dead && !x->nomem) {
				x->nomem = 1;
				TAILQ_INSERT_TAIL(&nomem, x, qlink);
			}
			return 0;
		}
		k->fd = fd;
		k->poll.data = k;
		LIST_INSERT_HEAD(&socks, k, link);
		curl_multi_assign(multi, fd, k);
	}
	if (what & CURL_POLL_IN)
		ev |= UV_READABLE;
	if (what & CURL_POLL_OUT)
		ev |= UV_WRITABLE;
	uv_poll_start(&k->poll, ev, poll_cb);
	return 0;
}

static void multi_timer_cb(uv_timer_t *t)
{
	socket_action(CURL_SOCKET_TIMEOUT, 0);
}

static int timer_cb(CURLM *m, long ms, void *userp)
{
	if (ms < 0)
		uv_timer_stop(&multi_timer);
	else
		uv_timer_start(&multi_timer, multi_timer_cb, (uint64_t)ms, 0);
	return 0;
}

int cu_init(uv_loop_t *l)
{
	if (multi)
		return 0;
	loop = l;
	if (curl_global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK)
		return -ENOMEM;
	multi = curl_multi_init();
	if (!multi) {
		curl_global_cleanup();
		return -ENOMEM;
	}
	uv_timer_init(loop, &multi_timer);
	curl_multi_setopt(multi, CURLMOPT_SOCKETFUNCTION, socket_cb);
	curl_multi_setopt(multi, CURLMOPT_TIMERFUNCTION, timer_cb);
	return 0;
}

void cu_fini(void)
{
	if (!multi)
		return;
	curl_multi_cleanup(multi); /* closes cached connections */
	multi = NULL;
	while (!LIST_EMPTY(&socks))
		sock_close(LIST_FIRST(&socks));
	uv_close((uv_handle_t *)&multi_timer, NULL);
	curl_global_cleanup();
}

int cu_start(struct cu_xfer *x)
{
	if (x->dead || x->waiting)
		return 0;
	if (in_curl) {
		x->waiting = 1;
		TAILQ_INSERT_TAIL(&starting, x, qlink);
		return 0;
	}
	return curl_multi_add_handle(multi, x->easy) == CURLM_OK ? 0 : -EIO;
}

void cu_kill(struct cu_xfer *x)
{
	if (x->dead)
		return;
	x->dead = 1;
	if (x->waiting) {
		TAILQ_REMOVE(&starting, x, qlink);
		x->waiting = 0;
	}
	if (x->nomem) {
		TAILQ_REMOVE(&nomem, x, qlink);
		x->nomem = 0;
	}
	TAILQ_INSERT_TAIL(&dead, x, qlink);
	reap();
}

static void check_done(void)
{
	CURLMsg *m;
	int left;

	while ((m = curl_multi_info_read(multi, &left)) != NULL) {
		struct cu_xfer *x = NULL;

		if (m->msg != CURLMSG_DONE)
			continue;
		curl_easy_getinfo(m->easy_handle, CURLINFO_PRIVATE, &x);
		if (!x || x->dead)
			continue;
		in_curl++;
		x->done(x, m->data.result);
		in_curl--;
	}
}

void cu_defaults(struct cu_xfer *x)
{
	CURL *e = x->easy;

	curl_easy_setopt(e, CURLOPT_PRIVATE, x);
	curl_easy_setopt(e, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(e, CURLOPT_CONNECTTIMEOUT_MS, 10000L);
	curl_easy_setopt(e, CURLOPT_PROTOCOLS_STR, "http,https");
	curl_easy_setopt(e, CURLOPT_USERAGENT, "mcpfs/" MCPFS_VERSION);
}
