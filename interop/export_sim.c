/*
 * The simulators' formats: ns-3 and SimAI edge lists, BookSim2's anynet,
 * ASTRA-sim's analytical YAML.  Each says what it loses (interop.md has
 * every format's rules): these formats carry no failed elements (they are
 * left out), sum parallel links, and route by their own rules.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../core/xalloc.h"
#include "export_internal.h"

/* "400Gbps", "200ns": the edge lists' units (bits per second, time). */
static void rate(FILE *out, double bytes_per_s)
{
	char r[48];
	fprintf(out, "%sGbps", fx_export_conv(bytes_per_s * 8 / 1e9, r));
}

static void delay(FILE *out, double s)
{
	char r[48];
	fprintf(out, "%sns", fx_export_conv(s * 1e9, r));
}

/*
 * ns-3 (ASTRA-sim's backend): "nodes switches links", the switch ids, then
 * "src dst rate delay error_rate".  Only switches forward in ns-3, so a
 * vertex that relays in fabricx (a torus chip, a DGX-1 GPU) gets a router
 * of its own after the other ids, joined to it by a link of its whole
 * bandwidth and no latency; its fabric links start at the router.
 */
int fx_export_ns3(const fx_design *ds, FILE *out, fx_export_info *info, fx_diag *d)
{
	(void)d;
	const fx_fabric *f = &ds->fab;
	int64_t *map = fx_xmalloc((size_t)f->nv * sizeof *map);
	int64_t next = f->nv, relays = 0;
	for (int64_t v = 0; v < f->nv; v++) {
		map[v] = v;
		if (fx_fabric_vertex_up(f, v) && f->v[v].type != FX_V_SWITCH && fx_fabric_relays(f, v)) {
			map[v] = next++;
			relays++;
		}
	}
	/* the fabric's links between the routers (and switches) */
	fx_export_pair *p;
	int64_t summed;
	size_t np = fx_export_pairs(f, map, &p, &summed);
	int64_t nsw = 0;
	for (int64_t v = 0; v < f->nv; v++)
		nsw += f->v[v].type == FX_V_SWITCH;
	fprintf(out, "%lld %lld %lld\n", (long long)next, (long long)(nsw + relays),
		(long long)(np + (size_t)relays));
	int first = 1;
	for (int64_t v = 0; v < f->nv; v++)
		if (f->v[v].type == FX_V_SWITCH) {
			fprintf(out, "%s%lld", first ? "" : " ", (long long)v);
			first = 0;
		}
	for (int64_t r = f->nv; r < next; r++) {
		fprintf(out, "%s%lld", first ? "" : " ", (long long)r);
		first = 0;
	}
	fputc('\n', out);
	for (int64_t v = 0; v < f->nv; v++) {
		if (map[v] == v)
			continue;
		double bw = 0;
		igraph_vector_int_t inc;
		fx_igraph_alloc(igraph_vector_int_init(&inc, 0));
		fx_igraph_alloc(igraph_incident(&f->g, &inc, (igraph_integer_t)v, IGRAPH_ALL));
		for (igraph_integer_t i = 0; i < igraph_vector_int_size(&inc); i++) {
			int64_t e = VECTOR(inc)[i];
			if (fx_fabric_edge_up(f, e))
				bw += f->e[e].bw * f->e[e].count;
		}
		igraph_vector_int_destroy(&inc);
		fprintf(out, "%lld %lld ", (long long)v, (long long)map[v]);
		rate(out, bw);
		fputs(" 0ns 0\n", out);
	}
	for (size_t i = 0; i < np; i++) {
		fprintf(out, "%lld %lld ", (long long)p[i].a, (long long)p[i].b);
		rate(out, p[i].bw);
		fputc(' ', out);
		delay(out, p[i].lat);
		fputs(" 0\n", out);
	}
	info->vertices = next;
	info->edges = (int64_t)np + relays;
	if (relays)
		fx_export_lost(info, "ns-3 hosts do not forward: each of the %lld relaying vertices got a "
			       "router (ids %lld-%lld), joined by a link of its whole bandwidth and no latency",
			       (long long)relays, (long long)f->nv, (long long)(next - 1));
	if (summed)
		fx_export_lost(info, "%lld pairs of parallel links are summed into one link each "
			       "(bandwidth added, the slowest latency kept)", (long long)summed);
	fx_export_failed_left_out(f, info);
	fx_export_lost(info, "routing: ns-3 routes by its own rule (ECMP by hashing in ASTRA-sim's "
		       "setup), not fabricx's");
	free(p);
	free(map);
	return 0;
}

