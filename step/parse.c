/*
 * The step model's spec keys (docs/spec.md, "workload"):
 *
 *   workload:
 *     inventory:                      # the model as parts (else from `model`)
 *       layers: 40
 *       flops_per_token: 40.02e9      # FLOPs outside the parts
 *       parts:
 *         - {name: experts, split: ep, bytes: 288.8 GB, experts: 384, top_k: 6,
 *            layers: 40, a2a_bytes_per_token: 62.0 KB}
 *         - {name: table, split: table, bytes: 203.1 GB, row_bytes: 264 B,
 *            rows_per_token: 48, where: host}
 *       state: {per_session: 180.7 MB, read_per_step: 37.2 MB}
 *     layout: {attention: dp, experts: dispatch, cp: 2, microbatches: 4, ...}
 *     serve: {phase: decode, context: 200000, batch: max, routing: random}
 *     accelerator: {..., efficiency: 0.8, host: {rtt: 1.05 us, reads_per_s: 61e6},
 *                   sram: {capacity: 44 GB, bandwidth: ...}, rom_bandwidth: ...,
 *                   balance: 0.9, fixed_per_layer: 0.25 us}
 *
 * Every bad value is reported at its FILE:LINE:COL; a part without a split
 * rule, a table no card can hold, a skew share over 1 are errors, never
 * defaults.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "step.h"

/* A name out of a fixed list, or an error listing them. */
static int pick(fx_diag *d, const fx_snode *map, const char *key, const char *const *names,
		int n, const char *what, int *out)
{
	const fx_snode *node = fx_snode_get(map, key);
	const char *s;
	if (!node)
		return 0;
	if (fx_snode_str(d, node, &s))
		return -1;
	for (int i = 0; i < n; i++)
		if (strcmp(s, names[i]) == 0) {
			*out = i;
			return 0;
		}
	return fx_snode_error(d, node, "'%s' must be %s, got '%s'", node->path, what, s);
}

/* A plain number in [lo, hi] (lo excluded when strict). */
static int number(fx_diag *d, const fx_snode *map, const char *key, double lo, int strict,
		  double hi, const char *what, double *out)
{
	const fx_snode *n = fx_snode_get(map, key);
	double v;
	if (!n)
		return 0;
	if (fx_snode_qty(d, n, FX_UNIT_NONE, lo, strict, &v))
		return -1;
	if (!(v <= hi))
		return fx_snode_error(d, n, "'%s' must be %s, got %s", n->path, what, n->text);
	*out = v;
	return 0;
}

static const char *const wheres[] = {"hbm", "host", "sram", "rom"};
static const char *const splits[] = {"replicated", "tp", "ep", "table"};

