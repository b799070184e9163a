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
 * between two device sets, with every edge's capacity = links x bandwidth
 * (a bisection of a fabric whose every vertex is a device counts its split's
 * edge cut, which is that max-flow).
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
	int64_t devices_failed;  /* degraded fabric: devices failed, */
	int64_t devices_cut_off; /* and live devices the rest cannot reach: both
				  * left out of the counts above */
} fx_hops;

/* Hop counts between devices (on a degraded fabric, between the devices
 * fx_fabric_reachable joins, one search from each).  Time complexity: O(sum of dims^2) on
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
	const char *how;         /* how it was found, for people */
} fx_cut;

/* The bisection: the balanced split of the devices with least bandwidth
 * between the halves.  Exact on structured kinds (canonical split, checked
 * by max-flow against the closed form); on others a spectral split refined
 * by Fiduccia-Mattheyses passes, which bounds the bisection from above. */
int fx_route_bisection(const fx_fabric *f, fx_cut *out, fx_diag *d);

/* The split the bisection measures, into side[nv] (devices 0 or 1, every
 * other vertex 2): the kind's canonical halves (returns 0), or for fabrics
 * without them (custom graphs) a spectral + Fiduccia-Mattheyses balanced
 * split (returns 1); -1 after reporting. */
int fx_route_split(const fx_fabric *f, uint8_t *side, fx_diag *d);

/* Max-flow and cut between vertex sets: side[v] is 0 (set A), 1 (set B) or
 * 2 (neither: may carry traffic if it forwards). */
int fx_route_cut(const fx_fabric *f, const uint8_t *side, fx_cut *out, fx_diag *d);

/* ---- routing traffic ---- */

/* One transfer: bytes from device src to device dst (vertex ids). */
typedef struct fx_flow {
	int64_t src, dst;
	double bytes;
} fx_flow;

/* What the paths of a batch of flows looked like. */
typedef struct fx_path_stats {
	int64_t max_hops;        /* longest path, in links */
	double max_latency;      /* seconds: the slowest path's summed link latencies */
} fx_path_stats;

/*
 * A router routes flows over a fabric the way its kind does: dimension-order
 * on tori and meshes (least distance per dimension; on an even ring the two
 * equal ways share the traffic half and half unless `tie_plus`), ECMP on
 * Clos-like fabrics and explicit graphs (over the relay-aware shortest-path
 * DAG to each destination, split at each vertex over its next hops in
 * proportion to links x bandwidth; the DAG is cached per destination, so
 * rings and repeated rounds do not search again).
 *
 * The router borrows the fabric and keeps per-destination caches; free it
 * with fx_router_free().
 */
typedef struct fx_router fx_router;

/* How equal-cost paths share a flow (docs/spec.md §6a says what each
 * equals): split = fluid ECMP, every path its share; hash = every flow
 * pinned to one path, destination-mod-k at each switch and (source +
 * destination) mod k at the sender, bundles fluid (even-ring ties on
 * lattices go + for even destination coordinates, - for odd); dmodk and
 * smodk = SimGrid's fat-tree rule and its mirror, per cable, the sender
 * included; rail and pxn = composites' relays inside the domains.
 * On dragonflies (routing/route_dragonfly.c) split and hash take minimal
 * paths (one global link) and two more policies choose intermediate
 * groups: valiant, each flow between groups spread over every other group
 * as its intermediate, and ugal, minimal or Valiant per pair of groups by
 * the loads the traffic would put on their global links; elsewhere those
 * two do not apply (fx_route_policy_applies). */
typedef enum fx_route_policy {
	FX_ROUTE_SPLIT = 0,  /* fluid ECMP over every minimal path ("minimal" too) */
	FX_ROUTE_HASH,       /* (s+d) mod k at the sender, d-mod-k at switches; bundles fluid */
	FX_ROUTE_DMODK,      /* d-mod-k per cable, sender included (SimGrid's fat-tree) */
	FX_ROUTE_SMODK,      /* s-mod-k per cable */
	FX_ROUTE_RAIL,       /* composite: cross on the source's rail, relay in the destination's domain */
	FX_ROUTE_PXN,        /* composite: relay in the source's domain, cross on the destination's rail */
	FX_ROUTE_VALIANT,    /* dragonfly: via every other group */
	FX_ROUTE_UGAL,       /* dragonfly: minimal or Valiant per pair of groups by load */
	FX_ROUTE_POLICIES
} fx_route_policy;

