/*
 * The failures report: what losing one element does to the fabric (the
 * chapter "Supernodes" §6.7.2: a failure's scope depends on what shares
 * it).  For each class of alike switch chips, links, nodes, racks,
 * planes or power domains, one element is failed and the fabric measured
 * again: the max-flow across the canonical
 * bisection split, each device's bandwidth into the fabric (the worst
 * device's share kept), and the blast radius: devices slowed, and devices
 * cut off.  Elements are alike only when an automorphism of the fabric
 * that has been checked maps one onto the other and keeps the split (its
 * sides may swap), the workload's instances and, for nodes, racks,
 * planes and power domains, those units (fabric/orbit.c: the kind's own
 * candidates and igraph's automorphism group, each checked): one of each
 * class is evaluated and stands for the rest, so the numbers are those
 * every element would give.  `--all` evaluates every element instead
 * (the brute force tests/cli/fail.sh compares against); past
 * FX_MAX_FAILURE_WORK the run is not decided (exit 4).
 * `--kind node|rack|plane|power` fails a node, rack, switch plane or power
 * domain (packaging.nodes_per_power_domain) with all it holds, `--fail
 * SEL` any set a selector picks.  With a workload, the blast radius
 * also counts the instances of its placement on the intact fabric that a
 * failure slows or cuts off.
 *
 * `--k 2` fails every pair of elements of the kind instead (every chip,
 * every physical link, every node ...: pairs are not reduced by symmetry),
 * or, past `--sample N` pairs (default 100), N distinct pairs drawn by
 * SplitMix64 from `--seed` (default 1), so a run is repeatable.  Every run
 * ends with a summary: the worst, median and mean of what is kept (each
 * row weighted by the elements it stands for).
 *
 * Failures go through the fabric's failure mask (fabric/fail.c), on top of
 * the spec's own `failures:` (the baseline is the fabric as the spec
 * leaves it); a lost physical link of a bundle of several lowers the
 * bundle's count while it is measured.
 *
 * Checks in the manner of the chapter "Supernodes" (tests/cli/run.sh): a
 * k=4 fat-tree losing one of its 4 core switches keeps 3/4 of its
 * bisection; CloudMatrix384 losing one of a plane's 16 L2 chips loses 1/16
 * of that plane's share; NVL72 losing one of its 18 switch chips loses 1/18 of each GPU's bandwidth.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../core/limits.h"
#include "../core/units.h"
#include "../core/xalloc.h"
#include "report.h"

/* One run: the design it fails elements of (its failure mask changes
 * while a failure is measured, and is put back), where its tables and
 * errors go, and the workload's placement on the intact fabric: instance
 * of each device (-1: none), so a failure's blast radius counts
 * instances. */
typedef struct failctx {
	fx_design *ds;
	fx_diag *d;
	fx_sink *out;
	const char *spec;  /* for messages */
	int64_t *instance_of;
} failctx;

typedef struct measure {
	double bisection;      /* bytes/s across the canonical split */
	double worst_inject;   /* least bandwidth of a device into the fabric */
	double mean_inject;
	double *each;          /* [nv] each device's bandwidth into the fabric */
	uint8_t *reach;        /* [ndev] joined to the rest (fx_fabric_reachable) */
} measure;

/* Bandwidth a device reaches the other devices with: the sum of its links
 * to anything but CPUs (a host's link feeds that host, not the fabric).
 * sum[v] is left for the caller, who frees it. */
static void inject(const fx_fabric *f, double *worst, double *mean, double **each)
{
	double *sum = fx_xcalloc((size_t)f->nv + 1, sizeof *sum);
	for (int64_t e = 0; e < f->ne; e++)
		for (int k = 0; k < 2 && fx_fabric_edge_up(f, e); k++)
			if (f->v[f->ends[2 * e + 1 - k]].type != FX_V_CPU)
				sum[f->ends[2 * e + k]] += f->e[e].bw * f->e[e].count;
	*worst = INFINITY;
	*mean = 0;
	int64_t n = 0;
	for (int64_t v = 0; v < f->nv; v++) {
		if (f->v[v].type != FX_V_DEVICE)
			continue;
		if (sum[v] < *worst)
			*worst = sum[v];
		*mean += sum[v];
		n++;
	}
	*mean = n ? *mean / (double)n : 0;
	*each = sum;
}

static int measure_now(failctx *c, const uint8_t *side, measure *m)
{
	fx_cut cut;
	if (fx_route_cut(&c->ds->fab, side, &cut, c->d))
		return -1;
	m->bisection = cut.bandwidth;
	inject(&c->ds->fab, &m->worst_inject, &m->mean_inject, &m->each);
	/* reach rides in each's allocation: one free for both */
	const fx_fabric *f = &c->ds->fab;
	m->each = fx_xrealloc(m->each, (size_t)(f->nv + 1) * sizeof *m->each + (size_t)f->ndev + 1);
	m->reach = (uint8_t *)(m->each + f->nv + 1);
	fx_fabric_reachable(f, m->reach);
	return 0;
}

