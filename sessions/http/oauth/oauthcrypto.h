/*
 * oauthcrypto.h - what the OAuth client needs of OpenSSL's libcrypto
 * (oauthcrypto.c, in the HTTP module only): SHA-256, random bytes, PKCE
 * S256 and JWT client assertions (RFC 7523) signed with ES256 or RS256.
 */
#ifndef MCPFS_OAUTHCRYPTO_H
#define MCPFS_OAUTHCRYPTO_H

#include <stddef.h>

void oauth_sha256(const void *p, size_t n, unsigned char out[32]);
/* The first 32 lowercase hex digits of SHA-256 of s, in out[33]. */
void oauth_sha256_hex32(const char *s, char out[33]);
/* n random bytes as base64url (out: at least 4 * n / 3 + 4 bytes);
 * 0 or -EIO. */
int oauth_random_b64url(size_t n, char *out);
/* The S256 challenge of verifier (RFC 7636 section 4.2), 44 bytes. */
void oauth_pkce_challenge(const char *verifier, char out[44]);
/* A signed JWT client assertion: iss = sub = client_id, aud, iat, exp =
 * iat + 300, a random jti; signed with the PEM private key in pem (ES256
 * for an EC P-256 key, RS256 for RSA; alg NULL = from the key).
 * Returns a malloc'd JWT, or NULL with err set. */
char *oauth_jwt_assertion(const char *pem, size_t pemlen, const char *alg,
			  const char *client_id, const char *aud, long now,
			  char *err, size_t errlen);
/* The header and claims parts (before signing), for tests: malloc'd
 * "base64url(header).base64url(claims)". */
char *oauth_jwt_signing_input(const char *alg, const char *client_id,
			      const char *aud, long now, const char *jti);

/* DPoP (RFC 9449, SEP-1932): a new EC P-256 private key as PEM
 * (malloc'd), or NULL. */
char *oauth_dpop_keygen(void);
/* A DPoP proof signed with the PEM key (ES256): header typ dpop+jwt, alg
 * ES256 and the public jwk; claims jti (random), htm, htu (url without
 * query or fragment), iat = now, ath (base64url SHA-256 of token) when
 * token, nonce when nonce. Returns a malloc'd JWT, or NULL with err. */
char *oauth_dpop_proof(const char *pem, const char *htm, const char *url,
		       const char *token, const char *nonce, long now,
		       char *err, size_t errlen);
#endif