/* NULL when f is not a built fabric (fx_fabric_built). */
fx_router *fx_router_new(const fx_fabric *f, int tie_plus);
void fx_router_free(fx_router *r);
/* The fabric r routes on. */
const fx_fabric *fx_router_fabric(const fx_router *r);
/* Sets the policy (default split); the next fx_router_add uses it. */
void fx_router_set_policy(fx_router *r, fx_route_policy p);
/* 0 when no policy can change what r routes: dimension order on a
 * lattice without a ring of even length (the only ties it breaks); 1 for
 * ECMP and everything else. */
int fx_router_policy_matters(const fx_router *r);
const char *fx_route_policy_name(fx_route_policy p);
/* "split" (or "minimal", the same), "hash", "dmodk", "smodk", "rail",
 * "pxn", "valiant" or "ugal" into *out; -1 for anything else. */
int fx_route_policy_parse(const char *s, fx_route_policy *out);
/* The policies' names, for messages. */
#define FX_ROUTE_POLICY_LIST "split (= minimal), hash, dmodk, smodk, rail, pxn, valiant or ugal"
/* Whether policy p means something on a fabric routed by family fam
 * (valiant and ugal: dragonflies only). */
int fx_route_policy_applies(fx_router_family fam, fx_route_policy p);
/* Where policy p applies, for the message that refuses it elsewhere. */
const char *fx_route_policy_scope(fx_route_policy p);
/* Whether p pins each flow to one path (hash, dmodk, smodk). */
int fx_route_policy_pins(fx_route_policy p);
/* Whether r loads the cables of a bundle one by one (dmodk, smodk on a
 * fabric with bundles of several links). */
int fx_router_per_cable(const fx_router *r);
/* Seconds directed link l needs for the bytes a round put on it: bytes
 * over the bundle's links x bandwidth, or, when r loads cables one by one,
 * its busiest cable's bytes over one link's bandwidth (and the cables'
 * loads go back to zero).  Every loaded link must be asked once a round. */
double fx_router_link_busy(fx_router *r, int64_t l, double bytes);
/* "dimension-order" or "ecmp". */
const char *fx_router_name(const fx_router *r);
/* The name of a router family's router ("dimension-order", "ecmp"), or
 * NULL when routing/ has no router for it (a registry error). */
const char *fx_router_family_name(fx_router_family fam);
/* Adds the bytes of n flows to load[2 * f->ne] (per directed link) and
 * reports the longest and slowest path.  Time complexity: O(n D + N D) on
 * lattices (difference arrays per line); under split ECMP O(n) plus the
 * DAG links reached per destination group (the devices hanging off one
 * switch share one push; one search per group, cached and grown only as
 * deep as the sources need: routing/ecmp_sweep.c, or on small shallow
 * graphs of unhomed devices 64 searches at once: routing/dist_table.c);
 * O(hops x degree) per flow under the hash policy. */
int fx_router_add(fx_router *r, const fx_flow *flows, size_t n, double *load,
		  fx_path_stats *st, fx_diag *d);
/* Routes flows to find how long the busiest link takes: its seconds (1e300
 * when a pair has no route; nothing is reported), *total (may be NULL) the
 * bytes over all links; the loads go back to zero for the next call.  The
 * search that lays rings and trees over the wires asks this many times. */
double fx_router_busiest(fx_router *r, const fx_flow *flows, size_t n, double *load,
			 double *total);
/* The directed links that went from zero to a load since the last call
 * (each listed once while its load stays non-zero); valid until the next
 * fx_router_add.  Lets callers visit and clear only what a round used. */
