/*
 * Why the choice is what it is (the chapter "Supernodes", §6.7.3 step
 * five: "the chosen scheme, the excluded schemes, the thresholds that
 * would flip the conclusion").
 *
 * Flip thresholds: for each input that matters, the search is run again
 * on the model with the input moved, first in steps of x2 (or /2) up to
 * x64, then by bisection between the last step where the choice stood
 * and the first where it changed, to 0.1 % (integers: to the unit).  A
 * threshold found this way is where the choice first changes along that
 * input; the model is not proven monotone in it, so another change
 * closer by between two steps would be missed, which the report says.
 * Link bandwidth and per-round overhead scale the modelled collectives
 * from their routed parts (plan/comm.c), measured ones stay as measured.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../core/xalloc.h"
#include "plan_internal.h"

const char *fx_plan_knob_name(fx_plan_knob k)
{
	static const char *const n[FX_PK_N] = {
		[FX_PK_BW] = "link bandwidth", [FX_PK_ALPHA] = "per-round overhead",
		[FX_PK_MEASURED] = "measured collective times", [FX_PK_HBM] = "HBM per device",
		[FX_PK_HBM_BW] = "HBM bandwidth", [FX_PK_CONTEXT] = "context",
		[FX_PK_DEADLINE] = "deadline", [FX_PK_SESSIONS] = "sessions",
		[FX_PK_POWER] = "power cap",
	};
	return k < FX_PK_N ? n[k] : "?";
}

/* The knob's value, and set it. */
static double knob_get(const fx_plan_knobs *k, fx_plan_knob which)
{
	switch (which) {
	case FX_PK_BW: return k->bw_scale;
	case FX_PK_ALPHA: return k->alpha_scale;
	case FX_PK_MEASURED: return k->measured_scale;
	case FX_PK_HBM: return k->hbm;
	case FX_PK_HBM_BW: return k->hbm_bw;
	case FX_PK_CONTEXT: return (double)k->context;
	case FX_PK_DEADLINE: return k->deadline;
	case FX_PK_SESSIONS: return (double)k->sessions;
	case FX_PK_POWER: return k->power_cap;
	default: return NAN;
	}
}

static void knob_set(fx_plan_knobs *k, fx_plan_knob which, double v)
{
	switch (which) {
	case FX_PK_BW: k->bw_scale = v; break;
	case FX_PK_ALPHA: k->alpha_scale = v; break;
	case FX_PK_MEASURED: k->measured_scale = v; break;
	case FX_PK_HBM: k->hbm = v; break;
	case FX_PK_HBM_BW: k->hbm_bw = v; break;
	case FX_PK_CONTEXT: k->context = (int64_t)llround(v); break;
	case FX_PK_DEADLINE: k->deadline = v; break;
	case FX_PK_SESSIONS: k->sessions = (int64_t)llround(v); break;
	case FX_PK_POWER: k->power_cap = v; break;
	default: break;
	}
}

static int integral(fx_plan_knob which)
{
	return which == FX_PK_CONTEXT || which == FX_PK_SESSIONS;
}

static int same_scheme(const fx_plan_scheme *a, const fx_plan_scheme *b)
{
	for (int g = 0; g < FX_PG_N; g++)
		if (a->deg[g] != b->deg[g] || (a->deg[g] > 1 && a->algo[g] != b->algo[g]))
			return 0;
	return a->sp == b->sp && a->micro == b->micro && a->instances == b->instances;
}

/* The choice at knobs k: 1 and *s when one is feasible, 0 when none is,
 * -1 on an internal error. */
static int choice_at(fx_plan_problem *p, const fx_plan_knobs *k, fx_plan_scheme *s, double *obj,
		     fx_diag *d)
{
	fx_plan_result r;
	int rc = fx_plan_search(p, k, NULL, NULL, &r, d);
	int out = rc ? -1 : r.best >= 0;
	if (out == 1) {
		fx_plan_scheme_at(p, &r, (uint64_t)r.best, s);
		*obj = r.best_obj;
	}
	fx_plan_result_release(&r);
	return out;
}

