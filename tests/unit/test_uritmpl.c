/*
 * test_uritmpl.c - RFC 6570 URI templates matched against URIs (the
 * routing of a resources/read through serve, spec 14): each operator's
 * run, literals exact, and the bounds on hostile templates.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "uritmpl.h"

static void test_simple(void **state)
{
	(void)state;
	/* server-everything's templates */
	assert_true(uritmpl_match("demo://resource/dynamic/text/{resourceId}",
				  "demo://resource/dynamic/text/3"));
	assert_false(uritmpl_match("demo://resource/dynamic/text/{resourceId}",
				   "demo://resource/dynamic/blob/3"));
	assert_false(uritmpl_match("demo://resource/dynamic/text/{id}",
				   "demo://resource/dynamic/text/3/4"));
	assert_true(uritmpl_match("demo://resource/dynamic/text/{id}",
				  "demo://resource/dynamic/text/"));
	assert_true(uritmpl_match("a/{x}-{y}.txt", "a/1-2.txt"));
	assert_false(uritmpl_match("a/{x}.txt", "a/1.txt?q"));
	assert_true(uritmpl_match("no-expr", "no-expr"));
	assert_false(uritmpl_match("no-expr", "no-expr2"));
	assert_false(uritmpl_match("no-expr2", "no-expr"));
	assert_true(uritmpl_match("", ""));
	assert_false(uritmpl_match("a", ""));
}

static void test_operators(void **state)
{
	(void)state;
	assert_true(uritmpl_match("file:///{+path}", "file:///a/b/c.txt"));
	assert_true(uritmpl_match("x://h{/seg}", "x://h/a/b"));
	assert_true(uritmpl_match("x://h{/seg}", "x://h"));
	assert_false(uritmpl_match("x://h{/seg}", "x://hq"));
	assert_true(uritmpl_match("x://h/s{?q,r}", "x://h/s?q=1&r=2"));
	assert_true(uritmpl_match("x://h/s{?q}{&r}", "x://h/s?q=1&r=2"));
	assert_false(uritmpl_match("x://h/s{?q}", "x://h/s#f"));
	assert_true(uritmpl_match("x://h/s{#f}", "x://h/s#frag/x"));
	assert_true(uritmpl_match("x://h/f{.ext}", "x://h/f.json"));
	assert_false(uritmpl_match("x://h/f{.ext}", "x://h/f.a/b"));
	assert_true(uritmpl_match("x://h/m{;p}", "x://h/m;p=1"));
}

static void test_hostile(void **state)
{
	char *t = malloc(5000), *u = malloc(5000);

	(void)state;
	assert_false(uritmpl_match("a{x", "ab"));
	assert_false(uritmpl_match(NULL, "a"));
	assert_false(uritmpl_match("a", NULL));
	/* many adjacent expressions and a URI they almost match: bounded */
	strcpy(t, "");
	for (int i = 0; i < 200; i++)
		strcat(t, "{+x}");
	strcat(t, "!");
	memset(u, 'a', 4000);
	u[4000] = '\0';
	assert_false(uritmpl_match(t, u));
	/* too long a template */
	memset(t, 'a', 4999);
	t[4999] = '\0';
	assert_false(uritmpl_match(t, t));
	free(t);
	free(u);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_simple),
		cmocka_unit_test(test_operators),
		cmocka_unit_test(test_hostile),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