size_t fx_router_used(fx_router *r, const int64_t **links);
/* Adds `bytes` from every device to every other device, without listing
 * the n(n-1) flows: on lattices from per-dimension line loads (every line
 * of a dimension carries the same all-pairs load, N/k times a 1-D line's),
 * under split ECMP one push per destination group, elsewhere one
 * destination at a time. */
int fx_router_add_all_pairs(fx_router *r, double bytes, double *load, fx_path_stats *st,
			    fx_diag *d);

/* `bytes` from each of n devices to each other one (dev[i] to dev[j] for
 * i != j; a device listed twice sends itself nothing): an all-to-all among
 * a rank subset. */
typedef struct fx_among {
	int64_t *dev;
	int64_t n;
	double bytes;
} fx_among;
/* 1 when the router fx_router_new builds for f adds an fx_among from line
 * counts (dimension order, no failed elements) instead of its n(n-1) flows. */
int fx_route_among_aggregated(const fx_fabric *f);
/* Adds an fx_among: aggregated where fx_route_among_aggregated says so,
 * otherwise listed as flows and added as fx_router_add does. */
int fx_router_add_among(fx_router *r, const fx_among *a, double *load, fx_path_stats *st,
			fx_diag *d);

/* ---- collectives ---- */

/* A round: flows that run at the same time, repeated `repeat` times
 * identically (ring steps are, so they are routed once). */
typedef struct fx_round {
	fx_flow *flows;
	size_t n, cap;
	double all_pairs;     /* > 0: also this many bytes from every device to
			       * every other (uniform all-to-all, not listed) */
	fx_among *among;      /* also all-to-alls among these rank sets (owned) */
	size_t namong;
	int64_t stages;       /* software routing stages on the round's critical
			       * path (wafer meshes: beta each, WaferLLM §3.2) */
	int64_t repeat;
	char label[32];       /* e.g. "reduce-scatter", "broadcast" */
	/* a shift round, listed on demand (fx_round_flows) rather than held:
	 * rank i sends shift_bytes to rank (i + shift) mod shift_n, ranks
	 * being devices shift_ranks[] (the schedule's copy); flows stays
	 * empty.  A pairwise all-to-all holds n - 1 of these, not n(n-1)
	 * flows. */
	const int64_t *shift_ranks;
	int64_t shift_n, shift;
	double shift_bytes;
} fx_round;

typedef struct fx_sched {
	fx_round *r;
	size_t n, cap;
	int64_t chunks;       /* pipelined algorithms: chunks used (0: not pipelined) */
	double chunk_bytes;   /* bytes per chunk per flow */
	char plan[512];       /* how the algorithm laid itself out, for people
			       * (e.g. the rings it found), or "" */
	int64_t *ranks;       /* the shift rounds' ranks (owned), or NULL */
} fx_sched;

void fx_sched_release(fx_sched *s);
/* The flows of round rd, in the order its generator lists them: rd->flows,
 * or a shift round's written into *buf (grown as needed; *cap its room,
 * the caller frees *buf); *n their number.  O(n) for a shift round. */
const fx_flow *fx_round_flows(const fx_round *rd, fx_flow **buf, size_t *cap, size_t *n);
/* The flows a schedule routes in all, listed and shift rounds alike
 * (each round once, whatever its repeat). */
double fx_sched_nflows(const fx_sched *s);

/* A collective to run: pattern x algorithm over ranks (device ids, in rank
 * order) with `size` bytes per rank (for all-to-all, what each rank sends
 * in all; for reduce-scatter and all-gather, the whole vector). */
typedef struct fx_coll_req {
	const char *pattern;
	const char *algo;
	const int64_t *ranks;
	int64_t n;
	double size;
	int64_t chunks;       /* pipelined algorithms: pieces (0 = algorithm default;
			       * trees: NCCL's, fx_coll_tree_chunks) */
} fx_coll_req;

/* WaferLLM's PLMR figures of a wafer-mesh collective (OSDI'25; the
 * write-up's §3.1-3.2): what a PE's router and memory must hold, and the
 * critical path in hops (alpha each) and software routing stages (beta). */
