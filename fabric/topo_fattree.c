/*
 * fat-tree: folded Clos networks of switch chips.
 *
 *   k: K            three-tier k-ary fat-tree: k pods of k/2 leaf and k/2
 *                   aggregation switches, (k/2)^2 cores, k^3/4 hosts.
 *   pods: P         with k: only P of the k pods installed (default k); the
 *                   cores stay whole, with idle ports (a capped build).
 *   tiers: 2        leaf-spine: hosts/d leaves with d hosts and u uplinks
 *                   each; `spines` spines (default u, one link from every
 *                   leaf to every spine).
 *   tiers: 3        leaves of d1 down / u1 up, pods of d2 leaves and u1
 *                   aggregation switches (every leaf to every aggregation
 *                   switch of its pod), aggregation switches with u2 uplinks
 *                   to u2 cores of their own core group.
 *
 * Host i sits on leaf i / d1; hosts, leaves and pods are numbered in order,
 * so the first half of the hosts is the first half of the pods.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../core/xalloc.h"
#include "fabric.h"

typedef struct fattree_params {
	int64_t tiers, radix, hosts;
	int64_t d[2], u[2];       /* down/up ports of tiers 1 and 2 */
	int64_t spines;           /* tiers: 2 only */
	fx_linkspec link[3];      /* host-leaf, leaf-up, agg-core */
} fattree_params;

static int parse_down_up(fx_diag *d, const fx_snode *fab, fattree_params *p)
{
	const fx_snode *s;
	if (fx_spec_seq(d, fab, "down_up", 1, &s))
		return -1;
	/* [d, u] for the leaves alone, or [[d1, u1], [d2, u2]] per tier */
	int nested = s->n > 0 && s->items[0]->kind == FX_SNODE_SEQ;
	size_t want = (size_t)p->tiers - 1;
	if (!nested && want == 1 && s->n == 2)
		return fx_snode_int(d, s->items[0], 1, 1 << 20, &p->d[0]) |
		       fx_snode_int(d, s->items[1], 1, 1 << 20, &p->u[0]);
	if (!nested || s->n != want)
		return fx_snode_error(d, s, "'%s' must give [down, up] ports for each of the %zu "
				      "lower tiers, e.g. %s", s->path, want,
				      want == 1 ? "[48, 16]" : "[[32, 32], [32, 32]]");
	int rc = 0;
	for (size_t t = 0; t < want; t++) {
		const fx_snode *pr = s->items[t];
		if (pr->kind != FX_SNODE_SEQ || pr->n != 2)
			return fx_snode_error(d, pr, "'%s' must be [down, up]", pr->path);
		rc |= fx_snode_int(d, pr->items[0], 1, 1 << 20, &p->d[t]);
		rc |= fx_snode_int(d, pr->items[1], 1, 1 << 20, &p->u[t]);
	}
	return rc;
}

/* The [down, up] pair of tier t+1 in down_up, or down_up itself when it is
 * the flat [down, up] of a two-tier tree. */
static const fx_snode *tier_pair(const fx_snode *du, int t)
{
	if (du->n > (size_t)t && du->items[t]->kind == FX_SNODE_SEQ)
		return du->items[t];
	return du;
}

static int parse_links(fx_diag *d, const fx_snode *fab, fattree_params *p)
{
	return fx_fb_tier_links(d, fab, p->tiers, "host-leaf", p->link);
}

