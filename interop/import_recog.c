/*
 * Recognition: an imported graph that is a torus, a mesh, a k-ary or
 * two-tier fat-tree, or one NVSwitch domain is written as that kind's spec
 * rather than as a `custom` one.
 *
 * Nothing is guessed.  Cheap invariants of the file's graph (its counts of
 * devices, switches and CPUs, its degrees and multiplicities) propose
 * candidate parameters; each candidate is the spec text that would be
 * written, built by fabric/'s own builder, and it is accepted only when
 * bliss finds the built fabric isomorphic to the file's graph, with vertex
 * types as vertex colours and each pair's links (how many, bandwidth,
 * latency, medium) as an edge colour, so a near miss with the same degrees
 * (a twisted torus) stays custom.  The first candidate found isomorphic
 * wins; they are tried in a fixed order (fewer dimensions first, a torus
 * before a mesh, dimensions ascending), so a graph that two kinds build (a
 * 4-ring is a torus [4] and a 2 x 2 mesh) is always written the same way.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../core/xalloc.h"
#include "../fabric/fabric.h"
#include "import_internal.h"

/* past these the search is not tried (said in the recognition sentence):
 * bliss on a 2-D grid's 65k vertices takes well under a second */
#define RECOG_MAX_VERTICES (1 << 17)
#define RECOG_MAX_TRIES 64

/* A link class: what one physical link is. */
typedef struct rclass {
	double bw, lat;
	int medium;
} rclass;

/* One pair of vertices and every link between them. */
typedef struct rpair {
	int64_t a, b;       /* a < b */
	int64_t count;
	rclass c;
} rpair;

/* A graph as the comparison sees it. */
typedef struct rgraph {
	int64_t nv;
	int *vcol;          /* fx_vtype */
	rpair *p;
	size_t np;
} rgraph;

static int pair_cmp(const void *x, const void *y)
{
	const rpair *a = x, *b = y;
	if (a->a != b->a)
		return a->a < b->a ? -1 : 1;
	if (a->b != b->b)
		return a->b < b->b ? -1 : 1;
	return 0;
}

static int class_eq(const rclass *a, const rclass *b)
{
	return a->bw == b->bw && a->lat == b->lat && a->medium == b->medium;
}

/* Sorts the pairs and merges each pair's links; -1 when one pair has
 * links of two classes (no kind builds that). */
static int pairs_merge(rgraph *r)
{
	if (r->np)
		qsort(r->p, r->np, sizeof *r->p, pair_cmp);
	size_t m = 0;
	for (size_t i = 0; i < r->np; i++) {
		if (m && r->p[m - 1].a == r->p[i].a && r->p[m - 1].b == r->p[i].b) {
			if (!class_eq(&r->p[m - 1].c, &r->p[i].c))
				return -1;
			r->p[m - 1].count += r->p[i].count;
			continue;
		}
		r->p[m++] = r->p[i];
	}
	r->np = m;
	return 0;
}

static void rgraph_release(rgraph *r)
{
	free(r->vcol);
	free(r->p);
	memset(r, 0, sizeof *r);
}

static void add_pair(rgraph *r, size_t *cap, int64_t a, int64_t b, int64_t count, rclass c)
{
	if (r->np == *cap) {
		*cap = *cap ? 2 * *cap : 64;
		r->p = fx_xrealloc(r->p, *cap * sizeof *r->p);
	}
	r->p[r->np++] = (rpair){a < b ? a : b, a < b ? b : a, count, c};
}

/* The file's graph, what it does not give resolved as the custom spec
 * would resolve it (--bandwidth, --latency, copper). */
static int from_import(const fx_imp_graph *g, const fx_import_opts *o, rgraph *r)
{
	size_t cap = 0;
	r->nv = (int64_t)g->nv;
	r->vcol = fx_xmalloc((g->nv ? g->nv : 1) * sizeof *r->vcol);
	for (size_t i = 0; i < g->nv; i++)
		r->vcol[i] = g->v[i].type < 0 ? FX_V_DEVICE : g->v[i].type;
	for (size_t i = 0; i < g->nl; i++) {
		const fx_imp_link *l = &g->l[i];
		rclass c = {l->bw < 0 ? o->bandwidth : l->bw, l->lat < 0 ? o->latency : l->lat,
			    l->medium < 0 ? FX_MEDIUM_COPPER : l->medium};
		add_pair(r, &cap, l->a, l->b, l->count, c);
	}
	return pairs_merge(r);
}

