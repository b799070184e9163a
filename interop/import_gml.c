/*
 * GML into the import graph: `graph [ node [ id N label "..." ... ]
 * edge [ source N target M ... ] ]` with fabricx's attribute names (as
 * GraphML's, interop/import_graphml.c); other keys are read past.  GML's
 * grammar: keys, then an integer, a real, a "string" (HTML entities in
 * it decoded, as NetworkX writes them) or a [ list ]; '#' starts a comment
 * line.  A failed element (failed 1) is left out.
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "../core/xalloc.h"
#include "import_internal.h"

typedef struct lex {
	const char *file, *s;
	size_t len, pos;
	int line, col;
	fx_diag *d;
} lex;

typedef enum { T_EOF, T_KEY, T_NUM, T_STR, T_OPEN, T_CLOSE } tkind;

typedef struct tok {
	tkind k;
	char *text;   /* key, number or string (decoded) */
	fx_loc loc;
} tok;

static void adv(lex *x)
{
	if (x->s[x->pos] == '\n') {
		x->line++;
		x->col = 1;
	} else if (((unsigned char)x->s[x->pos] & 0xc0) != 0x80) {
		x->col++;
	}
	x->pos++;
}

static int next(lex *x, tok *t)
{
	free(t->text);
	t->text = NULL;
	for (;;) {
		while (x->pos < x->len && isspace((unsigned char)x->s[x->pos]))
			adv(x);
		if (x->pos < x->len && x->s[x->pos] == '#') {
			while (x->pos < x->len && x->s[x->pos] != '\n')
				adv(x);
			continue;
		}
		break;
	}
	t->loc = (fx_loc){x->file, x->line, x->col};
	if (x->pos >= x->len) {
		t->k = T_EOF;
		return 0;
	}
	char c = x->s[x->pos];
	if (c == '[' || c == ']') {
		t->k = c == '[' ? T_OPEN : T_CLOSE;
		adv(x);
		return 0;
	}
	size_t s = x->pos;
	if (c == '"') {
		adv(x);
		s = x->pos;
		while (x->pos < x->len && x->s[x->pos] != '"')
			adv(x);
		if (x->pos >= x->len)
			return fx_diag_error(x->d, &t->loc, "a string that never closes");
		size_t e = x->pos;
		adv(x);
		char *out = fx_xmalloc(e - s + 1);
		size_t n = 0;
		for (size_t i = s; i < e;) {
			static const struct { const char *ent; char c; } ents[] = {
				{"&quot;", '"'}, {"&amp;", '&'}, {"&lt;", '<'}, {"&gt;", '>'}, {"&apos;", '\''},
				{"&#92;", '\\'}, {"&#34;", '"'}, {"&#38;", '&'},
			};
			int hit = 0;
			for (size_t k = 0; k < sizeof ents / sizeof ents[0] && !hit; k++) {
				size_t l = strlen(ents[k].ent);
				if (e - i >= l && memcmp(x->s + i, ents[k].ent, l) == 0) {
					out[n++] = ents[k].c;
					i += l;
					hit = 1;
				}
			}
			if (!hit)
				out[n++] = x->s[i++];
		}
		out[n] = '\0';
		t->k = T_STR;
		t->text = out;
		return 0;
	}
	if (isalpha((unsigned char)c) || c == '_') {
		while (x->pos < x->len && (isalnum((unsigned char)x->s[x->pos]) || x->s[x->pos] == '_'))
			adv(x);
		t->k = T_KEY;
	} else if (isdigit((unsigned char)c) || c == '-' || c == '+' || c == '.') {
		while (x->pos < x->len && (isalnum((unsigned char)x->s[x->pos]) ||
					   strchr("+-.", x->s[x->pos])))
			adv(x);
		t->k = T_NUM;
	} else {
		return fx_diag_error(x->d, &t->loc, "'%c' starts no GML key, number, string or list", c);
	}
	t->text = fx_xstrndup(x->s + s, x->pos - s);
	return 0;
}

