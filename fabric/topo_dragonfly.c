/*
 * dragonfly: groups of routers joined by global links (Kim, Dally, Scott
 * and Abts, "Technology-Driven, Highly-Scalable Dragonfly Topology", ISCA
 * 2008), and Dragonfly+ with leaf-spine groups (Shpiner, Haramaty, Eliad,
 * Zdornov, Gafni and Zahavi, "Dragonfly+", HiPINEB 2017).
 *
 *   p: P        devices per router (Dragonfly+: per leaf)
 *   a: A        routers per group (Dragonfly+: spines per group)
 *   h: H        global links per router (Dragonfly+: per spine)
 *   g: G        groups, default a h + 1 (one global link per pair of
 *               groups); a h must be a multiple of g - 1, so every pair of
 *               groups gets m = a h / (g - 1) global links
 *   group: complete | leaf-spine     (default complete)
 *   leaves: L   leaf-spine only: leaf switches per group (default a)
 *   radix: R    optional: ports per switch chip, checked
 *   link, local_link, global_link    device, in-group and global links
 *
 * Global port j of a group (on its global switch j / h) leads to the group
 * j mod (g - 1) + 1 further round, the c = j / (g - 1)-th link of that pair
 * (the "relative" arrangement of Hastings et al., Cluster 2015): rotating
 * the groups maps the fabric onto itself, which the hop counts use.
 * Packaging: a router (leaf) with its p devices is a node, a group is a
 * rack unless packaging says otherwise; a Dragonfly+ group's spines are
 * packaged with its first leaf.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../core/xalloc.h"
#include "fabric.h"

typedef struct dragonfly_params {
	int64_t p, a, h, g, leaves, radix;
	int leaf_spine;
	fx_linkspec link, local, global;
} dragonfly_params;

/* Up to `max` values of g (2 .. a h + 1) near want that make a h a
 * multiple of g - 1, for the error message. */
static void valid_groups(int64_t ah, int64_t want, char *buf, size_t len)
{
	int64_t below = -1, above = -1;
	for (int64_t d = 1; d <= ah; d++)
		if (ah % d == 0) {
			if (d + 1 <= want)
				below = d + 1;
			else if (above < 0)
				above = d + 1;
		}
	if (below > 0 && above > 0)
		snprintf(buf, len, "%lld or %lld", (long long)below, (long long)above);
	else
		snprintf(buf, len, "%lld", (long long)(below > 0 ? below : above));
}