/* Fails the vertices sel marks (may be NULL) and lost[e] physical links
 * of each bundle (may be NULL; a bundle losing all its links fails),
 * measures, and puts the fabric back as it was. */
static int measure_failed(failctx *c, const uint8_t *side, const uint8_t *sel, const int32_t *lost,
			  measure *m)
{
	fx_fabric *f = &c->ds->fab;
	fx_fail_saved keep;
	fx_fabric_fail_save(f, &keep);
	uint8_t *dead = fx_xcalloc((size_t)f->ne + 1, 1);
	int32_t *count = fx_xmalloc((size_t)(f->ne + 1) * sizeof *count);
	for (int64_t e = 0; e < f->ne; e++) {
		count[e] = f->e[e].count;
		if (lost && lost[e] >= f->e[e].count)
			dead[e] = 1;
		else if (lost)
			f->e[e].count -= lost[e];
	}
	fx_fabric_fail_mark(f, sel, dead);
	int rc = measure_now(c, side, m);
	for (int64_t e = 0; e < f->ne; e++)
		f->e[e].count = count[e];
	fx_fabric_fail_restore(f, &keep);
	free(count);
	free(dead);
	return rc;
}

typedef struct row {
	char what[400];
	int64_t equivalent;    /* elements this row stands for */
	measure m;             /* its arrays freed once kept: hit() has counted them */
	int64_t slower, cut_off, instances;
	double rank;           /* bisection kept, then worst device kept: lower is graver */
} row;

/* The rows evaluated, ranked gravest first when all are in. */
typedef struct rows {
	row *r;
	size_t n, cap;
} rows;

/* The blast radius: devices that lost bandwidth, and those cut off (no
 * longer joined to the rest of the fabric, fx_fabric_reachable: a failed
 * device, one whose links all failed, the smaller piece of a broken ring). */
static void hit(const fx_fabric *f, const int64_t *instance_of, const measure *base,
		const measure *m, int64_t *slower, int64_t *cut_off, int64_t *instances)
{
	*slower = *cut_off = *instances = 0;
	uint8_t *seen = instance_of ? fx_xcalloc((size_t)f->ndev + 1, 1) : NULL;
	for (int64_t v = 0; v < f->ndev; v++) {
		int cut = base->reach[v] && !m->reach[v];
		int slow = !cut && m->each[v] < base->each[v] * (1 - 1e-12);
		*slower += slow;
		*cut_off += cut;
		int64_t i = instance_of ? instance_of[v] : -1;
		if ((slow || cut) && i >= 0 && !seen[i]) {
			seen[i] = 1;
			(*instances)++;
		}
	}
	free(seen);
}

static void keep(const failctx *c, rows *rs, const row *r, const measure *base)
{
	rs->r = fx_xgrow(rs->r, &rs->cap, rs->n + 1, sizeof *rs->r);
	row *k = &rs->r[rs->n++];
	*k = *r;
	double b = base->bisection > 0 ? r->m.bisection / base->bisection : 1;
	double w = base->worst_inject > 0 ? r->m.worst_inject / base->worst_inject : 1;
	k->rank = b + 1e-6 * w;
	hit(&c->ds->fab, c->instance_of, base, &k->m, &k->slower, &k->cut_off, &k->instances);
	free(k->m.each);  /* reach rides in it */
	k->m.each = NULL;
	k->m.reach = NULL;
}

static int by_rank(const void *a, const void *b)
{
	const row *x = a, *y = b;
	return (x->rank > y->rank) - (x->rank < y->rank);
}

static void emit(const failctx *c, fx_table *t, const row *r, const measure *base)
{
	int64_t slower = r->slower, cut_off = r->cut_off, inst = r->instances;
	fx_table_cell(t, "%s", r->what);
	fx_table_int(t, r->equivalent);
	fx_table_num(t, r->m.bisection);
	fx_table_num(t, base->bisection > 0 ? r->m.bisection / base->bisection : 1);
	fx_table_num(t, r->m.worst_inject);
	fx_table_num(t, base->worst_inject > 0 ? r->m.worst_inject / base->worst_inject : 1);
	fx_table_int(t, slower);
	fx_table_int(t, cut_off);
	if (c->instance_of)
		fx_table_int(t, inst);
	else
		fx_table_null(t, "-");
}

/* The classes of elements proven alike (fabric/orbit.c): orbits under
 * automorphisms, each checked, that keep the canonical split (its sides
 * may swap), the workload's instances and, for --kind node|rack|plane|
 * power, those units (dom, may be NULL).  With --all, or past the
 * evaluation limit, nothing is grouped. */
