/*
 * route.c - the listings of every server as one server's, and where a
 * name or a URI goes (route.h, spec 14).
 *
 * A merge sorts the names once (name, then the server's place), so that
 * a listing of many servers and many names costs n log n, and the first
 * of each run of equal names is the one kept.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gbuf.h"
#include "route.h"
#include "uritmpl.h"

struct named {
	char *name;
	size_t at, seq;            /* the server's place; the item's */
	cJSON *item;
	int dup;
};

static int named_cmp(const void *a, const void *b)
{
	const struct named *x = a, *y = b;
	int c = strcmp(x->name, y->name);

	if (c)
		return c;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static int seq_cmp(const void *a, const void *b)
{
	const struct named *x = a, *y = b;

	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* A tool as a client that calls it plainly sees it. */
static void plain_tool(cJSON *tool)
{
	cJSON *ex = cJSON_GetObjectItemCaseSensitive(tool, "execution");

	cJSON_DeleteItemFromObjectCaseSensitive(ex, "taskSupport");
	if (cJSON_IsObject(ex) && !ex->child)
		cJSON_DeleteItemFromObjectCaseSensitive(tool, "execution");
}

cJSON *route_merge(struct route_src *src, size_t n, enum route_kind kind)
{
	cJSON *all = cJSON_CreateArray(), *it, *nx, *v;
	struct named *a = NULL, *na;
	size_t i, k = 0, cap = 0;

	for (i = 0; all && i < n; i++) {
		for (it = cJSON_IsArray(src[i].items) ? src[i].items->child
		     : NULL; it; it = nx) {
			nx = it->next;
			v = cJSON_GetObjectItemCaseSensitive(it,
				kind == ROUTE_RESOURCES ? "uri" :
				kind == ROUTE_TEMPLATES ? "uriTemplate" :
				"name");
			if (!cJSON_IsString(v))
				continue;
			if (!(na = gbuf_grow(a, &cap, k + 1, sizeof *a, 64)))
				goto fail;
			a = na;
			a[k] = (struct named){ .at = i, .seq = k, .item = it };
			if (kind == ROUTE_TOOLS || kind == ROUTE_PROMPTS) {
				if (asprintf(&a[k].name, "%s" ROUTE_SEP "%s",
					     src[i].server, v->valuestring) < 0)
					goto fail;
			} else if (!(a[k].name = strdup(v->valuestring))) {
				goto fail;
			}
			k++;
		}
	}
	if (!all)
		return NULL;
	if (k)
		qsort(a, k, sizeof *a, named_cmp);
	for (i = 1; i < k; i++)
		a[i].dup = !strcmp(a[i].name, a[i - 1].name);
	if (k)
		qsort(a, k, sizeof *a, seq_cmp);
	for (i = 0; i < k; i++) {
		if (a[i].dup)
			continue;
		if (kind == ROUTE_TOOLS || kind == ROUTE_PROMPTS)
			cJSON_SetValuestring(cJSON_GetObjectItemCaseSensitive(
				a[i].item, "name"), a[i].name);
		if (kind == ROUTE_TOOLS)
			plain_tool(a[i].item);
		cJSON_AddItemToArray(all, cJSON_DetachItemViaPointer(
			src[a[i].at].items, a[i].item));
	}
	for (i = 0; i < k; i++)
		free(a[i].name);
	free(a);
	return all;
fail:
	while (k--)
		free(a[k].name);
	free(a);
	cJSON_Delete(all);
	return NULL;
}

/* 1 when the array items has an object whose key is value. */
static int lists(const cJSON *items, const char *key, const char *value)
{
	const cJSON *it, *v;

	cJSON_ArrayForEach(it, items) {
		v = cJSON_GetObjectItemCaseSensitive(it, key);
		if (cJSON_IsString(v) && !strcmp(v->valuestring, value))
			return 1;
	}
	return 0;
}

int route_name(const struct route_src *src, size_t n, const char *full,
	       const char **rest)
{
	int first = -1;
	size_t i, len;

	for (i = 0; i < n; i++) {
		len = strlen(src[i].server);
		if (strncmp(full, src[i].server, len) ||
		    strncmp(full + len, ROUTE_SEP, 2) || !full[len + 2])
			continue;
		if (first < 0) {
			first = (int)i;
			*rest = full + len + 2;
		}
		if (lists(src[i].items, "name", full + len + 2)) {
			*rest = full + len + 2;
			return (int)i;
		}
	}
	return first;
}

int route_uri(const struct route_src *src, size_t n, const char *uri)
{
	const cJSON *it, *v;
	size_t i;

	for (i = 0; i < n; i++)
		if (lists(src[i].items, "uri", uri))
			return (int)i;
	for (i = 0; i < n; i++)
		cJSON_ArrayForEach(it, src[i].tmpl) {
			v = cJSON_GetObjectItemCaseSensitive(it, "uriTemplate");
			if (cJSON_IsString(v) &&
			    uritmpl_match(v->valuestring, uri))
				return (int)i;
		}
	return -1;
}
