/*
 * One scheme evaluated: the rules in their order, the timeline and the
 * objectives (the chapter "Supernodes", §6.7.1-6.7.3).
 *
 * Packing: an instance of D devices sits in the smallest domain (node,
 * rack, the whole fabric) that holds it, instances packed from device 0,
 * floor(domain / D) to a domain.
 *
 * Timeline (decode): sessions go round-robin to instances, and each
 * instance serves its sessions in waves of ep x micro: its EP groups each
 * run their own (attention is data-parallel across them, §6.3.1) and a
 * pipeline of q stages interleaves micro sessions per group.  With a
 * stage time t, the session at position u of a wave finishes its last
 * step at
 *
 *   F(u) = ((steps - 1) max(micro, q) + u + q) t
 *
 * (Eq. 6-7's (q + b - 1) t is steps = 1); a wave lasts W = F(micro - 1)
 * and the next one starts after it.  Without a pipeline a wave is the sum
 * of its steps' times, the context growing step by step (§6.7.1).  A
 * waiting session keeps its KV, so memory counts every session of an
 * instance.
 *
 * Cost is Eq. 6-13: the devices billed (every device of each node the
 * scheme uses, as §6.7.2 bills the server's eight cards; or the devices
 * used, plan.bill: devices) times the time until the last session is
 * done, over the sessions on time.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "../core/units.h"
#include "plan_internal.h"

const char *fx_plan_rule_name(fx_plan_rule r)
{
	static const char *const n[FX_PR_N] = {
		[FX_PR_NONE] = "feasible", [FX_PR_DEVICES] = "devices", [FX_PR_KERNEL] = "kernel",
		[FX_PR_SHAPE] = "shape", [FX_PR_KEEP] = "keep_within", [FX_PR_MEMORY] = "memory",
		[FX_PR_POWER] = "power", [FX_PR_DEADLINE] = "deadline", [FX_PR_COMM] = "collective",
		[FX_PR_BOUND] = "bound", [FX_PR_IDLE] = "idle",
	};
	return r < FX_PR_N ? n[r] : "?";
}

const char *fx_plan_group_pattern(const fx_plan_problem *p, fx_plan_group g)
{
	/* the step model's expert groups dispatch and combine (§6.2.6)
	 * unless the layout reduces their contributions (§6.3.1) */
	if (g == FX_PG_EP && p && p->model == &fx_plan_model_step && !p->ds->step_layout.ep_allreduce)
		return "all-to-all";
	return g == FX_PG_PP ? "broadcast" : "allreduce";
}

int64_t fx_plan_layers(const fx_plan_problem *p)
{
	return p->ds->work.have_model ? p->ds->work.model.layers : p->ds->step.layers;
}

/* The step model's kernel rules: what an inventory says (EP divides the
 * routed experts or replicates them; PP within the layers; CP within the
 * context).  TP splits each part min(tp, units) ways, so any TP runs. */
static int step_part_experts(const fx_plan_problem *p)  /* 0: none, -1: even */
{
	const fx_step_model *m = &p->ds->step;
	for (int i = 0; i < m->nparts; i++)
		if (m->part[i].split == FX_SPLIT_EP)
			return m->part[i].even ? -1 : (int)(m->part[i].experts > 0 ? m->part[i].experts : 1);
	return 0;
}

int64_t fx_plan_scheme_devices(const fx_plan_scheme *s)
{
	int64_t n = 1;
	for (int g = 0; g < FX_PG_N; g++)
		n = fx_mul_sat(n, s->deg[g]);
	return n;
}

