/*
 * test_askcheck.c - the checks of the server's questions (askcheck.c):
 * which requests become questions, which answers fit (with the exact
 * reasons of those that do not), the defaults an accepted form gets
 * (SEP-1034), what a sampling answer becomes, the formats and URL hosts.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>
#include <cmocka.h>

#include "askcheck.h"

static const char schema[] =
	"{\"message\":\"m\",\"requestedSchema\":{\"type\":\"object\","
	"\"properties\":{"
	"\"name\":{\"type\":\"string\",\"minLength\":2,\"maxLength\":4},"
	"\"age\":{\"type\":\"integer\",\"minimum\":0,\"maximum\":150,"
	"\"default\":30},"
	"\"score\":{\"type\":\"number\",\"default\":95.5},"
	"\"ok\":{\"type\":\"boolean\",\"default\":true},"
	"\"st\":{\"type\":\"string\",\"enum\":[\"a\",\"b\"],\"default\":\"a\"},"
	"\"hero\":{\"type\":\"string\",\"oneOf\":[{\"const\":\"h1\","
	"\"title\":\"H\"}]},"
	"\"tags\":{\"type\":\"array\",\"minItems\":1,\"maxItems\":2,"
	"\"items\":{\"anyOf\":[{\"const\":\"x\"},{\"const\":\"y\"}]}},"
	"\"mail\":{\"type\":\"string\",\"format\":\"email\"},"
	"\"when\":{\"type\":\"string\",\"format\":\"date-time\"}},"
	"\"required\":[\"name\"]}}";

/* The answer text checked against schema (form): 0 and the result as
 * text into out (n bytes), or -EINVAL and the reason. */
static int form(const char *answer, char *out, size_t n)
{
	cJSON *p = cJSON_Parse(schema), *a = cJSON_Parse(answer);
	cJSON *res = NULL, *err = NULL;
	int r;

	assert_non_null(p);
	r = ask_check_answer(ASK_FORM, p, a, &res, &err, out, n);
	assert_null(err);
	if (r == 0) {
		char *t = cJSON_PrintUnformatted(res);

		snprintf(out, n, "%s", t);
		cJSON_free(t);
	}
	cJSON_Delete(res);
	cJSON_Delete(a);
	cJSON_Delete(p);
	return r;
}

static void fits(const char *answer, const char *want)
{
	char out[1024];

	if (form(answer, out, sizeof out) != 0)
		fail_msg("refused %s: %s", answer, out);
	assert_string_equal(out, want);
}

static void refused(const char *answer, const char *want)
{
	char why[200] = "";

	assert_int_equal(form(answer, why, sizeof why), -EINVAL);
	assert_string_equal(why, want);
}

static void test_form_defaults(void **state)
{
	fits("{\"action\":\"accept\",\"content\":{\"name\":\"Jo\"}}",
	     "{\"action\":\"accept\",\"content\":{\"name\":\"Jo\",\"age\":30,"
	     "\"score\":95.5,\"ok\":true,\"st\":\"a\"}}");
	/* given fields win over defaults, order kept */
	fits("{\"action\":\"accept\",\"content\":{\"age\":3,\"name\":\"Jo\","
	     "\"ok\":false,\"tags\":[\"y\"],\"hero\":\"h1\"}}",
	     "{\"action\":\"accept\",\"content\":{\"age\":3,\"name\":\"Jo\","
	     "\"ok\":false,\"tags\":[\"y\"],\"hero\":\"h1\",\"score\":95.5,"
	     "\"st\":\"a\"}}");
	/* decline and cancel carry no content, whatever was written */
	fits("{\"action\":\"decline\",\"content\":{\"name\":1}}",
	     "{\"action\":\"decline\"}");
	fits("{\"action\":\"cancel\",\"_meta\":{}}", "{\"action\":\"cancel\"}");
	fits("{\"action\":\"accept\",\"content\":{\"name\":\"Jo\","
	     "\"mail\":\"a.b@c.de\",\"when\":\"2024-02-29T23:59:60.5+01:00\"}}",
	     "{\"action\":\"accept\",\"content\":{\"name\":\"Jo\","
	     "\"mail\":\"a.b@c.de\",\"when\":\"2024-02-29T23:59:60.5+01:00\","
	     "\"age\":30,\"score\":95.5,\"ok\":true,\"st\":\"a\"}}");
	/* minLength counts characters, not bytes */
	fits("{\"action\":\"accept\",\"content\":{\"name\":\"\xc3\xa9\xc3\xa9"
	     "\xc3\xa9\xc3\xa9\"}}",
	     "{\"action\":\"accept\",\"content\":{\"name\":\"\xc3\xa9\xc3\xa9"
	     "\xc3\xa9\xc3\xa9\",\"age\":30,\"score\":95.5,\"ok\":true,"
	     "\"st\":\"a\"}}");
}

