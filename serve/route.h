/*
 * route.h - where a name or a URI of the one server goes (spec 14): the
 * listings of every server merged for a client, a SERVER__NAME to its
 * server, a resource URI to the server that lists it or whose template
 * matches it. Pure: parsed listings in, no session calls.
 */
#ifndef MCPFS_ROUTE_H
#define MCPFS_ROUTE_H

#include <stddef.h>

#include <cjson/cJSON.h>

#define ROUTE_SEP "__"         /* SERVER__TOOL */

/* One server's listings, in the config's order. items: the listing's
 * array (tools, prompts or resources; NULL when it failed), tmpl: its
 * resourceTemplates (for a read; NULL otherwise). */
struct route_src {
	const char *server;
	cJSON *items, *tmpl;
};

enum route_kind { ROUTE_TOOLS, ROUTE_PROMPTS, ROUTE_RESOURCES,
		  ROUTE_TEMPLATES };

/*
 * The listing a client gets: every server's items in the config's order,
 * tools and prompts renamed SERVER__NAME, resources by their URI; a name
 * or URI given twice is the first server's (the others' left out, as
 * .status says). A tool's execution.taskSupport is left out: the client
 * calls every tool plainly and mcpfs runs a task upstream (spec 14).
 * The items are moved out of src. NULL when out of memory.
 */
cJSON *route_merge(struct route_src *src, size_t n, enum route_kind kind);

/* The server (its index in src) that SERVER__NAME full goes to: of the
 * servers whose name and "__" begin it, the first in the config whose
 * items list the rest (in *rest), else the first of them; -1 if none. */
int route_name(const struct route_src *src, size_t n, const char *full,
	       const char **rest);

/* The server a resources/read of uri goes to: the first in the config
 * that lists it, else the first whose template matches it; -1 if none. */
int route_uri(const struct route_src *src, size_t n, const char *uri);

#endif
