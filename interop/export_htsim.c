/*
 * htsim's fat-tree .topo (Broadcom/csg-htsim sim/datacenter/
 * fat_tree_topology.cpp, FatTreeTopology::load): `Nodes N`, `Tiers 2|3`,
 * `Podsize P`, then per tier (0 = ToR) the links going down from it:
 * `Downlink_speed_Gbps` (a whole number), `Radix_Down`, `Radix_Up` (not
 * the top tier), `Oversubscribed`, `Bundle` (parallel links to each switch
 * below), `Downlink_Latency_ns`, `Switch_Latency_ns`.  htsim derives the
 * switch counts from these (its set_custom_params), so only a fabricx
 * fat-tree whose shape those rules rebuild is written; anything else is
 * refused with the rule it breaks.
 */
#include <math.h>
#include <string.h>

#include "export_internal.h"

typedef struct tier_link {
	double bw, lat;
	int found, uneven;
} tier_link;

/* The links of each tier (fx_link.tier), and whether a tier mixes kinds. */
static void tier_links(const fx_fabric *f, tier_link *t, int n)
{
	memset(t, 0, (size_t)n * sizeof *t);
	for (int64_t e = 0; e < f->ne; e++) {
		int k = f->e[e].tier;
		if (k < 0 || k >= n)
			continue;
		if (!t[k].found) {
			t[k] = (tier_link){f->e[e].bw, f->e[e].lat, 1, 0};
		} else if (t[k].bw != f->e[e].bw || t[k].lat != f->e[e].lat) {
			t[k].uneven = 1;
		}
	}
}

/* bytes/s as htsim's whole Gbit/s, or -1 when it is not whole. */
static long long gbps(double bw)
{
	double g = bw * 8 / 1e9;
	double r = floor(g + 0.5);
	return r >= 1 && fabs(g - r) <= 1e-9 * r ? (long long)r : -1;
}

static long long ns(double s)
{
	double v = floor(s * 1e9 + 0.5);
	return v >= 1 ? (long long)v : 1;
}

