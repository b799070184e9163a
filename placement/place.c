/*
 * fx_place: the placement, decided cheapest first (place_internal.h):
 * arithmetic, then a packing checked against a bound, then the MILP for
 * what is left open.  This file measures what an instance costs at each
 * level and turns the chosen plan into devices.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../core/limits.h"
#include "../core/units.h"
#include "../core/xalloc.h"
#include "../solver/solver.h"
#include "place_internal.h"

/* ---- measuring an instance's communication at a placement ---- */

/* Groups of kind k over an instance laid out on devs (instance order:
 * dp, pp, ep, tp with tp fastest).  Fills q[] (ranks point into buf). */
static size_t groups_of(const fx_pctx *c, fx_group_kind k, const int64_t *devs, int64_t *buf,
			fx_coll_req *q)
{
	const int64_t *dm = c->w->dims;
	int64_t stride = 1;
	for (int j = 0; j < (int)k; j++)
		stride *= dm[j];
	int64_t m = dm[k];
	const fx_group_traffic *t = &c->w->traffic[k];
	size_t n = 0;
	for (int64_t d0 = 0; d0 < c->D; d0++) {
		if ((d0 / stride) % m != 0)
			continue;  /* not the first member of its group */
		int64_t *r = buf + n * (size_t)m;
		for (int64_t j = 0; j < m; j++)
			r[j] = devs[d0 + j * stride];
		q[n] = (fx_coll_req){t->pattern, t->algo[0] ? t->algo : NULL, r, m, t->bytes, 1};
		n++;
	}
	return n;
}

/* Bytes on the directed links loaded (links[0 .. n-1]) that leave the
 * node of their tail vertex. */
static double leaving_nodes(const fx_fabric *f, const int64_t *links, size_t n,
			    const double *link_bytes)
{
	double sum = 0;
	for (size_t k = 0; k < n; k++) {
		int64_t l = links[k], e = l / 2, from = f->ends[2 * e + (l & 1)],
			to = f->ends[2 * e + 1 - (l & 1)];
		if (link_bytes[l] > 0 && f->v[from].node >= 0 && f->v[from].node != f->v[to].node)
			sum += link_bytes[l];
	}
	return sum;
}

/* Per-step time of every group kind of an instance on devs, and the bytes
 * it sends out of nodes per step (through the nodes' switch ports): in
 * time and memory proportional to the instance's groups and the links
 * they load, not the fabric (c->sp's arrays are kept across instances). */
static int measure(const fx_pctx *c, fx_router *rt, const int64_t *devs, fx_place_group *out,
		   double *total, double *cross, fx_diag *d)
{
	int64_t *buf = fx_xmalloc((size_t)c->D * sizeof *buf);
	fx_coll_req *q = fx_xmalloc((size_t)c->D * sizeof *q);
	int rc = 0;
	*total = 0;
	*cross = 0;
	for (int k = 0; k < FX_GROUP_KINDS && rc == 0; k++) {
		const fx_group_traffic *t = &c->w->traffic[k];
		fx_place_group *g = &out[k];
		memset(g, 0, sizeof *g);
		g->kind = (fx_group_kind)k;
		g->members = c->w->dims[k];
		g->groups = c->D / c->w->dims[k];
		if (c->w->dims[k] < 2 || t->count == 0 || t->bytes == 0)
			continue;
		size_t n = groups_of(c, (fx_group_kind)k, devs, buf, q);
		for (size_t i = 0; i < n; i++)
			q[i].algo = fx_coll_find(q[i].pattern, q[i].algo)->name;
		fx_coll_result res;
		rc = fx_coll_run_groups_sparse(c->f, rt, q, n, &c->o->tm, c->sp, &res, d);
		if (rc)
			break;
		for (size_t i = 0; i < res.nround; i++)
			if (res.per_round[i].max_hops > g->max_hops)
				g->max_hops = res.per_round[i].max_hops;
		g->time = res.time * t->count;
		g->measured = res.measured;
		*total += g->time;
		const int64_t *links;
		const double *lb;
		size_t nlinks = fx_coll_sparse_links(c->sp, &links, &lb);
		*cross += leaving_nodes(c->f, links, nlinks, lb) * t->count;
		fx_coll_result_release(&res);
	}
	free(buf);
	free(q);
	return rc;
}

