/*
 * oauthstore.c - the token store (SPEC 8): $XDG_STATE_HOME/mcpfs/auth/
 * (default ~/.local/state/mcpfs/auth/), 0700, one file per server URL,
 * named by the first 32 hex digits of SHA-256 of the config's url, 0600,
 * written to a temporary file and renamed over. A file another user owns,
 * or with any permission beyond 0600, is not read. The files are small
 * and local: they are read and written synchronously on the loop thread,
 * at a server's first use and at each new token.
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
#include "sessions.h"

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

int oauth_store_load(struct oauth *o)
{
	char *path = oauth_store_path(o->url), buf[65536];
	struct stat st;
	ssize_t n;
	cJSON *j, *v;
	int fd;

	if (!path)
		return 0;
	fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0) {
		if (errno == ELOOP)
			snprintf(o->err, sizeof o->err, "token store %s is a "
				 "symbolic link: not read (permissions)", path);
		free(path);
		return errno == ELOOP ? -EPERM : 0;
	}
	if (fstat(fd, &st) < 0 || oauth_store_check(&st, getuid()) < 0) {
		snprintf(o->err, sizeof o->err, "token store %s refused: "
			 "permissions %04o or owner %u are not 0600 and you; "
			 "not read (chmod 600 it, or write logout to auth)",
			 path, (unsigned)(st.st_mode & 07777),
			 (unsigned)st.st_uid);
		close(fd);
		free(path);
		return -EPERM;
	}
	n = read(fd, buf, sizeof buf - 1);
	close(fd);
	j = n > 0 ? cJSON_ParseWithLength(buf, (size_t)n) : NULL;
	v = cJSON_GetObjectItemCaseSensitive(j, "url");
	if (!cJSON_IsString(v) || strcmp(v->valuestring, o->url)) {
		mod_log(MLOG_WARN, "server %s: token store %s unreadable or of "
		        "another url: ignored", o->name, path);
		cJSON_Delete(j);
		free(path);
		return -EINVAL;
	}
	free(path);
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
	o->scopes = get(j, "scopes");
	v = cJSON_GetObjectItemCaseSensitive(j, "auth_method");
	o->auth_method = cJSON_IsNumber(v) ? v->valueint : 0;
	v = cJSON_GetObjectItemCaseSensitive(j, "registered");
	o->registered = cJSON_IsTrue(v);
	v = cJSON_GetObjectItemCaseSensitive(j, "expires_at");
	o->expires_at = cJSON_IsNumber(v) ? v->valuedouble : 0;
	v = cJSON_GetObjectItemCaseSensitive(j, "lifetime");
	o->lifetime = cJSON_IsNumber(v) ? v->valuedouble : 0;
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

int oauth_store_save(const struct oauth *o)
{
	char *path = oauth_store_path(o->url), *dir, *tmp = NULL, *txt;
	cJSON *j;
	int fd, r = 0;
	size_t len;

	if (!path)
		return -ENOMEM;
	dir = strdup(path);
	if (!dir) {
		free(path);
		return -ENOMEM;
	}
	*strrchr(dir, '/') = 0;
	j = cJSON_CreateObject();
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
	put(j, "scopes", o->scopes);
	cJSON_AddNumberToObject(j, "auth_method", o->auth_method);
	cJSON_AddBoolToObject(j, "registered", o->registered);
	cJSON_AddNumberToObject(j, "expires_at", o->expires_at);
	cJSON_AddNumberToObject(j, "lifetime", o->lifetime);
	txt = cJSON_Print(j);
	cJSON_Delete(j);
	if (!txt || mkdirs(dir) < 0 || chmod(dir, 0700) < 0 ||
	    asprintf(&tmp, "%s.tmp.%d", path, (int)getpid()) < 0) {
		tmp = NULL;
		r = -EIO;
		goto out;
	}
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_EXCL | O_CLOEXEC |
		  O_NOFOLLOW, 0600);
	len = strlen(txt);
	if (fd < 0 || write(fd, txt, len) != (ssize_t)len ||
	    fsync(fd) < 0) {
		r = -EIO;
		if (fd >= 0)
			close(fd);
		unlink(tmp);
		goto out;
	}
	close(fd);
	if (rename(tmp, path) < 0) {
		r = -errno;
		unlink(tmp);
	}
out:
	if (r < 0)
		mod_log(MLOG_WARN, "server %s: cannot write the token store in "
		        "%s (%s)", o->name, dir, strerror(-r));
	cJSON_free(txt);
	free(tmp);
	free(dir);
	free(path);
	return r;
}

int oauth_store_remove(const struct oauth *o)
{
	char *path = oauth_store_path(o->url);
	int r = 0;

	if (path && unlink(path) < 0 && errno != ENOENT)
		r = -errno;
	free(path);
	return r;
}
