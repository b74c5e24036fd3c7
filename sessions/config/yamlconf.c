/*
 * yamlconf.c - a config file's text as a cJSON tree, in its syntax
 * (dialect_syntax): JSON is first checked with the strict scanner (jscan),
 * which pins a syntax error to its byte and so to its line, then built by
 * cJSON; JSON with comments is blanked to JSON first (dialect_jsonc); TOML
 * is toml.c's; YAML is libfyaml's. YAML is read as one document; its scalars follow
 * the YAML 1.2 core schema (a plain true/false, null or ~, a number, else
 * a string; a quoted scalar is always a string). Aliases, tags and
 * complex keys are refused: no client's config uses them, and an alias
 * can multiply a small file into a huge tree.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libfyaml.h>

#include "dialect.h"
#include "jscan.h"
#include "toml.h"

#define MAX_DEPTH 64

struct yconv {
	char *err;
	int depth;
};

/* libfyaml's diagnostics: the first "SOURCE:LINE:COL: error: MSG" is
 * kept as "LINE:COL: invalid YAML: MSG" in *user (a char *); the rest,
 * the source line included, is dropped. */
static void diag_cb(struct fy_diag *diag, void *user, const char *buf,
		    size_t len)
{
	char **keep = user, *text, *e, *lc, *nl;

	(void)diag;
	if (*keep || !(text = strndup(buf, len)))
		return;
	e = strstr(text, ": error: ");
	if (e) {
		*e = 0;
		lc = e;
		while (lc > text && (lc[-1] == ':' || (lc[-1] >= '0' &&
						      lc[-1] <= '9')))
			lc--;
		if (*lc == ':')
			lc++;
		nl = strchr(e + 9, '\n');
		if (nl)
			*nl = 0;
		if (asprintf(keep, "%s: invalid YAML: %s", lc, e + 9) < 0)
			*keep = NULL;
	}
	free(text);
}

/* Where node is (its path in the document: libfyaml 0.7 gives nodes no
 * line) and what is wrong. */
static cJSON *yfail(struct yconv *y, struct fy_node *node, const char *what)
{
	char *at = node ? fy_node_get_path(node) : NULL;

	if (!y->err && asprintf(&y->err, " invalid YAML at %s: %s",
				at ? at : "/", what) < 0)
		y->err = NULL;
	free(at);
	return NULL;
}

/* A plain scalar by the YAML 1.2 core schema. */
static cJSON *plain(const char *s, size_t n)
{
	char buf[64], *end;
	double v;

	if (n == 0 || (n == 1 && *s == '~') ||
	    (n == 4 && (!memcmp(s, "null", 4) || !memcmp(s, "Null", 4) ||
			!memcmp(s, "NULL", 4))))
		return cJSON_CreateNull();
	if (n == 4 && (!memcmp(s, "true", 4) || !memcmp(s, "True", 4) ||
		       !memcmp(s, "TRUE", 4)))
		return cJSON_CreateTrue();
	if (n == 5 && (!memcmp(s, "false", 5) || !memcmp(s, "False", 5) ||
		       !memcmp(s, "FALSE", 5)))
		return cJSON_CreateFalse();
	if (n < sizeof buf) {
		memcpy(buf, s, n);
		buf[n] = 0;
		if (strspn(buf, "0123456789+-.eE") != n)
			return NULL;
		errno = 0;
		v = strtod(buf, &end);
		if (!*end && !errno && isfinite(v) && strcmp(buf, ".") &&
		    (buf[0] != '0' || n == 1 || buf[1] == '.' ||
		     (buf[1] | 0x20) == 'e'))
			return cJSON_CreateNumber(v);
	}
	return NULL; /* a string */
}

/* A scalar: a number, true, false or null when plain and one, else a
 * string. */
static cJSON *scalar(struct yconv *y, struct fy_node *fyn)
{
	const char *s;
	cJSON *out;
	char *c;
	size_t n;

	if (fy_node_get_style(fyn) == FYNS_ALIAS)
		return yfail(y, fyn, "aliases are not supported");
	s = fy_node_get_scalar(fyn, &n);
	if (!s)
		return yfail(y, fyn, "unreadable scalar");
	if (memchr(s, 0, n))
		return yfail(y, fyn, "NUL byte in a scalar");
	if (fy_node_get_style(fyn) == FYNS_PLAIN && (out = plain(s, n)) != NULL)
		return out;
	c = strndup(s, n);
	out = c ? cJSON_CreateString(c) : NULL;
	free(c);
	return out;
}

