/*
 * versions.c - the protocol versions of MCP's legacy era that mcpfs knows,
 * the one list (sessions.h): message.c asks a server for the first,
 * era.c, serve/peer.c and the HTTP door read the rest. Pure.
 */
#include <string.h>

#include "sessions.h"

const char *const mcp_versions[] = {
	"2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05", /* spoken */
	"2024-10-07", NULL,
};

int mcp_version_at(const char *v)
{
	int i;

	for (i = 0; mcp_versions[i]; i++)
		if (!strcmp(v, mcp_versions[i]))
			return i;
	return -1;
}