static int parse(fx_diag *d, const fx_snode *fab, void *params)
{
	static const char *const keys[] = {"kind", "k", "tiers", "radix", "hosts", "down_up",
					   "spines", "link", "tier_links", "pods", NULL};
	fattree_params *p = params;
	if (fx_spec_keys(d, fab, keys))
		return -1;
	const fx_snode *k = fx_snode_get(fab, "k");
	if (k) {
		int64_t kk;
		for (const char *const *x = keys + 2; *x; x++)
			if (strcmp(*x, "link") && strcmp(*x, "tier_links") && strcmp(*x, "pods") &&
			    fx_snode_get(fab, *x))
				return fx_snode_error(d, fx_snode_get(fab, *x),
						      "'%s.%s' cannot be combined with 'k' (k sets the whole tree)",
						      fab->path, *x);
		if (fx_snode_int(d, k, 2, 1 << 12, &kk))
			return -1;
		if (kk % 2)
			return fx_snode_error(d, k, "'%s' must be even, got %lld", k->path, (long long)kk);
		int64_t pods = kk;
		if (fx_spec_int_opt(d, fab, "pods", 1, kk, &pods))
			return -1;
		p->tiers = 3;
		p->radix = kk;
		p->hosts = pods * kk * kk / 4;
		p->d[0] = p->u[0] = p->d[1] = p->u[1] = kk / 2;
		return parse_links(d, fab, p);
	}
	if (fx_snode_get(fab, "pods"))
		return fx_snode_error(d, fx_snode_get(fab, "pods"), "'%s.pods' applies to a k-ary "
				      "fat-tree ('k'); give 'hosts' otherwise", fab->path);
	int rc = fx_spec_int(d, fab, "tiers", 2, 3, &p->tiers);
	rc |= fx_spec_int(d, fab, "radix", 2, 1 << 20, &p->radix);
	rc |= fx_spec_int(d, fab, "hosts", 1, INT32_MAX, &p->hosts);
	if (rc)
		return -1;
	if (parse_down_up(d, fab, p) || parse_links(d, fab, p))
		return -1;
	const fx_snode *du = fx_snode_get(fab, "down_up");
	for (int t = 0; t < p->tiers - 1; t++)
		if (p->d[t] + p->u[t] > p->radix) {
			const fx_snode *pr = tier_pair(du, t);
			return fx_snode_error(d, pr, "'%s' gives tier %d switches %lld + %lld ports "
					      "but '%s.radix' is %lld", pr->path, t + 1,
					      (long long)p->d[t], (long long)p->u[t], fab->path,
					      (long long)p->radix);
		}
	if (p->hosts % p->d[0])
		return fx_snode_error(d, fx_snode_get(fab, "hosts"), "'%s.hosts' (%lld) must be a "
				      "multiple of the %lld host ports per leaf", fab->path,
				      (long long)p->hosts, (long long)p->d[0]);
	int64_t leaves = p->hosts / p->d[0];
	if (p->tiers == 2) {
		p->spines = p->u[0];
		if (fx_spec_int_opt(d, fab, "spines", 1, 1 << 20, &p->spines))
			return -1;
		if (p->u[0] % p->spines)
			return fx_snode_error(d, fx_snode_get(fab, "spines"), "'%s.spines' (%lld) must "
					      "divide the %lld uplinks of each leaf", fab->path,
					      (long long)p->spines, (long long)p->u[0]);
	} else {
		if (fx_snode_get(fab, "spines"))
			return fx_snode_error(d, fx_snode_get(fab, "spines"),
					      "'%s.spines' applies to two-tier fat-trees only", fab->path);
		if (leaves % p->d[1]) {
			const fx_snode *pr = tier_pair(du, 1);
			return fx_snode_error(d, pr, "'%s' makes pods of %lld leaves (tier 2 down "
					      "ports), but the %lld leaves of '%s.hosts' do not fill "
					      "whole pods", pr->path, (long long)p->d[1],
					      (long long)leaves, fab->path);
		}
	}
	return 0;
}

static void size(const void *params, fx_fabric_size *sz)
{
	const fattree_params *p = params;
	int64_t leaves = p->hosts / p->d[0];
	sz->devices = p->hosts;
	if (p->tiers == 2) {
		sz->switches = leaves + p->spines;
		sz->edges = p->hosts + leaves * p->spines;
	} else {
		int64_t pods = leaves / p->d[1];
		int64_t aggs = pods * p->u[0];
		sz->switches = leaves + aggs + p->u[0] * p->u[1];
		sz->edges = p->hosts + leaves * p->u[0] + aggs * p->u[1];
	}
}