typedef struct fx_plmr {
	int64_t paths_per_pe;     /* routing paths (router table entries) the busiest PE needs */
	int64_t critical_hops;    /* hops on the critical path */
	int64_t routing_stages;   /* software routing stages on the critical path */
	double memory_per_pe;     /* bytes a PE holds: its share plus buffers */
	double latency;           /* alpha * hops + beta * stages, seconds */
} fx_plmr;

typedef struct fx_coll_algo {
	const char *pattern;
	const char *name;
	const char *summary;
	/* Generates the rounds of flows. */
	int (*gen)(const fx_fabric *f, const fx_coll_req *q, fx_sched *s, fx_diag *d);
	/* Bytes every rank must send in all (the algorithm's data volume), for
	 * checking schedules; NULL when ranks send unequal amounts. */
	double (*sent_per_rank)(const fx_coll_req *q);
	/* PLMR figures, for wafer-mesh algorithms (NULL elsewhere). */
	int (*plmr)(const fx_fabric *f, const fx_coll_req *q, fx_plmr *out, fx_diag *d);
	/* An upper bound on the flows gen lists, known before it runs, so a
	 * schedule too large for the memory limit is refused up front
	 * (tests/unit/test_collective.c checks it against gen).  Shift rounds
	 * count once, the one round routing lists at a time. */
	double (*flows)(const fx_fabric *f, const fx_coll_req *q);
} fx_coll_algo;

/* The registry: every pattern x algorithm; NULL-terminated. */
extern const fx_coll_algo *const fx_coll_algos[];
/* Finds pattern/algo (algo NULL: the pattern's first algorithm). */
const fx_coll_algo *fx_coll_find(const char *pattern, const char *algo);

/*
 * Measured collective times (`collective.measured` in a spec): for one
 * pattern over a number of ranks (optionally: spanning a number of nodes,
 * run by one algorithm), times at increasing sizes, from rows of the spec
 * or an nccl-tests log.  A call that matches a curve takes the measured
 * time instead of the model's: at a measured size that point; between two
 * points log-log interpolation, or with `between: next` the next measured
 * size up (the chapter "Supernodes", §6.5.1, takes nccl-tests' 16 KiB
 * bucket for a 10 KiB message).  A size outside the measured range is never
 * extrapolated: the model's time stands, and the result says why.
 */
typedef struct fx_coll_curve {
	char pattern[24];
	char algo[16];            /* "": any algorithm of the pattern (the library chose) */
	int64_t ranks;
	int64_t nodes;            /* nodes the ranks span; 0: any */
	int next;                 /* sizes between points: 0 log-log, 1 the next point up */
	size_t n;
	double *size, *time;      /* [n], sizes strictly increasing, times > 0 */
	char *source;             /* "FILE:LINE" of its first row or its log */
} fx_coll_curve;

typedef struct fx_coll_measured {
	size_t n;
	fx_coll_curve *c;
} fx_coll_measured;

/* What a lookup found. */
typedef enum fx_coll_match {
	FX_COLL_MODELLED = 0,     /* no curve for this pattern, ranks and nodes */
	FX_COLL_MEASURED,         /* a measured (or interpolated) time */
	FX_COLL_OUTSIDE           /* a curve, but the size is outside its points */
} fx_coll_match;

/* Reads `collective.measured` (a list; absent: *out NULL).  Relative
 * nccl-tests paths are read beside spec_file.  0, or -1 after reporting
 * every problem with its position. */
int fx_coll_measured_parse(fx_diag *d, const fx_snode *list, const char *spec_file,
			   fx_coll_measured **out);
void fx_coll_measured_free(fx_coll_measured *m);
/* The measured time of a call (algo NULL or "": the pattern's default,
 * matched by curves of any algorithm), into *time; why (may be NULL)
 * says where it came from, or why the model's time stands. */
fx_coll_match fx_coll_measured_lookup(const fx_coll_measured *m, const char *pattern,
				      const char *algo, int64_t ranks, int64_t nodes, double size,
				      double *time, char *why, size_t len);

