/* Private to routing/: building schedules, and the collective generators. */
#ifndef FX_ROUTING_INTERNAL_H
#define FX_ROUTING_INTERNAL_H

#include "routing.h"
#include "../core/xalloc.h"

/* Adds bytes to directed link l, listing l in *used (*nused of *capused)
 * when it was empty: a round's loaded links, so the caller visits only
 * those.  Every path that loads links (route.c, the sweeps) adds through
 * here. */
static inline void fx_load_add(double *load, int64_t l, double bytes, int64_t **used,
			       size_t *nused, size_t *capused)
{
	if (bytes == 0)
		return;
	if (load[l] == 0) {
		*used = fx_xgrow(*used, capused, *nused + 1, sizeof **used);
		(*used)[(*nused)++] = l;
	}
	load[l] += bytes;
}

/* The numbers hash, dmodk and smodk take mod k, one per device: its
 * position leaf by leaf, as SimGrid's fat-tree numbers hosts
 * (routing/route_key.c); NULL where that is the device number itself (the
 * fat-tree kinds, direct fabrics).  The caller frees it. */
int64_t *fx_route_tree_positions(const fx_fabric *f);

/* ---- flow-level timing (routing/flowsim.c, routing/timing.c) ---- */

/* Each (source, destination)'s route as links with the share of the
 * flow's bytes each carries (1 on a single path; ECMP's split shares) and
 * the route's latency (its slowest path's), routed once per pair and
 * kept. */
typedef struct fx_paths {
	size_t n, cap;        /* routes */
	size_t *off;          /* [n + 1] into link and frac */
	int64_t *link;        /* directed links */
	double *frac;
	size_t nl, capl;
	double *lat;          /* [n] seconds */
	int64_t *key;         /* open addressing: src * nv + dst, -1 empty */
	int32_t *val;
	size_t hcap, hn;
	double *load;         /* [2 ne] scratch, zero between calls */
} fx_paths;
void fx_paths_init(fx_paths *P, const fx_fabric *f);
void fx_paths_release(fx_paths *P);
/* The route of src -> dst (routed by r on first use); -1 when it has none
 * (reported through d). */
int32_t fx_paths_get(fx_paths *P, fx_router *r, int64_t src, int64_t dst, fx_diag *d);

/* The flow simulation: flows on routes of P, each released (by the caller,
 * at a time), then waiting its delay, then sharing the links max-min until
 * its bytes are in. */
typedef struct fx_fsim fx_fsim;
/* weighted: sharing weight 1 / route latency (SimGrid CM02), else 1. */
fx_fsim *fx_fsim_new(const fx_fabric *f, const fx_paths *paths, int weighted);
void fx_fsim_free(fx_fsim *s);
void fx_fsim_reserve(fx_fsim *s, size_t n);
/* A flow of bytes over route path that waits delay seconds once released;
 * its id (0, 1, ... in order). */
int32_t fx_fsim_add(fx_fsim *s, int32_t path, double bytes, double delay);
void fx_fsim_release(fx_fsim *s, int32_t flow, double t);
/* on: a flow's delay comes after its bytes (the latency of data on the
 * wire, so the next message on a connection may start as the last one's
 * bytes leave); off (the default, SimGrid's order): before. */
void fx_fsim_set_trailing(fx_fsim *s, int on);
/* Runs to the next instant at which flows are sent (their bytes have
 * left: fx_fsim_sent) or done (arrived: fx_fsim_done); returns how many
 * are done, -1 when no flow is left to run.  fx_fsim_now is that
 * instant. */
int fx_fsim_step(fx_fsim *s);
const int32_t *fx_fsim_done(const fx_fsim *s, size_t *n);
const int32_t *fx_fsim_sent(const fx_fsim *s, size_t *n);
double fx_fsim_now(const fx_fsim *s);
double fx_fsim_finish(const fx_fsim *s, int32_t flow);
double fx_fsim_makespan(const fx_fsim *s);
size_t fx_fsim_flows(const fx_fsim *s);
/* Flows done so far (all of them once fx_fsim_step returns -1, unless a
 * dependency was never met). */
size_t fx_fsim_finished(const fx_fsim *s);

/* Refuses (exit 4) before any routing a schedule the timing mode could
 * not hold (FX_MAX_TIMING_FLOWS); 0 otherwise. */
