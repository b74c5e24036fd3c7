/*
 * about.c - what each server said of itself at its latest handshake
 * (serverInfo, instructions), kept on the server for README.md (guide.c):
 * the one-shot session that listed its tools is gone by the time a user
 * reads the guide. A start that failed is kept too (about_start_failed),
 * until the next handshake: the guide says why the server cannot start.
 */
#include <stdlib.h>

#include "internal.h"

void about_learn(mcp_server *srv, const cJSON *info, const cJSON *instr)
{
	cJSON *a = cJSON_CreateObject();

	if (!a)
		return;
	if (info)
		cJSON_AddItemToObject(a, "serverInfo",
				      cJSON_Duplicate(info, 1));
	if (cJSON_IsString(instr))
		cJSON_AddStringToObject(a, "instructions", instr->valuestring);
	cJSON_Delete(srv->about);
	srv->about = a;
}

void about_start_failed(mcp_server *srv, const char *why)
{
	if (!why)
		return;
	if (!srv->about && !(srv->about = cJSON_CreateObject()))
		return;
	cJSON_DeleteItemFromObjectCaseSensitive(srv->about, "startError");
	cJSON_AddStringToObject(srv->about, "startError", why);
}

/* At the server's end: that, and its help/ names (guide.c). */
void about_server_free(mcp_server *srv)
{
	cJSON_Delete(srv->about);
	srv->about = NULL;
	while (srv->help.n)
		free(srv->help.v[--srv->help.n]);
	free(srv->help.v);
	free(srv->help.hash);
	srv->help.v = NULL;
	srv->help.hash = NULL;
	srv->help.cap = srv->help.hcap = 0;
}
