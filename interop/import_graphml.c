/*
 * GraphML into the import graph.  The <key> declarations map each data
 * key to an attribute name; fabricx's own names (interop/export_graph.c:
 * name, type, role, tier, node, plane, bandwidth_Bps, latency_s, medium,
 * bundle, failed) are read, every other attribute is ignored.  A file of
 * another tool (NetworkX, Gephi, yEd) gives at least nodes and edges: what
 * it leaves out is assumed (import.c).  Hyperedges and ports, which no
 * fabric has, are errors.  A failed element (failed = true) is left out,
 * so the spec describes the degraded fabric the file holds.
 */
#include <stdlib.h>
#include <string.h>

#include "../core/xalloc.h"
#include "import_internal.h"
#include "xml.h"

typedef struct gkey {
	char *id, *name, *dflt;
	int edge;   /* for="edge" (else node, graph, all) */
} gkey;

typedef struct gml_state {
	gkey *keys;
	size_t nkeys;
} gstate;

static const gkey *key_of(const gstate *s, const char *id)
{
	for (size_t i = 0; i < s->nkeys; i++)
		if (strcmp(s->keys[i].id, id) == 0)
			return &s->keys[i];
	return NULL;
}

/* A whole number (an attribute's text) into *out; -1 after reporting. */
static int num_int(const char *t, const fx_loc *at, const char *what, int64_t lo, int64_t *out,
		   fx_diag *d)
{
	char *end;
	double v = strtod(t, &end);
	while (*end == ' ' || *end == '\t' || *end == '\n' || *end == '\r')
		end++;
	/* the range before the cast: converting 1e117 to int64_t is undefined */
	if (end == t || *end || !(v >= (double)lo && v <= 2147483647.0) || v != (double)(int64_t)v)
		return fx_diag_error(d, at, "'%s' must be a whole number from %lld to 2147483647, "
				     "not '%.40s'", what, (long long)lo, t);
	*out = (int64_t)v;
	return 0;
}

static int num_real(const char *t, const fx_loc *at, const char *what, double lo, int open,
		    double *out, fx_diag *d)
{
	char *end;
	double v = strtod(t, &end);
	while (*end == ' ' || *end == '\t' || *end == '\n' || *end == '\r')
		end++;
	if (end == t || *end || !(v == v) || v > 1e300 || (open ? v <= lo : v < lo))
		return fx_diag_error(d, at, "'%s' must be a number %s %g, not '%.40s'", what,
				     open ? ">" : ">=", lo, t);
	*out = v;
	return 0;
}

static int truthy(const char *t)
{
	return strcmp(t, "true") == 0 || strcmp(t, "1") == 0 || strcmp(t, "True") == 0;
}

/* One <data> value onto a vertex or a link. */
static int apply(fx_imp_graph *g, int64_t v, fx_imp_link *l, const char *name, const char *val,
		 const fx_loc *at, int *failed, fx_diag *d)
{
	if (strcmp(name, "failed") == 0) {
		*failed = truthy(val);
		return 0;
	}
	if (l) {
		if (strcmp(name, "bandwidth_Bps") == 0)
			return num_real(val, at, name, 0, 1, &l->bw, d);
		if (strcmp(name, "latency_s") == 0)
			return num_real(val, at, name, 0, 0, &l->lat, d);
		if (strcmp(name, "bundle") == 0)
			return num_int(val, at, name, 0, &l->bundle, d);
		if (strcmp(name, "medium") == 0) {
			static const char *const m[] = {"copper", "optical", "silicon"};
			for (int i = 0; i < 3; i++)
				if (strcmp(val, m[i]) == 0) {
					l->medium = i;
					return 0;
				}
			return fx_diag_error(d, at, "'medium' must be copper, optical or silicon, not '%.40s'",
					     val);
		}
		return 0;
	}
	fx_imp_vertex_t *x = &g->v[v];
	if (strcmp(name, "name") == 0 || (strcmp(name, "label") == 0 && !x->name)) {
		free(x->name);
		x->name = fx_xstrdup(val);
		return 0;
	}
	if (strcmp(name, "type") == 0) {
		static const char *const t[] = {"device", "switch", "cpu"};
		for (int i = 0; i < 3; i++)
			if (strcmp(val, t[i]) == 0) {
				x->type = i;
				return 0;
			}
		return fx_diag_error(d, at, "'type' must be device, switch or cpu, not '%.40s'", val);
	}
	if (strcmp(name, "role") == 0) {
		free(x->role);
		x->role = fx_xstrdup(val);
		return 0;
	}
	if (strcmp(name, "tier") == 0)
		return num_int(val, at, name, 0, &x->tier, d);
	if (strcmp(name, "node") == 0)
		return num_int(val, at, name, -1, &x->node, d);
	if (strcmp(name, "plane") == 0)
		return num_int(val, at, name, -1, &x->plane, d);
	if (strcmp(name, "ports") == 0)
		return num_int(val, at, name, 1, &x->ports, d);
	return 0;
}

