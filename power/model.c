/*
 * The power model: per-node power, switch chips and links, the radix step,
 * compute and network racks with their cooling, and the largest build a
 * budget allows (the chapter "Supernodes", §6.5.2, Eq. 6-11: N <= g floor((Pb - P0) / Ps), and
 * Experiment 6-7's variations: a second switching tier past a radix
 * boundary, installs in whole groups).
 *
 * Where the watts go: nodes sit in compute racks; switch chips outside
 * nodes either stay in a compute rack (a domain's switch trays, as in an
 * NVL72 rack) or, when they have no rack, sit in network racks of their
 * role (packaging.switches).  A link's power is split between the racks
 * of its two ends.  A build of n of the fabric's N nodes keeps every
 * switch chip (the builders shrink nodes, not switch tiers) and n/N of
 * the links; a composite's domain chips go with their domains, n/N of
 * them (fabric/topo_composite.c shrinks by whole domains).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../core/xalloc.h"
#include "../fabric/fabric.h"
#include "power.h"

/* Devices per node (packaging makes every node the same size). */
static int64_t per_node(const fx_fabric *f)
{
	return f->nnodes > 0 ? f->ndev / f->nnodes : f->ndev;
}

/* Nodes per rack as packaged. */
static int64_t nodes_per_rack(const fx_fabric *f)
{
	return f->nracks > 0 ? (f->nnodes + f->nracks - 1) / f->nracks : f->nnodes;
}

static const fx_power_role *role_cfg(const fx_power_config *c, const fx_fabric *f, int role)
{
	if (role < 0 || role >= f->nroles)
		return NULL;
	for (int i = 0; i < c->nroles; i++)
		if (!strcmp(c->role[i].name, f->roles[role].name))
			return &c->role[i];
	return NULL;
}

/* Watts of one chip of fabric role `role`. */
static double chip_watts(const fx_power_config *c, const fx_fabric *f, int role)
{
	const fx_power_role *r = role_cfg(c, f, role);
	return r && r->sw >= 0 ? r->sw : c->sw;
}

/* A chip in a network rack: outside every node and every compute rack. */
static int networked(const fx_fabric *f, int64_t v)
{
	return f->v[v].type == FX_V_SWITCH && f->v[v].node < 0 && f->v[v].rack < 0;
}

/* Switch chips inside nodes count in their nodes: with `power.node` the
 * node's figure covers the rest of it, and the chips add their own
 * (power.switch), so a router given a figure is never dropped. */
double fx_power_node(const fx_power_config *c, const fx_fabric *f)
{
	if (!c || !fx_fabric_built(f))
		return NAN;
	int64_t nodes = f->nnodes > 0 ? f->nnodes : 1;
	double sw_in_nodes = 0, cpus = (double)f->ncpu / (double)nodes;
	for (int64_t v = 0; v < f->nv; v++)
		if (f->v[v].type == FX_V_SWITCH && f->v[v].node >= 0)
			sw_in_nodes += chip_watts(c, f, f->v[v].role);
	if (c->node > 0)
		return c->node + sw_in_nodes / (double)nodes;
	return (double)per_node(f) * c->device + cpus * c->cpu + c->node_overhead +
	       sw_in_nodes / (double)nodes;
}

/* The whole build's switches and links, and how the links' watts split
 * between compute racks and each role's network racks. */
typedef struct infra {
	double switches, links;
	double domain_switches;               /* of those, chips of a composite's domains
					       * (fx_fabric.domain_of), which come and go with
					       * their domains' nodes as the links do */
	double compute_links;                 /* link halves ending in compute racks */
	double role_links[FX_MAX_ROLES];      /* link halves ending on network chips */
	double role_chips[FX_MAX_ROLES];      /* watts of the role's network chips */
	int64_t role_count[FX_MAX_ROLES];     /* network chips of the role */
} infra;