/*
 * SimAI: "node_num gpus_per_server nvswitch_num switch_num link_num
 * gpu_type", then the NVSwitch ids and the other switch ids, then the
 * links.  GPUs are 0..G-1 and GPU i's NVSwitch is G + i / gpus_per_server:
 * one NVSwitch node per server, so the switch chips inside a packaging
 * node (its NVSwitch or L1 chips) merge into that node, and every other
 * switch follows.  SimAI crashes without an NVSwitch (nvswitch_num 0:
 * SimAI #19, #138), so a fabric with none is refused, as one whose
 * devices relay (SimAI's hosts do not forward).
 */
int fx_export_simai(const fx_design *ds, FILE *out, fx_export_info *info, fx_diag *d)
{
	const fx_fabric *f = &ds->fab;
	if (f->devices_forward)
		return fx_diag_error(d, NULL, "simai: the devices of '%s' relay traffic, which SimAI's GPUs "
				     "cannot (only its switches forward); export ns3, which adds a "
				     "router per device", f->name);
	int64_t servers = f->nnodes, g = f->ndev;
	if (servers < 1 || g % servers)
		return fx_diag_error(d, NULL, "simai: SimAI numbers GPUs server by server with as many in "
				     "each; '%s' has %lld devices in %lld packaging nodes",
				     f->name, (long long)g, (long long)servers);
	int64_t gps = g / servers;
	for (int64_t v = 0; v < g; v++)
		if (f->v[v].node != v / gps)
			return fx_diag_error(d, NULL, "simai: device %lld is not in server %lld "
					     "(SimAI's GPU i is in server i / %lld)",
					     (long long)v, (long long)(v / gps), (long long)gps);
	int64_t *map = fx_xmalloc((size_t)f->nv * sizeof *map);
	int64_t in_node = 0, cpus = 0, other = 0;
	uint8_t *has_nvs = fx_xcalloc((size_t)servers, 1);
	for (int64_t v = 0; v < f->nv; v++) {
		const fx_vertex *x = &f->v[v];
		map[v] = -1;
		if (!fx_fabric_vertex_up(f, v))
			continue;
		if (x->type == FX_V_DEVICE) {
			map[v] = v;
		} else if (x->type == FX_V_SWITCH && x->node >= 0 && x->node < servers) {
			map[v] = g + x->node;
			has_nvs[x->node] = 1;
			in_node++;
		} else if (x->type == FX_V_CPU) {
			cpus++;
		}
	}
	for (int64_t s = 0; s < servers; s++)
		if (!has_nvs[s]) {
			free(has_nvs);
			free(map);
			return fx_diag_error(d, NULL, "simai: server %lld of '%s' has no switch chip inside it; "
					     "SimAI needs an NVSwitch per server (nvswitch_num 0 crashes it, "
					     "SimAI #19 and #138): export ns3 instead", (long long)s, f->name);
		}
	free(has_nvs);
	int64_t next = g + servers;
	for (int64_t v = 0; v < f->nv; v++)
		if (fx_fabric_vertex_up(f, v) && f->v[v].type == FX_V_SWITCH && map[v] < 0) {
			map[v] = next++;
			other++;
		}
	fx_export_pair *p;
	int64_t summed;
	size_t np = fx_export_pairs(f, map, &p, &summed);
	fprintf(out, "%lld %lld %lld %lld %lld H100\n", (long long)next, (long long)gps,
		(long long)servers, (long long)other, (long long)np);
	for (int64_t i = g; i < next; i++)
		fprintf(out, "%s%lld", i == g ? "" : " ", (long long)i);
	fputc('\n', out);
	/* the rates the links use, for SimAI's ECN maps */
	double rates[16];
	int nrates = 0, more = 0;
	for (size_t i = 0; i < np; i++) {
		fprintf(out, "%lld %lld ", (long long)p[i].a, (long long)p[i].b);
		rate(out, p[i].bw);
		fputc(' ', out);
		delay(out, p[i].lat);
		fputs(" 0\n", out);
		int seen = 0;
		for (int k = 0; k < nrates; k++)
			seen |= rates[k] == p[i].bw;
		if (!seen && nrates < 16)
			rates[nrates++] = p[i].bw;
		else if (!seen)
			more = 1;
	}
	info->vertices = next;
	info->edges = (int64_t)np;
	fx_export_lost(info, "gpu_type: the spec names no GPU model; written as H100 (one of SimAI's "
		       "A100, A800, H100, H800)");
	if (in_node > servers)
		fx_export_lost(info, "the %lld switch chips inside the %lld servers are merged into one "
			       "NVSwitch node per server (links to them summed; links between chips of "
			       "one server dropped)", (long long)in_node, (long long)servers);
	if (summed)
		fx_export_lost(info, "%lld pairs of parallel links are summed into one link each "
			       "(SimAI collapses them)", (long long)summed);
	if (cpus)
		fx_export_lost(info, "%lld CPUs and their links are left out (SimAI has GPUs and "
			       "switches only)", (long long)cpus);
	char list[16 * 24] = "";
	for (int k = 0; k < nrates; k++) {
		char r[48];
		size_t l = strlen(list);
		snprintf(list + l, sizeof list - l, "%s%sGbps", k ? ", " : "",
			 fx_export_conv(rates[k] * 8 / 1e9, r));
	}
	fx_export_lost(info, "SimAI's run config needs an ECN map entry (KMAX, KMIN, PMAX) for each "
		       "link rate: %s%s", list, more ? " and more" : "");
	fx_export_failed_left_out(f, info);
	free(p);
	free(map);
	return 0;
}