static int parse(fx_diag *d, const fx_snode *fab, void *params)
{
	static const char *const keys[] = {"kind", "p", "a", "h", "g", "group", "leaves", "radix",
					   "link", "local_link", "global_link", NULL};
	dragonfly_params *p = params;
	int rc = fx_spec_keys(d, fab, keys);
	rc |= fx_spec_int(d, fab, "p", 1, 1 << 16, &p->p);
	rc |= fx_spec_int(d, fab, "a", 1, 1 << 16, &p->a);
	rc |= fx_spec_int(d, fab, "h", 1, 1 << 16, &p->h);
	rc |= fx_spec_int_opt(d, fab, "radix", 2, 1 << 20, &p->radix);
	rc |= fx_linkspec_get(d, fab, "link", 1, &p->link);
	if (rc)
		return -1;
	const char *grp = "complete";
	if (fx_spec_str_opt(d, fab, "group", &grp))
		return -1;
	if (strcmp(grp, "leaf-spine") == 0)
		p->leaf_spine = 1;
	else if (strcmp(grp, "complete") != 0)
		return fx_snode_error(d, fx_snode_get(fab, "group"), "'%s.group' must be complete (every "
				      "router of a group linked to every other) or leaf-spine (Dragonfly+), "
				      "got '%s'", fab->path, grp);
	p->leaves = p->a;
	if (!p->leaf_spine && fx_snode_get(fab, "leaves"))
		return fx_snode_error(d, fx_snode_get(fab, "leaves"), "'%s.leaves' applies to "
				      "leaf-spine groups ('group: leaf-spine') only", fab->path);
	if (fx_spec_int_opt(d, fab, "leaves", 1, 1 << 16, &p->leaves))
		return -1;
	int64_t ah = p->a * p->h;
	p->g = ah + 1;
	const fx_snode *gn = fx_snode_get(fab, "g");
	if (gn && fx_snode_int(d, gn, 2, 1 << 20, &p->g))
		return -1;
	if (p->g > ah + 1)
		return fx_snode_error(d, gn, "'%s' (%lld) groups need %lld global links from each group, "
				      "one to every other, but a x h = %lld x %lld gives %lld", gn->path,
				      (long long)p->g, (long long)(p->g - 1), (long long)p->a,
				      (long long)p->h, (long long)ah);
	if (ah % (p->g - 1)) {
		char ok[64];
		valid_groups(ah, p->g, ok, sizeof ok);
		return fx_snode_error(d, gn, "'%s' (%lld): a x h = %lld global links per group must "
				      "split evenly over the %lld other groups, so every pair of groups "
				      "gets the same links (g - 1 must divide %lld: g = %s)", gn->path,
				      (long long)p->g, (long long)ah, (long long)(p->g - 1),
				      (long long)ah, ok);
	}
	int64_t edge = p->leaf_spine ? p->leaves : p->a;
	double devices = (double)p->g * (double)edge * (double)p->p;
	double vertices = devices + (double)p->g * (double)(edge + (p->leaf_spine ? p->a : 0));
	if (vertices > INT32_MAX)
		return fx_snode_error(d, fab, "'%s' describes %.4g devices and switches, past the "
				      "%d vertices a fabric may have", fab->path, vertices, INT32_MAX);
	if (p->radix) {
		/* what each chip needs, against the radix */
		const fx_snode *rn = fx_snode_get(fab, "radix");
		if (!p->leaf_spine && p->a - 1 >= p->radix)
			return fx_snode_error(d, fx_snode_get(fab, "a"), "'%s.a' (%lld) routers per group "
					      "need %lld local ports each, but '%s.radix' is %lld", fab->path,
					      (long long)p->a, (long long)(p->a - 1), fab->path,
					      (long long)p->radix);
		int64_t need = p->leaf_spine ? p->p + p->a : p->p + p->a - 1 + p->h;
		int64_t need2 = p->leaf_spine ? p->leaves + p->h : 0;
		if (need > p->radix)
			return fx_snode_error(d, rn, "'%s' (%lld) is too few: %s need p + %s = %lld ports",
					      rn->path, (long long)p->radix,
					      p->leaf_spine ? "leaves" : "routers",
					      p->leaf_spine ? "a (one to each spine)" : "(a - 1) + h",
					      (long long)need);
		if (need2 > p->radix)
			return fx_snode_error(d, rn, "'%s' (%lld) is too few: spines need leaves + h = "
					      "%lld ports", rn->path, (long long)p->radix, (long long)need2);
	}
	p->local = p->global = p->link;
	if (fx_snode_get(fab, "local_link") && fx_linkspec_get(d, fab, "local_link", 1, &p->local))
		return -1;
	if (fx_snode_get(fab, "global_link") && fx_linkspec_get(d, fab, "global_link", 1, &p->global))
		return -1;
	return 0;
}

static void size(const void *params, fx_fabric_size *sz)
{
	const dragonfly_params *p = params;
	int64_t edge = p->leaf_spine ? p->leaves : p->a;
	sz->devices = p->g * edge * p->p;
	sz->switches = p->g * (edge + (p->leaf_spine ? p->a : 0));
	sz->edges = sz->devices + p->g * (p->leaf_spine ? p->leaves * p->a : p->a * (p->a - 1) / 2) +
		    p->g * p->a * p->h / 2;
}

