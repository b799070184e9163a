/*
 * The planner's problem: the design's model, accelerator, sessions or
 * training batch, and the spec's `plan:` block (the search space, the
 * objectives and how ties are called).
 *
 *   plan:
 *     objective: cost                  # or a list: [cost, latency] (a front)
 *     search:                          # values per axis (defaults below)
 *       tp: [1, 2, 4, 8]
 *       ep: [1]
 *       pp: [1, 2]
 *       cp: [1]
 *       dp: [1]
 *       sp: [false]
 *       micro: [1, 2, 4]
 *       instances: all                 # all | most | a number (at most)
 *     algorithms: {tp: [ring, tree]}   # per group kind
 *     padded_heads: false              # kernels pad heads: TP need not divide them
 *     uncertainty: 2%                  # objectives this close are tied
 *     margin: 25%                      # runners-up within this of the best
 *     bill: nodes                      # or devices
 *     limit: 2000000                   # schemes at most
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../core/xalloc.h"
#include "plan.h"
#include "plan_internal.h"

static const char *const group_names[FX_PG_N] = {"tp", "cp", "ep", "pp", "dp"};

const char *fx_plan_group_name(fx_plan_group g)
{
	return g < FX_PG_N ? group_names[g] : "?";
}

static const struct {
	const char *name, *field;
	int max;
} objectives[FX_PO_N] = {
	[FX_PO_LATENCY] = {"latency", "request_latency_s", 0},
	[FX_PO_COST] = {"cost", "gpu_time_per_on_time_s", 0},
	[FX_PO_RATE] = {"rate", "requests_per_second", 1},
	[FX_PO_TOKENS_CARD] = {"tokens-per-card", "tokens_per_s_per_device", 1},
	[FX_PO_TOKENS_KW] = {"tokens-per-kw", "tokens_per_s_per_kW", 1},
};

const char *fx_plan_objective_name(fx_plan_objective o)
{
	return o < FX_PO_N ? objectives[o].name : "?";
}

const char *fx_plan_objective_field(fx_plan_objective o)
{
	return o < FX_PO_N ? objectives[o].field : "?";
}

int fx_plan_objective_maximise(fx_plan_objective o)
{
	return o < FX_PO_N && objectives[o].max;
}

int fx_plan_objective_parse(const char *s, fx_plan_objective *out)
{
	for (int o = 0; o < FX_PO_N; o++)
		if (strcmp(s, objectives[o].name) == 0) {
			*out = (fx_plan_objective)o;
			return 0;
		}
	return -1;
}

static const char *objective_list(void)
{
	return "latency, cost, rate, tokens-per-card, tokens-per-kw";
}

/* One objective name against the workload: rate is a serving objective. */
static int add_objective(fx_plan_problem *p, const char *name, const fx_snode *at, fx_diag *d)
{
	fx_plan_objective o;
	if (fx_plan_objective_parse(name, &o)) {
		if (at)
			return fx_snode_error(d, at, "'%s' names no objective: '%s' (expected: %s)",
					      at->path, name, objective_list());
		return fx_diag_error(d, NULL, "--objective: no objective '%s' (expected: %s)", name,
				     objective_list());
	}
	const char *why = NULL;
	if (o == FX_PO_TOKENS_KW && !(p->node_power > 0))
		why = "tokens-per-kw needs a power model (the spec has no power.node or "
		      "power.device)";
	else if (p->kind == FX_PLAN_TRAIN && o == FX_PO_RATE)
		why = "rate is a serving objective (requests within a deadline); the workload "
		      "trains (workload.training)";
	else if (o == FX_PO_RATE && !(p->knobs.deadline > 0))
		why = "rate counts requests within the deadline: give workload.sessions.deadline";
	if (why) {
		if (at)
			return fx_snode_error(d, at, "'%s': %s", at->path, why);
		return fx_diag_error(d, NULL, "--objective %s: %s", name, why);
	}
	for (size_t i = 0; i < p->nobj; i++)
		if (p->obj[i] == o)
			return 0;
	if (p->nobj == FX_PLAN_MAX_OBJ)
		return fx_diag_error(d, at ? &at->loc : NULL, "at most %d objectives at once",
				     FX_PLAN_MAX_OBJ);
	p->obj[p->nobj++] = o;
	return 0;
}

int fx_plan_set_objectives(fx_plan_problem *p, const char *list, fx_diag *d)
{
	p->nobj = 0;
	char buf[256];
	snprintf(buf, sizeof buf, "%s", list);
	int rc = 0;
	char *save = NULL;
	for (char *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save))
		rc |= add_objective(p, t, NULL, d);
	if (rc == 0 && p->nobj == 0)
		rc = fx_diag_error(d, NULL, "--objective: give one or more of %s", objective_list());
	return rc;
}

