/*
 * rail-clos: a rail-optimised Clos network (NVIDIA's DGX SuperPOD compute
 * fabric, the 2,048-GPU two-tier RoCE build of issue 27).
 *
 *   servers: S        servers (nodes), each with `rails` endpoints: GPU j of
 *                     a server owns the NIC of rail j
 *   rails: R          endpoints per server
 *   servers_per_leaf: m   a scalable unit (SU): m servers whose rail-r
 *                     endpoints share one leaf; S/m SUs of R leaves each
 *   planes: P         independent copies of the network; every endpoint has
 *                     one port (link) in each plane
 *   taper: t          leaf down:up ratio; u = m / t uplinks per leaf
 *                     (or `leaf_uplinks: u`)
 *   tiers: 2          per plane, `spines` spines (default u); every leaf
 *                     sends u/spines links to every spine
 *   tiers: 3          SUs grouped `sus_per_pod` to a pod with `spines` pod
 *                     spines (default u); every leaf of the pod sends
 *                     u/spines links to each; pod spine a has u2 =
 *                     down / `spine_taper` uplinks, one to each of the u2
 *                     cores of core group a (cores: spines x u2 per plane)
 *
 * Endpoint e = s*R + r is rail r of server s (node s).  Its links come
 * first, endpoint by endpoint, one per plane, so NIC i's ports are edges
 * i*P .. i*P + P-1 (fx_fabric.nic_edge0).  Switches follow role by role
 * (leaves, spines, cores), plane by plane; leaf (p, g, r) is rail r of SU
 * g in plane p.
 *
 * Hop counts (closed form, exact; tests check it against igraph): rail r
 * of the same SU, 2 hops (m - 1 partners); two tiers, every other endpoint
 * 4 hops; three tiers, the rest of the pod 4, other pods 6.  Every
 * endpoint is alike (servers, SUs, pods and rails permute), so one search
 * stands for all.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fabric.h"

typedef struct rc_params {
	int64_t servers, rails, per_leaf, planes, tiers, radix;
	int64_t up;             /* leaf uplinks u */
	int64_t spines;         /* per plane (2 tiers) or per pod (3 tiers) */
	int64_t sus_per_pod, spine_up;
	fx_linkspec link[3];    /* endpoint-leaf, leaf-spine, spine-core */
} rc_params;

static int parse_links(fx_diag *d, const fx_snode *fab, rc_params *p)
{
	return fx_fb_tier_links(d, fab, p->tiers, "endpoint-leaf", p->link);
}

