/*
 * configset.h - the config as several files (-c repeats): each read in
 * its dialect and merged, later files winning by server name.
 */
#ifndef MCPFS_CONFIGSET_H
#define MCPFS_CONFIGSET_H

#include <stddef.h>

#include "config.h"

/*
 * Read the n files of paths (absolute) in order and merge their servers:
 * an entry of a later file replaces the one of the same name in place.
 * With project (an absolute directory, or NULL), a file that has Claude
 * Code's "projects" also gives projects[project].mcpServers, after its
 * top-level ones. Returns 0 and *out, or -1 and *err (malloc'd, naming
 * the file); an error in any file fails the whole.
 */
int mcp_config_load_files(const char *const *paths, size_t n,
			  const char *project, struct mcp_config **out,
			  char **err);

/* The whole of a file, up to 64 MiB (NUL-terminated, *len bytes), or NULL
 * with *err (malloc'd). */
char *mcp_config_read(const char *path, size_t *len, char **err);

#endif