static int from_fabric(const fx_fabric *f, rgraph *r)
{
	size_t cap = 0;
	r->nv = f->nv;
	r->vcol = fx_xmalloc((size_t)(f->nv ? f->nv : 1) * sizeof *r->vcol);
	for (int64_t i = 0; i < f->nv; i++)
		r->vcol[i] = f->v[i].type;
	for (int64_t e = 0; e < f->ne; e++) {
		rclass c = {f->e[e].bw, f->e[e].lat, f->e[e].medium};
		add_pair(r, &cap, f->ends[2 * e], f->ends[2 * e + 1], f->e[e].count, c);
	}
	return pairs_merge(r);
}

/* The edge colour of a pair: its index in a table of (count, class)
 * shared by both graphs. */
typedef struct rcolours {
	rpair *t;
	size_t n, cap;
} rcolours;

static int colour_of(rcolours *k, const rpair *p)
{
	for (size_t i = 0; i < k->n; i++)
		if (k->t[i].count == p->count && class_eq(&k->t[i].c, &p->c))
			return (int)i;
	if (k->n == k->cap) {
		k->cap = k->cap ? 2 * k->cap : 8;
		k->t = fx_xrealloc(k->t, k->cap * sizeof *k->t);
	}
	k->t[k->n] = *p;
	return (int)k->n++;
}

/* g as an igraph graph for bliss: one vertex per vertex, coloured by type;
 * when the pairs are of several colours, each pair is a path through a
 * vertex of its own colour (3 + the pair's), which keeps isomorphism
 * exact: a map of the subdivided graphs maps pairs to pairs of the same
 * colour, and bliss takes vertex colours only. */
static void to_igraph(const rgraph *r, const int *pcol, int split, igraph_t *ig,
		      igraph_vector_int_t *col)
{
	int64_t nv = r->nv + (split ? (int64_t)r->np : 0);
	igraph_vector_int_t ed;
	fx_igraph_alloc(igraph_vector_int_init(&ed, 0));
	fx_igraph_alloc(igraph_vector_int_reserve(&ed, (igraph_integer_t)(r->np * (split ? 4 : 2))));
	fx_igraph_alloc(igraph_vector_int_init(col, (igraph_integer_t)nv));
	for (int64_t i = 0; i < r->nv; i++)
		VECTOR(*col)[i] = r->vcol[i];
	for (size_t i = 0; i < r->np; i++) {
		if (!split) {
			igraph_vector_int_push_back(&ed, r->p[i].a);
			igraph_vector_int_push_back(&ed, r->p[i].b);
			continue;
		}
		igraph_integer_t mid = (igraph_integer_t)(r->nv + (int64_t)i);
		VECTOR(*col)[mid] = 3 + pcol[i];
		igraph_vector_int_push_back(&ed, r->p[i].a);
		igraph_vector_int_push_back(&ed, mid);
		igraph_vector_int_push_back(&ed, mid);
		igraph_vector_int_push_back(&ed, r->p[i].b);
	}
	fx_igraph_alloc(igraph_create(ig, &ed, (igraph_integer_t)nv, IGRAPH_UNDIRECTED));
	igraph_vector_int_destroy(&ed);
}

/* 1 when a and b are isomorphic under the colours, 0 when not (or bliss
 * failed: then nothing is claimed). */
