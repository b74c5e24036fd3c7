/*
 * help.c - help/<tool>: how to call a tool, as plain text for a person or
 * an agent with only cat (spec 12). From the tool's entry of tools/list:
 *
 *   the name, title and description;
 *   each argument of inputSchema.properties: type, required or not,
 *   default, enum values, description;
 *   its bounds, length, pattern and format;
 *   two ready-to-run lines, NAME=VALUE and JSON, with the required
 *   arguments filled by the values the schema gives, and by values that
 *   fit it (example() below) only for a tool annotated readOnlyHint:
 *   for another, a value mcpfs would invent is a placeholder, <integer>,
 *   which kvargs.c refuses and which is no JSON (run_value());
 *   outputSchema, if any, and the annotations.
 *
 * A prompt (prompt set) gets the same from its prompts/list entry: its
 * arguments are strings, the lines write prompts/<name>, and it counts
 * as read-only.
 *
 * Server text is shown through ctlesc (no control character reaches the
 * reader's terminal) and, line by line, quoted after "  |" (help_quote):
 * it cannot start a line at column 0, where mcpfs's headings are, nor
 * run as a shell command. Every name or value of the server in a shell
 * line is single-quoted: running a line runs the tool and nothing else.
 */
#include <ctype.h>
#include <math.h>
#include <regex.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ctlesc.h"
#include "gbuf.h"
#include "help.h"
#include "jexact.h"
#include "kvargs.h"

static const char *str(const cJSON *o, const char *k)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k);

	return cJSON_IsString(v) ? v->valuestring : NULL;
}

/* 1 if the line at p (up to its NUL) shows nothing: blanks, Unicode
 * spaces (U+00A0, U+1680, U+2000 to U+200B, U+202F, U+205F, U+2060,
 * U+3000, U+FEFF) and nothing else. */
static int blank(const char *p)
{
	static const char *const spaces[] = {
		"\xc2\xa0", "\xe1\x9a\x80", "\xe2\x80\xaf", "\xe2\x81\x9f",
		"\xe2\x81\xa0", "\xe3\x80\x80", "\xef\xbb\xbf",
	};
	size_t i;

	while (*p) {
		if (*p == ' ' || *p == '\t') {
			p++;
			continue;
		}
		if ((unsigned char)p[0] == 0xe2 && (unsigned char)p[1] == 0x80 &&
		    (unsigned char)p[2] >= 0x80 && (unsigned char)p[2] <= 0x8b) {
			p += 3; /* U+2000 to U+200B */
			continue;
		}
		for (i = 0; i < sizeof spaces / sizeof *spaces; i++)
			if (!strncmp(p, spaces[i], strlen(spaces[i])))
				break;
		if (i == sizeof spaces / sizeof *spaces)
			return 0;
		p += strlen(spaces[i]);
	}
	return 1;
}

void help_quote(struct gbuf *b, const char *text, const char *prefix,
		size_t max)
{
	char *t = strdup(text), *p = t, *nl;
	size_t used = 0, n;
	int gap = 0, any = 0;

	if (!t) {
		b->oom = 1;
		return;
	}
	for (; p; p = nl ? nl + 1 : NULL) {
		nl = strchr(p, '\n');
		if (nl)
			*nl = 0;
		n = strlen(p);
		if (n && p[n - 1] == '\r') /* CRLF: one line end */
			p[--n] = 0;
		if (blank(p)) {
			gap = any;
			continue;
		}
		if (max && used + n + gap > max) {
			gbuf_printf(b, "%s [...]\n", prefix);
			break;
		}
		if (gap)
			gbuf_printf(b, "%s\n", prefix);
		gbuf_printf(b, "%s ", prefix);
		ctlesc_text(b, p, 0);
		gbuf_puts(b, "\n");
		used += n + 1 + gap;
		gap = 0;
		any = 1;
	}
	free(t);
}

/* Server text on one line, controls (newlines too) escaped. */
static void oneline(struct gbuf *b, const char *text)
{
	ctlesc_text(b, text, 0);
}

