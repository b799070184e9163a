/*
 * nvswitch: NVLink switch domains.
 *
 * One domain holds `devices` GPUs and `switches` NVSwitch chips of
 * `switch_ports` ports.  Every GPU has `device_links` NVLinks spread over the
 * chips as `links_to_switch` says ([5, 4, 4, 5] on HGX H100; one to each of
 * 18 chips on GB200 NVL72).  `cpus` Grace/host CPUs may hang off the GPUs by
 * C2C links.
 *
 * With `nodes` > 1 the domains are joined by a second tier (the NVLink Switch
 * System): chip j of every node has uplinks_per_switch[j] uplinks, and the
 * node's uplinks, taken in chip order, go round-robin over `spine_switches`
 * spine chips of `spine_ports` ports, so each spine sees the same number of
 * links from every node.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../core/xalloc.h"
#include "fabric.h"

typedef struct nvs_params {
	int64_t devices, switches, ports, device_links, nodes;
	int64_t *to_switch;     /* [switches] links from each GPU to chip j */
	int64_t *uplinks;       /* [switches] uplinks of chip j (second tier) */
	int64_t spines, spine_ports;
	int64_t cpus;           /* per node */
	fx_linkspec link, spine_link, cpu_link;
} nvs_params;

/* An integer or a list of `n` integers, as an array the caller frees. */
static int int_or_list(fx_diag *d, const fx_snode *fab, const char *key, int64_t n,
		       int64_t dflt, int64_t **out)
{
	const fx_snode *s = fx_snode_get(fab, key);
	int64_t *v = fx_xcalloc((size_t)n, sizeof *v);
	*out = v;
	for (int64_t i = 0; i < n; i++)
		v[i] = dflt;
	if (!s)
		return 0;
	if (s->kind == FX_SNODE_SCALAR) {
		int64_t x;
		if (fx_snode_int(d, s, 0, 1 << 20, &x))
			return -1;
		for (int64_t i = 0; i < n; i++)
			v[i] = x;
		return 0;
	}
	if (s->kind != FX_SNODE_SEQ || s->n != (size_t)n)
		return fx_snode_error(d, s, "'%s' must be a number or a list of %lld numbers (one per "
				      "switch chip)", s->path, (long long)n);
	int rc = 0;
	for (int64_t i = 0; i < n; i++)
		rc |= fx_snode_int(d, s->items[i], 0, 1 << 20, &v[i]);
	return rc;
}

