/*
 * access: the cost of reaching another host's resources, as the chapter
 * "Supernodes" models it (§6.5.5 Unified Bus and CloudMatrix, §6.6 Memory
 * Pooling): how much connection state a NIC keeps for H hosts under three
 * organisations, how many hosts its on-chip cache holds, how long setting
 * up all connections takes, and how fast remote memory can be read with a
 * bounded number of transactions in flight.
 *
 * Pure formulas over plain numbers: no fabric, no allocation.  Every
 * default below is the chapter's.
 */
#ifndef FX_ACCESS_H
#define FX_ACCESS_H

#include <stdint.h>

/* ---- transport state (§6.5.5) ---- */

typedef struct fx_transport {
	double endpoints;       /* A: application endpoints per host (8) */
	double pair_bytes;      /* context per per-pair connection (512 B) */
	double seg_bytes;       /* memory-segment record per endpoint (32 B) */
	double jetty_bytes;     /* UB endpoint (Jetty) record (20 B) */
	double channel_bytes;   /* UB transport channel per remote host (56 B) */
	double lines;           /* W: cache lines a coherence directory tracks (2^20) */
	double tag_bytes;       /* directory tag per line (8 B) */
	double cache;           /* NIC on-chip cache (256 KiB) */
	double syscall;         /* one system call (5 us) */
	double rtt;             /* one out-of-band round trip (500 us) */
	double pair_syscalls;   /* per connection: create + 3 transitions (4) */
	double cores;           /* setup parallelised over (32) */
} fx_transport;

/* The chapter's parameters. */
void fx_transport_defaults(fx_transport *t);
/* Bytes per NIC for H hosts: per-pair RC connections
 * S_pair(H) = pair A^2 (H-1) + seg A; UB endpoint + channel
 * S_UB(H) = (jetty + seg) A + channel (H-1); a coherence directory
 * W ((H-1)/8 + tag). */
double fx_transport_pair_state(const fx_transport *t, double hosts);
double fx_transport_ub_state(const fx_transport *t, double hosts);
double fx_transport_directory_state(const fx_transport *t, double hosts);
/* The most hosts whose state fits the cache under state(H) (0 if not even
 * one host's does); a state that grows without bound is searched by
 * doubling then bisection.  Capped at 2^40. */
double fx_transport_hosts_in_cache(const fx_transport *t,
				   double (*state)(const fx_transport *, double));
/* Setup of all connections from N local endpoints to M remote ones:
 * per-pair N M (pair_syscalls x syscall + rtt); endpoint + channel
 * N syscall + M (syscall + rtt).  Serial seconds; divide by cores for the
 * parallel figure. */
double fx_transport_pair_setup(const fx_transport *t, double n, double m);
double fx_transport_ub_setup(const fx_transport *t, double n, double m);

/* ---- memory pooling (§6.6, Eq. 6-12) ---- */

typedef struct fx_pool_read {
	double window;          /* u q / L, bytes/s */
	double usable;          /* min(path, window) */
	double inflight_to_fill;/* ceil(path L / q): transactions to fill the path */
	double read_time;       /* seconds to read `bytes` at `usable` */
	double demand;          /* bytes / period, bytes/s (0 without a period) */
	double idle;            /* period - read_time (negative: a backlog grows) */
	int backlog;            /* reads arrive faster than they complete */
} fx_pool_read;

/* Remote reads of q-byte transactions with latency L, at most u in
 * flight, over a path of `path` bytes/s; `bytes` read every `period`
 * seconds (0: once). */
void fx_pool_read_model(double path, double latency, double q, double u, double bytes,
			double period, fx_pool_read *out);

/* Borrowing (§6.6.1): task i needs need[i] bytes on node i of `capacity`
 * bytes.  Each task's excess over its node is lent by other nodes' idle
 * memory, best fit first (lender, borrower, bytes): 100/60/40/40 GB on
 * 80 GB nodes borrow 20 GB from node 1, leaving 80/80/40/40 (§6.6.1).  Returns the
 * number of loans written to out (at most cap), or -1 when the total
 * excess is more than the idle memory. */
typedef struct fx_loan {
	int64_t lender, borrower;
	double bytes;
} fx_loan;
int64_t fx_pool_borrow(const double *need, int64_t n, double capacity, fx_loan *out,
		       int64_t cap);

#endif