static int build(const void *params, fx_fabric *f, fx_diag *d)
{
	const dragonfly_params *p = params;
	(void)d;
	int64_t E = p->leaf_spine ? p->leaves : p->a, S = p->leaf_spine ? p->a : 0, G = E + S;
	int64_t m = p->a * p->h / (p->g - 1);
	for (int64_t v = 0; v < p->g * E * p->p; v++)
		fx_fb_vertex(f, FX_V_DEVICE, -1, v / p->p, -1);
	int radix = (int)(p->radix ? p->radix : 0);
	int redge = fx_fb_role(f, p->leaf_spine ? "leaf" : "router", radix, 1, "radix");
	int rspine = p->leaf_spine ? fx_fb_role(f, "spine", radix, 2, "radix") : -1;
	int64_t sw0 = f->nv;
	for (int64_t grp = 0; grp < p->g; grp++) {
		for (int64_t i = 0; i < E; i++)
			fx_fb_vertex(f, FX_V_SWITCH, redge, grp * E + i, -1);
		for (int64_t j = 0; j < S; j++)  /* with the group's first leaf */
			fx_fb_vertex(f, FX_V_SWITCH, rspine, grp * E, -1);
	}
	for (int64_t v = 0; v < f->ndev; v++) {
		int64_t es = v / p->p;
		fx_fb_link(f, v, sw0 + es / E * G + es % E, &p->link, 1, 0);
	}
	for (int64_t grp = 0; grp < p->g; grp++) {
		int64_t base = sw0 + grp * G;
		if (p->leaf_spine) {
			for (int64_t i = 0; i < E; i++)
				for (int64_t j = 0; j < S; j++)
					fx_fb_link(f, base + i, base + E + j, &p->local, 1, 1);
		} else {
			for (int64_t i = 0; i < E; i++)
				for (int64_t k = i + 1; k < E; k++)
					fx_fb_link(f, base + i, base + k, &p->local, 1, 1);
		}
	}
	/* pairs of groups s < t, m links each: the c-th is port (o - 1) + c (g
	 * - 1) of s and (g - o - 1) + c (g - 1) of t, o = t - s */
	int64_t gsw = p->leaf_spine ? E : 0;  /* the first global switch of a group */
	for (int64_t s = 0; s < p->g; s++)
		for (int64_t t = s + 1; t < p->g; t++)
			for (int64_t c = 0; c < m; c++) {
				int64_t o = t - s;
				int64_t js = (o - 1) + c * (p->g - 1), jt = (p->g - o - 1) + c * (p->g - 1);
				fx_fb_link(f, sw0 + s * G + gsw + js / p->h, sw0 + t * G + gsw + jt / p->h,
					   &p->global, 1, 2);
			}
	f->state.dragonfly = (fx_dragonfly_state){
		.p = p->p, .a = p->a, .h = p->h, .g = p->g, .leaves = p->leaf_spine ? p->leaves : 0,
		.edge = E, .m = m,
	};
	f->rack_devices = E * p->p;
	return 0;
}

/* switches per group, and the group and index within it of switch v */
static int64_t group_switches(const fx_dragonfly_state *s)
{
	return s->edge + (s->leaves ? s->a : 0);
}

static void vertex_name(const fx_fabric *f, int64_t v, char *buf, size_t len)
{
	const fx_dragonfly_state *s = &f->state.dragonfly;
	if (v < f->ndev) {
		snprintf(buf, len, "device%lld", (long long)v);
		return;
	}
	int64_t G = group_switches(s), grp = (v - f->ndev) / G, i = (v - f->ndev) % G;
	if (!s->leaves)
		snprintf(buf, len, "g%lld.r%lld", (long long)grp, (long long)i);
	else if (i < s->edge)
		snprintf(buf, len, "g%lld.leaf%lld", (long long)grp, (long long)i);
	else
		snprintf(buf, len, "g%lld.spine%lld", (long long)grp, (long long)(i - s->edge));
}

/*
 * The canonical split: the first half of the groups against the second;
 * with an odd number of groups the middle group k = (g - 1)/2 is split by
 * its edge switches, its upper half joining the first groups.  Its global
 * ports 0 .. a h / 2 - 1 (on the lower half of its routers) lead to the
 * groups k + 1 ... above it when m = 1, so that half stays with them and
 * no global link of the middle group is cut.  Not proven least: a bound.
 */
static int halves(const fx_fabric *f, uint8_t *side)
{
	const fx_dragonfly_state *s = &f->state.dragonfly;
	int64_t per = s->edge * s->p;  /* devices per group */
	if (f->ndev % 2)
		return 0;
	int64_t k = s->g / 2;
	for (int64_t v = 0; v < f->ndev; v++) {
		int64_t grp = v / per, i = v % per;
		side[v] = s->g % 2 == 0 ? grp >= k : grp > k || (grp == k && i < per / 2);
	}
	return 2;
}

/* Moves switches of f, one at a time, to the side most of their links'
 * capacity leads to while that lowers the cut (devices stay), and returns
 * the cut's capacity and links. */
static double settle(const fx_fabric *f, const int64_t *off, const int64_t *inc, uint8_t *side,
		     double *links)
{
	for (int sweep = 0, moved = 1; moved && sweep < 50; sweep++) {
		moved = 0;
		for (int64_t v = f->ndev; v < f->nv; v++) {
			double pull[2] = {0, 0};
			for (int64_t t = off[v - f->ndev]; t < off[v - f->ndev + 1]; t++) {
				int64_t e = inc[t];
				pull[side[fx_fabric_other(f, e, v)]] += f->e[e].count * f->e[e].bw;
			}
			int best = pull[1] > pull[0] ? 1 : pull[0] > pull[1] ? 0 : side[v];
			if (best != side[v]) {
				side[v] = (uint8_t)best;
				moved = 1;
			}
		}
	}
	double cap = 0;
	*links = 0;
	for (int64_t e = 0; e < f->ne; e++)
		if (side[f->ends[2 * e]] != side[f->ends[2 * e + 1]]) {
			cap += f->e[e].count * f->e[e].bw;
			*links += f->e[e].count;
		}
	return cap;
}

