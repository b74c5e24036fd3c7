/*
 * task.c - tool calls run as tasks (2025-11-25, SEP-1686), so that a tool
 * whose listing says execution.taskSupport "required" works in the plain
 * {"name", "arguments"} form and its reader sees only the final result:
 *
 *   tools/call + "task": {}  ->  CreateTaskResult {task: {taskId, ...}}
 *   tasks/result {taskId}    ->  (blocks until the task ends) the result
 *
 * The call keeps its one timer over both. Cancelling it (Ctrl-C, ctl
 * cancel, timeout) also sends tasks/cancel. A user's own "task" member is
 * forwarded as written and left to the user (the reply is the
 * CreateTaskResult). Status notifications go to events like any other.
 *
 * In the modern era (2026-07-28) tasks are the extension
 * io.modelcontextprotocol/tasks, which mcpfs does not declare: a modern
 * server runs its tools without tasks, and nothing here applies. A tool
 * call over modern HTTP waits here for the tools listing all the same,
 * since its Mcp-Param-* headers come from the tool's inputSchema (era.c).
 */
#include <stdlib.h>
#include <string.h>

#include "internal.h"

static int server_has_tool_tasks(const mcp_session *s)
{
	cJSON *t = cJSON_GetObjectItemCaseSensitive(s->capabilities, "tasks");
	cJSON *r = cJSON_GetObjectItemCaseSensitive(t, "requests");

	return cJSON_GetObjectItemCaseSensitive(
		       cJSON_GetObjectItemCaseSensitive(r, "tools"), "call") != NULL;
}

int task_required(mcp_session *s, const mcp_call *c, mcp_call *listing)
{
	cJSON *t, *ts;
	char *name;
	int r = 0;

	if (c->kind == CALL_USER && policy_wants_listing(s, c) &&
	    (!listing || !listing->done))
		return -1; /* readOnly: decided by the annotations */
	if (c->kind != CALL_USER || !c->req.tool)
		return 0;
	/* modern over HTTP: the x-mcp-header headers come from the listing */
	if (s->era == MCP_ERA_MODERN && (s->ops->caps & TRANSPORT_EXCHANGES) &&
	    (!listing || !listing->done))
		return -1;
	if (c->req.task.n || c->task || !server_has_tool_tasks(s))
		return 0;
	if (!listing || !listing->done)
		return -1;
	name = mcp_request_tool(c->line, &c->req); /* policy.c's reading */
	t = surface_entry_json(listing, s, name);
	ts = cJSON_GetObjectItemCaseSensitive(
		cJSON_GetObjectItemCaseSensitive(t, "execution"), "taskSupport");
	r = cJSON_IsString(ts) && !strcmp(ts->valuestring, "required");
	free(name);
	cJSON_Delete(t);
	return r;
}

int task_augment(mcp_call *c)
{
	size_t len = strlen(c->line), at = strcspn(c->line, "{");
	char *line = malloc(len + 12);
	const char *why;
	struct mcp_request req;

	if (!line || at == len) {
		free(line);
		return -1;
	}
	memcpy(line, c->line, at + 1);
	memcpy(line + at + 1, "\"task\":{},", 10);
	memcpy(line + at + 11, c->line + at + 1, len - at);
	if (mcp_request_parse(line, len + 10, &req, &why) < 0) {
		free(line);
		return -1;
	}
	free(c->line);
	c->line = line;
	c->req = req;
	c->task = 1;
	return 0;
}

int task_created(mcp_session *s, mcp_call *c, cJSON *res)
{
	cJSON *task = cJSON_GetObjectItemCaseSensitive(res, "task");
	cJSON *id = cJSON_GetObjectItemCaseSensitive(task, "taskId"), *m;

	if (c->task != 1 || !cJSON_IsString(id) ||
	    strlen(id->valuestring) >= sizeof c->task_id)
		return 0; /* not a task after all: the reply as it is */
	snprintf(c->task_id, sizeof c->task_id, "%s", id->valuestring);
	c->task = 2;
	mlog(MLOG_DEBUG, "server %s: request %llu runs as task %s",
	     s->srv->conf->name, (unsigned long long)c->rpc_id, c->task_id);
	idtab_del(&s->pending, c->rpc_id);
	c->rpc_id = s->next_id++;
	if (call_track(s, c) < 0)
		return 1;
	m = msg_request(c->rpc_id, "tasks/result");
	cJSON_AddStringToObject(cJSON_AddObjectToObject(m, "params"),
				"taskId", c->task_id);
	session_send_json(s, m, c->rpc_id);
	cJSON_Delete(m);
	return 1;
}

void task_cancel(mcp_session *s, mcp_call *c)
{
	cJSON *m;

	if (!c->task_id[0])
		return;
	m = msg_request(s->next_id++, "tasks/cancel"); /* reply dropped */
	cJSON_AddStringToObject(cJSON_AddObjectToObject(m, "params"),
				"taskId", c->task_id);
	session_send_json(s, m, 0);
	cJSON_Delete(m);
}
