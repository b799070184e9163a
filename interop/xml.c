/*
 * A small XML reader for the import formats (GraphML, SimGrid's and NCCL's
 * files): elements with attributes, text, and every position as
 * FILE:LINE:COL, as spec errors have.  It reads well-formed XML 1.0 the way
 * these files use it: the prolog, comments, processing instructions and a
 * DOCTYPE without an internal subset are skipped; CDATA is text; the five
 * predefined entities and character references are decoded; anything else
 * is an error at its position, never guessed.  Names are kept as written
 * (a namespace prefix stays part of the name).
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "../core/xalloc.h"
#include "xml.h"

void fx_xml_init(fx_xml *x, const char *file, const char *text, size_t len, fx_diag *d)
{
	memset(x, 0, sizeof *x);
	x->file = file;
	x->text = text;
	x->len = len;
	x->line = x->col = 1;
	x->d = d;
}

static int peek(const fx_xml *x, size_t k)
{
	return x->pos + k < x->len ? (unsigned char)x->text[x->pos + k] : -1;
}

static void adv(fx_xml *x, size_t n)
{
	for (; n && x->pos < x->len; n--, x->pos++) {
		if (x->text[x->pos] == '\n') {
			x->line++;
			x->col = 1;
		} else if (((unsigned char)x->text[x->pos] & 0xc0) != 0x80) {
			x->col++;   /* a column per character, not per UTF-8 byte */
		}
	}
}

static int starts(const fx_xml *x, const char *s)
{
	size_t l = strlen(s);
	return x->pos + l <= x->len && memcmp(x->text + x->pos, s, l) == 0;
}

static fx_loc here(const fx_xml *x)
{
	return (fx_loc){x->file, x->line, x->col};
}

static int fail(fx_xml *x, const fx_loc *at, const char *what)
{
	fx_loc l = at ? *at : here(x);
	return fx_diag_error(x->d, &l, "%s", what);
}

/* Skips to just past `end`; an error at `from` when it never comes. */
static int skip_past(fx_xml *x, const char *end, const fx_loc *from, const char *what)
{
	while (x->pos < x->len && !starts(x, end))
		adv(x, 1);
	if (x->pos >= x->len)
		return fail(x, from, what);
	adv(x, strlen(end));
	return 0;
}

static int name_char(int c, int first)
{
	return c >= 0x80 || isalpha(c) || c == '_' || c == ':' ||
	       (!first && (isdigit(c) || c == '-' || c == '.'));
}

static char *read_name(fx_xml *x)
{
	size_t s = x->pos;
	if (!name_char(peek(x, 0), 1))
		return NULL;
	while (name_char(peek(x, 0), 0))
		adv(x, 1);
	return fx_xstrndup(x->text + s, x->pos - s);
}

/* Appends text[s..e) to *buf with its references decoded. */
static int decode(fx_xml *x, size_t s, size_t e, fx_loc at, char **buf, size_t *len)
{
	char *out = fx_xrealloc(*buf, *len + (e - s) + 1);
	size_t n = *len;
	for (size_t i = s; i < e;) {
		if (x->text[i] != '&') {
			out[n++] = x->text[i++];
			continue;
		}
		size_t semi = i + 1;
		while (semi < e && semi - i < 12 && x->text[semi] != ';')
			semi++;
		if (semi >= e || x->text[semi] != ';') {
			free(out);
			*buf = NULL;
			return fail(x, &at, "a '&' that starts no entity (write '&amp;')");
		}
		const char *ent = x->text + i + 1;
		size_t el = semi - i - 1;
		static const struct { const char *name; char c; } pre[] = {
			{"amp", '&'}, {"lt", '<'}, {"gt", '>'}, {"quot", '"'}, {"apos", '\''},
		};
		int done = 0;
		for (size_t k = 0; k < 5 && !done; k++)
			if (strlen(pre[k].name) == el && memcmp(ent, pre[k].name, el) == 0) {
				out[n++] = pre[k].c;
				done = 1;
			}
		if (!done && el >= 2 && ent[0] == '#') {
			char *endp;
			unsigned long cp = ent[1] == 'x' ? strtoul(ent + 2, &endp, 16)
							 : strtoul(ent + 1, &endp, 10);
			if (endp == ent + el && cp > 0 && cp < 0x110000) {
				/* UTF-8 of the code point; at most 4 bytes, and a
				 * reference is at least 4 bytes long */
				if (cp < 0x80) {
					out[n++] = (char)cp;
				} else if (cp < 0x800) {
					out[n++] = (char)(0xc0 | (cp >> 6));
					out[n++] = (char)(0x80 | (cp & 0x3f));
				} else if (cp < 0x10000) {
					out[n++] = (char)(0xe0 | (cp >> 12));
					out[n++] = (char)(0x80 | ((cp >> 6) & 0x3f));
					out[n++] = (char)(0x80 | (cp & 0x3f));
				} else {
					out[n++] = (char)(0xf0 | (cp >> 18));
					out[n++] = (char)(0x80 | ((cp >> 12) & 0x3f));
					out[n++] = (char)(0x80 | ((cp >> 6) & 0x3f));
					out[n++] = (char)(0x80 | (cp & 0x3f));
				}
				done = 1;
			}
		}
		if (!done) {
			free(out);
			*buf = NULL;
			return fail(x, &at, "an unknown entity (XML knows &amp; &lt; &gt; &quot; &apos; "
				    "and character references)");
		}
		i = semi + 1;
	}
	out[n] = '\0';
	*buf = out;
	*len = n;
	return 0;
}

