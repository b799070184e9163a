/*
 * The placement MILP (see placement.h for the model in words).
 *
 * Columns, for instance i, node n, rack r, level L (node, rack, any):
 *   x[i][n]  integer  units of instance i on node n (a unit = the block of
 *                     consecutive devices that must share a node, e.g. a
 *                     TP group)
 *   y[i][n]  binary   instance i uses node n
 *   z[i][r]  binary   instance i uses rack r
 *   w[n]     binary   node n is powered
 *   l[i][L]  binary   instance i spans level L
 * Rows, by family (the families are what infeasibility is explained by):
 *   place        sum_n x[i][n] = units per instance
 *   capacity     sum_i unit x[i][n] <= devices per node * w[n]
 *   link         x[i][n] <= units * y[i][n];  y[i][n] <= z[i][rack(n)]
 *   level        sum_L l[i][L] = 1;  sum_n y[i][n] <= 1 unless l = rack or
 *                any;  sum_r z[i][r] <= 1 unless l = any
 *   rules        keep_within for the instance
 *   failure      instances share no node (or rack)
 *   rack power   powered nodes of a rack within its budget
 *   cooling      ... and under the air limit when there is no liquid
 *   power        all powered nodes within the system budget
 * Objective: sum_i sum_L cost[L] l[i][L], the per-step communication time
 * of an instance at each level measured by routing its group collectives
 * on the fabric, plus a tie-break of a millionth per node used so
 * placements stay compact.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../core/units.h"
#include "../core/xalloc.h"
#include "../solver/solver.h"
#include "placement.h"

enum family { F_PLACE, F_CAP, F_LINK, F_LEVEL, F_RULE, F_FAIL, F_RACKP, F_COOL, F_POWER, F_PORTS,
	      F_FAMILIES };

static const char *const family_name[F_FAMILIES] = {
	"placement", "capacity", "links", "levels", "keep_within rules", "failure domain",
	"rack power", "cooling", "system power", "switch ports"};

typedef struct ctx {
	const fx_fabric *f;
	const fx_workload *w;
	const fx_power_config *pc;
	const fx_place_opts *o;
	int64_t N, R, g, unit, U, I, D;
	int64_t *node_rack;      /* [N] */
	int64_t *node_dev;       /* [N * g] devices of each node, in order */
	double pnode;            /* one node, all in */
	double pinfra;           /* infrastructure per powered node (pro rata) */
	double rack_limit;       /* W, 0 = none */
	double cost[FX_LEVELS];
	int ok[FX_LEVELS];
	double cross[FX_LEVELS]; /* bytes per step a unit sends out of its node, by level */
	double *uplink;          /* [N] bytes/s the node's ports carry out of it */
} ctx;

/* ---- measuring an instance's communication at a placement ---- */

/* Groups of kind k over an instance laid out on devs (instance order:
 * dp, pp, ep, tp with tp fastest).  Fills q[] (ranks point into buf). */
static size_t groups_of(const ctx *c, fx_group_kind k, const int64_t *devs, int64_t *buf,
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

/* Bytes on directed links that leave the node of their tail vertex. */
static double leaving_nodes(const fx_fabric *f, const double *link_bytes)
{
	double sum = 0;
	for (int64_t l = 0; l < 2 * f->ne; l++) {
		int64_t e = l / 2, from = f->ends[2 * e + (l & 1)], to = f->ends[2 * e + 1 - (l & 1)];
		if (link_bytes[l] > 0 && f->v[from].node >= 0 && f->v[from].node != f->v[to].node)
			sum += link_bytes[l];
	}
	return sum;
}

/* Per-step time of every group kind of an instance on devs, and the bytes
 * it sends out of nodes per step (through the nodes' switch ports). */
static int measure(const ctx *c, fx_router *rt, const int64_t *devs, fx_place_group *out,
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
		rc = fx_coll_run_groups(c->f, rt, q, n, &c->o->tm, &res, d);
		if (rc)
			break;
		for (size_t i = 0; i < res.nround; i++)
			if (res.per_round[i].max_hops > g->max_hops)
				g->max_hops = res.per_round[i].max_hops;
		g->time = res.time * t->count;
		*total += g->time;
		*cross += leaving_nodes(c->f, res.link_bytes) * t->count;
		fx_coll_result_release(&res);
	}
	free(buf);
	free(q);
	return rc;
}