static int parse(fx_diag *d, const fx_snode *fab, void *params)
{
	static const char *const keys[] = {"kind", "servers", "rails", "servers_per_leaf", "planes",
					   "tiers", "radix", "taper", "leaf_uplinks", "spines",
					   "sus_per_pod", "spine_taper", "link", "tier_links", NULL};
	rc_params *p = params;
	int64_t taper = 1, spine_taper = 1;
	p->planes = 1;
	p->tiers = 2;
	int rc = fx_spec_keys(d, fab, keys);
	rc |= fx_spec_int(d, fab, "servers", 1, INT32_MAX, &p->servers);
	rc |= fx_spec_int(d, fab, "rails", 1, 1 << 16, &p->rails);
	rc |= fx_spec_int(d, fab, "servers_per_leaf", 1, 1 << 20, &p->per_leaf);
	rc |= fx_spec_int_opt(d, fab, "planes", 1, 1 << 10, &p->planes);
	rc |= fx_spec_int_opt(d, fab, "tiers", 2, 3, &p->tiers);
	rc |= fx_spec_int(d, fab, "radix", 2, 1 << 20, &p->radix);
	rc |= fx_spec_int_opt(d, fab, "taper", 1, 1 << 20, &taper);
	rc |= fx_spec_int_opt(d, fab, "spine_taper", 1, 1 << 20, &spine_taper);
	if (rc)
		return -1;
	const fx_snode *tp = fx_snode_get(fab, "taper"), *lu = fx_snode_get(fab, "leaf_uplinks");
	if (tp && lu)
		return fx_snode_error(d, lu, "give either '%s.taper' or '%s.leaf_uplinks', not both",
				      fab->path, fab->path);
	if (lu) {
		if (fx_snode_int(d, lu, 1, 1 << 20, &p->up))
			return -1;
	} else if (p->per_leaf % taper) {
		return fx_snode_error(d, tp, "'%s' (%lld) must divide the %lld servers of a leaf "
				      "('%s.servers_per_leaf'); give '%s.leaf_uplinks' for other splits",
				      tp->path, (long long)taper, (long long)p->per_leaf, fab->path,
				      fab->path);
	} else {
		p->up = p->per_leaf / taper;
	}
	if (p->servers % p->per_leaf)
		return fx_snode_error(d, fx_snode_get(fab, "servers"), "'%s.servers' (%lld) must be a "
				      "multiple of '%s.servers_per_leaf' (%lld): whole scalable units",
				      fab->path, (long long)p->servers, fab->path, (long long)p->per_leaf);
	if (p->per_leaf + p->up > p->radix)
		return fx_snode_error(d, fx_snode_get(fab, "radix"), "'%s.radix' (%lld) is less than a "
				      "leaf's %lld down + %lld up ports", fab->path, (long long)p->radix,
				      (long long)p->per_leaf, (long long)p->up);
	int64_t sus = p->servers / p->per_leaf;
	p->spines = p->up;
	if (fx_spec_int_opt(d, fab, "spines", 1, 1 << 20, &p->spines))
		return -1;
	if (p->up % p->spines)
		return fx_snode_error(d, fx_snode_get(fab, "spines"), "'%s.spines' (%lld) must divide "
				      "the %lld uplinks of each leaf", fab->path, (long long)p->spines,
				      (long long)p->up);
	if (p->tiers == 2) {
		static const char *const three[] = {"sus_per_pod", "spine_taper", NULL};
		for (const char *const *k = three; *k; k++)
			if (fx_snode_get(fab, *k))
				return fx_snode_error(d, fx_snode_get(fab, *k), "'%s.%s' applies to "
						      "three tiers ('%s.tiers: 3')", fab->path, *k, fab->path);
	} else {
		if (fx_spec_int(d, fab, "sus_per_pod", 1, 1 << 20, &p->sus_per_pod))
			return -1;
		if (sus % p->sus_per_pod)
			return fx_snode_error(d, fx_snode_get(fab, "sus_per_pod"), "'%s.sus_per_pod' "
					      "(%lld) must divide the %lld scalable units", fab->path,
					      (long long)p->sus_per_pod, (long long)sus);
		int64_t down = p->sus_per_pod * p->rails * (p->up / p->spines);
		if (down % spine_taper)
			return fx_snode_error(d, fx_snode_get(fab, "spine_taper"), "'%s.spine_taper' "
					      "(%lld) must divide a pod spine's %lld down ports", fab->path,
					      (long long)spine_taper, (long long)down);
		p->spine_up = down / spine_taper;
	}
	return parse_links(d, fab, p);
}

static int64_t leaves_per_plane(const rc_params *p)
{
	return p->servers / p->per_leaf * p->rails;
}

static int64_t spines_per_plane(const rc_params *p)
{
	return p->tiers == 2 ? p->spines
			     : p->servers / p->per_leaf / p->sus_per_pod * p->spines;
}

static void size(const void *params, fx_fabric_size *sz)
{
	const rc_params *p = params;
	int64_t leaves = leaves_per_plane(p), spines = spines_per_plane(p);
	int64_t cores = p->tiers == 3 ? p->spines * p->spine_up : 0;
	sz->devices = p->servers * p->rails;
	sz->switches = p->planes * (leaves + spines + cores);
	sz->edges = sz->devices * p->planes +
		    p->planes * (p->tiers == 2 ? leaves * p->spines
					       : leaves * p->spines + spines * p->spine_up);
}