static int parse_part(fx_diag *d, const fx_snode *n, fx_step_part *p)
{
	static const char *const keys[] = {
		"name", "split", "bytes", "where", "read", "flops_per_token", "units", "layers",
		"stage", "experts", "top_k", "token_bytes", "dispatch", "a2a_bytes_per_token",
		"experts_split", "row_bytes", "rows_per_token", NULL};
	memset(p, 0, sizeof *p);
	p->read = -1;
	if (n->kind != FX_SNODE_MAP)
		return fx_snode_error(d, n, "'%s' must be a map {name, split, bytes, ...}", n->path);
	int rc = fx_spec_keys(d, n, keys);
	const char *name;
	if (fx_spec_str(d, n, "name", &name) == 0)
		snprintf(p->name, sizeof p->name, "%s", name);
	else
		rc = -1;
	if (!fx_snode_get(n, "split"))
		rc |= fx_diag_error(d, &n->loc, "missing key '%s.split' (how the part is split over "
				    "the cards: replicated, tp, ep or table)", n->path);
	int v = 0;
	rc |= pick(d, n, "split", splits, FX_SPLITS, "replicated, tp, ep or table", &v);
	p->split = (fx_step_split)v;
	v = 0;
	rc |= pick(d, n, "where", wheres, FX_WHERES, "hbm, host, sram or rom", &v);
	p->where = (fx_step_where)v;
	rc |= fx_spec_qty(d, n, "bytes", FX_UNIT_SIZE, 0, 1, &p->bytes);
	rc |= fx_spec_qty_opt(d, n, "read", FX_UNIT_SIZE, 0, 0, &p->read);
	rc |= number(d, n, "flops_per_token", 0, 0, 1e30, "a number of FLOPs", &p->flops_per_token);
	rc |= fx_spec_int_opt(d, n, "units", 1, 1 << 20, &p->units);
	rc |= fx_spec_int_opt(d, n, "layers", 1, 1 << 20, &p->layers);
	static const char *const stages[] = {"first", "last"};
	rc |= pick(d, n, "stage", stages, 2, "first or last", &p->last_stage);
	static const char *const dispatch[] = {"per_expert", "per_card"};
	rc |= pick(d, n, "dispatch", dispatch, 2, "per_expert or per_card", &p->per_card);
	static const char *const esplit[] = {"whole", "even"};
	rc |= pick(d, n, "experts_split", esplit, 2, "whole or even", &p->even);
	rc |= fx_spec_qty_opt(d, n, "token_bytes", FX_UNIT_SIZE, 0, 0, &p->token_bytes);
	rc |= fx_spec_qty_opt(d, n, "a2a_bytes_per_token", FX_UNIT_SIZE, 0, 0, &p->a2a_token_bytes);
	if (rc)
		return -1;
	/* what each split needs, and only it */
	static const char *const ep_only[] = {"experts", "top_k", "token_bytes", "dispatch",
					      "a2a_bytes_per_token", "experts_split", NULL};
	static const char *const table_only[] = {"row_bytes", "rows_per_token", NULL};
	for (const char *const *k = ep_only; *k; k++)
		if (p->split != FX_SPLIT_EP && fx_snode_get(n, *k))
			rc |= fx_snode_error(d, fx_snode_get(n, *k), "'%s' is for split: ep parts",
					     fx_snode_get(n, *k)->path);
	for (const char *const *k = table_only; *k; k++)
		if (p->split != FX_SPLIT_TABLE && fx_snode_get(n, *k))
			rc |= fx_snode_error(d, fx_snode_get(n, *k), "'%s' is for split: table parts",
					     fx_snode_get(n, *k)->path);
	if (p->split == FX_SPLIT_EP) {
		rc |= fx_spec_int(d, n, "experts", 1, 1 << 20, &p->experts);
		rc |= fx_spec_int(d, n, "top_k", 1, 1 << 20, &p->top_k);
		if (rc == 0 && p->top_k > p->experts)
			rc = fx_snode_error(d, fx_snode_get(n, "top_k"), "'%s' must be at most experts "
					    "(%lld), got %lld", fx_snode_get(n, "top_k")->path,
					    (long long)p->experts, (long long)p->top_k);
		if (rc == 0 && !fx_snode_get(n, "layers"))
			rc = fx_diag_error(d, &n->loc, "missing key '%s.layers' (the layers the experts "
					   "are in: each has a dispatch and a combine)", n->path);
		if (fx_snode_get(n, "read"))
			rc |= fx_snode_error(d, fx_snode_get(n, "read"), "'%s': an ep part reads the "
					     "experts a step touches (Eq. 6-8), not a fixed amount",
					     fx_snode_get(n, "read")->path);
	}
	if (p->split == FX_SPLIT_TABLE) {
		rc |= fx_spec_qty(d, n, "row_bytes", FX_UNIT_SIZE, 0, 1, &p->row_bytes);
		double rows = 0;
		if (!fx_snode_get(n, "rows_per_token"))
			rc |= fx_diag_error(d, &n->loc, "missing key '%s.rows_per_token'", n->path);
		rc |= number(d, n, "rows_per_token", 0, 1, 1e12, "a positive number of rows", &rows);
		p->rows_per_token = rows;
		if (rc == 0 && p->row_bytes > p->bytes)
			rc = fx_snode_error(d, fx_snode_get(n, "row_bytes"), "'%s' is more than the "
					    "table's bytes", fx_snode_get(n, "row_bytes")->path);
		p->read = 0;
	}
	if (p->where == FX_WHERE_HOST && p->split != FX_SPLIT_TABLE)
		rc |= fx_snode_error(d, fx_snode_get(n, "where"), "'%s': only a lookup table "
				     "(split: table) is read from host memory; weights multiplied "
				     "every step live on the card", fx_snode_get(n, "where")->path);
	return rc ? -1 : 0;
}

