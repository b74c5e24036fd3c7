/*
 * listnotes.c - a thread's notes of listings that were "none" or ended
 * short (spec 9: status.unsupported and status.partial), kept in its
 * struct list_notes, made at the first; pages.c writes them
 * (session_list_note), status.c reads them, a listing asked again drops
 * its own.
 */
#include <stdlib.h>

#include "internal.h"
#include "pages.h"

/* A session's notes of listings that ended short (mcp_session.notes),
 * made at the first. */
struct list_notes {
	cJSON *v[MCP_NLISTS];
};

void session_list_forget(mcp_session *s, int what)
{
	int i, left = 0;

	for (i = 0; s->notes && i < MCP_NLISTS; i++) {
		if (what != MCP_NLISTS && what != i) {
			left |= s->notes->v[i] != NULL;
			continue;
		}
		cJSON_Delete(s->notes->v[i]);
		s->notes->v[i] = NULL;
	}
	if (!left) {
		free(s->notes);
		s->notes = NULL;
	}
}

const cJSON *session_list_note_of(const mcp_session *s, int what)
{
	return s->notes ? s->notes->v[what] : NULL;
}

void list_note_set(mcp_session *s, enum mcp_list what, cJSON *note)
{
	if (!s->notes && !(s->notes = calloc(1, sizeof *s->notes))) {
		cJSON_Delete(note);
		return;
	}
	cJSON_Delete(s->notes->v[what]);
	s->notes->v[what] = note;
}
