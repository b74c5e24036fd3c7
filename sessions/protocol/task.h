/*
 * task.h - tool calls run as tasks (task.c): what the session core and
 * inbound.c ask of a call's task and of a thread's tasks/.
 */
#ifndef MCPFS_TASK_H
#define MCPFS_TASK_H

#include "internal.h"

/* Tool calls run as tasks (SEP-1686 on 2025-11-25, the tasks
 * extension SEP-2663 on 2026-07-28; spec 15) */
/* 1 if c must run as a task (listing: the tools listing of its session),
 * 0 if not, -1 if that is not known until the listing is done. */
int task_required(mcp_session *s, const mcp_call *c, mcp_call *listing);
int task_augment(mcp_call *c);  /* add "task": {}; 0 or -1 */
/* A reply to c: 1 if it was a CreateTaskResult (legacy: tasks/result is
 * sent; modern: tasks/get polls it), 0 if not. */
int task_created(mcp_session *s, mcp_call *c, cJSON *res);
void task_cancel(mcp_session *s, mcp_call *c); /* tasks/cancel, if a task */
/* notifications/tasks/status (2025-11-25) or notifications/tasks: the
 * state of a listed task of s. */
void task_notified(mcp_session *s, const cJSON *params);
/* The call of a task listed in s's tasks/ (a modern task between two
 * polls is in flight there only), or NULL. */
mcp_call *task_first(mcp_session *s);
void task_unlist(mcp_session *s, mcp_call *c); /* c ended: off tasks/ */
void task_free(mcp_call *c);     /* c's task, as c is freed */
void tasks_free(mcp_session *s); /* s's tasks/, as s is freed */

#endif