/*
 * The capacity of the canonical split's cut, switches placed by a local
 * search from three starts: every switch on the side of its devices (a
 * spine, which has none, on its group's; the middle group's on side 0),
 * and the same with every global switch (router or spine) on side 0, or on
 * side 1; each settled (settle) and the least kept, or every device link
 * of one half when that is less.  A cut of the canonical split, so a bound
 * on the bisection; tests check it against igraph's max-flow.
 */
static double bisection(const fx_fabric *f, double *links)
{
	const fx_dragonfly_state *s = &f->state.dragonfly;
	if (f->ndev % 2)
		return -1;
	uint8_t *side = fx_xcalloc((size_t)f->nv, 1), *start = fx_xmalloc((size_t)f->nv);
	halves(f, side);
	int64_t G = group_switches(s), per = s->edge * s->p, gsw0 = s->leaves ? s->edge : 0;
	for (int64_t v = f->ndev; v < f->nv; v++) {
		int64_t grp = (v - f->ndev) / G, i = (v - f->ndev) % G, es = grp * s->edge + i;
		side[v] = i < s->edge ? side[es * s->p + s->p / 2]  /* its devices' (most of them) */
					: side[grp * per + per - 1];     /* its group's (the middle: 0) */
	}
	memcpy(start, side, (size_t)f->nv);
	/* incident bundles per switch */
	int64_t ns = f->nsw, *off = fx_xcalloc((size_t)ns + 1, sizeof *off);
	for (int64_t e = 0; e < f->ne; e++)
		for (int k = 0; k < 2; k++)
			if (f->ends[2 * e + k] >= f->ndev)
				off[f->ends[2 * e + k] - f->ndev + 1]++;
	for (int64_t i = 0; i < ns; i++)
		off[i + 1] += off[i];
	int64_t *at = fx_xmalloc(((size_t)ns + 1) * sizeof *at), *inc = fx_xmalloc(((size_t)off[ns] + 1) * sizeof *inc);
	memcpy(at, off, ((size_t)ns + 1) * sizeof *at);
	for (int64_t e = 0; e < f->ne; e++)
		for (int k = 0; k < 2; k++)
			if (f->ends[2 * e + k] >= f->ndev)
				inc[at[f->ends[2 * e + k] - f->ndev]++] = e;
	double cap = -1, cnt = 0;
	for (int st = 0; st < 3; st++) {
		memcpy(side, start, (size_t)f->nv);
		for (int64_t v = f->ndev; st > 0 && v < f->nv; v++)
			if ((v - f->ndev) % G >= gsw0)
				side[v] = (uint8_t)(st - 1);
		double l, c = settle(f, off, inc, side, &l);
		if (cap < 0 || c < cap) {
			cap = c;
			cnt = l;
		}
	}
	free(off);
	free(at);
	free(inc);
	double host = 0, hcnt = 0;
	for (int64_t e = 0; e < f->ne; e++)
		if (f->ends[2 * e] < f->ndev && start[f->ends[2 * e]] == 0) {
			host += f->e[e].count * f->e[e].bw;
			hcnt += f->e[e].count;
		}
	free(side);
	free(start);
	*links = host < cap ? hcnt : cnt;
	return host < cap ? host : cap;
}

/* A switch graph's adjacency (CSR over switch indexes 0 .. nsw-1). */
typedef struct swgraph {
	int64_t n, *off, *nbr;
} swgraph;

static void swgraph_build(const fx_fabric *f, swgraph *sg)
{
	sg->n = f->nsw;
	sg->off = fx_xcalloc((size_t)sg->n + 1, sizeof *sg->off);
	for (int64_t e = 0; e < f->ne; e++)
		if (f->ends[2 * e] >= f->ndev) {
			sg->off[f->ends[2 * e] - f->ndev + 1]++;
			sg->off[f->ends[2 * e + 1] - f->ndev + 1]++;
		}
	for (int64_t i = 0; i < sg->n; i++)
		sg->off[i + 1] += sg->off[i];
	int64_t *at = fx_xmalloc(((size_t)sg->n + 1) * sizeof *at);
	memcpy(at, sg->off, ((size_t)sg->n + 1) * sizeof *at);
	sg->nbr = fx_xmalloc(((size_t)sg->off[sg->n] + 1) * sizeof *sg->nbr);
	for (int64_t e = 0; e < f->ne; e++)
		if (f->ends[2 * e] >= f->ndev) {
			int64_t x = f->ends[2 * e] - f->ndev, y = f->ends[2 * e + 1] - f->ndev;
			sg->nbr[at[x]++] = y;
			sg->nbr[at[y]++] = x;
		}
	free(at);
}