/* Skips the value that follows a key (t holds its first token). */
static int skip_value(lex *x, tok *t)
{
	if (t->k == T_NUM || t->k == T_STR)
		return 0;
	if (t->k != T_OPEN)
		return fx_diag_error(x->d, &t->loc, "a key without a value");
	int depth = 1;
	while (depth) {
		if (next(x, t))
			return -1;
		if (t->k == T_EOF)
			return fx_diag_error(x->d, &t->loc, "the file ends inside a [ list ]");
		depth += t->k == T_OPEN ? 1 : t->k == T_CLOSE ? -1 : 0;
	}
	return 0;
}

typedef struct gedge {
	char *src, *dst;
	fx_loc loc;
	fx_imp_link l;
	int failed;
} gedge;

static int num(lex *x, const tok *t, const char *key, int whole, double lo, double *out)
{
	char *end;
	double v = t->k == T_NUM ? strtod(t->text, &end) : 0;
	/* the range before the cast: converting 1e117 to int64_t is undefined */
	if (t->k != T_NUM || *end || !(v == v) || v > 1e300 || v < lo ||
	    (whole && (v > 2147483647.0 || v != (double)(int64_t)v)))
		return fx_diag_error(x->d, &t->loc, "'%s' must be a %s from %g, not '%.40s'", key,
				     whole ? "whole number" : "number", lo, t->text ? t->text : "[");
	*out = v;
	return 0;
}

/* One element (node or edge): its keys up to the closing bracket. */
static int element(lex *x, tok *t, fx_imp_graph *g, int is_edge, fx_loc at, gedge *e,
		   uint8_t **vfailed)
{
	char *id = NULL;
	fx_loc idloc = at;
	fx_imp_vertex_t vx = {.type = -1, .node = -1, .plane = -1, .ports = -1, .tier = -1, .loc = at};
	int rc = 0, failed = 0;
	double v;
	for (;;) {
		if ((rc = next(x, t)))
			break;
		if (t->k == T_CLOSE)
			break;
		if (t->k != T_KEY) {
			rc = fx_diag_error(x->d, &t->loc, t->k == T_EOF ? "the file ends inside a %s"
					   : "expected a key in the %s", is_edge ? "edge" : "node");
			break;
		}
		char *key = t->text;
		t->text = NULL;
		fx_loc kl = t->loc;
		if ((rc = next(x, t))) {
			free(key);
			break;
		}
		if (strcmp(key, "id") == 0 && !is_edge) {
			free(id);
			id = fx_xstrdup(t->text ? t->text : "");
			idloc = t->loc;
			if (t->k != T_NUM && t->k != T_STR)
				rc = fx_diag_error(x->d, &t->loc, "a node's id must be a number or a string");
		} else if (is_edge && (strcmp(key, "source") == 0 || strcmp(key, "target") == 0)) {
			char **p = key[0] == 's' ? &e->src : &e->dst;
			free(*p);
			*p = fx_xstrdup(t->text ? t->text : "");
			if (t->k != T_NUM && t->k != T_STR)
				rc = fx_diag_error(x->d, &t->loc, "an edge's %s must be a node id", key);
		} else if (strcmp(key, "failed") == 0) {
			failed = t->k == T_NUM && strcmp(t->text, "0") != 0;
		} else if (is_edge && strcmp(key, "bandwidth_Bps") == 0) {
			rc = num(x, t, key, 0, 0, &e->l.bw);
			if (!rc && e->l.bw <= 0)
				rc = fx_diag_error(x->d, &t->loc, "'bandwidth_Bps' must be over 0");
		} else if (is_edge && strcmp(key, "latency_s") == 0) {
			rc = num(x, t, key, 0, 0, &e->l.lat);
		} else if (is_edge && strcmp(key, "bundle") == 0) {
			rc = num(x, t, key, 1, 0, &v);
			e->l.bundle = (int64_t)v;
		} else if (is_edge && strcmp(key, "medium") == 0) {
			static const char *const m[] = {"copper", "optical", "silicon"};
			e->l.medium = -2;
			for (int i = 0; i < 3 && t->k == T_STR; i++)
				if (strcmp(t->text, m[i]) == 0)
					e->l.medium = i;
			if (e->l.medium == -2)
				rc = fx_diag_error(x->d, &t->loc, "'medium' must be \"copper\", \"optical\" or "
						   "\"silicon\"");
		} else if (!is_edge && (strcmp(key, "label") == 0 || strcmp(key, "name") == 0) &&
			   t->k == T_STR) {
			free(vx.name);
			vx.name = fx_xstrdup(t->text);
		} else if (!is_edge && strcmp(key, "type") == 0) {
			static const char *const ty[] = {"device", "switch", "cpu"};
			for (int i = 0; i < 3 && t->k == T_STR; i++)
				if (strcmp(t->text, ty[i]) == 0)
					vx.type = i;
			if (vx.type < 0)
				rc = fx_diag_error(x->d, &t->loc, "'type' must be \"device\", \"switch\" or \"cpu\"");
		} else if (!is_edge && strcmp(key, "role") == 0 && t->k == T_STR) {
			free(vx.role);
			vx.role = fx_xstrdup(t->text);
		} else if (!is_edge && (strcmp(key, "tier") == 0 || strcmp(key, "node") == 0 ||
					strcmp(key, "plane") == 0 || strcmp(key, "ports") == 0)) {
			rc = num(x, t, key, 1, -1, &v);
			int64_t *f = key[0] == 't' ? &vx.tier : key[0] == 'n' ? &vx.node
				     : key[1] == 'l' ? &vx.plane : &vx.ports;
			*f = (int64_t)v;
		} else {
			rc = skip_value(x, t);
		}
		(void)kl;
		free(key);
		if (rc)
			break;
	}
	if (rc == 0 && !is_edge) {
		if (!id) {
			rc = fx_diag_error(x->d, &at, "a node without an id");
		} else {
			int64_t k = fx_imp_vertex(g, id, idloc);
			fx_imp_vertex_t *p = &g->v[k];
			vx.key = p->key;
			vx.loc = idloc;
			*p = vx;
			*vfailed = fx_xrealloc(*vfailed, g->nv);
			(*vfailed)[k] = (uint8_t)failed;
			vx.name = vx.role = NULL;
		}
	}
	if (is_edge)
		e->failed = failed;
	free(vx.name);
	free(vx.role);
	free(id);
	return rc;
}

