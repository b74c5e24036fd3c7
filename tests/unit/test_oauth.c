/*
 * test_oauth.c - the pure parts of the OAuth client: WWW-Authenticate
 * parsing, well-known URL construction (path-aware), URL checks, base64url
 * and base64, form and query encoding, scope lists, PKCE S256 (the RFC 7636
 * appendix B vector), JWT client assertions (the header and claims, and an
 * ES256 and an RS256 signature checked with the public key), DPoP proofs
 * (their claims, and the signature checked with their own jwk), the store's
 * permission check, and the "oauth" config member.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <arpa/inet.h>
#include <netinet/in.h>

#include <cjson/cJSON.h>
#include <cmocka.h>
#include <openssl/bio.h>
#include <openssl/ecdsa.h>
#include <openssl/evp.h>
#include <openssl/pem.h>

#include "config.h"
#include "oauth.h"
#include "oauthcrypto.h"
#include "oauthnet.h"
#include "oauthutil.h"
#include "sessions.h"

static void www(const char *hdr, const char *name, int want_r,
		const char *want)
{
	char out[256];
	int r = oauth_www_param(hdr, name, out, sizeof out);

	assert_int_equal(r, want_r);
	if (!r)
		assert_string_equal(out, want);
}

static void test_www_authenticate(void **state)
{
	const char *h = "Bearer resource_metadata=\"https://x.example/.well-"
			"known/oauth-protected-resource/mcp\", scope=\"a b\"";

	www(h, "resource_metadata", 0,
	    "https://x.example/.well-known/oauth-protected-resource/mcp");
	www(h, "scope", 0, "a b");
	www(h, "SCOPE", 0, "a b");
	www(h, "error", -ENOENT, NULL);
	www("Bearer error=insufficient_scope,scope=x", "error", 0,
	    "insufficient_scope");
	www("Bearer error=insufficient_scope,scope=x", "scope", 0, "x");
	/* another challenge's parameters are not the Bearer one's */
	www("Basic realm=\"r\", scope=\"no\", Bearer scope=\"yes\"", "scope",
	    0, "yes");
	www("Basic realm=\"r\", Bearer error=\"e\"", "realm", -ENOENT, NULL);
	www("Basic realm=\"r\"", "realm", -EINVAL, NULL);
	www("", "scope", -EINVAL, NULL);
	www("bearer  error_description=\"say \\\"hi\\\"\", scope=s",
	    "error_description", 0, "say \"hi\"");
	www("Bearer scope=\"a b\"", "scope", 0, "a b");
	{
		char small[3];

		assert_int_equal(oauth_www_param("Bearer scope=\"abcdef\"",
						 "scope", small, sizeof small),
				 -E2BIG);
	}
}

static void wk(const char *url, const char *suffix, int mode,
	       const char *want)
{
	char *got = oauth_wellknown(url, suffix, mode);

	if (!want) {
		assert_null(got);
		return;
	}
	assert_non_null(got);
	assert_string_equal(got, want);
	free(got);
}

static void test_wellknown(void **state)
{
	const char *prm = "oauth-protected-resource";

	wk("https://a.example/mcp", prm, OAUTH_WK_INSERT,
	   "https://a.example/.well-known/oauth-protected-resource/mcp");
	wk("https://a.example/mcp", prm, OAUTH_WK_ROOT,
	   "https://a.example/.well-known/oauth-protected-resource");
	wk("http://localhost:3000/a/b/?q=1#f", prm, OAUTH_WK_INSERT,
	   "http://localhost:3000/.well-known/oauth-protected-resource/a/b");
	wk("https://a.example", prm, OAUTH_WK_INSERT,
	   "https://a.example/.well-known/oauth-protected-resource");
	wk("https://a.example/", "oauth-authorization-server", OAUTH_WK_ROOT,
	   "https://a.example/.well-known/oauth-authorization-server");
	wk("https://as.example/tenant1", "oauth-authorization-server",
	   OAUTH_WK_INSERT,
	   "https://as.example/.well-known/oauth-authorization-server/tenant1");
	wk("https://as.example/tenant1", "openid-configuration",
	   OAUTH_WK_INSERT,
	   "https://as.example/.well-known/openid-configuration/tenant1");
	wk("https://as.example/tenant1/", "openid-configuration",
	   OAUTH_WK_APPEND,
	   "https://as.example/tenant1/.well-known/openid-configuration");
	wk("https://as.example?x", "openid-configuration", OAUTH_WK_APPEND,
	   "https://as.example/.well-known/openid-configuration");
	wk("not a url", prm, OAUTH_WK_ROOT, NULL);
	wk("https:///mcp", prm, OAUTH_WK_ROOT, NULL);
	assert_true(oauth_url_has_path("https://a.example/mcp"));
	assert_false(oauth_url_has_path("https://a.example/"));
	assert_false(oauth_url_has_path("https://a.example?x=/y"));
}

