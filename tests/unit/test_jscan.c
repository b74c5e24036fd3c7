/*
 * test_jscan.c - the incremental JSON scanner: valid and invalid documents
 * (RFC 8259 and the UTF-8 rules), the *used offsets, the error reasons, and
 * the same verdict whether the bytes come at once, one by one or in odd
 * chunks; and the I-JSON member-name check (jscan_names, spec 13).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "jscan.h"

/* Verdicts of scan(). */
enum { V_VALID, V_INCOMPLETE, V_INVALID };

struct verdict {
	int v;
	size_t at;          /* offset of the bad byte (V_INVALID) */
	const char *why;
};

/* Whether scan() checks member names (jscan_names), and their memory. */
static int with_names;
static struct jscan_names names;

/* Scan n bytes fed chunk bytes at a time (0 = all at once), then finish. */
static struct verdict scan(const char *s, size_t n, size_t chunk)
{
	struct verdict out = {V_INCOMPLETE, 0, NULL};
	struct jscan j;
	size_t off = 0, k, used;
	int r = JSCAN_MORE;

	jscan_init(&j);
	if (with_names)
		jscan_names(&j, &names); /* reused: reset each time */
	while (off < n) {
		k = chunk && n - off > chunk ? chunk : n - off;
		r = jscan_feed(&j, s + off, k, &used);
		assert_true(used <= k);
		if (r == JSCAN_ERROR) {
			out.v = V_INVALID;
			out.at = off + used;
			out.why = j.error;
			assert_non_null(j.error);
			return out;
		}
		if (r == JSCAN_MORE)
			assert_int_equal(used, k);
		off += used;
		if (r == JSCAN_DONE && used == 0 && k > 0) {
			/* Only a pending top-level number ends without
			 * consuming; the next feed must make progress. */
			r = jscan_feed(&j, s + off, k, &used);
			if (r == JSCAN_ERROR) {
				out.v = V_INVALID;
				out.at = off + used;
				out.why = j.error;
				return out;
			}
			assert_true(used > 0);
			off += used;
		}
	}
	r = jscan_finish(&j);
	if (r == JSCAN_DONE)
		out.v = V_VALID;
	else if (r == JSCAN_ERROR)
		out.v = V_INVALID;
	return out;
}

/* Same verdict for every chunking. */
static struct verdict scan_all_ways(const char *s, size_t n)
{
	static const size_t chunks[] = {1, 2, 3, 5, 7, 64};
	struct verdict whole = scan(s, n, 0), v;
	size_t i;

	for (i = 0; i < sizeof(chunks) / sizeof(chunks[0]); i++) {
		v = scan(s, n, chunks[i]);
		assert_int_equal(v.v, whole.v);
		if (whole.v == V_INVALID) {
			assert_int_equal(v.at, whole.at);
			assert_string_equal(v.why, whole.why);
		}
	}
	return whole;
}

#define VALID(lit) \
	assert_int_equal(scan_all_ways(lit, sizeof(lit) - 1).v, V_VALID)
#define INCOMPLETE(lit) \
	assert_int_equal(scan_all_ways(lit, sizeof(lit) - 1).v, V_INCOMPLETE)

static void invalid(const char *s, size_t n, size_t at, const char *why)
{
	struct verdict v = scan_all_ways(s, n);

	if (v.v != V_INVALID)
		fail_msg("accepted: %.*s", (int)n, s);
	assert_int_equal(v.at, at);
	assert_string_equal(v.why, why);
}

#define INVALID(lit, at, why) invalid(lit, sizeof(lit) - 1, at, why)

static void test_valid(void **state)
{
	VALID("{}");
	VALID("[]");
	VALID("\"\"");
	VALID("  {\"a\": [1, -0.5e+3, true, false, null, \"x\"]}  \n");
	VALID("{\"a\":{\"b\":{\"c\":[[],{}]}},\"d\":\"\"}");
	VALID("0");
	VALID("-0");
	VALID("123");
	VALID("1.5E-7");
	VALID("1e5");
	VALID("0.0");
	VALID("-12.5e+10 ");
	VALID("true");
	VALID("null");
	VALID("\t\r\n[ 1 , 2 ]\t\r\n");
	VALID("\"\\\" \\\\ \\/ \\b \\f \\n \\r \\t\"");
	VALID("\"\\u0000 \\u00e9 \\uFFFF \\ud83d\\ude00\"");
	VALID("{\"k\\u00e9y\\n\": 1}");
}