static int build(const void *params, fx_fabric *f, fx_diag *d)
{
	const rc_params *p = params;
	(void)d;
	int64_t R = p->rails, m = p->per_leaf, P = p->planes;
	int64_t leaves = leaves_per_plane(p), spines = spines_per_plane(p);
	int64_t cores = p->tiers == 3 ? p->spines * p->spine_up : 0;
	for (int64_t s = 0; s < p->servers; s++)
		for (int64_t r = 0; r < R; r++)
			fx_fb_vertex(f, FX_V_DEVICE, -1, s, -1);
	int rl = fx_fb_role(f, "leaf", (int)p->radix, 1, "radix");
	int rs = fx_fb_role(f, "spine", (int)p->radix, 2, "radix");
	int rcore = p->tiers == 3 ? fx_fb_role(f, "core", (int)p->radix, 3, "radix") : -1;
	int64_t leaf0 = f->nv;
	for (int64_t pl = 0; pl < P; pl++)
		for (int64_t l = 0; l < leaves; l++)
			fx_fb_vertex(f, FX_V_SWITCH, rl, -1, pl);
	int64_t sp0 = f->nv;
	for (int64_t pl = 0; pl < P; pl++)
		for (int64_t s = 0; s < spines; s++)
			fx_fb_vertex(f, FX_V_SWITCH, rs, -1, pl);
	int64_t core0 = f->nv;
	for (int64_t pl = 0; pl < P; pl++)
		for (int64_t c = 0; c < cores; c++)
			fx_fb_vertex(f, FX_V_SWITCH, rcore, -1, pl);
	/* endpoint links first: NIC e's ports are edges e*P .. e*P + P-1 */
	for (int64_t e = 0; e < p->servers * R; e++) {
		int64_t s = e / R, r = e % R, g = s / m;
		for (int64_t pl = 0; pl < P; pl++)
			fx_fb_link(f, e, leaf0 + pl * leaves + g * R + r, &p->link[0], 1, 0);
	}
	int per = (int)(p->up / p->spines);
	for (int64_t pl = 0; pl < P; pl++)
		for (int64_t l = 0; l < leaves; l++) {
			int64_t pod = p->tiers == 3 ? l / (p->sus_per_pod * R) : 0;
			for (int64_t s = 0; s < p->spines; s++)
				fx_fb_link(f, leaf0 + pl * leaves + l, sp0 + pl * spines + pod * p->spines + s,
					   &p->link[1], per, 1);
		}
	/* pod spine a of every pod serves core group a */
	for (int64_t pl = 0; pl < P && cores; pl++)
		for (int64_t s = 0; s < spines; s++)
			for (int64_t c = 0; c < p->spine_up; c++)
				fx_fb_link(f, sp0 + pl * spines + s,
					   core0 + pl * cores + (s % p->spines) * p->spine_up + c, &p->link[2],
					   1, 2);
	f->device_transitive = 1;
	f->nic_edge0 = 0;
	f->nnics = p->servers * R;
	f->nic_ports = (int)P;
	f->state.railclos = (fx_railclos_state){
		.servers = p->servers, .rails = R, .per_leaf = m, .planes = P, .tiers = p->tiers,
		.up = p->up, .spines = p->spines, .sus_per_pod = p->sus_per_pod,
		.spine_up = p->spine_up,
	};
	return 0;
}

/* gpu7; leaf.r3.s1 (rail 3 of SU 1), spine.5, core.2, with ".p1" for
 * plane 1 when there are several. */