static int parse(fx_diag *d, const fx_snode *fab, void *params)
{
	static const char *const keys[] = {"kind", "devices", "switches", "switch_ports",
					   "device_links", "links_to_switch", "nodes",
					   "uplinks_per_switch", "spine_switches", "spine_ports",
					   "cpus", "link", "spine_link", "cpu_link", NULL};
	nvs_params *p = params;
	int rc = fx_spec_keys(d, fab, keys);
	p->nodes = 1;
	rc |= fx_spec_int(d, fab, "devices", 1, 1 << 20, &p->devices);
	rc |= fx_spec_int(d, fab, "switches", 1, 1 << 16, &p->switches);
	rc |= fx_spec_int(d, fab, "switch_ports", 1, 1 << 20, &p->ports);
	rc |= fx_spec_int(d, fab, "device_links", 1, 1 << 16, &p->device_links);
	rc |= fx_spec_int_opt(d, fab, "nodes", 1, 1 << 20, &p->nodes);
	rc |= fx_spec_int_opt(d, fab, "cpus", 0, 1 << 20, &p->cpus);
	rc |= fx_linkspec_get(d, fab, "link", 1, &p->link);
	if (rc)
		return -1;

	const fx_snode *lts = fx_snode_get(fab, "links_to_switch");
	if (!lts && p->device_links % p->switches)
		return fx_snode_error(d, fx_snode_get(fab, "device_links"),
				      "'%s.device_links' (%lld) is not a multiple of '%s.switches' "
				      "(%lld); give '%s.links_to_switch' to spread them unevenly",
				      fab->path, (long long)p->device_links, fab->path,
				      (long long)p->switches, fab->path);
	if (int_or_list(d, fab, "links_to_switch", p->switches, p->device_links / p->switches,
			&p->to_switch))
		return -1;
	int64_t sum = 0;
	for (int64_t j = 0; j < p->switches; j++)
		sum += p->to_switch[j];
	if (sum != p->device_links)
		return fx_snode_error(d, lts, "'%s' adds up to %lld links but 'device_links' is %lld",
				      lts->path, (long long)sum, (long long)p->device_links);

	if (int_or_list(d, fab, "uplinks_per_switch", p->switches, 0, &p->uplinks))
		return -1;
	int64_t up = 0;
	for (int64_t j = 0; j < p->switches; j++)
		up += p->uplinks[j];
	rc |= fx_spec_int_opt(d, fab, "spine_switches", 1, 1 << 20, &p->spines);
	rc |= fx_spec_int_opt(d, fab, "spine_ports", 1, 1 << 20, &p->spine_ports);
	if (rc)
		return -1;
	/* the second tier's keys go together */
	static const char *const tier2[] = {"uplinks_per_switch", "spine_ports", "spine_link", NULL};
	for (const char *const *k = tier2; *k && p->spines == 0; k++)
		if (fx_snode_get(fab, *k))
			return fx_snode_error(d, fx_snode_get(fab, *k), "'%s.%s' needs 'spine_switches'",
					      fab->path, *k);
	if (p->spines > 0 && up == 0)
		return fx_snode_error(d, fx_snode_get(fab, "spine_switches"), "'%s.spine_switches' "
				      "needs 'uplinks_per_switch'", fab->path);
	if (p->nodes > 1 && (p->spines == 0 || up == 0))
		return fx_snode_error(d, fx_snode_get(fab, "nodes"), "'%s.nodes' (%lld) needs a "
				      "second tier: give '%s.uplinks_per_switch' and '%s.spine_switches'",
				      fab->path, (long long)p->nodes, fab->path, fab->path);
	if (p->spines > 0 && up % p->spines)
		return fx_snode_error(d, fx_snode_get(fab, "spine_switches"), "'%s.spine_switches' "
				      "(%lld) must divide the %lld uplinks of each node", fab->path,
				      (long long)p->spines, (long long)up);
	if (p->spines > 0 && p->spine_ports == 0)
		return fx_snode_error(d, fab, "missing key '%s.spine_ports' (ports per spine chip)",
				      fab->path);
	p->spine_link = p->link;
	if (fx_snode_get(fab, "spine_link") && fx_linkspec_get(d, fab, "spine_link", 1, &p->spine_link))
		return -1;
	if (p->cpus > 0) {
		if (p->devices % p->cpus)
			return fx_snode_error(d, fx_snode_get(fab, "cpus"), "'%s.cpus' (%lld) must "
					      "divide the %lld devices of a node", fab->path,
					      (long long)p->cpus, (long long)p->devices);
		if (fx_linkspec_get(d, fab, "cpu_link", 1, &p->cpu_link))
			return -1;
	} else if (fx_snode_get(fab, "cpu_link")) {
		return fx_snode_error(d, fx_snode_get(fab, "cpu_link"), "'%s.cpu_link' needs 'cpus'",
				      fab->path);
	}
	return 0;
}

static int64_t uplinks_per_node(const nvs_params *p)
{
	int64_t up = 0;
	for (int64_t j = 0; j < p->switches; j++)
		up += p->uplinks[j];
	return up;
}

static void size(const void *params, fx_fabric_size *sz)
{
	const nvs_params *p = params;
	int64_t up = uplinks_per_node(p);
	sz->devices = p->nodes * p->devices;
	sz->switches = p->nodes * p->switches + p->spines;
	sz->cpus = p->nodes * p->cpus;
	sz->edges = sz->devices * p->switches + sz->devices + (p->spines ? p->nodes * up : 0);
}

static int build(const void *params, fx_fabric *f, fx_diag *d)
{
	const nvs_params *p = params;
	(void)d;
	for (int64_t n = 0; n < p->nodes; n++)
		for (int64_t i = 0; i < p->devices; i++)
			fx_fb_vertex(f, FX_V_DEVICE, -1, n, -1);
	int rl = fx_fb_role(f, p->spines ? "nvswitch-l1" : "nvswitch", (int)p->ports, 1,
			    "switch_ports");
	int64_t sw0 = f->nv;
	for (int64_t n = 0; n < p->nodes; n++)
		for (int64_t j = 0; j < p->switches; j++)
			fx_fb_vertex(f, FX_V_SWITCH, rl, n, j);
	for (int64_t n = 0; n < p->nodes; n++)
		for (int64_t i = 0; i < p->devices; i++)
			for (int64_t j = 0; j < p->switches; j++)
				if (p->to_switch[j] > 0)
					fx_fb_link(f, n * p->devices + i, sw0 + n * p->switches + j,
						   &p->link, (int)p->to_switch[j], 0);
	if (p->spines) {
		int rs = fx_fb_role(f, "nvswitch-l2", (int)p->spine_ports, 2, "spine_ports");
		int64_t sp0 = f->nv;
		for (int64_t s = 0; s < p->spines; s++)
			fx_fb_vertex(f, FX_V_SWITCH, rs, -1, -1);
		/* uplink u of a node (chip-major order) lands on spine u mod S;
		 * bundle the links each chip sends to each spine */
		int64_t *cnt = fx_xcalloc((size_t)p->spines, sizeof *cnt);
		for (int64_t n = 0; n < p->nodes; n++) {
			int64_t u = 0;
			for (int64_t j = 0; j < p->switches; j++) {
				memset(cnt, 0, (size_t)p->spines * sizeof *cnt);
				for (int64_t k = 0; k < p->uplinks[j]; k++, u++)
					cnt[u % p->spines]++;
				for (int64_t s = 0; s < p->spines; s++)
					if (cnt[s])
						fx_fb_link(f, sw0 + n * p->switches + j, sp0 + s,
							   &p->spine_link, (int)cnt[s], 1);
			}
		}
		free(cnt);
	}
	if (p->cpus) {
		int64_t per = p->devices / p->cpus;
		for (int64_t n = 0; n < p->nodes; n++)
			for (int64_t c = 0; c < p->cpus; c++) {
				int64_t cpu = fx_fb_vertex(f, FX_V_CPU, -1, n, -1);
				for (int64_t i = 0; i < per; i++)
					fx_fb_link(f, cpu, n * p->devices + c * per + i, &p->cpu_link, 1, 0);
			}
	}
	f->device_transitive = 1;
	f->state.nvswitch = (fx_nvswitch_state){
		.nodes = p->nodes, .devices = p->devices, .switches = p->switches,
		.spines = p->spines, .cpus = p->cpus,
	};
	return 0;
}