static void test_utf8(void **state)
{
	VALID("\"\xc3\xa9\"");                 /* U+00E9 */
	VALID("\"\xe2\x82\xac\"");             /* U+20AC */
	VALID("\"\xef\xbf\xbf\"");             /* U+FFFF */
	VALID("\"\xed\x9f\xbf\"");             /* U+D7FF */
	VALID("\"\xee\x80\x80\"");             /* U+E000 */
	VALID("\"\xf0\x9f\x98\x80\"");         /* U+1F600 */
	VALID("\"\xf4\x8f\xbf\xbf\"");         /* U+10FFFF */
	VALID("{\"\xc3\xa9\": \"\xc3\xa9\"}"); /* in keys too */

	INVALID("\"\x80\"", 1, "invalid UTF-8");
	INVALID("\"\xc0\x80\"", 1, "invalid UTF-8");
	INVALID("\"\xc1\xbf\"", 1, "invalid UTF-8");
	INVALID("\"\xe0\x80\x80\"", 2, "invalid UTF-8 (overlong)");
	INVALID("\"\xe0\x9f\xbf\"", 2, "invalid UTF-8 (overlong)");
	INVALID("\"\xed\xa0\x80\"", 2, "invalid UTF-8 (surrogate)");
	INVALID("\"\xed\xbf\xbf\"", 2, "invalid UTF-8 (surrogate)");
	INVALID("\"\xf0\x80\x80\x80\"", 2, "invalid UTF-8 (overlong)");
	INVALID("\"\xf0\x8f\xbf\xbf\"", 2, "invalid UTF-8 (overlong)");
	INVALID("\"\xf4\x90\x80\x80\"", 2, "invalid UTF-8 (above U+10FFFF)");
	INVALID("\"\xf5\x80\x80\x80\"", 1, "invalid UTF-8");
	INVALID("\"\xff\"", 1, "invalid UTF-8");
	INVALID("\"\xc3\"", 2, "invalid UTF-8");         /* cut short */
	INVALID("\"\xe2\x82x\"", 3, "invalid UTF-8");
	INVALID("\"\xc3\xa9\xa9\"", 3, "invalid UTF-8"); /* stray byte */
	INVALID("{\"\xc3\": 1}", 3, "invalid UTF-8");
	INVALID("\xc3\xa9", 0, "unexpected character"); /* outside strings */
}

static void test_strings(void **state)
{
	INVALID("\"a\x01\"", 2, "control character in string");
	INVALID("\"a\nb\"", 2, "control character in string");
	INVALID("\"a\x1f\"", 2, "control character in string");
	INVALID("\"\\x\"", 2, "invalid escape in string");
	INVALID("\"\\'\"", 2, "invalid escape in string");
	INVALID("\"\\u12G4\"", 5, "invalid \\u escape");
	INVALID("\"\\u\"", 3, "invalid \\u escape");
	INVALID("\"\\ud800\"", 7, "unpaired surrogate in \\u escape");
	INVALID("\"\\ud800x\"", 7, "unpaired surrogate in \\u escape");
	INVALID("\"\\ud800\\n\"", 8, "unpaired surrogate in \\u escape");
	INVALID("\"\\ud800\\u0041\"", 12, "unpaired surrogate in \\u escape");
	INVALID("\"\\ud800\\ud800\"", 12, "unpaired surrogate in \\u escape");
	INVALID("\"\\udc00\"", 6, "unpaired surrogate in \\u escape");
	INVALID("\"\\uDFFF\\uDC00\"", 6, "unpaired surrogate in \\u escape");
	VALID("\"\\uDBFF\\uDFFF\"");
	INCOMPLETE("\"abc");
	INCOMPLETE("\"abc\\");
	INCOMPLETE("\"\\u00");
	INCOMPLETE("\"\\ud83d");
	INCOMPLETE("\"\\ud83d\\");
	INCOMPLETE("\"\xf0\x9f\x98");
}

static void test_nul(void **state)
{
	INVALID("\"a\0b\"", 2, "NUL byte");
	INVALID("\0", 0, "NUL byte");
	INVALID("[\0]", 1, "NUL byte");
	INVALID("{\"a\"\0:1}", 4, "NUL byte");
	INVALID("{\"a\":1\0}", 6, "NUL byte");
	INVALID("tr\0e", 2, "NUL byte");
	INVALID("\"\\\0\"", 2, "invalid escape in string");
}

