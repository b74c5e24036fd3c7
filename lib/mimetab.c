/*
 * mimetab.c - media type to file extension for result/ (spec 9). The
 * spec's own names come first (image/jpeg is .jpg, audio/mpeg .mp3, where
 * the system's table would say .jpeg and .mpga); then the system's table,
 * /etc/mime.types of Debian's media-types, read once at start into a
 * sorted array and looked up by binary search; then the caller's default
 * (.bin, .txt). Without the file the built-in names alone are used.
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "gbuf.h"
#include "mimetab.h"

struct mt {
	char *type;          /* lower case */
	char ext[16];        /* the first extension listed */
	size_t line;         /* its place in the file */
};

static struct mt *tab;
static size_t ntab;

static const char *const builtin[][2] = {
	{"image/png", "png"}, {"image/jpeg", "jpg"},
	{"image/jpg", "jpg"}, {"image/gif", "gif"},
	{"image/webp", "webp"}, {"image/svg+xml", "svg"},
	{"audio/wav", "wav"}, {"audio/x-wav", "wav"},
	{"audio/wave", "wav"}, {"audio/mpeg", "mp3"},
	{"audio/mp3", "mp3"}, {"text/plain", "txt"},
	{"text/html", "html"}, {"text/markdown", "md"},
	{"application/json", "json"}, {"application/pdf", "pdf"},
};

static int cmp(const void *a, const void *b)
{
	return strcmp(((const struct mt *)a)->type,
		      ((const struct mt *)b)->type);
}

/* By type, then by place: the first line of a type listed twice wins. */
static int cmp_place(const void *a, const void *b)
{
	const struct mt *x = a, *y = b;
	int c = strcmp(x->type, y->type);

	return c ? c : x->line < y->line ? -1 : x->line > y->line;
}

void mimetab_free(void)
{
	size_t i;

	for (i = 0; i < ntab; i++)
		free(tab[i].type);
	free(tab);
	tab = NULL;
	ntab = 0;
}

/* An extension fit for a file name: letters, digits, '+', '-', '_'. */
static int good_ext(const char *e, size_t n)
{
	return n > 0 && n < sizeof tab->ext &&
	       strspn(e, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
			 "0123456789+-_") >= n;
}

int mimetab_load(const char *path)
{
	FILE *f = fopen(path, "r");
	struct mt *v = NULL, *w;
	size_t n = 0, cap = 0, i, j;
	char line[1024];
	int r = 0;

	if (!f)
		return -errno;
	while (fgets(line, sizeof line, f)) {
		char *p = line, *type, *ext;
		size_t tn, en;

		p += strspn(p, " \t");
		if (*p == '#' || !*p)
			continue;
		type = p;
		tn = strcspn(type, " \t\r\n");
		ext = type + tn + strspn(type + tn, " \t");
		en = strcspn(ext, " \t\r\n");
		if (!tn || !memchr(type, '/', tn) || !good_ext(ext, en))
			continue; /* a type with no extension, or not one */
		if (!(w = gbuf_grow(v, &cap, n + 1, sizeof *v, 512))) {
			r = -ENOMEM;
			break;
		}
		v = w;
		v[n].type = strndup(type, tn);
		if (!v[n].type) {
			r = -ENOMEM;
			break;
		}
		for (i = 0; i < tn; i++)
			v[n].type[i] = (char)tolower((unsigned char)type[i]);
		memcpy(v[n].ext, ext, en);
		v[n].ext[en] = 0;
		v[n].line = n;
		n++;
	}
	fclose(f);
	if (r < 0) {
		for (i = 0; i < n; i++)
			free(v[i].type);
		free(v);
		return r;
	}
	qsort(v, n, sizeof *v, cmp_place);
	for (i = j = 0; i < n; i++) /* a type listed twice: its first line */
		if (j && !strcmp(v[j - 1].type, v[i].type))
			free(v[i].type);
		else
			v[j++] = v[i];
	mimetab_free();
	tab = v;
	ntab = j;
	return 0;
}

const char *mimetab_ext(const char *mime, const char *dflt)
{
	char key[128];
	struct mt k = {key, "", 0}, *hit;
	size_t n, i;

	if (!mime)
		return dflt;
	n = strcspn(mime, "; \t");
	for (i = 0; i < sizeof builtin / sizeof builtin[0]; i++)
		if (strlen(builtin[i][0]) == n &&
		    !strncasecmp(mime, builtin[i][0], n))
			return builtin[i][1];
	if (!ntab || n >= sizeof key)
		return dflt;
	for (i = 0; i < n; i++)
		key[i] = (char)tolower((unsigned char)mime[i]);
	key[n] = 0;
	hit = bsearch(&k, tab, ntab, sizeof *tab, cmp);
	return hit ? hit->ext : dflt;
}