/*
 * BookSim2 anynet: "router R node N ... router R2 [cycles] ..." per router.
 * Each node (a device; ids 0..D-1) joins exactly one router: its switch
 * when it has one link and forwards nothing (a fat-tree host), else a
 * router of its own (a multi-homed GPU, a torus chip), numbered after the
 * switches.  Channels carry no bandwidth (one flit per cycle); latency is
 * given in cycles of an assumed 1 GHz clock.
 */
int fx_export_booksim(const fx_design *ds, FILE *out, fx_export_info *info, fx_diag *d)
{
	(void)d;
	const fx_fabric *f = &ds->fab;
	int64_t *map = fx_xmalloc((size_t)f->nv * sizeof *map);
	int64_t *home = fx_xmalloc((size_t)f->ndev * sizeof *home);
	int64_t nr = 0, own = 0, cpus = 0;
	for (int64_t v = 0; v < f->nv; v++)
		map[v] = -1;
	for (int64_t v = 0; v < f->nv; v++)
		if (fx_fabric_vertex_up(f, v) && f->v[v].type == FX_V_SWITCH)
			map[v] = nr++;
	igraph_vector_int_t inc;
	fx_igraph_alloc(igraph_vector_int_init(&inc, 0));
	for (int64_t v = 0; v < f->ndev; v++) {
		home[v] = -1;
		if (!fx_fabric_vertex_up(f, v))
			continue;
		fx_igraph_alloc(igraph_incident(&f->g, &inc, (igraph_integer_t)v, IGRAPH_ALL));
		int64_t up = 0, last = -1;
		for (igraph_integer_t i = 0; i < igraph_vector_int_size(&inc); i++) {
			int64_t e = VECTOR(inc)[i];
			if (fx_fabric_edge_up(f, e) && fx_fabric_vertex_up(f, fx_fabric_other(f, e, v))) {
				up++;
				last = fx_fabric_other(f, e, v);
			}
		}
		if (!fx_fabric_relays(f, v) && up == 1 && f->v[last].type == FX_V_SWITCH) {
			home[v] = map[last];
		} else {
			home[v] = map[v] = nr++;
			own++;
		}
	}
	for (int64_t v = f->ndev; v < f->nv; v++)
		if (f->v[v].type == FX_V_CPU && fx_fabric_vertex_up(f, v)) {
			if (fx_fabric_relays(f, v))
				map[v] = nr++;
			else
				cpus++;
		}
	igraph_vector_int_destroy(&inc);
	fx_export_pair *p;
	int64_t summed;
	size_t np = fx_export_pairs(f, map, &p, &summed);
	/* one line per router: its nodes, then every router it joins, with
	 * the channel's latency; anynet reads a latency for one direction
	 * only (the way back is one cycle unless its own line says), so each
	 * channel is written in both routers' lines */
	int64_t *first = fx_xcalloc((size_t)nr + 1, sizeof *first);
	for (size_t i = 0; i < np; i++) {
		first[p[i].a + 1]++;
		first[p[i].b + 1]++;
	}
	for (int64_t r = 0; r < nr; r++)
		first[r + 1] += first[r];
	int64_t *adj = fx_xmalloc((size_t)(2 * np + 1) * sizeof *adj), *fill = fx_xmalloc((size_t)(nr + 1) * sizeof *fill);
	memcpy(fill, first, (size_t)(nr + 1) * sizeof *fill);
	for (size_t i = 0; i < np; i++) {
		adj[fill[p[i].a]++] = (int64_t)i;
		adj[fill[p[i].b]++] = (int64_t)i;
	}
	int64_t *nodes_first = fx_xcalloc((size_t)nr + 1, sizeof *nodes_first);
	for (int64_t v = 0; v < f->ndev; v++)
		if (home[v] >= 0)
			nodes_first[home[v] + 1]++;
	for (int64_t r = 0; r < nr; r++)
		nodes_first[r + 1] += nodes_first[r];
	int64_t *nodes = fx_xmalloc((size_t)(f->ndev + 1) * sizeof *nodes);
	memcpy(fill, nodes_first, (size_t)(nr + 1) * sizeof *fill);
	for (int64_t v = 0; v < f->ndev; v++)
		if (home[v] >= 0)
			nodes[fill[home[v]]++] = v;
	for (int64_t r = 0; r < nr; r++) {
		fprintf(out, "router %lld", (long long)r);
		for (int64_t k = nodes_first[r]; k < nodes_first[r + 1]; k++)
			fprintf(out, " node %lld", (long long)nodes[k]);
		for (int64_t k = first[r]; k < first[r + 1]; k++) {
			const fx_export_pair *q = &p[adj[k]];
			long long cyc = llround(q->lat * 1e9);
			fprintf(out, " router %lld %lld", (long long)(q->a == r ? q->b : q->a), cyc > 0 ? cyc : 1);
		}
		fputc('\n', out);
	}
	free(nodes);
	free(nodes_first);
	free(fill);
	free(adj);
	free(first);
	info->vertices = nr;
	info->edges = (int64_t)np;
	fx_export_lost(info, "bandwidth: BookSim channels carry one flit per cycle; link bandwidths "
		       "are not written");
	fx_export_lost(info, "latency is written in cycles of an assumed 1 GHz clock (1 cycle = 1 ns, "
		       "at least 1)");
	if (own)
		fx_export_lost(info, "%lld devices are multi-homed or relay, so each got a router of its "
			       "own (BookSim nodes join exactly one router)", (long long)own);
	if (summed)
		fx_export_lost(info, "%lld pairs of parallel links are one channel each", (long long)summed);
	if (cpus)
		fx_export_lost(info, "%lld CPUs are left out (BookSim's nodes are the devices)",
			       (long long)cpus);
	fx_export_failed_left_out(f, info);
	free(p);
	free(home);
	free(map);
	return 0;
}