static int build(const void *params, fx_fabric *f, fx_diag *d)
{
	const fattree_params *p = params;
	(void)d;
	int64_t leaves = p->hosts / p->d[0];
	for (int64_t h = 0; h < p->hosts; h++)
		fx_fb_vertex(f, FX_V_DEVICE, -1, -1, -1);
	int rleaf = fx_fb_role(f, "leaf", (int)p->radix, 1, "radix");
	int64_t leaf0 = f->nv;
	for (int64_t l = 0; l < leaves; l++)
		fx_fb_vertex(f, FX_V_SWITCH, rleaf, -1, -1);
	for (int64_t h = 0; h < p->hosts; h++)
		fx_fb_link(f, h, leaf0 + h / p->d[0], &p->link[0], 1, 0);
	if (p->tiers == 2) {
		int rs = fx_fb_role(f, "spine", (int)p->radix, 2, "radix");
		int64_t sp0 = f->nv;
		for (int64_t s = 0; s < p->spines; s++)
			fx_fb_vertex(f, FX_V_SWITCH, rs, -1, -1);
		for (int64_t l = 0; l < leaves; l++)
			for (int64_t s = 0; s < p->spines; s++)
				fx_fb_link(f, leaf0 + l, sp0 + s, &p->link[1], (int)(p->u[0] / p->spines), 1);
	} else {
		int64_t pods = leaves / p->d[1];
		int ragg = fx_fb_role(f, "agg", (int)p->radix, 2, "radix");
		int rcore = fx_fb_role(f, "core", (int)p->radix, 3, "radix");
		int64_t agg0 = f->nv;
		for (int64_t a = 0; a < pods * p->u[0]; a++)
			fx_fb_vertex(f, FX_V_SWITCH, ragg, -1, -1);
		int64_t core0 = f->nv;
		for (int64_t c = 0; c < p->u[0] * p->u[1]; c++)
			fx_fb_vertex(f, FX_V_SWITCH, rcore, -1, -1);
		for (int64_t l = 0; l < leaves; l++) {
			int64_t pod = l / p->d[1];
			for (int64_t a = 0; a < p->u[0]; a++)
				fx_fb_link(f, leaf0 + l, agg0 + pod * p->u[0] + a, &p->link[1], 1, 1);
		}
		/* aggregation switch a of every pod serves core group a */
		for (int64_t pod = 0; pod < pods; pod++)
			for (int64_t a = 0; a < p->u[0]; a++)
				for (int64_t c = 0; c < p->u[1]; c++)
					fx_fb_link(f, agg0 + pod * p->u[0] + a, core0 + a * p->u[1] + c,
						   &p->link[2], 1, 2);
	}
	f->device_transitive = 1;
	f->state.fattree = (fx_fattree_state){
		.tiers = p->tiers, .d1 = p->d[0], .u1 = p->u[0], .d2 = p->d[1], .u2 = p->u[1],
		.spines = p->spines,
	};
	return 0;
}

/* Smallest of the capacities each tier offers half of the hosts, when the
 * halves hold whole leaves (two tiers) or whole pods (three tiers). */
static double bisection(const fx_fabric *f, double *links)
{
	const fx_fattree_state *s = &f->state.fattree;
	int64_t tiers = s->tiers, d1 = s->d1, u1 = s->u1, d2 = s->d2, u2 = s->u2;
	int64_t leaves = f->ndev / d1;
	double cap[3], cnt[3];
	const fx_link *l[3] = {NULL, NULL, NULL};
	for (int64_t e = 0; e < f->ne; e++)
		if (!l[f->e[e].tier])
			l[f->e[e].tier] = &f->e[e];
	if (leaves % 2 || (tiers == 3 && (leaves / d2) % 2))
		return -1;
	cnt[0] = (double)f->ndev / 2;
	cnt[1] = (double)leaves / 2 * u1;
	cnt[2] = tiers == 3 ? (double)(leaves / d2) / 2 * u1 * u2 : 0;
	int best = 0;
	for (int t = 0; t < tiers; t++) {
		cap[t] = cnt[t] * l[t]->bw;
		if (cap[t] < cap[best])
			best = t;
	}
	*links = cnt[best];
	return cap[best];
}

/* Shrinks by whole leaves (two tiers: d hosts each) or whole pods (three
 * tiers: d1 x d2 hosts each; `pods` of a k-ary tree), keeping the
 * switches above them. */
static int shrink(const fx_fabric *f, const fx_snode *fab, int64_t max_devices, fx_shrink *out)
{
	const fx_fattree_state *s = &f->state.fattree;
	int64_t unit = s->tiers == 2 ? s->d1 : s->d1 * s->d2;
	snprintf(out->rule, sizeof out->rule, "whole %s of %lld hosts", s->tiers == 2 ? "leaves" : "pods",
		 (long long)unit);
	out->devices = max_devices / unit * unit;
	if (out->devices == 0)
		return 0;
	if (fx_snode_get(fab, "k"))
		fx_shrink_set(out, "fabric.pods=%lld", (long long)(out->devices / unit));
	else
		fx_shrink_set(out, "fabric.hosts=%lld", (long long)out->devices);
	return 0;
}

