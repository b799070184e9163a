/*
 * Closed-form necessary conditions of a placement, checked before any
 * model is built: devices, keep_within rules, failure domains, system
 * power, rack power, cooling and memory per device.  Each bounds the
 * instances that can fit from counts alone; a request over one is
 * infeasible, and the message gives the arithmetic (an architect should
 * not need a solver to learn that 49 x 8 > 384).
 *
 * Every count here is an upper bound on what any placement achieves, so a
 * failure is a proof; passing them all proves nothing (the MILP decides).
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../core/units.h"
#include "../core/xalloc.h"
#include "place_internal.h"

static int64_t min64(int64_t a, int64_t b)
{
	return a < b ? a : b;
}

static int64_t ceil_div(int64_t a, int64_t b)
{
	return (a + b - 1) / b;
}

/* Nodes one instance occupies when it may share none (failure domain). */
static int64_t whole_nodes(const fx_pctx *c)
{
	return ceil_div(c->U, c->P);
}

/* An upper bound on the instances that fit at levels up to `within`, when
 * rack r may power a[r] nodes and the system m nodes in all. */
static int64_t fit(const fx_pctx *c, const int64_t *a, int64_t m, fx_level within)
{
	int64_t sum = 0, racks = 0, by_rack = 0;
	fx_level fd = c->w->failure_domain;
	for (int64_t r = 0; r < c->R; r++) {
		int64_t ar = min64(a[r], m);
		sum += a[r];
		racks += ar > 0;
		if (fd == FX_LEVEL_RACK)
			by_rack += ar * c->P >= c->U;
		else if (fd == FX_LEVEL_NODE)
			by_rack += ar / whole_nodes(c);
		else
			by_rack += ar * c->P / c->U;
	}
	int64_t nodes = min64(sum, m);
	int64_t all = fd == FX_LEVEL_NODE ? nodes / whole_nodes(c) : nodes * c->P / c->U;
	if (fd == FX_LEVEL_RACK)
		all = min64(all, racks);
	if (within == FX_LEVEL_NODE) {
		if (c->U > c->P)
			return 0;
		if (fd == FX_LEVEL_RACK)
			return min64(racks, nodes);
		return fd == FX_LEVEL_NODE ? nodes : nodes * (c->P / c->U);
	}
	if (within == FX_LEVEL_RACK)
		return min64(by_rack, all);
	return all;
}

void fx_place_counts(const fx_pctx *c, int64_t k[FX_LEVELS])
{
	int64_t *a = fx_xmalloc((size_t)(c->R + 1) * sizeof *a);
	for (int64_t r = 0; r < c->R; r++)
		a[r] = min64(c->rack_nodes[r], c->rack_max[r]);
	fx_level keep = c->w->keep_instance;
	for (int L = 0; L < FX_LEVELS; L++) {
		k[L] = fit(c, a, c->sys_max, (fx_level)L);
		if (L > 0 && (!c->ok[L] || L > (int)keep))
			k[L] = k[L - 1];  /* this level adds nothing */
		if (L > 0 && k[L] < k[L - 1])
			k[L] = k[L - 1];
	}
	if (!c->ok[FX_LEVEL_NODE])
		k[FX_LEVEL_NODE] = 0;
	free(a);
}