static void vname(const fx_fabric *f, int64_t v, char *buf, size_t len)
{
	const fx_railclos_state *s = &f->state.railclos;
	const fx_vertex *x = &f->v[v];
	if (x->type != FX_V_SWITCH) {
		snprintf(buf, len, "gpu%d", x->index);
		return;
	}
	const fx_role *r = &f->roles[x->role];
	int64_t i = x->index - r->first, per_plane = r->count / s->planes;
	char plane[24] = "";
	if (s->planes > 1)
		snprintf(plane, sizeof plane, ".p%d", x->plane);
	i %= per_plane;
	if (x->role == 0)
		snprintf(buf, len, "leaf%s.r%lld.s%lld", plane, (long long)(i % s->rails),
			 (long long)(i / s->rails));
	else
		snprintf(buf, len, "%s%s.%lld", r->name, plane, (long long)i);
}

/* The canonical split (the first half of the SUs, or of the pods, against
 * the rest) cuts the least of: half the endpoints' links, half the SUs'
 * leaf uplinks, (three tiers) half the pods' spine uplinks, in every
 * plane.  Exact: tests/unit/test_railclos.c checks every balanced split
 * of small builds by max-flow. */
static int halves(const fx_fabric *f, uint8_t *side)
{
	const fx_railclos_state *s = &f->state.railclos;
	int64_t sus = s->servers / s->per_leaf;
	int64_t units = s->tiers == 3 ? sus / s->sus_per_pod : sus;
	fx_fb_halves_by_index(f, side);
	return f->ndev % 2 ? 0 : units % 2 ? 2 : 1;
}

static double bisection(const fx_fabric *f, double *links)
{
	const fx_railclos_state *s = &f->state.railclos;
	const fx_link *l[3] = {NULL, NULL, NULL};
	for (int64_t e = 0; e < f->ne; e++)
		if (!l[f->e[e].tier])
			l[f->e[e].tier] = &f->e[e];
	int64_t sus = s->servers / s->per_leaf;
	/* an odd number of SUs (or pods) splits through one: the halves then
	 * only bound the bisection, and the formula below is not their cut */
	if ((s->tiers == 3 ? sus / s->sus_per_pod : sus) % 2)
		return -1;
	double cnt[3];
	cnt[0] = (double)f->ndev / 2 * (double)s->planes;
	cnt[1] = (double)sus / 2 * (double)s->rails * (double)s->up * (double)s->planes;
	cnt[2] = s->tiers == 3 ? (double)(sus / s->sus_per_pod) / 2 * (double)s->spines *
				 (double)s->spine_up * (double)s->planes
			       : 0;
	int best = 0;
	double cap[3];
	for (int t = 0; t < s->tiers; t++) {
		cap[t] = cnt[t] * l[t]->bw;
		if (cap[t] < cap[best])
			best = t;
	}
	*links = cnt[best];
	return cap[best];
}

/* Shrinks by whole scalable units (two tiers) or pods (three), keeping
 * every spine and core: the switches above stay, with idle ports. */
static int shrink(const fx_fabric *f, const fx_snode *fab, int64_t max_devices, fx_shrink *out)
{
	(void)fab;
	const fx_railclos_state *s = &f->state.railclos;
	int64_t unit = s->per_leaf * (s->tiers == 3 ? s->sus_per_pod : 1);
	snprintf(out->rule, sizeof out->rule, "whole %s of %lld servers (%lld endpoints)",
		 s->tiers == 3 ? "pods" : "scalable units", (long long)unit,
		 (long long)(unit * s->rails));
	int64_t k = max_devices / (unit * s->rails);
	out->devices = k * unit * s->rails;
	if (k > 0)
		fx_shrink_set(out, "fabric.servers=%lld", (long long)(k * unit));
	return 0;
}

const fx_builder fx_builder_railclos = {
	.kind = "rail-clos",
	.summary = "rail-optimised Clos: per-rail leaves in scalable units, planes, 2 or 3 tiers, taper",
	.params_size = sizeof(rc_params),
	.parse = parse,
	.size = size,
	.build = build,
	.vertex_name = vname,
	.halves = halves,
	.bisection = bisection,
	.shrink = shrink,
	.router = FX_ROUTER_ECMP,
	.device_noun = "GPU",
};