void help_placeholder(const char *name, char *out, size_t n)
{
	size_t i;

	for (i = 0; name[i] && i + 1 < n; i++)
		out[i] = isalnum((unsigned char)name[i])
				 ? (char)toupper((unsigned char)name[i]) : '_';
	out[i] = 0;
}

static const char *type_of(const cJSON *p)
{
	const char *t = kvargs_type(p);

	return t ? t : cJSON_GetObjectItemCaseSensitive(p, "enum") ? "enum"
								   : "any";
}

static int listed(const cJSON *arr, const char *name)
{
	const cJSON *it;

	cJSON_ArrayForEach(it, (cJSON_IsArray(arr) ? arr : NULL))
		if (cJSON_IsString(it) && !strcmp(it->valuestring, name))
			return 1;
	return 0;
}

static const cJSON *get(const cJSON *o, const char *k)
{
	return cJSON_GetObjectItemCaseSensitive(o, k);
}

/* A string for a "format" (JSON Schema's and OpenAPI's usual ones). */
static const char *format_example(const char *f)
{
	static const struct {
		const char *format, *value;
	} t[] = {
		{"uri", "https://example.com/"},
		{"url", "https://example.com/"},
		{"iri", "https://example.com/"},
		{"uri-reference", "https://example.com/"},
		{"iri-reference", "https://example.com/"},
		{"uri-template", "https://example.com/"},
		{"email", "user@example.com"},
		{"idn-email", "user@example.com"},
		{"date", "2025-01-01"},
		{"date-time", "2025-01-01T00:00:00Z"},
		{"time", "00:00:00Z"},
		{"duration", "P1D"},
		{"uuid", "00000000-0000-4000-8000-000000000000"},
		{"hostname", "example.com"},
		{"idn-hostname", "example.com"},
		{"ipv4", "192.0.2.1"},
		{"ipv6", "2001:db8::1"},
		{"json-pointer", "/"},
		{"relative-json-pointer", "0"},
		{"regex", ".*"},
		{"byte", "AA=="},
		{"int32", "0"},
		{"int64", "0"},
	};
	size_t i;

	for (i = 0; f && i < sizeof t / sizeof t[0]; i++)
		if (!strcmp(f, t[i].format))
			return t[i].value;
	return NULL;
}

/* 1 if s matches the schema's pattern as a POSIX extended regex (or the
 * pattern is not one: then it cannot be checked here). */
static int fits_pattern(const char *pattern, const char *s)
{
	regex_t re;
	int r;

	if (!pattern || regcomp(&re, pattern, REG_EXTENDED | REG_NOSUB))
		return 1;
	r = regexec(&re, s, 0, NULL, 0) == 0;
	regfree(&re);
	return r;
}

/* A string for a required argument called name: the format's example,
 * else the name in capitals, within minLength/maxLength and, when one
 * of a few candidates fits it, the pattern. */
static cJSON *string_example(const cJSON *p, const char *name)
{
	const char *pat = str(p, "pattern");
	const cJSON *mn = get(p, "minLength"), *mx = get(p, "maxLength");
	const char *f = format_example(str(p, "format"));
	const char *cands[] = {NULL, NULL, "0", "1", "a", "x", "example"};
	char ph[64], low[64], buf[128];
	size_t i, n;

	help_placeholder(name, ph, sizeof ph);
	for (i = 0; ph[i]; i++)
		low[i] = (char)tolower((unsigned char)ph[i]);
	low[i] = 0;
	cands[0] = f ? f : ph;
	cands[1] = low;
	for (i = 0; i < sizeof cands / sizeof cands[0]; i++)
		if (fits_pattern(pat, cands[i]))
			break;
	snprintf(buf, sizeof buf, "%s", i < sizeof cands / sizeof cands[0]
		 ? cands[i] : cands[0]);
	n = strlen(buf);
	if (cJSON_IsNumber(mn) && mn->valuedouble > (double)n)
		for (; n < (size_t)mn->valuedouble && n + 1 < sizeof buf; n++)
			buf[n] = 'X';
	buf[n] = 0;
	if (cJSON_IsNumber(mx) && mx->valuedouble >= 0 &&
	    mx->valuedouble < (double)n)
		buf[(size_t)mx->valuedouble] = 0;
	return cJSON_CreateString(buf);
}

