/* Parsing the placement keys of `workload:`, and the traffic defaults the
 * model implies. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../core/xalloc.h"
#include "placement.h"

const char *fx_level_name(fx_level l)
{
	static const char *const n[] = {"node", "rack", "any"};
	return l < FX_LEVELS ? n[l] : "?";
}

const char *fx_group_kind_name(fx_group_kind k)
{
	static const char *const n[] = {"tp", "ep", "pp", "dp"};
	return k < FX_GROUP_KINDS ? n[k] : "?";
}

int64_t fx_workload_devices(const fx_workload *w)
{
	if (!w)
		return -1;
	int64_t n = 1;
	for (int k = 0; k < FX_GROUP_KINDS; k++)
		n = fx_mul_sat(n, w->dims[k]);  /* 2^20 each overflowed */
	return n;
}

static int parse_level(fx_diag *d, const fx_snode *n, int allow_none, fx_level *out)
{
	const char *s;
	if (fx_snode_str(d, n, &s))
		return -1;
	for (int l = 0; l < FX_LEVELS; l++)
		if (strcmp(s, fx_level_name((fx_level)l)) == 0) {
			*out = (fx_level)l;
			return 0;
		}
	if (allow_none && strcmp(s, "none") == 0) {
		*out = FX_LEVEL_ANY;
		return 0;
	}
	return fx_snode_error(d, n, "'%s' must be %s, got '%s'", n->path,
			      allow_none ? "none, node or rack" : "node, rack or any", s);
}

int fx_group_traffic_parse(fx_diag *d, const fx_snode *n, fx_group_traffic *t)
{
	static const char *const keys[] = {"collective", "algo", "bytes", "count", NULL};
	const char *pat, *algo = NULL;
	if (n->kind != FX_SNODE_MAP)
		return fx_snode_error(d, n, "'%s' must be a map {collective, algo, bytes, count}", n->path);
	int rc = fx_spec_keys(d, n, keys);
	rc |= fx_spec_str(d, n, "collective", &pat);
	rc |= fx_spec_str_opt(d, n, "algo", &algo);
	rc |= fx_spec_qty(d, n, "bytes", FX_UNIT_SIZE, 0, 0, &t->bytes);
	t->count = 1;
	const fx_snode *c = fx_snode_get(n, "count");
	int64_t cnt;
	if (c && fx_snode_int(d, c, 0, INT32_MAX, &cnt) == 0)
		t->count = (double)cnt;
	else if (c)
		rc = -1;
	if (rc)
		return -1;
	const fx_snode *pn = fx_snode_get(n, "collective"), *an = fx_snode_get(n, "algo");
	if (!fx_coll_find(pat, NULL))
		return fx_snode_error(d, pn, "'%s' names no collective pattern: '%s' (see fabricx "
				      "collective --list)", pn->path, pat);
	if (algo && !fx_coll_find(pat, algo))
		return fx_snode_error(d, an, "'%s' names no algorithm for %s: '%s' (see fabricx "
				      "collective --list)", an->path, pat, algo);
	snprintf(t->pattern, sizeof t->pattern, "%s", pat);
	snprintf(t->algo, sizeof t->algo, "%s", algo ? algo : "");
	return 0;
}

/* The chapter "Supernodes": TP partial sums are reduced twice per layer
 * (attention and FFN or experts, §6.2.2) on the FP32 hidden vector; the
 * EP groups dispatch each token's vector to the experts' cards and combine
 * the results back, two all-to-alls per MoE layer (§6.2.6: k copies of the
 * hidden vector, the (n-1)/n of them that leave the card) -- or, when
 * every expert group runs attention for the same sessions
 * (`workload.layout.experts: allreduce`, §6.3.1), reduce their
 * contributions once per layer; pipeline stages hand the activations on
 * once per step. */