void fx_xml_tok_release(fx_xml_tok *t)
{
	free(t->name);
	for (size_t i = 0; i < 2 * t->nattr; i++)
		free(t->attr[i]);
	free(t->attr);
	free(t->attr_loc);
	free(t->text);
	memset(t, 0, sizeof *t);
}

const char *fx_xml_attr(const fx_xml_tok *t, const char *name, fx_loc *loc)
{
	for (size_t i = 0; i < t->nattr; i++)
		if (strcmp(t->attr[2 * i], name) == 0) {
			if (loc)
				*loc = t->attr_loc[i];
			return t->attr[2 * i + 1];
		}
	if (loc)
		*loc = t->loc;
	return NULL;
}

static int read_tag(fx_xml *x, fx_xml_tok *t)
{
	t->loc = here(x);
	adv(x, 1);  /* '<' */
	if (peek(x, 0) == '/') {
		adv(x, 1);
		t->kind = FX_XML_END;
		if (!(t->name = read_name(x)))
			return fail(x, NULL, "an end tag without a name");
		while (isspace(peek(x, 0)))
			adv(x, 1);
		if (peek(x, 0) != '>')
			return fail(x, NULL, "an end tag that does not close with '>'");
		adv(x, 1);
		return 0;
	}
	t->kind = FX_XML_START;
	if (!(t->name = read_name(x)))
		return fail(x, NULL, "a '<' that starts no tag (write '&lt;')");
	for (;;) {
		while (isspace(peek(x, 0)))
			adv(x, 1);
		int c = peek(x, 0);
		if (c == '>') {
			adv(x, 1);
			return 0;
		}
		if (c == '/' && peek(x, 1) == '>') {
			adv(x, 2);
			t->empty = 1;
			return 0;
		}
		fx_loc at = here(x);
		char *an = read_name(x);
		if (!an)
			return fail(x, NULL, c < 0 ? "the file ends inside a tag" : "a tag holds something "
				    "that is not an attribute");
		while (isspace(peek(x, 0)))
			adv(x, 1);
		if (peek(x, 0) != '=') {
			free(an);
			return fail(x, NULL, "an attribute without '=' and a quoted value");
		}
		adv(x, 1);
		while (isspace(peek(x, 0)))
			adv(x, 1);
		int q = peek(x, 0);
		if (q != '"' && q != '\'') {
			free(an);
			return fail(x, NULL, "an attribute value must be quoted");
		}
		adv(x, 1);
		fx_loc vat = here(x);
		size_t s = x->pos;
		while (x->pos < x->len && peek(x, 0) != q && peek(x, 0) != '<')
			adv(x, 1);
		if (peek(x, 0) != q) {
			free(an);
			return fail(x, &vat, "an attribute value that never closes");
		}
		char *val = NULL;
		size_t vl = 0;
		if (decode(x, s, x->pos, vat, &val, &vl)) {
			free(an);
			return -1;
		}
		adv(x, 1);
		for (size_t i = 0; i < t->nattr; i++)
			if (strcmp(t->attr[2 * i], an) == 0) {
				free(an);
				free(val);
				return fail(x, &at, "an attribute given twice in one tag");
			}
		t->attr = fx_xrealloc(t->attr, 2 * (t->nattr + 1) * sizeof *t->attr);
		t->attr_loc = fx_xrealloc(t->attr_loc, (t->nattr + 1) * sizeof *t->attr_loc);
		t->attr[2 * t->nattr] = an;
		t->attr[2 * t->nattr + 1] = val;
		t->attr_loc[t->nattr] = vat;
		t->nattr++;
	}
}

int fx_xml_next(fx_xml *x, fx_xml_tok *t)
{
	fx_xml_tok_release(t);
	for (;;) {
		if (x->pos >= x->len) {
			t->kind = FX_XML_EOF;
			t->loc = here(x);
			return 0;
		}
		fx_loc at = here(x);
		if (starts(x, "<!--")) {
			if (skip_past(x, "-->", &at, "a comment that never closes ('-->')"))
				return -1;
			continue;
		}
		if (starts(x, "<?")) {
			if (skip_past(x, "?>", &at, "a processing instruction that never closes ('?>')"))
				return -1;
			continue;
		}
		if (starts(x, "<![CDATA[")) {
			adv(x, 9);
			size_t s = x->pos;
			if (skip_past(x, "]]>", &at, "a CDATA section that never closes (']]>')"))
				return -1;
			t->kind = FX_XML_TEXT;
			t->loc = at;
			t->text = fx_xstrndup(x->text + s, x->pos - 3 - s);
			return 0;
		}
		if (starts(x, "<!DOCTYPE")) {
			while (x->pos < x->len && peek(x, 0) != '>' && peek(x, 0) != '[')
				adv(x, 1);
			if (peek(x, 0) == '[')
				return fail(x, NULL, "a DOCTYPE with an internal subset (entities are not read)");
			if (skip_past(x, ">", &at, "a DOCTYPE that never closes"))
				return -1;
			continue;
		}
		if (peek(x, 0) == '<')
			return read_tag(x, t);
		size_t s = x->pos;
		while (x->pos < x->len && peek(x, 0) != '<')
			adv(x, 1);
		size_t len = 0;
		t->kind = FX_XML_TEXT;
		t->loc = at;
		return decode(x, s, x->pos, at, &t->text, &len);
	}
}

int fx_xml_text_only(const char *s)
{
	for (; s && *s; s++)
		if (!isspace((unsigned char)*s))
			return 0;
	return 1;
}