static void test_urls(void **state)
{
	char *o = oauth_url_origin("http://localhost:8080/mcp?x");

	assert_string_equal(o, "http://localhost:8080");
	free(o);
	assert_true(oauth_url_allowed("https://as.example/token"));
	assert_true(oauth_url_allowed("http://127.0.0.1:9/authorize"));
	assert_true(oauth_url_allowed("http://localhost/authorize"));
	assert_true(oauth_url_allowed("http://LOCALHOST:1/x"));
	assert_true(oauth_url_allowed("http://[::1]:80/x"));
	assert_false(oauth_url_allowed("http://as.example/token"));
	assert_false(oauth_url_allowed("http://localhost.evil.example/x"));
	assert_false(oauth_url_allowed("http://127.0.0.1.evil.example/x"));
	assert_false(oauth_url_allowed("http://localhost@evil.example/x"));
	assert_false(oauth_url_allowed("ftp://localhost/x"));
	assert_false(oauth_url_allowed("https://"));
	assert_true(oauth_resource_matches("http://localhost:3000/mcp",
					   "http://localhost:3000/mcp"));
	assert_true(oauth_resource_matches("http://LOCALHOST:3000",
					   "http://localhost:3000/mcp"));
	assert_true(oauth_resource_matches("http://localhost:3000/mcp/",
					   "http://localhost:3000/mcp"));
	assert_false(oauth_resource_matches("https://evil.example.com/mcp",
					    "http://localhost:3000/mcp"));
	assert_false(oauth_resource_matches("http://localhost:3000/mc",
					    "http://localhost:3000/mcp"));
	assert_false(oauth_resource_matches("http://localhost:3000/mcp/x",
					    "http://localhost:3000/mcp"));
}

static void b64u(const char *in, size_t n, const char *want)
{
	char out[64];

	assert_int_equal(oauth_b64url((const unsigned char *)in, n, out),
			 strlen(want));
	assert_string_equal(out, want);
}

static void test_base64(void **state)
{
	char out[64];

	b64u("", 0, "");
	b64u("f", 1, "Zg");
	b64u("fo", 2, "Zm8");
	b64u("foo", 3, "Zm9v");
	b64u("foob", 4, "Zm9vYg");
	b64u("\xfb\xff", 2, "-_8");
	b64u("\xfb\xef\xbe", 3, "----");
	oauth_b64((const unsigned char *)"f", 1, out);
	assert_string_equal(out, "Zg==");
	oauth_b64((const unsigned char *)"\xfb\xff", 2, out);
	assert_string_equal(out, "+/8=");
	oauth_b64((const unsigned char *)"client:secret", 13, out);
	assert_string_equal(out, "Y2xpZW50OnNlY3JldA==");
}

static void test_form_and_query(void **state)
{
	char *f = oauth_form_escape("a b&c=d/é~");
	char *b = NULL, *v;

	assert_string_equal(f, "a%20b%26c%3Dd%2F%C3%A9~");
	free(f);
	assert_int_equal(oauth_form_add(&b, "grant_type", "refresh_token"), 0);
	assert_int_equal(oauth_form_add(&b, "scope", "a b"), 0);
	assert_string_equal(b, "grant_type=refresh_token&scope=a%20b");
	free(b);
	v = oauth_query_get("http://127.0.0.1:5/callback?code=a%2Fb+c&state=s#x",
			    "code");
	assert_string_equal(v, "a/b c");
	free(v);
	v = oauth_query_get("http://h/cb?xstate=1&state=s2", "state");
	assert_string_equal(v, "s2");
	free(v);
	assert_null(oauth_query_get("http://h/cb?code=1#state=2", "state"));
	assert_null(oauth_query_get("http://h/cb", "code"));
	v = oauth_query_get("http://h/cb?code=%zz%4", "code");
	assert_string_equal(v, "%zz%4");
	free(v);
}