static int isomorphic(const rgraph *a, const rgraph *b)
{
	if (a->nv != b->nv || a->np != b->np)
		return 0;
	rcolours k = {0};
	int *ca = fx_xmalloc((a->np ? a->np : 1) * sizeof *ca);
	int *cb = fx_xmalloc((b->np ? b->np : 1) * sizeof *cb);
	for (size_t i = 0; i < a->np; i++)
		ca[i] = colour_of(&k, &a->p[i]);
	for (size_t i = 0; i < b->np; i++)
		cb[i] = colour_of(&k, &b->p[i]);
	int split = k.n > 1;
	free(k.t);
	igraph_t ga, gb;
	igraph_vector_int_t cola, colb;
	to_igraph(a, ca, split, &ga, &cola);
	to_igraph(b, cb, split, &gb, &colb);
	igraph_bool_t iso = 0;
	igraph_error_t err = igraph_isomorphic_bliss(&ga, &gb, &cola, &colb, &iso, NULL, NULL,
						     IGRAPH_BLISS_FL, NULL, NULL);
	igraph_destroy(&ga);
	igraph_destroy(&gb);
	igraph_vector_int_destroy(&cola);
	igraph_vector_int_destroy(&colb);
	free(ca);
	free(cb);
	return err == IGRAPH_SUCCESS && iso;
}

typedef struct name_ix {
	const char *name;
	int64_t v;
} name_ix;

static int name_cmp(const void *x, const void *y)
{
	return strcmp(((const name_ix *)x)->name, ((const name_ix *)y)->name);
}

/* Is naming each file vertex by the fabric's vertex of the same name an
 * isomorphism?  Then the file's names are the kind's own; out->attrs_differ
 * says which of the file's attributes the built vertices do not share. */
static void names_check(const fx_imp_graph *g, const rgraph *file, const fx_fabric *f,
			const rgraph *built, fx_imp_recog *out)
{
	size_t n = (size_t)f->nv;
	name_ix *ix = fx_xmalloc((n ? n : 1) * sizeof *ix);
	char (*buf)[64] = fx_xmalloc((n ? n : 1) * sizeof *buf);
	int64_t *map = fx_xmalloc((n ? n : 1) * sizeof *map);
	for (size_t v = 0; v < n; v++) {
		ix[v].name = fx_fabric_vertex_name(f, (int64_t)v, buf[v], sizeof buf[v]);
		ix[v].v = (int64_t)v;
	}
	qsort(ix, n, sizeof *ix, name_cmp);
	int ok = 1;
	for (size_t v = 1; v < n && ok; v++)
		ok = strcmp(ix[v - 1].name, ix[v].name) != 0;
	for (size_t i = 0; i < g->nv && ok; i++) {
		name_ix key = {g->v[i].name ? g->v[i].name : g->v[i].key, 0};
		const name_ix *hit = bsearch(&key, ix, n, sizeof *ix, name_cmp);
		ok = hit && f->v[hit->v].type == file->vcol[i];
		map[i] = hit ? hit->v : -1;
	}
	/* the names are a bijection (distinct on both sides, as many): every
	 * file pair must be a built pair of the same links */
	for (size_t i = 0; i < file->np && ok; i++) {
		int64_t a = map[file->p[i].a], b = map[file->p[i].b];
		rpair key = {a < b ? a : b, a < b ? b : a, 0, {0, 0, 0}};
		const rpair *hit = bsearch(&key, built->p, built->np, sizeof *built->p, pair_cmp);
		ok = hit && hit->count == file->p[i].count && class_eq(&hit->c, &file->p[i].c);
	}
	out->names_kept = ok;
	for (size_t i = 0; i < g->nv && ok; i++) {
		const fx_imp_vertex_t *x = &g->v[i];
		const fx_vertex *y = &f->v[map[i]];
		const fx_role *role = y->role >= 0 ? &f->roles[y->role] : NULL;
		if (x->node >= 0 && x->node != y->node)
			out->attrs_differ |= FX_IMP_NODE;
		if (x->plane >= 0 && x->plane != y->plane)
			out->attrs_differ |= FX_IMP_PLANE;
		if (x->type == FX_V_SWITCH && x->role && *x->role && (!role || strcmp(x->role, role->name)))
			out->attrs_differ |= FX_IMP_ROLE;
		if (x->type == FX_V_SWITCH && x->tier >= 1 && (!role || x->tier != role->tier))
			out->attrs_differ |= FX_IMP_TIER;
	}
	free(ix);
	free(buf);
	free(map);
}

/* Builds the candidate spec's fabric and compares it with the file's
 * graph: 1 isomorphic, 0 not (or the builder refused the candidate). */