/* An instance too big for half of it to sit in one rack: node after node
 * in fabric order, full nodes first, over as many racks as it takes. */
static int in_order(const fx_pctx *c, int64_t per_node, int64_t *devs)
{
	int64_t placed = 0;
	for (int64_t n = 0; n < c->N && placed < c->U; n++) {
		if (!c->node_ok[n])  /* holds a failed or cut-off device */
			continue;
		int64_t take = c->U - placed < per_node ? c->U - placed : per_node;
		for (int64_t u = 0; u < take; u++)
			for (int64_t j = 0; j < c->unit; j++)
				devs[(placed + u) * c->unit + j] = c->node_dev[n * c->g + u * c->unit + j];
		placed += take;
	}
	return placed == c->U;
}

/* A representative layout of one instance at a level, units filled node
 * by node: one node; the fewest nodes (at least two) of rack 0; or half in
 * rack 0 and half in rack 1 (or, when half is more than a rack holds, the
 * nodes in order over as many racks as it takes).  Returns 0 when the
 * fabric has no room for it. */
static int representative(const fx_pctx *c, fx_level L, int64_t *devs)
{
	int64_t per_node = c->g / c->unit;  /* units a node holds */
	if (per_node == 0)
		return 0;
	int64_t need = (c->U + per_node - 1) / per_node;
	int64_t spread[2] = {0, 0};  /* nodes used in rack 0 and rack 1 */
	if (L == FX_LEVEL_NODE) {
		if (need > 1)
			return 0;
		spread[0] = 1;
	} else if (L == FX_LEVEL_RACK) {
		spread[0] = need < 2 ? 2 : need;
		if (c->U < 2)
			return 0;
	} else {
		if (c->R < 2 || c->U < 2)
			return 0;
		int64_t half = (c->U + 1) / 2;
		spread[0] = (half + per_node - 1) / per_node;
		spread[1] = (c->U - half + per_node - 1) / per_node;
	}
	/* the nodes of the first two racks with enough nodes left (racks 0
	 * and 1 unless failures left them short: fabric/fail.c) */
	int64_t placed = 0, rack[2] = {-1, -1};
	for (int64_t r = 0, k = 0; r < c->R && k < 2; r++) {
		int64_t ok = 0;
		for (int64_t n = 0; n < c->N; n++)
			ok += c->node_rack[n] == r && c->node_ok[n];
		if (ok >= spread[k] && (spread[k] > 0 || k == 0))
			rack[k++] = r;
	}
	for (int r = 0; r < 2; r++) {
		if (spread[r] == 0)
			continue;
		if (rack[r] < 0)  /* no rack holds this part: more than a rack */
			return L == FX_LEVEL_ANY ? in_order(c, per_node, devs) : 0;
		int64_t share = r == 0 && L == FX_LEVEL_ANY ? (c->U + 1) / 2 : c->U - placed;
		int64_t per = (share + spread[r] - 1) / spread[r];
		int64_t used = 0;
		for (int64_t n = 0; n < c->N && used < spread[r] && share > 0; n++) {
			if (c->node_rack[n] != rack[r] || !c->node_ok[n])
				continue;
			int64_t take = per < share ? per : share;
			if (take > per_node)
				return L == FX_LEVEL_ANY ? in_order(c, per_node, devs) : 0;
			for (int64_t u = 0; u < take; u++)
				for (int64_t j = 0; j < c->unit; j++)
					devs[(placed + u) * c->unit + j] = c->node_dev[n * c->g + u * c->unit + j];
			placed += take;
			share -= take;
			used++;
		}
		if (share > 0)  /* half the instance is more than a rack */
			return L == FX_LEVEL_ANY ? in_order(c, per_node, devs) : 0;
	}
	return placed == c->U;
}