static void infra_of(const fx_power_config *c, const fx_fabric *f, infra *in)
{
	memset(in, 0, sizeof *in);
	for (int64_t v = 0; v < f->nv; v++) {
		if (f->v[v].type != FX_V_SWITCH || f->v[v].node >= 0)
			continue;
		double w = chip_watts(c, f, f->v[v].role);
		in->switches += w;
		if (f->domain_of && f->domain_of[v] >= 0)
			in->domain_switches += w;
		if (networked(f, v) && f->v[v].role >= 0) {
			in->role_chips[f->v[v].role] += w;
			in->role_count[f->v[v].role]++;
		}
	}
	for (int64_t e = 0; e < f->ne; e++) {
		double w = f->e[e].count * (f->e[e].medium == FX_MEDIUM_OPTICAL ? c->optics
					    : f->e[e].medium == FX_MEDIUM_COPPER ? c->copper : 0);
		in->links += w;
		for (int k = 0; k < 2; k++) {
			int64_t v = f->ends[2 * e + k];
			if (networked(f, v) && f->v[v].role >= 0)
				in->role_links[f->v[v].role] += w / 2;
			else
				in->compute_links += w / 2;
		}
	}
}

/* Power of n nodes given the per-node power and the whole infrastructure. */
static fx_power_parts parts_of(const fx_power_config *c, const fx_fabric *f, int64_t n, double pnode,
			       const infra *in)
{
	fx_power_parts p = {0};
	double share = f->nnodes > 0 ? (double)n / (double)f->nnodes : 1;
	p.nodes = (double)n * pnode;
	p.switches = in->switches - in->domain_switches * (1 - share);
	p.links = in->links * share;
	p.infra = p.switches + p.links;
	p.step = c->step_devices > 0 && n * per_node(f) > c->step_devices ? c->step_power : 0;
	p.fixed = c->fixed;
	p.total = p.nodes + p.infra + p.step + p.fixed;
	return p;
}

fx_power_parts fx_power_of(const fx_power_config *c, const fx_fabric *f, int64_t n)
{
	if (!c || !fx_fabric_built(f) || n < 0)
		return (fx_power_parts){NAN, NAN, NAN, NAN, NAN, NAN, NAN};
	infra in;
	infra_of(c, f, &in);
	return parts_of(c, f, n, fx_power_node(c, f), &in);
}

void fx_power_plan_release(fx_power_plan *p)
{
	if (!p)
		return;
	free(p->rack);
	p->rack = NULL;
}

static void cool(const fx_power_config *c, int how, fx_power_rack *k)
{
	k->liquid = how == FX_COOL_LIQUID || (how == FX_COOL_AUTO && k->watts > c->air_limit);
	k->over_air = how == FX_COOL_AIR && k->watts > c->air_limit;
}

static void fill_racks(const fx_power_config *c, const fx_fabric *f, const infra *in, fx_power_plan *p)
{
	int64_t npr = p->nodes_per_rack, n = p->max_nodes, N = f->nnodes > 0 ? f->nnodes : 1;
	double share = (double)n / (double)N;
	p->compute_racks = npr > 0 ? (n + npr - 1) / npr : 0;
	int64_t net[FX_MAX_ROLES] = {0}, per[FX_MAX_ROLES] = {0}, total = p->compute_racks;
	for (int r = 0; r < f->nroles; r++) {
		const fx_power_role *rc = role_cfg(c, f, r);
		if (in->role_count[r] == 0)
			continue;
		per[r] = rc && rc->boxes_per_rack > 0 ? rc->chips_per_box * rc->boxes_per_rack
			 : in->role_count[r];
		net[r] = (in->role_count[r] + per[r] - 1) / per[r];
		total += net[r];
	}
	p->racks = total;
	p->rack = fx_xcalloc((size_t)(total ? total : 1), sizeof *p->rack);
	double node_w = p->node_watts + in->compute_links / (double)N;
	for (int64_t r = 0; r < p->compute_racks; r++) {
		fx_power_rack *k = &p->rack[r];
		k->rack = r;
		k->nodes = n - r * npr < npr ? n - r * npr : npr;
		k->watts = (double)k->nodes * node_w;
	}
	/* chips outside nodes that stay in a compute rack (switch trays); a
	 * composite's domain past the racks built is not built */
	for (int64_t v = 0; v < f->nv && p->compute_racks > 0; v++)
		if (f->v[v].type == FX_V_SWITCH && f->v[v].node < 0 && f->v[v].rack >= 0) {
			if (f->domain_of && f->domain_of[v] >= 0 && f->v[v].rack >= p->compute_racks)
				continue;
			int64_t r = f->v[v].rack < p->compute_racks ? f->v[v].rack : p->compute_racks - 1;
			p->rack[r].chips++;
			p->rack[r].watts += chip_watts(c, f, f->v[v].role);
		}
	for (int64_t r = 0; r < p->compute_racks; r++)
		cool(c, c->cooling, &p->rack[r]);
	int64_t at = p->compute_racks;
	for (int r = 0; r < f->nroles; r++) {
		const fx_power_role *rc = role_cfg(c, f, r);
		for (int64_t i = 0; i < net[r]; i++) {
			fx_power_rack *k = &p->rack[at];
			k->rack = at++;
			k->network = 1;
			snprintf(k->role, sizeof k->role, "%s", f->roles[r].name);
			k->chips = in->role_count[r] - i * per[r] < per[r] ? in->role_count[r] - i * per[r]
				   : per[r];
			double frac = (double)k->chips / (double)in->role_count[r];
			k->watts = frac * (in->role_chips[r] + in->role_links[r] * share);
			cool(c, rc ? rc->cooling : FX_COOL_AUTO, k);
		}
	}
}

