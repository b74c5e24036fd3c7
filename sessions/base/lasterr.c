/*
 * lasterr.c - status.last_error, where the user looks (spec 9, 12): the
 * one place a session's last failure is set, with its time
 * (last_error_at), whatever failed: a call, the start, a transport error,
 * a refused request, a policy, a resource read, a ctl verb.
 */
#include <stdio.h>
#include <stdlib.h>

#include "gbuf.h"
#include "internal.h"

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

/* msg (taken) is shown in status, to people and to JSON readers: what a
 * server or a user put in it that is not UTF-8 (which cJSON would print
 * raw, making status invalid JSON) becomes \xNN, as lib/ctlesc shows
 * it; control characters stay, for the status file escapes them. */
void session_error(mcp_session *s, char *msg)
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
	free(s->last_error);
	s->last_error = msg;
	s->last_error_at = mcp_now();
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
