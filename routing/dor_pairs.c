/*
 * Dimension-order loads of "every rank to every other rank" without listing
 * the n(n-1) flows.
 *
 * route.c's dor_flow runs a flow's dimension-i segment on the line whose
 * coordinates below i are the destination's and above i the source's.  So
 * line (l, u) of dimension i (l: the coordinates below i, u: those above)
 * carries the pairs of positions (a, b) weighted by
 *   A_u[a]  ranks at position a whose coordinates above i are u's, times
 *   B_l[b]  ranks at position b whose coordinates below i are l's,
 * and a line costs O(k) (meshes, from prefix counts) or O(nnz(A) nnz(B))
 * (rings, where the short way round and the ties decide).  Every device at
 * once is the case A = N/k ... the same on every line, computed once.
 *
 * Counts are integers and shares halves, so a line's loads are exact in a
 * double and multiplied by the bytes once; a flow list adds the bytes one
 * by one in another order (tests/unit/test_routing.c, among_equals_flows:
 * equal to 1e-12, hop counts exactly).
 */
#include <stdlib.h>
#include <string.h>

#include "../core/xalloc.h"
#include "internal.h"

/* Adds s to positions [from, from + len) of a ring of k, as differences
 * (d has k + 1 entries). */
static void ring_range(double *d, int k, int from, int len, double s)
{
	from = ((from % k) + k) % k;
	d[from] += s;
	if (from + len <= k) {
		d[from + len] -= s;
	} else {
		d[k] -= s;
		d[0] += s;
		d[from + len - k] -= s;
	}
}

/*
 * The pairs crossing each link of one line of k positions: plus[p] going
 * p -> p+1, minus[p] going p+1 -> p (p+1 taken mod k on a ring), for
 * sources weighted al[] and destinations be[].  Both arrays have k + 1
 * entries.  The share rules are dor_flow's: a mesh goes straight; a ring
 * the short way, ties on an even ring split half and half, or all + (plus),
 * or by the destination's parity (hash).
 */
static void line_loads(int k, int wrap, fx_dor_tie tie, const double *al, const double *be,
		       double *plus, double *minus)
{
	if (!wrap) {  /* link p carries a <= p < b going +, b <= p < a going - */
		double ta = 0, tb = 0, ca = 0, cb = 0;
		for (int p = 0; p < k; p++) {
			ta += al[p];
			tb += be[p];
		}
		for (int p = 0; p < k; p++) {
			ca += al[p];
			cb += be[p];
			plus[p] = ca * (tb - cb);
			minus[p] = cb * (ta - ca);
		}
		return;
	}
	memset(plus, 0, (size_t)(k + 1) * sizeof *plus);
	memset(minus, 0, (size_t)(k + 1) * sizeof *minus);
	for (int a = 0; a < k; a++) {
		if (al[a] == 0)
			continue;
		for (int b = 0; b < k; b++) {
			int fwd = ((b - a) % k + k) % k;
			if (fwd == 0 || be[b] == 0)
				continue;
			double w = al[a] * be[b], share[2] = {0, 0};  /* + way, - way */
			if (2 * fwd == k && tie == FX_DOR_TIE_HASH)
				share[b % 2] = 1;
			else if (2 * fwd == k && tie == FX_DOR_TIE_SPLIT)
				share[0] = share[1] = 0.5;
			else if (fwd <= k - fwd)
				share[0] = 1;
			else
				share[1] = 1;
			if (share[0] > 0)  /* links a, .., a+fwd-1 going + */
				ring_range(plus, k, a, fwd, share[0] * w);
			if (share[1] > 0)  /* links a-1, .., a-(k-fwd) going - */
				ring_range(minus, k, a - (k - fwd), k - fwd, share[1] * w);
		}
	}
	for (int p = 1; p < k; p++) {
		plus[p] += plus[p - 1];
		minus[p] += minus[p - 1];
	}
}

/* Sends line (base, stride) of dimension i its loads, times scale. */
static void emit_line(const fx_fabric *f, int i, int64_t base, int64_t stride, const double *plus,
		      const double *minus, double scale, fx_dor_emit emit, void *ctx)
{
	for (int p = 0; p < f->dims[i]; p++) {
		int64_t v = base + (int64_t)p * stride, e = f->plus_edge[v * f->ndims + i];
		if (e < 0)
			continue;
		if (plus[p] != 0)
			emit(ctx, fx_fabric_dirlink(f, e, v), scale * plus[p]);
		if (minus[p] != 0)
			emit(ctx, fx_fabric_dirlink(f, e, fx_fabric_other(f, e, v)), scale * minus[p]);
	}
}

/* out[s] = max(w[s .. s+width-1]) for s in [0, len-width]: a window maximum
 * over a queue of candidates (dq, len entries), O(len). */
static void window_max(const int64_t *w, int len, int width, int64_t *out, int *dq)
{
	int head = 0, tail = 0;
	for (int j = 0; j < len; j++) {
		while (tail > head && w[dq[tail - 1]] <= w[j])
			tail--;
		dq[tail++] = j;
		if (dq[head] <= j - width)
			head++;
		if (j >= width - 1)
			out[j - width + 1] = w[dq[head]];
	}
}

/*
 * The longest route between two of the ranks: the farthest-rank distance
 * of every vertex, one dimension at a time (a distance that is a sum over
 * dimensions is a max-plus transform along each dimension in turn),
 * g'(p) = max_t g(t) + dist(p, t) on each line from window maxima, O(N D).
 */