static void test_numbers(void **state)
{
	INVALID("01", 1, "leading zero in number");
	INVALID("-01", 2, "leading zero in number");
	INVALID("[00]", 2, "leading zero in number");
	INVALID("-a", 1, "invalid number");
	INVALID("[-]", 2, "invalid number");
	INVALID("[1.]", 3, "invalid number");
	INVALID("[1.e5]", 3, "invalid number");
	INVALID("[1e]", 3, "invalid number");
	INVALID("[1e+]", 4, "invalid number");
	INVALID("[.5]", 1, "unexpected character");
	INVALID("+1", 0, "unexpected character");
	INVALID("[1 2]", 3, "expected ',' or a closing bracket");
	INVALID("[1.5.3]", 4, "expected ',' or a closing bracket");
	INVALID("[0x10]", 2, "expected ',' or a closing bracket");
	INCOMPLETE("-");
	INCOMPLETE("1.");
	INCOMPLETE("1e");
	INCOMPLETE("1e-");
	INCOMPLETE("[1");
	VALID("[0,-0,1,-1,0.5,-0.5,1e1,1E+1,1e-1,10,109.25e-03]");
}

static void test_structure(void **state)
{
	INVALID("{\"a\":1,}", 7, "trailing comma");
	INVALID("[1,]", 3, "trailing comma");
	INVALID("[1,,2]", 3, "unexpected character");
	INVALID("[,1]", 1, "unexpected character");
	INVALID("{,}", 1, "expected a string key");
	INVALID("{\"a\":}", 5, "unexpected character");
	INVALID("{\"a\" 1}", 5, "expected ':'");
	INVALID("{\"a\"::1}", 5, "unexpected character");
	INVALID("{1:2}", 1, "expected a string key");
	INVALID("{'a':1}", 1, "expected a string key");
	INVALID("]", 0, "unexpected character");
	INVALID("}", 0, "unexpected character");
	INVALID("{]", 1, "expected a string key");
	INVALID("[}", 1, "unexpected character");
	INVALID("[1}", 2, "mismatched bracket");
	INVALID("{\"a\":1]", 6, "mismatched bracket");
	INVALID("[[]}", 3, "mismatched bracket");
	INVALID("trux", 3, "invalid literal");
	INVALID("nulx", 3, "invalid literal");
	INVALID("fa1se", 2, "invalid literal");
	INVALID("True", 0, "unexpected character");
	INVALID("{} {}", 3, "data after the JSON value");
	INVALID("1 2", 2, "data after the JSON value");
	INVALID("\"a\"x", 3, "data after the JSON value");
	INVALID("/* c */ {}", 0, "unexpected character");
	INCOMPLETE("");
	INCOMPLETE("   \n");
	INCOMPLETE("{");
	INCOMPLETE("{\"a\"");
	INCOMPLETE("{\"a\":");
	INCOMPLETE("{\"a\":1,");
	INCOMPLETE("[[[");
	INCOMPLETE("tru");
	INCOMPLETE("fals");
	INCOMPLETE("nul");
}