static int setup(fx_pctx *c, fx_diag *d)
{
	const fx_fabric *f = c->f;
	c->N = f->nnodes;
	c->g = c->N ? f->ndev / c->N : 0;
	c->D = fx_workload_devices(c->w);
	c->I = c->w->instances;
	c->unit = 1;
	for (int k = 0; k < FX_GROUP_KINDS && c->w->keep[k] == FX_LEVEL_NODE; k++)
		c->unit *= c->w->dims[k];
	if (c->unit > c->g)
		return fx_diag_infeasible(d, "keep_within: groups of %lld devices must stay within a node, "
					  "but nodes hold %lld devices", (long long)c->unit, (long long)c->g);
	c->U = c->D / c->unit;
	c->node_rack = fx_xmalloc((size_t)c->N * sizeof *c->node_rack);
	c->node_dev = fx_xmalloc((size_t)(c->N * c->g) * sizeof *c->node_dev);
	int64_t *fill = fx_xcalloc((size_t)c->N, sizeof *fill);
	for (int64_t v = 0; v < f->ndev; v++) {
		int64_t n = f->v[v].node;
		if (n < 0 || n >= c->N || fill[n] >= c->g) {
			free(fill);
			return fx_diag_error(d, NULL, "placement needs nodes of equal size (see packaging)");
		}
		c->node_dev[n * c->g + fill[n]++] = v;
		c->node_rack[n] = f->v[v].rack;
	}
	free(fill);
	c->R = 0;
	for (int64_t n = 0; n < c->N; n++)
		if (c->node_rack[n] + 1 > c->R)
			c->R = c->node_rack[n] + 1;
	c->uplink = fx_xcalloc((size_t)(c->N ? c->N : 1), sizeof *c->uplink);
	for (int64_t l = 0; l < 2 * f->ne; l++) {
		int64_t e = l / 2, from = f->ends[2 * e + (l & 1)], to = f->ends[2 * e + 1 - (l & 1)];
		int64_t n = f->v[from].node;
		if (n >= 0 && n < c->N && n != f->v[to].node)
			c->uplink[n] += f->e[e].count * f->e[e].bw;
	}
	c->P = c->g / c->unit;
	c->node_ok = fx_xmalloc((size_t)c->N + 1);
	memset(c->node_ok, 1, (size_t)c->N + 1);
	/* a node is left out when it holds a device that failed (o->failed,
	 * or the fabric's mask: fabric/fail.c) or that the degraded fabric
	 * no longer joins to the rest */
	uint8_t *reach = NULL;
	if (fx_fabric_degraded(f)) {
		reach = fx_xmalloc((size_t)f->ndev + 1);
		fx_fabric_reachable(f, reach);
	}
	for (int64_t v = 0; v < f->ndev; v++) {
		int lost = (c->o->failed && c->o->failed[v]) || (reach && !reach[v]);
		if (lost && f->v[v].node >= 0 && c->node_ok[f->v[v].node]) {
			c->node_ok[f->v[v].node] = 0;
			c->failed_nodes++;
		}
	}
	free(reach);
	c->rack_nodes = fx_xcalloc((size_t)c->R + 1, sizeof *c->rack_nodes);
	for (int64_t n = 0; n < c->N; n++)
		c->rack_nodes[c->node_rack[n]] += c->node_ok[n];
	c->pnode = fx_power_node(c->pc, f);
	c->pinfra = c->N ? fx_power_of(c->pc, f, c->N).infra / (double)c->N : 0;
	/* the nodes the budgets power: the system's, and each rack's (its
	 * power budget, and the air limit when there is no liquid cooling) */
	double per = c->pnode + c->pinfra;
	c->sys_max = INT64_MAX;
	if (c->pc->budget > 0 && per > 0) {
		double n = floor((c->pc->budget - c->pc->fixed) / per + 1e-9);
		c->sys_max = n < 0 ? 0 : n < 9e18 ? (int64_t)n : INT64_MAX;
	}
	int64_t rmax = INT64_MAX;
	double limits[2] = {c->pc->rack_budget, c->pc->liquid ? 0 : c->pc->air_limit};
	for (int t = 0; t < 2; t++)
		if (limits[t] > 0 && c->pnode > 0 && floor(limits[t] / c->pnode + 1e-9) < (double)rmax)
			rmax = (int64_t)floor(limits[t] / c->pnode + 1e-9);
	c->rack_max = fx_xmalloc((size_t)(c->R + 1) * sizeof *c->rack_max);
	for (int64_t r = 0; r < c->R; r++)
		c->rack_max[r] = rmax < c->rack_nodes[r] ? rmax : c->rack_nodes[r];
	return 0;
}