static cJSON *node(struct yconv *y, struct fy_node *fyn)
{
	cJSON *out = NULL, *v;
	void *it = NULL;
	size_t n, kn;
	const char *k;

	if (!fyn)
		return cJSON_CreateNull();
	if (y->depth >= MAX_DEPTH)
		return yfail(y, fyn, "nested too deep");
	if (fy_node_get_tag(fyn, &n) && n)
		return yfail(y, fyn, "tags are not supported");
	switch (fy_node_get_type(fyn)) {
	case FYNT_SCALAR:
		return scalar(y, fyn);
	case FYNT_SEQUENCE: {
		struct fy_node *el;

		out = cJSON_CreateArray();
		y->depth++;
		while (out && (el = fy_node_sequence_iterate(fyn, &it))) {
			v = node(y, el);
			if (!v)
				goto bad;
			cJSON_AddItemToArray(out, v);
		}
		break;
	}
	case FYNT_MAPPING: {
		struct fy_node_pair *p;

		out = cJSON_CreateObject();
		y->depth++;
		while (out && (p = fy_node_mapping_iterate(fyn, &it))) {
			struct fy_node *key = fy_node_pair_key(p);
			char *ks;

			if (!key || !fy_node_is_scalar(key) ||
			    fy_node_get_style(key) == FYNS_ALIAS ||
			    !(k = fy_node_get_scalar(key, &kn)) ||
			    memchr(k, 0, kn)) {
				yfail(y, key ? key : fyn,
				      "keys must be plain strings");
				goto bad;
			}
			v = node(y, fy_node_pair_value(p));
			ks = strndup(k, kn);
			if (!v || !ks) {
				cJSON_Delete(v);
				free(ks);
				goto bad;
			}
			cJSON_AddItemToObject(out, ks, v);
			free(ks);
		}
		break;
	}
	default:
		return yfail(y, fyn, "unknown node");
	}
	y->depth--; /* a sequence or a mapping read */
	return out;
bad:
	y->depth--;
	cJSON_Delete(out);
	return NULL;
}

/* The length of the UTF-8 sequence at p (n bytes left), 0 if invalid. */
static size_t utf8_len(const unsigned char *p, size_t n)
{
	size_t k, want;
	unsigned long u;

	if (p[0] < 0x80)
		return 1;
	want = p[0] >= 0xf0 ? 4 : p[0] >= 0xe0 ? 3 : p[0] >= 0xc2 ? 2 : 0;
	if (!want || p[0] > 0xf4 || n < want)
		return 0;
	u = p[0] & (0x7f >> want);
	for (k = 1; k < want; k++) {
		if ((p[k] & 0xc0) != 0x80)
			return 0;
		u = u << 6 | (p[k] & 0x3f);
	}
	if ((want == 3 && (u < 0x800 || (u >= 0xd800 && u <= 0xdfff))) ||
	    (want == 4 && (u < 0x10000 || u > 0x10ffff)))
		return 0;
	return want;
}

/*
 * What the YAML of a config cannot hold, checked before libfyaml sees it
 * (0.7.12 loops forever on "%\x80"): bytes that are not UTF-8, control
 * characters, and directives (a line starting with '%'). Returns NULL or
 * a malloc'd "LINE:COL: invalid YAML: problem".
 */
static char *yaml_precheck(const char *text, size_t len)
{
	const unsigned char *p = (const unsigned char *)text;
	size_t i = 0, line = 1, col = 1, k;
	const char *why = NULL;
	char *err = NULL;

	while (i < len && !why) {
		k = utf8_len(p + i, len - i);
		if (!k)
			why = "not UTF-8";
		else if (p[i] == '%' && col == 1)
			why = "directives are not supported";
		else if ((p[i] < 0x20 && p[i] != '\t' && p[i] != '\n' &&
			  p[i] != '\r') || p[i] == 0x7f)
			why = "control character";
		if (why)
			break;
		if (p[i] == '\n') {
			line++;
			col = 1;
		} else {
			col++;
		}
		i += k;
	}
	if (why && asprintf(&err, "%zu:%zu: invalid YAML: %s", line, col,
			    why) < 0)
		err = strdup("out of memory");
	return err;
}

