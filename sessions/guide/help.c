/*
 * help.c - help/<tool>: how to call a tool, as plain text for a person or
 * an agent with only cat (spec 12). From the tool's entry of tools/list:
 *
 *   the name, title and description;
 *   each argument of inputSchema.properties: type, required or not,
 *   default, enum values, description;
 *   two ready-to-run lines, NAME=VALUE and JSON, with the required
 *   arguments filled (default, else the first enum value, else a
 *   placeholder: the name in capitals, 0, false, [] or {});
 *   outputSchema, if any, and the annotations.
 *
 * A prompt (prompt set) gets the same from its prompts/list entry: its
 * arguments are strings, and the lines write prompts/<name>.
 */
#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gbuf.h"
#include "help.h"
#include "kvargs.h"

static const char *str(const cJSON *o, const char *k)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k);

	return cJSON_IsString(v) ? v->valuestring : NULL;
}

/* Text indented by ind spaces on every line. */
static void indented(struct gbuf *b, const char *text, int ind)
{
	const char *p = text, *nl;

	while (*p) {
		nl = strchr(p, '\n');
		gbuf_printf(b, "%*s%.*s\n", ind, "", (int)(nl ? nl - p : (long)strlen(p)),
		     p);
		if (!nl)
			break;
		p = nl + 1;
	}
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

/* A JSON value as compact text (malloc'd). */
static char *compact(const cJSON *v)
{
	return cJSON_PrintUnformatted(v);
}

/* The example value of a required argument p called name: a JSON item. */
static cJSON *example(const cJSON *p, const char *name, int prompt)
{
	const cJSON *d = cJSON_GetObjectItemCaseSensitive(p, "default");
	const cJSON *e = cJSON_GetObjectItemCaseSensitive(p, "enum");
	const char *t = prompt ? "string" : type_of(p);
	char ph[64];

	if (d)
		return cJSON_Duplicate(d, 1);
	if (cJSON_IsArray(e) && cJSON_GetArraySize(e) > 0)
		return cJSON_Duplicate(cJSON_GetArrayItem(e, 0), 1);
	if (!strcmp(t, "integer") || !strcmp(t, "number"))
		return cJSON_CreateNumber(0);
	if (!strcmp(t, "boolean"))
		return cJSON_CreateFalse();
	if (!strcmp(t, "array"))
		return cJSON_CreateArray();
	if (!strcmp(t, "object"))
		return cJSON_CreateObject();
	help_placeholder(name, ph, sizeof ph);
	return cJSON_CreateString(ph);
}

/* s single-quoted for sh. */
static void shq(struct gbuf *b, const char *s)
{
	gbuf_puts(b, "'");
	for (; *s; s++)
		if (*s == '\'')
			gbuf_puts(b, "'\\''");
		else
			gbuf_add(b, s, 1);
	gbuf_puts(b, "'");
}

/* The two ready-to-run lines for the filled arguments args. */
static void run_lines(struct gbuf *b, const char *file, const cJSON *args)
{
	const cJSON *a;
	char *json = compact(args);
	int n = cJSON_GetArraySize(args);

	gbuf_puts(b, "Run it (in a thread directory; replace the CAPITALS):\n  ");
	if (n == 0)
		gbuf_puts(b, ":");
	else
		gbuf_puts(b, n == 1 ? "echo" : "printf '%s\\n'");
	cJSON_ArrayForEach(a, args) {
		char *v = cJSON_IsString(a) ? NULL : compact(a);
		char *line = NULL;

		if (asprintf(&line, "%s%s%s", a->string,
			     cJSON_IsString(a) ? "=" : cJSON_IsArray(a) ||
				     cJSON_IsObject(a) ? ":=" : "=",
			     v ? v : a->valuestring) < 0) {
			b->oom = 1;
		} else {
			gbuf_puts(b, " ");
			shq(b, line);
		}
		free(line);
		cJSON_free(v);
	}
	gbuf_printf(b, " > %s; cat %s\n  echo ", file, file);
	shq(b, json ? json : "{}");
	gbuf_printf(b, " > %s; cat %s\n", file, file);
	cJSON_free(json);
}

/* The shape of an array's items or an object's properties, compact (cut
 * at 600 bytes), so that a NAME:=JSON value can be written. */
static void shape(struct gbuf *b, const cJSON *p)
{
	const cJSON *sub = cJSON_GetObjectItemCaseSensitive(p, "items");
	char *t;

	if (!sub && cJSON_GetObjectItemCaseSensitive(p, "properties"))
		sub = p;
	if (!sub)
		return;
	t = compact(sub);
	if (t)
		gbuf_printf(b, "      %s: %.600s%s\n", sub == p ? "shape" : "items",
		     t, strlen(t) > 600 ? " ..." : "");
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

char *help_render(const cJSON *entry, int prompt, const char *fname)
{
	struct gbuf b = {0};
	const char *name = str(entry, "name"), *title = str(entry, "title"),
		   *desc = str(entry, "description");
	const cJSON *schema = cJSON_GetObjectItemCaseSensitive(entry,
							       "inputSchema");
	const cJSON *props = prompt ? cJSON_GetObjectItemCaseSensitive(
						entry, "arguments")
				    : cJSON_GetObjectItemCaseSensitive(
						schema, "properties");
	const cJSON *req = cJSON_GetObjectItemCaseSensitive(schema,
							    "required");
	const cJSON *out = cJSON_GetObjectItemCaseSensitive(entry,
							    "outputSchema");
	const cJSON *p;
	cJSON *args = cJSON_CreateObject();
	char file[300];

	if (!name || !args) {
		cJSON_Delete(args);
		return NULL;
	}
	if (!title)
		title = str(cJSON_GetObjectItemCaseSensitive(entry,
							     "annotations"),
			    "title");
	gbuf_printf(&b, "%s %s%s%s\n\n", prompt ? "prompt" : "tool", name,
	     title ? ": " : "", title ? title : "");
	if (desc) {
		indented(&b, desc, 0);
		gbuf_puts(&b, "\n");
	}
	gbuf_puts(&b, cJSON_GetArraySize(props) ? "Arguments:\n"
						: "Arguments: none\n");
	cJSON_ArrayForEach(p, props) {
		const char *an = prompt ? str(p, "name") : p->string;
		int required = prompt ? cJSON_IsTrue(
				cJSON_GetObjectItemCaseSensitive(p, "required"))
				      : listed(req, an);
		const cJSON *d = cJSON_GetObjectItemCaseSensitive(p, "default");
		const cJSON *e = cJSON_GetObjectItemCaseSensitive(p, "enum");
		const char *ad = str(p, "description");

		if (!an)
			continue;
		gbuf_printf(&b, "  %s (%s, %s", an, prompt ? "string" : type_of(p),
		     required ? "required" : "optional");
		if (d) {
			char *t = compact(d);

			gbuf_printf(&b, ", default %s", t ? t : "?");
			cJSON_free(t);
		}
		if (cJSON_IsArray(e)) {
			char *t = compact(e);

			gbuf_printf(&b, ", one of %s", t ? t : "?");
			cJSON_free(t);
		}
		gbuf_puts(&b, ")\n");
		if (ad)
			indented(&b, ad, 6);
		if (!prompt)
			shape(&b, p);
		if (required)
			cJSON_AddItemToObject(args, an, example(p, an, prompt));
	}
	gbuf_puts(&b, "\n");
	snprintf(file, sizeof file, "%s/%s", prompt ? "prompts" : "tools",
		 fname ? fname : name);
	run_lines(&b, file, args);
	gbuf_puts(&b, "The reply: cat the same file again, or result/ (text, "
		      "0.txt, 1.png, ...).\n");
	if (out) {
		char *t = cJSON_Print(out);

		gbuf_puts(&b, "\nOutput schema (result/structured.json):\n");
		if (t)
			indented(&b, t, 2);
		cJSON_free(t);
	}
	if (cJSON_GetObjectItemCaseSensitive(entry, "annotations")) {
		gbuf_puts(&b, "\n");
		annotations(&b, cJSON_GetObjectItemCaseSensitive(
					 entry, "annotations"));
	}
	cJSON_Delete(args);
	return gbuf_take(&b);
}
