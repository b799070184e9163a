/*
 * Exact hop counts by bit-parallel breadth-first search (issue #31): 64
 * sources a pass, one bit each in a word per vertex, so a pass costs one
 * scan of the incidence lists a layer for all 64 (a 25,000-vertex cubic
 * graph: 391 passes of ~13 layers, where one search per device took 25,000
 * searches).  The relay rule is the one routing/bfs.c follows: a vertex
 * that does not forward is reached but expands only its own bit, as a
 * seed.
 *
 * The histogram and the diameter are those of one search per device
 * exactly (integer counts).  The farthest pair is the first in (source,
 * target) order among those with the largest (hops, least latency): with
 * one latency on every link every pair at the diameter has the same least
 * latency (the same additions), so it is the first pair at the diameter
 * and one search from it gives the latency; otherwise the sources with a
 * pair at the diameter are searched again with latencies, in order, as
 * tally does.  A pair with no path is reported as tally reports it (the
 * first source in order, then the first target).
 *
 * Time complexity: O(ceil(D / 64) x depth x (V + E)) plus the latency
 * searches.
 */
#include <stdlib.h>
#include <string.h>

#include "../core/xalloc.h"
#include "internal.h"

/* Set bits of x (SWAR: the builtin is a library call without -mpopcnt). */
static inline int64_t popcount64(uint64_t x)
{
	x = x - ((x >> 1) & 0x5555555555555555ULL);
	x = (x & 0x3333333333333333ULL) + ((x >> 2) & 0x3333333333333333ULL);
	x = (x + (x >> 4)) & 0x0f0f0f0f0f0f0f0fULL;
	return (int64_t)((x * 0x0101010101010101ULL) >> 56);
}

int fx_hops_bits(const fx_fabric *f, const fx_inc *g, const uint8_t *reach, fx_hops *h, fx_diag *d)
{
	int64_t nv = f->nv, n = f->ndev;
	uint64_t *seen = fx_xmalloc((size_t)(nv ? nv : 1) * sizeof *seen);
	uint64_t *front = fx_xmalloc((size_t)(nv ? nv : 1) * sizeof *front);
	uint64_t *next = fx_xmalloc((size_t)(nv ? nv : 1) * sizeof *next);
	int64_t *src = fx_xmalloc(64 * sizeof *src);
	uint8_t *far_src = fx_xcalloc((size_t)(n ? n : 1), 1);  /* has a pair at the diameter */
	int64_t best = -1, fa = -1, fb = -1;
	int rc = 0;
	h->sources = 0;
	for (int64_t s0 = 0; s0 < n && rc == 0;) {
		int ns = 0;  /* the pass's sources, in order */
		for (; s0 < n && ns < 64; s0++)
			if (!reach || reach[s0])
				src[ns++] = s0;
		if (ns == 0)
			break;
		memset(seen, 0, (size_t)nv * sizeof *seen);
		memset(front, 0, (size_t)nv * sizeof *front);
		for (int i = 0; i < ns; i++)
			seen[src[i]] = front[src[i]] = (uint64_t)1 << i;
		h->sources += ns;
		for (int64_t dist = 1;; dist++) {
			memset(next, 0, (size_t)nv * sizeof *next);
			int any = 0;
			int64_t pairs = 0;  /* device pairs first reached in this layer */
			for (int64_t u = 0; u < nv; u++) {
				uint64_t m = front[u];
				/* past the seeds, only forwarding vertices pass bits on */
				if (!m || (dist > 1 && !g->relays[u]))
					continue;
				for (int64_t t = g->off[u]; t < g->off[u + 1]; t++)
					next[g->nbr[t]] |= m;
			}
			for (int64_t w = 0; w < nv; w++) {
				uint64_t nw = next[w] & ~seen[w];
				front[w] = nw;
				if (!nw)
					continue;
				any = 1;
				seen[w] |= nw;
				if (w >= n || (reach && !reach[w]))
					continue;
				pairs += popcount64(nw);
				if (dist > best) {  /* the first pair at a new depth */
					best = dist;
					memset(far_src, 0, (size_t)n);
					fa = src[fx_lowest_bit(nw)];
					fb = w;
				} else if (dist == best && src[fx_lowest_bit(nw)] < fa) {
					fa = src[fx_lowest_bit(nw)];
					fb = w;
				}
				if (dist == best)
					for (uint64_t b = nw; b; b &= b - 1)
						far_src[src[fx_lowest_bit(b)]] = 1;
			}
			if (pairs)
				fx_hops_tally(h, dist, (double)pairs);
			if (!any)
				break;
		}
		/* a device some source did not reach: the first source, then the
		 * first device, as one search per device reports it */
		uint64_t all = ns == 64 ? UINT64_MAX : ((uint64_t)1 << ns) - 1, miss = 0;
		for (int64_t w = 0; w < n; w++)
			if (!reach || reach[w])
				miss |= all & ~seen[w];
		if (miss) {
			int i = fx_lowest_bit(miss);
			for (int64_t w = 0; w < n; w++)
				if ((!reach || reach[w]) && !(seen[w] >> i & 1)) {
					char a[64], c[64];
					rc = fx_diag_error(d, NULL, "no path from device '%s' to device '%s' "
							   "(CPUs never relay; devices relay only in direct "
							   "fabrics)",
							   fx_fabric_vertex_name(f, src[i], a, sizeof a),
							   fx_fabric_vertex_name(f, w, c, sizeof c));
					break;
				}
		}
	}
	free(seen);
	free(front);
	free(next);
	free(src);
	if (rc == 0 && best >= 0) {
		fx_bfs b = {.dist = fx_xmalloc((size_t)nv * sizeof *b.dist),
			    .lat = fx_xmalloc((size_t)nv * sizeof *b.lat), .least = 1,
			    .queue = fx_xmalloc((size_t)nv * sizeof *b.queue)};
		int uniform = 1;
		for (int64_t t = 0; t < g->off[nv]; t++)
			uniform &= g->lat[t] == g->lat[0];
		h->diameter = best;
		int first = 1;
		for (int64_t s = 0; s < n; s++) {
			if (uniform ? s != fa : !far_src[s])
				continue;
			fx_bfs_from(&b, g, s, 0);
			for (int64_t v = 0; v < n; v++) {
				if (v == s || (reach && !reach[v]) || b.dist[v] != best ||
				    (uniform && v != fb))
					continue;
				if (first || b.lat[v] > h->far_latency) {
					h->far_latency = b.lat[v];
					h->far_a = s;
					h->far_b = v;
					first = 0;
				}
			}
		}
		free(b.dist);
		free(b.lat);
		free(b.queue);
	}
	free(far_src);
	return rc;
}
