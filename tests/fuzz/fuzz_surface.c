/*
 * fuzz_surface.c - libFuzzer target for the listing-to-tree path
 * (sessions/protocol/surface.c): a server's listing in, the entries of tools/,
 * prompts/ or resources/ out (names, file names, their index), and a
 * reply in, result/'s parts out.
 *
 * The input's first byte picks the listing (tools, resources, prompts);
 * up to the first newline after it is the listing's reply (as mcpfs keeps
 * it: {"tools": [...]}), the rest a tools/call result. Checked: every
 * file name is a path component of at most MCP_FILE_MAX bytes (not "."
 * or "..", no '/', no unsafe code point of lib/ctlesc.h), the file names
 * are distinct and each finds its own
 * entry, as each name does; result/ has at most MCP_PARTS_MAX + 3 parts,
 * with distinct names.
 */
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "ctlesc.h"
#include "internal.h"
#include "pages.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* What surface.c needs of the rest of the core. */
void mlog(int level, const char *fmt, ...)
{
	(void)level;
	(void)fmt;
}

const char *mcp_list_key(enum mcp_list what)
{
	static const char *const keys[] = {"tools", "resources",
					   "resourceTemplates", "prompts"};

	return keys[what];
}

int mcp_call_failed(const mcp_call *c) /* as call.c's */
{
	return c->done && c->failed;
}

mcp_call *mcp_call_ref(mcp_call *c)
{
	if (c)
		c->refs++;
	return c;
}

void mcp_call_unref(mcp_call *c)
{
	if (c && !--c->refs) {
		mcp_buf_unref(c->reply);
		surface_index_free(c);
		free(c);
	}
}

static mcp_call *call_of(const char *p, size_t n, enum mcp_list what)
{
	mcp_call *c = calloc(1, sizeof *c);

	if (!c)
		return NULL;
	c->refs = 1;
	c->done = 1;
	c->kind = CALL_LIST;
	c->list = what;
	if (!(c->reply = mcp_buf_new(p, n))) {
		free(c);
		return NULL;
	}
	return c;
}

static void check_listing(mcp_call *c, mcp_session *s)
{
	const struct mcp_entry *v;
	size_t n, i, j;

	if (mcp_entries(c, s, &v, &n) < 0)
		return;
	for (i = 0; i < n; i++) {
		size_t len = strlen(v[i].file);

		if (!len || len > MCP_FILE_MAX || strchr(v[i].file, '/') ||
		    !strcmp(v[i].file, ".") || !strcmp(v[i].file, "..") ||
		    !*v[i].name || v[i].at + v[i].n > c->reply->len)
			abort();
		for (j = 0; j < len; j++) /* no control, C1 or bidi control */
			if (ctlesc_unsafe_at(v[i].file + j, len - j))
				abort();
		if (mcp_entry_find(c, s, v[i].file, 0) != &v[i] ||
		    mcp_entry_find(c, s, v[i].name, 1) != &v[i])
			abort();
		if (mcp_name_intern(s, c->list, v[i].name) < 0)
			abort();
		for (j = 0; j < i && n < 200; j++)
			if (!strcmp(v[i].file, v[j].file))
				abort();
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const enum mcp_list whats[] = {MCP_TOOLS, MCP_RESOURCES,
					      MCP_PROMPTS};
	struct mcp_server_conf conf = {0};
	struct mcp_server srv = {0};
	mcp_session *s = calloc(1, sizeof *s);
	const char *p = (const char *)data + 1;
	const char *nl = size ? memchr(p, '\n', size - 1) : NULL;
	size_t head = nl ? (size_t)(nl - p) : (size ? size - 1 : 0);
	const struct mcp_part *parts;
	size_t np, i, j;
	mcp_call *c;

	if (!size || !s) {
		free(s);
		return 0;
	}
	conf.name = (char *)"fuzz";
	srv.conf = &conf;
	s->srv = &srv;
	c = call_of(p, head, whats[data[0] % 3]);
	if (c) {
		check_listing(c, s);
		mcp_call_unref(c);
	}
	if (nl && (c = call_of(nl + 1, size - 1 - head - 1, MCP_TOOLS))) {
		c->kind = CALL_USER;
		s->last_done = c;
		mcp_result(s, &parts, &np);
		if (np > MCP_PARTS_MAX + 3)
			abort();
		for (i = 0; i < np && np < 200; i++)
			for (j = 0; j < i; j++)
				if (!strcmp(parts[i].name, parts[j].name))
					abort();
		s->last_done = NULL;
		mcp_call_unref(c);
	}
	surface_free(s);
	result_free(s);
	free(s);
	return 0;
}