int fx_timing_check(const fx_fabric *f, const fx_sched *s, const fx_coll_time *tm, fx_diag *d);
/* Times schedule s under tm->timing (maxmin or events), after run_sched
 * has routed its loads: sets out->time and each round's time. */
int fx_timing_run(const fx_fabric *f, fx_router *r, const fx_sched *s, const fx_coll_time *tm,
		  fx_coll_result *out, fx_diag *d);

/* Starts a new round (repeated `repeat` times) labelled `label`. */
fx_round *fx_sched_round(fx_sched *s, int64_t repeat, const char *label);
/* Adds a flow of bytes from rank a to rank b (rank indexes into q->ranks). */
void fx_sched_flow(fx_round *r, const fx_coll_req *q, int64_t a, int64_t b, double bytes);
/* Makes r a shift round (fx_round.shift_*): rank i sends bytes to rank
 * (i + k) mod q->n, its flows listed only when routed, exactly as
 * fx_sched_flow(r, q, i, (i + k) % q->n, bytes) for i = 0 .. n-1 would
 * list them.  s keeps one copy of q->ranks for all its shift rounds. */
void fx_sched_shift(fx_sched *s, fx_round *r, const fx_coll_req *q, int64_t k, double bytes);
/* Room for n more flows in r at once (a round of a known size grown
 * flow by flow copies itself as it doubles). */
void fx_sched_reserve(fx_round *r, size_t n);
/* Adds an all-to-all of bytes per ordered pair among all of q's ranks. */
void fx_sched_among(fx_round *r, const fx_coll_req *q, double bytes);
/* 1 if n is a power of two. */
int fx_is_pow2(int64_t n);
int fx_log2(int64_t n);
/* Flow bounds (fx_coll_algo.flows) for schedules that list a fixed number
 * of flows per rank: one per rank per phase or tree edge. */
double fx_flows_1n(const fx_fabric *f, const fx_coll_req *q);
double fx_flows_2n(const fx_fabric *f, const fx_coll_req *q);
double fx_flows_4n(const fx_fabric *f, const fx_coll_req *q);
double fx_flows_6n(const fx_fabric *f, const fx_coll_req *q);
/* Fills s with a schedule over q's ranks (ctx: the generator's own). */
typedef void (*fx_sched_fill)(fx_sched *s, const fx_coll_req *q, const void *ctx);
/* Fills s by fill, with the ranks placed over the wires on explicit graphs
 * (custom fabrics of 3 to 16 ranks with direct links between them): swaps
 * of two ranks' devices are kept while they shorten the schedule's summed
 * busiest-link time, and s->plan says where each rank went.  Elsewhere,
 * fill over q as given. */
void fx_sched_over_wires(const fx_fabric *f, const fx_coll_req *q, fx_sched_fill fill,
			 const void *ctx, fx_sched *s);
/* A ring over ranks[0..n-1] that follows a lattice's wires when they fill
 * a block of it (routing/coll_order.c): 1 with order[] (ring position ->
 * rank index) and how[] saying which ring, 0 when the ranks are no block
 * of a lattice (or a degraded one), or the ring would be no shorter than
 * rank order's. */
int fx_lattice_ring(const fx_fabric *f, const int64_t *ranks, int64_t n, int64_t *order,
		    char *how, size_t howlen);
/* The next position after x on a ring of a line of k: x + 1 round a
 * torus's wrap, else the interleaved order 0, 2, 4, ..., 5, 3, 1 (at most 2
 * hops a step). */
int64_t fx_line_next(int k, int wrap, int x);
/* Swing's rho(s) = sum_{i<=s} (-2)^i: 1, -1, 3, -5, 11, ... */
int64_t fx_swing_rho(int s);
/* Reports that algo needs a power-of-two rank count. */
int fx_need_pow2(const fx_coll_req *q, fx_diag *d);

/* fx_route_cut with the size limit on the contracted flow graph given
 * (vertices + edges; fx_route_cut's is MAXFLOW_LIMIT in routing/cut.c):
 * past it, exit 4 through d.  For the tests of the limit. */
int fx_route_cut_within(const fx_fabric *f, const uint8_t *side, double limit, fx_cut *out,
			fx_diag *d);

