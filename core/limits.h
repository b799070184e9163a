/*
 * limits: the defaults and ceilings that bound a run, in one place.
 *
 * Every search fabricx runs is bounded (a solve by time or nodes, a fabric
 * and what is built on it by memory, ECMP routing by work), so no input
 * makes it run away.  The values below are those bounds unless the user
 * sets them (--time-limit, --node-limit, --max-memory); the help texts
 * print them from here, so they cannot drift.
 */
#ifndef FX_LIMITS_H
#define FX_LIMITS_H

/* Seconds the placement solver (GLPK) may search by default. */
#define FX_DEFAULT_TIME_LIMIT 10
/* The most --time-limit may give, seconds (a day): no solve runs unbounded. */
#define FX_MAX_TIME_LIMIT 86400
/* Branch-and-bound nodes the placement solver may search by default (0:
 * bounded by time alone). */
#define FX_DEFAULT_NODE_LIMIT 0

/* The default memory limit (--max-memory) is this share of the machine's
 * physical RAM, or FX_DEFAULT_MEMORY_FALLBACK bytes when RAM cannot be
 * read (fx_fabric_default_limit). */
#define FX_DEFAULT_MEMORY_SHARE 0.5
#define FX_DEFAULT_MEMORY_FALLBACK (8.0 * 1024 * 1024 * 1024)

/* Placement MILPs with more columns than this are not built: the packing
 * stands with its bound (placement/place.c). */
#define FX_MAX_MILP_COLUMNS 200000

/* Per-destination ECMP tables are cached up to this many bytes
 * (routing/route.c); past it the cache is dropped and rebuilt. */
#define FX_ECMP_CACHE_BYTES (512.0 * 1024 * 1024)
/* Steps a collective may cost on an explicit graph before it is refused:
 * searches as the grouped push makes them, each a probe search's steps
 * (vertices reached, incidences expanded) and its push as much again
 * (routing/collective.c route_work).  FX_ROUTE_STEPS_PER_S is the rate
 * measured on the development machine (docs/performance.md), so the
 * limit is about 10 s. */
#define FX_ROUTE_STEPS_PER_S 1e8
#define FX_MAX_ROUTE_WORK (10 * FX_ROUTE_STEPS_PER_S)
/* Steps a collective's listed flows may take where split ECMP routes
 * them from the distance table (routing/dist_table.c: per layer of 64
 * targets' searches 2 V plus the incidences expanded; per push, the
 * incidences of every vertex pushed from), counted as they are routed
 * (routing/collective.c run_sched). */
#define FX_MAX_TABLE_WORK 1e9
/* Flows a collective's rounds may list in all (each round once): rounds
 * listed on demand (fx_sched_shift: a pairwise all-to-all) hold one round
 * at a time, so the memory limit no longer bounds them.  5e8 is what the
 * default memory limit let a 24 GB machine hold listed (24 bytes a flow),
 * so nothing refused before runs now: about 2 minutes at the 4.5e6 flows
 * a second measured for a pairwise all-to-all on a 16^3 torus. */
#define FX_MAX_SCHED_FLOWS 5e8
/* The same for the hash policy's flows on any ECMP fabric: a search and a
 * merged push per destination (routing/route.c hash_push), measured at
 * about 1.3e8 vertex and edge visits a second (a k=32 fat-tree's
 * all-to-all: 2.8e8 in 2.2 s), so about 15 s. */
#define FX_HASH_STEPS_PER_S 1.3e8
#define FX_MAX_HASH_WORK 2e9
/* The flows a flow-level timing mode (collective.timing maxmin, events:
 * routing/timing.c) holds at once: a round's for maxmin, every round's
 * repetitions for events (about 90 bytes each: 2e6 is 180 MB; a ring
 * allreduce over 4,096 ranks is 3.4e7 and is left not decided, exit 4). */
#define FX_MAX_TIMING_FLOWS 2e6

/* Vertex and bundle visits `failures` may spend evaluating one element of
 * each class proven alike (fabric/orbit.c): a pass over the fabric each,
 * counted 10 where a max-flow runs (switches free).  Measured at about 4e7
 * a second (a 100x100 mesh's 5,000 classes of links, 1.5e8, in 3.5 s; a
 * max-flow on CloudMatrix384, about 10 times slower a visit), so some
 * 12 s; the WSE-2's 376,986 classes of links would need 8.5e11. */
#define FX_MAX_FAILURE_WORK 5e8

/* A limit as text, for help strings: FX_LIMIT_TEXT(FX_DEFAULT_TIME_LIMIT). */
#define FX_LIMIT_TEXT_(x) #x
#define FX_LIMIT_TEXT(x) FX_LIMIT_TEXT_(x)

#endif
