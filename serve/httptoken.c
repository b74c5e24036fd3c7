/*
 * httptoken.c - the bearer token of --serve, kept (spec 14): one file per
 * mountpoint in $XDG_STATE_HOME/mcpfs/serve/ (default
 * ~/.local/state/mcpfs/serve/), 0700, named by a 64-bit FNV-1a hash of
 * the mountpoint's real path like the socket of `mcpfs serve`
 * (serve_socket_path), holding {"mountpoint": ..., "token": ...}, 0600.
 * The next mount at the same place reads the token back, so the client
 * entry an agent was given stays valid; deleting the file rotates it.
 *
 * As the OAuth token store does: the directories below the state
 * directory and the file are opened without following a symbolic link and
 * without blocking; a file that is not a regular file of ours with mode
 * 0600, is over 4 KiB, or holds no token for this mountpoint is not
 * believed, and a new token is written over it (with a warning). Small
 * and local: read and written synchronously at start.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "door.h"
#include "mlog.h"

#define TOKEN_FILE_MAX 4096

/* The state directory: 0, or -ENOENT with neither variable set. */
static int state_dir(char *base, size_t n)
{
	const char *x = getenv("XDG_STATE_HOME"), *home = getenv("HOME");

	if (x && *x == '/')
		snprintf(base, n, "%s", x);
	else if (home && *home == '/')
		snprintf(base, n, "%s/.local/state", home);
	else
		return -ENOENT;
	return 0;
}

/* The state directory's mcpfs/serve/ as an open fd, walked from the
 * state directory (the user's choice: followed) down without following
 * a link, made 0700 on the way. -errno on failure. */
static int token_dirfd(void)
{
	static const char *const parts[] = {"mcpfs", "serve"};
	char base[PATH_MAX], *s;
	int fd, nfd;
	size_t i;

	if (state_dir(base, sizeof base) < 0)
		return -ENOENT;
	for (s = strchr(base + 1, '/'); ; s = strchr(s + 1, '/')) {
		if (s)
			*s = 0;
		if (mkdir(base, 0700) < 0 && errno != EEXIST)
			return -errno;
		if (!s)
			break;
		*s = '/';
	}
	if ((fd = open(base, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0)
		return -errno;
	for (i = 0; i < sizeof parts / sizeof *parts; i++) {
		if (mkdirat(fd, parts[i], 0700) < 0 && errno != EEXIST) {
			int e = -errno;

			close(fd);
			return e;
		}
		nfd = openat(fd, parts[i], O_RDONLY | O_DIRECTORY |
			     O_NOFOLLOW | O_CLOEXEC);
		close(fd);
		if (nfd < 0)
			return errno == ENOTDIR ? -ELOOP : -errno;
		fd = nfd;
	}
	return fd;
}

static int hex64(const char *s)
{
	size_t i;

	for (i = 0; i < 64; i++)
		if (!strchr("0123456789abcdef", s[i]) || !s[i])
			return 0;
	return !s[64];
}

/* The token kept in name under dfd for mnt into out: 0, or -errno
 * (-ENOENT: none; -EPERM: one not believed, why says why). */
static int token_read(int dfd, const char *name, const char *mnt,
		      char out[65], const char **why)
{
	char buf[TOKEN_FILE_MAX + 1];
	struct stat st;
	ssize_t n;
	cJSON *j, *m, *t;
	int fd = openat(dfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK |
			O_NOCTTY | O_CLOEXEC);

	if (fd < 0) {
		*why = errno == ELOOP ? "a symbolic link" : strerror(errno);
		return errno == ENOENT ? -ENOENT : -EPERM;
	}
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) ||
	    st.st_uid != getuid() || (st.st_mode & 0177)) {
		*why = "not a regular file of yours with mode 0600";
		close(fd);
		return -EPERM;
	}
	n = read(fd, buf, sizeof buf);
	close(fd);
	if (n < 0 || n > TOKEN_FILE_MAX) {
		*why = n < 0 ? strerror(errno) : "over 4 KiB";
		return -EPERM;
	}
	j = cJSON_ParseWithLength(buf, (size_t)n);
	m = cJSON_GetObjectItemCaseSensitive(j, "mountpoint");
	t = cJSON_GetObjectItemCaseSensitive(j, "token");
	if (!cJSON_IsString(m) || strcmp(m->valuestring, mnt) ||
	    !cJSON_IsString(t) || !hex64(t->valuestring)) {
		*why = "no token of this mountpoint";
		cJSON_Delete(j);
		return -EPERM;
	}
	memcpy(out, t->valuestring, 65);
	cJSON_Delete(j);
	return 0;
}

