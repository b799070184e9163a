/*
 * The chapter "Supernodes"'s closed forms the step model is made of, each
 * under its own name so tests and reports can point at the equation, and
 * the closed-form communication callback.
 */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "step.h"

const char *fx_step_split_name(fx_step_split s)
{
	static const char *const n[] = {"replicated", "tp", "ep", "table"};
	return s < FX_SPLITS ? n[s] : "?";
}

const char *fx_step_where_name(fx_step_where w)
{
	static const char *const n[] = {"hbm", "host", "sram", "rom"};
	return w < FX_WHERES ? n[w] : "?";
}

const char *fx_step_moe_name(fx_step_moe m)
{
	static const char *const n[] = {"random", "balanced", "hot"};
	return m < FX_MOES ? n[m] : "?";
}

const char *fx_step_group_name(fx_step_group g)
{
	static const char *const n[] = {"tp", "ep", "pp", "cp", "table"};
	return g < FX_STEP_GROUPS ? n[g] : "?";
}

double fx_step_roofline(double flops, double bytes, double P, double B)
{
	double tc = P > 0 ? flops / P : 0, tm = B > 0 ? bytes / B : (bytes > 0 ? INFINITY : 0);
	return tc > tm ? tc : tm;
}

double fx_step_pipeline(int64_t q, int64_t b, const double *t, double t1)
{
	if (q < 1 || b < 1)
		return 0;
	double sum = 0, max = 0;
	for (int64_t i = 0; i < q; i++) {
		double s = t ? t[i] : t1;
		sum += s;
		if (s > max)
			max = s;
	}
	/* the first micro-batch passes every stage; each later one leaves the
	 * slowest stage one slowest-stage time after the one before it */
	return sum + (double)(b - 1) * max;
}

double fx_step_pipeline_eff(int64_t q, int64_t b)
{
	return q < 1 || b < 1 ? 0 : (double)b / (double)(q + b - 1);
}

double fx_step_active_experts(int64_t E, int64_t k, double m)
{
	if (E < 1 || k < 1 || !(m > 0))
		return 0;
	/* (1 - k/E)^m as exp(m log1p(-k/E)): exact for k = E too (log1p(-1) = -inf) */
	double skip = k >= E ? 0 : exp(m * log1p(-(double)k / (double)E));
	return (double)E * (1 - skip);
}

int64_t fx_step_sessions(double C, double W, double U, double K)
{
	double room = C - W - U;
	if (!(room > 0))
		return 0;
	if (!(K > 0))
		return INT64_MAX;
	double n = floor(room / K);
	return n > 9e18 ? INT64_MAX : (int64_t)n;
}

double fx_step_eq615(double tw, double tkv, double tc, double comm, double fixed, double balance)
{
	double m = tw > tkv ? tw : tkv;
	if (tc > m)
		m = tc;
	return m / (balance > 0 ? balance : 1) + comm + fixed;
}

double fx_step_causal_pairs(double lo, double hi)
{
	/* positions lo+1 .. hi each see themselves and every earlier one */
	return hi <= lo ? 0 : (hi * (hi + 1) - lo * (lo + 1)) / 2;
}

double fx_step_cp_busiest(double n, int64_t cp, int zigzag)
{
	if (cp <= 1)
		return fx_step_causal_pairs(0, n);
	double c = (double)cp;
	if (!zigzag)  /* contiguous: the last chunk sees the most */
		return fx_step_causal_pairs(n - n / c, n);
	/* zigzag: 2 cp chunks, card i takes chunk i and chunk 2cp-1-i; every
	 * card gets the same share (8 positions on 2 cards: 18 and 18) */
	double h = n / (2 * c), best = 0;
	for (int64_t i = 0; i < cp; i++) {
		double a = fx_step_causal_pairs((double)i * h, (double)(i + 1) * h) +
			   fx_step_causal_pairs((2 * c - 1 - (double)i) * h, (2 * c - (double)i) * h);
		if (a > best)
			best = a;
	}
	return best;
}

void fx_step_tp2d_gather(double M, double K, double N, double elem, int64_t rows,
			 int64_t cols, double *row_send, double *col_send)
{
	double p = (double)(rows * cols);
	double in_shard = M * K * elem / p, w_shard = K * N * elem / p;
	/* a card gathers the input shards of the other cards of its row and
	 * the weight shards of the other cards of its column */
	*row_send = (double)(cols - 1) * in_shard;
	*col_send = (double)(rows - 1) * w_shard;
}

double fx_step_dispatch_bytes(double token_bytes, int64_t k, double cards_hit, int per_card)
{
	return token_bytes * (per_card ? cards_hit : (double)k);
}

/* ---- the closed-form callback ---- */

/* Members of a group of n with stride s that share a server of g cards
 * (the group's ranks 0, s, 2s, ...; servers aligned to rank order). */
static double in_server(int64_t n, int64_t s, int64_t g)
{
	if (g <= 0)
		return (double)n;
	if (s >= g)
		return 1;
	double per = (double)(g / s);
	return per < (double)n ? per : (double)n;
}

double fx_step_comm_closed(void *ctx, const fx_step_call *c, int *measured)
{
	const fx_step_closed *k = ctx;
	if (measured)
		*measured = 0;
	if (c->n < 2 || !(c->bytes >= 0))
		return 0;
	double n = (double)c->n, local = in_server(c->n, c->stride, k->per_server);
	int spans = local < n;
	double a = spans ? k->alpha_out : k->alpha_in, bw = spans ? k->bw_out : k->bw_in;
	if (strcmp(c->pattern, "all-to-all") == 0) {
		/* one round: each rank's bytes spread over the n - 1 others, those in
		 * other servers on its NIC, the rest on its in-server links */
		double out = (n - local) / (n - 1), X = c->bytes;
		double tin = k->alpha_in + X * (1 - out) / k->bw_in;
		double tout = out > 0 ? k->alpha_out + X * out / k->bw_out : 0;
		return tin > tout ? tin : tout;
	}
	if (strcmp(c->pattern, "broadcast") == 0)
		return a + c->bytes / bw;
	double rounds = 2 * (n - 1);
	if (strcmp(c->pattern, "reduce-scatter") == 0 || strcmp(c->pattern, "all-gather") == 0)
		rounds = n - 1;
	/* ring (Eq. 6-9): every round moves M / n and waits on the slowest hop */
	return rounds * (a + c->bytes / n / bw);
}