/* Whether knob applies to this problem and its choice. */
static int applies(const fx_plan_problem *p, const fx_plan_eval *best, fx_plan_knob which)
{
	int comm = 0, measured = 0;
	for (int g = 0; g < FX_PG_N; g++) {
		comm |= best->comm[g] > 0 && !best->measured[g];
		measured |= best->measured[g];
	}
	switch (which) {
	case FX_PK_BW:
	case FX_PK_ALPHA:
		return 1;  /* a scheme that communicates may overtake one that does not */
	case FX_PK_MEASURED:
		return p->ds->coll.measured != NULL;
	case FX_PK_CONTEXT:
	case FX_PK_SESSIONS:
		return p->kind == FX_PLAN_DECODE;
	case FX_PK_DEADLINE:
		return p->knobs.deadline > 0;
	case FX_PK_POWER:
		return p->knobs.power_cap > 0;
	default:
		(void)comm;
		(void)measured;
		return 1;
	}
}

static void one_flip(fx_plan_problem *p, const fx_plan_scheme *s0, fx_plan_knob which, int dir,
		     fx_plan_flip *f, fx_diag *d)
{
	memset(f, 0, sizeof *f);
	f->knob = which;
	f->dir = dir;
	double x0 = knob_get(&p->knobs, which);
	f->from = x0;
	fx_plan_knobs k = p->knobs;
	double last = x0, hit = NAN;
	fx_plan_scheme s;
	double obj = NAN;
	int what = 1;
	/* the sessions count moves by ones near small counts */
	for (int step = 1; step <= 6; step++) {
		double x = dir > 0 ? x0 * pow(2, step) : x0 / pow(2, step);
		if (integral(which)) {
			x = dir > 0 ? ceil(x) : floor(x);
			if (x < 1 || x == last)
				break;
		}
		knob_set(&k, which, x);
		f->probes++;
		what = choice_at(p, &k, &s, &obj, d);
		f->limit = x;
		if (what < 0)
			return;
		if (what == 0 || !same_scheme(&s, s0)) {
			hit = x;
			break;
		}
		last = x;
	}
	if (isnan(hit))
		return;
	/* bisection between last (same) and hit (changed) */
	double lo = last, hi = hit;
	for (int it = 0; it < 40; it++) {
		if (integral(which) ? fabs(hi - lo) <= 1 : fabs(hi - lo) <= 1e-3 * fabs(lo))
			break;
		double mid = integral(which) ? floor((lo + hi) / 2) : dir > 0 ? sqrt(lo * hi) : sqrt(lo * hi);
		if (!(mid > 0))
			mid = (lo + hi) / 2;
		knob_set(&k, which, mid);
		f->probes++;
		fx_plan_scheme sm;
		double om;
		int w = choice_at(p, &k, &sm, &om, d);
		if (w < 0)
			return;
		if (w == 1 && same_scheme(&sm, s0))
			lo = mid;
		else
			hi = mid;
	}
	knob_set(&k, which, hi);
	f->probes++;
	what = choice_at(p, &k, &s, &obj, d);
	if (what < 0)
		return;
	f->found = 1;
	f->at = hi;
	f->none_feasible = what == 0;
	f->obj_at = what == 1 ? obj : NAN;
	if (what == 1)
		fx_plan_scheme_text(&s, p, f->to, sizeof f->to);
	else
		snprintf(f->to, sizeof f->to, "no feasible scheme");
}

size_t fx_plan_flip_tasks(fx_plan_problem *p, const fx_plan_result *r, fx_plan_flip **out,
			  fx_diag *d)
{
	*out = NULL;
	if (r->best < 0)
		return 0;
	fx_plan_eval best;
	memset(&best, 0, sizeof best);
	fx_plan_scheme_at(p, r, (uint64_t)r->best, &best.s);
	fx_plan_evaluate(p, NULL, &best, d);
	fx_plan_flip *f = fx_xcalloc(2 * FX_PK_N, sizeof *f);
	size_t n = 0;
	for (int kn = 0; kn < FX_PK_N; kn++) {
		if (!applies(p, &best, (fx_plan_knob)kn) || !(knob_get(&p->knobs, (fx_plan_knob)kn) > 0))
			continue;
		for (int dir = 1; dir >= -1; dir -= 2) {
			/* sessions and context below one mean nothing */
			if (dir < 0 && integral((fx_plan_knob)kn) &&
			    knob_get(&p->knobs, (fx_plan_knob)kn) <= 1)
				continue;
			f[n].knob = (fx_plan_knob)kn;
			f[n].dir = dir;
			n++;
		}
	}
	*out = f;
	return n;
}