int fx_import_gml(const char *file, const char *text, size_t len, fx_imp_graph *g, fx_diag *d)
{
	lex x = {file, text, len, 0, 1, 1, d};
	tok t = {0};
	gedge *es = NULL;
	size_t ne = 0, cap = 0;
	uint8_t *vfailed = NULL;
	int rc = 0, seen = 0, directed = 0;
	g->devices_relay = g->cpus_relay = -1;
	/* to the graph's list */
	while ((rc = next(&x, &t)) == 0 && t.k != T_EOF) {
		if (t.k != T_KEY) {
			rc = fx_diag_error(d, &t.loc, "expected 'graph [' (a GML key)");
			break;
		}
		int is_graph = strcmp(t.text, "graph") == 0;
		if ((rc = next(&x, &t)))
			break;
		if (!is_graph) {
			if ((rc = skip_value(&x, &t)))
				break;
			continue;
		}
		if (t.k != T_OPEN || seen) {
			rc = fx_diag_error(d, &t.loc, seen ? "a second graph: a fabric is one graph"
					   : "'graph' must be followed by '['");
			break;
		}
		seen = 1;
		for (;;) {
			if ((rc = next(&x, &t)))
				break;
			if (t.k == T_CLOSE)
				break;
			if (t.k != T_KEY) {
				rc = fx_diag_error(d, &t.loc, t.k == T_EOF ? "the file ends inside the graph"
						   : "expected a key in the graph");
				break;
			}
			int node = strcmp(t.text, "node") == 0, edge = strcmp(t.text, "edge") == 0;
			int dir = strcmp(t.text, "directed") == 0;
			int drel = strcmp(t.text, "devices_relay") == 0, crel = strcmp(t.text, "cpus_relay") == 0;
			fx_loc at = t.loc;
			if ((rc = next(&x, &t)))
				break;
			if (dir && t.k == T_NUM)
				directed = strcmp(t.text, "0") != 0;
			if ((drel || crel) && t.k == T_NUM)
				*(drel ? &g->devices_relay : &g->cpus_relay) = strcmp(t.text, "0") != 0;
			if (!node && !edge) {
				if ((rc = skip_value(&x, &t)))
					break;
				continue;
			}
			if (t.k != T_OPEN) {
				rc = fx_diag_error(d, &t.loc, "'%s' must be followed by '['", node ? "node" : "edge");
				break;
			}
			if (edge) {
				if (ne == cap)
					es = fx_xrealloc(es, (cap = cap ? 2 * cap : 64) * sizeof *es);
				gedge *e = &es[ne++];
				memset(e, 0, sizeof *e);
				e->loc = at;
				e->l.count = 1;
				e->l.bw = e->l.lat = -1;
				e->l.medium = -1;
				e->l.bundle = -1;
				e->l.loc = at;
				rc = element(&x, &t, g, 1, at, e, &vfailed);
				if (rc == 0 && (!e->src || !e->dst))
					rc = fx_diag_error(d, &at, "an edge without %s", !e->src ? "a source" : "a target");
			} else {
				rc = element(&x, &t, g, 0, at, NULL, &vfailed);
			}
			if (rc)
				break;
		}
		if (rc)
			break;
	}
	if (rc == 0 && !seen)
		rc = fx_diag_error(d, &t.loc, "no 'graph [ ... ]' in the file");
	if (rc == 0 && directed)
		fx_imp_assume(g, "assumed: the file's graph is directed; each edge is read as a link in "
			      "both directions");
	size_t vgone = 0, dropped = 0;
	char **gone = fx_xmalloc((g->nv ? g->nv : 1) * sizeof *gone);
	if (rc == 0) {
		size_t m = 0;
		for (size_t i = 0; i < g->nv; i++) {
			if (vfailed[i]) {
				gone[vgone++] = g->v[i].key;
				free(g->v[i].name);
				free(g->v[i].role);
				continue;
			}
			g->v[m++] = g->v[i];
		}
		g->nv = m;
		if (vgone)
			fx_imp_assume(g, "%zu vertices the file marks failed are left out", vgone);
		rc = fx_imp_index(g, d);
	}
	for (size_t i = 0; i < ne && rc == 0; i++) {
		int64_t a = fx_imp_find(g, es[i].src), b = fx_imp_find(g, es[i].dst);
		int end_gone = 0;
		for (size_t k = 0; k < vgone && (a < 0 || b < 0) && !end_gone; k++)
			end_gone = strcmp(gone[k], a < 0 ? es[i].src : es[i].dst) == 0;
		if (es[i].failed || end_gone) {
			dropped++;
			continue;
		}
		if (a < 0 || b < 0) {
			rc = fx_diag_error(d, &es[i].loc, "the edge's %s '%.64s' is no node's id",
					   a < 0 ? "source" : "target", a < 0 ? es[i].src : es[i].dst);
			break;
		}
		fx_imp_link *l = fx_imp_link_add(g, a < b ? a : b, a < b ? b : a, es[i].loc);
		int64_t ka = l->a, kb = l->b;
		*l = es[i].l;
		l->a = ka;
		l->b = kb;
	}
	if (rc == 0 && dropped)
		fx_imp_assume(g, "%zu links the file marks failed (or whose ends failed) are left out: this "
			      "spec is the degraded fabric", dropped);
	for (size_t i = 0; i < ne; i++) {
		free(es[i].src);
		free(es[i].dst);
	}
	for (size_t k = 0; k < vgone; k++)
		free(gone[k]);
	free(gone);
	free(es);
	free(vfailed);
	free(t.text);
	return rc;
}