static void default_traffic(fx_workload *w, int ep_allreduce)
{
	const fx_model *m = &w->model;
	double vec = (double)m->hidden * m->reduce_bytes * (double)w->tokens;
	double moe = (double)(m->layers - (m->experts ? m->dense_layers : 0));
	fx_group_traffic *t = w->traffic;
	if (!t[FX_GROUP_TP].pattern[0])
		t[FX_GROUP_TP] = (fx_group_traffic){"allreduce", "ring", vec, 2.0 * (double)m->layers};
	if (!t[FX_GROUP_EP].pattern[0] && (ep_allreduce || !m->experts)) {
		t[FX_GROUP_EP] = (fx_group_traffic){"allreduce", "ring", vec, moe};
	} else if (!t[FX_GROUP_EP].pattern[0]) {
		double n = (double)w->dims[FX_GROUP_EP];
		double per = (double)m->hidden * m->dtype_bytes * (double)m->top_k * (double)w->tokens;
		t[FX_GROUP_EP] = (fx_group_traffic){"all-to-all", "direct",
						    per * (n > 1 ? (n - 1) / n : 0), 2 * moe};
	}
	if (!t[FX_GROUP_PP].pattern[0])
		t[FX_GROUP_PP] = (fx_group_traffic){"broadcast", "chain",
						    (double)m->hidden * m->dtype_bytes * (double)w->tokens, 1};
	if (!t[FX_GROUP_DP].pattern[0])
		t[FX_GROUP_DP] = (fx_group_traffic){"allreduce", "ring", 0, 0};  /* inference: none */
}

/* Only the characters of a decimal number: strtod also reads "nan",
 * "inf" and hex. */
static int decimal(const char *t)
{
	return *t && strspn(t, "0123456789+-.eE") == strlen(t);
}

/* workload.accelerator.flops: a positive number and a FLOP/s unit; the
 * messages list the units, which few know by heart. */
static int flops_parse(fx_diag *d, const fx_snode *n, double *out)
{
	return fx_snode_qty_units(d, n, FX_UNIT_COMPUTE, 0, 1,
				  "FLOP/s, GFLOP/s, TFLOP/s or PFLOP/s, e.g. '989.4 TFLOP/s'", out);
}

int fx_accel_sessions_parse(fx_diag *d, const fx_spec *spec, fx_accel *a, fx_sessions *s)
{
	/* the step model's keys (step/parse.c reads them) after the decode model's */
	static const char *const akeys[] = {"hbm", "hbm_bandwidth", "flops", "reserve", "efficiency",
					    "host", "sram", "rom_bandwidth", "balance",
					    "fixed_per_layer", NULL};
	static const char *const skeys[] = {"count", "context", "steps", "deadline", "min_on_time", NULL};
	const fx_snode *wl, *n;
	if (!a || !s)
		return fx_diag_error(d, NULL, "fx_accel_sessions_parse: nothing to fill");
	memset(a, 0, sizeof *a);
	memset(s, 0, sizeof *s);
	if (!spec || !spec->root)
		return fx_diag_error(d, NULL, "fx_accel_sessions_parse: no spec (NULL, or one that "
				     "failed to load)");
	if (fx_spec_map(d, spec->root, "workload", 0, &wl))
		return -1;
	if (!wl)
		return 0;
	int rc = 0;
	if (fx_spec_map(d, wl, "accelerator", 0, &n))
		return -1;
	if (n) {
		rc |= fx_spec_keys(d, n, akeys);
		rc |= fx_spec_qty(d, n, "hbm", FX_UNIT_SIZE, 0, 1, &a->hbm);
		rc |= fx_spec_qty(d, n, "hbm_bandwidth", FX_UNIT_BANDWIDTH, 0, 1, &a->hbm_bw);
		a->flops = 0;
		const fx_snode *fl = fx_snode_get(n, "flops");
		if (fl)
			rc |= flops_parse(d, fl, &a->flops);
		a->reserve = 2.0 * 1024 * 1024 * 1024;  /* the chapter, §6.1.2: 2 GiB of workspace */
		rc |= fx_spec_qty_opt(d, n, "reserve", FX_UNIT_SIZE, 0, 0, &a->reserve);
	}
	if (fx_spec_map(d, wl, "sessions", 0, &n))
		return -1;
	if (n) {
		rc |= fx_spec_keys(d, n, skeys);
		s->steps = 1;
		s->min_on_time = 1;
		rc |= fx_spec_int(d, n, "count", 1, 10000000, &s->count);  /* bounded: model work is O(count + steps) */
		rc |= fx_spec_int(d, n, "context", 0, (int64_t)1 << 40, &s->context);
		rc |= fx_spec_int_opt(d, n, "steps", 1, 1000000, &s->steps);
		rc |= fx_spec_qty_opt(d, n, "deadline", FX_UNIT_TIME, 0, 1, &s->deadline);
		const fx_snode *m = fx_snode_get(n, "min_on_time");
		if (m) {
			/* a decimal number in [0, 1]: NaN fails both comparisons, so
			 * test for being inside rather than outside */
			char *end, got[96];
			double v = 0;
			if (m->kind != FX_SNODE_SCALAR)
				snprintf(got, sizeof got, "%s", fx_snode_kind_name(m));
			else if (!m->plain)
				snprintf(got, sizeof got, "the quoted string \"%.60s\"", m->text);
			else
				snprintf(got, sizeof got, "'%.80s'", m->text);
			if (m->kind != FX_SNODE_SCALAR || !m->plain || !decimal(m->text) ||
			    (v = strtod(m->text, &end), *end) || !(v >= 0 && v <= 1))
				rc = fx_snode_error(d, m, "'%s' must be a fraction from 0 to 1 (e.g. "
						    "0.75), got %s", m->path, got);
			else
				s->min_on_time = v + 0.0;
		}
	}
	return rc;
}

