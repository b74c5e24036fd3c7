/*
 * uritmpl.h - does a URI come from an RFC 6570 URI template (a resource
 * template's uriTemplate, MCP resources/templates/list)? Pure.
 */
#ifndef MCPFS_URITMPL_H
#define MCPFS_URITMPL_H

/*
 * 1 when uri is an expansion of tmpl, else 0. Literals match exactly; an
 * expression {...} matches what its operator can expand to, any values
 * (empty too):
 *
 *   {x}  {x,y}      a run without / ? # &
 *   {+x}            any run
 *   {#x}            nothing, or # and any run
 *   {.x}  {;x}      nothing, or . (;) and a run without / ? #
 *   {/x}            nothing, or / and a run without ? #
 *   {?x}  {&x}      nothing, or ? (&) and a run without #
 *
 * A template with an unclosed {, or longer than 4096 bytes, matches
 * nothing; so does a match that needs more than 100000 steps of
 * backtracking (a hostile template's cost is bounded).
 */
int uritmpl_match(const char *tmpl, const char *uri);

#endif
