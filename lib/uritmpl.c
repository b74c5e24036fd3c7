/*
 * uritmpl.c - an RFC 6570 URI template matched against a URI (uritmpl.h).
 *
 * A backtracking match over the template: each expression tries every
 * length of the run it may take, shortest first, and the rest of the
 * template must match what follows. Steps are counted so that a template
 * of many adjacent expressions cannot make it slow.
 */
#include <string.h>

#include "uritmpl.h"

#define TMPL_MAX 4096
#define STEPS_MAX 100000

/* What one expression may expand to: an optional first char (lead, 0:
 * none) that must begin a non-empty expansion, then a run of chars not
 * in stop. */
struct expr {
	char lead;
	const char *stop;
};

static struct expr expr_of(char op)
{
	switch (op) {
	case '+': return (struct expr){ 0, "" };
	case '#': return (struct expr){ '#', "" };
	case '.': return (struct expr){ '.', "/?#" };
	case ';': return (struct expr){ ';', "/?#" };
	case '/': return (struct expr){ '/', "?#" };
	case '?': return (struct expr){ '?', "#" };
	case '&': return (struct expr){ '&', "#" };
	default:  return (struct expr){ 0, "/?#&" };
	}
}

static int match(const char *t, const char *u, long *steps)
{
	const char *end;
	struct expr e;
	size_t n, i;

	if (++*steps > STEPS_MAX)
		return 0;
	while (*t && *t != '{') { /* the literal part */
		if (*t++ != *u++)
			return 0;
	}
	if (!*t)
		return !*u;
	if (!(end = strchr(t, '}')))
		return 0;
	e = expr_of(t[1]);
	if (match(end + 1, u, steps)) /* the empty expansion */
		return 1;
	if (e.lead && *u++ != e.lead)
		return 0;
	n = *e.stop ? strcspn(u, e.stop) : strlen(u);
	for (i = e.lead ? 0 : 1; i <= n; i++)
		if (match(end + 1, u + i, steps))
			return 1;
		else if (*steps > STEPS_MAX)
			return 0;
	return 0;
}

int uritmpl_match(const char *tmpl, const char *uri)
{
	long steps = 0;

	if (!tmpl || !uri || strlen(tmpl) > TMPL_MAX)
		return 0;
	return match(tmpl, uri, &steps);
}