static int parse_state(fx_diag *d, const fx_snode *n, fx_step_state *k)
{
	static const char *const keys[] = {"per_token", "per_session", "read_per_step", "units",
					   "layers", "where", "attn_flops", "heads", "head_dim", NULL};
	if (n->kind != FX_SNODE_MAP)
		return fx_snode_error(d, n, "'%s' must be a map {per_token, per_session, ...}", n->path);
	int rc = fx_spec_keys(d, n, keys);
	rc |= fx_spec_qty_opt(d, n, "per_token", FX_UNIT_SIZE, 0, 0, &k->per_token);
	rc |= fx_spec_qty_opt(d, n, "per_session", FX_UNIT_SIZE, 0, 0, &k->per_session);
	k->read_per_step = -1;
	rc |= fx_spec_qty_opt(d, n, "read_per_step", FX_UNIT_SIZE, 0, 0, &k->read_per_step);
	rc |= fx_spec_int_opt(d, n, "units", 1, 1 << 20, &k->units);
	rc |= fx_spec_int_opt(d, n, "layers", 1, 1 << 20, &k->layers);
	int w = (int)k->where;
	rc |= pick(d, n, "where", wheres, FX_WHERES, "hbm, host or sram", &w);
	k->where = (fx_step_where)w;
	rc |= number(d, n, "attn_flops", 0, 0, 1e30, "a number of FLOPs", &k->attn_flops);
	rc |= fx_spec_int_opt(d, n, "heads", 1, 1 << 20, &k->q_heads);
	rc |= fx_spec_int_opt(d, n, "head_dim", 1, 1 << 20, &k->head_dim);
	if (rc == 0 && k->where == FX_WHERE_ROM)
		rc = fx_snode_error(d, fx_snode_get(n, "where"), "'%s': state changes every step; "
				    "ROM holds only weights", fx_snode_get(n, "where")->path);
	if (rc == 0 && !fx_snode_get(n, "per_token") && !fx_snode_get(n, "per_session"))
		rc = fx_diag_error(d, &n->loc, "'%s' needs per_token or per_session", n->path);
	return rc;
}

static int parse_inventory(fx_diag *d, const fx_snode *n, fx_step_model *m)
{
	static const char *const keys[] = {"parts", "state", "layers", "moe_layers", "flops_per_token",
					   "hidden_bytes", "reduce_bytes", "tp_reductions", NULL};
	if (n->kind != FX_SNODE_MAP)
		return fx_snode_error(d, n, "'%s' must be a map {parts, state, ...}", n->path);
	memset(m, 0, sizeof *m);
	m->kv.read_per_step = -1;
	int rc = fx_spec_keys(d, n, keys);
	const fx_snode *parts;
	if (fx_spec_seq(d, n, "parts", 1, &parts))
		return -1;
	if (parts->n == 0)
		return fx_snode_error(d, parts, "'%s' is empty: give the model's parts", parts->path);
	if (parts->n > FX_STEP_PARTS)
		return fx_snode_error(d, parts, "'%s' has %zu parts, at most %d", parts->path, parts->n,
				      FX_STEP_PARTS);
	for (size_t i = 0; i < parts->n; i++)
		rc |= parse_part(d, parts->items[i], &m->part[i]);
	m->nparts = (int)parts->n;
	const fx_snode *st;
	if (fx_spec_map(d, n, "state", 0, &st))
		return -1;
	if (st)
		rc |= parse_state(d, st, &m->kv);
	rc |= fx_spec_int_opt(d, n, "layers", 1, 1 << 20, &m->layers);
	rc |= fx_spec_int_opt(d, n, "moe_layers", 0, 1 << 20, &m->moe_layers);
	rc |= number(d, n, "flops_per_token", 0, 0, 1e30, "a number of FLOPs", &m->flops_per_token);
	rc |= fx_spec_qty_opt(d, n, "hidden_bytes", FX_UNIT_SIZE, 0, 0, &m->act_bytes);
	rc |= fx_spec_qty_opt(d, n, "reduce_bytes", FX_UNIT_SIZE, 0, 0, &m->reduce_bytes);
	rc |= fx_spec_int_opt(d, n, "tp_reductions", 0, 1 << 24, &m->tp_reductions);
	if (rc)
		return -1;
	/* layers default to the most any part spans */
	for (int i = 0; i < m->nparts; i++) {
		if (!m->layers && m->part[i].layers > m->layers)
			m->layers = m->part[i].layers;
		if (m->part[i].split == FX_SPLIT_EP && m->part[i].layers > m->layers && fx_snode_get(n, "layers"))
			rc |= fx_snode_error(d, fx_snode_get(parts->items[i], "layers"), "'%s' is more "
					     "than the inventory's layers (%lld)",
					     fx_snode_get(parts->items[i], "layers")->path,
					     (long long)m->layers);
	}
	if (!m->kv.layers)
		m->kv.layers = m->layers;
	if (!fx_snode_get(n, "tp_reductions"))
		m->tp_reductions = 2 * m->layers;  /* attention and FFN, §6.2.2 */
	return rc;
}

