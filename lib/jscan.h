/*
 * jscan.h - an incremental JSON scanner: fed a request in pieces of any size
 * (down to one byte), it tells when the bytes so far form one complete JSON
 * value (RFC 8259), when they can still become one, and when they never can.
 * Strings are checked to be valid UTF-8; nesting is bounded.
 * Constant memory, no allocation; only the optional member-name check
 * (jscan_names) keeps the names of the open objects.
 */
#ifndef MCPFS_JSCAN_H
#define MCPFS_JSCAN_H

#include <stddef.h>
#include <stdint.h>

#define JSCAN_MAX_DEPTH 256

enum { JSCAN_MORE = 0, JSCAN_DONE = 1, JSCAN_ERROR = -1 };

/*
 * The member-name check of I-JSON (RFC 7493), for what mcpfs sends on a
 * user's behalf (spec 13: what mcpfs checks is what the server runs): a
 * name holding a control character (U+0000-U+001F, U+007F-U+009F, raw or
 * escaped) fails at its closing quote, two members of one object whose
 * names decode to the same text fail at that object's '}' (escapes are
 * decoded: "a" and "\u0061" are one name). It keeps the decoded names of
 * the objects still open (at most the size of the text), sorted and
 * compared at each object's end, then dropped. Owned by the caller,
 * attached with jscan_names (after jscan_init), freed with
 * jscan_names_free; it may be reused for the next text.
 */
struct jscan_name {
	size_t off, len;    /* in bytes[] */
	uint64_t hash;
};

struct jscan_names {
	char *bytes;                    /* decoded names, open objects */
	size_t nbytes, capbytes;
	struct jscan_name *ent;         /* one per name, innermost last */
	size_t nent, capent;
	size_t base[JSCAN_MAX_DEPTH];   /* each open object's first ent */
	size_t key;                     /* where the name being read starts */
	int nomem;                      /* the scan failed for memory */
	char why[128];                  /* the error naming the name */
};

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
	int ws;             /* whitespace was seen between tokens */
	struct jscan_names *names; /* the I-JSON name check, or NULL */
};

void jscan_init(struct jscan *j);

/* Check member names as well (struct jscan_names above): call after
 * jscan_init, before the first feed. A failure is JSCAN_ERROR with
 * j->error pointing into n (n->nomem set when memory ran out). */
void jscan_names(struct jscan *j, struct jscan_names *n);
void jscan_names_free(struct jscan_names *n);

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

/* The UTF-8 form of code point cp in out (1 to 4 bytes); its length. */
size_t jscan_utf8_put(uint32_t cp, unsigned char *out);

/* jspan.c: a checked text read by its spans. */
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
/* 1 when the n bytes at p are one whole JSON value (RFC 8259), with
 * whitespace around it or not. */
int jscan_is_value(const char *p, size_t n);
/* The same, and *ws set when whitespace stands around the value or between
 * its tokens: a value without is compact (jcompact.h), for valid JSON
 * holds no control byte. */
int jscan_is_value_ws(const char *p, size_t n, int *ws);
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
 * After 1, m->ws says whether whitespace stands between the tokens of the
 * value (outside its strings), which jcompact would drop.
 */
struct jscan_members {
	const char *p;
	size_t i, end;
	int bad;
	int ws;     /* whitespace between the tokens of the last value */
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
/* The same in the top-level object of the n bytes at p (whitespace before
 * it allowed): a line's member. */
int jscan_top_member(const char *p, size_t n, const char *key,
		     struct jscan_span *val);

#endif