/* Appends "; " and a formatted clause to *msg. */
static void clause(char **msg, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void clause(char **msg, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	char *s = fx_xvasprintf(fmt, ap);
	va_end(ap);
	char *t = fx_xasprintf("%s%s%s", *msg ? *msg : "", *msg ? "; " : "", s);
	free(s);
	free(*msg);
	*msg = t;
}

static const char *kw(double watts, char *buf, size_t len)
{
	snprintf(buf, len, "%.5g kW", watts / 1e3);
	return buf;
}

/* What fits with nothing but the fabric's nodes (and the rules). */
static void capacity(const fx_pctx *c, int64_t *a, char **msg)
{
	fx_level keep = c->w->keep_instance, fd = c->w->failure_domain;
	long long I = (long long)c->I, D = (long long)c->D;
	for (int64_t r = 0; r < c->R; r++)
		a[r] = c->rack_nodes[r];
	long long usable = (long long)(c->N - c->failed_nodes) * (long long)c->g;
	if (I * D > usable) {
		if (c->failed_nodes)
			clause(msg, "devices: %lld instances x %lld devices = %lld, the fabric has %lld "
			       "outside the %lld node%s with failed devices", I, D, I * D, usable,
			       (long long)c->failed_nodes, c->failed_nodes == 1 ? "" : "s");
		else
			clause(msg, "devices: %lld instances x %lld devices = %lld, the fabric has %lld", I,
			       D, I * D, usable);
		return;
	}
	int64_t k = fit(c, a, INT64_MAX, FX_LEVEL_ANY);
	if (keep == FX_LEVEL_NODE && c->U > c->P) {
		clause(msg, "keep_within instance: node: an instance of %lld devices does not fit a "
		       "node of %lld", D, (long long)c->g);
		return;
	}
	if (c->I > k) {
		if (fd == FX_LEVEL_NODE)
			clause(msg, "failure domain node: each instance needs %lld whole node%s of its own; "
			       "%lld nodes hold %lld instances, %lld asked", (long long)whole_nodes(c),
			       whole_nodes(c) > 1 ? "s" : "", (long long)(c->N - c->failed_nodes),
			       (long long)k, I);
		else if (fd == FX_LEVEL_RACK)
			clause(msg, "failure domain rack: each instance needs a rack of its own; the "
			       "fabric's %lld racks hold %lld instances, %lld asked", (long long)c->R,
			       (long long)k, I);
		else
			clause(msg, "capacity: a node holds %lld group%s of %lld devices kept within a "
			       "node and an instance is %lld such group%s: %lld nodes hold %lld "
			       "instances, %lld asked", (long long)c->P, c->P == 1 ? "" : "s",
			       (long long)c->unit, (long long)c->U, c->U == 1 ? "" : "s",
			       (long long)(c->N - c->failed_nodes), (long long)k, I);
		return;
	}
	fx_level within = keep < FX_LEVEL_ANY ? keep : FX_LEVEL_ANY;
	int64_t kk = fit(c, a, INT64_MAX, within);
	if (within != FX_LEVEL_ANY && c->I > kk)
		clause(msg, "keep_within instance: %s: %lld instances fit within a %s each, %lld asked",
		       fx_level_name(within), (long long)kk, fx_level_name(within), I);
}

/* Nodes the first instances need, for the messages. */
static int64_t nodes_for(const fx_pctx *c, int64_t inst)
{
	if (c->w->failure_domain == FX_LEVEL_NODE)
		return inst * whole_nodes(c);
	return ceil_div(inst * c->U, c->P);
}

static void system_power(const fx_pctx *c, int64_t *a, char **msg)
{
	if (c->sys_max == INT64_MAX)
		return;
	for (int64_t r = 0; r < c->R; r++)
		a[r] = c->rack_nodes[r];
	int64_t k = fit(c, a, c->sys_max, FX_LEVEL_ANY);
	if (c->I <= k)
		return;
	char b1[128], b2[32], b3[32], b4[32], b5[32], b6[32];
	double per = c->pnode + c->pinfra;
	int64_t need = nodes_for(c, c->I);
	if (c->pinfra > 0)  /* say what a node's figure holds */
		snprintf(b1, sizeof b1, "%s (%s a node + %s of network)", kw(per, b5, sizeof b5),
			 kw(c->pnode, b6, sizeof b6), kw(c->pinfra, b4, sizeof b4));
	else
		kw(per, b1, sizeof b1);
	clause(msg, "system power: %lld instances need %lld nodes x %s = %s%s%s; the %s budget powers "
	       "%lld node%s = %lld instance%s", (long long)c->I, (long long)need, b1,
	       kw((double)need * per + c->pc->fixed, b2, sizeof b2), c->pc->fixed > 0 ? " with the fixed " : "",
	       c->pc->fixed > 0 ? kw(c->pc->fixed, b4, sizeof b4) : "", kw(c->pc->budget, b3, sizeof b3),
	       (long long)c->sys_max, c->sys_max == 1 ? "" : "s", (long long)k, k == 1 ? "" : "s");
}

/* Rack power and cooling: the nodes a rack may power. */
static void rack_limit(const fx_pctx *c, int64_t *a, double limit, const char *what, char **msg)
{
	if (limit <= 0)
		return;
	int64_t per = (int64_t)floor(limit / c->pnode + 1e-9);
	for (int64_t r = 0; r < c->R; r++)
		a[r] = min64(c->rack_nodes[r], per);
	int64_t k = fit(c, a, INT64_MAX, c->w->keep_instance);
	if (c->I <= k)
		return;
	char b1[32], b2[32];
	int64_t sum = 0;
	for (int64_t r = 0; r < c->R; r++)
		sum += a[r];
	clause(msg, "%s: %s per rack powers %lld node%s of %s each; the %lld racks power %lld nodes = "
	       "%lld instance%s, %lld asked", what, kw(limit, b1, sizeof b1), (long long)per,
	       per == 1 ? "" : "s", kw(c->pnode, b2, sizeof b2), (long long)c->R, (long long)sum,
	       (long long)k, k == 1 ? "" : "s", (long long)c->I);
}

/* Memory per device: weights, the KV of the sessions each device holds,
 * and the reserve, against HBM (placement/model.h). */
static void memory(const fx_pctx *c, const fx_accel *acc, const fx_sessions *s, char **msg)
{
	const fx_workload *w = c->w;
	if (!w->have_model || !acc || acc->hbm <= 0)
		return;
	fx_model_memory mm;
	fx_model_memory_per_device(&w->model, w->dims[FX_GROUP_TP], w->dims[FX_GROUP_EP],
				   w->dims[FX_GROUP_PP], w->dims[FX_GROUP_DP], c->I, acc, s, &mm);
	if (mm.total <= acc->hbm)
		return;
	char b[5][32];
	clause(msg, "memory: TP%lld x EP%lld x PP%lld holds %s of weights + %s of KV cache + %s "
	       "reserve = %s per device, over the %s of HBM", (long long)w->dims[FX_GROUP_TP],
	       (long long)w->dims[FX_GROUP_EP], (long long)w->dims[FX_GROUP_PP],
	       fx_unit_format(mm.weights, FX_UNIT_SIZE, b[0], sizeof b[0]),
	       fx_unit_format(mm.kv, FX_UNIT_SIZE, b[1], sizeof b[1]),
	       fx_unit_format(mm.reserve, FX_UNIT_SIZE, b[2], sizeof b[2]),
	       fx_unit_format(mm.total, FX_UNIT_SIZE, b[3], sizeof b[3]),
	       fx_unit_format(acc->hbm, FX_UNIT_SIZE, b[4], sizeof b[4]));
}

int fx_place_arith(const fx_pctx *c, const fx_accel *acc, const fx_sessions *s, fx_diag *d)
{
	char *msg = NULL;
	int64_t *a = fx_xmalloc((size_t)(c->R + 1) * sizeof *a);
	capacity(c, a, &msg);
	system_power(c, a, &msg);
	rack_limit(c, a, c->pc->rack_budget, "rack power", &msg);
	if (!c->pc->liquid)
		rack_limit(c, a, c->pc->air_limit, "cooling (air only)", &msg);
	memory(c, acc, s, &msg);
	if (!msg) {  /* each alone fits: all together? */
		int64_t k[FX_LEVELS];
		fx_place_counts(c, k);
		if (c->I > k[FX_LEVEL_ANY])
			clause(&msg, "power, racks and cooling together: %lld instances fit, %lld asked",
			       (long long)k[FX_LEVEL_ANY], (long long)c->I);
	}
	free(a);
	if (!msg)
		return 0;
	fx_diag_infeasible(d, "no placement of %lld instance%s of %lld devices fits: %s",
			   (long long)c->I, c->I > 1 ? "s" : "", (long long)c->D, msg);
	free(msg);
	return -1;
}