const char *fx_plan_scheme_text(const fx_plan_scheme *s, const fx_plan_problem *p, char *buf,
				size_t len)
{
	static const char *const up[FX_PG_N] = {"TP", "CP", "EP", "PP", "DP"};
	size_t u = 0;
	buf[0] = '\0';
	for (int g = 0; g < FX_PG_N && u < len; g++)
		if (s->deg[g] > 1 || (g == FX_PG_TP))
			u += (size_t)snprintf(buf + u, len - u, "%s%s%lld", u ? " " : "", up[g],
					      (long long)s->deg[g]);
	if (s->sp && u < len)
		u += (size_t)snprintf(buf + u, len - u, " SP");
	if ((s->deg[FX_PG_PP] > 1 || (p && p->kind == FX_PLAN_TRAIN)) && u < len)
		u += (size_t)snprintf(buf + u, len - u, " m%lld", (long long)s->micro);
	if (u < len && (p == NULL || p->kind == FX_PLAN_DECODE))
		u += (size_t)snprintf(buf + u, len - u, " x%lld", (long long)s->instances);
	/* algorithms of the groups that have more than one member, when
	 * there was a choice */
	int any = 0;
	for (int g = 0; p && g < FX_PG_N && u < len; g++) {
		if (s->deg[g] < 2 || p->nalgo[g] < 2)
			continue;
		u += (size_t)snprintf(buf + u, len - u, "%s%s %s", any ? ", " : " (",
				      fx_plan_group_name((fx_plan_group)g), p->algo[g][s->algo[g]]);
		any = 1;
	}
	if (any && u < len)
		snprintf(buf + u, len - u, ")");
	return buf;
}

/* ---- packing ---- */

int64_t fx_plan_level_size(const fx_plan_problem *p, int level, int64_t *count)
{
	switch (level) {
	case FX_LEVEL_NODE:
		*count = p->nnodes;
		return p->per_node;
	case FX_LEVEL_RACK:
		*count = p->nracks;
		return p->per_rack;
	default:
		*count = 1;
		return p->devices;
	}
}

int fx_plan_min_level(const fx_plan_problem *p, int64_t D)
{
	for (int l = 0; l < FX_LEVELS; l++) {
		int64_t n, size = fx_plan_level_size(p, l, &n);
		if (D <= size)
			return l;
	}
	return -1;
}

int64_t fx_plan_fit(const fx_plan_problem *p, int level, int64_t D)
{
	int64_t n, size = fx_plan_level_size(p, level, &n);
	return D > 0 ? size / D * n : 0;
}

int64_t fx_plan_nodes_used(const fx_plan_problem *p, int level, int64_t D, int64_t inst)
{
	int64_t n, size = fx_plan_level_size(p, level, &n);
	int64_t per = D > 0 ? size / D : 0;
	if (per < 1 || inst < 1)
		return 0;
	/* whole domains, then the one begun */
	int64_t full = inst / per, rem = inst % per;
	if (full > n) {
		full = n;
		rem = 0;
	}
	int64_t pn = p->per_node;
	return full * ((per * D + pn - 1) / pn) + (rem ? (rem * D + pn - 1) / pn : 0);
}

/* The level of the domain that holds devices [a, b] of instance 0. */
static int span_level(const fx_plan_problem *p, int64_t a, int64_t b)
{
	if (a / p->per_node == b / p->per_node)
		return FX_LEVEL_NODE;
	if (a / p->per_rack == b / p->per_rack)
		return FX_LEVEL_RACK;
	return FX_LEVEL_ANY;
}

/* The rule's arithmetic as text, only when asked (e->want_why): formatting
 * it for every scheme searched cost more than deciding them. */
#define WHY(e, ...) ((e)->want_why ? (void)snprintf((e)->why, sizeof (e)->why, __VA_ARGS__) : (void)0)

static const char *gb(double v, char *buf)
{
	/* the book prints decimal GB for memory (§6.7.2: 102.03 GB) */
	snprintf(buf, 32, "%.2f GB", v / 1e9);
	return buf;
}

static const char *tshow(double v, char *buf)
{
	return fx_unit_format(v, FX_UNIT_TIME, buf, 32);
}

/* ---- rules that need no timeline ---- */

