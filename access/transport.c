/* Transport state and connection setup (access.h; the chapter
 * "Supernodes" §6.5.5). */
#include <math.h>

#include "access.h"

void fx_transport_defaults(fx_transport *t)
{
	*t = (fx_transport){
		.endpoints = 8,
		.pair_bytes = 512,
		.seg_bytes = 32,
		.jetty_bytes = 20,
		.channel_bytes = 56,
		.lines = 1 << 20,           /* 64 MiB of 64 B lines */
		.tag_bytes = 8,
		.cache = 256 * 1024,
		.syscall = 5e-6,
		.rtt = 500e-6,
		.pair_syscalls = 4,
		.cores = 32,
	};
}

double fx_transport_pair_state(const fx_transport *t, double h)
{
	double a = t->endpoints;
	return t->pair_bytes * a * a * (h - 1) + t->seg_bytes * a;
}

double fx_transport_ub_state(const fx_transport *t, double h)
{
	return (t->jetty_bytes + t->seg_bytes) * t->endpoints + t->channel_bytes * (h - 1);
}

double fx_transport_directory_state(const fx_transport *t, double h)
{
	return t->lines * ((h - 1) / 8 + t->tag_bytes);
}

double fx_transport_hosts_in_cache(const fx_transport *t,
				   double (*state)(const fx_transport *, double))
{
	const double cap = 1099511627776.0;  /* 2^40 hosts: "unbounded" */
	if (state(t, 1) > t->cache)
		return 0;
	double lo = 1, hi = 2;  /* state(lo) fits */
	while (hi < cap && state(t, hi) <= t->cache) {
		lo = hi;
		hi *= 2;
	}
	if (hi >= cap && state(t, cap) <= t->cache)
		return cap;
	while (hi - lo > 1) {  /* state is increasing in H */
		double mid = floor((lo + hi) / 2);
		if (state(t, mid) <= t->cache)
			lo = mid;
		else
			hi = mid;
	}
	return lo;
}

double fx_transport_pair_setup(const fx_transport *t, double n, double m)
{
	return n * m * (t->pair_syscalls * t->syscall + t->rtt);
}

double fx_transport_ub_setup(const fx_transport *t, double n, double m)
{
	return n * t->syscall + m * (t->syscall + t->rtt);
}
