/*
 * oauthstore.c - the token store (spec 8): $XDG_STATE_HOME/mcpfs/auth/
 * (default ~/.local/state/mcpfs/auth/), 0700, one file per server URL,
 * named by the first 32 hex digits of SHA-256 of the config's url, 0600,
 * written to a temporary file and renamed over. A file another user owns,
 * or with any permission beyond 0600, is not read. The files are small
 * and local: they are read and written synchronously on the loop thread,
 * at a server's first use and at each new token.
 *
 * Opening never follows a symbolic link below the state directory (mcpfs/
 * and auth/ are walked with openat and O_NOFOLLOW, the file too) and never
 * blocks (O_NONBLOCK: a FIFO or device at the path is refused, not waited
 * on). A file over STORE_MAX is refused, never read in part nor written
 * over.
 */
#include <cjson/cJSON.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "oauth.h"
#include "oauthcrypto.h"
#include "oauthutil.h"
#include "sessions.h"

#define STORE_MAX (64 * 1024)

static char *store_dir(void)
{
	const char *x = getenv("XDG_STATE_HOME"), *home = getenv("HOME");
	char *d = NULL;

	if (x && *x == '/') {
		if (asprintf(&d, "%s/mcpfs/auth", x) < 0)
			d = NULL;
	} else if (home && *home) {
		if (asprintf(&d, "%s/.local/state/mcpfs/auth", home) < 0)
			d = NULL;
	}
	return d;
}

char *oauth_store_path(const char *url)
{
	char *d = store_dir(), *p = NULL, h[33];

	if (!d)
		return NULL;
	oauth_sha256_hex32(url, h);
	if (asprintf(&p, "%s/%s.json", d, h) < 0)
		p = NULL;
	free(d);
	return p;
}

int oauth_store_check(const struct stat *st, unsigned uid)
{
	if (st->st_uid != uid || (st->st_mode & 0177) || !S_ISREG(st->st_mode))
		return -EPERM;
	return 0;
}

static char *get(cJSON *j, const char *k)
{
	cJSON *v = cJSON_GetObjectItemCaseSensitive(j, k);

	return cJSON_IsString(v) && *v->valuestring ? strdup(v->valuestring)
						    : NULL;
}

static int mkdirs(const char *path)
{
	char *p = strdup(path), *s;
	int r = 0;

	if (!p)
		return -ENOMEM;
	for (s = strchr(p + 1, '/'); ; s = strchr(s + 1, '/')) {
		if (s)
			*s = 0;
		if (mkdir(p, 0700) < 0 && errno != EEXIST)
			r = -errno;
		if (!s)
			break;
		*s = '/';
	}
	free(p);
	return r;
}

/*
 * The auth directory as an open fd, walked from the state directory
 * (XDG_STATE_HOME or ~/.local/state, the user's own choice: followed) down
 * mcpfs/auth without following a symbolic link; created 0700 with create.
 * Returns the fd, or -errno (-ELOOP/-ENOTDIR: a link or a non-directory on
 * the way, -ENOENT: nothing stored yet).
 */