/* ---- ASTRA-sim's analytical network ---- */

typedef struct astra_dim {
	const char *topo;   /* Ring, Switch, FullyConnected */
	int64_t npus;
	double bw, lat;     /* per NPU per direction (bytes/s), per hop (s) */
} astra_dim;

/* Bandwidth out of each packaging node, per device of the node, and the
 * latency of the slowest link that leaves it. */
static void node_uplinks(const fx_fabric *f, double *per_dev, double *lat)
{
	double out = 0, l = 0;
	for (int64_t e = 0; e < f->ne; e++) {
		int64_t a = f->ends[2 * e], b = f->ends[2 * e + 1];
		if (!fx_fabric_edge_up(f, e) || f->v[a].node == f->v[b].node)
			continue;
		if (f->v[a].node >= 0 && f->v[b].node >= 0)
			out += 2 * f->e[e].bw * f->e[e].count;   /* it leaves both nodes */
		else
			out += f->e[e].bw * f->e[e].count;
		if (f->e[e].lat > l)
			l = f->e[e].lat;
	}
	*per_dev = f->ndev ? out / (double)f->ndev : 0;
	*lat = l;
}

/* A device's bandwidth to the fabric (its live links but those to CPUs,
 * which ASTRA-sim does not model) and their slowest latency. */