int fx_export_htsim(const fx_design *ds, FILE *out, fx_export_info *info, fx_diag *d)
{
	const fx_fabric *f = &ds->fab;
	const char *kind = f->builder ? f->builder->kind : "?";
	if (strcmp(kind, "fat-tree") != 0)
		return fx_diag_error(d, NULL, "export htsim: htsim's .topo describes two- and three-tier "
				     "fat-trees only, and this is a %s fabric (use --to simgrid or "
				     "--to ns3)", kind);
	const fx_fattree_state *s = &f->state.fattree;
	int tiers = (int)s->tiers;
	tier_link t[3];
	tier_links(f, t, 3);
	long long speed[3], lat[3];
	for (int k = 0; k < tiers; k++) {
		if (!t[k].found)
			return fx_diag_error(d, NULL, "export htsim: link tier %d has no links", k);
		if (t[k].uneven)
			return fx_diag_error(d, NULL, "export htsim: link tier %d mixes bandwidths or "
					     "latencies; htsim gives one per tier", k);
		speed[k] = gbps(t[k].bw);
		if (speed[k] < 0)
			return fx_diag_error(d, NULL, "export htsim: link tier %d runs at %.6g Gbit/s; "
					     "htsim's Downlink_speed_Gbps is a whole number", k,
					     t[k].bw * 8 / 1e9);
		lat[k] = ns(t[k].lat);
		if (fabs(t[k].lat * 1e9 - (double)lat[k]) > 1e-6)
			fx_export_lost(info, "link tier %d's latency %.6g ns written as %lld ns (htsim "
				       "takes whole nanoseconds, at least 1)", k, t[k].lat * 1e9, lat[k]);
	}
	/* htsim: the ToR's oversubscription is radix_down / radix_up (whole)
	 * and its uplinks carry N x speed0 / (speed1 x oversub) links, which
	 * holds only with equal speeds below and above the ToR (and the
	 * aggregation switch, with three tiers) */
	for (int k = 0; k + 1 < tiers; k++)
		if (speed[k] != speed[k + 1])
			return fx_diag_error(d, NULL, "export htsim: link tiers %d and %d run at %lld and "
					     "%lld Gbit/s; htsim counts a switch's uplinks from the "
					     "speed ratio and its radix ratio together, which agree "
					     "only at equal speeds", k, k + 1, speed[k], speed[k + 1]);
	int64_t n = f->ndev, d1 = s->d1, u1 = s->u1, leaves = n / d1;
	if (d1 % u1 != 0)
		return fx_diag_error(d, NULL, "export htsim: leaves of %lld hosts and %lld uplinks; "
				     "htsim's Oversubscribed is Radix_Down / Radix_Up, a whole number",
				     (long long)d1, (long long)u1);
	int64_t pods = 1, podsize = n, d2 = 0, u2 = 0, bundle = 1;
	if (tiers == 2) {
		bundle = u1 / s->spines;
	} else {
		d2 = s->d2;
		u2 = s->u2;
		pods = leaves / d2;
		podsize = d2 * d1;
		if (d2 % u2 != 0)
			return fx_diag_error(d, NULL, "export htsim: aggregation switches of %lld down and "
					     "%lld up ports; htsim's Oversubscribed is their ratio, "
					     "a whole number", (long long)d2, (long long)u2);
	}
	fx_export_failed_left_out(f, info);
	if (fx_fabric_degraded(f))
		fx_export_lost(info, "htsim builds the whole tree from the counts: the failed "
			       "elements are not in the file at all");
	fx_export_lost(info, "per-round overhead (collective.overhead) and the routing policy "
		       "(htsim chooses its own paths); Switch_Latency_ns written as 0: fabricx's "
		       "latency is the link's");
	fprintf(out, "# fabricx export of %s: a %d-tier fat-tree of %lld hosts (%lld leaves",
		ds->name, tiers, (long long)n, (long long)leaves);
	if (tiers == 2)
		fprintf(out, ", %lld spines, %lld links from each leaf to each)\n", (long long)s->spines,
			(long long)bundle);
	else
		fprintf(out, ", %lld pods of %lld, %lld aggregation and %lld core switches)\n",
			(long long)pods, (long long)d2, (long long)(pods * u1), (long long)(u1 * u2));
	fprintf(out, "Nodes %lld\nTiers %d\nPodsize %lld\n\n", (long long)n, tiers, (long long)podsize);
	fprintf(out, "Tier 0\nDownlink_speed_Gbps %lld\nRadix_Down %lld\nRadix_Up %lld\n"
		     "Oversubscribed %lld\nDownlink_Latency_ns %lld\nSwitch_Latency_ns 0\n\n",
		speed[0], (long long)d1, (long long)u1, (long long)(d1 / u1), lat[0]);
	if (tiers == 2) {
		fprintf(out, "Tier 1\nDownlink_speed_Gbps %lld\nRadix_Down %lld\nBundle %lld\n"
			     "Downlink_Latency_ns %lld\nSwitch_Latency_ns 0\n",
			speed[1], (long long)(leaves * bundle), (long long)bundle, lat[1]);
	} else {
		fprintf(out, "Tier 1\nDownlink_speed_Gbps %lld\nRadix_Down %lld\nRadix_Up %lld\n"
			     "Oversubscribed %lld\nBundle 1\nDownlink_Latency_ns %lld\n"
			     "Switch_Latency_ns 0\n\n",
			speed[1], (long long)d2, (long long)u2, (long long)(d2 / u2), lat[1]);
		fprintf(out, "Tier 2\nDownlink_speed_Gbps %lld\nRadix_Down %lld\nBundle 1\n"
			     "Downlink_Latency_ns %lld\nSwitch_Latency_ns 0\n",
			speed[2], (long long)pods, lat[2]);
	}
	info->vertices = f->nv;
	info->edges = f->ne;
	return 0;
}