static int candidate_matches(const char *body, const fx_imp_graph *g, const rgraph *file,
			     double max_bytes, fx_imp_recog *out)
{
	char *text = fx_xasprintf("name: candidate\nfabric:\n%s", body);
	fx_diag d;
	fx_diag_init(&d);
	d.out = NULL;
	d.max_shown = 0;
	fx_spec s;
	int ok = 0;
	if (fx_spec_load_text(&s, "candidate", text, &d) == 0) {
		fx_fabric f;
		if (fx_fabric_build(&f, &s, max_bytes, &d) == 0) {
			rgraph r = {0};
			ok = from_fabric(&f, &r) == 0 && isomorphic(&r, file);
			if (ok)
				names_check(g, file, &f, &r, out);
			rgraph_release(&r);
			fx_fabric_release(&f);
		}
		fx_spec_release(&s);
	}
	fx_diag_release(&d);
	free(text);
	return ok;
}

/* "{bandwidth: .., latency: .., medium: ..}" */
static void link_map(const rclass *c, char *buf, size_t cap)
{
	static const char *const media[] = {"copper", "optical", "silicon"};
	char q1[64], q2[64];
	snprintf(buf, cap, "{bandwidth: %s, latency: %s, medium: %s}",
		 fx_imp_qty(c->bw, FX_UNIT_BANDWIDTH, q1), fx_imp_qty(c->lat, FX_UNIT_TIME, q2),
		 media[c->medium]);
}

typedef struct recog_ctx {
	fx_imp_graph *g;
	const rgraph *r;
	int64_t *deg;        /* physical links per vertex */
	int64_t *sdeg;       /* neighbours per vertex */
	int64_t ndev, nsw, ncpu;
	int tries;
	double max_bytes;
	fx_imp_recog *out;
} recog_ctx;

/* Tries one candidate; 1 when it is the graph (out is filled). */
static int try_body(recog_ctx *x, const char *kind, char *body, const char *what)
{
	if (x->tries >= RECOG_MAX_TRIES) {
		free(body);
		return 0;
	}
	x->tries++;
	if (!candidate_matches(body, x->g, x->r, x->max_bytes, x->out)) {
		free(body);
		return 0;
	}
	x->out->kind = kind;
	x->out->fabric = body;
	x->out->why = fx_xasprintf("the file's graph is isomorphic to the fabric fabricx's %s "
				   "builder makes from %s (bliss, vertex types and every pair's links "
				   "compared; %d candidate%s tried)", kind, what, x->tries,
				   x->tries == 1 ? "" : "s");
	return 1;
}

/* ---- torus and mesh ---- */

typedef struct lat_cand {
	int n;
	int64_t d[FX_MAX_DIMS];
} lat_cand;

static void partitions(int64_t n, int64_t minf, lat_cand *cur, lat_cand **out, size_t *nout,
		       size_t *cap)
{
	if (cur->n == FX_MAX_DIMS || *nout >= 4096)
		return;
	/* n itself as the last factor, then every factor f <= sqrt(n) before
	 * the rest (factors non-decreasing) */
	if (n >= minf) {
		if (*nout == *cap) {
			*cap = *cap ? 2 * *cap : 64;
			*out = fx_xrealloc(*out, *cap * sizeof **out);
		}
		(*out)[*nout] = *cur;
		(*out)[*nout].d[(*out)[*nout].n++] = n;
		(*nout)++;
	}
	for (int64_t f = minf; f * f <= n; f++) {
		if (n % f)
			continue;
		cur->d[cur->n++] = f;
		partitions(n / f, f, cur, out, nout, cap);
		cur->n--;
	}
}

static int lat_cmp(const void *x, const void *y)
{
	const lat_cand *a = x, *b = y;
	if (a->n != b->n)
		return a->n < b->n ? -1 : 1;
	for (int i = 0; i < a->n; i++)
		if (a->d[i] != b->d[i])
			return a->d[i] < b->d[i] ? -1 : 1;
	return 0;
}