static int alike(failctx *c, const uint8_t *side, const int64_t *dom, int64_t ndom, int all,
		 fx_orbits *o)
{
	const fx_fabric *f = &c->ds->fab;
	if (all) {
		memset(o, 0, sizeof *o);
		o->vertex = fx_xmalloc((size_t)(f->nv + 1) * sizeof *o->vertex);
		o->edge = fx_xmalloc((size_t)(f->ne + 1) * sizeof *o->edge);
		o->block[0] = fx_xmalloc((size_t)(ndom + 1) * sizeof *o->block[0]);
		for (int64_t v = 0; v < f->nv; v++)
			o->vertex[v] = v;
		for (int64_t e = 0; e < f->ne; e++)
			o->edge[e] = e;
		for (int64_t j = 0; j < ndom; j++)
			o->block[0][j] = j;
		return 0;
	}
	int64_t *of = fx_xmalloc((size_t)(2 * f->nv + 1) * sizeof *of);
	fx_blocks b[3];
	int nb = 0;
	for (int64_t v = 0; v < f->nv; v++)
		of[v] = side[v] < 2 ? side[v] : -1;
	b[nb++] = (fx_blocks){of, 2};
	if (c->instance_of) {
		int64_t n = 0, *inst = of + f->nv;
		for (int64_t v = 0; v < f->nv; v++) {
			inst[v] = v < f->ndev ? c->instance_of[v] : -1;
			n = inst[v] + 1 > n ? inst[v] + 1 : n;
		}
		b[nb++] = (fx_blocks){inst, n};
	}
	if (dom)
		b[nb++] = (fx_blocks){dom, ndom};
	int rc = fx_fabric_orbits(f, b, nb, o);
	free(of);
	return rc;
}

/* Refuses to evaluate more classes than the limit lets measure: each
 * evaluation is a pass over the fabric, or a max-flow (counted 10 passes,
 * as measured) where switches are free; not decided, with the numbers. */
static int affordable(failctx *c, const uint8_t *side, int64_t classes, const char *what)
{
	const fx_fabric *f = &c->ds->fab;
	int flow = 0;
	for (int64_t v = 0; v < f->nv && !flow; v++)
		flow = side[v] > 1;
	double work = (double)classes * (double)(f->nv + f->ne) * (flow ? 10 : 1);
	if (work <= FX_MAX_FAILURE_WORK)
		return 0;
	return fx_diag_undecided(c->d, "failures: %lld classes of %s proven alike need %.3g "
				 "vertex and bundle visits, over the limit of %.3g; fail chosen "
				 "ones with --fail SEL", (long long)classes, what, work,
				 (double)FX_MAX_FAILURE_WORK);
}

/* One row per class of alike switch chips (its first chip), or per chip
 * with --all. */
static int switches(failctx *c, const uint8_t *side, const measure *base, rows *rs, int all)
{
	const fx_fabric *f = &c->ds->fab;
	fx_orbits o;
	alike(c, side, NULL, 0, all, &o);
	int64_t *size = fx_xcalloc((size_t)f->nv + 1, sizeof *size), classes = 0;
	for (int64_t v = 0; v < f->nv; v++)
		if (f->v[v].type == FX_V_SWITCH && fx_fabric_vertex_up(f, v)) {
			classes += size[o.vertex[v]]++ == 0;
		}
	int rc = affordable(c, side, classes, "switch chips");
	uint8_t *sel = fx_xcalloc((size_t)f->nv + 1, 1);
	for (int64_t v = 0; v < f->nv && rc == 0; v++) {
		int role = f->v[v].role;
		if (o.vertex[v] != v || !size[v])
			continue;
		sel[v] = 1;
		row r = {.equivalent = size[v]};
		char name[48];
		fx_fabric_vertex_name(f, v, name, sizeof name);
		snprintf(r.what, sizeof r.what, "%s (%s)", name, role >= 0 ? f->roles[role].name : "switch");
		rc = measure_failed(c, side, sel, NULL, &r.m);
		sel[v] = 0;
		if (rc == 0)
			keep(c, rs, &r, base);
		else
			free(r.m.each);
	}
	free(size);
	free(sel);
	fx_orbits_release(&o);
	return rc;
}

/* Whether bundle e joins the two sides of the canonical split directly
 * (on a lattice, a link of its cut). */
static int crosses(const fx_fabric *f, const uint8_t *side, int64_t e)
{
	uint8_t a = side[f->ends[2 * e]], b = side[f->ends[2 * e + 1]];
	return a < 2 && b < 2 && a != b;
}

/* One row per class of alike bundles (their links, each failed alone,
 * are alike too): one physical link of the first bundle of each, or of
 * every bundle with --all. */