static void device_links(const fx_fabric *f, int64_t v, double *bw, double *lat)
{
	igraph_vector_int_t inc;
	fx_igraph_alloc(igraph_vector_int_init(&inc, 0));
	fx_igraph_alloc(igraph_incident(&f->g, &inc, (igraph_integer_t)v, IGRAPH_ALL));
	*bw = *lat = 0;
	for (igraph_integer_t i = 0; i < igraph_vector_int_size(&inc); i++) {
		int64_t e = VECTOR(inc)[i];
		if (!fx_fabric_edge_up(f, e) || f->v[fx_fabric_other(f, e, v)].type == FX_V_CPU)
			continue;
		*bw += f->e[e].bw * f->e[e].count;
		if (f->e[e].lat > *lat)
			*lat = f->e[e].lat;
	}
	igraph_vector_int_destroy(&inc);
}

int fx_export_astra(const fx_design *ds, FILE *out, fx_export_info *info, fx_diag *d)
{
	const fx_fabric *f = &ds->fab;
	astra_dim dim[FX_MAX_DIMS];
	int nd = 0;
	if (fx_fabric_is(f, FX_KIND_LATTICE)) {
		for (int i = 0; i < f->ndims; i++) {
			if (f->dims[i] < 2)
				continue;
			/* the +1 link of device 0 in dimension i stands for the lattice's */
			int64_t e = f->plus_edge[i];
			double bw = e >= 0 ? f->e[e].bw * f->e[e].count : 0;
			dim[nd++] = (astra_dim){"Ring", f->dims[i], bw, e >= 0 ? f->e[e].lat : 0};
			if (!f->wrap[i])
				fx_export_lost(info, "dimension %d (%d devices) has no wrap-around link; ASTRA-sim's "
					       "Ring adds one", i, f->dims[i]);
		}
		if (nd == 0)
			dim[nd++] = (astra_dim){"Ring", 2, 0, 0};
	} else if (f->devices_forward) {
		return fx_diag_error(d, NULL, "astra-sim: '%s' is an irregular direct graph (its devices relay); "
				     "ASTRA-sim's analytical form has only Ring, Switch and FullyConnected "
				     "dimensions: export ns3 for its ns-3 backend", f->name);
	} else {
		double bw0, lat0;
		device_links(f, 0, &bw0, &lat0);
		int64_t per = f->nnodes > 1 && f->ndev % f->nnodes == 0 ? f->ndev / f->nnodes : f->ndev;
		double up = 0, uplat = 0;
		if (per < f->ndev)
			node_uplinks(f, &up, &uplat);
		int node_switches = 0;  /* a scale-up domain per node: chips inside it */
		for (int64_t v = f->ndev; v < f->nv; v++)
			node_switches |= f->v[v].type == FX_V_SWITCH && f->v[v].node >= 0;
		if (per < f->ndev && node_switches && up > 0) {
			/* a scale-up domain per node, and the network between them */
			dim[nd++] = (astra_dim){"Switch", per, bw0, lat0};
			dim[nd++] = (astra_dim){"Switch", f->ndev / per, up, uplat};
		} else {
			dim[nd++] = (astra_dim){"Switch", f->ndev, bw0, lat0};
		}
		if (f->nroles > 1)
			fx_export_lost(info, "the %d switch tiers become %d Switch dimension(s): tiers, "
				       "taper and the chips themselves are not modelled", f->nroles, nd);
		if (nd == 2)
			fx_export_lost(info, "the second dimension's bandwidth is the per-device share of what "
				       "leaves a node, the first the device's own links");
	}
	fputs("topology: [ ", out);
	for (int i = 0; i < nd; i++)
		fprintf(out, "%s%s", i ? ", " : "", dim[i].topo);
	fputs(" ]\nnpus_count: [ ", out);
	for (int i = 0; i < nd; i++)
		fprintf(out, "%s%lld", i ? ", " : "", (long long)dim[i].npus);
	char r[48];
	fputs(" ]\nbandwidth: [ ", out);   /* GB/s per link per direction */
	for (int i = 0; i < nd; i++)
		fprintf(out, "%s%s", i ? ", " : "", fx_export_conv(dim[i].bw / 1e9, r));
	fputs(" ]\nlatency: [ ", out);     /* ns */
	for (int i = 0; i < nd; i++)
		fprintf(out, "%s%s", i ? ", " : "", fx_export_conv(dim[i].lat * 1e9, r));
	fputs(" ]\n", out);
	info->vertices = f->ndev;
	info->edges = 0;
	if (f->ncpu)
		fx_export_lost(info, "%lld CPUs are left out (ASTRA-sim models NPUs)", (long long)f->ncpu);
	fx_export_failed_left_out(f, info);
	return 0;
}
