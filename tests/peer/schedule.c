/*
 * Writes a collective's schedule as fabricx generates it, for its SimGrid
 * twin (tests/peer/twin.cpp): the rounds in order, each with its repeat
 * count, software routing stages and flows (device ids, bytes), all-pairs
 * and rank-set all-to-alls listed as flows.
 *
 *   schedule SPEC PATTERN ALGO SIZE_BYTES [RANKS [CHUNKS]] > FILE
 *
 * Format, one item a line:  "round REPEAT STAGES NFLOWS", then NFLOWS
 * lines "SRC DST BYTES".  Ranks are the first RANKS devices (default all),
 * in order.  A test tool:
 * it links the library and its internals, and writes only to stdout.
 */
#include <stdio.h>
#include <stdlib.h>

#include "../../design/design.h"
#include "../../routing/internal.h"

static void put_flow(int64_t a, int64_t b, double bytes)
{
	if (a != b && bytes > 0)
		printf("%lld %lld %.17g\n", (long long)a, (long long)b, bytes);
}

int main(int argc, char **argv)
{
	if (argc < 5) {
		fprintf(stderr, "usage: schedule SPEC PATTERN ALGO SIZE_BYTES [RANKS [CHUNKS]]\n");
		return 2;
	}
	fx_diag d;
	fx_diag_init(&d);
	fx_design ds;
	if (fx_design_load(&ds, argv[1], NULL, 0, NULL, &d)) {
		fx_design_release(&ds);
		return 2;
	}
	const fx_fabric *f = &ds.fab;
	int64_t *ranks = malloc((size_t)f->ndev * sizeof *ranks);
	for (int64_t i = 0; i < f->ndev; i++)
		ranks[i] = i;
	int64_t n = argc > 5 ? atoll(argv[5]) : f->ndev;
	if (n < 1 || n > f->ndev)
		n = f->ndev;
	fx_coll_req q = {argv[2], argv[3], ranks, n, atof(argv[4]), argc > 6 ? atoll(argv[6]) : 0};
	const fx_coll_algo *a = fx_coll_find(q.pattern, q.algo);
	fx_sched s = {0};
	int rc = !a || a->gen(f, &q, &s, &d);
	fx_flow *buf = NULL;
	size_t cap = 0;
	for (size_t i = 0; i < s.n && rc == 0; i++) {
		const fx_round *rd = &s.r[i];
		size_t nf;
		const fx_flow *fl = fx_round_flows(rd, &buf, &cap, &nf);
		size_t count = 0;
		for (size_t k = 0; k < nf; k++)
			count += fl[k].src != fl[k].dst && fl[k].bytes > 0;
		if (rd->all_pairs > 0)
			count += (size_t)(f->ndev * (f->ndev - 1));
		for (size_t k = 0; k < rd->namong; k++)
			count += (size_t)(rd->among[k].n * (rd->among[k].n - 1));
		printf("round %lld %lld %zu\n", (long long)rd->repeat, (long long)rd->stages, count);
		for (size_t k = 0; k < nf; k++)
			put_flow(fl[k].src, fl[k].dst, fl[k].bytes);
		if (rd->all_pairs > 0)
			for (int64_t x = 0; x < f->ndev; x++)
				for (int64_t y = 0; y < f->ndev; y++)
					put_flow(x, y, rd->all_pairs);
		for (size_t k = 0; k < rd->namong; k++)
			for (int64_t x = 0; x < rd->among[k].n; x++)
				for (int64_t y = 0; y < rd->among[k].n; y++)
					if (x != y)
						put_flow(rd->among[k].dev[x], rd->among[k].dev[y],
							 rd->among[k].bytes);
	}
	free(buf);
	fx_sched_release(&s);
	free(ranks);
	fx_design_release(&ds);
	fx_diag_release(&d);
	return rc ? 1 : 0;
}