static int store_dirfd(int create)
{
	static const char *const parts[] = {"mcpfs", "auth"};
	const char *x = getenv("XDG_STATE_HOME"), *home = getenv("HOME");
	char *base = NULL;
	int fd, nfd;
	size_t i;

	if (x && *x == '/')
		base = strdup(x);
	else if (home && *home && asprintf(&base, "%s/.local/state", home) < 0)
		base = NULL;
	if (!base)
		return -ENOMEM;
	if (create && (fd = mkdirs(base)) < 0) {
		free(base);
		return fd;
	}
	fd = open(base, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	free(base);
	if (fd < 0)
		return -errno;
	for (i = 0; i < sizeof parts / sizeof *parts; i++) {
		if (create && mkdirat(fd, parts[i], 0700) < 0 &&
		    errno != EEXIST) {
			int e = -errno;

			close(fd);
			return e;
		}
		nfd = openat(fd, parts[i], O_RDONLY | O_DIRECTORY |
			     O_NOFOLLOW | O_CLOEXEC);
		if (nfd < 0) {
			int e = errno == ENOTDIR ? -ELOOP : -errno;

			/* O_NOFOLLOW|O_DIRECTORY on a link: ENOTDIR or ELOOP */
			close(fd);
			return e;
		}
		close(fd);
		fd = nfd;
	}
	return fd;
}

static const char *base_name(const char *path)
{
	const char *s = strrchr(path, '/');

	return s ? s + 1 : path;
}

/* The store at path opened for reading: its fd, -ENOENT when there is
 * none (or its folder is not there), or -EPERM (o->err says why). */
static int store_open(struct oauth *o, const char *path)
{
	struct stat st;
	int fd, dfd = store_dirfd(0), e;

	if (dfd == -ELOOP || dfd == -ENOTDIR) {
		snprintf(o->err, sizeof o->err, "token store directory of %s "
			 "is a symbolic link or not a directory: refused "
			 "(permissions)", path);
		return -EPERM;
	}
	if (dfd < 0)
		return -ENOENT;
	fd = openat(dfd, base_name(path), O_RDONLY | O_NOFOLLOW | O_NONBLOCK |
		    O_NOCTTY | O_CLOEXEC);
	e = errno;
	close(dfd);
	if (fd < 0) {
		if (e == ELOOP)
			snprintf(o->err, sizeof o->err, "token store %s is a "
				 "symbolic link: not read (permissions)", path);
		else if (e != ENOENT)
			snprintf(o->err, sizeof o->err, "token store %s: %s",
				 path, strerror(e));
		return e == ENOENT ? -ENOENT : -EPERM;
	}
	if (fstat(fd, &st) == 0 && !S_ISREG(st.st_mode))
		snprintf(o->err, sizeof o->err, "token store %s is not a "
			 "regular file (a FIFO, device or directory): refused "
			 "(remove it, or write logout to auth)", path);
	else if (fstat(fd, &st) < 0 || oauth_store_check(&st, getuid()) < 0)
		snprintf(o->err, sizeof o->err, "token store %s refused: "
			 "permissions %04o or owner %u are not 0600 and you; "
			 "not read (chmod 600 it, or write logout to auth)",
			 path, (unsigned)(st.st_mode & 07777),
			 (unsigned)st.st_uid);
	else if (st.st_size > STORE_MAX)
		snprintf(o->err, sizeof o->err, "token store %s is %lld bytes, "
			 "over the %d KiB limit: refused, left as it is "
			 "(remove it, or write logout to auth)", path,
			 (long long)st.st_size, STORE_MAX / 1024);
	else
		return fd;
	close(fd);
	return -EPERM;
}

/* The store's JSON read from fd (closed), NULL when it is no JSON; or
 * -EPERM in *err when it grew over the limit. */
static cJSON *store_read(struct oauth *o, int fd, const char *path, int *err)
{
	char *buf = malloc(STORE_MAX + 1);
	ssize_t n = 0, got;
	cJSON *j;

	*err = 0;
	while (buf && n <= STORE_MAX &&
	       (got = read(fd, buf + n, STORE_MAX + 1 - (size_t)n)) > 0)
		n += got;
	close(fd);
	if (n > STORE_MAX) {
		snprintf(o->err, sizeof o->err, "token store %s grew over the "
			 "%d KiB limit: refused", path, STORE_MAX / 1024);
		free(buf);
		*err = -EPERM;
		return NULL;
	}
	j = buf && n > 0 ? cJSON_ParseWithLength(buf, (size_t)n) : NULL;
	free(buf);
	return j;
}

/* What the store j (of o->url) holds, taken into o. */
static void store_take(struct oauth *o, cJSON *j, const char *path)
{
	cJSON *v;

	o->issuer = get(j, "issuer");
	o->authz_ep = get(j, "authorization_endpoint");
	o->token_ep = get(j, "token_endpoint");
	o->revoke_ep = get(j, "revocation_endpoint");
	o->resource = get(j, "resource");
	o->client_id = get(j, "client_id");
	o->client_secret = get(j, "client_secret");
	o->redirect_uri = get(j, "redirect_uri");
	o->access = get(j, "access_token");
	o->refresh = get(j, "refresh_token");
	o->dpop_key = get(j, "dpop_key");
	v = cJSON_GetObjectItemCaseSensitive(j, "token_type");
	o->dpop_bound = cJSON_IsString(v) && !strcmp(v->valuestring, "DPoP");
	o->dpop = o->dpop_bound; /* its refresh needs a proof too */
	if (o->access && !oauth_token_ok(o->access)) { /* never a header */
		mod_log(MLOG_WARN, "server %s: token store %s holds a token "
		     "outside RFC 6750's characters: not used", o->name, path);
		free(o->access);
		o->access = NULL;
	}
	o->scopes = get(j, "scopes");
	v = cJSON_GetObjectItemCaseSensitive(j, "auth_method");
	o->auth_method = cJSON_IsNumber(v) ? v->valueint : 0;
	v = cJSON_GetObjectItemCaseSensitive(j, "registered");
	o->registered = cJSON_IsTrue(v);
	v = cJSON_GetObjectItemCaseSensitive(j, "expires_at");
	o->expires_at = cJSON_IsNumber(v) ? v->valuedouble : 0;
	v = cJSON_GetObjectItemCaseSensitive(j, "lifetime");
	o->lifetime = cJSON_IsNumber(v) ? v->valuedouble : 0;
}

int oauth_store_load(struct oauth *o)
{
	char *path = oauth_store_path(o->url);
	cJSON *j, *v;
	int fd, err;

	if (!path)
		return 0;
	fd = store_open(o, path);
	if (fd < 0) {
		free(path);
		return fd == -ENOENT ? 0 : fd;
	}
	j = store_read(o, fd, path, &err);
	if (err < 0) {
		free(path);
		return err;
	}
	v = cJSON_GetObjectItemCaseSensitive(j, "url");
	if (!cJSON_IsString(v) || strcmp(v->valuestring, o->url)) {
		mod_log(MLOG_WARN, "server %s: token store %s unreadable or of "
		        "another url: ignored", o->name, path);
		cJSON_Delete(j);
		free(path);
		return -EINVAL;
	}
	store_take(o, j, path);
	free(path);
	cJSON_Delete(j);
	if (o->access) {
		o->state = OA_AUTHORIZED;
		o->gen++;
	}
	return 0;
}

static void put(cJSON *j, const char *k, const char *v)
{
	if (v)
		cJSON_AddStringToObject(j, k, v);
}

/* The store's JSON of o. */
static cJSON *store_json(const struct oauth *o)
{
	cJSON *j = cJSON_CreateObject();

	put(j, "url", o->url);
	put(j, "issuer", o->issuer);
	put(j, "authorization_endpoint", o->authz_ep);
	put(j, "token_endpoint", o->token_ep);
	put(j, "revocation_endpoint", o->revoke_ep);
	put(j, "resource", o->resource);
	put(j, "client_id", o->client_id);
	put(j, "client_secret", o->client_secret);
	put(j, "redirect_uri", o->redirect_uri);
	put(j, "access_token", o->access);
	put(j, "refresh_token", o->refresh);
	put(j, "dpop_key", o->dpop_key);
	put(j, "token_type", o->dpop_bound ? "DPoP" : NULL);
	put(j, "scopes", o->scopes);
	cJSON_AddNumberToObject(j, "auth_method", o->auth_method);
	cJSON_AddBoolToObject(j, "registered", o->registered);
	cJSON_AddNumberToObject(j, "expires_at", o->expires_at);
	cJSON_AddNumberToObject(j, "lifetime", o->lifetime);
	return j;
}

int oauth_store_save(const struct oauth *o)
{
	char *path = oauth_store_path(o->url), *tmp = NULL, *txt;
	const char *why = NULL;
	cJSON *j;
	int fd = -1, dfd = -1, r = 0;
	size_t len = 0;

	if (!path)
		return -ENOMEM;
	if (o->store_refused) { /* never write over what was refused */
		free(path);
		return -EPERM;
	}
	j = store_json(o);
	txt = cJSON_Print(j);
	cJSON_Delete(j);
	if (!txt) {
		r = -ENOMEM;
		goto out;
	}
	len = strlen(txt);
	if (len > STORE_MAX) {
		r = -EFBIG;
		why = "the tokens are over the 64 KiB store limit";
		goto out;
	}
	dfd = store_dirfd(1);
	if (dfd < 0) {
		r = dfd;
		if (r == -ELOOP)
			why = "a symbolic link or non-directory on the way: "
			      "refused";
		goto out;
	}
	if (fchmod(dfd, 0700) < 0 ||
	    asprintf(&tmp, "%s.tmp.%d", base_name(path), (int)getpid()) < 0) {
		r = -errno;
		tmp = NULL;
		goto out;
	}
	errno = 0;
	fd = openat(dfd, tmp, O_WRONLY | O_CREAT | O_TRUNC | O_EXCL |
		    O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK, 0600);
	if (fd < 0 || write(fd, txt, len) != (ssize_t)len || fsync(fd) < 0) {
		r = errno ? -errno : -EIO;
		if (fd >= 0) {
			close(fd);
			unlinkat(dfd, tmp, 0);
		}
		goto out;
	}
	close(fd);
	if (renameat(dfd, tmp, dfd, base_name(path)) < 0) {
		r = -errno;
		unlinkat(dfd, tmp, 0);
	}
out:
	if (r < 0)
		mod_log(MLOG_WARN, "server %s: cannot write the token store %s "
		     "(%s)", o->name, path, why ? why : strerror(-r));
	if (dfd >= 0)
		close(dfd);
	cJSON_free(txt);
	free(tmp);
	free(path);
	return r;
}

int oauth_store_remove(const struct oauth *o)
{
	char *path = oauth_store_path(o->url);
	int r = 0, dfd = store_dirfd(0);

	if (path && dfd >= 0 && unlinkat(dfd, base_name(path), 0) < 0 &&
	    errno != ENOENT)
		r = -errno;
	if (dfd >= 0)
		close(dfd);
	free(path);
	return r;
}
