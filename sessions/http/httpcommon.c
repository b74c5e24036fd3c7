/*
 * httpcommon.c - one copy of what http.c and httpsse.c do alike (see
 * httpcommon.h): the server's settings, the headers, the curl options and
 * the POST body of a request, the first look at an answer, the messages.
 */
#include <curl/curl.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "curluv.h"
#include "httpcommon.h"
#include "oauth.h"
#include "sessions.h"
#include "sse.h"
#include "transport.h"

#define EXCERPT 200

int hc_init(const struct transport_env *e)
{
	mod_env_set(e);
	return cu_init(e->loop);
}

int hc_pid(const struct transport *t)
{
	return 0;
}

int hc_server_copy(struct hc_server *sv, const struct mcp_server_conf *conf)
{
	sv->conf = mod_env.conf_dup(conf);
	if (!sv->conf)
		return -ENOMEM;
	sv->name = sv->conf->name;
	sv->url = sv->conf->url;
	sv->headers = sv->conf->headers;
	sv->nheaders = sv->conf->nheaders;
	sv->oa = oauth_for(conf);
	return 0;
}

void hc_server_free(struct hc_server *sv)
{
	mod_env.conf_free(sv->conf);
	sv->conf = NULL;
}

void hc_free(void *obj, struct hc_server *sv, char *own)
{
	hc_server_free(sv);
	free(own);
	free(obj);
	mod_env.obj_drop();
}

void hc_xfer_init(struct cu_xfer *cu, struct sse *sse,
		  void (*done)(struct cu_xfer *, CURLcode),
		  void (*release)(struct cu_xfer *))
{
	cu->done = done;
	cu->release = release;
	sse_init(sse, mod_env.max_line);
}

int hc_add_header(struct hc_req *q, const char *name, const char *val)
{
	struct curl_slist *l;
	char *line = NULL;

	if (val && asprintf(&line, "%s: %s", name, val) < 0)
		return -ENOMEM;
	l = curl_slist_append(q->hdrs, val ? line : name);
	free(line);
	if (!l)
		return -ENOMEM;
	q->hdrs = l;
	return 0;
}

int hc_server_headers(struct hc_req *q, const struct hc_server *sv,
		      unsigned *gen, const char *method, const char *url)
{
	size_t i;
	int r = 0;

	for (i = 0; i < sv->nheaders; i++)
		r |= hc_add_header(q, sv->headers[i], NULL);
	if (oauth_bearer(sv->oa)) {
		char *b = oauth_resource_auth(sv->oa, &q->hdrs, method, url,
					      &r);

		if (gen)
			*gen = sv->oa->gen;
		if (!b)
			return -ENOMEM;
		r |= hc_add_header(q, "Authorization", b);
		free(b);
	}
	return r ? -ENOMEM : 0;
}

void hc_easy(struct cu_xfer *cu, const char *url, const struct hc_req *q,
	     curl_write_callback wr, curl_write_callback hd, void *ud)
{
	CURL *e = cu->easy;

	cu_defaults(cu);
	curl_easy_setopt(e, CURLOPT_URL, url);
	curl_easy_setopt(e, CURLOPT_HTTPHEADER, q->hdrs);
	curl_easy_setopt(e, CURLOPT_WRITEFUNCTION, wr);
	curl_easy_setopt(e, CURLOPT_WRITEDATA, ud);
	if (hd) {
		curl_easy_setopt(e, CURLOPT_HEADERFUNCTION, hd);
		curl_easy_setopt(e, CURLOPT_HEADERDATA, ud);
	}
}

/* The body of a POST that carries a request. With no seek callback curl
 * cannot rewind it, so it fails the transfer instead of resending the
 * request on a fresh connection when a reused one closed without an answer:
 * a call is never replayed. */
static size_t read_cb(char *buf, size_t size, size_t n, void *ud)
{
	struct hc_req *q = ud;
	size_t k = q->body_len - q->body_off;

	if (k > size * n)
		k = size * n;
	memcpy(buf, q->body + q->body_off, k);
	q->body_off += k;
	return k;
}

void hc_post_body(CURL *e, struct hc_req *q, uint64_t rpc_id)
{
	q->body_len = strlen(q->body);
	curl_easy_setopt(e, CURLOPT_POSTFIELDSIZE_LARGE,
			 (curl_off_t)q->body_len);
	if (rpc_id) {
		curl_easy_setopt(e, CURLOPT_POST, 1L);
		curl_easy_setopt(e, CURLOPT_READFUNCTION, read_cb);
		curl_easy_setopt(e, CURLOPT_READDATA, q);
	} else {
		curl_easy_setopt(e, CURLOPT_POSTFIELDS, q->body);
	}
}

void hc_req_free(struct hc_req *q)
{
	curl_slist_free_all(q->hdrs);
	free(q->body);
}

int hc_answer(CURL *e, long *code)
{
	const char *ct = NULL;

	curl_easy_getinfo(e, CURLINFO_RESPONSE_CODE, code);
	curl_easy_getinfo(e, CURLINFO_CONTENT_TYPE, &ct);
	if (*code < 200 || *code > 299)
		return 'x';
	if (ct && !strncasecmp(ct, "text/event-stream", 17))
		return 's';
	return 0;
}

int hc_start_oom(void *obj, struct hc_server *sv, char *err, size_t errlen)
{
	if (obj) {
		hc_server_free(sv);
		free(obj);
	}
	snprintf(err, errlen, "cannot start the HTTP client: out of memory");
	return -ENOMEM;
}

void hc_send_oom(const struct transport_up *up, void *ctx, char *line,
		 uint64_t rpc_id)
{
	free(line);
	if (rpc_id)
		up->call_error(ctx, rpc_id, -32603, 0, "out of memory");
}

size_t hc_trim(char *line, size_t len)
{
	while (len && (line[len - 1] == '\n' || line[len - 1] == '\r'))
		line[--len] = 0;
	return len;
}

void hc_too_long(char *msg, size_t n)
{
	size_t mib = (mod_env.max_line >> 20) * 2;

	snprintf(msg, n, "the server sent a message over the limit of %zu "
		 "bytes: raise it with --max-message (-o max_message=SIZE, "
		 "e.g. %zuM)", mod_env.max_line, mib ? mib : 1);
}

void hc_conn_msg(char *msg, size_t n, CURLcode res)
{
	/* a request curl would have had to resend (see read_cb) */
	if (res == CURLE_SEND_FAIL_REWIND)
		res = CURLE_GOT_NOTHING;
	snprintf(msg, n, "connection to the server failed: %s",
		 curl_easy_strerror(res));
}

void hc_status_msg(char *msg, size_t n, long code, const char *where,
		   const char *p, size_t len)
{
	char ex[EXCERPT];
	size_t i, k = 0;

	/* a printable excerpt of the body */
	for (i = 0; i < len && k + 1 < sizeof ex; i++) {
		unsigned char c = (unsigned char)p[i];

		ex[k++] = c >= 0x20 && c < 0x7f ? (char)c : ' ';
	}
	ex[k] = 0;
	while (k && ex[k - 1] == ' ')
		ex[--k] = 0;
	snprintf(msg, n, "HTTP %ld from the server%s%s%s", code, where,
		 ex[0] ? ": " : "", ex);
}

void hc_diag(const struct transport_up *up, void *ctx, const char *msg)
{
	up->diag(ctx, msg, strlen(msg));
	up->diag(ctx, "\n", 1);
}