static void test_form_refused(void **state)
{
	refused("{\"action\":\"accept\"}",
		"field \"name\": required (and has no default)");
	refused("{\"action\":\"accept\",\"content\":{\"name\":\"J\"}}",
		"field \"name\": minLength 2");
	refused("{\"action\":\"accept\",\"content\":{\"name\":\"Jonas\"}}",
		"field \"name\": maxLength 4");
	refused("{\"action\":\"accept\",\"content\":{\"name\":\"Jo\","
		"\"age\":1.5}}", "field \"age\": must be an integer");
	refused("{\"action\":\"accept\",\"content\":{\"name\":\"Jo\","
		"\"age\":-1}}", "field \"age\": minimum 0");
	refused("{\"action\":\"accept\",\"content\":{\"name\":\"Jo\","
		"\"age\":\"3\"}}", "field \"age\": must be an integer");
	refused("{\"action\":\"accept\",\"content\":{\"name\":\"Jo\","
		"\"score\":true}}", "field \"score\": must be a number");
	/* cJSON reads 1e999 as infinity, which it would print as null */
	refused("{\"action\":\"accept\",\"content\":{\"name\":\"Jo\","
		"\"score\":1e999}}", "field \"score\": a number too large to "
		"send (JSON has no infinity)");
	refused("{\"action\":\"accept\",\"content\":{\"name\":\"Jo\","
		"\"ok\":1}}", "field \"ok\": must be true or false");
	refused("{\"action\":\"accept\",\"content\":{\"name\":\"Jo\","
		"\"st\":\"c\"}}",
		"field \"st\": not one of the allowed values (enum)");
	refused("{\"action\":\"accept\",\"content\":{\"name\":\"Jo\","
		"\"hero\":\"h2\"}}",
		"field \"hero\": not one of the allowed values (enum)");
	refused("{\"action\":\"accept\",\"content\":{\"name\":\"Jo\","
		"\"tags\":[]}}", "field \"tags\": minItems 1");
	refused("{\"action\":\"accept\",\"content\":{\"name\":\"Jo\","
		"\"tags\":[\"x\",\"y\",\"x\"]}}", "field \"tags\": maxItems 2");
	refused("{\"action\":\"accept\",\"content\":{\"name\":\"Jo\","
		"\"tags\":[\"x\",\"z\"]}}",
		"field \"tags\": item 1 is not one of the allowed values");
	refused("{\"action\":\"accept\",\"content\":{\"name\":\"Jo\","
		"\"tags\":\"x\"}}", "field \"tags\": must be an array");
	refused("{\"action\":\"accept\",\"content\":{\"name\":\"Jo\","
		"\"mail\":\"a@b\"}}", "field \"mail\": format email");
	refused("{\"action\":\"accept\",\"content\":{\"name\":\"Jo\","
		"\"when\":\"2023-02-29T00:00:00Z\"}}",
		"field \"when\": format date-time");
	refused("{\"action\":\"accept\",\"content\":{\"name\":\"Jo\","
		"\"x\":1}}", "field \"x\": not in the requested schema");
	refused("{\"action\":\"accept\",\"content\":[]}",
		"content must be an object");
	refused("{\"action\":\"ok\"}",
		"action: must be \"accept\", \"decline\" or \"cancel\"");
	refused("{\"content\":{}}",
		"action: must be \"accept\", \"decline\" or \"cancel\"");
	refused("{\"action\":\"accept\",\"name\":\"Jo\"}",
		"unknown key \"name\" (want action and content)");
	refused("[\"accept\"]", "the answer must be a JSON object");
	refused("{\"action\":\"accept\",\"content\":{\"name\":\"Jo\","
		"\"age\":3,\"age\":\"x\"}}", "field \"age\": given twice");
	refused("{\"action\":\"decline\",\"action\":\"accept\"}",
		"key \"action\" given twice");
}