/* Hops between switches from src (every switch forwards). */
static void swgraph_bfs(const swgraph *sg, int64_t src, int32_t *dist, int64_t *queue)
{
	for (int64_t i = 0; i < sg->n; i++)
		dist[i] = -1;
	int64_t head = 0, tail = 0;
	dist[src] = 0;
	queue[tail++] = src;
	while (head < tail) {
		int64_t x = queue[head++];
		for (int64_t t = sg->off[x]; t < sg->off[x + 1]; t++)
			if (dist[sg->nbr[t]] < 0) {
				dist[sg->nbr[t]] = dist[x] + 1;
				queue[tail++] = sg->nbr[t];
			}
	}
}

/*
 * Hop counts: devices hang off edge switches, so two devices are 2 hops
 * apart on one switch and 2 + the switches' distance otherwise.  Rotating
 * the groups is an automorphism (the relative arrangement), so searches
 * over the switch graph from the edge switches of group 0 stand for every
 * group: `edge` searches of O(switches + links), exact.
 */
static int hops(const fx_fabric *f, double *hist, int *nhist, int64_t far[2], const char **how)
{
	const fx_dragonfly_state *s = &f->state.dragonfly;
	swgraph sg;
	swgraph_build(f, &sg);
	int32_t *dist = fx_xmalloc((size_t)sg.n * sizeof *dist);
	int64_t *queue = fx_xmalloc((size_t)sg.n * sizeof *queue);
	int64_t G = group_switches(s), best = -1;
	double pp = (double)s->p * (double)s->p, g = (double)s->g;
	int n = 3;
	memset(hist, 0, FX_HOPS_MAX * sizeof *hist);
	hist[2] = (double)f->ndev * (double)(s->p - 1);
	int rc = 0;
	for (int64_t u = 0; u < s->edge && rc == 0; u++) {
		swgraph_bfs(&sg, u, dist, queue);
		for (int64_t grp = 0; grp < s->g && rc == 0; grp++)
			for (int64_t w = 0; w < s->edge; w++) {
				int32_t dd = dist[grp * G + w];
				if (grp == 0 && w == u)
					continue;
				if (dd < 0 || dd + 2 >= FX_HOPS_MAX) {
					rc = -1;  /* not joined (cannot happen) or too far: search */
					break;
				}
				hist[dd + 2] += pp * g;
				if (dd + 3 > n)
					n = dd + 3;
				if (dd > best) {
					best = dd;
					far[0] = u * s->p;
					far[1] = (grp * s->edge + w) * s->p;
				}
			}
	}
	if (best < 0 && rc == 0) {  /* one edge switch in all: its devices */
		far[0] = 0;
		far[1] = f->ndev > 1 ? 1 : 0;
	}
	free(dist);
	free(queue);
	free(sg.off);
	free(sg.nbr);
	*nhist = n;
	*how = "exact: searches from one group's edge switches (rotating the groups maps the "
	       "fabric onto itself)";
	return rc;
}

/* Shrinks by whole groups: the largest g' <= g with g' - 1 dividing a x h
 * (every pair of groups keeps equal global links, now a h / (g' - 1) each). */
static int shrink(const fx_fabric *f, const fx_snode *fab, int64_t max_devices, fx_shrink *out)
{
	(void)fab;
	const fx_dragonfly_state *s = &f->state.dragonfly;
	int64_t per = s->edge * s->p, ah = s->a * s->h;
	snprintf(out->rule, sizeof out->rule, "whole groups of %lld devices (g - 1 dividing a x h = %lld)",
		 (long long)per, (long long)ah);
	out->devices = 0;
	for (int64_t g = max_devices / per < s->g ? max_devices / per : s->g; g >= 2; g--)
		if (ah % (g - 1) == 0) {
			out->devices = g * per;
			fx_shrink_set(out, "fabric.g=%lld", (long long)g);
			break;
		}
	return 0;
}

const fx_builder fx_builder_dragonfly = {
	.kind = "dragonfly",
	.summary = "groups of routers (complete, or leaf-spine: Dragonfly+) joined by global links",
	.params_size = sizeof(dragonfly_params),
	.parse = parse,
	.size = size,
	.build = build,
	.vertex_name = vertex_name,
	.halves = halves,
	.bisection = bisection,
	.shrink = shrink,
	.hops = hops,
	.router = FX_ROUTER_DRAGONFLY,
	.device_noun = "device",
	.caps = FX_KIND_UNEVEN,
};