/* Fiduccia-Mattheyses refinement of a balanced split (routing/cut_fm.c).
 * Fill side[] (every vertex 0 or 1), then fx_fm_refine; the caller owns
 * the struct and frees its arrays with fx_fm_release. */
typedef struct fx_fm {
	const fx_fabric *f;
	int64_t *off, *inc;     /* incident edges of v: inc[off[v] .. off[v+1]-1] */
	uint8_t *side;          /* every vertex on 0 or 1 */
	double *gain;           /* capacity to the other side - to its own */
	int64_t *heap[2];       /* unlocked devices of each side, by gain */
	int64_t nheap[2];
	int64_t *pos;           /* a device's index in its heap, or -1 */
	int64_t *moves;         /* the pass's moves, in order */
} fx_fm;

void fx_fm_init(fx_fm *m, const fx_fabric *f);
void fx_fm_release(fx_fm *m);
/* Recomputes every gain from side[]. */
void fx_fm_gains(fx_fm *m);
/* Moves v to the other side, updating its neighbours' gains. */
void fx_fm_flip(fx_fm *m, int64_t v);
/* Moves each non-device vertex to the side where fewer of its links cross. */
void fx_fm_settle(fx_fm *m);
/* One pass; returns the capacity it took out of the cut (0: none).
 * Time complexity: O(E log V). */
double fx_fm_pass(fx_fm *m);
/* Gains, then passes until one finds nothing (at most 20), switches
 * settled after each. */
void fx_fm_refine(fx_fm *m);

/* The index of m's lowest set bit (m != 0). */
static inline int fx_lowest_bit(uint64_t m)
{
#if defined(__GNUC__)
	return __builtin_ctzll(m);
#else
	int b = 0;
	while (!(m & 1)) {
		m >>= 1;
		b++;
	}
	return b;
#endif
}

/* Incident links per vertex in edge order (CSR), live bundles only
 * (routing/bfs.c): the positions of v are off[v] .. off[v+1]-1, each one
 * bundle seen from v.  Built once by the router; every ECMP path borrows
 * it. */
typedef struct fx_inc {
	int64_t nv;
	const int64_t *off;     /* [nv + 1] */
	const int64_t *edge;    /* the bundle at each position */
	const int32_t *nbr;     /* its other end */
	const double *lat;      /* its latency */
	const int64_t *twin;    /* the same bundle's position at the other end */
	const uint8_t *relays;  /* per vertex: 1 when it forwards (fx_fabric_relays) */
} fx_inc;
void fx_inc_build(fx_inc *g, const fx_fabric *f);
void fx_inc_release(fx_inc *g);
/* Per device d < ndev: its home, the one relaying neighbour all its links
 * go to (-1: none, or two devices each other's only neighbour), and the
 * worst latency of those links (ecmp_sweep.c and ecmp_updown.c group
 * flows by it). */
void fx_inc_homes(const fx_inc *g, int64_t ndev, int64_t *home, double *home_lat);

/* The relay-aware breadth-first search, the one every ECMP path shares
 * (routing/bfs.c): a vertex that does not relay is reached but expanded
 * only when it is a seed (distance 0).  Vertices are expanded in queue
 * (discovery) order, positions in incidence order; lat keeps, per vertex,
 * the worst latency over its shortest paths from the seeds (the least
 * with least set: routing/hops.c's farthest pair).  The caller
 * owns the arrays (nv each): dist and queue always, lat and next when not
 * NULL. */
#define FX_BFS_SCAN UINT64_MAX  /* next of a vertex wider than 64: scan it */
typedef struct fx_bfs {
	int32_t *dist;      /* hops from the nearest seed, -1 not reached (yet) */
	double *lat;        /* NULL: hops only */
	int least;          /* lat keeps the least latency, not the worst (no next) */
	uint64_t *next;     /* NULL, or per reached vertex w the positions of w
			     * (bit t - off[w]) on which a vertex one hop
			     * nearer expanded to it: its next hops towards the
			     * seeds; FX_BFS_SCAN when w has more than 64 */
	int32_t *queue;     /* reached vertices in order; queue[0 .. head-1] expanded */
	int64_t head, tail;
} fx_bfs;
/* Every distance -1, the queue empty. */
void fx_bfs_start(fx_bfs *b, int64_t nv);
/* v at distance 0 with latency l0 (the larger when seeded twice); 1 when
 * v is new. */
