/*
 * buf.c - rendering cJSON into a buffer (buf.h) of sessions.h's kind.
 */
#include <stdlib.h>
#include <string.h>

#include "jsent.h"
#include "internal.h"

/* j printed (pretty or compact) and a newline. */
mcp_buf *mcp_buf_json(cJSON *j, int pretty)
{
	size_t n;
	char *txt = jsent_print(j, pretty, &n);
	mcp_buf *b;

	if (!txt)
		return NULL;
	b = mcp_buf_new(NULL, n + 1);
	if (b) {
		memcpy(b->data, txt, n);
		b->data[n] = '\n';
		b->data[n + 1] = 0;
	}
	free(txt);
	return b;
}