static void release(void *params)
{
	nvs_params *p = params;
	free(p->to_switch);
	free(p->uplinks);
}

/* GPUs and Grace CPUs by index; chips by role ("nvswitch.3"). */
static void vname(const fx_fabric *f, int64_t v, char *buf, size_t len)
{
	const fx_vertex *x = &f->v[v];
	if (x->type == FX_V_DEVICE)
		snprintf(buf, len, "gpu%d", x->index);
	else if (x->type == FX_V_CPU)
		snprintf(buf, len, "cpu%d", x->index);
	else
		snprintf(buf, len, "%s.%lld", f->roles[x->role].name,
			 (long long)(x->index - f->roles[x->role].first));
}

/* Half the GPUs' NVLinks, or half the nodes' uplinks if the spine tier is
 * thinner: every chip and every spine sees both halves equally. */
static double bisection(const fx_fabric *f, double *links)
{
	int64_t nodes = f->state.nvswitch.nodes, dev = f->state.nvswitch.devices;
	if ((nodes == 1 && dev % 2) || (nodes > 1 && nodes % 2))
		return -1;
	double dl = 0, up = 0, bw = 0, bwup = 0;
	for (int64_t e = 0; e < f->ne; e++) {
		if (f->e[e].tier == 1) {
			up += f->e[e].count;
			bwup = f->e[e].bw;
		} else if (f->v[f->ends[2 * e + 1]].type == FX_V_SWITCH) {
			/* GPU-to-chip links (CPU C2C links end at a device) */
			dl += f->e[e].count;
			bw = f->e[e].bw;
		}
	}
	*links = dl / 2;
	double cap = dl / 2 * bw;
	if (nodes > 1 && up / 2 * bwup < cap) {
		*links = up / 2;
		cap = up / 2 * bwup;
	}
	return cap;
}

/* Shrinks by whole domains (nodes) when there are several, keeping the
 * spine chips; one domain shrinks by whole packaging nodes (trays), its
 * CPUs in proportion, keeping every switch chip. */
static int shrink(const fx_fabric *f, const fx_snode *fab, int64_t max_devices, fx_shrink *out)
{
	(void)fab;
	const fx_nvswitch_state *s = &f->state.nvswitch;
	int64_t nodes = s->nodes, dev = s->devices, cpus = s->cpus;
	if (nodes > 1) {
		snprintf(out->rule, sizeof out->rule, "whole domains of %lld devices", (long long)dev);
		int64_t k = max_devices / dev;
		out->devices = k * dev;
		if (k > 0)
			fx_shrink_set(out, "fabric.nodes=%lld", (long long)k);
		return 0;
	}
	int64_t trays = f->nnodes > 0 ? f->nnodes : 1, per = dev / trays, k = max_devices / per;
	snprintf(out->rule, sizeof out->rule, "whole trays of %lld devices", (long long)per);
	if (cpus % trays) {
		snprintf(out->rule, sizeof out->rule, "its %lld CPUs do not split evenly over its %lld trays",
			 (long long)cpus, (long long)trays);
		return -1;
	}
	out->devices = k * per;
	if (k > 0) {
		fx_shrink_set(out, "fabric.devices=%lld", (long long)(k * per));
		if (cpus)
			fx_shrink_set(out, "fabric.cpus=%lld", (long long)(cpus / trays * k));
	}
	return 0;
}

/* ---- symmetries (fx_builder.symmetries; fabric/orbit.c checks them) ---- */