static int by_first_device(const void *a, const void *b)
{
	const fx_place_instance *x = a, *y = b;
	int64_t p = x->devices[0], q = y->devices[0];
	return (p > q) - (p < q);
}

/* The MILP's solution as a plan. */
static void read_milp(const fx_pctx *c, const fx_lp *lp, const int *x, fx_plan *p)
{
	fx_plan_init(p, c->I);
	for (int64_t i = 0; i < c->I; i++) {
		for (int64_t n = 0; n < c->N; n++) {
			int64_t u = (int64_t)llround(fx_lp_value(lp, x[i * c->N + n]));
			if (u > 0)
				fx_plan_add(p, n, u);
		}
		fx_plan_end_instance(p);
	}
}

/* The MILP's memory, estimated from its size before building it: about
 * 200 bytes per row and column and 150 per nonzero (the matrix, the
 * presolved copy, the LU factors).  Past the run's memory limit
 * (--max-memory) or FX_MAX_MILP_COLUMNS columns (core/limits.h) it is not
 * built: the packing stands with its bound, or the question stays open. */
static int milp_affordable(const fx_pctx *c, double *cols)
{
	double rows, nnz;
	fx_place_milp_size(c, cols, &rows, &nnz);
	double bytes = 200 * (rows + *cols) + 150 * nnz;
	return *cols <= FX_MAX_MILP_COLUMNS && (c->f->max_bytes <= 0 || bytes <= c->f->max_bytes);
}

static const char *limit_status(const fx_pctx *c)
{
	return c->o->node_limit > 0 ? "feasible (search limit)" : "feasible (time limit)";
}

/* Searches with the MILP what the packing left open.  *plan holds the
 * packing (have = 1) or nothing; on return it holds the best plan found. */
static int search(fx_pctx *c, fx_plan *plan, int *have, double *bound, fx_placement *out,
		  fx_diag *d)
{
	double cols;
	if (!milp_affordable(c, &cols)) {
		if (*have) {
			out->status = "feasible (model too large to prove)";
			return 0;
		}
		return fx_diag_undecided(d, "no placement of %lld instance%s of %lld devices found by "
					 "packing, and the MILP (about %.3g columns) is too large to search "
					 "(over %d columns or --max-memory); nothing is proven either way",
					 (long long)c->I, c->I == 1 ? "" : "s", (long long)c->D, cols, FX_MAX_MILP_COLUMNS);
	}
	int *x;
	fx_lp *lp = fx_place_milp(c, -1, &x);
	out->cols = fx_lp_ncols(lp);
	out->rows = fx_lp_nrows(lp);
	fx_lp_opts so = {c->o->time_limit, 0, c->o->node_limit};
	clock_t t0 = clock();
	fx_lp_status st = fx_lp_solve(lp, &so);
	out->solve_seconds = (double)(clock() - t0) / CLOCKS_PER_SEC;
	int rc = 0;
	if (st == FX_LP_OPTIMAL || st == FX_LP_FEASIBLE) {
		fx_plan m;
		read_milp(c, lp, x, &m);
		char why[128];
		if (!fx_plan_valid(c, &m, why, sizeof why)) {
			rc = fx_diag_internal(d, "the placement MILP's solution breaks a constraint: %s", why);
			fx_plan_release(&m);
		} else if (!*have || fx_plan_cost(c, &m) < fx_plan_cost(c, plan) * (1 - 1e-12)) {
			if (*have)
				fx_plan_release(plan);
			*plan = m;
			*have = 1;
		} else {
			fx_plan_release(&m);
		}
		double b = fx_lp_bound(lp);
		if (st == FX_LP_OPTIMAL)
			b = fx_plan_cost(c, plan);
		if (isfinite(b) && !(b <= *bound))
			*bound = b;
		out->status = st == FX_LP_OPTIMAL ? "optimal" : limit_status(c);
		out->method = st == FX_LP_OPTIMAL ? "MILP, proven optimal" : "MILP, cut off by its limit";
	} else if (st == FX_LP_NO_SOLUTION) {
		double b = fx_lp_bound(lp);
		if (isfinite(b) && !(b <= *bound))
			*bound = b;
		if (*have)
			out->status = limit_status(c);
		else if (c->o->node_limit > 0)
			rc = fx_diag_undecided(d, "no placement of %lld instance%s of %lld devices found "
					       "within %ld branch-and-bound node%s or %.3g s, and none ruled "
					       "out (raise --node-limit or --time-limit)", (long long)c->I,
					       c->I == 1 ? "" : "s", (long long)c->D, c->o->node_limit,
					       c->o->node_limit == 1 ? "" : "s", c->o->time_limit);
		else
			rc = fx_diag_undecided(d, "no placement of %lld instance%s of %lld devices found "
					       "within the %.3g s time limit, and none ruled out (raise "
					       "--time-limit)", (long long)c->I, c->I == 1 ? "" : "s", (long long)c->D,
					       c->o->time_limit);
	} else if (st == FX_LP_INFEASIBLE) {
		rc = *have ? fx_diag_internal(d, "the placement MILP calls a valid packing infeasible")
			   : fx_place_explain(c, d);
	} else {
		rc = fx_diag_internal(d, "the placement model failed to solve (%s)", fx_lp_status_name(st));
	}
	fx_lp_free(lp);
	free(x);
	return rc;
}