int fx_bfs_seed(fx_bfs *b, int64_t v, double l0);
/* Expands queued vertices until vertex want is reached (want >= 0) or the
 * next one is depth or more hops out; 1 when the search is complete, 0
 * when it stopped early (call again to resume). */
int fx_bfs_grow(fx_bfs *b, const fx_inc *g, int64_t want, int32_t depth);
/* A whole search from src alone; returns its depth (the last vertex
 * reached: b->tail < nv when some vertex is not). */
int32_t fx_bfs_from(fx_bfs *b, const fx_inc *g, int64_t src, double l0);

/* The shortest-path DAG into one target from a few sources, searched
 * from both ends (routing/st_dag.c): per source the searches from the
 * target (shared by every source of one start) and from the source grow a
 * layer at a time, the cheaper first, until they meet; then the source's
 * DAG is recorded.  fx_stdag_dist is then the target's search's distance
 * at every vertex on a recorded DAG or reached from the target, so a push
 * finds the reference's next hops there (loads bit for bit). */
typedef struct fx_stdag {
	const fx_inc *inc;
	int64_t target;
	fx_bfs back;        /* from the target, with worst latencies: layers
			     * 0 .. back_r found, those below back_r expanded */
	int32_t back_r;
	int back_done;      /* back is complete */
	double back_cost;   /* steps to expand back's frontier (-1: not known) */
	fx_bfs fwd;         /* from the source in hand, hops only */
	int64_t *lay;       /* fwd's layer j: queue[lay[j] .. lay[j+1]) */
	size_t caplay;
	int32_t *over;      /* DAG vertices back has not reached: their
			     * distance to the target, else -1 */
	double *olat;       /* ... and worst latency */
	int32_t *marked;    /* the vertices over holds */
	int64_t nmarked;
	double work;        /* steps so far: vertices scanned and their incidences */
} fx_stdag;
fx_stdag *fx_stdag_new(const fx_inc *inc);
void fx_stdag_free(fx_stdag *d);
/* A new target, latency l0 there; clears what the last one touched. */
void fx_stdag_start(fx_stdag *d, int64_t target, double l0);
/* src's distance to the target (-1: no route) and the worst latency of
 * its shortest paths (*lat), its DAG recorded. */
int32_t fx_stdag_add(fx_stdag *d, int64_t src, double *lat);
/* The target search's distance at v, when known; else -1. */
static inline int32_t fx_stdag_dist(const fx_stdag *d, int64_t v)
{
	return d->back.dist[v] >= 0 ? d->back.dist[v] : d->over[v];
}

/* Least-cost routing (routing/route_cost.c): does any link of f carry a
 * routing weight above 1?  Then ECMP's distances are fx_cost_from's:
 * relay-aware as fx_bfs_from, in cost units (dist), with the worst
 * latency (lat) and the most hops (hops) over the least-cost paths to
 * src; arrays of nv each, owned by the caller; returns the largest
 * distance reached. */
int fx_cost_weighted(const fx_fabric *f);
int32_t fx_cost_from(const fx_fabric *f, const fx_inc *g, int64_t src, int32_t *dist, double *lat,
		     int32_t *hops);
/* Adds n pairs at distance hops to h's histogram, growing it (routing/hops.c). */
void fx_hops_tally(fx_hops *h, int64_t hops, double n);
/* Exact hop counts of every device pair (routing/hops_bits.c): h's
 * histogram, diameter, farthest pair, its least latency and sources, by
 * searches 64 sources a pass; reach (NULL: all) marks the devices that
 * count.  0, or -1 with tally's message for a pair with no path. */
int fx_hops_bits(const fx_fabric *f, const fx_inc *g, const uint8_t *reach, fx_hops *h,
		 fx_diag *d);
/* fx_route_hops with the bit-parallel searches (bits 1, the default) or
 * one search per device (0; tests compare the two). */
int fx_route_hops_by(const fx_fabric *f, fx_hops *h, int bits, fx_diag *d);

/* Hop distances to every target, 64 targets searched at once
 * (routing/dist_table.c), for split ECMP on small shallow graphs.  nbr:
 * the other end of each incidence position (inc_off as the router's),
 * relays: per vertex, whether it forwards; both borrowed. */