int fx_plan_flip_run(fx_plan_problem *p, const fx_plan_result *r, fx_plan_flip *f, fx_diag *d)
{
	fx_plan_scheme s0;
	if (r->best < 0 || fx_plan_scheme_at(p, r, (uint64_t)r->best, &s0))
		return fx_diag_internal(d, "plan: a flip threshold without a choice");
	fx_plan_knob kn = f->knob;
	int dir = f->dir;
	one_flip(p, &s0, kn, dir, f, d);
	return d->status == FX_EXIT_INTERNAL ? -1 : 0;
}

int fx_plan_flip_line(const fx_plan_flip *f, size_t i, FILE *out)
{
	return fprintf(out, "F %zu %d %d %d %d %a %a %a %a %d\t%s\n", i, (int)f->knob, f->dir,
		       f->found, f->none_feasible, f->at, f->from, f->limit, f->obj_at, f->probes,
		       f->to) < 0 ? -1 : 0;
}

int fx_plan_flip_take(fx_plan_flip *v, size_t n, const char *line)
{
	size_t i;
	int knob, dir, found, none, probes, used = 0;
	double at, from, limit, obj;
	if (sscanf(line, "F %zu %d %d %d %d %la %la %la %la %d%n", &i, &knob, &dir, &found, &none, &at,
		   &from, &limit, &obj, &probes, &used) != 10 || i >= n || knob < 0 || knob >= FX_PK_N)
		return -1;
	fx_plan_flip *f = &v[i];
	f->knob = (fx_plan_knob)knob;
	f->dir = dir;
	f->found = found;
	f->none_feasible = none;
	f->at = at;
	f->from = from;
	f->limit = limit;
	f->obj_at = obj;
	f->probes = probes;
	const char *tab = strchr(line + used, '\t');
	snprintf(f->to, sizeof f->to, "%s", tab ? tab + 1 : "");
	return 0;
}

size_t fx_plan_flips(fx_plan_problem *p, const fx_plan_result *r, fx_plan_flip **out, fx_diag *d)
{
	size_t n = fx_plan_flip_tasks(p, r, out, d);
	for (size_t i = 0; i < n; i++)
		if (fx_plan_flip_run(p, r, &(*out)[i], d)) {
			free(*out);
			*out = NULL;
			return 0;
		}
	return n;
}

size_t fx_plan_sensitivity(fx_plan_problem *p, const fx_plan_result *r, fx_plan_sens out[4],
			   fx_diag *d)
{
	if (r->best < 0)
		return 0;
	fx_plan_eval e;
	memset(&e, 0, sizeof e);
	fx_plan_scheme_at(p, r, (uint64_t)r->best, &e.s);
	fx_plan_evaluate(p, NULL, &e, d);
	static const struct { const char *what; fx_plan_knob k; double f; } rows[] = {
		{"every link's bandwidth doubled", FX_PK_BW, 2},
		{"the per-round overhead halved", FX_PK_ALPHA, 0.5},
		{"HBM bandwidth doubled", FX_PK_HBM_BW, 2},
	};
	size_t n = 0;
	for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
		fx_plan_knobs k = p->knobs;
		knob_set(&k, rows[i].k, knob_get(&k, rows[i].k) * rows[i].f);
		fx_plan_eval x;
		memset(&x, 0, sizeof x);
		x.s = e.s;
		fx_plan_evaluate(p, &k, &x, d);
		out[n].what = rows[i].what;
		out[n].step_now = e.step;
		out[n].step_then = x.step;
		out[n].saving = e.step - x.step;
		n++;
	}
	return n;
}