/* A representative layout of one instance at a level, units filled node
 * by node: one node; the fewest nodes (at least two) of rack 0; or half in
 * rack 0 and half in rack 1.  Returns 0 when the fabric has no room for it. */
static int representative(const ctx *c, fx_level L, int64_t *devs)
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
	/* the nodes of racks 0 and 1 */
	int64_t placed = 0;
	for (int r = 0; r < 2; r++) {
		if (spread[r] == 0)
			continue;
		int64_t share = r == 0 && L == FX_LEVEL_ANY ? (c->U + 1) / 2 : c->U - placed;
		int64_t per = (share + spread[r] - 1) / spread[r];
		int64_t used = 0;
		for (int64_t n = 0; n < c->N && used < spread[r] && share > 0; n++) {
			if (c->node_rack[n] != r)
				continue;
			int64_t take = per < share ? per : share;
			if (take > per_node)
				return 0;
			for (int64_t u = 0; u < take; u++)
				for (int64_t j = 0; j < c->unit; j++)
					devs[(placed + u) * c->unit + j] = c->node_dev[n * c->g + u * c->unit + j];
			placed += take;
			share -= take;
			used++;
		}
		if (share > 0)
			return 0;
	}
	return placed == c->U;
}

/* ---- the model ---- */

typedef struct cols {
	int *x, *y, *z, *w, *l, *cr;
} cols;

#define X(i, n) (k->x[(i) * c->N + (n)])
#define Y(i, n) (k->y[(i) * c->N + (n)])
#define Z(i, r) (k->z[(i) * c->R + (r)])
#define LV(i, L) (k->l[(i) * FX_LEVELS + (L)])

typedef struct rowbuf {
	int n, cap;
	int *idx;
	double *val;
} rowbuf;

static void rb_add(rowbuf *b, int col, double v)
{
	if (b->n == b->cap) {
		b->cap = b->cap ? 2 * b->cap : 16;
		b->idx = fx_xrealloc(b->idx, (size_t)b->cap * sizeof *b->idx);
		b->val = fx_xrealloc(b->val, (size_t)b->cap * sizeof *b->val);
	}
	b->idx[b->n] = col;
	b->val[b->n++] = v;
}

/* Adds a row; in the elastic family it gets slack columns (cost 1 each)
 * that let it be violated, so the solve measures by how much. */
static void row(fx_lp *lp, const char *name, double lo, double hi, rowbuf *b, int fam, int elastic)
{
	if (fam == elastic) {
		if (hi < FX_LP_INF)
			rb_add(b, fx_lp_col(lp, "slack_up", FX_LP_CONTINUOUS, 0, FX_LP_INF, 1), -1);
		if (lo > -FX_LP_INF)
			rb_add(b, fx_lp_col(lp, "slack_lo", FX_LP_CONTINUOUS, 0, FX_LP_INF, 1), 1);
	}
	fx_lp_row(lp, name, lo, hi, b->n, b->idx, b->val);
	b->n = 0;
}

