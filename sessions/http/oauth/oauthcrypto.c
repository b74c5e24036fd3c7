/*
 * oauthcrypto.c - SHA-256, random bytes, PKCE and JWT signatures from
 * OpenSSL's libcrypto (contract in oauthcrypto.h). Linked into the HTTP
 * module only, so libcrypto is mapped with libcurl, never at start.
 */
#include <cjson/cJSON.h>
#include <errno.h>
#include <openssl/bio.h>
#include <openssl/ec.h>
#include <openssl/ecdsa.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/rand.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "oauthcrypto.h"
#include "oauthutil.h"

void oauth_sha256(const void *p, size_t n, unsigned char out[32])
{
	unsigned int len = 32;

	EVP_Digest(p, n, out, &len, EVP_sha256(), NULL);
}

void oauth_sha256_hex32(const char *s, char out[33])
{
	unsigned char d[32];
	int i;

	oauth_sha256(s, strlen(s), d);
	for (i = 0; i < 16; i++)
		snprintf(out + 2 * i, 3, "%02x", d[i]);
}

int oauth_random_b64url(size_t n, char *out)
{
	unsigned char b[64];

	if (n > sizeof b || RAND_bytes(b, (int)n) != 1)
		return -EIO;
	oauth_b64url(b, n, out);
	return 0;
}

void oauth_pkce_challenge(const char *verifier, char out[44])
{
	unsigned char d[32];

	oauth_sha256(verifier, strlen(verifier), d);
	oauth_b64url(d, 32, out);
}

static char *b64url_str(const char *s)
{
	size_t n = strlen(s);
	char *out = malloc(4 * n / 3 + 4);

	if (out)
		oauth_b64url((const unsigned char *)s, n, out);
	return out;
}

char *oauth_jwt_signing_input(const char *alg, const char *client_id,
			      const char *aud, long now, const char *jti)
{
	cJSON *h = cJSON_CreateObject(), *c = cJSON_CreateObject();
	char *ht, *ct, *hb = NULL, *cb = NULL, *out = NULL;

	cJSON_AddStringToObject(h, "alg", alg);
	cJSON_AddStringToObject(h, "typ", "JWT");
	cJSON_AddStringToObject(c, "iss", client_id);
	cJSON_AddStringToObject(c, "sub", client_id);
	cJSON_AddStringToObject(c, "aud", aud);
	cJSON_AddNumberToObject(c, "iat", (double)now);
	cJSON_AddNumberToObject(c, "exp", (double)(now + 300));
	cJSON_AddStringToObject(c, "jti", jti);
	ht = cJSON_PrintUnformatted(h);
	ct = cJSON_PrintUnformatted(c);
	if (ht && ct) {
		hb = b64url_str(ht);
		cb = b64url_str(ct);
	}
	if (hb && cb && asprintf(&out, "%s.%s", hb, cb) < 0)
		out = NULL;
	free(hb);
	free(cb);
	cJSON_free(ht);
	cJSON_free(ct);
	cJSON_Delete(h);
	cJSON_Delete(c);
	return out;
}

/* An ECDSA signature in DER, as JOSE wants it: r || s, 32 bytes each. */
static int ecdsa_raw(const unsigned char *der, size_t n, unsigned char out[64])
{
	const unsigned char *p = der;
	ECDSA_SIG *sig = d2i_ECDSA_SIG(NULL, &p, (long)n);
	const BIGNUM *r, *s;

	if (!sig)
		return -EINVAL;
	ECDSA_SIG_get0(sig, &r, &s);
	if (BN_bn2binpad(r, out, 32) != 32 ||
	    BN_bn2binpad(s, out + 32, 32) != 32) {
		ECDSA_SIG_free(sig);
		return -EINVAL;
	}
	ECDSA_SIG_free(sig);
	return 0;
}