static int links(failctx *c, const uint8_t *side, const measure *base, rows *rs, int all)
{
	fx_fabric *f = &c->ds->fab;
	fx_orbits o;
	alike(c, side, NULL, 0, all, &o);
	int64_t *n = fx_xcalloc((size_t)f->ne + 1, sizeof *n), classes = 0;
	for (int64_t e = 0; e < f->ne; e++)
		if (fx_fabric_edge_up(f, e)) {
			classes += n[o.edge[e]] == 0;
			n[o.edge[e]] += f->e[e].count;
		}
	int rc = affordable(c, side, classes, "links");
	int32_t *lost = fx_xcalloc((size_t)f->ne + 1, sizeof *lost);
	for (int64_t e = 0; e < f->ne && rc == 0; e++) {
		if (o.edge[e] != e || !n[e])
			continue;
		int tier = f->e[e].tier, x = crosses(f, side, e);
		row r = {.equivalent = n[e]};
		char a[48], b[48];
		fx_fabric_vertex_name(f, f->ends[2 * e], a, sizeof a);
		fx_fabric_vertex_name(f, f->ends[2 * e + 1], b, sizeof b);
		snprintf(r.what, sizeof r.what, "one link %s-%s (tier %d%s)", a, b, tier,
			 x ? ", across the split" : "");
		lost[e] = 1;  /* one physical link of the bundle fails */
		rc = measure_failed(c, side, NULL, lost, &r.m);
		lost[e] = 0;
		if (rc == 0)
			keep(c, rs, &r, base);
		else
			free(r.m.each);
	}
	free(lost);
	free(n);
	fx_orbits_release(&o);
	return rc;
}

/* What a selector names fails (fabric/fail.c: vertices with every link
 * they end, or A~B the links between two sets): a device, a node or rack
 * with all it holds, a plane's switch chips, a power domain, a link. */
static int selected(failctx *c, const uint8_t *side, const measure *base, rows *rs,
		    const char *expr, const char *label, int64_t equivalent)
{
	fx_fabric *f = &c->ds->fab;
	fx_fail_saved saved;
	fx_fabric_fail_save(f, &saved);
	int rc = fx_fabric_fail(f, expr, "--fail", c->d);
	row r = {.equivalent = equivalent};
	snprintf(r.what, sizeof r.what, "%s", label);
	if (rc == 0)
		rc = measure_now(c, side, &r.m);
	fx_fabric_fail_restore(f, &saved);
	if (rc == 0)
		keep(c, rs, &r, base);
	return rc;
}

/* Places the workload on the intact fabric for the blast radius. */
static void place_intact(failctx *c)
{
	if (!c->ds->work.present)
		return;
	fx_diag quiet;
	fx_diag_init(&quiet);
	quiet.max_shown = 0;
	fx_place_opts o = {.time_limit = FX_DEFAULT_TIME_LIMIT, .tm = c->ds->coll,
			   .accel = c->ds->accel.hbm > 0 ? &c->ds->accel : NULL, .sessions = &c->ds->sessions};
	fx_placement p;
	if (fx_place(&c->ds->fab, &c->ds->work, &c->ds->power, &o, &p, &quiet) == 0) {
		c->instance_of = fx_xmalloc((size_t)(c->ds->fab.ndev + 1) * sizeof *c->instance_of);
		for (int64_t v = 0; v < c->ds->fab.ndev; v++)
			c->instance_of[v] = -1;
		int64_t D = fx_workload_devices(&c->ds->work);
		for (int64_t i = 0; i < p.ninst; i++)
			for (int64_t k = 0; k < D; k++)
				c->instance_of[p.inst[i].devices[k]] = i;
		fx_placement_release(&p);
	}
	fx_diag_release(&quiet);
}

/* Vertex v's unit of the kind (node, rack, power domain, or a switch's
 * plane: what the selector KIND=N picks), or -1. */
static int64_t unit_of(const fx_fabric *f, const char *kind, int64_t v)
{
	return strcmp(kind, "node") == 0 ? f->v[v].node
	       : strcmp(kind, "rack") == 0 ? f->v[v].rack
	       : strcmp(kind, "power") == 0 ? fx_fabric_power_domain(f, v)
	       : f->v[v].type == FX_V_SWITCH ? f->v[v].plane : -1;
}

/* --kind node|rack|plane|power: one row per class of alike units (its
 * first, with all it holds), or per unit with --all. */