static fx_lp *build(const ctx *c, int elastic, cols *k)
{
	const fx_workload *w = c->w;
	int feasibility = elastic >= 0;  /* minimise violation only */
	fx_lp *lp = fx_lp_new("fabricx_place", 0);
	char nm[64];
	int64_t I = c->I, N = c->N, R = c->R;
	k->x = fx_xmalloc((size_t)(I * N) * sizeof *k->x);
	k->y = fx_xmalloc((size_t)(I * N) * sizeof *k->y);
	k->z = fx_xmalloc((size_t)(I * R) * sizeof *k->z);
	k->w = fx_xmalloc((size_t)N * sizeof *k->w);
	k->l = fx_xmalloc((size_t)(I * FX_LEVELS) * sizeof *k->l);
	double tie = 1e-6 * (c->cost[FX_LEVEL_NODE] > 0 ? c->cost[FX_LEVEL_NODE] : 1e-6);
	for (int64_t i = 0; i < I; i++) {
		for (int64_t n = 0; n < N; n++) {
			snprintf(nm, sizeof nm, "x_%lld_%lld", (long long)i, (long long)n);
			X(i, n) = fx_lp_col(lp, nm, FX_LP_INTEGER, 0, (double)c->U, 0);
			snprintf(nm, sizeof nm, "y_%lld_%lld", (long long)i, (long long)n);
			Y(i, n) = fx_lp_col(lp, nm, FX_LP_BINARY, 0, 1, feasibility ? 0 : tie);
		}
		for (int64_t r = 0; r < R; r++) {
			snprintf(nm, sizeof nm, "z_%lld_%lld", (long long)i, (long long)r);
			Z(i, r) = fx_lp_col(lp, nm, FX_LP_BINARY, 0, 1, 0);
		}
		for (int L = 0; L < FX_LEVELS; L++) {
			snprintf(nm, sizeof nm, "l_%lld_%s", (long long)i, fx_level_name((fx_level)L));
			LV(i, L) = fx_lp_col(lp, nm, FX_LP_BINARY, 0, c->ok[L] ? 1 : 0,
					     feasibility || !c->ok[L] ? 0 : c->cost[L]);
		}
	}
	for (int64_t n = 0; n < N; n++) {
		snprintf(nm, sizeof nm, "w_%lld", (long long)n);
		k->w[n] = fx_lp_col(lp, nm, FX_LP_BINARY, 0, 1, 0);
	}
	rowbuf b = {0};
	/* switch ports: cr[i][n] >= what instance i sends out of node n per
	 * step at the level it takes (cross[L] per unit); every node's ports
	 * must carry their share within workload.comm_budget */
	k->cr = NULL;
	if (w->comm_budget > 0) {
		k->cr = fx_xmalloc((size_t)(I * N) * sizeof *k->cr);
		for (int64_t i = 0; i < I; i++)
			for (int64_t n = 0; n < N; n++) {
				snprintf(nm, sizeof nm, "out_%lld_%lld", (long long)i, (long long)n);
				int cr = k->cr[i * N + n] = fx_lp_col(lp, nm, FX_LP_CONTINUOUS, 0, FX_LP_INF, 0);
				for (int L = 0; L < FX_LEVELS; L++) {
					double bu = c->cross[L] / 1e6;  /* MB per unit */
					if (!c->ok[L] || bu <= 0)
						continue;
					/* cr >= bu x - bu U (1 - l_L) */
					rb_add(&b, cr, 1);
					rb_add(&b, X(i, n), -bu);
					rb_add(&b, LV(i, L), -bu * (double)c->U);
					snprintf(nm, sizeof nm, "sends_%lld_%lld_%s", (long long)i, (long long)n,
						 fx_level_name((fx_level)L));
					row(lp, nm, -bu * (double)c->U, FX_LP_INF, &b, F_LINK, elastic);
				}
			}
		for (int64_t n = 0; n < N; n++) {
			if (c->uplink[n] <= 0)
				continue;
			for (int64_t i = 0; i < I; i++)  /* microseconds of the node's ports */
				rb_add(&b, k->cr[i * N + n], 1e6 / c->uplink[n] * 1e6);
			snprintf(nm, sizeof nm, "ports_%lld", (long long)n);
			row(lp, nm, -FX_LP_INF, w->comm_budget * 1e6, &b, F_PORTS, elastic);
		}
	}
	for (int64_t i = 0; i < I; i++) {
		for (int64_t n = 0; n < N; n++)
			rb_add(&b, X(i, n), 1);
		snprintf(nm, sizeof nm, "place_%lld", (long long)i);
		row(lp, nm, (double)c->U, (double)c->U, &b, F_PLACE, elastic);
		for (int64_t n = 0; n < N; n++) {
			rb_add(&b, X(i, n), 1);
			rb_add(&b, Y(i, n), -(double)c->U);
			snprintf(nm, sizeof nm, "uses_%lld_%lld", (long long)i, (long long)n);
			row(lp, nm, -FX_LP_INF, 0, &b, F_LINK, elastic);
			rb_add(&b, Y(i, n), 1);
			rb_add(&b, Z(i, c->node_rack[n]), -1);
			snprintf(nm, sizeof nm, "inrack_%lld_%lld", (long long)i, (long long)n);
			row(lp, nm, -FX_LP_INF, 0, &b, F_LINK, elastic);
		}
		for (int L = 0; L < FX_LEVELS; L++)
			rb_add(&b, LV(i, L), 1);
		snprintf(nm, sizeof nm, "level_%lld", (long long)i);
		row(lp, nm, 1, 1, &b, F_LEVEL, elastic);
		/* at node level one node: sum y + N l_node <= N + 1 */
		for (int64_t n = 0; n < N; n++)
			rb_add(&b, Y(i, n), 1);
		rb_add(&b, LV(i, FX_LEVEL_NODE), (double)N);
		snprintf(nm, sizeof nm, "onenode_%lld", (long long)i);
		row(lp, nm, -FX_LP_INF, (double)N + 1, &b, F_LEVEL, elastic);
		for (int64_t r = 0; r < R; r++)
			rb_add(&b, Z(i, r), 1);
		rb_add(&b, LV(i, FX_LEVEL_NODE), (double)R);
		rb_add(&b, LV(i, FX_LEVEL_RACK), (double)R);
		snprintf(nm, sizeof nm, "onerack_%lld", (long long)i);
		row(lp, nm, -FX_LP_INF, (double)R + 1, &b, F_LEVEL, elastic);
		if (w->keep_instance == FX_LEVEL_NODE) {
			rb_add(&b, LV(i, FX_LEVEL_NODE), 1);
			snprintf(nm, sizeof nm, "keep_node_%lld", (long long)i);
			row(lp, nm, 1, FX_LP_INF, &b, F_RULE, elastic);
		} else if (w->keep_instance == FX_LEVEL_RACK) {
			rb_add(&b, LV(i, FX_LEVEL_ANY), 1);
			snprintf(nm, sizeof nm, "keep_rack_%lld", (long long)i);
			row(lp, nm, -FX_LP_INF, 0, &b, F_RULE, elastic);
		}
	}
	for (int64_t n = 0; n < N; n++) {
		for (int64_t i = 0; i < I; i++)
			rb_add(&b, X(i, n), (double)c->unit);
		rb_add(&b, k->w[n], -(double)c->g);
		snprintf(nm, sizeof nm, "capacity_%lld", (long long)n);
		row(lp, nm, -FX_LP_INF, 0, &b, F_CAP, elastic);
		if (w->failure_domain == FX_LEVEL_NODE) {
			for (int64_t i = 0; i < I; i++)
				rb_add(&b, Y(i, n), 1);
			snprintf(nm, sizeof nm, "failure_node_%lld", (long long)n);
			row(lp, nm, -FX_LP_INF, 1, &b, F_FAIL, elastic);
		}
	}
	for (int64_t r = 0; r < R; r++) {
		if (w->failure_domain == FX_LEVEL_RACK) {
			for (int64_t i = 0; i < I; i++)
				rb_add(&b, Z(i, r), 1);
			snprintf(nm, sizeof nm, "failure_rack_%lld", (long long)r);
			row(lp, nm, -FX_LP_INF, 1, &b, F_FAIL, elastic);
		}
		/* rack power and cooling, in kW so slack reads in kW */
		double limits[2] = {c->pc->rack_budget, c->pc->liquid ? 0 : c->pc->air_limit};
		for (int t = 0; t < 2; t++) {
			if (limits[t] <= 0)
				continue;
			for (int64_t n = 0; n < N; n++)
				if (c->node_rack[n] == r)
					rb_add(&b, k->w[n], c->pnode / 1e3);
			snprintf(nm, sizeof nm, "%s_%lld", t ? "cooling" : "rackpower", (long long)r);
			row(lp, nm, -FX_LP_INF, limits[t] / 1e3, &b, t ? F_COOL : F_RACKP, elastic);
		}
	}
	if (c->pc->budget > 0) {
		for (int64_t n = 0; n < N; n++)
			rb_add(&b, k->w[n], (c->pnode + c->pinfra) / 1e3);
		row(lp, "power", -FX_LP_INF, (c->pc->budget - c->pc->fixed) / 1e3, &b, F_POWER, elastic);
	}
	free(b.idx);
	free(b.val);
	return lp;
}