/* The lower (upper: sign -1) bound of a number: *excl set when the value
 * must differ from it. 0 if there is none. */
static int bound(const cJSON *p, int upper, double *v, int *excl)
{
	const cJSON *in = get(p, upper ? "maximum" : "minimum");
	const cJSON *ex = get(p, upper ? "exclusiveMaximum" :
					 "exclusiveMinimum");
	int has = cJSON_IsNumber(in);

	*excl = has && cJSON_IsTrue(ex); /* draft 4: a flag on the bound */
	if (has)
		*v = in->valuedouble;
	if (cJSON_IsNumber(ex) && (!has || (upper ? ex->valuedouble <= *v
						  : ex->valuedouble >= *v))) {
		*v = ex->valuedouble;
		*excl = 1;
		has = 1;
	}
	return has;
}

/* A number within the bounds: 0 when it fits, else the nearest bound (one
 * past it when exclusive), a multiple of multipleOf where there is one. */
static cJSON *number_example(const cJSON *p, int integer)
{
	double lo = 0, hi = 0, v = 0, m;
	int lox = 0, hix = 0, hl = bound(p, 0, &lo, &lox),
	    hh = bound(p, 1, &hi, &hix);
	const cJSON *mo = get(p, "multipleOf");

	if (integer) {
		if (hl)
			lo = lox ? floor(lo) + 1 : ceil(lo);
		if (hh)
			hi = hix ? ceil(hi) - 1 : floor(hi);
		lox = hix = 0;
	}
	if (hl && (v < lo || (lox && v <= lo)))
		v = lox ? (hh ? (lo + 1 < hi ? lo + 1 : (lo + hi) / 2) : lo + 1)
			: lo;
	else if (hh && (v > hi || (hix && v >= hi)))
		v = hix ? (hl ? (hi - 1 > lo ? hi - 1 : (lo + hi) / 2) : hi - 1)
			: hi;
	m = cJSON_IsNumber(mo) && mo->valuedouble > 0 ? mo->valuedouble : 0;
	/* v / m whole, not fmod: mcpfs would map libm for that one call
	 * (350 KiB of an idle mount's RSS); floor and ceil are inline */
	if (m > 0 && v / m != floor(v / m)) {
		double up = ceil(v / m) * m;

		v = !hh || up < hi || (!hix && up == hi) ? up : floor(v / m) * m;
	}
	return cJSON_CreateNumber(v);
}

/* The example value of an argument p called name: a JSON item, filled
 * from the schema as spec 12 lists: its default, its first example, its
 * const or first enum value, the first alternative of anyOf/oneOf that is
 * not null, else by type: a number within the bounds (number_example),
 * false, an array of minItems items, an object of its required
 * properties, a string that fits the format (string_example). *invented
 * is set when mcpfs chose any part of it (all but the schema's own
 * values, and an object made of nothing but those). */
static cJSON *example(const cJSON *p, const char *name, int prompt,
		      int depth, int *invented)
{
	const cJSON *d = get(p, "default"), *x = get(p, "examples");
	const cJSON *e = get(p, "enum"), *alt, *it;
	const char *t = prompt ? "string" : type_of(p);
	cJSON *o;
	int members = 0;

	if (d)
		return cJSON_Duplicate(d, 1);
	if (cJSON_IsArray(x) && cJSON_GetArraySize(x) > 0)
		return cJSON_Duplicate(cJSON_GetArrayItem(x, 0), 1);
	if (get(p, "const"))
		return cJSON_Duplicate(get(p, "const"), 1);
	if (cJSON_IsArray(e) && cJSON_GetArraySize(e) > 0)
		return cJSON_Duplicate(cJSON_GetArrayItem(e, 0), 1);
	alt = get(p, "anyOf") ? get(p, "anyOf") : get(p, "oneOf");
	if (!strcmp(t, "any") && depth < 8)
		cJSON_ArrayForEach(it, (cJSON_IsArray(alt) ? alt : NULL))
			if (!str(it, "type") || strcmp(str(it, "type"), "null"))
				return example(it, name, prompt, depth + 1,
					       invented);
	if (strcmp(t, "object"))
		*invented = 1;
	if (!strcmp(t, "integer") || !strcmp(t, "number"))
		return number_example(p, !strcmp(t, "integer"));
	if (!strcmp(t, "boolean"))
		return cJSON_CreateFalse();
	if (!strcmp(t, "array")) {
		const cJSON *mi = get(p, "minItems");
		int n = cJSON_IsNumber(mi) ? (int)mi->valueint : 0;

		o = cJSON_CreateArray();
		while (o && n-- > 0 && depth < 8)
			cJSON_AddItemToArray(o, example(get(p, "items"), name,
							 0, depth + 1,
							 invented));
		return o;
	}
	if (!strcmp(t, "object")) {
		o = cJSON_CreateObject();
		cJSON_ArrayForEach(it, get(p, "properties"))
			if (o && depth < 8 && listed(get(p, "required"),
						     it->string)) {
				cJSON_AddItemToObject(o, it->string,
					example(it, it->string, 0, depth + 1,
						invented));
				members++;
			}
		if (!members)
			*invented = 1;
		return o;
	}
	return string_example(p, name);
}