/* How a schedule's time is computed (collective.timing, --timing):
 *   bound   a round costs alpha + the slowest path's latency + the busiest
 *           directed link's bytes / bandwidth (+ beta, the fabric's
 *           routing_latency, per software routing stage on wafer meshes);
 *           rounds add.  The chapter "Supernodes"' Eq. 6-9 form, the
 *           default.
 *   maxmin  each round's flows share the links max-min fairly
 *           (progressive filling), each flow first waiting out its own
 *           route's latency: the round lasts until its last flow is in,
 *           + alpha (+ beta per stage); rounds still add.  SimGrid's CM02
 *           network model with latency and bandwidth factors 1 and cross
 *           traffic off (routing/flowsim.c says how exactly).
 *   events  no barrier between rounds: a rank's sends of a round start
 *           once the flows into it of its previous receiving round have
 *           arrived and its previous flow to the same peer has gone (eager
 *           forwarding, as NCCL and MPI do); each flow waits alpha + its
 *           route's latency, then shares max-min with the flows active at
 *           that moment (routing/timing.c).
 * With alpha_replaces_latency the path latency is not added (the
 * "Supernodes" chapter's alpha stands for both).  Whatever the mode, calls
 * that a measured curve covers take its time (fx_coll_run); the table is
 * owned by whoever parsed it (the design). */
typedef enum fx_timing { FX_TIMING_BOUND = 0, FX_TIMING_MAXMIN, FX_TIMING_EVENTS } fx_timing;
/* How flows share a link under maxmin and events (collective.sharing):
 * rtt (the default) = weight 1 / the flow's route latency, the sharing
 * penalty of SimGrid's CM02, so the modes reproduce their peer (TCP's RTT
 * unfairness); fair = equal weights, plain max-min (credit-based fabrics
 * that do not favour short paths). */
typedef enum fx_sharing { FX_SHARING_RTT = 0, FX_SHARING_FAIR } fx_sharing;

typedef struct fx_coll_time {
	double alpha;
	int alpha_replaces_latency;
	fx_route_policy policy;   /* how ECMP shares flows (collective.routing) */
	/* with network_alpha_set: the alpha of a round in which some flow
	 * crosses a scale-out link (fx_link.scale_out: a composite's network
	 * and its NICs; collective.network_overhead) */
	int network_alpha_set;
	double network_alpha;
	fx_timing timing;         /* collective.timing (default bound) */
	fx_sharing sharing;       /* collective.sharing (default fair) */
	const fx_coll_measured *measured;  /* collective.measured, or NULL */
} fx_coll_time;

const char *fx_timing_name(fx_timing t);
/* "bound", "maxmin" or "events" into *out; -1 for anything else. */
int fx_timing_parse(const char *s, fx_timing *out);
const char *fx_sharing_name(fx_sharing s);
int fx_sharing_parse(const char *s, fx_sharing *out);

typedef struct fx_round_result {
	int64_t repeat;
	char label[32];
	double max_link_bytes, total_link_bytes;
	int64_t max_hops;
	int64_t stages;       /* software routing stages (beta each) */
	double latency;       /* slowest path, seconds */
	double time;          /* seconds, one repetition (events: the round's
			       * share of the makespan: how far its last flow
			       * moved the finish, over its repeats) */
} fx_round_result;

typedef struct fx_coll_result {
	int64_t rounds;            /* repetitions included */
	double time;               /* seconds */
	fx_timing timing;          /* how time was computed */
	fx_sharing sharing;
	double max_link_bytes;     /* busiest directed link, whole collective */
	double total_link_bytes;   /* sum over directed links (hop-bytes) */
	double sent_bytes;         /* sum over flows */
	double algbw, busbw;       /* bytes/s, as nccl-tests defines them */
	fx_round_result *per_round;
	size_t nround;
	int64_t chunks;            /* pipelined algorithms: chunks used, else 0 */
	double chunk_bytes;        /* bytes per chunk on each tree edge or link */
	char plan[512];            /* fx_sched.plan */
	double *link_bytes;        /* [2 ne] bytes per directed link */
	double *link_busy;         /* [2 ne] seconds each link is busy */
	/* where `time` comes from: a measured curve (collective.measured)
	 * or the model; modelled_time is the model's either way */
	int measured;
	double modelled_time;
	char time_source[200];     /* "measured: ..." or "modelled" (with why) */
} fx_coll_result;