static void test_used(void **state)
{
	struct jscan j;
	size_t used = 99;

	jscan_init(&j);
	assert_int_equal(jscan_feed(&j, "{\"a\":1}xyz", 10, &used), JSCAN_DONE);
	assert_int_equal(used, 7);
	assert_int_equal(jscan_feed(&j, "  \n", 3, &used), JSCAN_DONE);
	assert_int_equal(used, 3);
	assert_int_equal(jscan_feed(&j, "", 0, &used), JSCAN_DONE);
	assert_int_equal(used, 0);
	assert_int_equal(jscan_feed(&j, " x", 2, &used), JSCAN_ERROR);
	assert_int_equal(used, 1);
	assert_string_equal(j.error, "data after the JSON value");
	/* Errors are sticky. */
	assert_int_equal(jscan_feed(&j, " ", 1, &used), JSCAN_ERROR);
	assert_int_equal(used, 0);
	assert_int_equal(jscan_finish(&j), JSCAN_ERROR);

	/* A top-level number ends at the byte after it, unconsumed. */
	jscan_init(&j);
	assert_int_equal(jscan_feed(&j, "123 ", 4, &used), JSCAN_DONE);
	assert_int_equal(used, 3);
	jscan_init(&j);
	assert_int_equal(jscan_feed(&j, "12", 2, &used), JSCAN_MORE);
	assert_int_equal(used, 2);
	assert_int_equal(jscan_feed(&j, "3]", 2, &used), JSCAN_DONE);
	assert_int_equal(used, 1);
	assert_int_equal(jscan_feed(&j, "]", 1, &used), JSCAN_ERROR);
	assert_int_equal(used, 0);

	jscan_init(&j);
	assert_int_equal(jscan_feed(&j, "-4.5", 4, &used), JSCAN_MORE);
	assert_int_equal(jscan_finish(&j), JSCAN_DONE);
	assert_int_equal(jscan_finish(&j), JSCAN_DONE);

	/* Everything else ends at its last byte, consumed. */
	jscan_init(&j);
	assert_int_equal(jscan_feed(&j, " [1] ", 5, &used), JSCAN_DONE);
	assert_int_equal(used, 4);
	jscan_init(&j);
	assert_int_equal(jscan_feed(&j, "true\n", 5, &used), JSCAN_DONE);
	assert_int_equal(used, 4);
	jscan_init(&j);
	assert_int_equal(jscan_feed(&j, "\"s\"", 3, &used), JSCAN_DONE);
	assert_int_equal(used, 3);

	/* Incomplete at the end: finish says so without an error. */
	jscan_init(&j);
	assert_int_equal(jscan_feed(&j, "{\"a\":[", 6, &used), JSCAN_MORE);
	assert_int_equal(used, 6);
	assert_int_equal(jscan_finish(&j), JSCAN_MORE);
	assert_null(j.error);
}

static void test_depth(void **state)
{
	char buf[2 * (JSCAN_MAX_DEPTH + 1) + 1];
	size_t d;

	for (d = 0; d < JSCAN_MAX_DEPTH; d++) {
		buf[d] = '[';
		buf[2 * JSCAN_MAX_DEPTH - 1 - d] = ']';
	}
	assert_int_equal(scan_all_ways(buf, 2 * JSCAN_MAX_DEPTH).v, V_VALID);

	for (d = 0; d <= JSCAN_MAX_DEPTH; d++)
		buf[d] = '[';
	invalid(buf, JSCAN_MAX_DEPTH + 1, JSCAN_MAX_DEPTH, "nesting too deep");
}

static void test_depth_mixed(void **state)
{
	/* Objects and arrays interleaved: the stack tells them apart. */
	static char buf[JSCAN_MAX_DEPTH * 8 + 16];
	size_t n = 0, d;

	for (d = 0; d < JSCAN_MAX_DEPTH; d++) {
		if (d % 3 == 0) {
			memcpy(buf + n, "{\"k\":", 5);
			n += 5;
		} else {
			buf[n++] = '[';
		}
	}
	buf[n++] = '1';
	for (d = JSCAN_MAX_DEPTH; d-- > 0;)
		buf[n++] = d % 3 == 0 ? '}' : ']';
	assert_int_equal(scan_all_ways(buf, n).v, V_VALID);
	/* Swap the innermost object close for ']'. */
	for (d = 0; d < n && buf[n - 1 - d] != '}'; d++)
		;
	buf[n - 1 - d] = ']';
	invalid(buf, n, n - 1 - d, "mismatched bracket");
}

static void test_long_string(void **state)
{
	size_t n = 1 << 20, i;
	char *s = malloc(n);
	struct verdict v;

	assert_non_null(s);
	s[0] = '"';
	for (i = 1; i < n - 1; i++)
		s[i] = (char)('a' + i % 26);
	s[n - 1] = '"';
	v = scan(s, n, 4096);
	assert_int_equal(v.v, V_VALID);
	v = scan(s, n, 1);
	assert_int_equal(v.v, V_VALID);
	s[n / 2] = '\x7f'; /* DEL is allowed */
	assert_int_equal(scan(s, n, 0).v, V_VALID);
	s[n / 2] = '\x1b';
	v = scan(s, n, 1000);
	assert_int_equal(v.v, V_INVALID);
	assert_int_equal(v.at, n / 2);
	free(s);
}

/* Walk the members of s; the keys and values joined as "k=v;", or "BAD". */
static void members_of(const char *s, char *out, size_t cap)
{
	struct jscan_members m;
	struct jscan_span k, v;
	size_t n = strlen(s), o = 0;

	jscan_members_init(&m, s, 0, n);
	out[0] = 0;
	while (jscan_members_next(&m, &k, &v))
		o += (size_t)snprintf(out + o, cap - o, "%.*s=%.*s;",
				      (int)k.n, s + k.at, (int)v.n, s + v.at);
	if (m.bad)
		snprintf(out, cap, "BAD");
}