/* A fraction: 0.02 or "2%", in [0, 1). */
static int fraction(fx_diag *d, const fx_snode *map, const char *key, double *out)
{
	const fx_snode *n = fx_snode_get(map, key);
	if (!n)
		return 0;
	const char *t;
	if (fx_snode_str(d, n, &t))
		return -1;
	char *end;
	double v = strtod(t, &end);
	if (end != t && *end == '%' && end[1] == '\0')
		v /= 100;
	else if (end == t || *end)
		v = NAN;
	if (!(v >= 0 && v < 1))
		return fx_snode_error(d, n, "'%s' must be a fraction from 0 to below 1 (e.g. 0.02 "
				      "or 2%%), got '%s'", n->path, t);
	*out = v;
	return 0;
}

static void powers(int64_t *v, size_t *n, int64_t hi)
{
	*n = 0;
	for (int64_t x = 1; x <= hi && *n < FX_PLAN_MAX_VALS; x *= 2)
		v[(*n)++] = x;
}

/* A list of whole numbers in [lo, hi] for one axis. */
static int int_list(fx_diag *d, const fx_snode *n, int64_t lo, int64_t hi, int64_t *v, size_t *nv)
{
	if (n->kind == FX_SNODE_SCALAR) {
		*nv = 1;
		return fx_snode_int(d, n, lo, hi, &v[0]);
	}
	if (n->kind != FX_SNODE_SEQ || n->n == 0)
		return fx_snode_error(d, n, "'%s' must be a list of whole numbers, e.g. [1, 2, 4]",
				      n->path);
	if (n->n > FX_PLAN_MAX_VALS)
		return fx_snode_error(d, n, "'%s' lists %zu values; at most %d", n->path, n->n,
				      FX_PLAN_MAX_VALS);
	int rc = 0;
	for (size_t i = 0; i < n->n; i++) {
		rc |= fx_snode_int(d, n->items[i], lo, hi, &v[i]);
		for (size_t j = 0; rc == 0 && j < i; j++)
			if (v[j] == v[i])
				rc = fx_snode_error(d, n->items[i], "'%s' lists %lld twice",
						    n->items[i]->path, (long long)v[i]);
	}
	*nv = n->n;
	return rc;
}

/* A group's algorithm when plan.algorithms names none: ring reductions
 * (the book's Eq. 6-9, place's default), the hand-off down a pipeline a
 * chain. */
static const char *default_algo(const char *pattern)
{
	if (strcmp(pattern, "broadcast") == 0)
		return "chain";
	if (fx_coll_find(pattern, "ring"))
		return "ring";
	return fx_coll_find(pattern, NULL)->name;
}

static int parse_algorithms(fx_plan_problem *p, const fx_snode *a, fx_diag *d)
{
	static const char *const keys[] = {"tp", "cp", "ep", "pp", "dp", NULL};
	if (a->kind != FX_SNODE_MAP)
		return fx_snode_error(d, a, "'%s' must be a map of group kind to algorithms, e.g. "
				      "{tp: [ring, tree]}", a->path);
	int rc = fx_spec_keys(d, a, keys);
	for (int g = 0; g < FX_PG_N && rc == 0; g++) {
		const fx_snode *n = fx_snode_get(a, group_names[g]);
		if (!n)
			continue;
		const char *pat = fx_plan_group_pattern(p, (fx_plan_group)g);
		size_t k = n->kind == FX_SNODE_SEQ ? n->n : 1;
		if (n->kind == FX_SNODE_MAP || k == 0 || k > FX_PLAN_MAX_ALGOS)
			return fx_snode_error(d, n, "'%s' must be a list of 1 to %d algorithms of %s",
					      n->path, FX_PLAN_MAX_ALGOS, pat);
		p->nalgo[g] = 0;
		for (size_t i = 0; i < k; i++) {
			const fx_snode *it = n->kind == FX_SNODE_SEQ ? n->items[i] : n;
			const char *name;
			if (fx_snode_str(d, it, &name))
				return -1;
			if (!fx_coll_find(pat, name) || strlen(name) >= sizeof p->algo[0][0])
				return fx_snode_error(d, it, "'%s' names no algorithm of %s (what %s "
						      "groups run): '%s' (see fabricx collective "
						      "--list)", it->path, pat, group_names[g], name);
			snprintf(p->algo[g][p->nalgo[g]++], sizeof p->algo[0][0], "%s", name);
		}
	}
	return rc;
}