typedef struct fx_dtab fx_dtab;
#define FX_DTAB_NONE 255  /* no route */
/* NULL when some finite distance might not fit a byte, or (max_depth >= 0)
 * when a probe search from the best-connected relaying vertex is deeper
 * than max_depth (each block of 64 targets costs depth x E). */
fx_dtab *fx_dtab_new(int64_t nv, const int64_t *inc_off, const int32_t *nbr,
		     const uint8_t *relays, int max_depth);
void fx_dtab_free(fx_dtab *t);
/* nv bytes: each vertex's distance to target, exact up to depth (the
 * search goes on as deep as asked; farther vertices may read
 * FX_DTAB_NONE until then). */
const uint8_t *fx_dtab_row(fx_dtab *t, int64_t target, int depth);
/* v's distance to target, searching deeper if need be; -1: no route. */
int fx_dtab_dist(fx_dtab *t, int64_t target, int64_t v);
/* Steps the searches took so far: per layer of a block, 2 V (the scans
 * of every vertex's front and arrivals) plus the incidences of the
 * vertices that expanded (the route-work guard counts them). */
double fx_dtab_work(const fx_dtab *t);

/* ECMP split by destination groups (routing/ecmp_sweep.c): flows to the
 * devices hanging off one switch share one push down its cached DAG.  The
 * router's own reference path (route.c) stays for the hash policy, for
 * reporting a pair with no route, and for tests (fx_router_set_reference). */
typedef struct fx_sweep fx_sweep;
/* inc: the router's incidence, borrowed. */
fx_sweep *fx_sweep_new(const fx_fabric *f, const fx_inc *inc);
void fx_sweep_free(fx_sweep *s);
/* As the reference's split ECMP; raises st's maxima; links loaded from
 * zero are appended to the router's list *used (*nused of *capused).
 * Returns 0, -1 when some flow has no route (nothing reported: the caller
 * reruns the reference for its message), or FX_SWEEP_OVER past the
 * budget (fx_sweep_set_budget). */
int fx_sweep_add(fx_sweep *s, const fx_flow *flows, size_t n, double *load, fx_path_stats *st,
		 int64_t **used, size_t *nused, size_t *capused);
/* Whether fx_sweep_add reads distances from a table (fx_dtab): -1 when it
 * pays (small shallow graphs, the default), 0 never (the cached searches),
 * 1 whenever it is exact (tests compare the three paths). */
void fx_sweep_set_table(fx_sweep *s, int mode);
/* Whether fx_sweep_add takes distances from the table (decided now if
 * not yet: a probe search, O(V + E)). */
int fx_sweep_uses_table(fx_sweep *s);
/* Steps fx_sweep_add has taken so far: the table's (fx_dtab_work) plus,
 * per push, the incidences of every vertex it pushed from. */
double fx_sweep_work(const fx_sweep *s);
/* With steps > 0, fx_sweep_add returns FX_SWEEP_OVER after the first
 * destination group that takes fx_sweep_work past steps (the loads then
 * hold part of the round: the caller gives up on it). */
void fx_sweep_set_budget(fx_sweep *s, double steps);
#define FX_SWEEP_OVER (-2)
/* bytes between every ordered pair of devices; returns as fx_sweep_add.
 * Sibling homes (a fat-tree pod's leaves) and sibling devices (unhomed,
 * not forwarding, the same links to the same relaying vertices: a UB
 * node's NPUs, an NVSwitch tray's GPUs) take one push for the set; sets
 * that a proven turn of the fabric moves one onto the next (UB nodes,
 * NVSwitch trays) are folded from two pushes (routing/sweep_fold.c), bit
 * for bit as the per-set pushes add them.
 * Time complexity: O(sibling sets x (V + E)); folded, O(V + E + sets x
 * keys) (a few keys: every link's terms but one alike). */
int fx_sweep_all_pairs(fx_sweep *s, double bytes, double *load, fx_path_stats *st,
		       int64_t **used, size_t *nused, size_t *capused);
/* 0: sibling devices pushed one by one, as any other target (tests
 * compare); 1 (the default): as one set. */