/* Whether an argument name can be written as NAME=VALUE: kvargs.c takes
 * the name up to the first '=', after leading blanks, ':=' as JSON. */
static int kv_name(const char *n)
{
	size_t len = strlen(n);

	return len && !strchr(n, '=') && *n != ' ' && *n != '\t' &&
	       n[len - 1] != ':' && !ctlesc_needed(n, 0);
}

/* The JSON of v, compact, with DEL and C1 escaped (malloc'd). */
static char *compact_json(const cJSON *v)
{
	char *t = jexact_print(v, 0), *out;

	if (!t)
		return NULL;
	out = ctlesc_json(t, strlen(t), NULL);
	cJSON_free(t);
	return out;
}

/* The NAME=VALUE (or NAME:=JSON) line of argument a, whose schema p
 * (prompt: a string), malloc'd. NAME=VALUE when kvargs.c reads the value
 * back as the same JSON value and it shows as it is (a string the server
 * gives that reads as a placeholder, "<string>", is NAME:="<string>"). */
static char *kv_line(const cJSON *a, const cJSON *p, int prompt)
{
	const char *t = prompt ? "string" : kvargs_type(p);
	int typed = t && (!strcmp(t, "integer") || !strcmp(t, "number") ||
			  !strcmp(t, "boolean") || !strcmp(t, "array") ||
			  !strcmp(t, "object"));
	int plain;
	char *v = NULL, *line = NULL;

	if (cJSON_IsRaw(a)) { /* a placeholder: NAME=<TYPE> */
		if (asprintf(&line, "%s=%s", a->string, a->valuestring) < 0)
			line = NULL;
		return line;
	}
	if (cJSON_IsString(a)) {
		size_t n = strlen(a->valuestring);

		plain = !typed && !ctlesc_needed(a->valuestring, 0) &&
			!(n && a->valuestring[n - 1] == '\r') &&
			!kvargs_is_placeholder(a->valuestring);
	} else {
		plain = typed && ((cJSON_IsNumber(a) && t[0] != 'b' &&
				   t[0] != 'a' && t[0] != 'o') ||
				  (cJSON_IsBool(a) && t[0] == 'b'));
	}
	if (!(plain && cJSON_IsString(a)) && !(v = compact_json(a)))
		return NULL;
	if (asprintf(&line, "%s%s%s", a->string, plain ? "=" : ":=",
		     plain && cJSON_IsString(a) ? a->valuestring : v) < 0)
		line = NULL;
	free(v);
	return line;
}

/* s single-quoted for sh, with controls escaped (ctlesc: the callers
 * give text that has none but a file name that holds some). */
static void shq(struct gbuf *b, const char *s)
{
	char *e = ctlesc_dup(s, 0), *p;

	if (!e) {
		b->oom = 1;
		return;
	}
	gbuf_puts(b, "'");
	for (p = e; *p; p++)
		if (*p == '\'')
			gbuf_puts(b, "'\\''");
		else
			gbuf_add(b, p, 1);
	gbuf_puts(b, "'");
	free(e);
}

