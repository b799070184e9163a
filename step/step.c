/*
 * fx_step_eval: one serving step of an inventory on a layout (step.h).
 *
 * The busiest card of the busiest stage sets the time.  For one pass of
 * one micro-batch through a stage it reads its share of every part's
 * weights (an EP part: only the experts the pass touches in the busiest
 * EP group, Eq. 6-8 or the skew model), the state of its sessions, and
 * computes its tokens' matrix work; these overlap per operator (the sum
 * of Eq. 6-2 over the parts and the attention) or over the whole step
 * (§6.7.4: "reading and computation take the longer of the two"), paths
 * that are not shared (HBM, ROM, SRAM) overlapping and a shared one
 * adding.  Then the stage's collectives, asked of the callback: TP
 * reductions (ReduceScatter + AllGather with SP, over rows then columns
 * in 2-D), dispatch and combine (or §6.3.1's reduction across expert
 * groups), CP's statistics (decode) or K/V all-gather (prefill), the PP
 * hand-off.  The pipeline runs (q + b - 1) stage times (Eq. 6-7); a
 * balance factor and a fixed latency make it Eq. 6-15.
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "step.h"

void fx_step_layout_init(fx_step_layout *l)
{
	memset(l, 0, sizeof *l);
	l->tp = l->cp = l->ep = l->pp = l->dp = 1;
	l->attention_tp = 1;
	l->microbatches = 1;
	l->expert_replicas = 1;
}

double fx_step_model_bytes(const fx_step_model *m)
{
	double b = 0;
	for (int i = 0; i < m->nparts; i++)
		b += m->part[i].bytes;
	return b;
}

enum { STAGE_ALL, STAGE_FIRST, STAGE_LAST };

typedef struct ev {
	const fx_step_model *m;
	const fx_step_hw *hw;
	const fx_step_layout *l;
	const fx_step_load *ld;
	fx_step_comm_fn comm;
	void *cctx;
	fx_step_result *out;
	int64_t T, rows, cols, cp, ep, pp, dp, mb, G, r, pool, Te;
	double P, bw[FX_WHERES];
	double Tatt;             /* ways attention (and TP parts) split */
	double inst;             /* sessions of the instance (one replica) per pass */
	double cards_stage;      /* attention-side cards of one stage */
	double distinct;         /* attention units with their own sessions, per stage */
	int prefill;
	int failed, comm_failed;
} ev;

static double dmin(double a, double b)
{
	return a < b ? a : b;
}