static void cols_free(cols *k)
{
	free(k->x);
	free(k->y);
	free(k->z);
	free(k->w);
	free(k->l);
	free(k->cr);
}

/* Nothing fits: relax each family in turn; those whose relaxation alone
 * makes room bind, and the elastic objective says by how much. */
static int explain(const ctx *c, fx_diag *d)
{
	static const struct { enum family f; const char *unit; } fams[] = {
		{F_CAP, "devices"}, {F_RULE, "instances"}, {F_FAIL, "instances"},
		{F_RACKP, "kW"}, {F_COOL, "kW"}, {F_POWER, "kW"}, {F_PORTS, "us of port time per step"}};
	char msg[1024] = "", open_[256] = "";
	size_t used = 0, oused = 0;
	int found = 0;
	/* the relaxations share one more --time-limit, each taking what the
	 * ones before left, so explaining costs at most as much as the search
	 * (most take milliseconds; one cut off is reported as undecided) */
	size_t nfam = sizeof fams / sizeof fams[0];
	struct timespec t0, now;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (size_t t = 0; t < nfam; t++) {
		cols k;
		fx_lp *lp = build(c, fams[t].f, &k);
		clock_gettime(CLOCK_MONOTONIC, &now);
		double spent = (double)(now.tv_sec - t0.tv_sec) + 1e-9 * (double)(now.tv_nsec - t0.tv_nsec);
		double left = c->o->time_limit - spent;
		fx_lp_opts o = {left > 0.01 ? left : 0.01, 0};
		fx_lp_status st = fx_lp_solve(lp, &o);
		if (st == FX_LP_OPTIMAL || st == FX_LP_FEASIBLE) {
			double v = fx_lp_objective(lp);
			used += (size_t)snprintf(msg + used, sizeof msg - used, "%s%s (over by %.4g %s)",
						 found ? "; " : "", family_name[fams[t].f], v, fams[t].unit);
			found++;
		} else if (st == FX_LP_NO_SOLUTION) {  /* cut off: say so, claim nothing */
			oused += (size_t)snprintf(open_ + oused, sizeof open_ - oused, "%s%s",
						  oused ? ", " : "", family_name[fams[t].f]);
		}
		fx_lp_free(lp);
		cols_free(&k);
	}
	if (oused)
		used += (size_t)snprintf(msg + used, sizeof msg - used, "%snot decided in the %.3g s "
					 "the explanations share (raise --time-limit): %s",
					 found ? "; " : "", c->o->time_limit, open_);
	if (!found && !oused)
		return fx_diag_infeasible(d, "no placement of %lld instance%s of %lld devices fits, and "
					  "relaxing any one family of constraints does not help",
					  (long long)c->I, c->I > 1 ? "s" : "", (long long)c->D);
	if (!found)
		return fx_diag_infeasible(d, "no placement of %lld instance%s of %lld devices fits; %s",
					  (long long)c->I, c->I > 1 ? "s" : "", (long long)c->D, msg);
	return fx_diag_infeasible(d, "no placement of %lld instance%s of %lld devices fits; binding "
				  "(relaxing it alone makes room): %s",
				  (long long)c->I, c->I > 1 ? "s" : "", (long long)c->D, msg);
}