char *oauth_jwt_assertion(const char *pem, size_t pemlen, const char *alg,
			  const char *client_id, const char *aud, long now,
			  char *err, size_t errlen)
{
	BIO *bio = BIO_new_mem_buf(pem, (int)pemlen);
	EVP_PKEY *key = bio ? PEM_read_bio_PrivateKey(bio, NULL, NULL, NULL)
			    : NULL;
	EVP_MD_CTX *md = NULL;
	unsigned char sig[1024], raw[64];
	size_t siglen = sizeof sig;
	char jti[32], *input = NULL, *out = NULL, sigb[1400];
	int type;

	BIO_free(bio);
	if (!key) {
		snprintf(err, errlen, "privateKeyFile: not a PEM private key");
		return NULL;
	}
	type = EVP_PKEY_base_id(key);
	if (!alg || !*alg)
		alg = type == EVP_PKEY_EC ? "ES256" : "RS256";
	if ((!strcmp(alg, "ES256") && type != EVP_PKEY_EC) ||
	    (!strcmp(alg, "RS256") && type != EVP_PKEY_RSA) ||
	    (strcmp(alg, "ES256") && strcmp(alg, "RS256"))) {
		snprintf(err, errlen, "privateKeyFile: the key does not fit "
			 "%s (ES256 needs an EC P-256 key, RS256 an RSA key)",
			 alg);
		goto out;
	}
	if (oauth_random_b64url(16, jti) < 0 ||
	    !(input = oauth_jwt_signing_input(alg, client_id, aud, now, jti)) ||
	    !(md = EVP_MD_CTX_new()) ||
	    EVP_DigestSignInit(md, NULL, EVP_sha256(), NULL, key) != 1 ||
	    EVP_DigestSign(md, sig, &siglen, (const unsigned char *)input,
			   strlen(input)) != 1) {
		snprintf(err, errlen, "cannot sign the client assertion");
		goto out;
	}
	if (type == EVP_PKEY_EC) {
		if (ecdsa_raw(sig, siglen, raw) < 0) {
			snprintf(err, errlen, "cannot sign the client "
				 "assertion (EC key not P-256?)");
			goto out;
		}
		oauth_b64url(raw, 64, sigb);
	} else {
		if (siglen > 1024) {
			snprintf(err, errlen, "RSA key too large");
			goto out;
		}
		oauth_b64url(sig, siglen, sigb);
	}
	if (asprintf(&out, "%s.%s", input, sigb) < 0)
		out = NULL;
out:
	EVP_MD_CTX_free(md);
	EVP_PKEY_free(key);
	free(input);
	return out;
}

/* ---- DPoP (RFC 9449; SEP-1932) ---- */

char *oauth_dpop_keygen(void)
{
	EVP_PKEY_CTX *c = EVP_PKEY_CTX_new_id(EVP_PKEY_EC, NULL);
	EVP_PKEY *key = NULL;
	BIO *bio = NULL;
	char *p = NULL, *out = NULL;
	long n;

	if (c && EVP_PKEY_keygen_init(c) == 1 &&
	    EVP_PKEY_CTX_set_ec_paramgen_curve_nid(c, NID_X9_62_prime256v1) == 1 &&
	    EVP_PKEY_keygen(c, &key) == 1 && (bio = BIO_new(BIO_s_mem())) &&
	    PEM_write_bio_PrivateKey(bio, key, NULL, NULL, 0, NULL, NULL) == 1 &&
	    (n = BIO_get_mem_data(bio, &p)) > 0 && (out = malloc(n + 1))) {
		memcpy(out, p, n);
		out[n] = 0;
	}
	BIO_free(bio);
	EVP_PKEY_free(key);
	EVP_PKEY_CTX_free(c);
	return out;
}

/* The public JWK of an EC P-256 key, members in RFC 7638's order (crv,
 * kty, x, y), so it is its own thumbprint input: its SubjectPublicKeyInfo
 * is 26 fixed bytes then the point 04 || X || Y. */
