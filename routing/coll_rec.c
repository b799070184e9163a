/*
 * Recursive and Swing exchanges (bandwidth-optimal forms): reduce-scatter
 * in log2 n rounds, each rank sending half of what it holds (M/2, M/4, ...)
 * to its peer of that round; all-gather runs the same rounds backwards.
 *
 *   recursive: peer of r at step s is r XOR 2^s (distance 2^s)
 *   Swing (De Sensi et al., NSDI'24): rho(s) = sum_{i<=s} (-2)^i =
 *   1, -1, 3, -5, 11, ...; peer is r + rho(s) for even r, r - rho(s) for
 *   odd r (mod n), at distance |rho(s)| <= 2^s.
 */
#include "internal.h"

typedef int64_t (*peer_fn)(int64_t r, int s, int64_t n);

static int64_t rec_peer(int64_t r, int s, int64_t n)
{
	(void)n;
	return r ^ ((int64_t)1 << s);
}

/* rho(s) = (1 - (-2)^(s+1)) / 3 */
int64_t fx_swing_rho(int s)
{
	int64_t p = 1;
	for (int i = 0; i <= s; i++)
		p *= -2;
	return (1 - p) / 3;
}

static int64_t swing_peer(int64_t r, int s, int64_t n)
{
	int64_t o = r % 2 == 0 ? fx_swing_rho(s) : -fx_swing_rho(s);
	return ((r + o) % n + n) % n;
}

static void halving(fx_sched *sc, const fx_coll_req *q, peer_fn peer, int backwards,
		    const char *label)
{
	int L = fx_log2(q->n);
	for (int k = 0; k < L; k++) {
		int s = backwards ? L - 1 - k : k;
		fx_round *r = fx_sched_round(sc, 1, label);
		double bytes = q->size / (double)((int64_t)2 << s);
		for (int64_t i = 0; i < q->n; i++)
			fx_sched_flow(r, q, i, peer(i, s, q->n), bytes);
	}
}

typedef struct rec_kind {
	peer_fn peer;
	int rs, ag;
} rec_kind;

static void rec_fill(fx_sched *s, const fx_coll_req *q, const void *ctx)
{
	const rec_kind *k = ctx;
	if (k->rs)
		halving(s, q, k->peer, 0, "reduce-scatter");
	if (k->ag)
		halving(s, q, k->peer, 1, "all-gather");
}

/* on explicit graphs the ranks are placed on the links first
 * (fx_sched_over_wires): DGX-1's double NVLinks take the largest step */
#define GEN(fn, peer, rs, ag)                                                          \
	static int fn(const fx_fabric *f, const fx_coll_req *q, fx_sched *s, fx_diag *d) \
	{                                                                              \
		if (!fx_is_pow2(q->n))                                                 \
			return fx_need_pow2(q, d);                                     \
		rec_kind k = {peer, rs, ag};                                           \
		fx_sched_over_wires(f, q, rec_fill, &k, s);                            \
		return 0;                                                              \
	}

GEN(rs_rec, rec_peer, 1, 0)
GEN(ag_rec, rec_peer, 0, 1)
GEN(ar_rhd, rec_peer, 1, 1)
GEN(rs_swing, swing_peer, 1, 0)
GEN(ag_swing, swing_peer, 0, 1)
GEN(ar_swing, swing_peer, 1, 1)

static double once(const fx_coll_req *q)
{
	return (double)(q->n - 1) * q->size / (double)q->n;
}

static double twice(const fx_coll_req *q)
{
	return 2 * once(q);
}

/* log2(n) rounds of n flows per phase */
static double flows_once(const fx_fabric *f, const fx_coll_req *q)
{
	(void)f;
	return (double)fx_log2(q->n > 0 ? q->n : 1) * (double)q->n;
}

static double flows_twice(const fx_fabric *f, const fx_coll_req *q)
{
	return 2 * flows_once(f, q);
}

const fx_coll_algo fx_rs_rec = {
	.pattern = "reduce-scatter",
	.name = "recursive",
	.summary = "peer r XOR 2^s, halving the data each round",
	.gen = rs_rec,
	.sent_per_rank = once,
	.flows = flows_once,
};
const fx_coll_algo fx_ag_rec = {
	.pattern = "all-gather",
	.name = "recursive",
	.summary = "reduce-scatter's rounds backwards, doubling the data",
	.gen = ag_rec,
	.sent_per_rank = once,
	.flows = flows_once,
};
const fx_coll_algo fx_ar_rhd = {
	.pattern = "allreduce",
	.name = "rhd",
	.summary = "recursive halving reduce-scatter + doubling all-gather (Rabenseifner)",
	.gen = ar_rhd,
	.sent_per_rank = twice,
	.flows = flows_twice,
};
const fx_coll_algo fx_rs_swing = {
	.pattern = "reduce-scatter",
	.name = "swing",
	.summary = "Swing peers r +/- rho(s) on rank numbers (1-D), halving the data each round",
	.gen = rs_swing,
	.sent_per_rank = once,
	.flows = flows_once,
};
const fx_coll_algo fx_ag_swing = {
	.pattern = "all-gather",
	.name = "swing",
	.summary = "Swing's rounds backwards, doubling the data",
	.gen = ag_swing,
	.sent_per_rank = once,
	.flows = flows_once,
};
const fx_coll_algo fx_ar_swing = {
	.pattern = "allreduce",
	.name = "swing",
	.summary = "Swing on rank numbers (1-D ring), reduce-scatter + all-gather; on tori see swing-torus",
	.gen = ar_swing,
	.sent_per_rank = twice,
	.flows = flows_twice,
};
