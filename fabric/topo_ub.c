/*
 * ub: Huawei Unified Bus two-level switching, as in CloudMatrix384.
 *
 * Each of `nodes` nodes holds `devices_per_node` NPUs, `cpus_per_node` CPUs
 * and `l1_per_node` first-level UB switch chips.  Every NPU links to every
 * L1 chip of its node (`device_links_per_l1` links each: 2 on CM384, one per
 * die); CPUs likewise with `cpu_links_per_l1`.  L1 chip i of every node
 * belongs to plane i and links to each of the `l2_per_plane` L2 chips of
 * that plane (`l1_l2_links` links each).  The planes are independent
 * two-tier Clos networks (CloudMatrix384 paper §3.3).
 */
#include <stdio.h>
#include <stdlib.h>

#include "../core/xalloc.h"
#include "fabric.h"

typedef struct ub_params {
	int64_t nodes, dpn, cpn, l1, planes, l2, l2_ports, l1_ports;
	int64_t dev_links, cpu_links, up_links;
	fx_linkspec link, cpu_link, uplink;
} ub_params;

static int parse(fx_diag *d, const fx_snode *fab, void *params)
{
	static const char *const keys[] = {
		"kind", "nodes", "devices_per_node", "cpus_per_node", "l1_per_node", "planes",
		"l2_per_plane", "l2_ports", "l1_ports", "device_links_per_l1", "cpu_links_per_l1",
		"l1_l2_links", "link", "cpu_link", "uplink", NULL};
	ub_params *p = params;
	int rc = fx_spec_keys(d, fab, keys);
	p->dev_links = p->cpu_links = p->up_links = 1;
	rc |= fx_spec_int(d, fab, "nodes", 1, 1 << 20, &p->nodes);
	rc |= fx_spec_int(d, fab, "devices_per_node", 1, 1 << 16, &p->dpn);
	rc |= fx_spec_int_opt(d, fab, "cpus_per_node", 0, 1 << 16, &p->cpn);
	rc |= fx_spec_int(d, fab, "l1_per_node", 1, 1 << 16, &p->l1);
	rc |= fx_spec_int(d, fab, "planes", 1, 1 << 16, &p->planes);
	rc |= fx_spec_int(d, fab, "l2_per_plane", 1, 1 << 16, &p->l2);
	rc |= fx_spec_int(d, fab, "l2_ports", 1, 1 << 20, &p->l2_ports);
	rc |= fx_spec_int_opt(d, fab, "l1_ports", 1, 1 << 20, &p->l1_ports);
	rc |= fx_spec_int_opt(d, fab, "device_links_per_l1", 1, 1 << 16, &p->dev_links);
	rc |= fx_spec_int_opt(d, fab, "cpu_links_per_l1", 0, 1 << 16, &p->cpu_links);
	rc |= fx_spec_int_opt(d, fab, "l1_l2_links", 1, 1 << 16, &p->up_links);
	rc |= fx_linkspec_get(d, fab, "link", 1, &p->link);
	if (rc)
		return -1;
	if (p->planes != p->l1)
		return fx_snode_error(d, fx_snode_get(fab, "planes"), "'%s.planes' (%lld) must equal "
				      "'l1_per_node' (%lld): L1 chip i of every node serves plane i",
				      fab->path, (long long)p->planes, (long long)p->l1);
	if (p->cpn == 0 && fx_snode_get(fab, "cpu_link"))
		return fx_snode_error(d, fx_snode_get(fab, "cpu_link"), "'%s.cpu_link' needs "
				      "'cpus_per_node'", fab->path);
	if (p->cpn > 0 && p->cpu_links == 0)
		return fx_snode_error(d, fx_snode_get(fab, "cpu_links_per_l1"), "'%s.cpu_links_per_l1' "
				      "must be at least 1 when nodes have CPUs", fab->path);
	p->cpu_link = p->uplink = p->link;
	if (fx_snode_get(fab, "cpu_link") && fx_linkspec_get(d, fab, "cpu_link", 1, &p->cpu_link))
		return -1;
	if (fx_snode_get(fab, "uplink") && fx_linkspec_get(d, fab, "uplink", 1, &p->uplink))
		return -1;
	return 0;
}

static void size(const void *params, fx_fabric_size *sz)
{
	const ub_params *p = params;
	sz->devices = p->nodes * p->dpn;
	sz->cpus = p->nodes * p->cpn;
	sz->switches = p->nodes * p->l1 + p->planes * p->l2;
	sz->edges = (sz->devices + (p->cpu_links ? sz->cpus : 0)) * p->l1 +
		    p->nodes * p->l1 * p->l2;
}