static void test_members(void **state)
{
	static const char *const cases[][2] = {
		{"{}", ""},
		{" { } ", "BAD"}, /* init must be at the '{' */
		{"{ }", ""},
		{"{\"a\":1}", "\"a\"=1;"},
		{"{ \"a\" : [1,{\"x\":2}] , \"b\":\"}\" }",
		 "\"a\"=[1,{\"x\":2}];\"b\"=\"}\";"},
		{"{\"a\":1,}", "BAD"},
		{"{\"a\":1 \"b\":2}", "BAD"},
		{"{\"a\" 1}", "BAD"},
		{"{\"a\":}", "BAD"},
		{"{\"a\":1", "BAD"},
		{"{a:1}", "BAD"},
		{"[1]", "BAD"},
		{"", "BAD"},
	};
	char out[128];
	size_t i;

	for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		members_of(cases[i][0], out, sizeof out);
		assert_string_equal(out, cases[i][1]);
	}
}

/* Whether whitespace stands inside each member's value (m.ws): "01". */
static void test_members_ws(void **state)
{
	const char *s = "{ \"a\" : [1, 2], \"b\":{\"c\":\" x \"},"
			"\"d\": 5 ,\"e\":{\"f\":\n1}}";
	struct jscan_members m;
	struct jscan_span k, v;
	char got[8] = "";
	size_t n = 0;

	(void)state;
	jscan_members_init(&m, s, 0, strlen(s));
	while (jscan_members_next(&m, &k, &v) && n < sizeof got - 1)
		got[n++] = m.ws ? '1' : '0';
	/* a space in a string or around a value is not inside it */
	assert_string_equal(got, "1001");
	assert_false(m.bad);
}

static void test_is_value_ws(void **state)
{
	static const struct { const char *s; int ok, ws; } cases[] = {
		{"{\"a\":[1,\"b c\"]}", 1, 0},
		{"{\"a\": 1}", 1, 1},
		{"[1 ,2]", 1, 1},
		{"12", 1, 0},
		{"12 ", 1, 1},
		{" \"x\"", 1, 1},
		{"{\"a\":1}\n", 1, 1},
		{"{\"a\":1} x", 0, 1},
		{"\"a\nb\"", 0, 0},
	};
	size_t i;
	int ws;

	(void)state;
	for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		ws = -1;
		assert_int_equal(jscan_is_value_ws(cases[i].s,
						   strlen(cases[i].s), &ws),
				 cases[i].ok);
		if (cases[i].ok)
			assert_int_equal(ws, cases[i].ws);
	}
}

static int str_is(const char *s, const char *want)
{
	struct jscan_span sp = {0, strlen(s)};

	return jscan_str_is(s, sp, want);
}

/* Walk the elements of s: "v;" each, or "BAD". */
static void items_of(const char *s, char *out, size_t cap)
{
	struct jscan_members m;
	struct jscan_span v;
	size_t n = strlen(s), o = 0;

	jscan_items_init(&m, s, 0, n);
	out[0] = 0;
	while (jscan_items_next(&m, &v))
		o += (size_t)snprintf(out + o, cap - o, "%.*s;", (int)v.n,
				      s + v.at);
	if (m.bad)
		snprintf(out, cap, "BAD");
}

static void test_items(void **state)
{
	static const char *const cases[][2] = {
		{"[]", ""},
		{"[ ]", ""},
		{"[1]", "1;"},
		{"[ 1 , \"a]\" ,{\"x\":[2]}, [3,4] ,null]",
		 "1;\"a]\";{\"x\":[2]};[3,4];null;"},
		{"[1,]", "BAD"},
		{"[1 2]", "BAD"},
		{"[1", "BAD"},
		{"{\"a\":1}", "BAD"},
		{"", "BAD"},
	};
	char out[128];
	size_t i;

	(void)state;
	for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		items_of(cases[i][0], out, sizeof out);
		assert_string_equal(out, cases[i][1]);
	}
}