/* One candidate: node n goes to nmap[n]; within a node GPUs turn by ds
 * (CPUs by ds / (GPUs per CPU)) and chips j1 and j2 trade places. */
typedef struct nvs_move {
	const int64_t *nmap;
	int64_t ds, j1, j2;
} nvs_move;

static void nvs_perm(const fx_fabric *f, const nvs_move *m, int64_t *perm)
{
	const fx_nvswitch_state *s = &f->state.nvswitch;
	int64_t N = s->nodes, D = s->devices, S = s->switches, C = s->cpus;
	int64_t sw0 = N * D, sp0 = sw0 + N * S, cpu0 = sp0 + s->spines, per = C ? D / C : 1;
	for (int64_t n = 0; n < N; n++) {
		int64_t to = m->nmap[n];
		for (int64_t i = 0; i < D; i++)
			perm[n * D + i] = to * D + (i + m->ds) % D;
		for (int64_t j = 0; j < S; j++) {
			int64_t k = j == m->j1 ? m->j2 : j == m->j2 ? m->j1 : j;
			perm[sw0 + n * S + j] = sw0 + to * S + k;
		}
		for (int64_t c = 0; c < C; c++)
			perm[cpu0 + n * C + c] = cpu0 + to * C + (c + m->ds / per) % C;
	}
	for (int64_t x = 0; x < s->spines; x++)
		perm[sp0 + x] = sp0 + x;
}

/* Links of node 0's GPU 0 to chip j, and chip j's ports: chips alike in
 * both are offered as a swap. */
static void chip_profile(const fx_fabric *f, int64_t j, int64_t *to_gpu, int64_t *ports)
{
	int64_t sw = f->state.nvswitch.nodes * f->state.nvswitch.devices + j;
	*to_gpu = 0;
	for (int64_t e = 0; e < f->ne; e++)
		if (f->ends[2 * e] == 0 && f->ends[2 * e + 1] == sw)
			*to_gpu += f->e[e].count;
	*ports = fx_fabric_ports(f, sw);
}

/* Turns of the GPUs within every node (by each multiple of the GPUs a CPU
 * serves that divides their number), swaps of chips alike in links, and
 * of the nodes as fx_fb_unit_turn moves them. */
static void nvs_symmetries(const fx_fabric *f, void (*offer)(void *ctx, const int64_t *perm),
			   void *ctx)
{
	const fx_nvswitch_state *s = &f->state.nvswitch;
	int64_t N = s->nodes, D = s->devices, S = s->switches, C = s->cpus;
	int64_t per = C ? D / C : 1;
	if (f->nv != N * (D + S + C) + s->spines || (C && D % C))
		return;
	int64_t *perm = fx_xmalloc((size_t)(f->nv + 1) * sizeof *perm);
	int64_t *id = fx_xmalloc((size_t)(N + 1) * sizeof *id), *nm = fx_xmalloc((size_t)(N + 1) * sizeof *nm);
	for (int64_t n = 0; n < N; n++)
		id[n] = n;
	for (int64_t d = per; d < D; d += per)
		if (D % d == 0) {
			nvs_perm(f, &(nvs_move){.nmap = id, .ds = d, .j1 = -1, .j2 = -1}, perm);
			offer(ctx, perm);
		}
	int64_t *prof = fx_xmalloc((size_t)(2 * S + 1) * sizeof *prof);
	for (int64_t j = 0; j < S; j++)
		chip_profile(f, j, &prof[2 * j], &prof[2 * j + 1]);
	for (int64_t j1 = 0; j1 < S; j1++)
		for (int64_t j2 = j1 + 1; j2 < S; j2++)
			if (prof[2 * j1] == prof[2 * j2] && prof[2 * j1 + 1] == prof[2 * j2 + 1]) {
				nvs_perm(f, &(nvs_move){.nmap = id, .j1 = j1, .j2 = j2}, perm);
				offer(ctx, perm);
			}
	free(prof);
	for (int k = 0; fx_fb_unit_turn(N, k, nm); k++) {
		nvs_perm(f, &(nvs_move){.nmap = nm, .j1 = -1, .j2 = -1}, perm);
		offer(ctx, perm);
	}
	free(nm);
	free(id);
	free(perm);
}

const fx_builder fx_builder_nvswitch = {
	.kind = "nvswitch",
	.summary = "NVLink switch domains (HGX H100, GB200 NVL72), optionally joined by a spine tier",
	.params_size = sizeof(nvs_params),
	.parse = parse,
	.size = size,
	.build = build,
	.release = release,
	.vertex_name = vname,
	.halves = fx_fb_halves_by_index,
	.bisection = bisection,
	.shrink = shrink,
	.symmetries = nvs_symmetries,
	.router = FX_ROUTER_ECMP,
	.device_noun = "GPU",
};
