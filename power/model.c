/*
 * The power model: per-node power, infrastructure, the radix step, rack
 * limits and cooling, and the largest build a budget allows (book §6.5.2,
 * Eq. 6-11: N <= g floor((Pb - P0) / Ps), and Experiment 6-7's variations:
 * a second switching tier past a radix boundary, installs in whole groups).
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

double fx_power_node(const fx_power_config *c, const fx_fabric *f)
{
	if (c->node > 0)
		return c->node;
	int64_t nodes = f->nnodes > 0 ? f->nnodes : 1;
	double sw_in_nodes = 0, cpus = (double)f->ncpu / (double)nodes;
	for (int64_t v = 0; v < f->nv; v++)
		if (f->v[v].type == FX_V_SWITCH && f->v[v].node >= 0)
			sw_in_nodes++;
	return (double)per_node(f) * c->device + cpus * c->cpu + c->node_overhead +
	       sw_in_nodes / (double)nodes * c->sw;
}

/* Switches outside nodes and every link: the whole build's infrastructure. */
static double infrastructure(const fx_power_config *c, const fx_fabric *f)
{
	double infra = 0;
	for (int64_t v = 0; v < f->nv; v++)
		if (f->v[v].type == FX_V_SWITCH && f->v[v].node < 0)
			infra += c->sw;
	for (int64_t e = 0; e < f->ne; e++)
		infra += f->e[e].count * (f->e[e].medium == FX_MEDIUM_OPTICAL ? c->optics
					  : f->e[e].medium == FX_MEDIUM_COPPER ? c->copper : 0);
	return infra;
}

/* Power of n nodes given the per-node power and the whole infrastructure. */
static fx_power_parts parts_of(const fx_power_config *c, const fx_fabric *f, int64_t n, double pnode,
			       double infra)
{
	fx_power_parts p = {0};
	double share = f->nnodes > 0 ? (double)n / (double)f->nnodes : 1;
	p.nodes = (double)n * pnode;
	p.infra = infra * share;
	p.step = c->step_devices > 0 && n * per_node(f) > c->step_devices ? c->step_power : 0;
	p.fixed = c->fixed;
	p.total = p.nodes + p.infra + p.step + p.fixed;
	return p;
}

fx_power_parts fx_power_of(const fx_power_config *c, const fx_fabric *f, int64_t n)
{
	return parts_of(c, f, n, fx_power_node(c, f), infrastructure(c, f));
}

void fx_power_plan_release(fx_power_plan *p)
{
	free(p->rack);
	p->rack = NULL;
}

static void fill_racks(const fx_power_config *c, fx_power_plan *p)
{
	p->racks = p->nodes_per_rack > 0 ? (p->max_nodes + p->nodes_per_rack - 1) / p->nodes_per_rack : 0;
	p->rack = fx_xcalloc((size_t)(p->racks ? p->racks : 1), sizeof *p->rack);
	for (int64_t r = 0; r < p->racks; r++) {
		fx_power_rack *k = &p->rack[r];
		k->rack = r;
		k->nodes = p->max_nodes - r * p->nodes_per_rack;
		if (k->nodes > p->nodes_per_rack)
			k->nodes = p->nodes_per_rack;
		k->watts = (double)k->nodes * p->node_watts;
		k->liquid = k->watts > c->air_limit;
	}
}

int fx_power_plan_build(const fx_power_config *c, const fx_fabric *f, int64_t nodes,
			fx_power_plan *p, fx_diag *d)
{
	memset(p, 0, sizeof *p);
	int64_t total = f->nnodes > 0 ? f->nnodes : 1, inc = c->install_nodes;
	p->budget = c->budget;
	p->devices_per_node = per_node(f);
	p->node_watts = fx_power_node(c, f);
	/* a rack holds what its budget and, without liquid cooling, the air
	 * limit allow */
	p->rack_limit = c->rack_budget;
	if (!c->liquid && (p->rack_limit == 0 || c->air_limit < p->rack_limit))
		p->rack_limit = c->air_limit;
	p->nodes_per_rack = nodes_per_rack(f);
	if (p->rack_limit > 0 && p->node_watts > 0) {
		int64_t fit = (int64_t)floor(p->rack_limit / p->node_watts + 1e-9);
		if (fit < p->nodes_per_rack)
			p->nodes_per_rack = fit;
	}
	if (p->nodes_per_rack == 0) {
		char w[32];
		snprintf(w, sizeof w, "%.4g kW", p->node_watts / 1e3);
		return fx_diag_infeasible(d, "cooling: one node draws %s, over the rack limit of %.4g kW",
					  w, p->rack_limit / 1e3);
	}
	if (nodes >= 0) {  /* a given build: just account for it */
		p->max_nodes = nodes;
		snprintf(p->limited_by, sizeof p->limited_by, "given");
	} else {
		/* the most nodes each constraint allows on its own */
		int64_t by_ports = total, by_racks = c->racks > 0 ? c->racks * p->nodes_per_rack : total;
		int64_t by_power = total;
		if (p->budget > 0) {  /* power grows with n: bisect for the last n within budget */
			double infra = infrastructure(c, f);
			int64_t lo = 0, hi = total;
			while (lo < hi) {
				int64_t mid = lo + (hi - lo + 1) / 2;
				if (parts_of(c, f, mid, p->node_watts, infra).total <= p->budget * (1 + 1e-12))
					lo = mid;
				else
					hi = mid - 1;
			}
			by_power = lo;
		}
		int64_t best = by_ports;
		const char *why = "ports";
		if (by_power < best || (by_power == best && p->budget > 0)) {
			best = by_power;
			why = "power";
		}
		if (by_racks < best) {
			best = by_racks;
			why = "cooling";
		}
		/* whole increments below the best, still within power (a step may
		 * make a smaller build fit where a larger does not) */
		int64_t n = best / inc * inc;
		if (n < best)
			why = "increments";
		else if (best == total && by_power >= total && by_racks >= total)
			why = "ports";  /* the fabric itself is the limit */
		p->max_nodes = n;
		snprintf(p->limited_by, sizeof p->limited_by, "%s", why);
		if (n == 0)
			return fx_diag_infeasible(d, "%s: not even %lld node%s (%.4g kW each) fit%s",
						  why, (long long)inc, inc > 1 ? "s" : "", p->node_watts / 1e3,
						  p->budget > 0 ? " the budget" : "");
	}
	p->max_devices = p->max_nodes * p->devices_per_node;
	p->parts = fx_power_of(c, f, p->max_nodes);
	fill_racks(c, p);
	return 0;
}
