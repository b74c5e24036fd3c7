/*
 * subscribe.c - resource subscriptions of a thread (spec 15): `subscribe
 * URI` and `unsubscribe URI` written to ctl send resources/subscribe and
 * resources/unsubscribe, to a server whose capabilities say
 * resources.subscribe (EOPNOTSUPP otherwise). The thread keeps the URIs
 * (s->subs, shown as status.subscriptions) until unsubscribed or closed,
 * and sends them again at every handshake, so a restart renews them. The
 * server's notifications/resources/updated are lines in events like every
 * notification; a file of resources/ is read afresh at each open, so the
 * next read after an update is the new content.
 *
 * A subscription asked for before the handshake is sent once the session
 * is ready. A server that refuses one (an error reply) or turns out not
 * to offer subscriptions loses it, with the reason in status.last_error.
 *
 * Bounded (spec 6): a thread keeps at most SUBS_MAX subscriptions (the
 * next is ENOSPC, as inotify_add_watch past its limit), a URI is at most
 * SUBS_URI_MAX bytes and holds no control character (C0, DEL or C1):
 * EINVAL, never cut. Each refusal says why in status.last_error.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

#define SUBS_MAX 1024
#define SUBS_URI_MAX 4096
#define STR_(x) #x
#define STR(x) STR_(x)

/* A sent request whose reply says whether the subscription took. */
struct sub_wait {
	struct mcp_listener l;
	uint64_t session_id;
	int on;
	char uri[];
};

static int offers(const mcp_session *s)
{
	cJSON *r = cJSON_GetObjectItemCaseSensitive(s->capabilities,
						    "resources");

	return cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(r, "subscribe"));
}

/* The index of uri in s->subs, or -1. */
static int find(const mcp_session *s, const char *uri)
{
	const cJSON *it;
	int i = 0;

	cJSON_ArrayForEach(it, s->subs) {
		if (!strcmp(it->valuestring, uri))
			return i;
		i++;
	}
	return -1;
}

static void forget(mcp_session *s, const char *uri)
{
	int i = find(s, uri);

	if (i >= 0)
		cJSON_DeleteItemFromArray(s->subs, i);
}

static void reply_cb(struct mcp_listener *l, mcp_call *c)
{
	struct sub_wait *w = (struct sub_wait *)l;
	mcp_session *s = mcp_session_by_id(w->session_id);
	const mcp_buf *b = mcp_call_reply(c);
	char *msg;

	if (s && b && mcp_call_failed(c)) {
		if (w->on)
			forget(s, w->uri);
		if (asprintf(&msg, "resources/%s of %s failed: %.*s",
			     w->on ? "subscribe" : "unsubscribe", w->uri,
			     (int)(b->len > 300 ? 300 : b->len), b->data) < 0)
			msg = NULL;
		session_error(s, msg);
	}
	free(w);
}

static void send_one(mcp_session *s, int on, const char *uri)
{
	struct sub_wait *w = calloc(1, sizeof *w + strlen(uri) + 1);
	cJSON *p = w ? cJSON_CreateObject() : NULL;
	mcp_call *c;

	if (!p || !cJSON_AddStringToObject(p, "uri", uri)) {
		cJSON_Delete(p);
		free(w);
		return;
	}
	w->l.done = reply_cb;
	w->session_id = s->id;
	w->on = on;
	strcpy(w->uri, uri);
	c = call_side(s, on ? "resources/subscribe" : "resources/unsubscribe",
		      p, &w->l);
	if (!c)
		free(w);
	mcp_call_unref(c);
}

/* Why the n bytes at uri cannot be a subscription's URI, or NULL: empty,
 * too long, or a control byte (C0, DEL, or C1 as UTF-8 C2 80..9F). */
static const char *uri_refused(const char *uri, size_t n)
{
	const unsigned char *p = (const unsigned char *)uri;
	size_t i;

	if (!n)
		return "no URI";
	if (n > SUBS_URI_MAX)
		return "a URI longer than " STR(SUBS_URI_MAX) " bytes";
	for (i = 0; i < n; i++)
		if (p[i] < 0x20 || p[i] == 0x7f ||
		    (p[i] == 0xc2 && i + 1 < n && p[i + 1] >= 0x80 &&
		     p[i + 1] <= 0x9f))
			return "a control character in the URI";
	return NULL;
}

/* Refused with err, said in status.last_error: err. */
static int refuse(mcp_session *s, int on, int err, const char *why)
{
	char *msg;

	if (asprintf(&msg, "ctl: %s refused: %s", on ? "subscribe"
						      : "unsubscribe",
		     why) < 0)
		msg = NULL;
	session_error(s, msg);
	return err;
}

int subs_ctl(mcp_session *s, int on, const char *uri, size_t n)
{
	const char *why;
	char *u;
	int i;

	while (n && (*uri == ' ' || *uri == '\t')) {
		uri++;
		n--;
	}
	if ((why = uri_refused(uri, n)) != NULL)
		return refuse(s, on, -EINVAL, why);
	if (s->state == S_READY && !offers(s))
		return -EOPNOTSUPP;
	if (!(u = strndup(uri, n)))
		return -ENOMEM;
	i = find(s, u);
	if (on && i < 0 && cJSON_GetArraySize(s->subs) >= SUBS_MAX) {
		free(u);
		return refuse(s, on, -ENOSPC, "the thread has "
			      STR(SUBS_MAX) " subscriptions, the most it "
			      "keeps (unsubscribe one first)");
	}
	if (on && i < 0) {
		if (!s->subs)
			s->subs = cJSON_CreateArray();
		if (!s->subs || !cJSON_AddItemToArray(s->subs,
						      cJSON_CreateString(u))) {
			free(u);
			return -ENOMEM;
		}
	} else if (!on && i < 0) {
		free(u);
		return -ENOENT;
	} else if (!on) {
		cJSON_DeleteItemFromArray(s->subs, i);
	}
	if (s->state == S_READY) /* else at the handshake (subs_renew) */
		send_one(s, on, u);
	free(u);
	return 0;
}

void subs_renew(mcp_session *s)
{
	cJSON *it, *next;
	char *msg;

	if (!cJSON_GetArraySize(s->subs))
		return;
	if (!offers(s)) {
		if (asprintf(&msg, "the server does not offer resource "
			     "subscriptions: %d dropped",
			     cJSON_GetArraySize(s->subs)) < 0)
			msg = NULL;
		session_error(s, msg);
		cJSON_Delete(s->subs);
		s->subs = NULL;
		return;
	}
	for (it = s->subs->child; it; it = next) {
		next = it->next; /* a send that fails at once forgets it */
		send_one(s, 1, it->valuestring);
	}
}
