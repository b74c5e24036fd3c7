/* skillfm.h - a SKILL.md's frontmatter against its listing entry's
 * (skillfm.c, SEP-2640). */
#ifndef MCPFS_SKILLFM_H
#define MCPFS_SKILLFM_H

#include <stddef.h>

#include <cjson/cJSON.h>

/* 0 when the n bytes of SKILL.md at md hold a YAML frontmatter equal,
 * field by field, to want (the entry's frontmatter; NULL: nothing to
 * compare); -1 with *why (static text) on any discrepancy. */
int skill_frontmatter_check(const char *md, size_t n, const cJSON *want,
			    const char **why);

#endif