/* Write the token for mnt to name under dfd: a temporary file, 0600,
 * renamed over. 0 or -errno. */
static int token_write(int dfd, const char *name, const char *mnt,
		       const char *tok)
{
	char tmp[64], *txt;
	cJSON *j = cJSON_CreateObject();
	size_t len;
	int fd, r = 0;

	cJSON_AddStringToObject(j, "mountpoint", mnt);
	cJSON_AddStringToObject(j, "token", tok);
	txt = cJSON_Print(j);
	cJSON_Delete(j);
	if (!txt)
		return -ENOMEM;
	len = strlen(txt);
	snprintf(tmp, sizeof tmp, ".%s.%ld", name, (long)getpid());
	fd = openat(dfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW |
		    O_CLOEXEC, 0600);
	if (fd < 0) {
		cJSON_free(txt);
		return -errno;
	}
	if (write(fd, txt, len) != (ssize_t)len || write(fd, "\n", 1) != 1 ||
	    fsync(fd) < 0)
		r = errno ? -errno : -EIO;
	close(fd);
	cJSON_free(txt);
	if (!r && renameat(dfd, tmp, dfd, name) < 0)
		r = -errno;
	if (r)
		unlinkat(dfd, tmp, 0);
	return r;
}

int serve_token(const char *mountpoint, char out[65], char *path, size_t n)
{
	uint64_t h = 0xcbf29ce484222325ULL;
	char real[PATH_MAX], name[40], dir[PATH_MAX];
	const char *why = NULL, *c;
	unsigned char b[32];
	int dfd, r, i;

	*path = 0;
	if (!realpath(mountpoint, real))
		snprintf(real, sizeof real, "%s", mountpoint);
	for (c = real; *c; c++)
		h = (h ^ (unsigned char)*c) * 0x100000001b3ULL;
	snprintf(name, sizeof name, "%016llx.json", (unsigned long long)h);
	if (state_dir(dir, sizeof dir) < 0)
		*dir = 0;
	if ((dfd = token_dirfd()) < 0) {
		door_log(MLOG_WARN, "serve: no state directory for the "
			 "token (%s): a new one at each mount",
			 strerror(-dfd));
	} else {
		r = token_read(dfd, name, real, out, &why);
		if (r == 0) {
			close(dfd);
			snprintf(path, n, "%s/mcpfs/serve/%s", dir, name);
			return 0;
		}
		if (r != -ENOENT)
			door_log(MLOG_WARN, "serve: the kept token "
				 "%s/mcpfs/serve/%s is not used (%s): a new "
				 "one replaces it", dir, name, why);
	}
	if (getrandom(b, sizeof b, 0) != (ssize_t)sizeof b) {
		if (dfd >= 0)
			close(dfd);
		return -EIO;
	}
	for (i = 0; i < 32; i++)
		sprintf(out + 2 * i, "%02x", b[i]);
	if (dfd >= 0) {
		if ((r = token_write(dfd, name, real, out)) < 0)
			door_log(MLOG_WARN, "serve: cannot keep the token "
				 "in %s/mcpfs/serve/%s (%s): a new one at "
				 "each mount", dir, name, strerror(-r));
		else
			snprintf(path, n, "%s/mcpfs/serve/%s", dir, name);
		close(dfd);
	}
	return 0;
}