static int answer(enum ask_kind kind, const char *params, const char *a,
		  char *out, size_t n)
{
	cJSON *p = cJSON_Parse(params), *j = cJSON_Parse(a);
	cJSON *res = NULL, *err = NULL;
	int r = ask_check_answer(kind, p, j, &res, &err, out, n);

	if (r == 0) {
		char *t;

		assert_true(!res != !err);
		t = cJSON_PrintUnformatted(res ? res : err);
		snprintf(out, n, "%s%s", res ? "result " : "error ", t);
		cJSON_free(t);
	}
	cJSON_Delete(res);
	cJSON_Delete(err);
	cJSON_Delete(j);
	cJSON_Delete(p);
	return r;
}

static void test_url_and_sampling(void **state)
{
	static const char url[] = "{\"mode\":\"url\",\"url\":\"https://x.io/\","
				  "\"elicitationId\":\"e\",\"message\":\"m\"}";
	static const char smp[] = "{\"messages\":[],\"maxTokens\":5}";
	char out[300];

	assert_int_equal(answer(ASK_URL, url, "{\"action\":\"accept\"}", out,
				sizeof out), 0);
	assert_string_equal(out, "result {\"action\":\"accept\"}");
	assert_int_equal(answer(ASK_URL, url, "{\"action\":\"accept\","
				"\"content\":{}}", out, sizeof out), -EINVAL);
	assert_string_equal(out, "content: none in url mode (the data goes to "
			    "the site, not to mcpfs)");
	assert_int_equal(answer(ASK_SAMPLING, smp, "{\"role\":\"assistant\","
				"\"content\":[{\"type\":\"text\",\"text\":\"a\"}"
				"],\"model\":\"m\",\"stopReason\":\"endTurn\"}",
				out, sizeof out), 0);
	assert_string_equal(out, "result {\"role\":\"assistant\",\"content\":"
			    "[{\"type\":\"text\",\"text\":\"a\"}],\"model\":"
			    "\"m\",\"stopReason\":\"endTurn\"}");
	assert_int_equal(answer(ASK_SAMPLING, smp, "{\"action\":\"decline\"}",
				out, sizeof out), 0);
	assert_string_equal(out, "error {\"code\":-1,\"message\":\"User "
			    "rejected sampling request\"}");
	assert_int_equal(answer(ASK_SAMPLING, smp, "{\"action\":\"cancel\","
				"\"message\":\"no\"}", out, sizeof out), 0);
	assert_string_equal(out, "error {\"code\":-1,\"message\":\"no\"}");
	assert_int_equal(answer(ASK_SAMPLING, smp, "{\"role\":\"assistant\","
				"\"content\":[{\"type\":\"text\"}],"
				"\"model\":\"m\"}", out, sizeof out), -EINVAL);
	assert_string_equal(out, "content[0]: a text block needs a string "
			    "text");
	assert_int_equal(answer(ASK_SAMPLING, smp, "{\"role\":\"assistant\","
				"\"content\":[],\"model\":\"m\"}", out,
				sizeof out), -EINVAL);
	assert_string_equal(out, "content: must not be empty");
	assert_int_equal(answer(ASK_SAMPLING, smp, "{\"role\":\"assistant\","
				"\"content\":{\"type\":\"text\",\"text\":\"a\"}"
				"}", out, sizeof out), -EINVAL);
	assert_string_equal(out, "model: required, a string");
}