/* The candidate's neighbour-count histogram (hist[0 .. 2n]) and pairs. */
static void lat_hist(const lat_cand *c, int wrap, int64_t *hist, int64_t *pairs)
{
	int64_t h[2 * FX_MAX_DIMS + 1] = {1}, t[2 * FX_MAX_DIMS + 1];
	int64_t N = 1;
	for (int i = 0; i < c->n; i++)
		N *= c->d[i];
	*pairs = 0;
	for (int i = 0; i < c->n; i++) {
		int64_t k = c->d[i], one, two;  /* positions with 1 and 2 neighbours */
		if (k == 2) {
			one = 2, two = 0;
		} else if (wrap) {
			one = 0, two = k;
		} else {
			one = 2, two = k - 2;
		}
		*pairs += N / k * (k - 1 + (wrap && k > 2));
		memset(t, 0, sizeof t);
		for (int j = 0; j <= 2 * FX_MAX_DIMS; j++) {
			if (!h[j])
				continue;
			if (j + 1 <= 2 * FX_MAX_DIMS)
				t[j + 1] += h[j] * one;
			if (j + 2 <= 2 * FX_MAX_DIMS)
				t[j + 2] += h[j] * two;
		}
		memcpy(h, t, sizeof h);
	}
	memcpy(hist, h, sizeof h);
}

static int try_lattice(recog_ctx *x)
{
	const rgraph *r = x->r;
	if (x->nsw || x->ncpu || r->np == 0)
		return 0;
	for (size_t i = 1; i < r->np; i++)
		if (r->p[i].count != r->p[0].count || !class_eq(&r->p[i].c, &r->p[0].c))
			return 0;   /* a lattice's links are all alike here */
	int64_t hist[2 * FX_MAX_DIMS + 1] = {0};
	for (int64_t v = 0; v < r->nv; v++) {
		if (x->sdeg[v] > 2 * FX_MAX_DIMS)
			return 0;
		hist[x->sdeg[v]]++;
	}
	lat_cand cur = {0}, *c = NULL;
	size_t nc = 0, cap = 0;
	partitions(r->nv, 2, &cur, &c, &nc, &cap);
	if (nc)
		qsort(c, nc, sizeof *c, lat_cmp);
	char lm[200];
	link_map(&r->p[0].c, lm, sizeof lm);
	int found = 0;
	for (size_t i = 0; i < nc && !found; i++)
		for (int wrap = 1; wrap >= 0 && !found; wrap--) {
			int all2 = 1;
			for (int j = 0; j < c[i].n; j++)
				all2 &= c[i].d[j] <= 2;
			if (!wrap && all2)
				continue;   /* the same graph as the torus just tried */
			int64_t h[2 * FX_MAX_DIMS + 1], pairs;
			lat_hist(&c[i], wrap, h, &pairs);
			if (pairs != (int64_t)r->np || memcmp(h, hist, sizeof h) != 0)
				continue;
			char dims[FX_MAX_DIMS * 24 + 4];
			size_t n = 0;
			for (int j = 0; j < c[i].n; j++)
				n += (size_t)snprintf(dims + n, sizeof dims - n, "%s%lld", j ? ", " : "[",
						      (long long)c[i].d[j]);
			snprintf(dims + n, sizeof dims - n, "]");
			char lpn[64] = "";
			if (r->p[0].count > 1)
				snprintf(lpn, sizeof lpn, "  links_per_neighbor: %lld\n",
					 (long long)r->p[0].count);
			const char *kind = wrap ? "torus" : "mesh";
			char *body = fx_xasprintf("  kind: %s\n  dims: %s\n%s  link: %s\n", kind, dims, lpn, lm);
			char what[sizeof dims + 16];
			snprintf(what, sizeof what, "dims %s", dims);
			found = try_body(x, kind, body, what);
		}
	free(c);
	return found;
}

/* ---- one NVSwitch domain ---- */

/* The ports of a switch: the most the file gives, or in use. */
static int64_t switch_ports(recog_ctx *x, int *assumed)
{
	int64_t most = 0, given = 0, ngiven = 0;
	for (int64_t v = 0; v < x->r->nv; v++) {
		if (x->r->vcol[v] != FX_V_SWITCH)
			continue;
		if (x->deg[v] > most)
			most = x->deg[v];
		if (x->g->v[v].ports >= 1) {
			ngiven++;
			if (x->g->v[v].ports > given)
				given = x->g->v[v].ports;
		}
	}
	*assumed = ngiven != x->nsw;
	return *assumed || given < most ? most : given;
}