/* One escape rule: a key matches what it decodes to, nothing else. */
static void test_str_is(void **state)
{
	(void)state;
	assert_true(str_is("\"id\"", "id"));
	assert_true(str_is("\"\\u0069d\"", "id"));
	assert_true(str_is("\"\\u0069\\u0064\"", "id"));
	assert_true(str_is("\"a\\\"b\\\\c\\/d\"", "a\"b\\c/d"));
	assert_true(str_is("\"\\b\\f\\n\\r\\t\"", "\b\f\n\r\t"));
	assert_true(str_is("\"\\u00e9\"", "\xc3\xa9"));
	assert_true(str_is("\"\\u20AC\"", "\xe2\x82\xac"));
	assert_true(str_is("\"\\ud83d\\ude00\"", "\xf0\x9f\x98\x80"));
	assert_true(str_is("\"\"", ""));
	assert_false(str_is("\"id\"", "i"));
	assert_false(str_is("\"i\"", "id"));
	assert_false(str_is("\"ID\"", "id"));
	/* a NUL inside is never the string that stops before it */
	assert_false(str_is("\"name\\u0000x\"", "name"));
	assert_false(str_is("\"na\\u0000me\"", "na"));
	assert_false(str_is("\"\\u0000\"", ""));
	/* broken escapes and lone surrogates match nothing */
	assert_false(str_is("\"\\x41\"", "\\x41"));
	assert_false(str_is("\"\\u00\"", ""));
	assert_false(str_is("\"\\ud83d\"", "\xed\xa0\xbd"));
	assert_false(str_is("\"\\ude00\"", "\xed\xb8\x80"));
	assert_false(str_is("\"\\ud83dx\"", ""));
	assert_false(str_is("id", "id"));
	assert_false(str_is("\"", ""));
}

/* The first member whose key decodes to the name, escaped or not. */
static void test_member(void **state)
{
	static const char *const cases[][3] = {
		{"{\"a\":1,\"b\":2}", "b", "2"},
		{"{\"a\":1,\"a\":2}", "a", "1"},
		{"{\"\\u0061\":[1],\"a\":2}", "a", "[1]"},
		{"{ \"x\" : {\"a\":3} , \"a\" : \"v\" }", "a", "\"v\""},
		{"{\"a\\u0000\":1,\"a\":2}", "a", "2"},
		{"{\"a\":1}", "b", NULL},
		{"{}", "a", NULL},
		{"[\"a\",1]", "a", NULL},
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		const char *s = cases[i][0];
		struct jscan_span obj = {0, strlen(s)}, v = {0, 0};
		int r = jscan_member(s, obj, cases[i][1], &v);

		if (!cases[i][2]) {
			assert_int_equal(r, 0);
			continue;
		}
		assert_int_equal(r, 1);
		assert_int_equal(v.n, strlen(cases[i][2]));
		assert_memory_equal(s + v.at, cases[i][2], v.n);
	}
}

/* The member-name check: what it refuses (where, why), what it lets
 * through, the same in every chunking, and nothing without it. */
