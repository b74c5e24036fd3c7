/*
 * doc.c - the read-only files the sessions side renders, by kind
 * (sessions.h's mcp_doc): it names each file's maker, which live beside
 * what they show (status.c, registry.c, auth.c, ask.c, task.c).
 */
#include "internal.h"

mcp_buf *mcp_doc(enum mcp_doc what, const void *obj, unsigned long num)
{
	switch (what) {
	case MCP_DOC_STATUS:
		return mcp_status_json();
	case MCP_DOC_SERVE:
		return mcp_client_entry();
	case MCP_DOC_AUTH:
		return mcp_server_auth_json((mcp_server *)obj);
	case MCP_DOC_THREAD:
		return mcp_session_status_json((mcp_session *)obj);
	case MCP_DOC_STDERR:
		return mcp_session_stderr((mcp_session *)obj);
	case MCP_DOC_QUESTION:
		return mcp_ask_json((mcp_ask *)obj);
	case MCP_DOC_TASK:
		return mcp_task_json((mcp_session *)obj, num);
	}
	return NULL;
}