/* Every role the spec names must be one of the fabric's. */
static int check_roles(const fx_power_config *c, const fx_fabric *f, fx_diag *d)
{
	for (int i = 0; i < c->nroles; i++) {
		int found = 0;
		for (int r = 0; r < f->nroles; r++)
			found |= !strcmp(c->role[i].name, f->roles[r].name);
		if (found)
			continue;
		char names[FX_MAX_ROLES * 26] = "";
		for (int r = 0; r < f->nroles; r++)
			snprintf(names + strlen(names), sizeof names - strlen(names), "%s%s", r ? ", " : "",
				 f->roles[r].name);
		const fx_snode *at = c->role[i].at;
		return fx_snode_error(d, at, "'%s': the %s fabric has no switch role '%s' (%s%s)",
				      at->path, f->builder->kind, c->role[i].name,
				      f->nroles ? "its roles: " : "it has no switch chips", names);
	}
	return 0;
}

const char *fx_power_limit_text(const fx_power_plan *p)
{
	if (!p || !p->present)
		return "n/a (no power model)";
	if (!strcmp(p->limited_by, "none"))
		return "as specified (no limit binds)";
	if (!strcmp(p->limited_by, "given"))
		return p->over_budget ? "the given build (--nodes), over budget" : "the given build (--nodes)";
	return p->limited_by;
}

const char *fx_power_cooling_text(const fx_power_rack *r)
{
	return !r ? "n/a" : r->liquid ? "liquid" : r->over_air ? "air (over the air limit)" : "air";
}

