/*
 * The placement MILP, for what the constructive placement and its bound
 * leave open (see placement.h for the model in words).
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
 *   symmetry     instances are interchangeable: instance i+1 starts on a
 *                node no earlier than instance i (sum_n n y is ordered)
 * Objective: sum_i sum_L cost[L] l[i][L], the per-step communication time
 * of an instance at each level measured by routing its group collectives
 * on the fabric, plus a tie-break of a millionth per node used so
 * placements stay compact.
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "../core/xalloc.h"
#include "place_internal.h"

enum family { F_PLACE, F_CAP, F_LINK, F_LEVEL, F_RULE, F_FAIL, F_RACKP, F_COOL, F_POWER, F_PORTS,
	      F_FAMILIES };

static const char *const family_name[F_FAMILIES] = {
	"placement", "capacity", "links", "levels", "keep_within rules", "failure domain",
	"rack power", "cooling", "system power", "switch ports"};

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

static fx_lp *build(const fx_pctx *c, int elastic, cols *k)
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
		k->w[n] = fx_lp_col(lp, nm, FX_LP_BINARY, 0, c->node_ok[n] ? 1 : 0, 0);
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
	/* symmetry: any solution can be renumbered so that sum_n n y[i][n]
	 * does not decrease with i, which prunes the I! copies of each */
	for (int64_t i = 0; i + 1 < I && !feasibility; i++) {
		for (int64_t n = 0; n < N; n++) {
			rb_add(&b, Y(i + 1, n), (double)n);
			rb_add(&b, Y(i, n), -(double)n);
		}
		snprintf(nm, sizeof nm, "order_%lld", (long long)i);
		row(lp, nm, 0, FX_LP_INF, &b, F_LEVEL, elastic);
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

/* Those families whose relaxation alone makes room bind, and the elastic
 * objective says by how much. */
int fx_place_explain(const fx_pctx *c, fx_diag *d)
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
		fx_lp_opts o = {left > 0.01 ? left : 0.01, 0, c->o->node_limit};
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

fx_lp *fx_place_milp(const fx_pctx *c, int elastic, int **xcols)
{
	cols k;
	fx_lp *lp = build(c, elastic, &k);
	*xcols = k.x;
	k.x = NULL;
	cols_free(&k);
	return lp;
}

void fx_place_milp_size(const fx_pctx *c, double *cols, double *rows, double *nnz)
{
	double I = (double)c->I, N = (double)c->N, R = (double)c->R;
	*cols = 2 * I * N + I * R + N + FX_LEVELS * I;
	*rows = I + N + 2 * I * N + (3.0 + FX_LEVELS) * I + 2 * R + 2 + I * (R + 2);
	*nnz = 9 * I * N + 3 * I * R + 2 * N + 3 * FX_LEVELS * I;
}
