/*
 * stream.h - a long reply read as it arrives (stream.c), as the session
 * core and inbound.c drive it.
 */
#ifndef MCPFS_STREAM_H
#define MCPFS_STREAM_H

#include "internal.h"

/* The line so far (p, n) of a message of s. */
void stream_partial(mcp_session *s, const char *p, size_t n);
/* The line ended: the call whose reply was being read as it arrived
 * (NULL: none); the next line is looked at afresh. */
mcp_call *stream_line_end(mcp_session *s);
/* The line went past --max-message: a reply read as it arrived ends (its
 * call too_long), its id kept for stream_long_id. */
void stream_too_long(mcp_session *s);
/* A message over the limit dropped: the id stream_too_long kept (0:
 * none), forgotten; the next line is looked at afresh. */
uint64_t stream_long_id(mcp_session *s);
void stream_forget(mcp_session *s, mcp_call *c); /* c ended: not read */
void stream_free(mcp_session *s); /* its stream, as s is freed */

#endif