static int parse_layout(fx_diag *d, const fx_snode *n, fx_step_layout *l)
{
	static const char *const keys[] = {"attention", "experts", "sp", "cp", "cp_split", "tp_rows",
					   "microbatches", "expert_replicas", "expert_pool", "overlap",
					   NULL};
	if (n->kind != FX_SNODE_MAP)
		return fx_snode_error(d, n, "'%s' must be a map {attention, experts, ...}", n->path);
	int rc = fx_spec_keys(d, n, keys);
	static const char *const att[] = {"dp", "tp"}, *const ex[] = {"dispatch", "allreduce"};
	static const char *const cps[] = {"contiguous", "zigzag"}, *const ov[] = {"operator", "step"};
	rc |= pick(d, n, "attention", att, 2, "tp (split over the TP group) or dp (each card its "
		   "own sessions)", &l->attention_tp);
	rc |= pick(d, n, "experts", ex, 2, "dispatch (all-to-all, §6.2.6) or allreduce (every group "
		   "the same sessions, §6.3.1)", &l->ep_allreduce);
	rc |= fx_spec_bool_opt(d, n, "sp", &l->sp);
	rc |= fx_spec_int_opt(d, n, "cp", 1, 1 << 20, &l->cp);
	rc |= pick(d, n, "cp_split", cps, 2, "contiguous or zigzag", &l->cp_zigzag);
	rc |= fx_spec_int_opt(d, n, "tp_rows", 1, 1 << 20, &l->tp_rows);
	rc |= fx_spec_int_opt(d, n, "microbatches", 1, 1 << 20, &l->microbatches);
	rc |= fx_spec_int_opt(d, n, "expert_replicas", 1, 1 << 20, &l->expert_replicas);
	rc |= fx_spec_int_opt(d, n, "expert_pool", 1, 1 << 20, &l->expert_pool);
	rc |= pick(d, n, "overlap", ov, 2, "operator (Eq. 6-2 for each) or step (reads and compute "
		   "over the whole step, §6.7.4)", &l->overlap_step);
	const fx_snode *r = fx_snode_get(n, "tp_rows");
	if (rc == 0 && r && l->tp % l->tp_rows)
		rc = fx_snode_error(d, r, "'%s' must divide the scheme's tp (%lld), got %lld", r->path,
				    (long long)l->tp, (long long)l->tp_rows);
	return rc;
}

