/*
 * fakeexact.c - --exact of tests/fake/fakeserver: texts written byte for
 * byte, never through cJSON (which would reprint numbers through a double
 * and cut strings at an escaped NUL), so that the tests can check that
 * mcpfs passes on what a server sent as it was sent. README.md beside this
 * file says what each tool answers.
 */
#include <stdlib.h>
#include <string.h>

#include "fakeexact.h"
#include "mini_mcp.h"

/* Texts written as they are (cJSON would reprint the numbers through a
 * double and cut strings at an escaped NUL): two pages of tools/list ahead
 * of the usual ones, and the replies of the exact tools. */
static const char exact_page1[] =
	"{\"tools\":[{\"name\":\"exact\",\"description\":\"2^53-1 is "
	"9007199254740991\",\"inputSchema\":{\"type\":\"object\","
	"\"properties\":{\"n\":{\"type\":\"integer\",\"minimum\":"
	"-9007199254740991,\"maximum\":9007199254740991}}}},"
	"{\"name\":\"a\\u0000b\",\"description\":\"x\\u0000y\","
	"\"inputSchema\":{\"type\":\"object\"}}],\"nextCursor\":\"exact-1\"}";
static const char exact_page2[] =
	"{\"tools\":[{\"name\":\"e20\",\"inputSchema\":{\"type\":\"object\","
	"\"properties\":{\"v\":{\"type\":\"integer\",\"enum\":"
	"[12345678901234567890,-12345678901234567890]},\"f\":{\"type\":"
	"\"number\",\"multipleOf\":0.1,\"default\":1E+2}}}},"
	"{\"name\":\"exact_error\",\"inputSchema\":{\"type\":\"object\"}},"
	"{\"name\":\"exact_ask\",\"inputSchema\":{\"type\":\"object\"}},"
	"{\"name\":\"exact_notify\",\"inputSchema\":{\"type\":\"object\"}}],"
	"\"nextCursor\":\"fake-page-0\"}";
static const char exact_result[] =
	"{\"content\":[{\"type\":\"text\",\"text\":\"ab\\u0000cd "
	"9007199254740993\"}],\"structuredContent\":{\"n\":9007199254740993,"
	"\"v\":12345678901234567890,\"f\":0.1,\"s\":\"ab\\u0000cd\"}}";
static const char exact_error[] =
	"{\"code\":-32000,\"message\":\"bad\\u0000thing\",\"data\":"
	"{\"v\":12345678901234567890,\"f\":0.1}}";
const char exact_question[] =
	"{\"message\":\"m\\u0000n 12345678901234567890\",\"requestedSchema\":"
	"{\"type\":\"object\",\"properties\":{\"s\":{\"type\":\"string\","
	"\"maxLength\":5},\"n\":{\"type\":\"integer\",\"maximum\":"
	"12345678901234567890}},\"required\":[\"s\"]}}";
static const char exact_note[] =
	"{\"jsonrpc\":\"2.0\",\"method\":\"notifications/message\",\"params\":"
	"{\"level\":\"info\",\"logger\":\"exact\",\"data\":{\"v\":"
	"12345678901234567890,\"f\":0.1,\"s\":\"a\\u0000b\"}}}\n";

/* {"jsonrpc":"2.0","id":ID,"KEY":TEXT} on one line. */
static void exact_send(const cJSON *id, const char *key, const char *text)
{
	char *ids = mm_print(id);

	mm_write("{\"jsonrpc\":\"2.0\",\"id\":", 22);
	mm_write(ids, strlen(ids));
	mm_write(",\"", 2);
	mm_write(key, strlen(key));
	mm_write("\":", 2);
	mm_write(text, strlen(text));
	mm_write("}\n", 2);
	free(ids);
}

int exact_list(const cJSON *id, const char *cursor)
{
	if (cursor && strcmp(cursor, "exact-1"))
		return 0;
	exact_send(id, "result", cursor ? exact_page2 : exact_page1);
	return 1;
}

int exact_call(const cJSON *id, const char *name)
{
	if (!strcmp(name, "exact")) {
		exact_send(id, "result", exact_result);
	} else if (!strcmp(name, "exact_error")) {
		exact_send(id, "error", exact_error);
	} else if (!strcmp(name, "exact_notify")) {
		mm_write(exact_note, sizeof exact_note - 1);
		mm_result(id, mm_text("notified", 0));
	} else if (!strcmp(name, "a\xc0\x80" "b")) {
		/* mini_mcp keeps an escaped NUL as C0 80 */
		mm_result(id, mm_text("called a\xc0\x80" "b", 0));
	} else {
		return 0;
	}
	return 1;
}
