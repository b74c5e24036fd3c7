/*
 * lasterr.c - status.last_error, where the user looks (spec 9, 12): the
 * one place a session's last failure is set, with its time
 * (last_error_at), whatever failed: a call, the start, a transport error,
 * a refused request, a policy, a resource read, a ctl verb. And
 * status.last_call_error, the last user call that failed (a JSON-RPC
 * error reply, or a result with isError true), with its time.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gbuf.h"
#include "index.h"
#include "internal.h"
#include "jscan.h"
#include "jsent.h"

#define CALL_ERROR_MAX 1024 /* bytes of a call's error message kept */

/* The length of the valid UTF-8 sequence at p (NUL-terminated), 0 if
 * none starts there. C0 80, jsent's NUL, counts as one. */
static size_t utf8_len(const unsigned char *p)
{
	size_t n, i;
	unsigned cp;

	if (p[0] < 0x80)
		return 1;
	if (p[0] == 0xc0 && p[1] == 0x80)
		return 2;
	n = p[0] >= 0xc2 && p[0] <= 0xdf ? 2 : p[0] >= 0xe0 && p[0] <= 0xef ?
	    3 : p[0] >= 0xf0 && p[0] <= 0xf4 ? 4 : 0;
	if (!n)
		return 0;
	cp = p[0] & (0xff >> (n + 1));
	for (i = 1; i < n; i++) {
		if ((p[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (p[i] & 0x3f);
	}
	if ((n == 3 && (cp < 0x800 || (cp >= 0xd800 && cp < 0xe000))) ||
	    (n == 4 && (cp < 0x10000 || cp > 0x10ffff)))
		return 0;
	return n;
}

/* msg (taken) as it is shown in status, to people and to JSON readers:
 * what a server or a user put in it that is not UTF-8 (which cJSON would
 * print raw, making status invalid JSON) becomes \xNN, as lib/ctlesc
 * shows it; control characters stay, for the status file escapes them.
 * NULL when msg is NULL. */
char *session_shown(char *msg)
{
	const unsigned char *p;
	struct gbuf b = {0};
	size_t n;

	for (p = (const unsigned char *)msg; msg && *p; p += n)
		if (!(n = utf8_len(p)))
			break;
	if (msg && *p) {
		for (p = (const unsigned char *)msg; *p; p += n) {
			if ((n = utf8_len(p)) != 0) {
				gbuf_add(&b, (const char *)p, n);
			} else {
				gbuf_printf(&b, "\\x%02x", *p);
				n = 1;
			}
		}
		if (b.p && !b.oom) { /* NUL-terminated (gbuf.h) */
			free(msg);
			msg = b.p;
		} else {
			gbuf_free(&b);
		}
	}
	return msg;
}

void session_error(mcp_session *s, char *msg)
{
	free(s->last_error);
	s->last_error = session_shown(msg);
	s->last_error_at = mcp_now();
}

/* t (taken, or NULL) cut to CALL_ERROR_MAX bytes, at a character. */
static char *cut(char *t)
{
	size_t n = t ? strlen(t) : 0;

	if (n <= CALL_ERROR_MAX)
		return t;
	n = CALL_ERROR_MAX - 3;
	while (n && ((unsigned char)t[n] & 0xc0) == 0x80)
		n--;
	memcpy(t + n, "...", 4);
	return t;
}

/* The string at v of p, decoded and cut; NULL if it is none. */
static char *text_at(const char *p, struct jscan_span v)
{
	char *t = NULL;

	if (v.n && p[v.at] == '"' && jsent_unquote(p + v.at, v.n, &t) < 0)
		t = NULL;
	return cut(t);
}

/* The text blocks of the result at top of p, one a line, cut. */
static char *result_text(const char *p, struct jscan_span top)
{
	struct jscan_span list, v, ty, tx;
	struct jscan_members m;
	struct gbuf b = {0};
	char *t;

	if (!jscan_member(p, top, "content", &list) || p[list.at] != '[')
		return NULL;
	jscan_items_init(&m, p, list.at, list.at + list.n);
	while (b.len <= CALL_ERROR_MAX && jscan_items_next(&m, &v)) {
		if (p[v.at] != '{' || !jscan_member(p, v, "type", &ty) ||
		    !jscan_str_is(p, ty, "text") ||
		    !jscan_member(p, v, "text", &tx) ||
		    !(t = text_at(p, tx)))
			continue;
		if (b.len)
			gbuf_add(&b, "\n", 1);
		gbuf_puts(&b, t);
		free(t);
	}
	t = b.len ? gbuf_take(&b) : NULL;
	gbuf_free(&b);
	return cut(t);
}

/* s (or NULL, or "") as a status string, or null. */
static cJSON *str_or_null(const char *s)
{
	char *t = s && *s ? session_shown(strdup(s)) : NULL;
	cJSON *j = t ? cJSON_CreateString(t) : cJSON_CreateNull();

	free(t);
	return j;
}

void session_call_failed(mcp_session *s, const mcp_call *c)
{
	const mcp_buf *r = c->reply;
	const char *p = r ? r->data : NULL;
	struct jscan_span top = {0, r ? r->len : 0}, e, v;
	char *msg = NULL, *le, what[40], num[32];
	double code = 0;
	int is_error = 0;
	cJSON *o;

	if (!p || s->oneshot)
		return;
	while (top.at < top.n && strchr(" \t\r\n", p[top.at]))
		top.at++;
	top.n -= top.at;
	if (!top.n || p[top.at] != '{')
		return;
	if (c->failed && jscan_member(p, top, "error", &e) &&
	    p[e.at] == '{') {
		if (jscan_member(p, e, "code", &v) && v.n < sizeof num) {
			memcpy(num, p + v.at, v.n); /* the reply has no NUL */
			num[v.n] = 0;
			code = strtod(num, NULL);
		}
		if (jscan_member(p, e, "message", &v))
			msg = text_at(p, v);
	} else if (jscan_member(p, top, "isError", &v) && v.n == 4 &&
		   !memcmp(p + v.at, "true", 4)) {
		is_error = 1;
		msg = result_text(p, top);
	} else {
		return; /* it did not fail */
	}
	msg = session_shown(msg ? msg : strdup(is_error ? "isError"
						   : "(no message)"));
	if (!msg || !(o = cJSON_CreateObject()))
		goto out;
	if (c->rpc_id)
		cJSON_AddNumberToObject(o, "id", (double)c->rpc_id);
	else
		cJSON_AddNullToObject(o, "id"); /* never sent */
	cJSON_AddItemToObject(o, "method", str_or_null(c->method));
	cJSON_AddItemToObject(o, "tool", str_or_null(c->tool));
	if (is_error)
		cJSON_AddTrueToObject(o, "isError");
	else
		cJSON_AddNumberToObject(o, "code", code);
	cJSON_AddStringToObject(o, "message", msg);
	cJSON_Delete(s->call_error);
	s->call_error = o;
	s->call_error_at = mcp_now();
	if (s->err_noted)
		goto out; /* its whole reason is there already */
	if (is_error)
		snprintf(what, sizeof what, "isError");
	else
		snprintf(what, sizeof what, "%.0f", code);
	if (asprintf(&le, "%s%s%s failed: %s (%s)", c->method[0] ?
		     c->method : "the call", c->tool && *c->tool ? " of " : "",
		     c->tool && *c->tool ? c->tool : "", msg, what) < 0)
		le = NULL;
	session_error(s, le); /* shown: the tool's name too */
	s->last_error_at = s->call_error_at;
out:
	free(msg);
}

void mcp_resource_failed(mcp_session *s, const char *uri,
			 const mcp_buf *reply)
{
	cJSON *r = cJSON_ParseWithLength(reply->data, reply->len);
	cJSON *e = cJSON_GetObjectItemCaseSensitive(r, "error");
	cJSON *m = cJSON_GetObjectItemCaseSensitive(e, "message");
	cJSON *code = cJSON_GetObjectItemCaseSensitive(e, "code");
	char *msg;

	if (asprintf(&msg, "resources/read of %s failed: %s%s%.0f%s", uri,
		     cJSON_IsString(m) ? m->valuestring : "no contents in the "
		     "reply", cJSON_IsNumber(code) ? " (" : "",
		     cJSON_IsNumber(code) ? code->valuedouble : 0.0,
		     cJSON_IsNumber(code) ? ")" : "") < 0)
		msg = NULL;
	cJSON_Delete(r);
	session_error(s, msg);
}

void session_bad_verb(mcp_session *s, const char *verb, size_t len)
{
	char *msg;

	if (asprintf(&msg, "ctl: unknown verb '%.*s' (the verbs are cancel, "
		     "restart, close, subscribe URI and unsubscribe URI)",
		     (int)(len < 64 ? len : 64), verb) < 0)
		msg = NULL;
	session_error(s, msg);
}