/* ---- symmetries (fx_builder.symmetries; fabric/orbit.c checks them) ---- */

/* One candidate: unit u (a pod, or a leaf of a two-tier tree) goes to
 * umap[u]; within it leaves turn by ls, hosts within their leaf by hs,
 * aggregation switches (with their core groups) by as, cores within a
 * group by cs, spines by ss. */
typedef struct ft_move {
	const int64_t *umap;
	int64_t ls, hs, as, cs, ss;
} ft_move;

static void ft_perm(const fx_fabric *f, const ft_move *m, int64_t *perm)
{
	const fx_fattree_state *s = &f->state.fattree;
	int64_t H = f->ndev, d1 = s->d1, L = H / d1, d2 = s->tiers == 3 ? s->d2 : 1;
	int64_t leaf0 = H, up0 = H + L;
	for (int64_t l = 0; l < L; l++) {
		int64_t u = l / d2, j = l % d2, to = m->umap[u] * d2 + (j + m->ls) % d2;
		perm[leaf0 + l] = leaf0 + to;
		for (int64_t i = 0; i < d1; i++)
			perm[l * d1 + i] = to * d1 + (i + m->hs) % d1;
	}
	if (s->tiers == 2) {
		for (int64_t x = 0; x < s->spines; x++)
			perm[up0 + x] = up0 + (x + m->ss) % s->spines;
		return;
	}
	int64_t P = L / d2, u1 = s->u1, u2 = s->u2, core0 = up0 + P * u1;
	for (int64_t u = 0; u < P; u++)
		for (int64_t a = 0; a < u1; a++)
			perm[up0 + u * u1 + a] = up0 + m->umap[u] * u1 + (a + m->as) % u1;
	for (int64_t a = 0; a < u1; a++)
		for (int64_t c = 0; c < u2; c++)
			perm[core0 + a * u2 + c] = core0 + ((a + m->as) % u1) * u2 + (c + m->cs) % u2;
}

/* Turns of hosts within leaves (by each divisor of their number, so a
 * placement's instances may be kept), of leaves within pods, of
 * aggregation switches with their core groups, of cores within a group and
 * of spines; of the pods (or two-tier leaves) as fx_fb_unit_turn moves
 * them. */
static void fattree_symmetries(const fx_fabric *f, void (*offer)(void *ctx, const int64_t *perm),
			       void *ctx)
{
	const fx_fattree_state *s = &f->state.fattree;
	int64_t d1 = s->d1, L = f->ndev / d1, d2 = s->tiers == 3 ? s->d2 : 1, P = L / d2;
	int64_t want = f->ndev + L + (s->tiers == 2 ? s->spines : P * s->u1 + s->u1 * s->u2);
	if (f->nv != want || f->ndev % d1 || L % d2)
		return;
	int64_t *perm = fx_xmalloc((size_t)(f->nv + 1) * sizeof *perm);
	int64_t *id = fx_xmalloc((size_t)(P + 1) * sizeof *id), *um = fx_xmalloc((size_t)(P + 1) * sizeof *um);
	for (int64_t u = 0; u < P; u++)
		id[u] = u;
	for (int64_t d = 1; d < d1; d++)
		if (d1 % d == 0) {
			ft_perm(f, &(ft_move){.umap = id, .hs = d}, perm);
			offer(ctx, perm);
		}
	const ft_move turns[] = {
		{.umap = id, .ls = 1}, {.umap = id, .as = 1}, {.umap = id, .cs = 1}, {.umap = id, .ss = 1},
	};
	for (size_t t = 0; t < sizeof turns / sizeof turns[0]; t++) {
		ft_perm(f, &turns[t], perm);
		offer(ctx, perm);
	}
	for (int k = 0; fx_fb_unit_turn(P, k, um); k++) {
		ft_perm(f, &(ft_move){.umap = um}, perm);
		offer(ctx, perm);
	}
	free(um);
	free(id);
	free(perm);
}

const fx_builder fx_builder_fattree = {
	.kind = "fat-tree",
	.summary = "folded Clos of switch chips: k-ary three-tier, or two/three tiers with port splits",
	.params_size = sizeof(fattree_params),
	.parse = parse,
	.size = size,
	.build = build,
	.halves = fx_fb_halves_by_index,
	.bisection = bisection,
	.shrink = shrink,
	.symmetries = fattree_symmetries,
	.router = FX_ROUTER_ECMP,
	.device_noun = "device",
};