static int parse_serve(fx_diag *d, const fx_snode *n, const fx_step_model *m, fx_step_load *ld)
{
	static const char *const keys[] = {"phase", "context", "prompt", "batch", "users", "routing",
					   "hot_share", "hot_experts", "hot_groups", NULL};
	if (n->kind != FX_SNODE_MAP)
		return fx_snode_error(d, n, "'%s' must be a map {phase, context, batch, ...}", n->path);
	int rc = fx_spec_keys(d, n, keys);
	static const char *const ph[] = {"decode", "prefill"}, *const rt[] = {"random", "balanced", "hot"};
	int v = 0;
	rc |= pick(d, n, "phase", ph, 2, "decode or prefill", &v);
	ld->phase = (fx_step_phase)v;
	v = (int)ld->moe;
	rc |= pick(d, n, "routing", rt, FX_MOES, "random (Eq. 6-8), balanced or hot", &v);
	ld->moe = (fx_step_moe)v;
	rc |= fx_spec_int_opt(d, n, "context", 0, (int64_t)1 << 40, &ld->context);
	rc |= fx_spec_int_opt(d, n, "prompt", 1, (int64_t)1 << 40, &ld->prompt);
	rc |= fx_spec_int_opt(d, n, "users", 1, (int64_t)1 << 40, &ld->total);
	const fx_snode *b = fx_snode_get(n, "batch");
	if (b && !(b->kind == FX_SNODE_SCALAR && b->text && strcmp(b->text, "max") == 0))
		rc |= fx_snode_int(d, b, 1, (int64_t)1 << 40, &ld->batch);
	const fx_snode *hs = fx_snode_get(n, "hot_share");
	if (hs) {
		double h = 0;
		if (fx_snode_qty(d, hs, FX_UNIT_NONE, 0, 1, &h))
			rc = -1;
		else if (!(h <= 1))
			rc |= fx_snode_error(d, hs, "'%s' is a share of the assignments: at most 1, got %s",
					     hs->path, hs->text);
		else
			ld->hot_share = h;
	}
	rc |= fx_spec_int_opt(d, n, "hot_experts", 1, 1 << 20, &ld->hot_experts);
	rc |= fx_spec_int_opt(d, n, "hot_groups", 1, 1 << 20, &ld->hot_groups);
	if (rc)
		return -1;
	static const char *const hot_keys[] = {"hot_share", "hot_experts", "hot_groups", NULL};
	for (const char *const *k = hot_keys; *k; k++)
		if (fx_snode_get(n, *k) && ld->moe != FX_MOE_HOT)
			rc |= fx_snode_error(d, fx_snode_get(n, *k), "'%s' needs routing: hot",
					     fx_snode_get(n, *k)->path);
	if (ld->moe == FX_MOE_HOT && !hs)
		rc |= fx_diag_error(d, &n->loc, "missing key '%s.hot_share' (routing: hot puts that "
				    "share of the assignments on the hot experts)", n->path);
	for (int i = 0; i < m->nparts; i++)
		if (m->part[i].split == FX_SPLIT_EP && ld->hot_experts > m->part[i].experts)
			rc |= fx_snode_error(d, fx_snode_get(n, "hot_experts"), "'%s' is more than the "
					     "%lld experts of '%s'", fx_snode_get(n, "hot_experts")->path,
					     (long long)m->part[i].experts, m->part[i].name);
	if (ld->phase == FX_PHASE_PREFILL && !ld->prompt)
		rc |= fx_diag_error(d, &n->loc, "missing key '%s.prompt' (the tokens each session "
				    "prefills)", n->path);
	return rc;
}

static int parse_hw(fx_diag *d, const fx_snode *a, fx_step_hw *hw)
{
	int rc = 0;
	const fx_snode *n;
	rc |= number(d, a, "efficiency", 0, 1, 1, "a fraction of the peak, in (0, 1]", &hw->efficiency);
	rc |= number(d, a, "balance", 0, 1, 1, "a fraction in (0, 1] (Eq. 6-15: 0.9)", &hw->balance);
	rc |= fx_spec_qty_opt(d, a, "fixed_per_layer", FX_UNIT_TIME, 0, 0, &hw->fixed_per_layer);
	rc |= fx_spec_qty_opt(d, a, "rom_bandwidth", FX_UNIT_BANDWIDTH, 0, 1, &hw->rom_bw);
	if (fx_spec_map(d, a, "host", 0, &n))
		return -1;
	if (n) {
		static const char *const hk[] = {"bandwidth", "rtt", "reads_per_s", "inflight", NULL};
		rc |= fx_spec_keys(d, n, hk);
		rc |= fx_spec_qty_opt(d, n, "bandwidth", FX_UNIT_BANDWIDTH, 0, 1, &hw->host_bw);
		rc |= fx_spec_qty_opt(d, n, "rtt", FX_UNIT_TIME, 0, 1, &hw->host_rtt);
		rc |= number(d, n, "reads_per_s", 0, 1, 1e30, "a positive rate", &hw->host_reads);
		rc |= number(d, n, "inflight", 0, 1, 1e12, "a positive count", &hw->host_inflight);
	}
	if (fx_spec_map(d, a, "sram", 0, &n))
		return -1;
	if (n) {
		static const char *const sk[] = {"capacity", "bandwidth", NULL};
		rc |= fx_spec_keys(d, n, sk);
		rc |= fx_spec_qty(d, n, "capacity", FX_UNIT_SIZE, 0, 1, &hw->sram);
		rc |= fx_spec_qty(d, n, "bandwidth", FX_UNIT_BANDWIDTH, 0, 1, &hw->sram_bw);
	}
	return rc;
}