static int64_t farthest(const fx_fabric *f, const int64_t *dev, int64_t n)
{
	const int64_t NONE = INT64_MIN / 4;
	int64_t N = f->ndev, kmax = 1, best = 0;
	for (int i = 0; i < f->ndims; i++)
		if (f->dims[i] > kmax)
			kmax = f->dims[i];
	int64_t *g = fx_xmalloc((size_t)N * sizeof *g);
	int64_t *w = fx_xmalloc((size_t)(3 * kmax + 1) * sizeof *w);
	int64_t *m1 = fx_xmalloc((size_t)(3 * kmax + 1) * sizeof *m1);
	int64_t *m2 = fx_xmalloc((size_t)(3 * kmax + 1) * sizeof *m2);
	int *dq = fx_xmalloc((size_t)(3 * kmax + 1) * sizeof *dq);
	for (int64_t v = 0; v < N; v++)
		g[v] = NONE;
	for (int64_t j = 0; j < n; j++)
		g[dev[j]] = 0;
	int64_t stride = 1;
	for (int i = 0; i < f->ndims; i++) {
		int k = f->dims[i];
		/* a ring reaches offsets 0..h either way; a path all of it */
		int h = f->wrap[i] ? k / 2 : k - 1;
		for (int64_t base = 0; base < N; base++) {
			if ((base / stride) % k != 0)
				continue;  /* not a line's position 0 */
			int any = 0;
			for (int p = 0; p < k && !any; p++)
				any = g[base + (int64_t)p * stride] > NONE;
			if (!any || k == 1)
				continue;
			/* forward: max over t in [p, p+h] of g(t) + (t - p), t
			 * unrolled past k on a ring, cut at k on a path */
			int len = k + h;
			for (int j = 0; j < len; j++) {
				int64_t gv = j < k ? g[base + (int64_t)j * stride]
					     : f->wrap[i] ? g[base + (int64_t)(j - k) * stride] : NONE;
				w[j] = gv > NONE ? gv + j : NONE;
			}
			window_max(w, len, h + 1, m1, dq);
			/* backward: max over t in [p-h, p] of g(t) + (p - t);
			 * j = t + h runs over [0, k + h) */
			for (int j = 0; j < len; j++) {
				int t = j - h;
				int64_t gv = t >= 0 ? g[base + (int64_t)t * stride]
					     : f->wrap[i] ? g[base + (int64_t)(t + k) * stride] : NONE;
				w[j] = gv > NONE ? gv - t : NONE;
			}
			window_max(w, len, h + 1, m2, dq);
			for (int p = 0; p < k; p++) {
				int64_t a = m1[p] > NONE ? m1[p] - p : NONE;
				int64_t b = m2[p] > NONE ? m2[p] + p : NONE;
				g[base + (int64_t)p * stride] = a > b ? a : b;
			}
		}
		stride *= k;
	}
	for (int64_t j = 0; j < n; j++)
		if (g[dev[j]] > best)
			best = g[dev[j]];
	free(g);
	free(w);
	free(m1);
	free(m2);
	free(dq);
	return best;
}

int64_t fx_dor_pairs(const fx_fabric *f, const int64_t *dev, int64_t n, fx_dor_tie tie,
		     double bytes, fx_dor_emit emit, void *ctx)
{
	int D = f->ndims;
	int64_t N = f->ndev, far = 0, stride = 1;
	if (!dev)
		n = N;
	if (n < 2)
		return 0;
	for (int i = 0; i < D; i++) {
		int k = f->dims[i];
		int64_t above = N / (stride * k);  /* lines of dimension i: stride x above */
		double *plus = fx_xcalloc((size_t)(2 * k + 2), sizeof *plus), *minus = plus + k + 1;
		if (!dev) {  /* every line alike: N/k times one line of all pairs */
			double *ones = fx_xmalloc((size_t)k * sizeof *ones);
			for (int p = 0; p < k; p++)
				ones[p] = 1;
			line_loads(k, f->wrap[i], tie, ones, ones, plus, minus);
			double scale = bytes * (double)(N / k);
			for (int64_t l = 0; l < stride; l++)
				for (int64_t u = 0; u < above; u++)
					emit_line(f, i, l + u * stride * k, stride, plus, minus, scale, emit,
						  ctx);
			free(ones);
			far += f->wrap[i] ? k / 2 : k - 1;
		} else {
			double *A = fx_xcalloc((size_t)(above * k), sizeof *A);
			double *B = fx_xcalloc((size_t)(stride * k), sizeof *B);
			for (int64_t j = 0; j < n; j++) {
				int64_t v = dev[j], x = (v / stride) % k;
				A[(v / (stride * k)) * k + x] += 1;
				B[(v % stride) * k + x] += 1;
			}
			int64_t *uz = fx_xmalloc((size_t)above * sizeof *uz), nu = 0;
			int64_t *lz = fx_xmalloc((size_t)stride * sizeof *lz), nl = 0;
			for (int64_t u = 0; u < above; u++)
				for (int p = 0; p < k; p++)
					if (A[u * k + p] != 0) {
						uz[nu++] = u;
						break;
					}
			for (int64_t l = 0; l < stride; l++)
				for (int p = 0; p < k; p++)
					if (B[l * k + p] != 0) {
						lz[nl++] = l;
						break;
					}
			for (int64_t a = 0; a < nu; a++)
				for (int64_t b = 0; b < nl; b++) {
					line_loads(k, f->wrap[i], tie, A + uz[a] * k, B + lz[b] * k, plus,
						   minus);
					emit_line(f, i, lz[b] + uz[a] * stride * k, stride, plus, minus,
						  bytes, emit, ctx);
				}
			free(A);
			free(B);
			free(uz);
			free(lz);
		}
		free(plus);
		stride *= k;
	}
	return dev ? farthest(f, dev, n) : far;
}
