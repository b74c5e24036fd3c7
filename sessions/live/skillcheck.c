/*
 * skillcheck.c - the check of a skill file's bytes against its listing
 * (spec 15, SEP-2640: hosts MUST NOT use unverified content): the size
 * and the SHA-256 digest the listing gives, or for a dynamic skill's
 * SKILL.md (no digest) SKILL_BYTES_MAX, the SEP's 16 MiB a skill.
 *
 * SHA-256 is libcrypto's (OpenSSL), loaded with dlopen at the first file
 * checked: mcpfs keeps libcrypto out of a mount that reads no skill and
 * starts no HTTP server (as the HTTP module does, test_module.py). A
 * machine without it fails the read (EIO, said in status).
 */
#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "internal.h"
#include "pages.h"

#define SKILL_BYTES_MAX (16u << 20)

/* EVP_Digest and EVP_sha256 of libcrypto (its ABI since OpenSSL 1.1). */
static int (*evp_digest)(const void *data, size_t n, unsigned char *md,
			 unsigned int *mdn, const void *type, void *engine);
static const void *(*evp_sha256)(void);

static int crypto_load(mcp_session *s)
{
	static const char *const names[] = {"libcrypto.so.3",
					    "libcrypto.so.1.1", "libcrypto.so"};
	void *h = NULL;
	size_t i;

	if (evp_digest)
		return 0;
	for (i = 0; !h && i < sizeof names / sizeof *names; i++)
		h = dlopen(names[i], RTLD_NOW | RTLD_LOCAL);
	if (h) {
		*(void **)&evp_digest = dlsym(h, "EVP_Digest");
		*(void **)&evp_sha256 = dlsym(h, "EVP_sha256");
	}
	if (!evp_digest || !evp_sha256) {
		evp_digest = NULL;
		surface_warn(s, "skills: no libcrypto (OpenSSL) to check the "
			     "digests of skill files with: none is shown");
		return -1;
	}
	return 0;
}

static void hex(const unsigned char *md, char out[65])
{
	int i;

	for (i = 0; i < 32; i++)
		sprintf(out + 2 * i, "%02x", md[i]);
}

int skill_verify(mcp_session *s, const char *path, const mcp_buf *b,
		 const unsigned char *sha, long long size)
{
	unsigned char md[64];
	unsigned int mdn = 0;
	char want[65], got[65];

	if (!sha) { /* dynamic: no digest to check */
		if (b->len <= SKILL_BYTES_MAX)
			return 0;
		surface_warn(s, "skills: %s is longer than %u bytes (a "
			     "dynamic skill's limit): not shown", path,
			     SKILL_BYTES_MAX);
		return -EIO;
	}
	if ((long long)b->len != size) {
		surface_warn(s, "skills: %s does not match its size in the "
			     "listing (listed %lld bytes, read %zu): not "
			     "shown", path, size, b->len);
		return -EIO;
	}
	if (crypto_load(s) < 0 ||
	    !evp_digest(b->data, b->len, md, &mdn, evp_sha256(), NULL) ||
	    mdn != 32)
		return -EIO;
	if (memcmp(md, sha, 32)) {
		hex(sha, want);
		hex(md, got);
		surface_warn(s, "skills: %s does not match its digest in the "
			     "listing (listed sha256:%.16s..., read "
			     "sha256:%.16s...): not shown", path, want, got);
		return -EIO;
	}
	return 0;
}