static int try_nvswitch(recog_ctx *x)
{
	const rgraph *r = x->r;
	if (x->ndev == 0 || x->nsw == 0 || (x->ncpu && (x->ndev % x->ncpu || x->g->cpus_relay == 1)))
		return 0;
	rclass dl = {0}, cl = {0};
	int have_dl = 0, have_cl = 0;
	for (size_t i = 0; i < r->np; i++) {
		int ta = r->vcol[r->p[i].a], tb = r->vcol[r->p[i].b];
		if (ta + tb == FX_V_DEVICE + FX_V_SWITCH && ta != tb) {
			if (have_dl && !class_eq(&dl, &r->p[i].c))
				return 0;
			dl = r->p[i].c, have_dl = 1;
		} else if (ta + tb == FX_V_DEVICE + FX_V_CPU && ta != tb && r->p[i].count == 1) {
			if (have_cl && !class_eq(&cl, &r->p[i].c))
				return 0;
			cl = r->p[i].c, have_cl = 1;
		} else {
			return 0;   /* switch-switch, device-device, cpu-switch: not one domain */
		}
	}
	if (!have_dl)
		return 0;
	/* links from the first device to each switch, switches in file order */
	int64_t dev0 = -1;
	for (int64_t v = 0; v < r->nv && dev0 < 0; v++)
		if (r->vcol[v] == FX_V_DEVICE)
			dev0 = v;
	int64_t *to = fx_xcalloc((size_t)r->nv, sizeof *to), links = 0;
	for (size_t i = 0; i < r->np; i++)
		if (r->p[i].a == dev0 || r->p[i].b == dev0) {
			int64_t o = r->p[i].a == dev0 ? r->p[i].b : r->p[i].a;
			if (r->vcol[o] == FX_V_SWITCH)
				to[o] += r->p[i].count, links += r->p[i].count;
		}
	size_t cap = 32 + (size_t)x->nsw * 12, n = 0;
	char *lts = fx_xmalloc(cap);
	for (int64_t v = 0, j = 0; v < r->nv; v++)
		if (r->vcol[v] == FX_V_SWITCH)
			n += (size_t)snprintf(lts + n, cap - n, "%s%lld", j++ ? ", " : "[", (long long)to[v]);
	snprintf(lts + n, cap - n, "]");
	free(to);
	int assumed;
	int64_t ports = switch_ports(x, &assumed);
	char lm[200], cm[512] = "";
	link_map(&dl, lm, sizeof lm);
	if (x->ncpu) {
		char c[200];
		link_map(have_cl ? &cl : &dl, c, sizeof c);
		snprintf(cm, sizeof cm, "  cpus: %lld\n  cpu_link: %s\n", (long long)x->ncpu, c);
	}
	char *body = fx_xasprintf("  kind: nvswitch\n  devices: %lld\n  switches: %lld\n"
				  "  switch_ports: %lld\n  device_links: %lld\n  links_to_switch: %s\n"
				  "%s  link: %s\n", (long long)x->ndev, (long long)x->nsw,
				  (long long)ports, (long long)links, lts, cm, lm);
	char *what = fx_xasprintf("%lld GPUs on %lld chips by %s links", (long long)x->ndev,
				  (long long)x->nsw, lts);
	free(lts);
	int found = try_body(x, "nvswitch", body, what);
	free(what);
	if (found && assumed)
		x->out->assumed_ports = ports;
	return found;
}

/* ---- fat-trees ---- */

/* Level of each vertex: devices 0, a switch one more than the nearest
 * device (a leaf 1); -1 when some vertex is not reached. */