void fx_sweep_set_classes(fx_sweep *s, int on);
/* The searches (and pushes) fx_sweep_all_pairs makes: one per set of
 * siblings (two for all the sets when they fold), one per other
 * destination group (the route-work guard). */
double fx_sweep_all_pairs_searches(fx_sweep *s);
/* 0: every set of siblings pushed (tests compare); 1 (the default): sets
 * that a proven automorphism turns one onto the next, in the sweep's
 * order, folded from one push (routing/sweep_fold.c). */
void fx_sweep_set_fold(fx_sweep *s, int on);
/* 1 (the default): a target not cached is searched from both ends, as
 * deep as each source needs (routing/st_dag.c); 0: the cached searches
 * from the target only (tests compare the two). */
void fx_sweep_set_sparse(fx_sweep *s, int on);
/* Whether the last fx_sweep_all_pairs folded its sets (tests). */
int fx_sweep_folded(const fx_sweep *s);

/* Symmetry folds (routing/sweep_fold.c).  A proven automorphism g of f
 * (from the kind's own candidates, fx_builder.symmetries, each checked by
 * fx_fabric_automorphism, latencies and routing weights kept too) that
 * moves device set k onto set k + 1 mod m (setof: per device, its set in
 * 0 .. m-1 or -1; other devices stay off the sets): 1 with ginv[dl] the
 * directed link g moves onto dl (2 ne entries), or 0. */
int fx_fold_cycle(const fx_fabric *f, const int64_t *setof, int64_t m, int64_t *ginv);
/* load[l] += rep(l) + rep(g^-1 l) + ... + rep(g^-(m-1) l), added left to
 * right as the m sets' pushes would add them (rep: set 0's bytes per
 * directed link; set k's are rep o g^-k); links loaded from zero are
 * appended to *used in link order.  O(nl + m x keys), keys the distinct
 * (value, odd value, place) of the cycles (a few on UB and NVSwitch). */
void fx_fold_replay(const int64_t *ginv, int64_t nl, const double *rep, int64_t m, double *load,
		    int64_t **used, size_t *nused, size_t *capused);
/* The search fx_sweep_add routes flows to dst by, in [0, 2 nv): dst's
 * class's first device or dst itself, or nv + its home. */
int64_t fx_sweep_target(fx_sweep *s, int64_t dst);
/* The router's grouped push (made on first use), or NULL where split
 * ECMP does not route by it (hash, reference, other routers). */
fx_sweep *fx_router_sweep(fx_router *r);
/* 1: the router takes the per-destination reference paths (tests compare
 * the two); 0: the fast paths (the default). */
void fx_router_set_reference(fx_router *r, int on);
/* 1: split ECMP searches every target whole, from the target alone (no
 * s-t DAGs, fx_sweep_set_sparse 0); 0: the default.  Tests compare the
 * two bit for bit. */
void fx_router_set_full_search(fx_router *r, int on);
/* The sweep's distance table mode (fx_sweep_set_table), -1 by default. */
void fx_router_set_dist_table(fx_router *r, int mode);
/* 1 when split ECMP will route r's listed flows by the sweep's distance
 * table (small shallow explicit graphs of unhomed devices, no up/down
 * sweep; decides it now: a probe search).  Only then are the two below
 * in force. */
int fx_router_takes_table(fx_router *r);
/* The steps the sweep took so far (fx_sweep_work), 0 without one. */
double fx_router_work(const fx_router *r);
/* With steps > 0, fx_router_add returns FX_SWEEP_OVER (nothing reported)
 * once fx_router_work passes steps; 0: no bound (the default). */
void fx_router_set_work_limit(fx_router *r, double steps);

/* Rounds that repeat an earlier round's listed flows byte for byte
 * (routing/round_twin.c): the repeat takes the earlier round's loads
 * instead of being routed. */
typedef struct fx_twins fx_twins;
fx_twins *fx_twins_new(const fx_sched *s);
void fx_twins_free(fx_twins *t);
/* The earliest round that round i repeats (i itself when none), and
 * whether a later round repeats round i. */
size_t fx_twins_of(const fx_twins *t, size_t i);
int fx_twins_wanted(const fx_twins *t, size_t i);
/* 1 with the links, their bytes and the path figures round i repeats
 * (kept by fx_twins_put), or 0: route it. */
