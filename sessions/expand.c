/*
 * expand.c - ${VAR} and ${VAR:-default} in config values (mcp_expand of
 * config.h), from mcpfs's environment. Pure: getenv is its only input.
 * Moved out of config.c unchanged, to keep that file under the layout
 * rule's 900 lines.
 */
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "gbuf.h"

static int var_start(char c)
{
	return c == '_' || (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z');
}

static int var_char(char c)
{
	return var_start(c) || (c >= '0' && c <= '9');
}

static const char bad_ref[] =
	"bad ${...}: expected ${NAME} or ${NAME:-default}";
static const char open_ref[] =
	"unterminated ${ (expected ${NAME} or ${NAME:-default})";

/* One reference: the text after "${". */
struct ref {
	size_t nlen;      /* the name is the first nlen bytes */
	const char *def;  /* the default after ":-", or NULL */
	size_t dlen;
	const char *end;  /* the closing '}' */
};

/* Returns NULL and *r, or the static reason the reference is bad. */
static const char *parse_ref(const char *s, struct ref *r)
{
	const char *why = strchr(s, '}') ? bad_ref : open_ref;

	for (r->nlen = 0; var_char(s[r->nlen]); r->nlen++)
		;
	if (r->nlen == 0 || !var_start(s[0]))
		return why;
	r->def = NULL;
	r->dlen = 0;
	if (s[r->nlen] == '}') {
		r->end = s + r->nlen;
		return NULL;
	}
	if (s[r->nlen] != ':' || s[r->nlen + 1] != '-')
		return why;
	r->def = s + r->nlen + 2;
	r->end = strchr(r->def, '}');
	if (!r->end)
		return open_ref;
	r->dlen = (size_t)(r->end - r->def);
	return NULL;
}

char *mcp_expand(const char *s, const char **err)
{
	struct gbuf b = {0};
	const char *p = s, *q, *val, *why;
	struct ref r;
	char *var, *out;

	while ((q = strstr(p, "${")) != NULL) {
		gbuf_add(&b, p, (size_t)(q - p));
		why = parse_ref(q + 2, &r);
		if (why) {
			gbuf_free(&b);
			*err = why;
			return NULL;
		}
		var = strndup(q + 2, r.nlen);
		if (!var) {
			gbuf_free(&b);
			*err = "out of memory";
			return NULL;
		}
		val = getenv(var);
		free(var);
		if (r.def && (!val || !*val))
			gbuf_add(&b, r.def, r.dlen);
		else if (val)
			gbuf_add(&b, val, strlen(val));
		p = r.end + 1;
	}
	gbuf_add(&b, p, strlen(p));
	out = gbuf_take(&b);
	if (!out)
		*err = "out of memory";
	return out;
}