static int build(const void *params, fx_fabric *f, fx_diag *d)
{
	const ub_params *p = params;
	(void)d;
	for (int64_t n = 0; n < p->nodes; n++)
		for (int64_t i = 0; i < p->dpn; i++)
			fx_fb_vertex(f, FX_V_DEVICE, -1, n, -1);
	int r1 = fx_fb_role(f, "L1", (int)p->l1_ports, 1, "l1_ports");
	int r2 = fx_fb_role(f, "L2", (int)p->l2_ports, 2, "l2_ports");
	int64_t l1_0 = f->nv;
	for (int64_t n = 0; n < p->nodes; n++)
		for (int64_t i = 0; i < p->l1; i++)
			fx_fb_vertex(f, FX_V_SWITCH, r1, n, i);
	int64_t l2_0 = f->nv;
	for (int64_t pl = 0; pl < p->planes; pl++)
		for (int64_t j = 0; j < p->l2; j++)
			fx_fb_vertex(f, FX_V_SWITCH, r2, -1, pl);
	int64_t cpu0 = f->nv;
	for (int64_t n = 0; n < p->nodes; n++)
		for (int64_t c = 0; c < p->cpn; c++)
			fx_fb_vertex(f, FX_V_CPU, -1, n, -1);

	for (int64_t n = 0; n < p->nodes; n++)
		for (int64_t i = 0; i < p->l1; i++) {
			int64_t sw = l1_0 + n * p->l1 + i;
			for (int64_t k = 0; k < p->dpn; k++)
				fx_fb_link(f, n * p->dpn + k, sw, &p->link, (int)p->dev_links, 0);
			for (int64_t c = 0; c < p->cpn && p->cpu_links; c++)
				fx_fb_link(f, cpu0 + n * p->cpn + c, sw, &p->cpu_link, (int)p->cpu_links, 0);
			for (int64_t j = 0; j < p->l2; j++)
				fx_fb_link(f, sw, l2_0 + i * p->l2 + j, &p->uplink, (int)p->up_links, 1);
		}
	f->device_transitive = 1;
	f->state.ub = (fx_ub_state){
		.nodes = p->nodes, .devices_per_node = p->dpn, .planes = p->planes,
		.l2_per_plane = p->l2, .cpus_per_node = p->cpn,
	};
	return 0;
}

static void vname(const fx_fabric *f, int64_t v, char *buf, size_t len)
{
	const fx_vertex *x = &f->v[v];
	if (x->type == FX_V_DEVICE)
		snprintf(buf, len, "npu%d", x->index);
	else if (x->type == FX_V_CPU)
		snprintf(buf, len, "cpu%d", x->index);
	else if (x->role == 0) {  /* L1: node-major, one chip per plane */
		int64_t i = x->index - f->roles[0].first;
		snprintf(buf, len, "L1.n%lld.p%lld", (long long)(i / f->state.ub.planes),
			 (long long)(i % f->state.ub.planes));
	} else {
		int64_t i = x->index - f->roles[1].first;
		snprintf(buf, len, "L2.p%lld.%lld", (long long)(i / f->state.ub.l2_per_plane),
			 (long long)(i % f->state.ub.l2_per_plane));
	}
}

/* Half the NPUs' links to their L1 chips, or half the nodes' L1 uplinks:
 * every L2 chip sees both halves of the nodes equally. */
static double bisection(const fx_fabric *f, double *links)
{
	if (f->state.ub.nodes % 2)
		return -1;
	double dev = 0, up = 0, bwd = 0, bwu = 0;
	for (int64_t e = 0; e < f->ne; e++) {
		igraph_integer_t a = f->ends[2 * e];
		if (f->e[e].tier == 1) {
			up += f->e[e].count;
			bwu = f->e[e].bw;
		} else if (f->v[a].type == FX_V_DEVICE) {
			dev += f->e[e].count;
			bwd = f->e[e].bw;
		}
	}
	*links = dev / 2;
	double cap = dev / 2 * bwd;
	if (up / 2 * bwu < cap) {
		*links = up / 2;
		cap = up / 2 * bwu;
	}
	return cap;
}

/* Shrinks by whole nodes, keeping every L2 chip of every plane (an L2
 * chip has one port per node, so fewer nodes leave ports idle). */