/* Reads the spec's `collective: {overhead: T, includes_path_latency: B,
 * routing: split|hash, timing: bound|maxmin|events, sharing: fair|rtt,
 * measured: [...]}` (default 0, false, split, bound, rtt, none; with
 * includes_path_latency the overhead is the chapter's alpha, a measured
 * one-way latency that already covers the path).  tm->measured is
 * allocated here: free it with fx_coll_measured_free. */
int fx_coll_time_parse(fx_diag *d, const fx_spec *spec, fx_coll_time *tm);

/* Generates and routes the collective (with tm->policy set on the router).
 * The result owns its arrays; free them with fx_coll_result_release().
 * -1 with a diagnostic, before anything runs, for a fabric that is not
 * built, a router of another fabric, no ranks, a rank that is not a
 * device of f, a size that is negative or not finite, negative chunks. */
int fx_coll_run(const fx_fabric *f, fx_router *r, const fx_coll_req *q, const fx_coll_time *tm,
		fx_coll_result *out, fx_diag *d);
void fx_coll_result_release(fx_coll_result *res);
/* Runs several collectives at once (e.g. every TP group of an instance):
 * round k of each runs together with round k of the others, so they share
 * the links.  algbw/busbw are those of the first group. */
int fx_coll_run_groups(const fx_fabric *f, fx_router *r, const fx_coll_req *groups, size_t ngroups,
		       const fx_coll_time *tm, fx_coll_result *out, fx_diag *d);
/* Per-link arrays kept across runs, for callers that measure many small
 * collectives on one large fabric (placement: an instance of 8 devices
 * on 8,192): a run through them costs what it routes, not 2 ne. */
typedef struct fx_coll_sparse fx_coll_sparse;
fx_coll_sparse *fx_coll_sparse_new(const fx_fabric *f);
void fx_coll_sparse_free(fx_coll_sparse *sp);
/* As fx_coll_run_groups, but out->link_bytes and link_busy are NULL: the
 * links loaded and their bytes over the whole collective are read with
 * fx_coll_sparse_links, until the next run.  Lattices whose rounds are
 * summarised and timing other than bound take the dense arrays inside
 * (the same figures, at the dense cost). */
int fx_coll_run_groups_sparse(const fx_fabric *f, fx_router *r, const fx_coll_req *groups,
			      size_t ngroups, const fx_coll_time *tm, fx_coll_sparse *sp,
			      fx_coll_result *out, fx_diag *d);
size_t fx_coll_sparse_links(const fx_coll_sparse *sp, const int64_t **links, const double **bytes);
/* The chunks NCCL cuts a tree up-down of `bytes` (per tree) into, for a
 * tree `depth` edges deep: 512 KiB chunks (4 MiB buffer / 8 steps), halved
 * to keep the pipeline >= 8 x depth chunks long (down to 128 KiB), 4 x
 * (64 KiB), 1 x (32 KiB); NCCL src/enqueue.cc. */
int64_t fx_coll_tree_chunks(double bytes, int64_t depth);  /* -1: bad bytes or depth */
/* nccl-tests' bus bandwidth factor of a pattern for n ranks (NAN: no pattern). */
double fx_coll_bus_factor(const char *pattern, int64_t n);
/* The size at which algorithms a and b take equal time (bisection over
 * [lo, hi] bytes), or -1 if they do not cross there. */
double fx_coll_crossover(const fx_fabric *f, fx_router *r, const fx_coll_req *q,
			 const char *algo_a, const char *algo_b, const fx_coll_time *tm,
			 double lo, double hi, fx_diag *d);

#endif