static int domains(failctx *c, const char *kind, const uint8_t *side, const measure *base,
		   rows *rs, int all)
{
	const fx_fabric *f = &c->ds->fab;
	int64_t n = 0, *dom = fx_xmalloc((size_t)(f->nv + 1) * sizeof *dom);
	for (int64_t v = 0; v < f->nv; v++) {
		dom[v] = unit_of(f, kind, v);
		if (dom[v] + 1 > n)
			n = dom[v] + 1;
	}
	int rc = 0;
	if (n == 0 && strcmp(kind, "power") == 0)
		rc = fx_diag_error(c->d, NULL, "--kind power: %s has no power domains (set "
				   "packaging.nodes_per_power_domain)", c->spec);
	else if (n == 0)
		rc = fx_diag_error(c->d, NULL, "--kind %s: %s has no %ss", kind, c->spec, kind);
	if (rc) {
		free(dom);
		return rc;
	}
	fx_orbits o;
	alike(c, side, dom, n, all, &o);
	int64_t k = c->instance_of ? 2 : 1;  /* the units' block system */
	const int64_t *cls = all ? o.block[0] : o.block[k];
	int64_t *size = fx_xcalloc((size_t)n + 1, sizeof *size), classes = 0;
	uint8_t *held = fx_xcalloc((size_t)n + 1, 1);
	for (int64_t v = 0; v < f->nv; v++)
		if (dom[v] >= 0)
			held[dom[v]] = 1;
	for (int64_t u = 0; u < n; u++)
		if (held[u])
			classes += size[cls[u]]++ == 0;
	rc = affordable(c, side, classes, strcmp(kind, "power") == 0 ? "power domains" : kind);
	for (int64_t u = 0; u < n && rc == 0; u++) {
		if (cls[u] != u || !size[u])
			continue;
		char expr[48], label[64];
		snprintf(expr, sizeof expr, "%s=%lld", kind, (long long)u);
		snprintf(label, sizeof label, "%s %lld (all it holds)", kind, (long long)u);
		rc = selected(c, side, base, rs, expr, label, size[u]);
	}
	free(held);
	free(size);
	free(dom);
	fx_orbits_release(&o);
	return rc;
}

/* SplitMix64 (Steele, Lea and Flood, OOPSLA 2014; the constants of
 * Vigna's splitmix64.c): the sample's generator, so a seed gives the same
 * pairs on every machine. */
static uint64_t splitmix64(uint64_t *x)
{
	uint64_t z = (*x += 0x9e3779b97f4a7c15ULL);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/* One element of a kind for --k 2: a switch chip (vertex), one physical
 * link (bundle e, its j-th link), or a node, rack, plane or power domain. */
typedef struct elem {
	int64_t a, b;
} elem;

/* Every element of the kind, in id order, into *out; returns how many. */
static int64_t elements(const fx_fabric *f, const char *kind, elem **out)
{
	elem *el = NULL;
	size_t n = 0, cap = 0;
	if (strcmp(kind, "switch") == 0) {
		for (int64_t v = 0; v < f->nv; v++)
			if (f->v[v].type == FX_V_SWITCH && fx_fabric_vertex_up(f, v)) {
				el = fx_xgrow(el, &cap, n + 1, sizeof *el);
				el[n++] = (elem){v, 0};
			}
	} else if (strcmp(kind, "link") == 0) {
		for (int64_t e = 0; e < f->ne; e++)
			for (int64_t j = 0; fx_fabric_edge_up(f, e) && j < f->e[e].count; j++) {
				el = fx_xgrow(el, &cap, n + 1, sizeof *el);
				el[n++] = (elem){e, j};
			}
	} else {
		int64_t units = 0;
		for (int64_t v = 0; v < f->nv; v++) {
			int64_t id = strcmp(kind, "node") == 0 ? f->v[v].node
				     : strcmp(kind, "rack") == 0 ? f->v[v].rack
				     : strcmp(kind, "power") == 0 ? fx_fabric_power_domain(f, v)
				     : f->v[v].type == FX_V_SWITCH ? f->v[v].plane : -1;
			if (id + 1 > units)
				units = id + 1;
		}
		for (int64_t u = 0; u < units; u++) {
			el = fx_xgrow(el, &cap, n + 1, sizeof *el);
			el[n++] = (elem){u, 0};
		}
	}
	*out = el;
	return (int64_t)n;
}

/* Marks element x in sel (vertices) and lost (links); its name into buf. */
static void elem_fail(const fx_fabric *f, const char *kind, const elem *x, uint8_t *sel,
		      int32_t *lost, char *buf, size_t len)
{
	char a[64], b[64];
	if (strcmp(kind, "switch") == 0) {
		sel[x->a] = 1;
		snprintf(buf, len, "%s", fx_fabric_vertex_name(f, x->a, a, sizeof a));
	} else if (strcmp(kind, "link") == 0) {
		lost[x->a]++;
		fx_fabric_vertex_name(f, f->ends[2 * x->a], a, sizeof a);
		fx_fabric_vertex_name(f, f->ends[2 * x->a + 1], b, sizeof b);
		if (f->e[x->a].count > 1)
			snprintf(buf, len, "%s-%s #%lld", a, b, (long long)x->b);
		else
			snprintf(buf, len, "%s-%s", a, b);
	} else {
		for (int64_t v = 0; v < f->nv; v++) {
			int64_t id = strcmp(kind, "node") == 0 ? f->v[v].node
				     : strcmp(kind, "rack") == 0 ? f->v[v].rack
				     : strcmp(kind, "power") == 0 ? fx_fabric_power_domain(f, v)
				     : f->v[v].type == FX_V_SWITCH ? f->v[v].plane : -1;
			if (id == x->a)
				sel[v] = 1;
		}
		snprintf(buf, len, "%s %lld", kind, (long long)x->a);
	}
}

/* Pair number t of n elements (t < n(n-1)/2, in the order (0,1), (0,2),
 * ..., (1,2), ...) into *i < *j. */
static void pair_of(int64_t n, uint64_t t, int64_t *i, int64_t *j)
{
	int64_t a = 0;
	while (t >= (uint64_t)(n - 1 - a)) {
		t -= (uint64_t)(n - 1 - a);
		a++;
	}
	*i = a;
	*j = a + 1 + (int64_t)t;
}

static int by_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return (x > y) - (x < y);
}