static void test_names(void **state)
{
	static const char *ok[] = {
		"{}", "[]", "1", "\"a\"",
		"{\"a\":1,\"b\":2,\"A\":3,\"a \":4}",
		"{\"a\":{\"a\":{\"a\":1}},\"b\":[{\"a\":1},{\"a\":2}]}",
		"{\"x\":{\"k\":1},\"y\":{\"k\":1}}",
		"{\"v\":\"\\u0000\\u001b\",\"w\":[\"\\u0000\"]}", /* values */
		"{\"\\u00e9\":1,\"e\\u0301\":2,\"\\ud83d\\ude00\":3}",
		"{\"a\\/b\":1,\"a\\\\b\":2,\"a\\\"b\":3}",
		"{\"\xc2\xa0\":1,\"\xc2\xa1\":2}", /* U+00A0 is no control */
	};
	size_t i;

	with_names = 1;
	for (i = 0; i < sizeof ok / sizeof *ok; i++)
		if (scan_all_ways(ok[i], strlen(ok[i])).v != V_VALID)
			fail_msg("refused: %s", ok[i]);
	INVALID("{\"a\":1,\"a\":2}", 12,
		"two members named \"a\" in one object (I-JSON, RFC 7493)");
	INVALID("{\"name\":\"x\",\"n\\u0061me\":\"y\"}", 27,
		"two members named \"name\" in one object (I-JSON, RFC 7493)");
	INVALID("{\"\\ud83d\\ude00\":1,\"\xf0\x9f\x98\x80\":2}", 26,
		"two members named \"\xf0\x9f\x98\x80\" in one object (I-JSON, "
		"RFC 7493)");
	INVALID("{\"\":1,\"\":2}", 10,
		"two members named \"\" in one object (I-JSON, RFC 7493)");
	INVALID("{\"p\":{\"q\":[{\"k\":1,\"z\":0,\"k\":2}]}}", 29,
		"two members named \"k\" in one object (I-JSON, RFC 7493)");
	INVALID("{\"b\":{\"c\":1},\"b\":2}", 18,
		"two members named \"b\" in one object (I-JSON, RFC 7493)");
	INVALID("{\"name\\u0000\":\"allowed\",\"name\":\"denied\"}", 12,
		"a member name holds the control character U+0000 (I-JSON, "
		"RFC 7493)");
	INVALID("{\"a\":{\"x\\n\":1}}", 10,
		"a member name holds the control character U+000A (I-JSON, "
		"RFC 7493)");
	INVALID("{\"\\u001b[2J\":1}", 11,
		"a member name holds the control character U+001B (I-JSON, "
		"RFC 7493)");
	INVALID("{\"a\x7f\":1}", 4,
		"a member name holds the control character U+007F (I-JSON, "
		"RFC 7493)");
	INVALID("{\"a\xc2\x85\":1}", 5,
		"a member name holds the control character U+0085 (I-JSON, "
		"RFC 7493)");
	INVALID("{\"a\\u009f\":1}", 9,
		"a member name holds the control character U+009F (I-JSON, "
		"RFC 7493)");
	/* a long name is cut in the message, never inside a character */
	INVALID("{\"\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9"
		"\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9"
		"\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9"
		"\xc3\xa9\":1,\"\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9"
		"\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9"
		"\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9"
		"\xc3\xa9\xc3\xa9\":2}", 110,
		"two members named \"\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9"
		"\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9"
		"\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9"
		"\xc3\xa9\xc3\xa9\"... in one object (I-JSON, RFC 7493)");
	with_names = 0;
	assert_int_equal(scan_all_ways("{\"a\":1,\"a\":2}", 13).v, V_VALID);
	assert_int_equal(scan_all_ways("{\"\\u0000\":1}", 12).v, V_VALID);
	jscan_names_free(&names);
}

/* Many names in one object: sorted once at its end. */
static void test_names_many(void **state)
{
	char *s = malloc(400000), *p = s;
	int i;

	*p++ = '{';
	for (i = 0; i < 20000; i++)
		p += sprintf(p, "%s\"k%d\":%d", i ? "," : "", i, i);
	*p++ = '}';
	with_names = 1;
	assert_int_equal(scan(s, (size_t)(p - s), 0).v, V_VALID);
	p[-1] = ',';
	p += sprintf(p, "\"k19999\":0}");
	assert_int_equal(scan(s, (size_t)(p - s), 4096).v, V_INVALID);
	with_names = 0;
	jscan_names_free(&names);
	free(s);
}

/* jscan_is_value: one whole value, whitespace around it allowed, nothing
 * after it (trace.c and the HTTP transport's JSON bodies). */
static void test_is_value(void **state)
{
	assert_true(jscan_is_value("{}", 2));
	assert_true(jscan_is_value(" {\"a\":[1]} \r\n", 13));
	assert_true(jscan_is_value("12", 2));
	assert_false(jscan_is_value("{}x", 3));
	assert_false(jscan_is_value("1 2", 3));
	assert_false(jscan_is_value("{} {}", 5));
	assert_false(jscan_is_value("", 0));
	assert_false(jscan_is_value("{", 1));
	assert_false(jscan_is_value("{\"a\":\"\x1b\"}", 9));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_valid),
		cmocka_unit_test(test_utf8),
		cmocka_unit_test(test_strings),
		cmocka_unit_test(test_nul),
		cmocka_unit_test(test_numbers),
		cmocka_unit_test(test_structure),
		cmocka_unit_test(test_used),
		cmocka_unit_test(test_depth),
		cmocka_unit_test(test_depth_mixed),
		cmocka_unit_test(test_long_string),
		cmocka_unit_test(test_members),
		cmocka_unit_test(test_members_ws),
		cmocka_unit_test(test_is_value_ws),
		cmocka_unit_test(test_items),
		cmocka_unit_test(test_str_is),
		cmocka_unit_test(test_member),
		cmocka_unit_test(test_names),
		cmocka_unit_test(test_names_many),
		cmocka_unit_test(test_is_value),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