static int step_kernel_rule(const fx_plan_problem *p, fx_plan_eval *e)
{
	const fx_plan_scheme *s = &e->s;
	int64_t ep = s->deg[FX_PG_EP], E = step_part_experts(p), L = fx_plan_layers(p);
	if (ep > 1 && E == 0) {
		WHY(e, "EP%lld: the inventory has no routed experts (split: ep)", (long long)ep);
		return 1;
	}
	/* E < 0: held evenly in pieces (experts_split: even), any EP runs */
	if (ep > 1 && E > 0 && E % ep && ep % E) {
		WHY(e, "EP%lld neither divides the %lld experts nor replicates them evenly",
		    (long long)ep, (long long)E);
		return 1;
	}
	if (L > 0 && s->deg[FX_PG_PP] > L) {
		WHY(e, "PP%lld: more stages than the %lld layers", (long long)s->deg[FX_PG_PP],
		    (long long)L);
		return 1;
	}
	if (s->deg[FX_PG_CP] > p->knobs.context + 1) {
		WHY(e, "CP%lld: more ranks than the %lld tokens of context",
		    (long long)s->deg[FX_PG_CP], (long long)p->knobs.context);
		return 1;
	}
	return 0;
}

static int kernel_rule(const fx_plan_problem *p, fx_plan_eval *e)
{
	if (p->model == &fx_plan_model_step)
		return step_kernel_rule(p, e);
	const fx_model *m = &p->ds->work.model;
	const fx_plan_scheme *s = &e->s;
	int64_t tp = s->deg[FX_PG_TP], ep = s->deg[FX_PG_EP];
	if (!p->padded_heads && m->heads % tp) {
		WHY(e, "TP%lld does not divide the %lld heads (plan.padded_heads: "
			 "false)", (long long)tp, (long long)m->heads);
		return 1;
	}
	if (!p->padded_heads && tp % m->kv_heads && m->kv_heads % tp) {
		WHY(e, "TP%lld and the %lld KV heads: neither divides the other",
			 (long long)tp, (long long)m->kv_heads);
		return 1;
	}
	if (ep > 1 && m->experts == 0) {
		WHY(e, "EP%lld: the model is dense (no experts)", (long long)ep);
		return 1;
	}
	if (ep > 1 && m->experts % ep && ep % m->experts) {
		WHY(e, "EP%lld neither divides the %lld experts nor replicates "
			 "them evenly", (long long)ep, (long long)m->experts);
		return 1;
	}
	if (s->deg[FX_PG_PP] > m->layers) {
		WHY(e, "PP%lld: more stages than the %lld layers",
			 (long long)s->deg[FX_PG_PP], (long long)m->layers);
		return 1;
	}
	if (p->kind == FX_PLAN_DECODE && s->deg[FX_PG_CP] > p->knobs.context + 1) {
		WHY(e, "CP%lld: more ranks than the %lld tokens of context",
			 (long long)s->deg[FX_PG_CP], (long long)p->knobs.context);
		return 1;
	}
	return 0;
}

static int shape_rule(const fx_plan_problem *p, const fx_plan_knobs *k, fx_plan_eval *e)
{
	const fx_plan_scheme *s = &e->s;
	if (s->sp && s->deg[FX_PG_TP] < 2) {
		WHY(e, "SP shards within a TP group; TP1 has none");
		return 1;
	}
	if (s->micro > 1 && s->deg[FX_PG_PP] < 2 && p->kind == FX_PLAN_DECODE) {
		WHY(e, "micro-batches without a pipeline");
		return 1;
	}
	if (p->kind == FX_PLAN_DECODE) {
		if (s->deg[FX_PG_DP] > 1) {
			WHY(e, "at decode DP replicas are instances "
				 "(plan.search.instances)");
			return 1;
		}
		int64_t per = (k->sessions + s->instances - 1) / s->instances;
		int64_t groups = s->deg[FX_PG_EP];
		if (s->micro > 1 && s->micro * groups > per) {
			WHY(e, "%lld micro-batches x %lld EP groups, but an "
				 "instance holds %lld session%s", (long long)s->micro, (long long)groups,
				 (long long)per, per == 1 ? "" : "s");
			return 1;
		}
	} else {
		int64_t b = p->train.global_batch, dp = s->deg[FX_PG_DP];
		if (b % (dp * s->micro)) {
			WHY(e, "the global batch of %lld does not split into DP%lld "
				 "x %lld micro-batches", (long long)b, (long long)dp, (long long)s->micro);
			return 1;
		}
	}
	return 0;
}