static int setup(ctx *c, fx_diag *d)
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
	c->pnode = fx_power_node(c->pc, f);
	c->pinfra = c->N ? fx_power_of(c->pc, f, c->N).infra / (double)c->N : 0;
	return 0;
}

/* GLPK's memory for the model, estimated before building it from the
 * column and row counts of the header comment: about 200 bytes per row and
 * column and 150 per nonzero (the matrix, the presolved copy, the LU
 * factors), held to the run's memory limit (--max-memory). */
static int check_size(const ctx *c, fx_diag *d)
{
	double I = (double)c->I, N = (double)c->N, R = (double)c->R;
	double cols = 2 * I * N + I * R + N + FX_LEVELS * I;
	double rows = I + N + 2 * I * N + (2.0 + FX_LEVELS) * I + 2 * R + 2 + I * (R + 2);
	double nnz = 7 * I * N + 3 * I * R + 2 * N + 3 * FX_LEVELS * I;
	double bytes = 200 * (rows + cols) + 150 * nnz;
	if (c->f->max_bytes <= 0 || bytes <= c->f->max_bytes)
		return 0;
	char need[32], have[32];
	fx_unit_format(bytes, FX_UNIT_SIZE, need, sizeof need);
	fx_unit_format(c->f->max_bytes, FX_UNIT_SIZE, have, sizeof have);
	return fx_diag_error(d, NULL, "the placement model of %lld instances on %lld nodes has about "
			     "%.3g columns and %.3g rows and needs about %s of memory, over the "
			     "limit of %s (see --max-memory; fewer instances, or larger nodes)",
			     (long long)c->I, (long long)c->N, cols, rows, need, have);
}

