/*
 * mini_mcp.h - the stdio plumbing shared by the example and fake MCP
 * servers: newline-delimited JSON-RPC 2.0 on stdin/stdout, one message per
 * line, stdout written fully and at once for every message.
 *
 * One thread. mm_run() reads stdin, hands each message to a callback and,
 * between reads, fires the caller's timers, so a server can keep several
 * requests pending and answer them out of order.
 */
#ifndef MINI_MCP_H
#define MINI_MCP_H

#include <stddef.h>

#include <cjson/cJSON.h>

/* The protocol version answered when the client offers none. */
#define MM_PROTOCOL_DEFAULT "2025-06-18"

struct mm_loop {
	/* Called for every line that parses as a JSON object; the message
	 * is freed when the callback returns. Required. */
	void (*message_cb)(cJSON *msg);
	/* Milliseconds until the next timer is due, 0 if one is due now,
	 * -1 if there is none. May be NULL (no timers). */
	int (*timeout_cb)(void);
	/* Fires the timers that are due. Called whenever timeout_cb says 0.
	 * May be NULL. */
	void (*timers_cb)(void);
};

/*
 * Serves stdin until EOF; a last line without a newline is still handled.
 * Blank lines are skipped; a line that is not JSON gets a -32700 error and
 * one that is JSON but not an object a -32600 error, both with id null.
 * Returns 0 at EOF, -1 (errno set) if stdin fails.
 */
int mm_run(const struct mm_loop *loop);

/* After stdin is gone: keeps firing timers until none is left, then sleeps
 * until a signal ends the process. Never returns. */
void mm_idle(const struct mm_loop *loop) __attribute__((noreturn));

/* Monotonic clock in milliseconds. */
long long mm_now_ms(void);

/*
 * Writes all n bytes to stdout, resuming after partial writes and EINTR.
 * Once stdout has failed (EPIPE, EBADF) or mm_close_stdout() was called,
 * writes are dropped silently.
 */
void mm_write(const void *p, size_t n);

/* Closes stdout (the client sees EOF); later writes are dropped. */
void mm_close_stdout(void);

/*
 * Strings of parsed messages hold an escaped NUL ("\u0000") as the bytes C0
 * 80, so that they keep their whole length as C strings; mm_send and
 * mm_print write C0 80 back as "\u0000".
 */

/* j as unformatted JSON text (malloc'd, free with free), NULs escaped;
 * NULL on ENOMEM. */
char *mm_print(const cJSON *j);

/* Prints msg on one line and frees it (ownership passes to the call). */
void mm_send(cJSON *msg);

/* Sends {"jsonrpc":"2.0","id":ID,"result":RESULT}; id is copied, result is
 * taken over (NULL sends {}). */
void mm_result(const cJSON *id, cJSON *result);

/* Sends a JSON-RPC error reply; id is copied (NULL sends id null). */
void mm_error(const cJSON *id, int code, const char *message);

/* Sends a notification; params is taken over (NULL sends {}). */
void mm_notify(const char *method, cJSON *params);

/* A tools/call result with one text content item; with is_error set it
 * also carries isError: true. The caller owns the result. */
cJSON *mm_text(const char *text, int is_error);

/*
 * An initialize result: protocolVersion (protocol if not NULL, else the
 * one the client offered in params, else MM_PROTOCOL_DEFAULT), an empty
 * capabilities object for the caller to fill in, and serverInfo {name,
 * version}. The caller owns the result.
 */
cJSON *mm_initialize_result(const cJSON *params, const char *protocol,
			    const char *name, const char *version);

/* The string member key of obj, or NULL if it is missing or not a
 * string (obj may be NULL). */
const char *mm_str(const cJSON *obj, const char *key);

/*
 * The integer member key of obj into *out. Returns 1 if it is an integral
 * number in the range of long long, 0 if it is missing or null (then *out
 * is untouched), -1 if it is something else.
 */
int mm_int(const cJSON *obj, const char *key, long long *out);

#endif