static int keep_rule(const fx_plan_problem *p, fx_plan_eval *e)
{
	if (!p->explicit_keep)
		return 0;
	const fx_workload *w = &p->ds->work;
	const fx_plan_scheme *s = &e->s;
	static const struct { fx_plan_group g; fx_group_kind k; } map[] = {
		{FX_PG_TP, FX_GROUP_TP}, {FX_PG_EP, FX_GROUP_EP}, {FX_PG_PP, FX_GROUP_PP},
		{FX_PG_DP, FX_GROUP_DP},
	};
	for (size_t i = 0; i < sizeof map / sizeof map[0]; i++) {
		int64_t n = s->deg[map[i].g];
		if (n < 2)
			continue;
		int64_t stride = 1;
		for (int j = 0; j < (int)map[i].g; j++)
			stride *= s->deg[j];
		int lv = span_level(p, 0, (n - 1) * stride);
		if (lv > (int)w->keep[map[i].k]) {
			WHY(e, "workload.keep_within.%s: %s, but a %s%lld group "
				 "spans a %s", fx_group_kind_name(map[i].k),
				 fx_level_name(w->keep[map[i].k]), fx_plan_group_name(map[i].g),
				 (long long)n, lv == FX_LEVEL_RACK ? "rack" : "system");
			return 1;
		}
	}
	if (e->s.level > w->keep_instance) {
		WHY(e, "workload.keep_within.instance: %s, but an instance of "
			 "%lld devices needs a %s", fx_level_name(w->keep_instance),
			 (long long)fx_plan_scheme_devices(s), fx_level_name((fx_level)e->s.level));
		return 1;
	}
	return 0;
}

static int memory_rule(const fx_plan_problem *p, const fx_plan_knobs *k, fx_plan_eval *e)
{
	p->model->memory(p, k, &e->s, &e->mem);
	if (e->mem.total <= k->hbm)
		return 0;
	e->excess = e->mem.total / k->hbm;
	char a[32], b[32], c1[32], c2[32], c3[32], c4[32];
	if (p->kind == FX_PLAN_TRAIN)
		WHY(e, "%s > %s per device (weights %s + optimizer %s + "
			 "activations %s + reserve %s)", gb(e->mem.total, a), gb(k->hbm, b),
			 gb(e->mem.weights, c1), gb(e->mem.optimizer, c2), gb(e->mem.activations, c3),
			 gb(e->mem.reserve, c4));
	else
		WHY(e, "%s > %s per device (weights %s + KV %s of %lld "
			 "session%s + reserve %s)", gb(e->mem.total, a), gb(k->hbm, b),
			 gb(e->mem.weights, c1), gb(e->mem.kv, c2), (long long)e->mem.sessions,
			 e->mem.sessions == 1 ? "" : "s", gb(e->mem.reserve, c3));
	return 1;
}