static cJSON *p256_jwk(EVP_PKEY *key)
{
	unsigned char der[91], *p = der;
	char x[48], y[48];
	cJSON *j;

	if (EVP_PKEY_base_id(key) != EVP_PKEY_EC || i2d_PUBKEY(key, NULL) != 91 ||
	    i2d_PUBKEY(key, &p) != 91 || der[26] != 4)
		return NULL;
	oauth_b64url(der + 27, 32, x);
	oauth_b64url(der + 59, 32, y);
	j = cJSON_CreateObject();
	cJSON_AddStringToObject(j, "crv", "P-256");
	cJSON_AddStringToObject(j, "kty", "EC");
	cJSON_AddStringToObject(j, "x", x);
	cJSON_AddStringToObject(j, "y", y);
	return j;
}

/* url without its query and fragment (RFC 9449 4.2: htu), malloc'd. */
static char *htu_of(const char *url)
{
	return strndup(url, strcspn(url, "?#"));
}

char *oauth_dpop_proof(const char *pem, const char *htm, const char *url,
		       const char *token, const char *nonce, long now,
		       char *err, size_t errlen)
{
	BIO *bio = BIO_new_mem_buf(pem, -1);
	EVP_PKEY *key = bio ? PEM_read_bio_PrivateKey(bio, NULL, NULL, NULL)
			    : NULL;
	EVP_MD_CTX *md = NULL;
	cJSON *h = cJSON_CreateObject(), *c = cJSON_CreateObject(), *jwk;
	unsigned char sig[80], raw[64], d[32];
	size_t siglen = sizeof sig;
	char jti[32], ath[48], sigb[96], *htu = htu_of(url), *ht = NULL;
	char *ct = NULL, *hb = NULL, *cb = NULL, *input = NULL, *out = NULL;

	BIO_free(bio);
	snprintf(err, errlen, "cannot make a DPoP proof");
	if (!key || !h || !c || !htu || !(jwk = p256_jwk(key)) ||
	    oauth_random_b64url(16, jti) < 0)
		goto out;
	cJSON_AddStringToObject(h, "typ", "dpop+jwt");
	cJSON_AddStringToObject(h, "alg", "ES256");
	cJSON_AddItemToObject(h, "jwk", jwk);
	cJSON_AddStringToObject(c, "jti", jti);
	cJSON_AddStringToObject(c, "htm", htm);
	cJSON_AddStringToObject(c, "htu", htu);
	cJSON_AddNumberToObject(c, "iat", (double)now);
	if (token) {
		oauth_sha256(token, strlen(token), d);
		oauth_b64url(d, 32, ath);
		cJSON_AddStringToObject(c, "ath", ath);
	}
	if (nonce)
		cJSON_AddStringToObject(c, "nonce", nonce);
	if (!(ht = cJSON_PrintUnformatted(h)) ||
	    !(ct = cJSON_PrintUnformatted(c)) || !(hb = b64url_str(ht)) ||
	    !(cb = b64url_str(ct)) || asprintf(&input, "%s.%s", hb, cb) < 0) {
		input = NULL;
		goto out;
	}
	if (!(md = EVP_MD_CTX_new()) ||
	    EVP_DigestSignInit(md, NULL, EVP_sha256(), NULL, key) != 1 ||
	    EVP_DigestSign(md, sig, &siglen, (const unsigned char *)input,
			   strlen(input)) != 1 || ecdsa_raw(sig, siglen, raw) < 0)
		goto out;
	oauth_b64url(raw, 64, sigb);
	if (asprintf(&out, "%s.%s", input, sigb) < 0)
		out = NULL;
out:
	EVP_MD_CTX_free(md);
	EVP_PKEY_free(key);
	cJSON_Delete(h);
	cJSON_Delete(c);
	cJSON_free(ht);
	cJSON_free(ct);
	free(hb), free(cb), free(input), free(htu);
	return out;
}