/* `workload.training`: a global batch of sequences, trained. */
static int parse_training(fx_plan_problem *p, const fx_snode *t, fx_diag *d)
{
	static const char *const keys[] = {"global_batch", "seq_len", "efficiency",
					   "optimizer_bytes", "recompute", "deadline", NULL};
	fx_plan_training *tr = &p->train;
	tr->efficiency = 1;
	tr->optimizer_bytes = 16;  /* mixed-precision Adam: 2 + 2 + 12 bytes (ZeRO paper §3) */
	tr->recompute = 0;
	int rc = fx_spec_keys(d, t, keys);
	rc |= fx_spec_int(d, t, "global_batch", 1, (int64_t)1 << 30, &tr->global_batch);
	rc |= fx_spec_int(d, t, "seq_len", 1, (int64_t)1 << 30, &tr->seq_len);
	rc |= fraction(d, t, "efficiency", &tr->efficiency);
	const fx_snode *e = fx_snode_get(t, "efficiency");
	if (e && rc == 0 && !(tr->efficiency > 0))
		rc = fx_snode_error(d, e, "'%s' must be greater than 0", e->path);
	int64_t ob = 16;
	rc |= fx_spec_int_opt(d, t, "optimizer_bytes", 1, 1024, &ob);
	tr->optimizer_bytes = (double)ob;
	rc |= fx_spec_bool_opt(d, t, "recompute", &tr->recompute);
	rc |= fx_spec_qty_opt(d, t, "deadline", FX_UNIT_TIME, 0, 1, &p->knobs.deadline);
	return rc;
}

/* The fabric's packaging as domains of consecutive devices: devices per
 * node and per rack, when device i sits in node i / per_node (every
 * shipped kind numbers them so); otherwise one domain. */
static void geometry(fx_plan_problem *p)
{
	const fx_fabric *f = &p->ds->fab;
	p->devices = f->ndev;
	p->per_node = p->per_rack = f->ndev;
	p->nnodes = p->nracks = 1;
	if (f->nnodes <= 0 || f->ndev % f->nnodes)
		return;
	int64_t pn = f->ndev / f->nnodes;
	for (int64_t v = 0; v < f->ndev; v++)
		if (f->v[v].node != v / pn)
			return;
	p->per_node = pn;
	p->nnodes = f->nnodes;
	int64_t racks = f->nracks > 0 ? f->nracks : 1;
	if (f->nnodes % racks == 0) {
		int64_t npr = f->nnodes / racks;
		int ok = 1;
		for (int64_t v = 0; v < f->ndev && ok; v++)
			ok = f->v[v].rack < 0 ? racks == 1 : f->v[v].rack == v / (pn * npr);
		if (ok) {
			p->per_rack = pn * npr;
			p->nracks = racks;
			return;
		}
	}
	p->per_rack = f->ndev;
	p->nracks = 1;
}

static void defaults(fx_plan_problem *p)
{
	const fx_model *m = &p->ds->work.model;
	int64_t D = p->devices;
	int64_t heads = m->heads, layers = m->layers, experts = m->experts;
	if (p->model == &fx_plan_model_step) {
		/* the inventory's: query heads when it gives them, its layers,
		 * whether a part is routed experts */
		const fx_step_model *sm = &p->ds->step;
		heads = sm->kv.q_heads > 0 ? sm->kv.q_heads : D;
		layers = sm->layers > 0 ? sm->layers : 1;
		experts = 0;
		for (int i = 0; i < sm->nparts; i++)
			experts |= sm->part[i].split == FX_SPLIT_EP;
	}
	powers(p->vals[FX_PG_TP], &p->nvals[FX_PG_TP], D < heads ? D : heads);
	p->vals[FX_PG_CP][0] = 1;
	p->nvals[FX_PG_CP] = 1;
	if (experts > 0)
		powers(p->vals[FX_PG_EP], &p->nvals[FX_PG_EP], D);
	else {
		p->vals[FX_PG_EP][0] = 1;
		p->nvals[FX_PG_EP] = 1;
	}
	powers(p->vals[FX_PG_PP], &p->nvals[FX_PG_PP], D < layers ? D : layers);
	if (p->kind == FX_PLAN_TRAIN) {
		powers(p->vals[FX_PG_DP], &p->nvals[FX_PG_DP], D);
		p->sp_vals[0] = 0;
		p->sp_vals[1] = 1;
		p->nsp = 2;
		powers(p->micro, &p->nmicro, 64);
	} else {
		/* decode: replicas are instances (their own sessions), so DP is 1;
		 * SP changes nothing at decode (the chapter, §6.7.3 step four) */
		p->vals[FX_PG_DP][0] = 1;
		p->nvals[FX_PG_DP] = 1;
		p->sp_vals[0] = 0;
		p->nsp = 1;
		powers(p->micro, &p->nmicro, 8);
	}
	p->all_instances = 1;
	for (int g = 0; g < FX_PG_N; g++) {
		snprintf(p->algo[g][0], sizeof p->algo[0][0], "%s",
			 default_algo(fx_plan_group_pattern(p, (fx_plan_group)g)));
		p->nalgo[g] = 1;
	}
	p->uncertainty = 0.02;
	p->margin = 0.25;
	p->limit = 2000000;
}

