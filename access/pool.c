/* Memory pooling: remote read bandwidth (Eq. 6-12) and borrowing
 * (access.h; the chapter "Supernodes" §6.6). */
#include <math.h>
#include <stdlib.h>

#include "access.h"

void fx_pool_read_model(double path, double latency, double q, double u, double bytes,
			double period, fx_pool_read *out)
{
	out->window = u * q / latency;
	out->usable = out->window < path ? out->window : path;
	/* the smallest u with u q / L >= path; the epsilon keeps an exact
	 * product (e.g. 1468.75 -> 1469) from rounding up once more */
	out->inflight_to_fill = ceil(path * latency / q - 1e-9);
	out->read_time = out->usable > 0 ? bytes / out->usable : INFINITY;
	out->demand = period > 0 ? bytes / period : 0;
	out->idle = period > 0 ? period - out->read_time : 0;
	out->backlog = period > 0 && out->read_time > period;
}

int64_t fx_pool_borrow(const double *need, int64_t n, double capacity, fx_loan *out,
		       int64_t cap)
{
	double excess = 0, idle_total = 0;
	double *idle = malloc((size_t)(n > 0 ? n : 1) * sizeof *idle);
	if (!idle)
		return -1;
	for (int64_t i = 0; i < n; i++) {
		idle[i] = need[i] < capacity ? capacity - need[i] : 0;
		excess += need[i] > capacity ? need[i] - capacity : 0;
		idle_total += idle[i];
	}
	int64_t k = 0;
	if (excess > idle_total) {
		free(idle);
		return -1;
	}
	for (int64_t b = 0; b < n; b++) {
		double want = need[b] - capacity;
		while (want > 0) {
			/* best fit: the node whose idle memory covers the want most
			 * tightly lends (large idle regions stay whole for others);
			 * when none covers it, the largest lends what it has */
			int64_t best = -1;
			for (int64_t l = 0; l < n; l++) {
				if (l == b || idle[l] <= 0)
					continue;
				int covers = idle[l] >= want, best_covers = best >= 0 && idle[best] >= want;
				if (best < 0 || (covers && (!best_covers || idle[l] < idle[best])) ||
				    (!covers && !best_covers && idle[l] > idle[best]))
					best = l;
			}
			double give = idle[best] < want ? idle[best] : want;
			if (k < cap)
				out[k] = (fx_loan){best, b, give};
			k++;
			idle[best] -= give;
			want -= give;
		}
	}
	free(idle);
	return k;
}