int fx_twins_get(const fx_twins *t, size_t i, const int64_t **links, const double **bytes,
		 size_t *n, fx_path_stats *st);
/* After routing round i: keeps load on the links it loaded when a later
 * round repeats it (within a memory bound). */
void fx_twins_put(fx_twins *t, size_t i, const int64_t *links, size_t n, const double *load,
		  const fx_path_stats *st);

/* ECMP split on up/down layered fabrics (routing/ecmp_updown.c): a round
 * in one upward sweep by source and one downward sweep by destination,
 * where every target's next hops are checked to be "all up links" outside
 * its cone and "down into the cone" inside (Clos, UB, NVSwitch).  The
 * router tries it before fx_sweep_add. */
typedef struct fx_updown fx_updown;
/* NULL when the fabric has no levels to go by (no switches, a vertex no
 * device reaches); inc is borrowed, as fx_sweep_new's. */
fx_updown *fx_updown_new(const fx_fabric *f, const fx_inc *inc);
void fx_updown_free(fx_updown *s);
/* As fx_sweep_add; returns 0, -1 when some flow has no route, 1 when some
 * target fails the property (for good: later calls return 1 at once).
 * Nothing is added unless it returns 0. */
int fx_updown_add(fx_updown *s, const fx_flow *flows, size_t n, double *load, fx_path_stats *st,
		  int64_t **used, size_t *nused, size_t *capused);
/* Checks every device's target now (tests): 1 when all have the property. */
int fx_updown_check_all(fx_updown *s);
/* About how many steps checking every target takes: targets x (V + 2E). */
double fx_updown_check_steps(const fx_updown *s);
/* The router's up/down sweep (made on first use), or NULL where it does
 * not apply, the reference path is set, or (by default) too few flows have
 * been listed yet to pay for its checks (route.c says why). */
fx_updown *fx_router_updown(fx_router *r);
/* 1: the sweep from the first flow; 0: never, the grouped push (tests and
 * bench/round.c compare the paths). */
void fx_router_set_updown(fx_router *r, int on);

/* Rounds on lattices summarised from load breakpoints (routing/dor_sum.c):
 * route.c's dimension-order router hands it each segment's difference-array
 * points (fx_router_summarise), and it gives the round's heaviest link,
 * total and busiest link's seconds, and at the end every link's totals. */
typedef struct fx_dorsum fx_dorsum;
/* NULL unless f is a lattice whose links all have one capacity. */
fx_dorsum *fx_dorsum_new(const fx_fabric *f);
void fx_dorsum_free(fx_dorsum *s);
/* A difference-array entry: delta at position pos of line (route.c's
 * numbering: (2i + dir) * N + base), in the order route.c adds them. */
void fx_dorsum_point(fx_dorsum *s, int64_t line, int pos, double delta);
/* Closes a round repeated `repeat` times: its heaviest link's bytes, all
 * links' bytes, the busiest link's seconds. */
void fx_dorsum_round(fx_dorsum *s, int64_t repeat, double *max_bytes, double *total,
		     double *worst);
/* Sorts the open round's points as fx_dorsum_round does first; with the
 * two below, for tests (tests/unit/test_sweep.c). */
void fx_dorsum_sort(fx_dorsum *s);
size_t fx_dorsum_npoints(const fx_dorsum *s);
void fx_dorsum_point_at(const fx_dorsum *s, size_t i, int64_t *line, int *pos, double *delta);
/* Adds every link's repeat-weighted bytes and seconds over the rounds,
 * and forgets the kept rounds: the collective is over. */
void fx_dorsum_finish(fx_dorsum *s, double *link_bytes, double *link_busy);
/* Says about how many points the next round will add (before its first
 * fx_dorsum_point): enough of them, and its points go straight into a
 * dense array by (line, position) instead of being sorted. */
void fx_dorsum_expect(fx_dorsum *s, double npoints);
/* Rounds that go dense: -1 when fx_dorsum_expect's estimate says it pays
 * (the default), 0 never, 1 every round announced by fx_dorsum_expect
 * (tests compare the paths). */
void fx_dorsum_set_dense(fx_dorsum *s, int mode);
/* Keeps the next round closed (fx_dorsum_round) as round `id`, within a
 * memory bound, for rounds that repeat it. */