static int levels(recog_ctx *x, int64_t *lev)
{
	const rgraph *r = x->r;
	int64_t *q = fx_xmalloc((size_t)r->nv * sizeof *q), qh = 0, qt = 0;
	for (int64_t v = 0; v < r->nv; v++) {
		lev[v] = r->vcol[v] == FX_V_DEVICE ? 0 : -1;
		if (!lev[v])
			q[qt++] = v;
	}
	/* adjacency from the sorted pairs, both ways */
	int64_t *off = fx_xcalloc((size_t)r->nv + 1, sizeof *off), *adj;
	for (size_t i = 0; i < r->np; i++)
		off[r->p[i].a + 1]++, off[r->p[i].b + 1]++;
	for (int64_t v = 0; v < r->nv; v++)
		off[v + 1] += off[v];
	adj = fx_xmalloc((size_t)(off[r->nv] ? off[r->nv] : 1) * sizeof *adj);
	int64_t *fill = fx_xmalloc((size_t)r->nv * sizeof *fill);
	memcpy(fill, off, (size_t)r->nv * sizeof *fill);
	for (size_t i = 0; i < r->np; i++) {
		adj[fill[r->p[i].a]++] = r->p[i].b;
		adj[fill[r->p[i].b]++] = r->p[i].a;
	}
	while (qh < qt) {
		int64_t v = q[qh++];
		for (int64_t k = off[v]; k < off[v + 1]; k++)
			if (lev[adj[k]] < 0) {
				lev[adj[k]] = lev[v] + 1;
				q[qt++] = adj[k];
			}
	}
	free(q);
	free(off);
	free(adj);
	free(fill);
	return qt == r->nv ? 0 : -1;
}

static int try_fattree(recog_ctx *x)
{
	const rgraph *r = x->r;
	if (x->ndev == 0 || x->nsw == 0 || x->ncpu)
		return 0;
	int64_t *lev = fx_xmalloc((size_t)r->nv * sizeof *lev);
	int found = 0, top = 0;
	rclass tc[3];
	int have[3] = {0, 0, 0};
	if (levels(x, lev))
		goto out;
	for (int64_t v = 0; v < r->nv; v++) {
		if (r->vcol[v] == FX_V_DEVICE && x->deg[v] != 1)
			goto out;   /* a host has one link, to its leaf */
		if (lev[v] > top)
			top = (int)lev[v];
	}
	if (top < 2 || top > 3)
		goto out;
	for (size_t i = 0; i < r->np; i++) {
		int64_t t = lev[r->p[i].a] < lev[r->p[i].b] ? lev[r->p[i].a] : lev[r->p[i].b];
		if (lev[r->p[i].a] == lev[r->p[i].b] || t > 2)
			goto out;   /* links run between tiers */
		if (have[t] && !class_eq(&tc[t], &r->p[i].c))
			goto out;
		tc[t] = r->p[i].c, have[t] = 1;
	}
	char links[700];
	if ((top == 2 || class_eq(&tc[0], &tc[2])) && class_eq(&tc[0], &tc[1])) {
		char lm[200];
		link_map(&tc[0], lm, sizeof lm);
		snprintf(links, sizeof links, "  link: %s\n", lm);
	} else {
		char a[200], b[200], c[200] = "";
		link_map(&tc[0], a, sizeof a);
		link_map(&tc[1], b, sizeof b);
		if (top == 3)
			link_map(&tc[2], c, sizeof c);
		snprintf(links, sizeof links, "  tier_links:\n    - %s\n    - %s\n%s%s%s", a, b,
			 top == 3 ? "    - " : "", c, top == 3 ? "\n" : "");
	}
	/* the first host's leaf */
	int64_t leaf = -1, leaves = 0;
	for (size_t i = 0; i < r->np && leaf < 0; i++)
		if (lev[r->p[i].a] == 0 || lev[r->p[i].b] == 0)
			leaf = lev[r->p[i].a] == 0 ? r->p[i].b : r->p[i].a;
	for (int64_t v = 0; v < r->nv; v++)
		leaves += lev[v] == 1;
	if (leaf < 0 || x->ndev % leaves)
		goto out;
	if (top == 3) {
		/* k-ary: a leaf has k ports, k/2 down */
		int64_t k = x->deg[leaf], pods = k ? 4 * x->ndev / (k * k) : 0;
		if (k < 2 || k % 2 || pods < 1 || pods > k || pods * k * k / 4 != x->ndev ||
		    x->nsw != pods * k + k * k / 4)
			goto out;
		char pl[48] = "", what[64];
		if (pods < k)
			snprintf(pl, sizeof pl, "  pods: %lld\n", (long long)pods);
		char *body = fx_xasprintf("  kind: fat-tree\n  k: %lld\n%s%s", (long long)k, pl, links);
		snprintf(what, sizeof what, "k = %lld%s", (long long)k, pods < k ? " (some pods)" : "");
		found = try_body(x, "fat-tree", body, what);
		if (found) {
			/* a k-ary tree's chips have k ports */
			for (int64_t v = 0; v < r->nv; v++)
				if (x->g->v[v].ports > k) {
					fx_imp_lose(x->g, "switch ports: the file gives up to "
						    "%lld, a k-ary fat-tree's chips have k = %lld",
						    (long long)x->g->v[v].ports, (long long)k);
					break;
				}
		}
	} else {
		int64_t d = x->ndev / leaves, u = x->deg[leaf] - d, spines = x->nsw - leaves;
		if (u < 1 || spines < 1 || u % spines)
			goto out;
		int assumed;
		int64_t radix = switch_ports(x, &assumed);
		char *body = fx_xasprintf("  kind: fat-tree\n  tiers: 2\n  radix: %lld\n  hosts: %lld\n"
					  "  down_up: [%lld, %lld]\n  spines: %lld\n%s", (long long)radix,
					  (long long)x->ndev, (long long)d, (long long)u,
					  (long long)spines, links);
		char what[128];
		snprintf(what, sizeof what, "%lld leaves of %lld hosts and %lld uplinks, %lld spines",
			 (long long)leaves, (long long)d, (long long)u, (long long)spines);
		found = try_body(x, "fat-tree", body, what);
		if (found && assumed)
			x->out->assumed_ports = radix;
	}
out:
	free(lev);
	return found;
}