/* 1 if s is one of bash's reserved words that a line may start with and
 * still run (time (...) runs the parentheses). */
static int reserved(const char *s)
{
	static const char *const words[] = {
		"case", "coproc", "do", "done", "elif", "else", "esac", "fi",
		"for", "function", "if", "in", "select", "then", "time",
		"until", "while",
	};
	size_t i;

	for (i = 0; i < sizeof words / sizeof *words; i++)
		if (!strcmp(s, words[i]))
			return 1;
	return 0;
}

/* A name as a shell word: as it is when it holds only characters that
 * are literal in any position (Python's shlex.quote) and is no reserved
 * word, else single-quoted. Shown so, a name from the server is one
 * word, and a line that starts with it followed by " (" is a syntax
 * error in sh, never a command. */
static void shword(struct gbuf *b, const char *s)
{
	if (*s && strspn(s, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvw"
			    "xyz0123456789_@%+=:,./-") == strlen(s) &&
	    !reserved(s))
		gbuf_puts(b, s);
	else
		shq(b, s);
}

/* " > FILE; cat FILE\n" */
static void to_file(struct gbuf *b, const char *file)
{
	gbuf_puts(b, " > ");
	shword(b, file);
	gbuf_puts(b, "; cat ");
	shword(b, file);
	gbuf_puts(b, "\n");
}

/* 1 when a member name holds a control character (C0, DEL, C1), which
 * no request may carry (spec 13, I-JSON): such an argument cannot be
 * given through any file. */
static int ctl_name(const char *s)
{
	const unsigned char *p = (const unsigned char *)s;

	for (; *p; p++)
		if (*p < 0x20 || *p == 0x7f ||
		    (*p == 0xc2 && p[1] >= 0x80 && p[1] <= 0x9f))
			return 1;
	return 0;
}

/* What the values of the lines to run are, for their heading. */
enum filled { GIVEN, INVENTED, PLACEHOLDERS };

/* The two ready-to-run lines for the filled arguments args, whose
 * schemas are in props (prompt: the arguments array). Every word from
 * the server is single-quoted; echo only for text without a backslash
 * (dash's echo reads escapes), else printf '%s\n'. A placeholder (a raw
 * item, "<integer>") is written as it is in both lines: NAME=<integer>,
 * which kvargs.c refuses, and {"NAME":<integer>}, which is no JSON. */
static void run_lines(struct gbuf *b, const char *file, const cJSON *args,
		      const cJSON *props, int prompt, enum filled how)
{
	const cJSON *a;
	char *json = compact_json(args);
	int n = cJSON_GetArraySize(args), named = 1, bs = 0;
	struct gbuf words = {0};

	cJSON_ArrayForEach(a, args) {
		if (ctl_name(a->string)) {
			gbuf_puts(b, "Run it: it cannot be called through "
				     "mcpfs: an argument name holds a control "
				     "character, which no request may carry "
				     "(I-JSON).\n");
			free(json);
			return;
		}
	}
	cJSON_ArrayForEach(a, args) {
		char *line = kv_name(a->string) ?
			kv_line(a, prompt ? NULL : get(props, a->string),
				prompt) : NULL;

		if (!kv_name(a->string))
			named = 0;
		else if (!line)
			b->oom = 1;
		if (line) {
			bs |= strchr(line, '\\') != NULL;
			gbuf_puts(&words, " ");
			shq(&words, line);
		}
		free(line);
	}
	gbuf_puts(b, how == PLACEHOLDERS
		     ? "Run it (in a thread directory; replace each <...>: "
		       "as written, it is refused):\n"
		     : how == INVENTED
		     ? "Run it (in a thread directory; replace the CAPITALS):\n"
		     : "Run it (in a thread directory):\n");
	if (!named) {
		gbuf_puts(b, "  # (NAME=VALUE cannot name every argument here:"
			     " the JSON line can)\n");
	} else {
		gbuf_puts(b, "  ");
		gbuf_puts(b, n == 0 ? ":" : n == 1 && !bs ? "echo"
							  : "printf '%s\\n'");
		if (words.p)
			gbuf_add(b, words.p, words.len);
		to_file(b, file);
	}
	gbuf_puts(b, json && strchr(json, '\\') ? "  printf '%s\\n' "
						: "  echo ");
	shq(b, json ? json : "{}");
	to_file(b, file);
	if (!json)
		b->oom = 1;
	free(json);
	gbuf_free(&words);
}

