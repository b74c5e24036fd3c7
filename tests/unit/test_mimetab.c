/*
 * test_mimetab.c - result/'s extension of a media type (spec 9): the
 * spec's names first, then a mime.types file, else the default; without
 * the file, the built-in names alone.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include <cmocka.h>

#include "mimetab.h"

static void test_without_a_table(void **state)
{
	assert_int_equal(mimetab_load("/nonexistent/mime.types"), -ENOENT);
	assert_string_equal(mimetab_ext("image/png", "bin"), "png");
	assert_string_equal(mimetab_ext("IMAGE/JPEG; q=1", "bin"), "jpg");
	assert_string_equal(mimetab_ext("application/pdf", "bin"), "pdf");
	assert_string_equal(mimetab_ext("video/mp4", "bin"), "bin");
	assert_string_equal(mimetab_ext(NULL, "txt"), "txt");
}

static void test_with_a_table(void **state)
{
	char path[] = "/tmp/test_mimetab_XXXXXX";
	int fd = mkstemp(path);
	FILE *f = fdopen(fd, "w");

	assert_non_null(f);
	fputs("# a comment\n"
	      "video/mp4\t\t\t\tmp4 mpg4 m4v\n"
	      "image/jpeg\t\tjpeg jpg jpe\n"   /* the spec's .jpg wins */
	      "audio/mpeg mpga mpega mp3\n"    /* the spec's .mp3 wins */
	      "application/x-none\n"           /* no extension: not known */
	      "Text/CSV csv\n"
	      "text/csv tsv\n"                 /* listed twice: the first */
	      "application/x-bad ../x\n", f);  /* not a file name's end */
	fclose(f);
	assert_int_equal(mimetab_load(path), 0);
	unlink(path);
	assert_string_equal(mimetab_ext("video/mp4", "bin"), "mp4");
	assert_string_equal(mimetab_ext("Video/MP4;codecs=avc1", "bin"), "mp4");
	assert_string_equal(mimetab_ext("image/jpeg", "bin"), "jpg");
	assert_string_equal(mimetab_ext("audio/mpeg", "bin"), "mp3");
	assert_string_equal(mimetab_ext("application/x-none", "bin"), "bin");
	assert_string_equal(mimetab_ext("text/csv", "txt"), "csv");
	assert_string_equal(mimetab_ext("application/x-bad", "bin"), "bin");
	assert_string_equal(mimetab_ext("application/x-unknown", "bin"), "bin");
	mimetab_free();
	assert_string_equal(mimetab_ext("video/mp4", "bin"), "bin");
}

static void test_the_system_table(void **state)
{
	if (mimetab_load("/etc/mime.types") < 0)
		skip(); /* media-types is not installed */
	assert_string_equal(mimetab_ext("video/mp4", "bin"), "mp4");
	assert_string_equal(mimetab_ext("application/pdf", "bin"), "pdf");
	assert_string_equal(mimetab_ext("text/html", "txt"), "html");
	assert_string_equal(mimetab_ext("application/x-mcpfs-none", "bin"),
			    "bin");
	mimetab_free();
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_without_a_table),
		cmocka_unit_test(test_with_a_table),
		cmocka_unit_test(test_the_system_table),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