static void request(const char *method, const char *params, int want,
		    enum ask_kind kind, const char *why)
{
	cJSON *p = params ? cJSON_Parse(params) : NULL;
	enum ask_kind k = 99;
	char out[200] = "";

	assert_int_equal(ask_check_question(method, p, &k, out, sizeof out),
			 want);
	if (want == 0)
		assert_int_equal(k, kind);
	else
		assert_string_equal(out, why);
	cJSON_Delete(p);
}

static void test_requests(void **state)
{
	request("elicitation/create", "{\"message\":\"m\",\"requestedSchema\":"
		"{\"type\":\"object\"}}", 0, ASK_FORM, NULL);
	request("elicitation/create", "{\"mode\":\"form\",\"requestedSchema\":"
		"{\"properties\":{}}}", 0, ASK_FORM, NULL);
	request("elicitation/create", "{\"mode\":\"url\",\"url\":"
		"\"http://[::1]:8/x\"}", 0, ASK_URL, NULL);
	request("sampling/createMessage", "{\"messages\":[]}", 0,
		ASK_SAMPLING, NULL);
	request("elicitation/create", NULL, -EINVAL, 0,
		"a form needs a requestedSchema object");
	request("elicitation/create", "{\"requestedSchema\":{\"properties\":"
		"[]}}", -EINVAL, 0,
		"requestedSchema.properties must be an object");
	request("elicitation/create", "{\"mode\":\"url\",\"url\":\"x.io\"}",
		-EINVAL, 0, "url mode needs an absolute url with a host");
	request("elicitation/create", "{\"mode\":7}", -EINVAL, 0,
		"unsupported elicitation mode (mcpfs has form and url)");
	request("elicitation/create", "[]", -EINVAL, 0,
		"params must be an object");
	request("sampling/createMessage", "{}", -EINVAL, 0,
		"sampling needs a messages array");
}

static void host(const char *url, const char *want)
{
	char h[64];

	if (!want) {
		assert_int_equal(ask_url_host(url, h, sizeof h), -EINVAL);
		return;
	}
	assert_int_equal(ask_url_host(url, h, sizeof h), 0);
	assert_string_equal(h, want);
}

static void test_hosts_and_formats(void **state)
{
	host("https://example.com", "example.com");
	host("https://a@b@evil.example:443/p?q#f", "evil.example");
	host("http://[fe80::1]:8080/", "[fe80::1]");
	host("HTTPS://Sub.Example.ORG/x", "Sub.Example.ORG");
	host("https://xn--80ak6aa92e.com/", "xn--80ak6aa92e.com");
	host("mailto:someone@example.com", NULL);
	host("https:///nohost", NULL);
	host("https://[::1/", NULL);
	host("/relative", NULL);
	assert_true(ask_format_ok("date", "2000-02-29"));
	assert_false(ask_format_ok("date", "1900-02-29"));
	assert_false(ask_format_ok("date", "2000-13-01"));
	assert_false(ask_format_ok("date", "2000-1-01"));
	assert_true(ask_format_ok("date-time", "2000-01-01T00:00:00Z"));
	assert_false(ask_format_ok("date-time", "2000-01-01 00:00:00Z"));
	assert_false(ask_format_ok("date-time", "2000-01-01T24:00:00Z"));
	assert_false(ask_format_ok("date-time", "2000-01-01T00:00:00"));
	assert_true(ask_format_ok("uri", "urn:isbn:0451450523"));
	assert_false(ask_format_ok("uri", "no scheme"));
	assert_false(ask_format_ok("uri", "http://a b"));
	assert_true(ask_format_ok("email", "x@y.z"));
	assert_false(ask_format_ok("email", "x@y"));
	assert_false(ask_format_ok("email", "@y.z"));
	assert_false(ask_format_ok("email", "x y@y.z"));
	assert_true(ask_format_ok("hostname", "anything"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_form_defaults),
		cmocka_unit_test(test_form_refused),
		cmocka_unit_test(test_url_and_sampling),
		cmocka_unit_test(test_requests),
		cmocka_unit_test(test_hosts_and_formats),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