/* The plan as devices, levels, per-instance costs and powered racks. */
static int lay_out(const fx_pctx *c, fx_router *rt, const fx_plan *plan, fx_placement *out,
		   fx_diag *d)
{
	int rc = 0;
	out->ninst = c->I;
	out->inst = fx_xcalloc((size_t)c->I, sizeof *out->inst);
	int64_t *fill = fx_xcalloc((size_t)c->N + 1, sizeof *fill);
	for (int64_t i = 0; i < c->I && rc == 0; i++) {
		fx_place_instance *pi = &out->inst[i];
		pi->devices = fx_xmalloc((size_t)c->D * sizeof *pi->devices);
		int64_t placed = 0;
		for (int64_t s = plan->first[i]; s < plan->first[i + 1]; s++) {
			int64_t n = plan->node[s];
			for (int64_t u = 0; u < plan->units[s] && placed < c->U; u++, placed++)
				for (int64_t j = 0; j < c->unit; j++)
					pi->devices[placed * c->unit + j] = c->node_dev[n * c->g + fill[n]++];
		}
		pi->level = fx_plan_level(c, plan, i, &pi->nodes, &pi->racks);
		double cross;
		rc = measure(c, rt, pi->devices, pi->group, &pi->comm_time, &cross, d);
		out->objective += c->cost[pi->level];
	}
	/* identical instances are interchangeable: number them in device
	 * order so instance 0 sits on the first devices */
	if (rc == 0)
		qsort(out->inst, (size_t)c->I, sizeof *out->inst, by_first_device);
	/* the racks and the system as the power model counts the same nodes
	 * (fabricx power --nodes): links, switch trays, cooling included */
	uint8_t *used = fx_xcalloc((size_t)c->N + 1, 1);
	for (int64_t n = 0; n < c->N; n++)
		if (fill[n] > 0) {
			out->nodes_used++;
			used[n] = 1;
		}
	const fx_fabric *f = c->f;
	fx_power_rack *pr = fx_xcalloc((size_t)(f->nracks > 0 ? f->nracks : 1), sizeof *pr);
	fx_power_racks_used(c->pc, f, used, pr);
	out->nracks = c->R;
	out->rack = fx_xcalloc((size_t)(c->R ? c->R : 1), sizeof *out->rack);
	for (int64_t r = 0; r < c->R; r++) {
		out->rack[r].rack = r;
		out->rack[r].nodes_used = r < f->nracks ? pr[r].nodes : 0;
		out->rack[r].watts = r < f->nracks ? pr[r].watts : 0;
		out->rack[r].liquid = r < f->nracks && pr[r].liquid;
	}
	free(pr);
	free(used);
	out->watts = fx_power_of(c->pc, f, out->nodes_used).total;
	free(fill);
	return rc;
}