static int shrink(const fx_fabric *f, const fx_snode *fab, int64_t max_devices, fx_shrink *out)
{
	(void)fab;
	int64_t dpn = f->state.ub.devices_per_node, k = max_devices / dpn;
	snprintf(out->rule, sizeof out->rule, "whole nodes of %lld devices", (long long)dpn);
	out->devices = k * dpn;
	if (k > 0)
		fx_shrink_set(out, "fabric.nodes=%lld", (long long)k);
	return 0;
}

/* ---- symmetries (fx_builder.symmetries; fabric/orbit.c checks them) ---- */

/* One candidate: node n goes to nmap[n]; within a node NPUs turn by ds
 * and CPUs by cs; planes turn by ps (each node's L1 chips with the
 * plane's L2 chips), the L2 chips within a plane by ls. */
typedef struct ub_move {
	const int64_t *nmap;
	int64_t ds, cs, ps, ls;
} ub_move;

static void ub_perm(const fx_fabric *f, const ub_move *m, int64_t *perm)
{
	const fx_ub_state *s = &f->state.ub;
	int64_t N = s->nodes, D = s->devices_per_node, P = s->planes, L2 = s->l2_per_plane;
	int64_t C = s->cpus_per_node, l1_0 = N * D, l2_0 = l1_0 + N * P, cpu0 = l2_0 + P * L2;
	for (int64_t n = 0; n < N; n++) {
		int64_t to = m->nmap[n];
		for (int64_t k = 0; k < D; k++)
			perm[n * D + k] = to * D + (k + m->ds) % D;
		for (int64_t i = 0; i < P; i++)
			perm[l1_0 + n * P + i] = l1_0 + to * P + (i + m->ps) % P;
		for (int64_t c = 0; c < C; c++)
			perm[cpu0 + n * C + c] = cpu0 + to * C + (c + m->cs) % C;
	}
	for (int64_t pl = 0; pl < P; pl++)
		for (int64_t j = 0; j < L2; j++)
			perm[l2_0 + pl * L2 + j] = l2_0 + ((pl + m->ps) % P) * L2 + (j + m->ls) % L2;
}

/* Turns of the NPUs within every node (by each divisor of their number,
 * so a placement's instances may be kept), of its CPUs, of the planes and
 * of the L2 chips of a plane; of the nodes as fx_fb_unit_turn moves them. */
static void ub_symmetries(const fx_fabric *f, void (*offer)(void *ctx, const int64_t *perm),
			  void *ctx)
{
	const fx_ub_state *s = &f->state.ub;
	int64_t N = s->nodes, D = s->devices_per_node;
	if (f->nv != N * (D + s->planes + s->cpus_per_node) + s->planes * s->l2_per_plane)
		return;
	int64_t *perm = fx_xmalloc((size_t)(f->nv + 1) * sizeof *perm);
	int64_t *id = fx_xmalloc((size_t)(N + 1) * sizeof *id), *nm = fx_xmalloc((size_t)(N + 1) * sizeof *nm);
	for (int64_t n = 0; n < N; n++)
		id[n] = n;
	for (int64_t d = 1; d < D; d++)
		if (D % d == 0) {
			ub_perm(f, &(ub_move){.nmap = id, .ds = d}, perm);
			offer(ctx, perm);
		}
	const ub_move turns[] = {{.nmap = id, .cs = 1}, {.nmap = id, .ps = 1}, {.nmap = id, .ls = 1}};
	for (size_t t = 0; t < sizeof turns / sizeof turns[0]; t++) {
		ub_perm(f, &turns[t], perm);
		offer(ctx, perm);
	}
	for (int k = 0; fx_fb_unit_turn(N, k, nm); k++) {
		ub_perm(f, &(ub_move){.nmap = nm}, perm);
		offer(ctx, perm);
	}
	free(nm);
	free(id);
	free(perm);
}

const fx_builder fx_builder_ub = {
	.kind = "ub",
	.summary = "Unified Bus two-level switching in independent planes (CloudMatrix384)",
	.params_size = sizeof(ub_params),
	.parse = parse,
	.size = size,
	.build = build,
	.vertex_name = vname,
	.halves = fx_fb_halves_by_index,
	.bisection = bisection,
	.shrink = shrink,
	.symmetries = ub_symmetries,
	.router = FX_ROUTER_ECMP,
	.device_noun = "NPU",
};
