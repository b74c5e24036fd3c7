/*
 * jnames.c - the member-name check of I-JSON (RFC 7493) for jscan_names
 * (spec 13: what mcpfs checks is what the server runs). Each name arrives
 * decoded (jscan.c turns escapes into UTF-8) into an arena; at its closing
 * quote it is checked for control characters and kept with its hash; at
 * its object's '}' the object's names are sorted (hash, length, bytes) and
 * a neighbouring pair that is equal is a duplicate. Memory is the names of
 * the objects still open, released at each close: a text of N bytes needs
 * at most about N bytes of names and N/4 entries, and the work is N log N.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gbuf.h"
#include "jnames.h"

static int nomem(struct jscan_names *n)
{
	n->nomem = 1;
	return -1;
}

void jnames_reset(struct jscan_names *n)
{
	n->nbytes = n->nent = n->key = 0;
	n->nomem = 0;
	n->why[0] = 0;
}

/* The arena exists from the first name on (no arithmetic on NULL). */
int jnames_start(struct jscan_names *n)
{
	if (!n->bytes && !(n->bytes = malloc(256)))
		return nomem(n);
	if (n->capbytes < 256)
		n->capbytes = 256;
	n->key = n->nbytes;
	return 0;
}

int jnames_put(struct jscan_names *n, const void *b, size_t k)
{
	if (n->nbytes + k > n->capbytes) {
		size_t cap = n->capbytes ? n->capbytes : 256;
		char *nb;

		while (cap < n->nbytes + k)
			cap *= 2;
		if (!(nb = realloc(n->bytes, cap)))
			return nomem(n);
		n->bytes = nb;
		n->capbytes = cap;
	}
	memcpy(n->bytes + n->nbytes, b, k);
	n->nbytes += k;
	return 0;
}

/* The first control character of the UTF-8 text s (n bytes), or -1. */
static long control_in(const unsigned char *s, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		if (s[i] < 0x20 || s[i] == 0x7f)
			return s[i];
		if (s[i] == 0xc2 && i + 1 < n && s[i + 1] >= 0x80 &&
		    s[i + 1] <= 0x9f)
			return s[i + 1];
	}
	return -1;
}

const char *jnames_end(struct jscan_names *n)
{
	const unsigned char *s = (const unsigned char *)n->bytes + n->key;
	size_t len = n->nbytes - n->key, i;
	uint64_t h = 14695981039346656037ull; /* FNV-1a */
	long c = control_in(s, len);
	struct jscan_name *ne;

	if (c >= 0) {
		snprintf(n->why, sizeof n->why, "a member name holds the "
			 "control character U+%04lX (I-JSON, RFC 7493)", c);
		return n->why;
	}
	for (i = 0; i < len; i++)
		h = (h ^ s[i]) * 1099511628211ull;
	ne = gbuf_grow(n->ent, &n->capent, n->nent + 1, sizeof *ne, 16);
	if (!ne) {
		nomem(n);
		return "out of memory";
	}
	n->ent = ne;
	n->ent[n->nent].off = n->key;
	n->ent[n->nent].len = len;
	n->ent[n->nent].hash = h;
	n->nent++;
	return NULL;
}

static int name_cmp(const void *a, const void *b, void *ctx)
{
	const struct jscan_name *x = a, *y = b;
	const char *bytes = ctx;

	if (x->hash != y->hash)
		return x->hash < y->hash ? -1 : 1;
	if (x->len != y->len)
		return x->len < y->len ? -1 : 1;
	return memcmp(bytes + x->off, bytes + y->off, x->len);
}

void jnames_open(struct jscan_names *n, int d)
{
	n->base[d] = n->nent;
}

const char *jnames_close(struct jscan_names *n, int d)
{
	size_t k = n->nent - n->base[d], i, from, m;
	struct jscan_name *e;
	const unsigned char *s;

	if (!k)
		return NULL;
	e = n->ent + n->base[d];
	from = e[0].off; /* the object's first name: its bytes start there */
	qsort_r(e, k, sizeof *e, name_cmp, n->bytes);
	for (i = 1; i < k; i++) {
		if (name_cmp(e + i - 1, e + i, n->bytes))
			continue;
		s = (const unsigned char *)n->bytes + e[i].off;
		for (m = e[i].len > 48 ? 48 : e[i].len;
		     m < e[i].len && (s[m] & 0xc0) == 0x80; m--)
			; /* not inside a UTF-8 sequence */
		snprintf(n->why, sizeof n->why, "two members named \"%.*s\"%s "
			 "in one object (I-JSON, RFC 7493)", (int)m,
			 (const char *)s, m < e[i].len ? "..." : "");
		return n->why;
	}
	n->nent = n->base[d];
	n->nbytes = from;
	return NULL;
}

void jscan_names_free(struct jscan_names *n)
{
	free(n->bytes);
	free(n->ent);
	n->bytes = NULL;
	n->ent = NULL;
	n->nbytes = n->capbytes = n->nent = n->capent = 0;
}