static int power_rule(fx_plan_problem *p, const fx_plan_knobs *k, fx_plan_eval *e)
{
	const fx_power_config *pc = &p->ds->power;
	e->power = 0;
	if (!pc->present)
		return 0;
	fx_power_parts parts = {0};
	if (p->power_of && e->nodes >= 0 && e->nodes <= p->nnodes) {
		if (isnan(p->power_of[e->nodes]))
			p->power_of[e->nodes] = fx_power_of(pc, &p->ds->fab, e->nodes).total;
		parts.total = p->power_of[e->nodes];
	} else {
		parts = fx_power_of(pc, &p->ds->fab, e->nodes);
	}
	e->power = parts.total;
	char a[32], b[32];
	if (k->power_cap > 0 && parts.total > k->power_cap) {
		e->excess = parts.total / k->power_cap;
		WHY(e, "%lld node%s draw %s > the %s budget",
			 (long long)e->nodes, e->nodes == 1 ? "" : "s",
			 fx_unit_format(parts.total, FX_UNIT_POWER, a, sizeof a),
			 fx_unit_format(k->power_cap, FX_UNIT_POWER, b, sizeof b));
		return 1;
	}
	/* the fullest rack: nodes are used rack by rack */
	int64_t npr = p->nnodes / (p->nracks > 0 ? p->nracks : 1);
	int64_t in_rack = e->nodes < npr ? e->nodes : npr;
	double rack_w = (double)in_rack * p->node_power;
	if (pc->rack_budget > 0 && rack_w > pc->rack_budget) {
		e->excess = rack_w / pc->rack_budget;
		WHY(e, "a rack of %lld nodes draws %s > the %s rack budget",
			 (long long)in_rack, fx_unit_format(rack_w, FX_UNIT_POWER, a, sizeof a),
			 fx_unit_format(pc->rack_budget, FX_UNIT_POWER, b, sizeof b));
		return 1;
	}
	/* as place's rule: the air limit binds where liquid cooling is not
	 * available (power.liquid: false) */
	if (!pc->liquid && pc->air_limit > 0 && rack_w > pc->air_limit) {
		e->excess = rack_w / pc->air_limit;
		WHY(e, "a rack of %lld nodes draws %s, over the %s air limit, "
			 "and liquid cooling is not available", (long long)in_rack,
			 fx_unit_format(rack_w, FX_UNIT_POWER, a, sizeof a),
			 fx_unit_format(pc->air_limit, FX_UNIT_POWER, b, sizeof b));
		return 1;
	}
	return 0;
}

/* ---- the timeline ---- */

/* Sessions of instance class c (0: the fuller instances) on time and
 * their last finish, waves of `slots` over ep groups. */
typedef struct tl {
	double W;          /* a wave */
	double t;          /* a stage (pipelines) */
	int64_t q, m, ep, steps;
	double F0;         /* F(0) */
} tl;

static double fin(const tl *x, int64_t u)
{
	if (x->q <= 1)
		return x->F0;
	return fx_plan_pipeline_finish(x->q, x->m, x->steps, u, x->t);
}

double fx_plan_pipeline_finish(int64_t q, int64_t micro, int64_t steps, int64_t u, double t)
{
	int64_t mq = micro > q ? micro : q;
	return ((double)(steps - 1) * (double)mq + (double)u + (double)q) * t;
}

/* n sessions on one instance: how many by D, and the last one's finish. */
static int64_t on_time_of(const tl *x, int64_t n, double D, double *last)
{
	int64_t slots = x->ep * x->m, ok = 0;
	*last = 0;
	if (n <= 0)
		return 0;
	int64_t waves = (n + slots - 1) / slots;
	int64_t r_last = (n - 1) % slots;
	*last = (double)(waves - 1) * x->W + fin(x, r_last / x->ep);
	if (!(D > 0))
		return n;
	/* full waves entirely on time */
	double wf = fin(x, x->m - 1);
	int64_t full = 0;
	if (wf <= D)
		full = (int64_t)floor((D - wf) / x->W) + 1;
	if (full >= waves)
		return n;
	ok = full * slots;
	/* the first wave not wholly on time */
	int64_t in_wave = full == waves - 1 ? n - full * slots : slots;
	for (int64_t r = 0; r < in_wave; r++)
		if ((double)full * x->W + fin(x, r / x->ep) <= D)
			ok++;
	return ok;
}