int fx_imp_recognise(fx_imp_graph *g, const fx_import_opts *o, fx_imp_recog *out)
{
	memset(out, 0, sizeof *out);
	if (g->nv > RECOG_MAX_VERTICES) {
		out->why = fx_xasprintf("not tried: the graph has %zu vertices, more than the %d "
					"recognition compares", g->nv, RECOG_MAX_VERTICES);
		return 0;
	}
	rgraph r = {0};
	if (from_import(g, o, &r)) {
		rgraph_release(&r);
		out->why = fx_xstrdup("no kind: two vertices are joined by links of different "
				      "bandwidth, latency or medium");
		return 0;
	}
	recog_ctx x = {.g = g, .r = &r, .out = out, .max_bytes = 4.0 * (1 << 30)};
	x.deg = fx_xcalloc((size_t)r.nv + 1, sizeof *x.deg);
	x.sdeg = fx_xcalloc((size_t)r.nv + 1, sizeof *x.sdeg);
	for (size_t i = 0; i < r.np; i++) {
		x.deg[r.p[i].a] += r.p[i].count;
		x.deg[r.p[i].b] += r.p[i].count;
		x.sdeg[r.p[i].a]++;
		x.sdeg[r.p[i].b]++;
	}
	for (int64_t v = 0; v < r.nv; v++) {
		x.ndev += r.vcol[v] == FX_V_DEVICE;
		x.nsw += r.vcol[v] == FX_V_SWITCH;
		x.ncpu += r.vcol[v] == FX_V_CPU;
	}
	if (!try_lattice(&x) && !try_nvswitch(&x) && !try_fattree(&x))
		out->why = x.tries
			   ? fx_xasprintf("no kind: %d candidate%s with the graph's counts and degrees "
					  "%s built, none isomorphic to it", x.tries, x.tries == 1 ? "" : "s",
					  x.tries == 1 ? "was" : "were")
			   : fx_xstrdup("no kind: no torus, mesh, fat-tree or NVSwitch domain has the "
					"graph's counts and degrees");
	free(x.deg);
	free(x.sdeg);
	rgraph_release(&r);
	return 0;
}

void fx_imp_recog_release(fx_imp_recog *r)
{
	free(r->fabric);
	free(r->why);
	memset(r, 0, sizeof *r);
}