static int parse_plan(fx_plan_problem *p, const fx_snode *pl, fx_diag *d)
{
	static const char *const keys[] = {"objective", "search", "algorithms", "padded_heads",
					   "uncertainty", "margin", "bill", "limit", NULL};
	static const char *const skeys[] = {"tp", "cp", "ep", "pp", "dp", "sp", "micro",
					    "instances", NULL};
	int rc = fx_spec_keys(d, pl, keys);
	const fx_snode *o = fx_snode_get(pl, "objective");
	if (o) {
		p->nobj = 0;
		if (o->kind == FX_SNODE_SEQ) {
			for (size_t i = 0; i < o->n; i++) {
				const char *s;
				if (fx_snode_str(d, o->items[i], &s) == 0)
					rc |= add_objective(p, s, o->items[i], d);
				else
					rc = -1;
			}
			if (o->n == 0)
				rc = fx_snode_error(d, o, "'%s' lists no objective", o->path);
		} else {
			const char *s;
			if (fx_snode_str(d, o, &s) == 0)
				rc |= add_objective(p, s, o, d);
			else
				rc = -1;
		}
	}
	const fx_snode *s;
	if (fx_spec_map(d, pl, "search", 0, &s))
		return -1;
	if (s) {
		rc |= fx_spec_keys(d, s, skeys);
		static const int64_t hi[FX_PG_N] = {1 << 20, 1 << 20, 1 << 20, 1 << 20, 1 << 20};
		for (int g = 0; g < FX_PG_N; g++) {
			const fx_snode *n = fx_snode_get(s, group_names[g]);
			if (n)
				rc |= int_list(d, n, 1, hi[g], p->vals[g], &p->nvals[g]);
		}
		const fx_snode *n = fx_snode_get(s, "micro");
		if (n)
			rc |= int_list(d, n, 1, 1 << 20, p->micro, &p->nmicro);
		if ((n = fx_snode_get(s, "sp"))) {
			p->nsp = 0;
			size_t k = n->kind == FX_SNODE_SEQ ? n->n : 1;
			for (size_t i = 0; i < k && i < 2; i++) {
				int v;
				if (fx_snode_bool(d, n->kind == FX_SNODE_SEQ ? n->items[i] : n, &v)) {
					rc = -1;
					continue;
				}
				if (p->nsp == 0 || p->sp_vals[0] != v)
					p->sp_vals[p->nsp++] = v;
			}
			if (k == 0 || k > 2)
				rc |= fx_snode_error(d, n, "'%s' must be [false], [true] or [false, true]",
						     n->path);
		}
		if ((n = fx_snode_get(s, "instances"))) {
			if (n->kind == FX_SNODE_SCALAR && n->plain && strcmp(n->text, "all") == 0)
				p->all_instances = 1;
			else if (n->kind == FX_SNODE_SCALAR && n->plain && strcmp(n->text, "most") == 0)
				p->all_instances = 0;
			else if (n->kind == FX_SNODE_SCALAR && n->plain && strspn(n->text, "0123456789") ==
				 strlen(n->text) && *n->text)
				rc |= fx_snode_int(d, n, 1, 1 << 24, &p->inst_max);
			else
				rc |= fx_snode_error(d, n, "'%s' must be all (every count that fits), most "
						     "(only the most that fit) or a number (at most that "
						     "many), got '%s'", n->path, n->text ? n->text : "a list");
		}
	}
	const fx_snode *a = fx_snode_get(pl, "algorithms");
	if (a)
		rc |= parse_algorithms(p, a, d);
	rc |= fx_spec_bool_opt(d, pl, "padded_heads", &p->padded_heads);
	rc |= fraction(d, pl, "uncertainty", &p->uncertainty);
	rc |= fraction(d, pl, "margin", &p->margin);
	const char *bill = NULL;
	rc |= fx_spec_str_opt(d, pl, "bill", &bill);
	if (bill && strcmp(bill, "devices") == 0)
		p->bill_devices = 1;
	else if (bill && strcmp(bill, "nodes") != 0)
		rc |= fx_snode_error(d, fx_snode_get(pl, "bill"), "'%s' must be nodes (every device "
				     "of each node used, as the book's §6.7.2 bills the server) or "
				     "devices, got '%s'", fx_snode_get(pl, "bill")->path, bill);
	int64_t lim = 0;
	rc |= fx_spec_int_opt(d, pl, "limit", 1, (int64_t)1 << 40, &lim);
	if (lim)
		p->limit = (uint64_t)lim;
	return rc;
}