static void decode_timeline(fx_plan_problem *p, const fx_plan_knobs *k, fx_plan_eval *e,
			    double comm_step, int bound)
{
	/* a bound: the model's own communication free too, when it has any */
	void (*local)(const fx_plan_problem *, const fx_plan_knobs *, const fx_plan_scheme *,
		      int64_t, fx_plan_local *) = bound && p->model->local_free ? p->model->local_free
										: p->model->local;
	const fx_plan_scheme *s = &e->s;
	int64_t q = s->deg[FX_PG_PP];
	tl x = {0};
	x.q = q;
	x.m = s->micro;
	x.ep = p->model->concurrent ? p->model->concurrent(p, k, s) : 1;
	x.steps = p->steps;
	double sum = 0, first = 0;
	if (p->model->local_steps && !(bound && p->model->local_free)) {
		p->model->local_steps(p, k, s, k->context, p->steps, &e->local, &sum);
		first = e->local.time;
	} else {
		for (int64_t st = 0; st < p->steps; st++) {
			fx_plan_local l;
			local(p, k, s, fx_add_sat(k->context, st), &l);
			if (st == 0) {
				e->local = l;
				first = l.time;
			}
			sum += l.time;
		}
	}
	double mean_local = p->steps > 0 ? sum / (double)p->steps : first;
	if (q <= 1) {
		e->stage = first + comm_step;
		e->step = e->stage;
		x.F0 = sum + (double)p->steps * comm_step;
		x.W = x.F0;
	} else {
		x.t = mean_local + comm_step;
		e->stage = first + comm_step;
		e->step = (double)q * e->stage;
		x.F0 = fin(&x, 0);
		x.W = fin(&x, x.m - 1);
	}
	e->session = x.F0;
	e->conc = x.ep * x.m;
	int64_t I = s->instances, n = k->sessions;
	int64_t full = n / I, extra = n % I;
	double l0 = 0, l1 = 0;
	int64_t ot = 0;
	if (extra)
		ot += extra * on_time_of(&x, full + 1, k->deadline, &l0);
	if (full)
		ot += (I - extra) * on_time_of(&x, full, k->deadline, &l1);
	e->finish = l0 > l1 ? l0 : l1;
	e->on_time = ot;
	e->count = n;
	e->gpu_s = e->billed * e->finish;
	double dl = k->deadline;
	/* objectives */
	e->obj[FX_PO_LATENCY] = e->session;
	e->obj[FX_PO_COST] = ot > 0 ? e->gpu_s / (double)ot : INFINITY;
	int64_t slots = x.ep * x.m, per_wave = slots;
	if (dl > 0) {
		per_wave = 0;
		for (int64_t r = 0; r < slots; r++)
			per_wave += fin(&x, r / x.ep) <= dl;
	}
	e->obj[FX_PO_RATE] = dl > 0 ? (double)I * (double)per_wave / x.W : NAN;
	double tokens = (double)I * (double)slots * (double)p->steps / x.W;
	e->obj[FX_PO_TOKENS_CARD] = tokens / (double)e->devices;
	e->obj[FX_PO_TOKENS_KW] = e->power > 0 ? tokens / (e->power / 1e3) : NAN;
}

size_t fx_plan_session_finishes(const fx_plan_problem *p, const fx_plan_knobs *k,
				const fx_plan_eval *e, double *out, size_t n)
{
	if (!k)
		k = &p->knobs;
	if (p->kind != FX_PLAN_DECODE)
		return 0;
	const fx_plan_scheme *s = &e->s;
	tl x = {0};
	x.q = s->deg[FX_PG_PP];
	x.m = s->micro;
	x.ep = p->model->concurrent ? p->model->concurrent(p, k, s) : 1;
	x.steps = p->steps;
	if (x.q <= 1) {
		x.F0 = x.W = e->session;
	} else {
		x.t = e->session / ((double)x.steps * (double)(x.m > x.q ? x.m : x.q) -
				    (double)(x.m > x.q ? x.m : x.q) + (double)x.q);
		x.F0 = e->session;
		x.W = fin(&x, x.m - 1);
	}
	int64_t slots = x.ep * x.m;
	size_t w = 0;
	for (int64_t i = 0; i < e->count && w < n; i++) {
		int64_t pos = i / s->instances;  /* its place on its instance */
		int64_t wave = pos / slots, r = pos % slots;
		out[w++] = (double)wave * x.W + fin(&x, r / x.ep);
	}
	return w;
}

/* Training: a step is the pipeline over the micro-batches (Eq. 6-7),
 * then the DP gradient reduction. */