static void test_scopes(void **state)
{
	char *u = oauth_scope_union("mcp:basic", "mcp:basic mcp:write");

	assert_string_equal(u, "mcp:basic mcp:write");
	free(u);
	u = oauth_scope_union(NULL, " a  b a ");
	assert_string_equal(u, "a b");
	free(u);
	u = oauth_scope_union(NULL, NULL);
	assert_string_equal(u, "");
	free(u);
	assert_true(oauth_scope_has("a offline_access", "offline_access"));
	assert_false(oauth_scope_has("a offline_accessx", "offline_access"));
	assert_false(oauth_scope_has(NULL, "a"));
}

static void test_pkce(void **state)
{
	char ch[44], v[64], v2[64];

	/* RFC 7636 appendix B */
	oauth_pkce_challenge("dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk", ch);
	assert_string_equal(ch, "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM");
	assert_int_equal(oauth_random_b64url(32, v), 0);
	assert_int_equal(strlen(v), 43); /* 43-128 characters, RFC 7636 */
	assert_int_equal(oauth_random_b64url(32, v2), 0);
	assert_string_not_equal(v, v2);
	assert_int_equal(strspn(v, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijkl"
				"mnopqrstuvwxyz0123456789-_"), 43);
}

static void test_sha256_name(void **state)
{
	char h[33];

	/* sha256("abc") = ba7816bf8f01cfea414140de5dae2223... */
	oauth_sha256_hex32("abc", h);
	assert_string_equal(h, "ba7816bf8f01cfea414140de5dae2223");
}