/* --k 2: every pair of the kind's elements, or `sample` distinct pairs
 * drawn with SplitMix64 from seed (rejection of repeats), evaluated in
 * pair order.  *total is how many pairs there are. */
static int pairs(failctx *c, const char *kind, const uint8_t *side, const measure *base, rows *rs,
		 int64_t sample, uint64_t seed, double *total)
{
	fx_fabric *f = &c->ds->fab;
	elem *el;
	int64_t n = elements(f, kind, &el);
	*total = (double)n * (double)(n - 1) / 2;
	if (n < 2) {
		free(el);
		return fx_diag_error(c->d, NULL, "--k 2: %s has fewer than two %s elements to fail "
				     "together", c->spec, kind);
	}
	uint64_t m = (uint64_t)n * (uint64_t)(n - 1) / 2;
	uint64_t take = m <= (uint64_t)sample ? m : (uint64_t)sample;
	uint64_t *pick = fx_xmalloc((size_t)take * sizeof *pick);
	if (take == m) {
		for (uint64_t t = 0; t < m; t++)
			pick[t] = t;
	} else {
		uint64_t x = seed;
		for (uint64_t k = 0; k < take;) {
			uint64_t t = splitmix64(&x) % m;  /* bias below 2^-40 for m < 2^24 */
			int dup = 0;
			for (uint64_t q = 0; q < k && !dup; q++)
				dup = pick[q] == t;
			if (!dup)
				pick[k++] = t;
		}
		qsort(pick, (size_t)take, sizeof *pick, by_u64);
	}
	uint8_t *sel = fx_xcalloc((size_t)f->nv + 1, 1);
	int32_t *lost = fx_xcalloc((size_t)f->ne + 1, sizeof *lost);
	int rc = 0;
	for (uint64_t k = 0; k < take && rc == 0; k++) {
		int64_t i, j;
		pair_of(n, pick[k], &i, &j);
		memset(sel, 0, (size_t)f->nv);
		memset(lost, 0, (size_t)f->ne * sizeof *lost);
		char a[160], b[160];
		elem_fail(f, kind, &el[i], sel, lost, a, sizeof a);
		elem_fail(f, kind, &el[j], sel, lost, b, sizeof b);
		row r = {.equivalent = 1};
		snprintf(r.what, sizeof r.what, "%s + %s", a, b);
		rc = measure_failed(c, side, sel, lost, &r.m);
		if (rc == 0)
			keep(c, rs, &r, base);
		else
			free(r.m.each);
	}
	free(sel);
	free(lost);
	free(pick);
	free(el);
	return rc;
}

/* A weighted statistic of what rows keep: the least, the weighted median
 * (the smallest value with at least half the weight at or below it) and
 * the weighted mean. */
typedef struct wv {
	double v, w;
} wv;

static int by_v(const void *a, const void *b)
{
	double x = ((const wv *)a)->v, y = ((const wv *)b)->v;
	return (x > y) - (x < y);
}

static void stats(wv *x, size_t n, double *worst, double *median, double *mean)
{
	*worst = *median = *mean = 0;
	if (n == 0)
		return;
	qsort(x, n, sizeof *x, by_v);
	double W = 0, S = 0, acc = 0;
	for (size_t i = 0; i < n; i++) {
		W += x[i].w;
		S += x[i].v * x[i].w;
	}
	*worst = x[0].v;
	*mean = W > 0 ? S / W : 0;
	*median = x[n - 1].v;
	for (size_t i = 0; i < n; i++) {
		acc += x[i].w;
		if (2 * acc >= W) {
			*median = x[i].v;
			break;
		}
	}
}

