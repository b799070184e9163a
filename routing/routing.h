/*
 * routing: paths through a fabric and what they cost.
 *
 * Hop counts (fx_route_hops) follow the fabric's structure where it has one:
 * on tori and meshes the distance histogram is the convolution of the
 * per-dimension ring or line histograms (exact, no search); on fabrics where
 * every device looks alike one breadth-first search from device 0 stands for
 * all; otherwise one search per device, or a sample of them when that would
 * be too slow, and then the result says so.  Paths may pass through switches,
 * and through devices only where devices relay (direct fabrics); CPUs never
 * relay.
 *
 * Cuts (fx_route_bisection, fx_route_cut) are measured with igraph's max-flow
 * between two device sets, with every edge's capacity = links x bandwidth.
 *
 * Ownership: results are plain structs filled by the callee; the caller
 * releases the histogram with fx_hops_release().
 */
#ifndef FX_ROUTING_H
#define FX_ROUTING_H

#include "../fabric/fabric.h"

typedef struct fx_hops {
	int64_t diameter;        /* most hops between two distinct devices */
	double mean;             /* mean hops over ordered pairs of distinct devices */
	double *hist;            /* hist[h]: ordered device pairs h hops apart */
	int64_t nhist;           /* diameter + 1 */
	double far_latency;      /* seconds: latency of the farthest pair's path */
	int64_t far_a, far_b;    /* one farthest pair */
	const char *method;      /* how it was computed */
	int64_t sources;         /* searches run (0 for closed forms) */
	int sampled;             /* 1 when only some sources were searched */
} fx_hops;

/* Hop counts between devices.  Time complexity: O(sum of dims^2) on
 * lattices, O(V+E) on device-transitive fabrics, O(D (V+E)) otherwise. */
int fx_route_hops(const fx_fabric *f, fx_hops *out, fx_diag *d);
void fx_hops_release(fx_hops *h);

typedef struct fx_cut {
	int64_t side[2];         /* devices on each side */
	double bandwidth;        /* bytes/s per direction: igraph max-flow */
	double links;            /* physical links in the minimum cut */
	double direct_links;     /* links joining the two sets directly */
	double per_device;       /* bandwidth / (devices / 2) for bisections */
	int exact;               /* 1: exact bisection; 0: a bound (heuristic split) */
	double formula;          /* closed-form bandwidth, or -1 if none */
	int confirmed;           /* max-flow equals the closed form (0 when the
				  * fabric is too large for max-flow and the closed
				  * form stands alone) */
	const char *method;      /* "exact" or "bound" */
} fx_cut;

/* The bisection: the balanced split of the devices with least bandwidth
 * between the halves.  Exact on structured kinds (canonical split, checked
 * by max-flow against the closed form); on others a spectral split refined
 * Kernighan-Lin style, which bounds the bisection from above. */
int fx_route_bisection(const fx_fabric *f, fx_cut *out, fx_diag *d);

/* Max-flow and cut between vertex sets: side[v] is 0 (set A), 1 (set B) or
 * 2 (neither: may carry traffic if it forwards). */
int fx_route_cut(const fx_fabric *f, const uint8_t *side, fx_cut *out, fx_diag *d);

#endif
