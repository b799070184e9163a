/*
 * xml: the small XML reader the importers share (interop/xml.c); not
 * installed.  A pull reader: fx_xml_next() returns the next start tag,
 * end tag or text, each with its FILE:LINE:COL.
 *
 * Ownership: a token owns its strings until the next fx_xml_next() on it
 * or fx_xml_tok_release().
 */
#ifndef FX_XML_H
#define FX_XML_H

#include <stddef.h>

#include "../core/diag.h"

typedef struct fx_xml {
	const char *file, *text;
	size_t len, pos;
	int line, col;
	fx_diag *d;
} fx_xml;

typedef enum fx_xml_kind { FX_XML_EOF = 0, FX_XML_START, FX_XML_END, FX_XML_TEXT } fx_xml_kind;

typedef struct fx_xml_tok {
	fx_xml_kind kind;
	char *name;          /* element name (start, end) */
	char **attr;         /* nattr name, value pairs, decoded */
	fx_loc *attr_loc;    /* where each value starts */
	size_t nattr;
	int empty;           /* a start tag that closes itself: <x/> */
	char *text;          /* text, decoded */
	fx_loc loc;
} fx_xml_tok;

void fx_xml_init(fx_xml *x, const char *file, const char *text, size_t len, fx_diag *d);
/* The next token into t (released first; zero it before the first call).
 * 0, or -1 after reporting a malformed file at its position. */
int fx_xml_next(fx_xml *x, fx_xml_tok *t);
void fx_xml_tok_release(fx_xml_tok *t);
/* The value of attribute name, or NULL; *loc (may be NULL) is where it is
 * (the tag's position when absent). */
const char *fx_xml_attr(const fx_xml_tok *t, const char *name, fx_loc *loc);
/* Whether s is empty or only whitespace. */
int fx_xml_text_only(const char *s);

#endif
