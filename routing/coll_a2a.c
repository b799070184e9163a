/*
 * All-to-all: each rank sends M/(n-1) to every other rank — all at once
 * (direct), or one peer per round (pairwise: rank r sends to r + s in
 * round s).
 */
#include "internal.h"

static int direct(const fx_fabric *f, const fx_coll_req *q, fx_sched *s, fx_diag *d)
{
	(void)d;
	if (q->n < 2)
		return 0;
	fx_round *r = fx_sched_round(s, 1, "all-to-all");
	double b = q->size / (double)(q->n - 1);
	int every = q->n == f->ndev;
	for (int64_t i = 0; every && i < q->n; i++)
		every = q->ranks[i] == i;
	if (every) {  /* every device: let the router aggregate, no n^2 list */
		r->all_pairs = b;
		return 0;
	}
	fx_sched_among(r, q, b);  /* the router lists the flows only if it must */
	return 0;
}

static int pairwise(const fx_fabric *f, const fx_coll_req *q, fx_sched *s, fx_diag *d)
{
	(void)f;
	(void)d;
	double b = q->size / (double)(q->n - 1);
	/* round k's flows are listed when it is routed: n - 1 rounds of n
	 * flows held at once were 723 MB at 5,488 ranks */
	for (int64_t k = 1; k < q->n; k++)
		fx_sched_shift(s, fx_sched_round(s, 1, "all-to-all"), q, k, b);
	return 0;
}

static double all(const fx_coll_req *q)
{
	return q->n > 1 ? q->size : 0;
}

/* every device in order goes to the router as all-pairs, a subset as a
 * rank set; only a router that lists the subset's pairs needs n(n-1) */
static double direct_flows(const fx_fabric *f, const fx_coll_req *q)
{
	int every = q->n == f->ndev;
	for (int64_t i = 0; every && i < q->n; i++)
		every = q->ranks[i] == i;
	return every || fx_route_among_aggregated(f) ? 0 : (double)q->n * (double)(q->n - 1);
}

/* one round's flows at a time (fx_sched_shift) */
static double pairwise_flows(const fx_fabric *f, const fx_coll_req *q)
{
	(void)f;
	return (double)q->n;
}

const fx_coll_algo fx_a2a_direct = {
	.pattern = "all-to-all",
	.name = "direct",
	.summary = "every rank sends M/(n-1) to every other at once",
	.gen = direct,
	.sent_per_rank = all,
	.flows = direct_flows,
};
const fx_coll_algo fx_a2a_pairwise = {
	.pattern = "all-to-all",
	.name = "pairwise",
	.summary = "n-1 rounds, rank r sends to r+s in round s",
	.gen = pairwise,
	.sent_per_rank = all,
	.flows = pairwise_flows,
};