static void train_timeline(fx_plan_problem *p, const fx_plan_knobs *k, fx_plan_eval *e,
			   double comm_mb, double comm_dp, int bound)
{
	const fx_plan_scheme *s = &e->s;
	fx_plan_local l;
	if (bound && p->model->local_free)
		p->model->local_free(p, k, s, 0, &l);
	else
		p->model->local(p, k, s, 0, &l);
	e->local = l;
	int64_t q = s->deg[FX_PG_PP], b = s->micro;
	e->stage = l.time + comm_mb;
	e->step = (double)(q + b - 1) * e->stage + comm_dp;
	e->session = e->step;
	e->finish = e->step;
	e->count = 1;
	e->on_time = !(k->deadline > 0) || e->step <= k->deadline;
	e->conc = b;
	e->gpu_s = e->billed * e->step;
	double tokens = (double)p->train.global_batch * (double)p->train.seq_len / e->step;
	e->obj[FX_PO_LATENCY] = e->step;
	e->obj[FX_PO_COST] = e->gpu_s;
	e->obj[FX_PO_RATE] = NAN;
	e->obj[FX_PO_TOKENS_CARD] = tokens / (double)e->devices;
	e->obj[FX_PO_TOKENS_KW] = e->power > 0 ? tokens / (e->power / 1e3) : NAN;
}

/* Sessions needed on time. */
static int64_t needed(const fx_plan_problem *p, const fx_plan_knobs *k)
{
	double n = ceil(p->min_on_time * (double)k->sessions - 1e-9);
	return n < 0 ? 0 : (int64_t)n;
}

static int deadline_rule(const fx_plan_problem *p, const fx_plan_knobs *k, fx_plan_eval *e,
			 int bound)
{
	char a[32], b[32];
	if (p->kind == FX_PLAN_TRAIN) {
		e->excess = k->deadline > 0 ? e->step / k->deadline : 1;
		if (k->deadline > 0 && e->step > k->deadline) {
			WHY(e, "a step takes %s%s > the %s deadline",
				 bound ? "at least " : "", tshow(e->step, a), tshow(k->deadline, b));
			return 1;
		}
		return 0;
	}
	int64_t need = needed(p, k);
	if (!(k->deadline > 0) || e->on_time >= need)
		return 0;
	e->excess = e->session / k->deadline + (double)(need - e->on_time);
	WHY(e, "%lld of %lld session%s by %s (%s%s each), %lld needed",
		 (long long)e->on_time, (long long)k->sessions, k->sessions == 1 ? "" : "s",
		 tshow(k->deadline, a), bound ? "at least " : "", tshow(e->session, b),
		 (long long)need);
	return 1;
}

/* The degrees, instances and placement the rules before memory see. */
static int structure(fx_plan_problem *p, const fx_plan_knobs *k, fx_plan_eval *e)
{
	fx_plan_scheme *s = &e->s;
	int64_t D = fx_plan_scheme_devices(s);
	e->devices = D * s->instances;
	int lv = fx_plan_min_level(p, D);
	if (lv < 0 || s->instances > fx_plan_fit(p, lv, D)) {
		if (lv < 0)
			WHY(e, "an instance needs %lld devices; the fabric has "
				 "%lld", (long long)D, (long long)p->devices);
		else
			WHY(e, "%lld instances of %lld devices; %lld fit",
				 (long long)s->instances, (long long)D, (long long)fx_plan_fit(p, lv, D));
		e->rule = FX_PR_DEVICES;
		return 1;
	}
	s->level = (uint8_t)lv;
	e->nodes = fx_plan_nodes_used(p, lv, D, s->instances);
	e->billed = p->bill_devices ? (double)e->devices : (double)(e->nodes * p->per_node);
	if (kernel_rule(p, e)) {
		e->rule = FX_PR_KERNEL;
		return 1;
	}
	if (shape_rule(p, k, e)) {
		e->rule = FX_PR_SHAPE;
		return 1;
	}
	if (keep_rule(p, e)) {
		e->rule = FX_PR_KEEP;
		return 1;
	}
	if (memory_rule(p, k, e)) {
		e->rule = FX_PR_MEMORY;
		return 1;
	}
	if (power_rule(p, k, e)) {
		e->rule = FX_PR_POWER;
		return 1;
	}
	return 0;
}