/* The shape of an array's items or an object's properties, compact (cut
 * at 600 bytes), so that a NAME:=JSON value can be written; single-quoted
 * as a shell word (the server's JSON may hold a $(...)). */
static void shape(struct gbuf *b, const cJSON *p)
{
	const cJSON *sub = cJSON_GetObjectItemCaseSensitive(p, "items");
	char *t;
	int cut;

	if (!sub && cJSON_GetObjectItemCaseSensitive(p, "properties"))
		sub = p;
	if (!sub)
		return;
	t = jexact_print(sub, 0);
	if (!t)
		return;
	gbuf_printf(b, "      %s: ", sub == p ? "shape" : "items");
	cut = strlen(t) > 600;
	if (cut)
		t[600] = 0;
	shq(b, t);
	gbuf_puts(b, cut ? " ...\n" : "\n");
	cJSON_free(t);
}

/* ", KEY VALUE" for each bound, length, pattern and format of p. */
static void limits(struct gbuf *b, const cJSON *p)
{
	static const char *const keys[] = {
		"minimum", "exclusiveMinimum", "maximum", "exclusiveMaximum",
		"multipleOf", "minLength", "maxLength", "minItems", "maxItems",
		"pattern", "format",
	};
	size_t i;

	for (i = 0; i < sizeof keys / sizeof keys[0]; i++) {
		const cJSON *v = get(p, keys[i]);
		char *t;

		if (cJSON_IsBool(v)) { /* draft 4's exclusive flags */
			if (cJSON_IsTrue(v))
				gbuf_printf(b, ", %s", keys[i]);
			continue;
		}
		if (cJSON_IsString(v)) {
			gbuf_printf(b, ", %s ", keys[i]);
			oneline(b, v->valuestring);
			continue;
		}
		if (!v || !(t = jexact_print(v, 0)))
			continue;
		gbuf_printf(b, ", %s ", keys[i]);
		oneline(b, t);
		cJSON_free(t); /* cJSON's, not free()'s */
	}
}

/* ", KEY JSON" for the default or enum values of an argument. */
static void json_attr(struct gbuf *b, const char *what, const cJSON *v)
{
	char *t = jexact_print(v, 0);

	gbuf_printf(b, ", %s ", what);
	oneline(b, t ? t : "?");
	cJSON_free(t);
}

static void annotations(struct gbuf *b, const cJSON *ann)
{
	static const struct {
		const char *key, *yes, *no;
	} hints[] = {
		{"readOnlyHint", "read-only", "may change things"},
		{"destructiveHint", "destructive", "not destructive"},
		{"idempotentHint", "idempotent", NULL},
		{"openWorldHint", "open world (reaches outside)", "closed world"},
	};
	size_t i;
	int any = 0;

	for (i = 0; i < sizeof hints / sizeof hints[0]; i++) {
		const cJSON *h = cJSON_GetObjectItemCaseSensitive(ann,
								  hints[i].key);
		const char *w = cJSON_IsTrue(h) ? hints[i].yes
				: cJSON_IsFalse(h) ? hints[i].no : NULL;

		if (!w)
			continue;
		gbuf_printf(b, "%s%s", any ? ", " : "Annotations: ", w);
		any = 1;
	}
	if (any)
		gbuf_puts(b, "\n");
}

/* The value of the required argument p called an in the lines to run:
 * its example, or, when mcpfs would invent it and the tool does not say
 * it only reads (ro), the placeholder of its type (spec 12). *how grows
 * to what the value is. */
static cJSON *run_value(const cJSON *p, const char *an, int prompt, int ro,
			enum filled *how)
{
	int invented = 0;
	cJSON *v = example(p, an, prompt, 0, &invented);