int fx_plan_problem_init(fx_plan_problem *p, const fx_design *ds, fx_diag *d)
{
	memset(p, 0, sizeof *p);
	p->ds = ds;
	const fx_workload *w = &ds->work;
	const fx_snode *wl = fx_snode_get(ds->spec.root, "workload");
	int step = fx_plan_uses_step(ds);
	if (!w->have_model && !step)
		return fx_diag_error(d, NULL, "%s: plan needs a model: 'workload.model' or "
				     "'workload.inventory' (see docs/spec.md, workload)", ds->spec.file);
	if (!(ds->accel.hbm > 0) || !(ds->accel.hbm_bw > 0))
		return fx_diag_error(d, wl ? &wl->loc : NULL, "%s: plan needs the accelerator's "
				     "memory and bandwidth: 'workload.accelerator: {hbm, "
				     "hbm_bandwidth, flops}'", ds->spec.file);
	const fx_snode *tr = wl ? fx_snode_get(wl, "training") : NULL;
	p->kind = tr ? FX_PLAN_TRAIN : FX_PLAN_DECODE;
	if (!tr && ds->sessions.count <= 0)
		return fx_diag_error(d, wl ? &wl->loc : NULL, "%s: plan needs a workload to serve or "
				     "train: 'workload.sessions: {count, context, steps, deadline}' "
				     "or 'workload.training: {global_batch, seq_len}'",
				     ds->spec.file);
	if (tr && ds->sessions.count > 0)
		return fx_snode_error(d, tr, "'%s': give either workload.sessions (serving) or "
				      "workload.training, not both", tr->path);
	p->model = p->kind == FX_PLAN_TRAIN ? &fx_plan_model_train
		   : step ? &fx_plan_model_step : &fx_plan_model_decode;
	p->knobs.bw_scale = p->knobs.alpha_scale = p->knobs.measured_scale = 1;
	p->knobs.hbm = ds->accel.hbm;
	p->knobs.hbm_bw = ds->accel.hbm_bw;
	p->knobs.context = ds->sessions.context;
	p->knobs.sessions = ds->sessions.count;
	p->knobs.deadline = ds->sessions.deadline;
	p->knobs.power_cap = ds->power.budget;
	p->min_on_time = ds->sessions.count > 0 ? ds->sessions.min_on_time : 1;
	p->steps = ds->sessions.steps;
	geometry(p);
	p->node_power = ds->power.present ? fx_power_node(&ds->power, &ds->fab) : 0;
	int rc = 0;
	if (tr)
		rc = parse_training(p, tr, d);
	if (rc)
		return -1;
	if (p->kind == FX_PLAN_TRAIN && !(ds->accel.flops > 0))
		return fx_diag_error(d, wl ? &wl->loc : NULL, "%s: training is compute-bound: give "
				     "'workload.accelerator.flops'", ds->spec.file);
	defaults(p);
	p->explicit_keep = wl && fx_snode_get(wl, "keep_within") != NULL;
	const fx_snode *pl;
	if (fx_spec_map(d, ds->spec.root, "plan", 0, &pl))
		return -1;
	if (pl)
		rc = parse_plan(p, pl, d);
	if (rc)
		return -1;
	p->cache = fx_plan_cache_new();
	p->power_of = fx_xmalloc((size_t)(p->nnodes + 1) * sizeof *p->power_of);
	for (int64_t i = 0; i <= p->nnodes; i++)
		p->power_of[i] = NAN;
	return 0;
}

void fx_plan_default_objective(fx_plan_problem *p)
{
	/* the chapter's choice table: cost per on-time session for a batch
	 * of sessions under a deadline (§6.7.2), else one request's latency */
	if (p->nobj == 0)
		p->obj[p->nobj++] = p->kind == FX_PLAN_DECODE && p->knobs.deadline > 0 &&
				    p->knobs.sessions > 1 ? FX_PO_COST : FX_PO_LATENCY;
}

void fx_plan_problem_release(fx_plan_problem *p)
{
	fx_plan_cache_free(p->cache);
	p->cache = NULL;
	free(p->power_of);
	p->power_of = NULL;
}