static void fail(ev *e, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* The first reason the layout cannot run the model. */
static void fail(ev *e, const char *fmt, ...)
{
	if (!e->failed) {
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(e->out->why, sizeof e->out->why, fmt, ap);
		va_end(ap);
		e->out->ok = 0;
	}
	e->failed = 1;
}

/* Share of a part's bytes on the stage: layered parts ceil(L / pp) of L
 * (the busiest stage), the rest on their own stage. */
static double share(const ev *e, const fx_step_part *p, int stage)
{
	if (p->layers > 0)
		return e->pp > 1 ? ceil((double)p->layers / (double)e->pp) / (double)p->layers : 1;
	if (stage == STAGE_ALL)
		return 1;
	return (p->last_stage ? stage == STAGE_LAST : stage == STAGE_FIRST) ? 1 : 0;
}

static double state_share(const ev *e)
{
	int64_t L = e->m->kv.layers;
	return L > 0 && e->pp > 1 ? ceil((double)L / (double)e->pp) / (double)L : 1;
}

/* Ways a TP part splits. */
static double tp_ways(const ev *e, const fx_step_part *p)
{
	if (e->Tatt <= 1)
		return 1;
	return p->units > 0 ? dmin(e->Tatt, (double)p->units) : e->Tatt;
}

static double kv_unit_ways(const ev *e)
{
	int64_t u = e->m->kv.units;
	return u > 0 ? dmin(e->Tatt, (double)u) : e->Tatt;
}

/* Experts one EP group holds per layer. */
static double experts_held(const ev *e, const fx_step_part *p)
{
	double all = (double)p->experts * (double)e->r;
	return p->even ? all / (double)e->G : dmin(all, ceil(all / (double)e->G));
}

static double expert_bytes(const fx_step_part *p)
{
	return p->experts > 0 && p->layers > 0 ? p->bytes / ((double)p->experts * (double)p->layers)
					       : 0;
}

/* ---- MoE: which experts a pass touches ---- */

typedef struct moe {
	double active, busiest, rows, mean_rows;
} moe;

static double ceil_eps(double x)
{
	return ceil(x - 1e-9);
}

static void moe_cover(const ev *e, const fx_step_part *p, double m, moe *o)
{
	const fx_step_load *ld = e->ld;
	double E = (double)p->experts, k = (double)p->top_k, G = (double)e->G, r = (double)e->r;
	double held = experts_held(e, p), A = m * k;
	memset(o, 0, sizeof *o);
	if (!(m > 0) || p->experts < 1 || p->top_k < 1)
		return;
	o->mean_rows = A / G;
	if (ld->moe == FX_MOE_HOT) {
		double h = ld->hot_share, nh = ld->hot_experts > 0 ? (double)ld->hot_experts : k;
		double gh = ld->hot_groups > 0 ? (double)ld->hot_groups : 1;
		if (nh > E)
			nh = E;
		/* the rest: k (1 - h) picks per token over the other experts */
		double rest = 0, kr = k * (1 - h);
		if (E > nh && kr > 0) {
			double q = kr / (E - nh);
			rest = (E - nh) * (1 - (q >= 1 ? 0 : exp(m * log1p(-q))));
		}
		o->active = dmin(nh, A * h) + rest;
		o->busiest = dmin(held, ceil_eps(nh / gh) + ceil_eps(rest * r / G));
		/* replicas of the hot experts share their rows */
		o->rows = A * h / gh / (r < gh ? 1 : r / gh) + A * (1 - h) / G;
		if (o->rows < o->mean_rows)
			o->rows = o->mean_rows;
		return;
	}
	o->active = ld->moe == FX_MOE_BALANCED ? dmin(E, A) : fx_step_active_experts(p->experts, p->top_k, m);
	/* the busiest group reads at least the mean, whole experts */
	o->busiest = dmin(held, ceil_eps(o->active * r / G));
	o->rows = o->mean_rows;
}

/* ---- communication ---- */

static double call(ev *e, fx_step_group g, const char *pattern, int64_t n, int64_t stride,
		   double bytes)
{
	if (n < 2 || !(bytes > 0) || !e->comm)
		return 0;
	fx_step_call c = {g, pattern, NULL, n, stride, bytes};
	int measured = 0;
	double t = e->comm(e->cctx, &c, &measured);
	e->out->calls++;
	e->out->measured += measured != 0;
	if (isnan(t)) {
		fail(e, "no time for the %s %s over %lld ranks", fx_step_group_name(g), pattern,
		     (long long)n);
		e->comm_failed = 1;
		return 0;
	}
	return t;
}

/* ---- memory ---- */

typedef struct mem {
	double weights, pool, sram_used, part[FX_STEP_PARTS];
	double state, act;       /* per session on the card */
} mem;

static void stage_memory(const ev *e, int stage, mem *o)
{
	const fx_step_model *m = e->m;
	memset(o, 0, sizeof *o);
	for (int i = 0; i < m->nparts; i++) {
		const fx_step_part *p = &m->part[i];
		double s = share(e, p, stage), b = 0;
		switch (p->split) {
		case FX_SPLIT_REPLICATED:
			b = p->bytes * s;
			break;
		case FX_SPLIT_TP:
			b = p->bytes * s / tp_ways(e, p);
			break;
		case FX_SPLIT_EP: {
			double L = p->layers > 0 ? ceil((double)p->layers / (double)e->pp) : 0;
			b = experts_held(e, p) * L * expert_bytes(p);
			if (e->pool) {  /* on the pool's cards, none on the attention side */
				o->pool += b;
				o->part[i] = b;
				continue;
			}
			b /= (double)e->Te;
			break;
		}
		case FX_SPLIT_TABLE:
			b = p->where == FX_WHERE_HOST ? 0 : p->bytes * s / e->cards_stage;
			break;
		default:
			break;
		}
		o->part[i] = b;
		if (p->where == FX_WHERE_HBM)
			o->weights += b;
		else if (p->where == FX_WHERE_SRAM)
			o->sram_used += b;
	}
	const fx_step_state *k = &m->kv;
	/* a prefill's sessions keep their prompt's KV too */
	double ctx = (double)e->ld->context + (e->prefill ? (double)e->ld->prompt : 0);
	double u = kv_unit_ways(e);
	o->state = (k->per_token * ctx / (u * (double)e->cp) + k->per_session / u) * state_share(e);
	double tok = e->prefill ? (double)e->ld->prompt / (double)e->cp : 1;
	o->act = m->act_bytes * tok / (e->l->sp ? (double)e->T : 1);
}

/* Sessions the card holds (Eq. 6-14, the reserve covering activations as
 * the chapter's 2 GiB does, §6.1.2, unless they outgrow it). */
static int64_t capacity(const ev *e, const mem *mm)
{
	const fx_step_hw *hw = e->hw;
	switch (e->m->kv.where) {
	case FX_WHERE_SRAM:
		return fx_step_sessions(hw->sram, mm->sram_used, 0, mm->state);
	case FX_WHERE_HOST:
	case FX_WHERE_ROM:
		return INT64_MAX;
	default:
		break;
	}
	double C = hw->a.hbm, U = hw->a.reserve;
	int64_t n = fx_step_sessions(C, mm->weights, U, mm->state);
	if (mm->act > 0 && (double)n * mm->act > U && n != INT64_MAX)
		n = fx_step_sessions(C, mm->weights, 0, mm->state + mm->act);
	return n;
}

/* ---- time of one pass through a stage ---- */

typedef struct pass {
	double rd[FX_WHERES], st[FX_WHERES];     /* weight and state bytes by path */
	double flops, ops;                       /* FLOPs; sum of per-operator times */
	double prd[FX_WHERES], pflops, pops;     /* the expert pool's side */
	double comm[FX_STEP_GROUPS];
	double table, excess, first, local, stage, wread_total;
	moe mo;
} pass;

static double op_time(const ev *e, double flops, const double *v)
{
	double t = e->P > 0 ? flops / e->P : 0;
	for (int w = 0; w < FX_WHERES; w++)
		if (v[w] > 0) {
			double x = e->bw[w] > 0 ? v[w] / e->bw[w] : INFINITY;
			if (x > t)
				t = x;
		}
	return t;
}

static double paths_time(const ev *e, const double *a, const double *b, double flops)
{
	double v[FX_WHERES];
	for (int w = 0; w < FX_WHERES; w++)
		v[w] = a[w] + (b ? b[w] : 0);
	return op_time(e, flops, v);
}

static void stage_time(ev *e, int stage, double sessions, pass *o)
{
	const fx_step_model *m = e->m;
	const fx_step_load *ld = e->ld;
	const fx_step_layout *l = e->l;
	memset(o, 0, sizeof *o);
	double per_tok = e->prefill ? (double)ld->prompt : 1;
	double tok = sessions * per_tok;                 /* tokens of an attention unit */
	double tok_card = e->prefill ? tok / (double)e->cp : tok;  /* the work a card does */
	double m_tok = e->inst * per_tok;                /* the instance's, for MoE */
	double v[FX_WHERES];
	int64_t moe_layers = m->moe_layers;
	double table_rows = 0, table_row_bytes = 0;
	int table_host = 0, table_near = 0;

	for (int i = 0; i < m->nparts; i++) {
		const fx_step_part *p = &m->part[i];
		double s = share(e, p, stage), rd = p->read < 0 ? p->bytes : p->read, V = 0, F = 0;
		memset(v, 0, sizeof v);
		switch (p->split) {
		case FX_SPLIT_REPLICATED:
			V = rd * s;
			F = p->flops_per_token * tok_card * s;
			o->wread_total += rd * s * e->cards_stage;
			break;
		case FX_SPLIT_TP: {
			double w = tp_ways(e, p);
			V = rd * s / w;
			F = p->flops_per_token * tok_card * s / w;
			o->wread_total += rd * s * e->cards_stage / w;
			break;
		}
		case FX_SPLIT_EP: {
			if (!moe_layers)
				moe_layers = p->layers;
			double L = p->layers > 0 ? ceil((double)p->layers / (double)e->pp) : 0;
			moe_cover(e, p, m_tok, &o->mo);
			double eb = expert_bytes(p);
			V = o->mo.busiest * L * eb / (double)e->Te;
			F = p->top_k > 0 && p->layers > 0
				    ? p->flops_per_token / ((double)p->top_k * (double)p->layers) *
					      o->mo.rows * L / (double)e->Te
				    : 0;
			o->wread_total += o->mo.active * L * eb;
			if (e->pool) {  /* on the pool's cards */
				o->prd[p->where] += V;
				o->pflops += F;
				v[p->where] = V;
				o->pops += op_time(e, F, v);
				continue;
			}
			break;
		}
		case FX_SPLIT_TABLE:
			table_rows += p->rows_per_token * s;
			table_row_bytes = p->row_bytes;
			if (p->where == FX_WHERE_HOST) {
				table_host = 1;
				continue;
			}
			table_near = p->where == FX_WHERE_HBM;
			/* each card serves its share of every token's rows */
			V = tok_card * p->rows_per_token * p->row_bytes * s;
			o->wread_total += V * e->cards_stage;
			break;
		default:
			break;
		}
		o->rd[p->where] += V;
		o->flops += F;
		v[p->where] = V;
		o->ops += op_time(e, F, v);
	}

	/* attention over the sessions' state */
	const fx_step_state *k = &m->kv;
	double u = kv_unit_ways(e), ss = state_share(e), ctx = (double)ld->context, sv;
	if (k->read_per_step >= 0)
		sv = k->read_per_step / (u * (double)e->cp);
	else
		sv = k->per_token * (ctx + (e->prefill ? per_tok : 1)) / (u * (double)e->cp) +
		     k->per_session / u;
	sv *= sessions * ss;
	double heads = k->q_heads > 0 ? dmin(e->Tatt, (double)k->q_heads) : e->Tatt, pairs;
	if (e->prefill)
		pairs = per_tok * ctx / (double)e->cp + fx_step_cp_busiest(per_tok, e->cp, l->cp_zigzag);
	else
		pairs = (ctx + 1) / (double)e->cp;
	double Fa = k->attn_flops * pairs * sessions * ss / heads;
	memset(v, 0, sizeof v);
	v[k->where] = sv;
	o->st[k->where] += sv;
	o->flops += Fa;
	o->ops += op_time(e, Fa, v);
	/* FLOPs outside the parts, split as attention */
	double Fo = m->flops_per_token * tok_card / e->Tatt;
	memset(v, 0, sizeof v);
	o->flops += Fo;
	o->ops += op_time(e, Fo, v);

	if (l->overlap_step)
		o->local = paths_time(e, o->rd, o->st, o->flops) + paths_time(e, o->prd, NULL, o->pflops);
	else
		o->local = o->ops + o->pops;
	if (e->hw->balance > 0 && e->hw->balance < 1)
		o->local /= e->hw->balance;

	/* ---- collectives of the pass ---- */
	double layer_share = m->layers > 0 && e->pp > 1 ? ceil((double)m->layers / (double)e->pp) /
								 (double)m->layers : 1;
	double moe_stage = moe_layers > 0 ? ceil((double)moe_layers / (double)e->pp) : 0;
	/* the unit's cards share the dispatch of its tokens */
	double send_tok = tok / (e->Tatt * (double)e->cp);
	if (e->T > 1) {
		double red = tok_card * m->reduce_bytes, t = 0;
		double count = e->Tatt > 1 ? (double)m->tp_reductions * layer_share : moe_stage;
		if (e->Tatt <= 1)
			red = tok_card * (double)e->T * m->reduce_bytes;  /* the group's tokens */
		if (e->rows > 1)
			t = call(e, FX_STEP_TP, "reduce-scatter", e->cols, 1, red) +
			    call(e, FX_STEP_TP, "all-gather", e->rows, e->cols, red / (double)e->cols);
		else if (l->sp)
			t = call(e, FX_STEP_TP, "reduce-scatter", e->T, 1, red) +
			    call(e, FX_STEP_TP, "all-gather", e->T, 1, red);
		else
			t = call(e, FX_STEP_TP, "allreduce", e->T, 1, red);
		o->comm[FX_STEP_TP] = count * t;
	}
	for (int i = 0; i < m->nparts; i++) {
		const fx_step_part *p = &m->part[i];
		if (p->split != FX_SPLIT_EP || (e->G < 2 && !e->pool))
			continue;
		if (l->ep_allreduce) {
			double t = call(e, FX_STEP_EP, "allreduce", e->ep, e->T * e->cp,
					tok_card * m->reduce_bytes);
			o->comm[FX_STEP_EP] += moe_stage * t;
			continue;
		}
		double G = (double)e->G, remote = e->pool ? 1 : (G - 1) / G, per;
		if (p->a2a_token_bytes > 0)
			per = p->a2a_token_bytes * remote;
		else if (p->per_card)  /* distinct remote groups the k experts land on */
			per = p->token_bytes * (e->pool ? G * (1 - pow(1 - 1 / G, (double)p->top_k))
					      : (G - 1) * (1 - pow(1 - 1 / G, (double)p->top_k)));
		else
			per = p->token_bytes * (double)p->top_k * remote;
		int64_t n = e->pool ? (int64_t)e->cards_stage + e->pool : e->G;
		int64_t stride = e->pool ? 1 : e->T * e->cp;
		double t = call(e, FX_STEP_EP, "all-to-all", n, stride, send_tok * per);
		o->comm[FX_STEP_EP] += 2 * moe_stage * t;  /* dispatch and combine */
	}
	if (e->cp > 1 && m->layers > 0) {
		double L = ceil((double)m->layers / (double)e->pp), t;
		if (e->prefill) {  /* the K/V of every position, gathered layer by layer */
			double kv = k->per_token / (double)(k->layers > 0 ? k->layers : m->layers) *
				    tok / u;
			t = call(e, FX_STEP_CP, "all-gather", e->cp, e->T, kv);
		} else {  /* the statistics (m, l, u) of each query head, FP32 */
			double st = (double)(k->q_heads > 0 ? k->q_heads : 1) / heads *
				    (double)(k->head_dim + 2) * 4 * tok;
			t = call(e, FX_STEP_CP, "allreduce", e->cp, e->T, st);
		}
		o->comm[FX_STEP_CP] = L * t;
	}
	if (e->pp > 1)
		o->comm[FX_STEP_PP] = call(e, FX_STEP_PP, "broadcast", 2, e->T * e->cp * e->ep,
					   tok_card * m->act_bytes);

	/* the lookup table, fetched while the first layer computes */
	double reads = tok_card * table_rows;
	if (reads > 0) {
		if (table_host) {
			const fx_step_hw *hw = e->hw;
			double rate = hw->host_reads > 0 ? hw->host_reads
				      : hw->host_inflight > 0 && hw->host_rtt > 0 ? hw->host_inflight / hw->host_rtt
										  : 0;
			o->table = hw->host_rtt;
			if (rate > 0 && reads / rate > o->table)
				o->table = reads / rate;
			if (hw->host_bw > 0)
				o->table += reads * table_row_bytes / hw->host_bw;
		} else if (table_near && e->cards_stage > 1) {
			double n = e->cards_stage;
			o->table = call(e, FX_STEP_TABLE, "all-to-all", (int64_t)n, 1,
					reads * table_row_bytes * (n - 1) / n);
		}
	}
	o->stage = o->local;
	for (int g = 0; g < FX_STEP_GROUPS; g++)
		o->stage += o->comm[g];
	o->first = m->layers > 0 ? o->stage / (double)m->layers : o->stage;
	o->excess = o->table > o->first ? o->table - o->first : 0;
	o->stage += o->excess;
}

int fx_step_eval(const fx_step_model *m, const fx_step_hw *hw, const fx_step_layout *lay,
		 const fx_step_load *ld, fx_step_comm_fn comm, void *ctx, fx_step_result *out)
{
	memset(out, 0, sizeof *out);
	out->ok = 1;
	ev e = {.m = m, .hw = hw, .l = lay, .ld = ld, .comm = comm, .cctx = ctx, .out = out};
	e.T = lay->tp;
	e.cp = lay->cp;
	e.ep = lay->ep;
	e.pp = lay->pp;
	e.dp = lay->dp;
	e.r = lay->expert_replicas > 0 ? lay->expert_replicas : 1;
	e.pool = lay->expert_pool;
	if (e.T < 1 || e.cp < 1 || e.ep < 1 || e.pp < 1 || e.dp < 1 || e.pool < 0) {
		fail(&e, "a parallel degree is below 1");
		return 0;
	}
	e.rows = lay->tp_rows > 1 ? lay->tp_rows : 1;
	e.cols = e.T / e.rows;
	if (e.T % e.rows) {
		fail(&e, "2-D TP: tp_rows %lld does not divide tp %lld", (long long)e.rows,
		     (long long)e.T);
		return 0;
	}
	e.mb = e.pp > 1 && lay->microbatches > 1 ? lay->microbatches : 1;
	e.G = e.pool ? e.pool : e.ep;
	e.Te = e.pool ? 1 : e.T;
	e.Tatt = lay->attention_tp ? (double)e.T : 1;
	e.prefill = ld->phase == FX_PHASE_PREFILL;
	e.P = hw->a.flops * (hw->efficiency > 0 ? hw->efficiency : 1);
	e.bw[FX_WHERE_HBM] = hw->a.hbm_bw;
	e.bw[FX_WHERE_HOST] = hw->host_bw;
	e.bw[FX_WHERE_SRAM] = hw->sram_bw;
	e.bw[FX_WHERE_ROM] = hw->rom_bw;
	e.cards_stage = (double)(e.T * e.cp * e.ep);
	double units = e.cards_stage / (e.Tatt * (double)e.cp);  /* attention units per stage */
	e.distinct = lay->ep_allreduce ? units / (double)e.ep : units;
	out->cards = (e.T * e.cp * e.ep + e.pool) * e.pp * e.dp;
	for (int i = 0; i < m->nparts; i++) {
		const fx_step_part *p = &m->part[i];
		if (p->split == FX_SPLIT_EP && (double)e.G > (double)p->experts * (double)e.r)
			fail(&e, "%s: %lld EP groups for %lld expert copies", p->name, (long long)e.G,
			     (long long)(p->experts * e.r));
		if (p->layers > 0 && e.pp > p->layers)
			fail(&e, "%s: %lld pipeline stages for %lld layers", p->name, (long long)e.pp,
			     (long long)p->layers);
		if (p->where != FX_WHERE_HBM && p->where != FX_WHERE_HOST && !(e.bw[p->where] > 0))
			fail(&e, "%s is in %s, which has no bandwidth", p->name,
			     fx_step_where_name(p->where));
	}
	if (e.failed)
		return 0;

	/* memory: the busier of the first and last stage */
	mem mm, m2;
	stage_memory(&e, e.pp > 1 ? STAGE_FIRST : STAGE_ALL, &mm);
	if (e.pp > 1) {
		stage_memory(&e, STAGE_LAST, &m2);
		if (m2.weights > mm.weights)
			mm = m2;
	}
	memcpy(out->part_card, mm.part, sizeof out->part_card);
	out->weights = mm.weights;
	out->state_session = mm.state;
	out->reserve = hw->a.reserve;
	out->free = hw->a.hbm - mm.weights - hw->a.reserve;
	out->capacity = capacity(&e, &mm);
	int64_t b = ld->batch > 0 ? ld->batch : out->capacity;
	double units_all = e.distinct * (double)e.dp;
	if (ld->total > 0)
		b = (int64_t)ceil((double)ld->total / units_all);
	if (b == INT64_MAX) {
		fail(&e, "the state takes no card memory: give the batch (workload.serve.batch)");
		b = 1;
	} else if (b < 1) {
		fail(&e, "no session fits: %.4g GB of HBM left for state, a session needs %.4g GB",
		     out->free / 1e9, mm.state / 1e9);
		b = 1;  /* the times of one session, for reports */
	} else if ((ld->batch > 0 || ld->total > 0) && out->capacity < b) {
		fail(&e, "%lld sessions per card are more than it holds (%lld)", (long long)b,
		     (long long)out->capacity);
	}
	out->batch = b;
	out->pool_card = mm.pool;
	if (e.pool && hw->a.hbm > 0 && mm.pool > hw->a.hbm - hw->a.reserve)
		fail(&e, "the expert pool's cards hold %.4g GB of experts each, more than HBM less the "
		     "reserve (%.4g GB)", mm.pool / 1e9, (hw->a.hbm - hw->a.reserve) / 1e9);
	out->activations = mm.act * (double)b;
	out->state_card = mm.state * (double)b;
	if (mm.weights + out->state_card + (out->activations > hw->a.reserve ? out->activations
									   : hw->a.reserve) > hw->a.hbm &&
	    m->kv.where == FX_WHERE_HBM && hw->a.hbm > 0)
		fail(&e, "the card's memory (Eq. 6-1) is over by %.4g GB",
		     (mm.weights + out->state_card + hw->a.reserve - hw->a.hbm) / 1e9);

	/* time: the slower of the first and last stage */
	double sessions = ceil((double)b / (double)e.mb);
	e.inst = (ld->total > 0 ? dmin((double)ld->total / (double)e.dp, (double)b * e.distinct)
				: (double)b * e.distinct) / (double)e.mb;
	pass ps, p2;
	stage_time(&e, e.pp > 1 ? STAGE_FIRST : STAGE_ALL, sessions, &ps);
	if (e.pp > 1) {
		stage_time(&e, STAGE_LAST, sessions, &p2);
		if (p2.stage > ps.stage)
			ps = p2;
	}
	out->active_experts = ps.mo.active;
	out->busiest_experts = ps.mo.busiest;
	out->busiest_rows = ps.mo.rows;
	out->mean_rows = ps.mo.mean_rows;
	double tw = 0, ts = 0;
	for (int w = 0; w < FX_WHERES; w++) {
		out->read_weights += ps.rd[w] + ps.prd[w];
		out->read_state += ps.st[w];
		if (e.bw[w] > 0) {
			tw += (ps.rd[w] + ps.prd[w]) / e.bw[w];
			ts += ps.st[w] / e.bw[w];
		}
	}
	out->flops = ps.flops + ps.pflops;
	out->t_weights = tw;
	out->t_state = ts;
	out->t_compute = e.P > 0 ? out->flops / e.P : 0;
	out->t_local = ps.local;
	out->t_table = ps.table;
	out->t_first = ps.first;
	out->table_hidden = ps.excess <= 0;
	double cpass = 0;
	for (int g = 0; g < FX_STEP_GROUPS; g++) {
		out->t_comm[g] = ps.comm[g];
		cpass += ps.comm[g];
	}
	out->t_stage = ps.stage;
	double passes = e.pp > 1 ? (double)(e.pp + e.mb - 1) : 1;
	out->step = e.pp > 1 ? fx_step_pipeline(e.pp, e.mb, NULL, ps.stage) : ps.stage;
	out->bubble = e.pp > 1 ? 1 - fx_step_pipeline_eff(e.pp, e.mb) : 0;
	out->comm = cpass * passes;
	out->fixed = hw->fixed_per_layer * (double)m->layers;
	out->step += out->fixed;
	out->comm_share = out->step > 0 ? out->comm / out->step : 0;
	out->weight_read_total = ps.wread_total * (double)e.mb * (double)e.dp;
	/* which term binds: the longest of the overlapped three, or the exchange */
	double path_max = 0;
	for (int w = 0; w < FX_WHERES; w++)
		if (e.bw[w] > 0) {
			double t = (ps.rd[w] + ps.st[w] + ps.prd[w]) / e.bw[w];
			if (t > path_max)
				path_max = t;
		}
	if (cpass > ps.local)
		out->binds = "communication";
	else if (out->t_compute >= path_max)
		out->binds = "compute";
	else
		out->binds = tw >= ts ? "weights" : "state";
	out->tokens = (ld->total > 0 ? (double)ld->total : (double)b * units_all) *
		      (e.prefill ? (double)ld->prompt : 1);
	out->tokens_per_s = out->step > 0 ? out->tokens / out->step : 0;
	out->tokens_per_s_card = out->cards > 0 ? out->tokens_per_s / (double)out->cards : 0;
	return e.comm_failed ? -1 : 0;
}