int fx_workload_place_parse(fx_diag *d, const fx_spec *spec, const char *const *other,
			    fx_workload *w)
{
	static const char *const own[] = {"scheme", "instances", "model", "tokens", "groups",
					  "keep_within", "failure_domain", "comm_budget"};
	const char *keys[32];
	size_t nk = 0;
	for (size_t i = 0; i < sizeof own / sizeof own[0]; i++)
		keys[nk++] = own[i];
	for (; other && *other && nk < 31; other++)
		keys[nk++] = *other;
	keys[nk] = NULL;

	if (!w)
		return fx_diag_error(d, NULL, "fx_workload_place_parse: no workload to fill");
	memset(w, 0, sizeof *w);
	if (!spec || !spec->root)
		return fx_diag_error(d, NULL, "fx_workload_place_parse: no spec (NULL, or one that "
				     "failed to load)");
	for (int k = 0; k < FX_GROUP_KINDS; k++) {
		w->dims[k] = 1;
		w->keep[k] = FX_LEVEL_ANY;
	}
	w->keep[FX_GROUP_TP] = FX_LEVEL_NODE;  /* TP reduces every layer: keep it close */
	w->keep_instance = FX_LEVEL_ANY;
	w->failure_domain = FX_LEVEL_ANY;
	w->instances = 1;
	w->tokens = 1;
	const fx_snode *wl, *n;
	if (fx_spec_map(d, spec->root, "workload", 0, &wl))
		return -1;
	if (!wl)
		return 0;
	if (fx_spec_keys(d, wl, keys))
		return -1;
	if (!fx_snode_get(wl, "scheme")) {
		/* a model alone is what `plan` chooses a scheme for */
		for (size_t i = 1; i < sizeof own / sizeof own[0]; i++)
			if (fx_snode_get(wl, own[i]) && strcmp(own[i], "model") != 0)
				return fx_snode_error(d, fx_snode_get(wl, own[i]), "'workload.%s' needs "
						      "'workload.scheme'", own[i]);
		if (fx_spec_map(d, wl, "model", 0, &n))
			return -1;
		if (n) {
			w->have_model = 1;
			return fx_model_parse(d, n, &w->model);
		}
		return 0;
	}
	w->present = 1;
	static const char *const kinds[] = {"tp", "ep", "pp", "dp", NULL};
	int rc = fx_spec_map(d, wl, "scheme", 1, &n);
	if (rc == 0 && (rc = fx_spec_keys(d, n, kinds)) == 0)
		for (int k = 0; k < FX_GROUP_KINDS; k++)
			rc |= fx_spec_int_opt(d, n, kinds[k], 1, 1 << 20, &w->dims[k]);
	rc |= fx_spec_int_opt(d, wl, "instances", 1, 1 << 20, &w->instances);
	rc |= fx_spec_int_opt(d, wl, "tokens", 1, INT32_MAX, &w->tokens);
	if (fx_spec_map(d, wl, "model", 0, &n))
		return -1;
	if (n) {
		w->have_model = 1;
		rc |= fx_model_parse(d, n, &w->model);
	}
	if (fx_spec_map(d, wl, "groups", 0, &n))
		return -1;
	if (n && fx_spec_keys(d, n, kinds) == 0) {
		for (int k = 0; k < FX_GROUP_KINDS; k++)
			if (fx_snode_get(n, kinds[k]))
				rc |= fx_group_traffic_parse(d, fx_snode_get(n, kinds[k]), &w->traffic[k]);
	} else if (n) {
		rc = -1;
	}
	if (fx_spec_map(d, wl, "keep_within", 0, &n))
		return -1;
	if (n) {
		static const char *const kk[] = {"tp", "ep", "pp", "dp", "instance", NULL};
		rc |= fx_spec_keys(d, n, kk);
		for (int k = 0; k < FX_GROUP_KINDS; k++)
			if (fx_snode_get(n, kinds[k]))
				rc |= parse_level(d, fx_snode_get(n, kinds[k]), 0, &w->keep[k]);
		if (fx_snode_get(n, "instance"))
			rc |= parse_level(d, fx_snode_get(n, "instance"), 0, &w->keep_instance);
		/* groups kept within a node must be blocks of consecutive devices:
		 * tp innermost, then ep, pp, dp */
		for (int k = 1; rc == 0 && k < FX_GROUP_KINDS; k++)
			if (w->keep[k] == FX_LEVEL_NODE && w->keep[k - 1] != FX_LEVEL_NODE &&
			    w->dims[k - 1] > 1)
				rc = fx_snode_error(d, fx_snode_get(n, kinds[k]), "'workload.keep_within.%s: node' "
						    "needs '%s: node' too: %s groups are made across %s ranks",
						    kinds[k], kinds[k - 1], kinds[k], kinds[k - 1]);
		/* a group kind kept within a rack keeps its instance there */
		for (int k = 0; k < FX_GROUP_KINDS; k++)
			if (w->keep[k] == FX_LEVEL_RACK && w->dims[k] > 1 && w->keep_instance == FX_LEVEL_ANY)
				w->keep_instance = FX_LEVEL_RACK;
	}
	rc |= fx_spec_qty_opt(d, wl, "comm_budget", FX_UNIT_TIME, 0, 1, &w->comm_budget);
	if (fx_snode_get(wl, "failure_domain"))
		rc |= parse_level(d, fx_snode_get(wl, "failure_domain"), 1, &w->failure_domain);
	if (rc)
		return -1;
	/* an inventory (step/parse.c) gives the defaults too, through design/ */
	for (int k = 0; k < FX_GROUP_KINDS; k++)
		if (w->dims[k] > 1 && !w->traffic[k].pattern[0] && !w->have_model &&
		    !fx_snode_get(wl, "inventory"))
			return fx_snode_error(d, wl, "'workload' needs a 'model', an 'inventory' or "
					      "'groups.%s' to know what the %s groups send", kinds[k],
					      kinds[k]);
	if (w->have_model) {
		/* peeked here, checked by step/parse.c */
		const fx_snode *lay = fx_snode_get(wl, "layout"), *ex = lay ? fx_snode_get(lay, "experts") : NULL;
		default_traffic(w, ex && ex->text && strcmp(ex->text, "allreduce") == 0);
	}
	return 0;
}