/* base64url decoding, for the checks */
static size_t unb64url(const char *s, size_t n, unsigned char *out)
{
	static const char a[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrs"
				"tuvwxyz0123456789-_";
	unsigned v = 0, bits = 0;
	size_t i, k = 0;

	for (i = 0; i < n; i++) {
		const char *p = strchr(a, s[i]);

		assert_non_null(p);
		v = v << 6 | (unsigned)(p - a);
		bits += 6;
		if (bits >= 8) {
			bits -= 8;
			out[k++] = (unsigned char)(v >> bits);
		}
	}
	return k;
}

static cJSON *part_json(const char *s, size_t n)
{
	unsigned char buf[1024];
	size_t k = unb64url(s, n, buf);

	return cJSON_ParseWithLength((const char *)buf, k);
}

static void test_jwt_claims(void **state)
{
	char *in = oauth_jwt_signing_input("ES256", "cid", "https://as.example",
					   1000, "j1");
	char *dot = strchr(in, '.');
	cJSON *h, *c;

	assert_non_null(dot);
	assert_null(strchr(dot + 1, '.'));
	h = part_json(in, (size_t)(dot - in));
	c = part_json(dot + 1, strlen(dot + 1));
	assert_string_equal(cJSON_GetObjectItem(h, "alg")->valuestring, "ES256");
	assert_string_equal(cJSON_GetObjectItem(h, "typ")->valuestring, "JWT");
	assert_string_equal(cJSON_GetObjectItem(c, "iss")->valuestring, "cid");
	assert_string_equal(cJSON_GetObjectItem(c, "sub")->valuestring, "cid");
	assert_string_equal(cJSON_GetObjectItem(c, "aud")->valuestring,
			    "https://as.example");
	assert_int_equal(cJSON_GetObjectItem(c, "iat")->valuedouble, 1000);
	assert_int_equal(cJSON_GetObjectItem(c, "exp")->valuedouble, 1300);
	assert_string_equal(cJSON_GetObjectItem(c, "jti")->valuestring, "j1");
	cJSON_Delete(h);
	cJSON_Delete(c);
	free(in);
}

static char *pem_of(EVP_PKEY *k, size_t *n)
{
	BIO *b = BIO_new(BIO_s_mem());
	char *p, *out;
	long len;

	assert_int_equal(PEM_write_bio_PrivateKey(b, k, NULL, NULL, 0, NULL,
						  NULL), 1);
	len = BIO_get_mem_data(b, &p);
	out = malloc((size_t)len + 1);
	memcpy(out, p, (size_t)len);
	out[len] = 0;
	*n = (size_t)len;
	BIO_free(b);
	return out;
}

/* Sign with a fresh key of kind, then verify the JWT with its public key. */
static void jwt_roundtrip(EVP_PKEY *k, const char *alg, size_t siglen)
{
	size_t n, k1;
	char *pem = pem_of(k, &n), err[200];
	char *jwt = oauth_jwt_assertion(pem, n, NULL, "cid", "https://as", 5,
					err, sizeof err);
	char *d2;
	unsigned char sig[600], der[200], *dp = der;
	EVP_MD_CTX *md = EVP_MD_CTX_new();
	cJSON *h;

	assert_non_null(jwt);
	d2 = strrchr(jwt, '.');
	h = part_json(jwt, (size_t)(strchr(jwt, '.') - jwt));
	assert_string_equal(cJSON_GetObjectItem(h, "alg")->valuestring, alg);
	cJSON_Delete(h);
	k1 = unb64url(d2 + 1, strlen(d2 + 1), sig);
	assert_int_equal(k1, siglen);
	assert_int_equal(EVP_DigestVerifyInit(md, NULL, EVP_sha256(), NULL, k), 1);
	if (!strcmp(alg, "ES256")) {
		ECDSA_SIG *es = ECDSA_SIG_new();
		int dl;

		ECDSA_SIG_set0(es, BN_bin2bn(sig, 32, NULL),
			       BN_bin2bn(sig + 32, 32, NULL));
		dl = i2d_ECDSA_SIG(es, &dp);
		ECDSA_SIG_free(es);
		assert_int_equal(EVP_DigestVerify(md, der, (size_t)dl,
			(unsigned char *)jwt, (size_t)(d2 - jwt)), 1);
	} else {
		assert_int_equal(EVP_DigestVerify(md, sig, k1,
			(unsigned char *)jwt, (size_t)(d2 - jwt)), 1);
	}
	/* the wrong algorithm for the key is refused */
	assert_null(oauth_jwt_assertion(pem, n, !strcmp(alg, "ES256") ?
					"RS256" : "ES256", "cid", "a", 5, err,
					sizeof err));
	assert_non_null(strstr(err, "does not fit"));
	EVP_MD_CTX_free(md);
	free(jwt);
	free(pem);
}

static void test_jwt_signatures(void **state)
{
	EVP_PKEY *ec = EVP_PKEY_Q_keygen(NULL, NULL, "EC", "P-256");
	EVP_PKEY *rsa = EVP_PKEY_Q_keygen(NULL, NULL, "RSA", (size_t)2048);
	char err[200];

	jwt_roundtrip(ec, "ES256", 64);
	jwt_roundtrip(rsa, "RS256", 256);
	assert_null(oauth_jwt_assertion("not a key", 9, NULL, "c", "a", 0, err,
					sizeof err));
	assert_non_null(strstr(err, "not a PEM private key"));
	EVP_PKEY_free(ec);
	EVP_PKEY_free(rsa);
}

/* DPoP (RFC 9449, SEP-1932): a proof of a fresh key has the header and
 * claims the RFC asks for, and its signature verifies with the public key
 * its own jwk gives (the SubjectPublicKeyInfo of a P-256 point). */
static void test_dpop_proof(void **state)
{
	static const unsigned char spki[26] = {
		0x30, 0x59, 0x30, 0x13, 0x06, 0x07, 0x2a, 0x86, 0x48, 0xce,
		0x3d, 0x02, 0x01, 0x06, 0x08, 0x2a, 0x86, 0x48, 0xce, 0x3d,
		0x03, 0x01, 0x07, 0x03, 0x42, 0x00};
	char *pem = oauth_dpop_keygen(), err[200], ath[48], *p1, *p2, *d2;
	unsigned char der[91], sig[80], sder[80], *sp = sder, dg[32];
	const unsigned char *dp = der;
	const cJSON *jwk;
	cJSON *h, *c, *c2;
	EVP_PKEY *pub;
	EVP_MD_CTX *md = EVP_MD_CTX_new();
	ECDSA_SIG *es = ECDSA_SIG_new();
	int dl;

	assert_non_null(pem);
	assert_non_null(strstr(pem, "PRIVATE KEY"));
	p1 = oauth_dpop_proof(pem, "POST", "https://rs.example/mcp?a=1#f",
			      "tok.en", "n-1", 1000, err, sizeof err);
	p2 = oauth_dpop_proof(pem, "POST", "https://as.example/token", NULL,
			      NULL, 1001, err, sizeof err);
	assert_non_null(p1);
	assert_non_null(p2);
	h = part_json(p1, (size_t)(strchr(p1, '.') - p1));
	d2 = strrchr(p1, '.');
	c = part_json(strchr(p1, '.') + 1, (size_t)(d2 - strchr(p1, '.') - 1));
	c2 = part_json(strchr(p2, '.') + 1,
		       (size_t)(strrchr(p2, '.') - strchr(p2, '.') - 1));
	assert_string_equal(cJSON_GetObjectItem(h, "typ")->valuestring,
			    "dpop+jwt");
	assert_string_equal(cJSON_GetObjectItem(h, "alg")->valuestring, "ES256");
	jwk = cJSON_GetObjectItem(h, "jwk");
	assert_string_equal(cJSON_GetObjectItem(jwk, "kty")->valuestring, "EC");
	assert_string_equal(cJSON_GetObjectItem(jwk, "crv")->valuestring,
			    "P-256");
	assert_null(cJSON_GetObjectItem(jwk, "d")); /* never the private key */
	assert_string_equal(cJSON_GetObjectItem(c, "htm")->valuestring, "POST");
	assert_string_equal(cJSON_GetObjectItem(c, "htu")->valuestring,
			    "https://rs.example/mcp");
	assert_int_equal(cJSON_GetObjectItem(c, "iat")->valuedouble, 1000);
	assert_string_equal(cJSON_GetObjectItem(c, "nonce")->valuestring, "n-1");
	oauth_sha256("tok.en", 6, dg);
	oauth_b64url(dg, 32, ath);
	assert_string_equal(cJSON_GetObjectItem(c, "ath")->valuestring, ath);
	assert_true(strlen(cJSON_GetObjectItem(c, "jti")->valuestring) >= 16);
	/* the token request's: no ath, no nonce, another jti */
	assert_null(cJSON_GetObjectItem(c2, "ath"));
	assert_null(cJSON_GetObjectItem(c2, "nonce"));
	assert_string_not_equal(cJSON_GetObjectItem(c, "jti")->valuestring,
				cJSON_GetObjectItem(c2, "jti")->valuestring);
	/* the signature, with the key the jwk names */
	memcpy(der, spki, 26);
	der[26] = 4;
	assert_int_equal(unb64url(cJSON_GetObjectItem(jwk, "x")->valuestring,
				  43, der + 27), 32);
	assert_int_equal(unb64url(cJSON_GetObjectItem(jwk, "y")->valuestring,
				  43, der + 59), 32);
	pub = d2i_PUBKEY(NULL, &dp, sizeof der);
	assert_non_null(pub);
	assert_int_equal(unb64url(d2 + 1, strlen(d2 + 1), sig), 64);
	ECDSA_SIG_set0(es, BN_bin2bn(sig, 32, NULL), BN_bin2bn(sig + 32, 32,
								 NULL));
	dl = i2d_ECDSA_SIG(es, &sp);
	assert_int_equal(EVP_DigestVerifyInit(md, NULL, EVP_sha256(), NULL,
					      pub), 1);
	assert_int_equal(EVP_DigestVerify(md, sder, (size_t)dl,
		(unsigned char *)p1, (size_t)(d2 - p1)), 1);
	sder[dl - 1] ^= 1; /* a changed signature does not verify */
	assert_int_not_equal(EVP_DigestVerify(md, sder, (size_t)dl,
		(unsigned char *)p1, (size_t)(d2 - p1)), 1);
	assert_null(oauth_dpop_proof("not a key", "GET", "https://x", NULL,
				     NULL, 0, err, sizeof err));
	ECDSA_SIG_free(es);
	EVP_MD_CTX_free(md);
	EVP_PKEY_free(pub);
	cJSON_Delete(h);
	cJSON_Delete(c);
	cJSON_Delete(c2);
	free(p1);
	free(p2);
	free(pem);
}

static void test_store_permissions(void **state)
{
	struct stat st;

	memset(&st, 0, sizeof st);
	st.st_uid = 1000;
	st.st_mode = S_IFREG | 0600;
	assert_int_equal(oauth_store_check(&st, 1000), 0);
	st.st_mode = S_IFREG | 0400;
	assert_int_equal(oauth_store_check(&st, 1000), 0);
	st.st_mode = S_IFREG | 0644;
	assert_int_equal(oauth_store_check(&st, 1000), -EPERM);
	st.st_mode = S_IFREG | 0640;
	assert_int_equal(oauth_store_check(&st, 1000), -EPERM);
	st.st_mode = S_IFREG | 0700;
	assert_int_equal(oauth_store_check(&st, 1000), -EPERM);
	st.st_mode = S_IFREG | 0602;
	assert_int_equal(oauth_store_check(&st, 1000), -EPERM);
	st.st_mode = S_IFREG | 0600;
	assert_int_equal(oauth_store_check(&st, 0), -EPERM); /* owner */
	st.st_mode = S_IFDIR | 0600;
	assert_int_equal(oauth_store_check(&st, 1000), -EPERM);
}

static struct mcp_oauth_conf *conf_ok(const char *json)
{
	cJSON *v = cJSON_Parse(json);
	struct mcp_oauth_conf *c = (void *)1;
	char *why = NULL;

	assert_int_equal(mcp_oauth_conf_parse(v, NULL, &c, &why), 0);
	assert_null(why);
	cJSON_Delete(v);
	return c;
}

static void conf_err(const char *json, const char *want)
{
	cJSON *v = cJSON_Parse(json);
	struct mcp_oauth_conf *c = (void *)1;
	char *why = NULL;

	assert_int_equal(mcp_oauth_conf_parse(v, NULL, &c, &why), -1);
	assert_null(c);
	assert_non_null(why);
	assert_string_equal(why, want);
	free(why);
	cJSON_Delete(v);
}

static void test_config(void **state)
{
	struct mcp_oauth_conf *c, *d;

	assert_null(conf_ok("true"));
	c = conf_ok("false");
	assert_int_equal(c->enabled, 0);
	mcp_oauth_conf_free(c);
	setenv("TEST_OAUTH_SECRET", "s3", 1);
	c = conf_ok("{\"clientId\": \"id\", \"clientSecret\": "
		    "\"${TEST_OAUTH_SECRET}\", \"scopes\": [\"a\", \"b\"], "
		    "\"grant\": \"client_credentials\", \"redirectPort\": 8123, "
		    "\"privateKeyFile\": \"/k.pem\"}");
	assert_int_equal(c->enabled, 1);
	assert_string_equal(c->client_id, "id");
	assert_string_equal(c->client_secret, "s3");
	assert_string_equal(c->scopes, "a b");
	assert_int_equal(c->client_credentials, 1);
	assert_int_equal(c->redirect_port, 8123);
	assert_string_equal(c->private_key_file, "/k.pem");
	d = mcp_oauth_conf_dup(c);
	assert_string_equal(d->client_secret, "s3");
	assert_ptr_not_equal(d->client_secret, c->client_secret);
	mcp_oauth_conf_free(c);
	mcp_oauth_conf_free(d);
	c = conf_ok("{\"scopes\": \"x y\", \"clientMetadataUrl\": "
		    "\"https://c.example/m.json\"}");
	assert_string_equal(c->scopes, "x y");
	assert_int_equal(c->client_credentials, 0);
	mcp_oauth_conf_free(c);
	conf_err("{\"clientID\": \"x\"}", "clientID: unknown key (want "
		 "clientId, clientSecret, clientMetadataUrl, scopes, grant, "
		 "privateKeyFile, redirectPort, dpop, idpTokenEndpoint, "
		 "idpIdToken, idpClientId or assertion)");
	conf_err("{\"grant\": \"password\"}", "grant: must be "
		 "\"authorization_code\", \"client_credentials\" or "
		 "\"jwt_bearer\"");
	conf_err("{\"grant\": \"jwt_bearer\", \"clientId\": \"c\"}",
		 "grant: jwt_bearer needs assertion, or idpTokenEndpoint and "
		 "idpIdToken");
	/* SEP-1933: the workload's JWT as the assertion, no identity
	 * provider; SEP-1932: dpop true or false, absent 0 */
	c = conf_ok("{\"grant\": \"jwt_bearer\", \"clientId\": \"c\", "
		    "\"assertion\": \"a.b.c\", \"dpop\": true}");
	assert_string_equal(c->assertion, "a.b.c");
	assert_int_equal(c->dpop, 1);
	d = mcp_oauth_conf_dup(c);
	assert_string_equal(d->assertion, "a.b.c");
	mcp_oauth_conf_free(c);
	mcp_oauth_conf_free(d);
	c = conf_ok("{\"dpop\": false}");
	assert_int_equal(c->dpop, -1);
	mcp_oauth_conf_free(c);
	c = conf_ok("{\"clientId\": \"c\"}");
	assert_int_equal(c->dpop, 0);
	mcp_oauth_conf_free(c);
	conf_err("{\"dpop\": \"yes\"}", "dpop: must be true or false");
	conf_err("{\"assertion\": \"a.b.c\"}", "assertion: goes with the "
		 "jwt_bearer grant, without idpTokenEndpoint and idpIdToken");
	c = conf_ok("{\"grant\": \"jwt_bearer\", \"clientId\": \"c\", "
		    "\"idpTokenEndpoint\": \"https://idp/token\", "
		    "\"idpIdToken\": \"t\", \"idpClientId\": \"i\"}");
	assert_int_equal(c->jwt_bearer, 1);
	assert_int_equal(c->client_credentials, 1);
	assert_string_equal(c->idp_client_id, "i");
	d = mcp_oauth_conf_dup(c);
	assert_string_equal(d->idp_token_endpoint, "https://idp/token");
	mcp_oauth_conf_free(c);
	mcp_oauth_conf_free(d);
	conf_err("{\"grant\": \"client_credentials\"}",
		 "clientId: required with the client_credentials grant");
	conf_err("{\"redirectPort\": 0}", "redirectPort: must be an integer "
		 "port (1-65535)");
	conf_err("{\"redirectPort\": 80.5}", "redirectPort: must be an "
		 "integer port (1-65535)");
	conf_err("{\"scopes\": [\"a b\"]}", "scopes: each must be a non-empty "
		 "string without spaces");
	conf_err("{\"clientId\": 5}", "clientId: must be a string");
	conf_err("{\"clientMetadataUrl\": \"http://c.example/m.json\"}",
		 "clientMetadataUrl: must be an https:// URL");
	conf_err("\"yes\"", "must be true, false or an object");
}

static void test_config_file(void **state)
{
	const char *t = "{\"mcpServers\": {\"h\": {\"url\": \"https://h.example"
			"/mcp\", \"oauth\": {\"nope\": 1}}}}";
	struct mcp_config *c = NULL;
	char *err = NULL;

	assert_int_equal(mcp_config_parse(t, strlen(t), "f.json", &c, &err),
			 -1);
	assert_non_null(strstr(err, "oauth"));
	assert_non_null(strstr(err, "nope: unknown key"));
	free(err);
	t = "{\"mcpServers\": {\"h\": {\"url\": \"https://h.example/mcp\", "
	    "\"oauth\": {\"clientId\": \"a\"}}}}";
	assert_int_equal(mcp_config_parse(t, strlen(t), "f.json", &c, &err), 0);
	assert_string_equal(c->servers->oauth->client_id, "a");
	mcp_config_free(c);
}

/* RFC 6750 b64token: what may follow "Bearer " in a header. */
static void test_token_chars(void **state)
{
	static const char *const good[] = {
		"abc", "A-._~+/9", "tok==", "x=", "eyJhbGciOi.eyJzdWIi.c2ln",
	};
	static const char *const bad[] = {
		"", "=", "tok\r\nX-Injected: yes", "a b", "a\tb", "a\"b",
		"tok\n", "a=b", "a,b", "\xc3\xa9", "a;b",
	};
	char *big = malloc(OAUTH_TOKEN_MAX + 2);
	size_t i;

	for (i = 0; i < sizeof good / sizeof *good; i++)
		assert_int_equal(oauth_token_ok(good[i]), 1);
	for (i = 0; i < sizeof bad / sizeof *bad; i++)
		assert_int_equal(oauth_token_ok(bad[i]), 0);
	assert_int_equal(oauth_token_ok(NULL), 0);
	assert_non_null(big);
	memset(big, 'a', OAUTH_TOKEN_MAX + 1);
	big[OAUTH_TOKEN_MAX + 1] = 0;
	assert_int_equal(oauth_token_ok(big), 0);
	big[OAUTH_TOKEN_MAX] = 0;
	assert_int_equal(oauth_token_ok(big), 1);
	free(big);
}

static void test_expiry_clamp(void **state)
{
	assert_true(oauth_clamp_expiry(1e308) == OAUTH_EXPIRY_MAX);
	assert_true(oauth_clamp_expiry(-5) == OAUTH_EXPIRY_MIN);
	assert_true(oauth_clamp_expiry(0) == OAUTH_EXPIRY_MIN);
	assert_true(oauth_clamp_expiry(0.0 / 0.0) == OAUTH_EXPIRY_MIN);
	assert_true(oauth_clamp_expiry(3600) == 3600);
}

/* The class of an address literal (v4 or v6) for the SSRF guard. */
static int net_class_of(const char *ip)
{
	struct sockaddr_in6 s6 = {.sin6_family = AF_INET6};
	struct sockaddr_in s4 = {.sin_family = AF_INET};

	if (inet_pton(AF_INET, ip, &s4.sin_addr) == 1)
		return oauth_net_class((struct sockaddr *)&s4);
	assert_int_equal(inet_pton(AF_INET6, ip, &s6.sin6_addr), 1);
	return oauth_net_class((struct sockaddr *)&s6);
}

/* spec 8: loopback and private addresses are caught in every spelling a
 * resolver or a URL may give them, the IPv4 ones mapped into IPv6 too. */
static void test_net_class(void **state)
{
	static const char *const loopback[] = {
		"127.0.0.1", "127.1.2.3", "0.0.0.0", "::1", "::",
		"::ffff:127.0.0.1", "::ffff:7f00:1", "::ffff:0.0.0.0",
	};
	static const char *const private[] = {
		"10.0.0.1", "172.16.0.1", "172.31.255.255", "192.168.1.1",
		"169.254.169.254", "100.64.0.1", "192.0.2.2", "224.0.0.1",
		"fe80::1", "fc00::1", "fd00::2", "::ffff:10.0.0.1",
		"::ffff:192.168.0.1", "::ffff:169.254.169.254",
	};
	static const char *const public[] = {
		"8.8.8.8", "172.32.0.1", "1.1.1.1", "2001:4860:4860::8888",
		"::ffff:8.8.8.8",
	};
	size_t i;

	for (i = 0; i < sizeof loopback / sizeof *loopback; i++)
		if (net_class_of(loopback[i]) != NET_LOOPBACK)
			fail_msg("%s is not classed loopback", loopback[i]);
	for (i = 0; i < sizeof private / sizeof *private; i++)
		if (net_class_of(private[i]) != NET_PRIVATE)
			fail_msg("%s is not classed private", private[i]);
	for (i = 0; i < sizeof public / sizeof *public; i++)
		if (net_class_of(public[i]) != NET_PUBLIC)
			fail_msg("%s is not classed public", public[i]);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_www_authenticate),
		cmocka_unit_test(test_wellknown),
		cmocka_unit_test(test_urls),
		cmocka_unit_test(test_base64),
		cmocka_unit_test(test_form_and_query),
		cmocka_unit_test(test_scopes),
		cmocka_unit_test(test_pkce),
		cmocka_unit_test(test_sha256_name),
		cmocka_unit_test(test_jwt_claims),
		cmocka_unit_test(test_jwt_signatures),
		cmocka_unit_test(test_dpop_proof),
		cmocka_unit_test(test_store_permissions),
		cmocka_unit_test(test_config),
		cmocka_unit_test(test_config_file),
		cmocka_unit_test(test_token_chars),
		cmocka_unit_test(test_expiry_clamp),
		cmocka_unit_test(test_net_class),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