	if (!invented)
		return v;
	if (ro) {
		if (*how < INVENTED)
			*how = INVENTED;
		return v;
	}
	cJSON_Delete(v);
	*how = PLACEHOLDERS;
	return cJSON_CreateRaw(kvargs_placeholder(p));
}

/* "Arguments:" and a paragraph per argument of props (prompt: the
 * arguments array); the values of the required ones into args. */
static void arguments(struct gbuf *b, const cJSON *props, const cJSON *req,
		      int prompt, int ro, cJSON *args, enum filled *how)
{
	const cJSON *p;

	gbuf_puts(b, cJSON_GetArraySize(props) ? "Arguments:\n"
					       : "Arguments: none\n");
	cJSON_ArrayForEach(p, props) {
		const char *an = prompt ? str(p, "name") : p->string;
		int required = prompt ? cJSON_IsTrue(get(p, "required"))
				      : listed(req, an);
		const cJSON *d = get(p, "default"), *e = get(p, "enum");
		const char *ad = str(p, "description");

		if (!an)
			continue;
		gbuf_puts(b, "  ");
		shword(b, an);
		gbuf_puts(b, " (");
		oneline(b, prompt ? "string" : type_of(p)); /* the server's */
		gbuf_printf(b, ", %s", required ? "required" : "optional");
		if (d)
			json_attr(b, "default", d);
		if (cJSON_IsArray(e))
			json_attr(b, "one of", e);
		if (!prompt)
			limits(b, p);
		gbuf_puts(b, ")\n");
		if (ad)
			help_quote(b, ad, "      |", 0);
		if (!prompt)
			shape(b, p);
		if (required)
			cJSON_AddItemToObject(args, an, run_value(p, an, prompt,
								  ro, how));
	}
}

char *help_render(const cJSON *entry, int prompt, const char *fname)
{
	struct gbuf b = {0};
	const char *name = str(entry, "name"), *title = str(entry, "title"),
		   *desc = str(entry, "description");
	const cJSON *schema = get(entry, "inputSchema");
	const cJSON *props = prompt ? get(entry, "arguments")
				    : get(schema, "properties");
	const cJSON *out = get(entry, "outputSchema");
	const cJSON *ann = get(entry, "annotations");
	/* a prompt only reads: prompts/get fills a template (spec 12) */
	int ro = prompt || cJSON_IsTrue(get(ann, "readOnlyHint"));
	enum filled how = GIVEN;
	struct gbuf d = {0};
	cJSON *args = cJSON_CreateObject();
	char *file = NULL;
	size_t head;

	if (!name || !args) {
		cJSON_Delete(args);
		return NULL;
	}
	if (!title)
		title = str(ann, "title");
	gbuf_printf(&b, "%s ", prompt ? "prompt" : "tool");
	shword(&b, name);
	gbuf_puts(&b, "\n");
	head = b.len;
	if (title)
		help_quote(&b, title, "  |", 0);
	if (desc)
		help_quote(&d, desc, "  |", 0);
	if (d.len && b.len > head) /* a quoted blank line between */
		gbuf_puts(&b, "  |\n");
	if (d.oom || (d.len && gbuf_add(&b, d.p, d.len) < 0))
		b.oom = 1;
	gbuf_free(&d);
	gbuf_puts(&b, "\n");
	arguments(&b, props, get(schema, "required"), prompt, ro, args, &how);
	gbuf_puts(&b, "\n");
	if (asprintf(&file, "%s/%s", prompt ? "prompts" : "tools",
		     fname ? fname : name) < 0)
		file = NULL;
	if (file)
		run_lines(&b, file, args, props, prompt, how);
	else
		b.oom = 1;
	free(file);
	gbuf_puts(&b, "The reply: cat the same file again, or result/ (text, "
		      "0.txt, 1.png, ...).\n");
	if (out) {
		char *t = jexact_print(out, 1);

		gbuf_puts(&b, "\nOutput schema (result/structured.json):\n");
		if (t)
			help_quote(&b, t, "  |", 0);
		else
			b.oom = 1;
		cJSON_free(t);
	}
	if (ann) {
		gbuf_puts(&b, "\n");
		annotations(&b, ann);
	}
	cJSON_Delete(args);
	return gbuf_take(&b);
}