static cJSON *yaml(const char *text, size_t len, char **err)
{
	struct fy_diag_cfg dcfg;
	struct fy_diag *diag;
	struct fy_parse_cfg cfg = {.flags = FYPCF_QUIET};
	struct fy_document *doc;
	struct yconv y = {0};
	cJSON *out = NULL;

	*err = yaml_precheck(text, len);
	if (*err)
		return NULL;
	fy_diag_cfg_default(&dcfg);
	dcfg.fp = NULL;
	dcfg.output_fn = diag_cb;
	dcfg.user = err;
	dcfg.level = FYET_ERROR;
	dcfg.colorize = false;
	diag = cfg.diag = fy_diag_create(&dcfg);
	if (!diag) {
		*err = strdup("out of memory");
		return NULL;
	}
	doc = fy_document_build_from_string(&cfg, text, len);
	if (!doc) {
		if (!*err)
			*err = strdup(" invalid YAML");
	} else {
		free(*err); /* a warning's text */
		*err = NULL;
		out = node(&y, fy_document_root(doc));
		if (!out)
			*err = y.err ? y.err : strdup("out of memory");
		else if (!cJSON_IsObject(out)) {
			cJSON_Delete(out);
			out = NULL;
			*err = strdup(" the top level must be a mapping");
		}
		fy_document_destroy(doc);
	}
	fy_diag_unref(diag);
	return out;
}

cJSON *dialect_parse(int syntax, const char *text, size_t len, char **err)
{
	cJSON *out;
	char *why = NULL;

	if (syntax == DIALECT_YAML)
		return yaml(text, len, err);
	out = toml_parse(text, len, &why);
	*err = NULL;
	if (!out && why && strcmp(why, "out of memory")) {
		const char *m = strstr(why, ": ");

		if (m && asprintf(err, "%.*s: invalid TOML: %s",
				  (int)(m - why), why, m + 2) < 0)
			*err = NULL;
	}
	if (!out && !*err)
		*err = why ? strdup(why) : strdup("out of memory");
	free(why);
	return out;
}

/* ---- JSON ---- */

static size_t line_of(const char *text, size_t pos)
{
	size_t line = 1, i;

	for (i = 0; i < pos; i++)
		if (text[i] == '\n')
			line++;
	return line;
}

/* Strict syntax check. Returns NULL, or a malloc'd message. */
static char *check_syntax(const char *file, const char *text, size_t len)
{
	struct jscan j;
	size_t used, pos, all = 0, col;
	char *err = NULL;
	int r;

	jscan_init(&j);
	r = jscan_feed(&j, text, len, &used);
	if (r == JSCAN_DONE && used < len) {
		/* The value ended; the rest must be whitespace. */
		all = used;
		r = jscan_feed(&j, text + all, len - all, &used);
	}
	if (r == JSCAN_DONE ||
	    (r == JSCAN_MORE && jscan_finish(&j) == JSCAN_DONE))
		return NULL;
	if (r == JSCAN_MORE) {
		for (used = 0; used < len; used++)
			if (!strchr(" \t\r\n", text[used]) || !text[used])
				break;
		if (asprintf(&err, "%s:%zu: invalid JSON: %s", file,
			     line_of(text, len), used == len ?
			     "the file is empty" : "unexpected end of file") < 0)
			err = NULL;
		return err;
	}
	/* position only: quoting the text could show a secret */
	pos = all + used;
	for (col = pos; col > 0 && text[col - 1] != '\n'; col--)
		;
	if (asprintf(&err, "%s:%zu:%zu: invalid JSON: %s", file,
		     line_of(text, pos), pos - col + 1, j.error) < 0)
		err = NULL;
	return err;
}

cJSON *dialect_tree(const char *text, size_t len, const char *file,
		    int *syntax, char **err)
{
	char *clean = NULL, *why = NULL;
	cJSON *root = NULL;

	*err = NULL;
	*syntax = dialect_syntax(text, len, file);
	if (*syntax == DIALECT_TOML || *syntax == DIALECT_YAML) {
		root = dialect_parse(*syntax, text, len, &why);
		if (!root && asprintf(err, "%s:%s", file, why) < 0)
			*err = NULL;
		free(why);
	} else {
		if (len >= 3 && !memcmp(text, "\xef\xbb\xbf", 3)) {
			text += 3; /* a UTF-8 byte order mark */
			len -= 3;
		}
		if (*syntax == DIALECT_JSONC && (clean = dialect_jsonc(text, len)))
			text = clean;
		*err = check_syntax(file, text, len);
		/* Valid per the scanner, so cJSON can only lack memory or hit
		 * its own nesting limit. */
		if (!*err && !(root = cJSON_ParseWithLengthOpts(text, len, NULL,
								0)) &&
		    asprintf(err, "%s: cannot parse (out of memory?)", file) < 0)
			*err = NULL;
		free(clean);
	}
	if (root && !cJSON_IsObject(root)) {
		cJSON_Delete(root);
		root = NULL;
		if (asprintf(err, "%s: the top level must be an object", file) < 0)
			*err = NULL;
	}
	if (!root && !*err)
		*err = strdup("out of memory");
	return root;
}