/* The summary over every row: worst, median and mean of the bisection
 * and worst device kept, and of the devices cut off. */
static int summary(failctx *c, const rows *rs, const measure *base, int k, double total,
		   int sampled, uint64_t seed)
{
	wv *b = fx_xmalloc((rs->n + 1) * sizeof *b), *w = fx_xmalloc((rs->n + 1) * sizeof *w),
	   *cut = fx_xmalloc((rs->n + 1) * sizeof *cut);
	int64_t inst_max = 0;
	double elems = 0;
	for (size_t i = 0; i < rs->n; i++) {
		const row *r = &rs->r[i];
		double wt = (double)r->equivalent;
		int64_t cut_off = r->cut_off, inst = r->instances;
		b[i] = (wv){base->bisection > 0 ? r->m.bisection / base->bisection : 1, wt};
		w[i] = (wv){base->worst_inject > 0 ? r->m.worst_inject / base->worst_inject : 1, wt};
		cut[i] = (wv){-(double)cut_off, wt};  /* most cut off = "least" */
		inst_max = inst > inst_max ? inst : inst_max;
		elems += wt;
	}
	double bw, bm, ba, ww, wm, wa, cw, cm, ca;
	stats(b, rs->n, &bw, &bm, &ba);
	stats(w, rs->n, &ww, &wm, &wa);
	stats(cut, rs->n, &cw, &cm, &ca);
	free(b);
	free(w);
	free(cut);
	fx_table *t = fx_record_new("failures_summary", "Degradation over the failures evaluated "
				    "(weighted by the elements each stands for)", "summary");
	fx_record_int(t, "k", "elements failed at once", k);
	fx_record_int(t, "evaluated", "failures evaluated", (int64_t)rs->n);
	fx_record_num(t, "elements_covered", "failures they stand for", FX_F_NUM,
		      k == 1 ? elems : total);
	fx_record_bool(t, "sampled", "sampled", sampled);
	if (sampled)
		fx_record_int(t, "seed", "sample seed (SplitMix64)", (int64_t)seed);
	else
		fx_record_null(t, "seed", "sample seed (SplitMix64)", FX_F_INT, "-");
	fx_record_num(t, "bisection_kept_worst", "bisection kept, worst", FX_F_FRACTION, bw);
	fx_record_num(t, "bisection_kept_median", "bisection kept, median", FX_F_FRACTION, bm);
	fx_record_num(t, "bisection_kept_mean", "bisection kept, mean", FX_F_FRACTION, ba);
	fx_record_num(t, "worst_device_kept_worst", "worst device kept, worst", FX_F_FRACTION, ww);
	fx_record_num(t, "worst_device_kept_median", "worst device kept, median", FX_F_FRACTION, wm);
	fx_record_num(t, "worst_device_kept_mean", "worst device kept, mean", FX_F_FRACTION, wa);
	fx_record_num(t, "devices_cut_off_worst", "devices cut off, worst", FX_F_NUM, -cw);
	fx_record_num(t, "devices_cut_off_median", "devices cut off, median", FX_F_NUM, -cm);
	fx_record_num(t, "devices_cut_off_mean", "devices cut off, mean", FX_F_NUM, -ca);
	if (c->instance_of)
		fx_record_int(t, "instances_hit_worst", "instances hit, worst", inst_max);
	else
		fx_record_null(t, "instances_hit_worst", "instances hit, worst", FX_F_INT, "-");
	return fx_sink_put(c->out, t, c->d);
}