void fx_dorsum_keep_next(fx_dorsum *s, size_t id);
/* Closes a round that repeats kept round id, as fx_dorsum_round would
 * on its points (nothing listed: the open round's points are dropped);
 * 0 when id was not kept (route the round instead). */
int fx_dorsum_replay(fx_dorsum *s, size_t id, int64_t repeat, double *max_bytes, double *total,
		     double *worst);
/* 0: nothing kept, every round routed (tests compare); 1 (the default). */
void fx_dorsum_set_replay(fx_dorsum *s, int on);
/* Rounds closed dense and rounds replayed so far (tests). */
void fx_dorsum_counts(const fx_dorsum *s, size_t *dense, size_t *replayed);
/* The router's summary for its fabric, or NULL (not dimension-order, links
 * of several capacities, or the reference path is set); with on, the next
 * fx_router_add feeds it instead of loads. */
fx_dorsum *fx_router_summary(fx_router *r);
void fx_router_summarise(fx_router *r, int on);

/* Every rank to every other under dimension order (routing/dor_pairs.c):
 * line loads from per-line rank counts instead of n(n-1) flows.  dev NULL:
 * every device.  emit receives each loaded directed link and its bytes
 * (once per link per dimension); returns the longest route in hops.
 * Time complexity: O(N D) with meshes, O(N k) on rings, plus emit calls. */
typedef enum fx_dor_tie {
	FX_DOR_TIE_SPLIT,   /* even rings: half each way (the default) */
	FX_DOR_TIE_PLUS,    /* always + */
	FX_DOR_TIE_HASH     /* by the destination coordinate's parity */
} fx_dor_tie;
typedef void (*fx_dor_emit)(void *ctx, int64_t dirlink, double bytes);
int64_t fx_dor_pairs(const fx_fabric *f, const int64_t *dev, int64_t n, fx_dor_tie tie,
		     double bytes, fx_dor_emit emit, void *ctx);

/* generators, one file per family */
extern const fx_coll_algo fx_ar_ring, fx_ar_tree, fx_ar_rhd, fx_ar_swing, fx_ar_torus,
	fx_ar_hier, fx_ar_dbtree, fx_rs_ring, fx_rs_rec, fx_rs_swing, fx_ag_ring, fx_ag_rec,
	fx_ag_swing, fx_a2a_direct, fx_a2a_pairwise, fx_bc_tree, fx_bc_chain, fx_rd_tree,
	fx_rd_chain, fx_ar_pipeline, fx_ar_mesh_ring, fx_ar_ktree, fx_gemm_cannon, fx_gemm_summa,
	fx_gemm_meshgemm, fx_ar_swing_torus, fx_rs_swing_torus, fx_ag_swing_torus, fx_ar_rec_torus,
	fx_rs_rec_torus, fx_ag_rec_torus, fx_ar_swing_torus_lat, fx_ar_rec_torus_lat;

/* The dragonfly router (routing/route_dragonfly.c), by the builder's
 * numbering: route.c's router of FX_ROUTER_DRAGONFLY holds one. */
typedef struct fx_dfr fx_dfr;
fx_dfr *fx_dfr_new(const fx_fabric *f);
void fx_dfr_free(fx_dfr *r);
/* Routes n listed flows by policy pol, adding to load as fx_load_add
 * does and raising st's maxima. */
int fx_dfr_add(fx_dfr *r, fx_route_policy pol, const fx_flow *flows, size_t n, double *load,
	       fx_path_stats *st, int64_t **used, size_t *nused, size_t *capused);
/* Routes b bytes between every two distinct devices of a multiset
 * (cnt[d] copies of device d; a device sends itself nothing), from
 * per-switch and per-group counts. */
int fx_dfr_counts(fx_dfr *r, fx_route_policy pol, const double *cnt, double b, double *load,
		  fx_path_stats *st, int64_t **used, size_t *nused, size_t *capused);
/* About the steps fx_dfr_counts takes, and fx_dfr_add per flow. */
double fx_dfr_counts_cost(const fx_dfr *r, fx_route_policy pol);
double fx_dfr_flow_cost(const fx_dfr *r, fx_route_policy pol);
/* 0 when the router's arithmetic names every link the builder made
 * (tests): device links, local links and every global link. */
int fx_dfr_check(const fx_dfr *r);

#endif
