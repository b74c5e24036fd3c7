/*
 * confentry.c - one server entry of the config (struct mcp_server_conf)
 * as an object: the digest of its launch fields, what two entries have
 * the same (a reload restarts only what changed), a copy of what reaching
 * its server takes (the HTTP module's), and freeing it.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"

/* ---- digest ---- */

struct fnv {
	uint64_t h;
};

static void fnv_add(struct fnv *f, const void *data, size_t n)
{
	const unsigned char *p = data;
	size_t i;

	for (i = 0; i < n; i++) {
		f->h ^= p[i];
		f->h *= UINT64_C(0x100000001b3);
	}
}

/* A tag and a length before each field, so no two splits hash alike. */
static void fnv_field(struct fnv *f, char tag, const char *s)
{
	uint64_t n = s ? strlen(s) : UINT64_MAX;
	unsigned char len[8];
	int i;

	for (i = 0; i < 8; i++)
		len[i] = (unsigned char)(n >> (8 * i));
	fnv_add(f, &tag, 1);
	fnv_add(f, len, sizeof(len));
	if (s)
		fnv_add(f, s, strlen(s));
}

void mcp_conf_digest(struct mcp_server_conf *sc)
{
	struct fnv f = {UINT64_C(0xcbf29ce484222325)};
	size_t i;

	fnv_field(&f, 'c', sc->command);
	for (i = 0; i < sc->nargs; i++)
		fnv_field(&f, 'a', sc->args[i]);
	for (i = 0; i < sc->nenv; i++)
		fnv_field(&f, 'e', sc->env[i]);
	fnv_field(&f, 'd', sc->cwd);
	fnv_field(&f, 'u', sc->url);
	if (sc->url) {
		char t = (char)('0' + sc->transport);

		fnv_add(&f, &t, 1);
	}
	for (i = 0; i < sc->nheaders; i++)
		fnv_field(&f, 'h', sc->headers[i]);
	snprintf(sc->digest, sizeof(sc->digest), "%012llx",
		 (unsigned long long)(f.h >> 16));
}

static int strv_eq(char **a, size_t na, char **b, size_t nb)
{
	size_t i;

	if (na != nb)
		return 0;
	for (i = 0; i < na; i++)
		if (strcmp(a[i], b[i]) != 0)
			return 0;
	return 1;
}

static int str_eq(const char *a, const char *b)
{
	return a == b || (a && b && !strcmp(a, b));
}

int mcp_conf_same_launch(const struct mcp_server_conf *a,
			 const struct mcp_server_conf *b)
{
	return str_eq(a->command, b->command) && str_eq(a->cwd, b->cwd) &&
	       str_eq(a->url, b->url) && a->transport == b->transport &&
	       strv_eq(a->args, a->nargs, b->args, b->nargs) &&
	       strv_eq(a->env, a->nenv, b->env, b->nenv) &&
	       strv_eq(a->headers, a->nheaders, b->headers, b->nheaders);
}

int mcp_conf_same_roots(const struct mcp_server_conf *a,
			const struct mcp_server_conf *b)
{
	return strv_eq(a->roots, a->nroots, b->roots, b->nroots);
}

/* ---- an entry's memory ---- */

static void strv_free(char **v, size_t n)
{
	size_t i;

	if (!v)
		return;
	for (i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

void mcp_server_conf_free(struct mcp_server_conf *sc)
{
	if (!sc)
		return;
	free(sc->name);
	free(sc->command);
	strv_free(sc->args, sc->nargs);
	strv_free(sc->env, sc->nenv);
	free(sc->cwd);
	free(sc->url);
	strv_free(sc->headers, sc->nheaders);
	strv_free(sc->roots, sc->nroots);
	strv_free(sc->allow_tools, sc->nallow);
	strv_free(sc->deny_tools, sc->ndeny);
	mcp_oauth_conf_free(sc->oauth);
	free(sc);
}

struct mcp_server_conf *mcp_conf_reach_dup(const struct mcp_server_conf *c)
{
	struct mcp_server_conf *d = calloc(1, sizeof *d);

	if (!d)
		return NULL;
	d->name = strdup(c->name);
	d->url = c->url ? strdup(c->url) : NULL;
	d->headers = calloc(c->nheaders + 1, sizeof *d->headers);
	if (!d->name || (c->url && !d->url) || !d->headers)
		goto oom;
	for (; d->nheaders < c->nheaders; d->nheaders++) {
		d->headers[d->nheaders] = strdup(c->headers[d->nheaders]);
		if (!d->headers[d->nheaders])
			goto oom;
	}
	if (c->oauth && !(d->oauth = mcp_oauth_conf_dup(c->oauth)))
		goto oom;
	d->transport = c->transport;
	d->timeout = c->timeout;
	d->idle_timeout = c->idle_timeout;
	d->era = c->era;
	memcpy(d->digest, c->digest, sizeof d->digest);
	return d;
oom:
	mcp_server_conf_free(d);
	return NULL;
}