int fx_place(const fx_fabric *f, const fx_workload *w, const fx_power_config *pc,
	     const fx_place_opts *o, fx_placement *out, fx_diag *d)
{
	if (!out)
		return fx_diag_error(d, NULL, "fx_place: no placement to fill");
	memset(out, 0, sizeof *out);
	if (!fx_fabric_built(f))
		return fx_diag_error(d, NULL, "fx_place: no fabric (NULL, or one whose load failed)");
	if (!w || !pc || !o)
		return fx_diag_error(d, NULL, "fx_place: no %s", !w ? "workload" : !pc ? "power "
				     "configuration" : "options");
	if (!(o->time_limit >= 0) || o->node_limit < 0)
		return fx_diag_error(d, NULL, "fx_place: the time limit and node limit must be 0 or more");
	fx_pctx c;
	memset(&c, 0, sizeof c);
	c.f = f;
	c.w = w;
	c.pc = pc;
	c.o = o;
	int rc = setup(&c, d);
	fx_router *rt = fx_router_new(f, 0);
	c.sp = fx_coll_sparse_new(f);
	int64_t *devs = fx_xmalloc((size_t)(rc == 0 && c.D ? c.D : 1) * sizeof *devs);  /* not after setup failed */
	/* what an instance costs at each level, routed on the fabric */
	for (int L = 0; rc == 0 && L < FX_LEVELS; L++) {
		c.ok[L] = representative(&c, (fx_level)L, devs);
		fx_place_group g[FX_GROUP_KINDS];
		if (c.ok[L])
			rc = measure(&c, rt, devs, g, &c.cost[L], &c.cross[L], d);
		c.cross[L] /= (double)c.U;
		out->level_cost[L] = c.cost[L];
		out->level_ok[L] = c.ok[L];
	}
	out->nodes_failed = c.failed_nodes;
	if (rc == 0)
		rc = fx_place_arith(&c, o->accel, o->sessions, d);
	if (rc == 0 && o->lp_path) {
		double cols;
		int *x;
		if (!milp_affordable(&c, &cols)) {
			rc = fx_diag_error(d, NULL, "--lp: the MILP would have about %.3g columns, too "
					   "large to write (at most %d, within --max-memory)", cols,
					   FX_MAX_MILP_COLUMNS);
		} else {
			fx_lp *lp = fx_place_milp(&c, -1, &x);
			if (fx_lp_write(lp, o->lp_path))
				rc = fx_diag_error(d, NULL, "--lp: %s", fx_lp_last_error());
			fx_lp_free(lp);
			free(x);
		}
	}
	fx_plan plan = {0};
	int have = 0;
	if (rc == 0) {
		clock_t t0 = clock();
		have = fx_place_pack(&c, &plan);
		double bound = fx_place_bound(&c);
		out->solve_seconds = (double)(clock() - t0) / CLOCKS_PER_SEC;
		out->status = "optimal";
		out->method = "packing, proven optimal by the level-count bound";
		int proven = have && isfinite(bound) &&
			     fx_plan_cost(&c, &plan) <= bound * (1 + 1e-9) + 1e-15;
		if (proven)  /* equal up to rounding: the packing's cost is the optimum */
			bound = fx_plan_cost(&c, &plan);
		if (!proven || o->milp_always) {
			if (!proven)
				out->method = "packing, not proven optimal";
			rc = search(&c, &plan, &have, &bound, out, d);
		}
		if (rc == 0)
			rc = lay_out(&c, rt, &plan, out, d);
		if (rc == 0) {
			out->bound = isfinite(bound) && bound < out->objective ? bound : out->objective;
			if (!isfinite(bound))
				out->bound = NAN;
			out->gap = isfinite(out->bound) ? (out->objective - out->bound) /
							  (fabs(out->objective) + 1e-300) : NAN;
		}
	}
	if (have)
		fx_plan_release(&plan);
	fx_router_free(rt);
	fx_coll_sparse_free(c.sp);
	free(devs);
	free(c.node_rack);
	free(c.node_dev);
	free(c.uplink);
	free(c.rack_nodes);
	free(c.rack_max);
	free(c.node_ok);
	if (rc)
		fx_placement_release(out);
	return rc;
}

void fx_placement_release(fx_placement *p)
{
	if (!p)
		return;
	for (int64_t i = 0; i < p->ninst; i++)
		free(p->inst[i].devices);
	free(p->inst);
	free(p->rack);
	memset(p, 0, sizeof *p);
}