typedef struct pend_edge {
	char *src, *dst;
	fx_loc loc, sloc, dloc;
	fx_imp_link l;
	int failed;
} pend_edge;

int fx_import_graphml(const char *file, const char *text, size_t len, fx_imp_graph *g, fx_diag *d)
{
	fx_xml x;
	fx_xml_init(&x, file, text, len, d);
	fx_xml_tok t = {0};
	gstate s = {0};
	pend_edge *pe = NULL;
	size_t npe = 0, cappe = 0;
	uint8_t *vfailed = NULL;
	int rc = 0, depth = 0, in_graph = 0, seen_graph = 0, seen_root = 0;
	int64_t cur_v = -1;
	pend_edge *cur_e = NULL;
	int cur_failed = 0;
	const gkey *cur_key = NULL;
	fx_loc data_loc = {0};
	char *data_text = NULL;
	gkey *cur_def = NULL;
	int other_data = 0;   /* inside a <data> of the graph itself */
	const gkey *graph_key = NULL;
	g->devices_relay = g->cpus_relay = -1;
	while ((rc = fx_xml_next(&x, &t)) == 0 && t.kind != FX_XML_EOF) {
		if (t.kind == FX_XML_TEXT) {
			if (cur_key || cur_def) {
				size_t a = data_text ? strlen(data_text) : 0, b = strlen(t.text);
				data_text = fx_xrealloc(data_text, a + b + 1);
				memcpy(data_text + a, t.text, b + 1);
			} else if (other_data) {
				if (graph_key) {
					size_t a = data_text ? strlen(data_text) : 0, b = strlen(t.text);
					data_text = fx_xrealloc(data_text, a + b + 1);
					memcpy(data_text + a, t.text, b + 1);
				}
			} else if (!fx_xml_text_only(t.text)) {
				rc = fx_diag_error(d, &t.loc, "text outside a <data> element");
				break;
			}
			continue;
		}
		if (t.kind == FX_XML_END) {
			depth--;
			if (strcmp(t.name, "data") == 0 && other_data) {
				if (graph_key && data_text) {
					int v = truthy(data_text);
					if (strcmp(graph_key->name, "devices_relay") == 0)
						g->devices_relay = v;
					else if (strcmp(graph_key->name, "cpus_relay") == 0)
						g->cpus_relay = v;
				}
				free(data_text);
				data_text = NULL;
				graph_key = NULL;
				other_data = 0;
			}
			if (strcmp(t.name, "data") == 0 && cur_key) {
				const char *val = data_text ? data_text : "";
				if (cur_e)
					rc = apply(g, -1, &cur_e->l, cur_key->name, val, &data_loc, &cur_e->failed, d);
				else if (cur_v >= 0)
					rc = apply(g, cur_v, NULL, cur_key->name, val, &data_loc, &cur_failed, d);
				if (cur_v >= 0 && !cur_e)
					vfailed[cur_v] |= (uint8_t)cur_failed;
				cur_failed = 0;
				cur_key = NULL;
				free(data_text);
				data_text = NULL;
			} else if (strcmp(t.name, "default") == 0 && cur_def) {
				free(cur_def->dflt);
				cur_def->dflt = data_text ? data_text : fx_xstrdup("");
				data_text = NULL;
				cur_def = NULL;
			} else if (strcmp(t.name, "node") == 0) {
				cur_v = -1;
			} else if (strcmp(t.name, "edge") == 0) {
				cur_e = NULL;
			} else if (strcmp(t.name, "graph") == 0) {
				in_graph--;
			}
			if (rc)
				break;
			continue;
		}
		/* a start tag */
		int empty = t.empty;
		if (!empty)
			depth++;
		const char *nm = t.name;
		fx_loc at;
		if (!seen_root) {
			if (strcmp(nm, "graphml") != 0) {
				rc = fx_diag_error(d, &t.loc, "the root element is <%.40s>, not <graphml>: not a "
						   "GraphML file", nm);
				break;
			}
			seen_root = 1;
		} else if (strcmp(nm, "key") == 0) {
			/* keys come before the graph (GraphML's schema), so the data
			 * and defaults being read never see the table move */
			if (seen_graph || cur_def || cur_key || graph_key) {
				rc = fx_diag_error(d, &t.loc, "a <key> inside %s: keys are declared before the <graph>",
						   seen_graph ? "or after the <graph>" : "a <default> or <data>");
				break;
			}
			const char *id = fx_xml_attr(&t, "id", &at);
			const char *an = fx_xml_attr(&t, "attr.name", NULL);
			const char *fr = fx_xml_attr(&t, "for", NULL);
			if (!id) {
				rc = fx_diag_error(d, &t.loc, "a <key> without an id");
				break;
			}
			if (key_of(&s, id)) {
				rc = fx_diag_error(d, &at, "key '%.40s' is declared twice", id);
				break;
			}
			s.keys = fx_xrealloc(s.keys, (s.nkeys + 1) * sizeof *s.keys);
			s.keys[s.nkeys] = (gkey){fx_xstrdup(id), fx_xstrdup(an ? an : id), NULL,
						 fr && strcmp(fr, "edge") == 0};
			s.nkeys++;
		} else if (strcmp(nm, "default") == 0 && s.nkeys) {
			cur_def = &s.keys[s.nkeys - 1];
			free(data_text);
			data_text = NULL;
		} else if (strcmp(nm, "graph") == 0) {
			if (seen_graph) {
				rc = fx_diag_error(d, &t.loc, "a second or nested <graph>: a fabric is one graph");
				break;
			}
			const char *ed = fx_xml_attr(&t, "edgedefault", &at);
			if (ed && strcmp(ed, "undirected") != 0)
				fx_imp_assume(g, "assumed: the file's edges are directed (edgedefault=\"%s\"); "
					      "each is read as a link in both directions", ed);
			seen_graph = 1;
			in_graph++;
		} else if (strcmp(nm, "node") == 0) {
			if (!in_graph) {
				rc = fx_diag_error(d, &t.loc, "a <node> outside the <graph>");
				break;
			}
			const char *id = fx_xml_attr(&t, "id", &at);
			if (!id) {
				rc = fx_diag_error(d, &t.loc, "a <node> without an id");
				break;
			}
			cur_v = fx_imp_vertex(g, id, t.loc);
			vfailed = fx_xrealloc(vfailed, g->nv);
			vfailed[cur_v] = 0;
			/* defaults of node keys */
			for (size_t k = 0; k < s.nkeys && rc == 0; k++)
				if (!s.keys[k].edge && s.keys[k].dflt)
					rc = apply(g, cur_v, NULL, s.keys[k].name, s.keys[k].dflt, &t.loc,
						   &cur_failed, d);
			if (empty)
				cur_v = -1;
		} else if (strcmp(nm, "edge") == 0) {
			if (!in_graph) {
				rc = fx_diag_error(d, &t.loc, "an <edge> outside the <graph>");
				break;
			}
			fx_loc sl, dl;
			const char *a = fx_xml_attr(&t, "source", &sl), *b = fx_xml_attr(&t, "target", &dl);
			if (!a || !b) {
				rc = fx_diag_error(d, &t.loc, "an <edge> without %s", !a ? "a source" : "a target");
				break;
			}
			if (npe == cappe)
				pe = fx_xrealloc(pe, (cappe = cappe ? 2 * cappe : 64) * sizeof *pe);
			pend_edge *e = &pe[npe++];
			memset(e, 0, sizeof *e);
			e->src = fx_xstrdup(a);
			e->dst = fx_xstrdup(b);
			e->loc = t.loc;
			e->sloc = sl;
			e->dloc = dl;
			e->l.count = 1;
			e->l.bw = e->l.lat = -1;
			e->l.medium = -1;
			e->l.bundle = -1;
			e->l.loc = t.loc;
			for (size_t k = 0; k < s.nkeys && rc == 0; k++)
				if (s.keys[k].edge && s.keys[k].dflt)
					rc = apply(g, -1, &e->l, s.keys[k].name, s.keys[k].dflt, &t.loc, &e->failed, d);
			cur_e = empty ? NULL : e;
		} else if (strcmp(nm, "data") == 0) {
			const char *k = fx_xml_attr(&t, "key", &at);
			const gkey *gk = k ? key_of(&s, k) : NULL;
			if (!gk) {
				rc = fx_diag_error(d, k ? &at : &t.loc, k ? "<data> names key '%.40s', which no "
						   "<key> declares" : "a <data> without a key", k);
				break;
			}
			if (cur_v >= 0 || cur_e) {
				cur_key = gk;
				data_loc = t.loc;
				free(data_text);
				data_text = NULL;
				if (empty) {   /* <data key="x"/>: the empty value */
					rc = cur_e ? apply(g, -1, &cur_e->l, gk->name, "", &t.loc, &cur_e->failed, d)
						   : apply(g, cur_v, NULL, gk->name, "", &t.loc, &cur_failed, d);
					cur_key = NULL;
				}
			} else {
				other_data = !empty;
				graph_key = gk;
				free(data_text);
				data_text = NULL;
			}
		} else if (strcmp(nm, "hyperedge") == 0 || strcmp(nm, "port") == 0) {
			rc = fx_diag_error(d, &t.loc, "<%s> is not a fabric's: links join two vertices", nm);
			break;
		}
		if (rc)
			break;
	}
	if (rc == 0 && !seen_graph)
		rc = fx_diag_error(d, &t.loc, "no <graph> in the file");
	/* failed vertices are left out with their links (the spec is the
	 * degraded fabric: a custom graph holds no vertex without links) */
	size_t vgone = 0;
	char **gone = NULL;
	if (rc == 0) {
		size_t m = 0;
		gone = fx_xmalloc((g->nv ? g->nv : 1) * sizeof *gone);
		for (size_t i = 0; i < g->nv; i++) {
			if (vfailed[i]) {
				gone[vgone] = g->v[i].key;
				free(g->v[i].name);
				free(g->v[i].role);
				vgone++;
				continue;
			}
			g->v[m++] = g->v[i];
		}
		g->nv = m;
		if (vgone)
			fx_imp_assume(g, "%zu vertices the file marks failed are left out", vgone);
	}
	if (rc == 0)
		rc = fx_imp_index(g, d);
	/* edges, now that every node is known; failed ones and those of
	 * failed nodes are left out */
	size_t dropped = 0;
	for (size_t i = 0; i < npe && rc == 0; i++) {
		int64_t a = fx_imp_find(g, pe[i].src), b = fx_imp_find(g, pe[i].dst);
		int end_gone = 0;   /* an end the file marks failed */
		for (size_t k = 0; k < vgone && (a < 0 || b < 0) && !end_gone; k++)
			end_gone = strcmp(gone[k], a < 0 ? pe[i].src : pe[i].dst) == 0;
		if (end_gone) {
			dropped++;
			continue;
		}
		if (a < 0 || b < 0) {
			rc = fx_diag_error(d, a < 0 ? &pe[i].sloc : &pe[i].dloc, "the edge's %s '%.64s' is "
					   "no <node>'s id", a < 0 ? "source" : "target",
					   a < 0 ? pe[i].src : pe[i].dst);
			break;
		}
		if (pe[i].failed) {
			dropped++;
			continue;
		}
		fx_imp_link *l = fx_imp_link_add(g, a < b ? a : b, a < b ? b : a, pe[i].loc);
		int64_t keep_a = l->a, keep_b = l->b;
		*l = pe[i].l;
		l->a = keep_a;
		l->b = keep_b;
	}
	if (rc == 0 && dropped)
		fx_imp_assume(g, "%zu links the file marks failed (or whose ends failed) are left out: this "
			      "spec is the degraded fabric", dropped);
	for (size_t i = 0; i < npe; i++) {
		free(pe[i].src);
		free(pe[i].dst);
	}
	free(pe);
	for (size_t k = 0; k < vgone; k++)
		free(gone[k]);
	free(gone);
	free(vfailed);
	free(data_text);
	for (size_t i = 0; i < s.nkeys; i++) {
		free(s.keys[i].id);
		free(s.keys[i].name);
		free(s.keys[i].dflt);
	}
	free(s.keys);
	fx_xml_tok_release(&t);
	(void)depth;
	return rc;
}
