/*
 * jscan.h - an incremental JSON scanner: fed a request in pieces of any size
 * (down to one byte), it tells when the bytes so far form one complete JSON
 * value (RFC 8259), when they can still become one, and when they never can.
 * Strings are checked to be valid UTF-8; nesting is bounded.
 * Constant memory, no allocation.
 */
#ifndef MCPFS_JSCAN_H
#define MCPFS_JSCAN_H

#include <stddef.h>
#include <stdint.h>

#define JSCAN_MAX_DEPTH 256

enum { JSCAN_MORE = 0, JSCAN_DONE = 1, JSCAN_ERROR = -1 };

struct jscan {
	int state;
	int depth;
	int utf8_need;      /* continuation bytes still expected */
	uint32_t utf8_cp;   /* code point being decoded (overlong checks) */
	int utf8_len;
	int esc_hex;        /* hex digits left in \uXXXX */
	uint32_t esc_cp;    /* surrogate handling */
	int lit_pos;        /* position in true/false/null */
	const char *lit;
	uint8_t stack[(JSCAN_MAX_DEPTH + 7) / 8]; /* 1 = object, 0 = array */
	const char *error;  /* static reason when JSCAN_ERROR */
};

void jscan_init(struct jscan *j);

/*
 * Feed len bytes. Returns:
 *  JSCAN_MORE  all bytes consumed, the value is not complete yet;
 *  JSCAN_DONE  the value ended; *used = bytes consumed up to and including
 *              its last byte (a top-level number ends at the byte after it,
 *              which is not consumed); further feeds after DONE accept only
 *              whitespace;
 *  JSCAN_ERROR the bytes can never become valid JSON; *used = offset of
 *              the offending byte, j->error says why.
 */
int jscan_feed(struct jscan *j, const char *buf, size_t len, size_t *used);

/* At end of input: JSCAN_DONE if a complete value was seen (a pending
 * top-level number counts), else JSCAN_MORE (incomplete) or JSCAN_ERROR. */
int jscan_finish(struct jscan *j);

/*
 * Structure-only skipping, for text that is valid JSON (then exact) or
 * untrusted (then some end within n, or 0; never a read at or past n).
 * jscan_string_end: the offset just past the string whose opening quote is
 * at p[i], or 0. jscan_value_end: the offset just past the value that
 * starts at p[i] (no whitespace before it), or 0 when it does not end by n;
 * a scalar ends at the first ',', whitespace, '}' or ']' (or n).
 */
size_t jscan_string_end(const char *p, size_t i, size_t n);
/* The value of hex digit c, or -1. */
int jscan_hexval(unsigned char c);
/* 1 when the n bytes at p are all JSON whitespace (or n is 0). */
int jscan_blank(const char *p, size_t n);
size_t jscan_value_end(const char *p, size_t i, size_t n);

/* Part of a text: offset and length; n == 0 means absent. */
struct jscan_span {
	size_t at, n;
};

/*
 * The members of an object, in order, by structure only (as
 * jscan_value_end): jscan_members_init at the object's '{' (p[at]), with
 * end the offset it may not read at or past; each jscan_members_next gives
 * a key (quotes included) and its value and returns 1, or 0 at the end.
 * After 0, m->bad is 0 when the object closed well ('}' after the last
 * member, no trailing comma) and m->i is the offset just past its '}'.
 */
struct jscan_members {
	const char *p;
	size_t i, end;
	int bad;
};

void jscan_members_init(struct jscan_members *m, const char *p, size_t at,
			size_t end);
int jscan_members_next(struct jscan_members *m, struct jscan_span *key,
		       struct jscan_span *val);

/* The elements of an array the same way: jscan_items_init at its '['
 * (p[at]), jscan_items_next gives each value and returns 1, or 0 at the
 * end (m->bad 0 when the array closed well). */
void jscan_items_init(struct jscan_members *m, const char *p, size_t at,
		      size_t end);
int jscan_items_next(struct jscan_members *m, struct jscan_span *val);

/*
 * 1 when the JSON string at s (quotes included) decodes to the C string
 * want: escapes are decoded (\u0069d is "id", surrogate pairs included), so
 * an escaped key is the key it spells; a string holding \u0000, or a bad
 * escape, matches nothing.
 */
int jscan_str_is(const char *p, struct jscan_span s, const char *want);

/*
 * The value of the first member of the object obj (p[obj.at] is its '{')
 * whose key decodes to key (jscan_str_is), as cJSON's getters pick the
 * first of duplicate keys: 1 with *val set, or 0.
 */
int jscan_member(const char *p, struct jscan_span obj, const char *key,
		 struct jscan_span *val);

#endif