static void fill_timeline(fx_plan_problem *p, const fx_plan_knobs *k, fx_plan_eval *e, int bound)
{
	const fx_plan_scheme *s = &e->s;
	if (p->kind == FX_PLAN_TRAIN) {
		double mb = 0;
		for (int g = 0; g < FX_PG_N; g++)
			if (g != FX_PG_DP)
				mb += e->comm[g];
		train_timeline(p, k, e, mb, e->comm[FX_PG_DP], bound);
		return;
	}
	double step = 0;
	int64_t q = s->deg[FX_PG_PP];
	int64_t layers = fx_plan_layers(p);
	double frac = q > 1 && layers > 0 ? ceil((double)layers / (double)q) / (double)layers : 1;
	for (int g = 0; g < FX_PG_N; g++) {
		if (g == FX_PG_PP)
			step += q > 1 ? e->comm[g] : 0;  /* one hand-off per stage */
		else
			step += e->comm[g] * frac;
	}
	decode_timeline(p, k, e, step, bound);
}

void fx_plan_bound(fx_plan_problem *p, const fx_plan_knobs *k, fx_plan_eval *e)
{
	if (!k)
		k = &p->knobs;
	e->rule = FX_PR_NONE;
	e->why[0] = '\0';
	e->excess = 1;
	memset(e->comm, 0, sizeof e->comm);
	memset(e->measured, 0, sizeof e->measured);
	for (int o = 0; o < FX_PO_N; o++)
		e->obj[o] = NAN;
	if (structure(p, k, e))
		return;
	fill_timeline(p, k, e, 1);  /* communication free: a bound on every objective */
	if (deadline_rule(p, k, e, 1))
		e->rule = FX_PR_DEADLINE;
}

void fx_plan_evaluate(fx_plan_problem *p, const fx_plan_knobs *k, fx_plan_eval *e, fx_diag *d)
{
	if (!k)
		k = &p->knobs;
	fx_plan_bound(p, k, e);
	/* a deadline the bound already misses is missed: evaluated in full
	 * all the same, so the arithmetic shows the scheme's own times */
	if (e->rule != FX_PR_NONE && e->rule != FX_PR_DEADLINE)
		return;
	e->rule = FX_PR_NONE;
	e->why[0] = '\0';
	const fx_plan_scheme *s = &e->s;
	for (int g = 0; g < FX_PG_N; g++) {
		fx_plan_traffic tr;
		p->model->traffic(p, s, (fx_plan_group)g, &tr);
		e->comm[g] = 0;
		if (!tr.pattern || s->deg[g] < 2 || tr.count <= 0)
			continue;
		char note[200];
		double t = fx_plan_comm_time(p, k, s, (fx_plan_group)g, tr.pattern, tr.bytes,
					     &e->measured[g], note, sizeof note, d);
		if (isnan(t)) {
			e->rule = FX_PR_COMM;
			WHY(e, "internal error routing %s", tr.pattern);
			return;
		}
		if (t < 0) {
			e->rule = FX_PR_COMM;
			WHY(e, "%s", note);
			return;
		}
		/* a chain over q stages: each stage hands on once */
		e->comm[g] = (g == FX_PG_PP ? t / (double)(s->deg[g] - 1) : t) * tr.count;
	}
	fill_timeline(p, k, e, 0);
	if (deadline_rule(p, k, e, 0))
		e->rule = FX_PR_DEADLINE;
}

int fx_plan_better(const fx_plan_eval *a, const fx_plan_eval *b, fx_plan_objective o)
{
	double x = a->obj[o], y = b->obj[o];
	if (isnan(x) || isnan(y))
		return isnan(x) - isnan(y);
	if (fx_plan_objective_maximise(o)) {
		x = -x;
		y = -y;
	}
	return (x > y) - (x < y);
}