/* A table or weights that no card of the layout can hold: bad input, not
 * a layout that merely runs out of room for sessions. */
static int check_fit(fx_diag *d, const fx_snode *parts, const fx_step_model *m,
		     const fx_step_layout *l, const fx_step_hw *hw)
{
	int rc = 0;
	double cards = (double)(l->tp * l->cp * l->ep);
	for (int i = 0; i < m->nparts && parts; i++) {
		const fx_step_part *p = &m->part[i];
		if (p->split != FX_SPLIT_TABLE)
			continue;
		double per = p->bytes / cards, room = 0;
		const char *what = NULL;
		if (p->where == FX_WHERE_HBM && hw->a.hbm > 0) {
			room = hw->a.hbm - hw->a.reserve;
			what = "HBM less its reserve";
		} else if (p->where == FX_WHERE_SRAM) {
			room = hw->sram;
			what = "SRAM";
		}
		if (what && per > room) {
			const fx_snode *b = fx_snode_get(parts->items[i], "bytes");
			rc |= fx_snode_error(d, b, "'%s': the table is larger than the machine: %.4g GB "
					     "over the %.0f cards of a stage is %.4g GB per card, more "
					     "than its %.4g GB of %s", b->path, p->bytes / 1e9, cards,
					     per / 1e9, room / 1e9, what);
		}
	}
	if (m->kv.where == FX_WHERE_SRAM && !(hw->sram > 0))
		rc |= fx_diag_error(d, NULL, "workload.inventory.state.where: sram needs "
				    "workload.accelerator.sram");
	for (int i = 0; i < m->nparts; i++) {
		fx_step_where w = m->part[i].where;
		if ((w == FX_WHERE_SRAM && !(hw->sram_bw > 0)) || (w == FX_WHERE_ROM && !(hw->rom_bw > 0)))
			rc |= fx_diag_error(d, NULL, "workload.inventory part '%s' is in %s: give "
					    "workload.accelerator.%s", m->part[i].name,
					    fx_step_where_name(w), w == FX_WHERE_ROM ? "rom_bandwidth" : "sram");
	}
	return rc;
}

int fx_step_parse(fx_diag *d, const fx_spec *spec, const fx_model *shape, const int64_t *scheme,
		  const fx_accel *a, const fx_sessions *ses, fx_step_model *m, fx_step_layout *lay,
		  fx_step_load *ld, fx_step_hw *hw, int *have)
{
	memset(m, 0, sizeof *m);
	memset(ld, 0, sizeof *ld);
	memset(hw, 0, sizeof *hw);
	fx_step_layout_init(lay);
	*have = 0;
	if (a)
		hw->a = *a;
	if (scheme) {
		lay->tp = scheme[0];
		lay->ep = scheme[1];
		lay->pp = scheme[2];
		lay->dp = scheme[3];
	}
	const fx_snode *wl, *n, *inv;
	if (fx_spec_map(d, spec->root, "workload", 0, &wl))
		return -1;
	if (!wl)
		return 0;
	int rc = 0;
	if (fx_spec_map(d, wl, "inventory", 0, &inv))
		return -1;
	if (inv) {
		rc |= parse_inventory(d, inv, m);
		*have = 1;
	} else if (shape) {
		fx_step_from_shape(shape, m);
		*have = 1;
	}
	if (fx_spec_map(d, wl, "layout", 0, &n))
		return -1;
	if (n)
		rc |= parse_layout(d, n, lay);
	if (ses)
		ld->context = ses->context;  /* serve.context, when given, wins */
	if (fx_spec_map(d, wl, "serve", 0, &n))
		return -1;
	if (n)
		rc |= parse_serve(d, n, m, ld);
	if (fx_spec_map(d, wl, "accelerator", 0, &n))
		return -1;
	if (n)
		rc |= parse_hw(d, n, hw);
	if (rc)
		return -1;
	const fx_snode *parts = inv ? fx_snode_get(inv, "parts") : NULL;
	return *have ? check_fit(d, parts, m, lay, hw) : 0;
}
