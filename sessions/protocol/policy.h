/*
 * policy.h - the tool policy (policy.c, spec 13).
 * Private to sessions/.
 */
#ifndef MCPFS_POLICY_H
#define MCPFS_POLICY_H

#include "internal.h"

/* The tool policy (policy.c, spec 13). */
int policy_active(const struct mcp_server_conf *conf);
/* Take the tools conf hides out of tools (a listing's array). */
void policy_filter(const struct mcp_server_conf *conf, cJSON *tools);
/* 1 when c is a tools/call that readOnly decides by the listing. */
int policy_wants_listing(const mcp_session *s, const mcp_call *c);
/* Before c is sent: 1 when the policy refused it (c is completed with the
 * error naming the rule), 0 to send it. With can_wait, a user call that
 * readOnly decides and that has no listing yet is let through (to wait
 * for it in task_check); without, it is refused. */
int policy_refuse(mcp_session *s, mcp_call *c, mcp_call *listing,
		  int can_wait);
cJSON *policy_json(const struct mcp_server_conf *conf); /* null: none */
int policy_same(const struct mcp_server_conf *a,
		const struct mcp_server_conf *b);
/* The policy of srv changed: its cached tools listings are dropped. */
void policy_reload(mcp_server *srv);

#endif