int fx_power_plan_build(const fx_power_config *c, const fx_fabric *f, int64_t nodes,
			fx_power_plan *p, fx_diag *d)
{
	if (!p)
		return fx_diag_error(d, NULL, "fx_power_plan_build: no plan to fill");
	memset(p, 0, sizeof *p);
	if (!c || !fx_fabric_built(f))
		return fx_diag_error(d, NULL, "fx_power_plan_build: no %s", c ? "fabric (NULL, or one "
				     "whose load failed)" : "power configuration");
	if (check_roles(c, f, d))
		return -1;
	int64_t total = f->nnodes > 0 ? f->nnodes : 1, inc = c->install_nodes;
	infra in;
	infra_of(c, f, &in);
	p->present = c->present;
	p->budget = c->present ? c->budget : 0;
	p->devices_per_node = per_node(f);
	p->node_watts = fx_power_node(c, f);
	/* a rack holds what its budget and, without liquid cooling, the air
	 * limit allow (each node with its share of the links) */
	p->rack_limit = c->rack_budget;
	if (!c->liquid && (p->rack_limit == 0 || c->air_limit < p->rack_limit))
		p->rack_limit = c->air_limit;
	p->nodes_per_rack = nodes_per_rack(f);
	double rack_node_w = p->node_watts + in.compute_links / (double)total;
	if (p->rack_limit > 0 && rack_node_w > 0) {
		int64_t fit = (int64_t)floor(p->rack_limit / rack_node_w + 1e-9);
		if (fit < p->nodes_per_rack)
			p->nodes_per_rack = fit;
	}
	if (p->nodes_per_rack == 0) {
		char w[32];
		snprintf(w, sizeof w, "%.4g kW", rack_node_w / 1e3);
		return fx_diag_infeasible(d, "cooling: one node draws %s, over the rack limit of %.4g kW",
					  w, p->rack_limit / 1e3);
	}
	if (nodes >= 0) {  /* a given build: account for it, and say if it is over */
		p->max_nodes = nodes;
		snprintf(p->limited_by, sizeof p->limited_by, "given");
	} else {
		/* the most nodes each constraint allows on its own */
		int64_t by_racks = c->racks > 0 ? c->racks * p->nodes_per_rack : total;
		int64_t by_power = total;
		if (p->budget > 0) {  /* power grows with n: bisect for the last n within budget */
			int64_t lo = 0, hi = total;
			while (lo < hi) {
				int64_t mid = lo + (hi - lo + 1) / 2;
				if (parts_of(c, f, mid, p->node_watts, &in).total <= p->budget * (1 + 1e-12))
					lo = mid;
				else
					hi = mid - 1;
			}
			by_power = lo;
		}
		int64_t best = total;
		const char *why = "none";
		if (by_power < best) {
			best = by_power;
			why = "power";
		}
		if (by_racks < best) {
			best = by_racks;
			why = "cooling";
		}
		/* whole increments at or below the best */
		int64_t n = best / inc * inc;
		if (n < best)
			why = "increments";
		p->max_nodes = n;
		snprintf(p->limited_by, sizeof p->limited_by, "%s", why);
		if (n == 0) {
			fx_power_parts none = parts_of(c, f, 0, p->node_watts, &in);
			double base = none.switches + none.fixed;
			char on_top[96] = "", within[48] = "";
			if (base > 0)
				snprintf(on_top, sizeof on_top, ", on top of %.4g kW of switch chips "
					 "and P0", base / 1e3);
			if (p->budget > 0)
				snprintf(within, sizeof within, " the budget of %.4g kW", p->budget / 1e3);
			return fx_diag_infeasible(d, "%s: not even %lld node%s (%.4g kW each%s) fit%s%s",
						  why, (long long)inc, inc > 1 ? "s" : "",
						  p->node_watts / 1e3, on_top, inc > 1 ? "" : "s", within);
		}
	}
	p->max_devices = p->max_nodes * p->devices_per_node;
	p->parts = parts_of(c, f, p->max_nodes, p->node_watts, &in);
	if (nodes >= 0 && p->budget > 0 && p->parts.total > p->budget * (1 + 1e-12)) {
		p->over_budget = 1;
		p->over_watts = p->parts.total - p->budget;
	}
	fill_racks(c, f, &in, p);
	return 0;
}

void fx_power_racks_used(const fx_power_config *c, const fx_fabric *f, const uint8_t *used,
			 fx_power_rack *racks)
{
	infra in;
	infra_of(c, f, &in);
	int64_t N = f->nnodes > 0 ? f->nnodes : 1;
	double node_w = fx_power_node(c, f) + in.compute_links / (double)N;
	for (int64_t r = 0; r < f->nracks; r++)
		racks[r] = (fx_power_rack){.rack = r};
	uint8_t *seen = fx_xcalloc((size_t)N + 1, 1);
	for (int64_t v = 0; v < f->ndev; v++) {
		/* each node once, in the rack of its devices */
		int64_t node = f->v[v].node, rack = f->v[v].rack;
		if (node < 0 || node >= N || rack < 0 || rack >= f->nracks || seen[node])
			continue;
		seen[node] = 1;
		if (used[node]) {
			racks[rack].nodes++;
			racks[rack].watts += node_w;
		}
	}
	free(seen);
	/* switch chips kept in a compute rack (switch trays), with a powered
	 * rack only when they belong to a composite's domain */
	for (int64_t v = 0; v < f->nv; v++)
		if (f->v[v].type == FX_V_SWITCH && f->v[v].node < 0 && f->v[v].rack >= 0 &&
		    f->v[v].rack < f->nracks &&
		    !(f->domain_of && f->domain_of[v] >= 0 && racks[f->v[v].rack].nodes == 0)) {
			racks[f->v[v].rack].chips++;
			racks[f->v[v].rack].watts += chip_watts(c, f, f->v[v].role);
		}
	for (int64_t r = 0; r < f->nracks; r++)
		cool(c, c->cooling, &racks[r]);
}