static int by_first_device(const void *a, const void *b)
{
	const fx_place_instance *x = a, *y = b;
	int64_t p = x->devices[0], q = y->devices[0];
	return (p > q) - (p < q);
}

int fx_place(const fx_fabric *f, const fx_workload *w, const fx_power_config *pc,
	     const fx_place_opts *o, fx_placement *out, fx_diag *d)
{
	memset(out, 0, sizeof *out);
	ctx c;
	memset(&c, 0, sizeof c);
	c.f = f;
	c.w = w;
	c.pc = pc;
	c.o = o;
	int rc = setup(&c, d);
	if (rc == 0)
		rc = check_size(&c, d);
	fx_router *rt = fx_router_new(f, 0);
	int64_t *devs = fx_xmalloc((size_t)(c.D ? c.D : 1) * sizeof *devs);
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
	cols k = {0};
	fx_lp *lp = NULL;
	if (rc == 0) {
		lp = build(&c, -1, &k);
		out->cols = fx_lp_ncols(lp);
		out->rows = fx_lp_nrows(lp);
		if (o->lp_path && fx_lp_write(lp, o->lp_path))
			rc = fx_diag_error(d, NULL, "--lp: cannot write '%s'", o->lp_path);
	}
	if (rc == 0) {
		fx_lp_opts so = {o->time_limit, 0};
		clock_t t0 = clock();
		fx_lp_status st = fx_lp_solve(lp, &so);
		out->solve_seconds = (double)(clock() - t0) / CLOCKS_PER_SEC;
		if (st == FX_LP_INFEASIBLE)
			rc = explain(&c, d);
		else if (st == FX_LP_NO_SOLUTION)
			rc = fx_diag_infeasible(d, "no placement found within the %.3g s time limit "
						"(raise --time-limit)", o->time_limit);
		else if (st != FX_LP_OPTIMAL && st != FX_LP_FEASIBLE)
			rc = fx_diag_internal(d, "the placement model failed to solve (%s)", fx_lp_status_name(st));
		else
			out->status = st == FX_LP_OPTIMAL ? "optimal" : "feasible (time limit)";
	}
	if (rc == 0) {
		/* read the levels, and lay the units on nodes in order */
		out->ninst = c.I;
		out->inst = fx_xcalloc((size_t)c.I, sizeof *out->inst);
		int64_t *fill = fx_xcalloc((size_t)c.N, sizeof *fill);
		uint8_t *rack_used = fx_xcalloc((size_t)c.R + 1, 1);
		for (int64_t i = 0; i < c.I && rc == 0; i++) {
			fx_place_instance *pi = &out->inst[i];
			pi->devices = fx_xmalloc((size_t)c.D * sizeof *pi->devices);
			int64_t placed = 0;
			memset(rack_used, 0, (size_t)c.R + 1);
			for (int64_t n = 0; n < c.N; n++) {
				int64_t units = (int64_t)llround(fx_lp_value(lp, k.x[i * c.N + n]));
				if (units > 0) {
					pi->nodes++;
					if (!rack_used[c.node_rack[n]]++)
						pi->racks++;
				}
				for (int64_t u = 0; u < units && placed < c.U; u++, placed++)
					for (int64_t j = 0; j < c.unit; j++)
						pi->devices[placed * c.unit + j] = c.node_dev[n * c.g + fill[n]++];
			}
			pi->level = pi->nodes <= 1 ? FX_LEVEL_NODE : pi->racks <= 1 ? FX_LEVEL_RACK : FX_LEVEL_ANY;
			double cross;
			rc = measure(&c, rt, pi->devices, pi->group, &pi->comm_time, &cross, d);
			out->objective += c.cost[pi->level];
		}
		/* identical instances are interchangeable: number them in device
		 * order so instance 0 sits on the first devices */
		qsort(out->inst, (size_t)c.I, sizeof *out->inst, by_first_device);
		out->bound = fx_lp_bound(lp);
		if (out->bound > out->objective)
			out->bound = out->objective;
		/* GLPK's relative gap; NAN when no bound was proved */
		out->gap = isfinite(out->bound) ? (out->objective - out->bound) /
						  (fabs(out->objective) + 1e-300) : NAN;
		/* powered nodes and racks */
		out->nracks = c.R;
		out->rack = fx_xcalloc((size_t)(c.R ? c.R : 1), sizeof *out->rack);
		for (int64_t r = 0; r < c.R; r++)
			out->rack[r].rack = r;
		for (int64_t n = 0; n < c.N; n++)
			if (fill[n] > 0) {
				out->nodes_used++;
				out->rack[c.node_rack[n]].nodes_used++;
				out->rack[c.node_rack[n]].watts += c.pnode;
			}
		for (int64_t r = 0; r < c.R; r++)
			out->rack[r].liquid = out->rack[r].watts > pc->air_limit;
		out->watts = (double)out->nodes_used * (c.pnode + c.pinfra) + pc->fixed;
		free(fill);
		free(rack_used);
	}
	if (lp) {
		fx_lp_free(lp);
		cols_free(&k);
	}
	fx_router_free(rt);
	free(devs);
	free(c.node_rack);
	free(c.node_dev);
	free(c.uplink);
	if (rc)
		fx_placement_release(out);
	return rc;
}

void fx_placement_release(fx_placement *p)
{
	for (int64_t i = 0; i < p->ninst; i++)
		free(p->inst[i].devices);
	free(p->inst);
	free(p->rack);
	memset(p, 0, sizeof *p);
}
