/*
 * jscan.c - incremental, strict RFC 8259 JSON scanner. A byte-at-a-time state
 * machine: the whole state lives in struct jscan, so a value may arrive split
 * anywhere (inside a literal, an escape, a UTF-8 sequence). Besides the
 * grammar it checks that strings hold valid UTF-8 (no overlong forms, no
 * UTF-8-encoded surrogates, nothing past U+10FFFF), that \u escapes pair
 * their surrogates, and that nesting stays within JSCAN_MAX_DEPTH.
 *
 * While a \uXXXX escape is read, utf8_cp accumulates its hex digits (no UTF-8
 * sequence can be pending then); esc_cp holds a high surrogate waiting for
 * its low half.
 *
 * The spans of a text already checked (a member, an item, a string's end)
 * are jspan.c's.
 *
 * With jscan_names, each member name is also decoded as it is read (plain
 * bytes as they are, an escape as the UTF-8 of its code point) into
 * jnames.c's arena, which checks it at its closing quote and its object at
 * its '}'.
 */
#include <string.h>

#include "jnames.h"
#include "jscan.h"

enum {
	ST_VALUE,        /* a value must come (top level, after ':' or ',') */
	ST_VALUE_CLOSE,  /* after '[': a value or ']' */
	ST_KEY_CLOSE,    /* after '{': a key or '}' */
	ST_KEY,          /* after ',' in an object: a key */
	ST_COLON,        /* after a key */
	ST_AFTER,        /* after a value in a container: ',' or the close */
	ST_STR,          /* inside a string */
	ST_ESC,          /* after '\' */
	ST_UHEX,         /* in the hex digits of \u */
	ST_LOW_BS,       /* after a high surrogate escape: '\' must follow */
	ST_LOW_U,        /* ... then 'u' */
	ST_MINUS,        /* number: after '-' */
	ST_ZERO,         /* number: a leading 0 */
	ST_INT,          /* number: integer digits */
	ST_DOT,          /* number: after '.' */
	ST_FRAC,         /* number: fraction digits */
	ST_EXP,          /* number: after 'e' */
	ST_EXP_SIGN,     /* number: after the exponent sign */
	ST_EXP_DIG,      /* number: exponent digits */
	ST_LIT,          /* inside true / false / null */
	ST_DONE,         /* the value ended: only whitespace may follow */
	ST_ERROR,
};

/* Set on the string states while the string is an object key. */
#define ST_KEYFLAG 0x100

/* Internal step results. */
enum { STEP_MORE, STEP_DONE, STEP_DONE_UNUSED, STEP_ERROR };