static int run(failctx *c, const fx_failures_opts *o)
{
	int rc = 0;
	const char *kind = o->kind ? o->kind : "switch";
	int nfail = o->nfail;
	if (strcmp(kind, "switch") && strcmp(kind, "link") && strcmp(kind, "node") &&
	    strcmp(kind, "rack") && strcmp(kind, "plane") && strcmp(kind, "power"))
		return fx_diag_error(c->d, NULL, "--kind: '%s' must be switch, link, node, rack, "
				     "plane or power", kind);
	if (o->k == 2 && nfail)
		return fx_diag_error(c->d, NULL, "--k 2 pairs the elements of --kind; give it or "
				     "--fail, not both");
	if (nfail == 0 && strcmp(kind, "switch") == 0 && c->ds->fab.nsw == 0)
		return fx_diag_error(c->d, NULL, "failures: %s has no switch chips (try --kind link)",
				     c->spec);
	/* every selector checked before anything is printed: a bad one is
	 * bad input (exit 2) with no half-printed report */
	for (int i = 0; i < nfail; i++) {
		fx_fail_saved saved;
		fx_fabric_fail_save(&c->ds->fab, &saved);
		int bad = fx_fabric_fail(&c->ds->fab, o->fails[i], "--fail", c->d);
		fx_fabric_fail_restore(&c->ds->fab, &saved);
		if (bad)
			return -1;
	}
	uint8_t *side = fx_xcalloc((size_t)c->ds->fab.nv + 1, 1);
	measure base;
	/* the kind's canonical split, or (custom graphs, odd device counts)
	 * the bisection's spectral + Fiduccia-Mattheyses split */
	int split = fx_route_split(&c->ds->fab, side, c->d);
	if (split < 0) {
		free(side);
		return -1;
	}
	if (measure_now(c, side, &base)) {
		free(side);
		return -1;
	}
	place_intact(c);
	int one_per_class = !nfail && !o->all && o->k == 1;
	/* with the spec's own failures (or --fail elsewhere) the baseline is
	 * the fabric they leave */
	const char *what = fx_fabric_degraded(&c->ds->fab) ? "Baseline fabric (with the spec's "
				"failures:)" : "Intact fabric";
	char title[160];
	snprintf(title, sizeof title, "%s%s", what, one_per_class ? " (one of each class is failed: "
		 "an automorphism of the fabric, checked, maps a class onto itself)" : "");
	fx_table *t = fx_record_new("failures_intact", title, NULL);
	fx_record_num(t, "bisection_bandwidth_Bps", split ? "bisection across a spectral + "
		      "Fiduccia-Mattheyses split (no canonical one)" : "bisection across the canonical split",
		      FX_F_BPS, base.bisection);
	fx_record_num(t, "worst_device_Bps", "each device reaches the fabric with at least",
		      FX_F_BPS, base.worst_inject);
	fx_record_text(t, "failure_kind", o->k == 2 ? "what fails, two at a time" : "what fails, one at a time", "%s", nfail ? "selected" : kind);
	rc = fx_sink_put(c->out, t, c->d);
	static const fx_col cols[] = {
		{"element", "failed", FX_F_TEXT}, {"equivalent", "alike", FX_F_INT},
		{"bisection_bandwidth_Bps", "bisection", FX_F_BPS},
		{"bisection_kept", "kept", FX_F_FRACTION},
		{"worst_device_Bps", "worst device", FX_F_BPS},
		{"worst_device_kept", "kept", FX_F_FRACTION},
		{"devices_slower", "devices slower", FX_F_INT},
		{"devices_cut_off", "cut off", FX_F_INT},
		{"instances_hit", "instances hit", FX_F_INT}, {NULL, NULL, 0},
	};
	rows rs = {0};
	double total = 0;
	int sampled = 0;
	if (nfail)
		for (int i = 0; i < nfail && rc == 0; i++)
			rc = selected(c, side, &base, &rs, o->fails[i], o->fails[i], 1);
	else if (o->k == 2) {
		rc = pairs(c, kind, side, &base, &rs, o->sample, o->seed, &total);
		sampled = total > (double)o->sample;
	} else if (strcmp(kind, "switch") == 0)
		rc = switches(c, side, &base, &rs, o->all || (o->k == 1 && fx_fabric_is(&c->ds->fab, FX_KIND_EXPLICIT)));
	else if (strcmp(kind, "link") == 0)
		rc = links(c, side, &base, &rs, o->all);
	else
		rc = domains(c, kind, side, &base, &rs, o->all);
	/* the most critical first: least bisection kept, then least kept by
	 * the worst device (a stable order for ties: evaluation order) */
	for (size_t i = 0; i < rs.n; i++)
		rs.r[i].rank += 1e-12 * (double)i;
	if (rc == 0)
		rc = summary(c, &rs, &base, o->k, total, sampled, o->seed);
	if (rs.n > 1)  /* qsort of nothing: rs.r may be NULL */
		qsort(rs.r, rs.n, sizeof *rs.r, by_rank);
	t = fx_table_typed("failures", o->k == 2 ? "Pairs of failures, the most critical first"
			   : "Failures, the most critical first", cols);
	for (size_t i = 0; i < rs.n; i++) {
		if (rc == 0)
			emit(c, t, &rs.r[i], &base);
		free(rs.r[i].m.each);
	}
	free(rs.r);
	if (rc == 0)
		rc = fx_sink_put(c->out, t, c->d);
	else
		fx_table_free(t);  /* no rows to show: the diagnostic says why */
	free(side);
	free(base.each);
	free(c->instance_of);
	c->instance_of = NULL;
	return rc;
}

int fx_report_failures(fx_design *ds, const fx_failures_opts *o, fx_sink *out, fx_diag *d)
{
	if (!ds || !o || !out || (o->nfail && !o->fails))
		return fx_diag_internal(d, "fx_report_failures: a NULL argument");
	failctx c = {.ds = ds, .d = d, .out = out, .spec = o->spec ? o->spec : ds->name};
	return run(&c, o);
}
