/*
 * configset.c - reads the config files given with -c (one or more) and
 * merges them into one mcp_config: each file is parsed in its dialect
 * (config.c with the mcp_config_ctx of configfmt.h: ${workspaceFolder} is
 * the parent of the file's folder, so .vscode/mcp.json gets its
 * workspace), Claude Code's projects[DIR] is read as a second pass of the
 * same file, and a later entry replaces an earlier one of the same name
 * where the earlier one stood. Warnings of every file are kept, in order.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "configfmt.h"
#include "configset.h"
#include "gbuf.h"

char *mcp_config_read(const char *path, size_t *len, char **err)
{
	FILE *f = fopen(path, "rb");
	struct gbuf b = {0};
	size_t k;

	*err = NULL;
	if (!f) {
		if (asprintf(err, "%s: %s", path, strerror(errno)) < 0)
			*err = NULL;
		return NULL;
	}
	do {
		if (gbuf_reserve(&b, 65536) < 0) {
			gbuf_free(&b);
			fclose(f);
			*err = strdup("out of memory");
			return NULL;
		}
		k = fread(b.p + b.len, 1, 65536, f);
		b.len += k;
	} while (k > 0 && b.len < (64u << 20));
	fclose(f);
	*len = b.len;
	return gbuf_take(&b);
}

/* The parent of the folder of path ("/" at the top). */
static char *workspace_of(const char *path)
{
	char *w = strdup(path), *s;
	int i;

	if (!w)
		return NULL;
	for (i = 0; i < 2; i++) {
		s = strrchr(w, '/');
		if (!s || s == w) {
			strcpy(w, "/");
			return w;
		}
		*s = '\0';
	}
	return w;
}

static void conf_drop(struct mcp_server_conf *sc)
{
	struct mcp_config *c = calloc(1, sizeof *c);

	sc->next = NULL;
	if (c) {
		c->servers = sc;
		mcp_config_free(c);
	}
}

/* Move the servers and warnings of add into acc; add is freed. */
static int merge(struct mcp_config *acc, struct mcp_config *add)
{
	struct mcp_server_conf *sc, **pp;
	char **w;
	size_t i;

	while ((sc = add->servers) != NULL) {
		add->servers = sc->next;
		for (pp = &acc->servers; *pp && strcmp((*pp)->name, sc->name);
		     pp = &(*pp)->next)
			;
		sc->next = *pp ? (*pp)->next : NULL;
		if (*pp)
			conf_drop(*pp);
		*pp = sc;
	}
	w = realloc(acc->warnings,
		    (acc->nwarnings + add->nwarnings + 1) * sizeof *w);
	if (!w) {
		mcp_config_free(add);
		return -1;
	}
	acc->warnings = w;
	for (i = 0; i < add->nwarnings; i++)
		w[acc->nwarnings++] = add->warnings[i];
	add->nwarnings = 0;
	mcp_config_free(add);
	return 0;
}

static int load_one(struct mcp_config *acc, const char *path,
		    const char *project, char **err)
{
	struct mcp_config_ctx ctx = {.project = project};
	struct mcp_config *c;
	size_t len = 0;
	char *text = mcp_config_read(path, &len, err);
	int r = 0;

	if (!text)
		return -1;
	ctx.workspace = workspace_of(path);
	for (ctx.project_pass = 0; r == 0 && ctx.project_pass <= !!project;
	     ctx.project_pass++) {
		r = mcp_config_parse_ctx(text, len, path, &ctx, &c, err);
		if (r == 0 && merge(acc, c) < 0) {
			*err = strdup("out of memory");
			r = -1;
		}
	}
	free((char *)ctx.workspace);
	free(text);
	return r;
}

int mcp_config_load_files(const char *const *paths, size_t n,
			  const char *project, struct mcp_config **out,
			  char **err)
{
	struct mcp_config *acc = calloc(1, sizeof *acc);
	size_t i;

	*out = NULL;
	*err = NULL;
	if (!acc) {
		*err = strdup("out of memory");
		return -1;
	}
	for (i = 0; i < n; i++) {
		if (load_one(acc, paths[i], project, err) < 0) {
			mcp_config_free(acc);
			if (!*err)
				*err = strdup("out of memory");
			return -1;
		}
	}
	*out = acc;
	return 0;
}
