/*
 * skillfm.c - a SKILL.md's frontmatter against its listing entry's (the
 * skills extension, SEP-2640: after fetching a SKILL.md for which it holds
 * an entry, a host parses its YAML frontmatter, compares it field by field
 * with the entry's frontmatter and does not load the skill on any
 * discrepancy). Used by skills.c on the verified bytes of a SKILL.md.
 *
 * The frontmatter is the YAML between a first line "---" and the next
 * line "---" (or "..."), read as the config's YAML is (yamlconf.c: the
 * core schema, no aliases or tags) into a cJSON object and compared with
 * the entry's whole: a field missing on one side, or with another value,
 * is a discrepancy.
 */
#include <stdlib.h>
#include <string.h>

#include "dialect.h"
#include "skillfm.h"

/* The end of the line at p (its '\n', or end). */
static const char *eol(const char *p, const char *end)
{
	const char *nl = memchr(p, '\n', (size_t)(end - p));

	return nl ? nl : end;
}

/* Is the line [p, e) the marker m ("---" or "..."), a '\r' allowed? */
static int marker(const char *p, const char *e, const char *m)
{
	size_t n = (size_t)(e - p);

	if (n && p[n - 1] == '\r')
		n--;
	return n == 3 && !memcmp(p, m, 3);
}

int skill_frontmatter_check(const char *md, size_t n, const cJSON *want,
			    const char **why)
{
	const char *end = md + n, *p = md, *e = eol(p, end), *body;
	char *err = NULL;
	cJSON *got;
	int ok;

	if (!want)
		return 0; /* the entry says nothing to compare with */
	if (!marker(p, e, "---")) {
		*why = "it has no frontmatter";
		return -1;
	}
	body = p = e < end ? e + 1 : end;
	for (;;) {
		if (p >= end) {
			*why = "its frontmatter does not end (no line ---)";
			return -1;
		}
		e = eol(p, end);
		if (marker(p, e, "---") || marker(p, e, "..."))
			break;
		p = e < end ? e + 1 : end;
	}
	got = dialect_parse(DIALECT_YAML, body, (size_t)(p - body), &err);
	free(err);
	if (!got) {
		*why = "its frontmatter is not a YAML mapping";
		return -1;
	}
	ok = cJSON_Compare(want, got, 1);
	cJSON_Delete(got);
	if (!ok) {
		*why = "its frontmatter differs from the listing's";
		return -1;
	}
	return 0;
}