static int is_ws(unsigned char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

int jscan_hexval(unsigned char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

int jscan_blank(const char *p, size_t n)
{
	while (n--)
		if (!is_ws((unsigned char)*p++))
			return 0;
	return 1;
}

int jscan_is_value(const char *p, size_t n)
{
	int ws;

	return jscan_is_value_ws(p, n, &ws);
}

int jscan_is_value_ws(const char *p, size_t n, int *ws)
{
	struct jscan j;
	size_t used = n;
	int r;

	jscan_init(&j);
	r = jscan_feed(&j, p, n, &used);
	if (r == JSCAN_MORE)
		r = jscan_finish(&j);
	*ws = j.ws || used < n;
	return r == JSCAN_DONE && jscan_blank(p + used, n - used);
}

/* Whitespace between tokens: noted (j->ws), and skipped. */
static int blank(struct jscan *j)
{
	j->ws = 1;
	return STEP_MORE;
}

static int fail(struct jscan *j, const char *why)
{
	j->state = ST_ERROR;
	j->error = why;
	return STEP_ERROR;
}

static int top_is_object(const struct jscan *j)
{
	int d = j->depth - 1;

	return (j->stack[d / 8] >> (d % 8)) & 1;
}


/* ---- the member-name check (jnames.c does the work) ---- */

/* A failure of the name check: n->nomem says whether for memory. */
static int names_fail(struct jscan *j, const char *why)
{
	return fail(j, why ? why : "out of memory");
}

static int name_put(struct jscan *j, const void *b, size_t k)
{
	return jnames_put(j->names, b, k) < 0 ? names_fail(j, NULL)
					       : STEP_MORE;
}

static int name_start(struct jscan *j)
{
	return jnames_start(j->names) < 0 ? names_fail(j, NULL) : STEP_MORE;
}

static int name_end(struct jscan *j)
{
	const char *why = jnames_end(j->names);

	return why ? names_fail(j, why) : STEP_MORE;
}

static int names_close(struct jscan *j, int d)
{
	const char *why = jnames_close(j->names, d);

	return why ? names_fail(j, why) : STEP_MORE;
}

void jscan_names(struct jscan *j, struct jscan_names *n)
{
	jnames_reset(n);
	j->names = n;
}


static int push(struct jscan *j, int object)
{
	int d = j->depth;

	if (d >= JSCAN_MAX_DEPTH)
		return fail(j, "nesting too deep");
	if (object)
		j->stack[d / 8] |= (uint8_t)(1u << (d % 8));
	else
		j->stack[d / 8] &= (uint8_t)~(1u << (d % 8));
	if (object && j->names)
		jnames_open(j->names, d);
	j->depth++;
	j->state = object ? ST_KEY_CLOSE : ST_VALUE_CLOSE;
	return STEP_MORE;
}

/* A value just ended: at the top level the scan is done and step says
 * done (STEP_DONE when the value's last byte was consumed,
 * STEP_DONE_UNUSED when the byte that ended it was not); inside a
 * container what follows a value comes next. */
static int ended(struct jscan *j, int done)
{
	if (j->depth == 0) {
		j->state = ST_DONE;
		return done;
	}
	j->state = ST_AFTER;
	return STEP_MORE;
}

static int close_container(struct jscan *j, unsigned char c)
{
	if ((c == '}') != top_is_object(j))
		return fail(j, "mismatched bracket");
	if (c == '}' && j->names && names_close(j, j->depth - 1) != STEP_MORE)
		return STEP_ERROR;
	j->depth--;
	return ended(j, STEP_DONE);
}

static int value_start(struct jscan *j, unsigned char c)
{
	switch (c) {
	case '{':
		return push(j, 1);
	case '[':
		return push(j, 0);
	case '"':
		j->state = ST_STR;
		return STEP_MORE;
	case '-':
		j->state = ST_MINUS;
		return STEP_MORE;
	case '0':
		j->state = ST_ZERO;
		return STEP_MORE;
	case 't':
		j->lit = "true";
		break;
	case 'f':
		j->lit = "false";
		break;
	case 'n':
		j->lit = "null";
		break;
	default:
		if (c >= '1' && c <= '9') {
			j->state = ST_INT;
			return STEP_MORE;
		}
		if (c == 0)
			return fail(j, "NUL byte");
		return fail(j, "unexpected character");
	}
	j->lit_pos = 1;
	j->state = ST_LIT;
	return STEP_MORE;
}

/* The byte after a string's closing quote. */
static int string_end(struct jscan *j, int key)
{
	if (key) {
		j->state = ST_COLON;
		return j->names ? name_end(j) : STEP_MORE;
	}
	return ended(j, STEP_DONE);
}

/* One byte of string content that is not '"' or '\'. */
static int string_byte(struct jscan *j, unsigned char c)
{
	uint32_t partial;

	if (j->utf8_need == 0) {
		if (c < 0x20)
			return fail(j, c ? "control character in string" :
					   "NUL byte");
		if (c < 0x80)
			return STEP_MORE;
		if (c >= 0xc2 && c <= 0xdf) {
			j->utf8_len = 2;
			j->utf8_cp = c & 0x1f;
		} else if (c >= 0xe0 && c <= 0xef) {
			j->utf8_len = 3;
			j->utf8_cp = c & 0x0f;
		} else if (c >= 0xf0 && c <= 0xf4) {
			j->utf8_len = 4;
			j->utf8_cp = c & 0x07;
		} else {
			return fail(j, "invalid UTF-8");
		}
		j->utf8_need = j->utf8_len - 1;
		return STEP_MORE;
	}
	if ((c & 0xc0) != 0x80)
		return fail(j, "invalid UTF-8");
	j->utf8_cp = (j->utf8_cp << 6) | (c & 0x3f);
	if (j->utf8_need == j->utf8_len - 1) {
		/* First continuation byte: the sequence's range is known. */
		partial = j->utf8_cp;
		if (j->utf8_len == 3 && partial < 0x20)
			return fail(j, "invalid UTF-8 (overlong)");
		if (j->utf8_len == 3 && partial >= 0x360 && partial <= 0x37f)
			return fail(j, "invalid UTF-8 (surrogate)");
		if (j->utf8_len == 4 && partial < 0x10)
			return fail(j, "invalid UTF-8 (overlong)");
		if (j->utf8_len == 4 && partial > 0x10f)
			return fail(j, "invalid UTF-8 (above U+10FFFF)");
	}
	j->utf8_need--;
	return STEP_MORE;
}

/* The code point of an escape in a member name, into the name. */
static int name_cp(struct jscan *j, uint32_t cp)
{
	unsigned char one[4];

	if (!(j->state & ST_KEYFLAG) || !j->names)
		return STEP_MORE;
	return name_put(j, one, jscan_utf8_put(cp, one));
}

static int escape_done(struct jscan *j)
{
	uint32_t v = j->utf8_cp;

	j->utf8_cp = 0;
	if (j->esc_cp) {
		if (v < 0xdc00 || v > 0xdfff)
			return fail(j, "unpaired surrogate in \\u escape");
		v = 0x10000 + ((j->esc_cp - 0xd800) << 10) + (v - 0xdc00);
		j->esc_cp = 0;
		j->state = ST_STR | (j->state & ST_KEYFLAG);
		return name_cp(j, v);
	}
	if (v >= 0xd800 && v <= 0xdbff) {
		j->esc_cp = v;
		j->state = ST_LOW_BS | (j->state & ST_KEYFLAG);
		return STEP_MORE;
	}
	if (v >= 0xdc00 && v <= 0xdfff)
		return fail(j, "unpaired surrogate in \\u escape");
	j->state = ST_STR | (j->state & ST_KEYFLAG);
	return name_cp(j, v);
}

static int step_string(struct jscan *j, unsigned char c)
{
	int key = j->state & ST_KEYFLAG;
	int h;

	switch (j->state & ~ST_KEYFLAG) {
	case ST_STR:
		if (j->utf8_need == 0 && c == '"')
			return string_end(j, key);
		if (j->utf8_need == 0 && c == '\\') {
			j->state = ST_ESC | key;
			return STEP_MORE;
		}
		if (string_byte(j, c) != STEP_MORE)
			return STEP_ERROR;
		return key && j->names ? name_put(j, &c, 1) : STEP_MORE;
	case ST_ESC:
		if (c == 'u') {
			j->esc_hex = 4;
			j->utf8_cp = 0;
			j->state = ST_UHEX | key;
			return STEP_MORE;
		}
		if (!strchr("\"\\/bfnrt", c) || c == 0)
			return fail(j, "invalid escape in string");
		j->state = ST_STR | key;
		if (key && j->names) {
			unsigned char d = c == 'b' ? '\b' : c == 'f' ? '\f' :
					  c == 'n' ? '\n' : c == 'r' ? '\r' :
					  c == 't' ? '\t' : c;

			return name_put(j, &d, 1);
		}
		return STEP_MORE;
	case ST_UHEX:
		h = jscan_hexval(c);
		if (h < 0)
			return fail(j, "invalid \\u escape");
		j->utf8_cp = (j->utf8_cp << 4) | (uint32_t)h;
		if (--j->esc_hex == 0)
			return escape_done(j);
		return STEP_MORE;
	case ST_LOW_BS:
		if (c != '\\')
			return fail(j, "unpaired surrogate in \\u escape");
		j->state = ST_LOW_U | key;
		return STEP_MORE;
	default: /* ST_LOW_U */
		if (c != 'u')
			return fail(j, "unpaired surrogate in \\u escape");
		j->esc_hex = 4;
		j->utf8_cp = 0;
		j->state = ST_UHEX | key;
		return STEP_MORE;
	}
}

static int step_number(struct jscan *j, unsigned char c)
{
	int digit = c >= '0' && c <= '9';

	switch (j->state) {
	case ST_MINUS:
		if (c == '0')
			j->state = ST_ZERO;
		else if (digit)
			j->state = ST_INT;
		else
			return fail(j, "invalid number");
		return STEP_MORE;
	case ST_ZERO:
	case ST_INT:
		if (digit) {
			if (j->state == ST_ZERO)
				return fail(j, "leading zero in number");
			return STEP_MORE;
		}
		if (c == '.') {
			j->state = ST_DOT;
			return STEP_MORE;
		}
		/* an exponent or the end, as after a fraction */
		/* fall through */
	case ST_FRAC:
		if (digit)
			return STEP_MORE;
		if (c == 'e' || c == 'E') {
			j->state = ST_EXP;
			return STEP_MORE;
		}
		return ended(j, STEP_DONE_UNUSED);
	case ST_DOT:
		if (!digit)
			return fail(j, "invalid number");
		j->state = ST_FRAC;
		return STEP_MORE;
	case ST_EXP:
		if (c == '+' || c == '-') {
			j->state = ST_EXP_SIGN;
			return STEP_MORE;
		}
		if (!digit)
			return fail(j, "invalid number");
		j->state = ST_EXP_DIG;
		return STEP_MORE;
	case ST_EXP_SIGN:
		if (!digit)
			return fail(j, "invalid number");
		j->state = ST_EXP_DIG;
		return STEP_MORE;
	default: /* ST_EXP_DIG */
		if (digit)
			return STEP_MORE;
		return ended(j, STEP_DONE_UNUSED);
	}
}

static int step(struct jscan *j, unsigned char c)
{
	int r;

	if (j->state & ST_KEYFLAG)
		return step_string(j, c);
	switch (j->state) {
	case ST_VALUE:
		if (is_ws(c))
			return blank(j);
		if (c == ']' && j->depth > 0 && !top_is_object(j))
			return fail(j, "trailing comma");
		return value_start(j, c);
	case ST_VALUE_CLOSE:
		if (is_ws(c))
			return blank(j);
		if (c == ']')
			return close_container(j, c);
		return value_start(j, c);
	case ST_KEY_CLOSE:
	case ST_KEY:
		if (is_ws(c))
			return blank(j);
		if (c == '"') {
			j->state = ST_STR | ST_KEYFLAG;
			return j->names ? name_start(j) : STEP_MORE;
		}
		if (c == '}' && j->state == ST_KEY_CLOSE)
			return close_container(j, c);
		if (c == '}')
			return fail(j, "trailing comma");
		return fail(j, c ? "expected a string key" : "NUL byte");
	case ST_COLON:
		if (is_ws(c))
			return blank(j);
		if (c != ':')
			return fail(j, c ? "expected ':'" : "NUL byte");
		j->state = ST_VALUE;
		return STEP_MORE;
	case ST_AFTER:
		if (is_ws(c))
			return blank(j);
		if (c == ',') {
			j->state = top_is_object(j) ? ST_KEY : ST_VALUE;
			return STEP_MORE;
		}
		if (c == ']' || c == '}')
			return close_container(j, c);
		return fail(j, c ? "expected ',' or a closing bracket" :
				   "NUL byte");
	case ST_STR:
	case ST_ESC:
	case ST_UHEX:
	case ST_LOW_BS:
	case ST_LOW_U:
		return step_string(j, c);
	case ST_LIT:
		if (c != (unsigned char)j->lit[j->lit_pos])
			return fail(j, c ? "invalid literal" : "NUL byte");
		if (j->lit[++j->lit_pos] == '\0')
			return ended(j, STEP_DONE);
		return STEP_MORE;
	case ST_DONE:
		if (is_ws(c))
			return blank(j);
		return fail(j, c ? "data after the JSON value" : "NUL byte");
	case ST_ERROR:
		return STEP_ERROR;
	default:
		r = step_number(j, c);
		if (r == STEP_MORE && j->state == ST_AFTER)
			return step(j, c); /* the byte after a nested number */
		return r;
	}
}

void jscan_init(struct jscan *j)
{
	memset(j, 0, sizeof(*j));
	j->state = ST_VALUE;
}

/* Plain string bytes (printable ASCII but '"' and '\'): the common case. */
static size_t skip_plain(const unsigned char *p, size_t n)
{
	size_t i = 0;

	while (i < n && p[i] >= 0x20 && p[i] < 0x80 && p[i] != '"' &&
	       p[i] != '\\')
		i++;
	return i;
}

int jscan_feed(struct jscan *j, const char *buf, size_t len, size_t *used)
{
	const unsigned char *p = (const unsigned char *)buf;
	int was_done = j->state == ST_DONE;
	size_t i;

	if (j->state == ST_ERROR) {
		*used = 0;
		return JSCAN_ERROR;
	}
	for (i = 0; i < len; i++) {
		if ((j->state & ~ST_KEYFLAG) == ST_STR && j->utf8_need == 0) {
			size_t k = skip_plain(p + i, len - i);

			if (k && (j->state & ST_KEYFLAG) && j->names &&
			    name_put(j, p + i, k) != STEP_MORE) {
				*used = i;
				return JSCAN_ERROR;
			}
			i += k;
			if (i == len)
				break;
		}
		switch (step(j, p[i])) {
		case STEP_MORE:
			break;
		case STEP_DONE:
			*used = i + 1;
			return JSCAN_DONE;
		case STEP_DONE_UNUSED:
			*used = i;
			return JSCAN_DONE;
		default:
			*used = i;
			return JSCAN_ERROR;
		}
	}
	*used = len;
	return was_done ? JSCAN_DONE : JSCAN_MORE;
}

int jscan_finish(struct jscan *j)
{
	switch (j->state) {
	case ST_DONE:
		return JSCAN_DONE;
	case ST_ERROR:
		return JSCAN_ERROR;
	case ST_ZERO:
	case ST_INT:
	case ST_FRAC:
	case ST_EXP_DIG:
		if (j->depth == 0) {
			j->state = ST_DONE;
			return JSCAN_DONE;
		}
		return JSCAN_MORE;
	default:
		return JSCAN_MORE;
	}
}

size_t jscan_utf8_put(uint32_t cp, unsigned char *out)
{
	if (cp < 0x80) {
		out[0] = (unsigned char)cp;
		return 1;
	}
	if (cp < 0x800) {
		out[0] = (unsigned char)(0xc0 | cp >> 6);
		out[1] = (unsigned char)(0x80 | (cp & 0x3f));
		return 2;
	}
	if (cp < 0x10000) {
		out[0] = (unsigned char)(0xe0 | cp >> 12);
		out[1] = (unsigned char)(0x80 | (cp >> 6 & 0x3f));
		out[2] = (unsigned char)(0x80 | (cp & 0x3f));
		return 3;
	}
	out[0] = (unsigned char)(0xf0 | cp >> 18);
	out[1] = (unsigned char)(0x80 | (cp >> 12 & 0x3f));
	out[2] = (unsigned char)(0x80 | (cp >> 6 & 0x3f));
	out[3] = (unsigned char)(0x80 | (cp & 0x3f));
	return 4;
}
