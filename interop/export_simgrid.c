/*
 * SimGrid platform XML (v4.1): every device a host h<device id>, every
 * bundle a SPLITDUPLEX link, and between every ordered pair of devices an
 * explicit route -- the path fabricx's router gives that pair's flow, so
 * SimGrid routes exactly as fabricx does (../shared/reference/interop.md:
 * SimGrid's own cluster zones route their own way; a Full zone with
 * explicit routes routes ours).
 *
 * A SimGrid route is one path.  fabricx's pinned policies (hash, dmodk,
 * smodk, and dimension order off even-ring ties) give one path per pair,
 * so those are written as they are; a policy that splits a flow over
 * several paths (split ECMP, the default) cannot be written, and the
 * routes are the hash policy's instead, said in the lost-list (run fabricx
 * with `--routing hash` to compare).  A bundle of several cables is one
 * link of their summed bandwidth, which is how fabricx's hash policy loads
 * it (bundles fluid); dmodk and smodk pick one cable, which SimGrid would
 * need a link per cable for.
 *
 * A SimGrid link has no ends; routes say where links meet.  So that the
 * file says where every link is (and `fabricx import --from simgrid`
 * reads the same graph back), each switch chip is a <router> s<vertex id>
 * and each link with a router at an end has a one-link route between its
 * two ends (SimGrid's own rule for ns-3 platforms); hosts never send to
 * routers, so these routes change no time.  Two bundles between the same
 * two vertices share a route's src and dst, which SimGrid allows once:
 * the second is said lost.
 */
#include <stdlib.h>
#include <string.h>

#include "../core/xalloc.h"
#include "export_internal.h"

/* Routes past which the file is refused: N (N - 1) of them. */
#define SIMGRID_MAX_ROUTES (1024.0 * 1023.0)

static int64_t tail_of(const fx_fabric *f, int64_t l)
{
	int64_t e = l / 2;
	return (int64_t)f->ends[l % 2 ? 2 * e + 1 : 2 * e];
}

static int64_t head_of(const fx_fabric *f, int64_t l)
{
	int64_t e = l / 2;
	return (int64_t)f->ends[l % 2 ? 2 * e : 2 * e + 1];
}

/* The path of one flow s -> t into path[] (directed links in order);
 * its length, or -1 when the router split it (a policy that is not
 * pinned) or found none. */
static int64_t one_path(const fx_fabric *f, fx_router *r, int64_t s, int64_t t, double *load,
			int64_t *path, int64_t room, fx_diag *d)
{
	fx_flow fl = {s, t, 1.0};
	fx_path_stats st;
	if (fx_router_add(r, &fl, 1, load, &st, d))
		return -1;
	const int64_t *used;
	size_t nu = fx_router_used(r, &used);
	int whole = 1;
	for (size_t u = 0; u < nu; u++)
		whole &= load[used[u]] > 1 - 1e-9 && load[used[u]] < 1 + 1e-9;
	int64_t n = 0, at = s;
	while (whole && at != t && n < room && n < (int64_t)nu) {
		int64_t next = -1;
		for (size_t u = 0; u < nu && next < 0; u++)
			if (tail_of(f, used[u]) == at)
				next = used[u];
		if (next < 0)
			break;
		path[n++] = next;
		at = head_of(f, next);
	}
	for (size_t u = 0; u < nu; u++)
		load[used[u]] = 0;
	return whole && at == t && n == (int64_t)nu ? n : -1;
}

typedef struct pair_e { int64_t a, b, e; } pair_e;
static int pair_cmp(const void *x, const void *y)
{
	const pair_e *p = x, *q = y;
	if (p->a != q->a)
		return p->a < q->a ? -1 : 1;
	if (p->b != q->b)
		return p->b < q->b ? -1 : 1;
	return p->e < q->e ? -1 : p->e > q->e;
}

int fx_export_simgrid(const fx_design *ds, FILE *out, fx_export_info *info, fx_diag *d)
{
	const fx_fabric *f = &ds->fab;
	double routes = (double)f->ndev * (double)(f->ndev - 1);
	if (routes > SIMGRID_MAX_ROUTES)
		return fx_diag_error(d, NULL, "export simgrid: %lld devices need %.0f explicit routes, "
				     "past the exporter's %.0f (1,024 devices): a SimGrid platform "
				     "of this size would describe its routing with zones, which do "
				     "not route as fabricx does (use --to graphml for the graph)",
				     (long long)f->ndev, routes, SIMGRID_MAX_ROUTES);
	fx_router *r = fx_router_new(f, 0);
	if (!r)
		return fx_diag_internal(d, "export simgrid: no router for the fabric");
	/* the spec's policy where it gives one path (always, when it pins
	 * flows); hash's path for the pairs it splits */
	fx_route_policy pol = ds->coll.policy, fallback = FX_ROUTE_HASH;
	fx_router *h = fx_route_policy_pins(pol) ? NULL : fx_router_new(f, 0);
	fx_router_set_policy(r, pol);
	if (h)
		fx_router_set_policy(h, fallback);
	if (fx_router_per_cable(r))
		fx_export_lost(info, "%s picks one cable of a bundle; each bundle is written as one "
			       "link of its cables' summed bandwidth, as fabricx's hash policy "
			       "loads it", fx_route_policy_name(pol));
	if (f->ncpu)
		fx_export_lost(info, "%lld CPUs left out (collectives run between devices; no route "
			       "passes a CPU)", (long long)f->ncpu);
	fx_export_lost(info, "per-round overhead (collective.overhead) and the software "
		       "routing stages are the program's, not the platform's");
	fx_export_failed_left_out(f, info);

	char b1[48], b2[48], nb[96];
	fprintf(out, "<?xml version=\"1.0\"?>\n"
		     "<!DOCTYPE platform SYSTEM \"https://simgrid.org/simgrid.dtd\">\n"
		     "<!-- fabricx export of %s (%s fabric): hosts h<device id>, routers\n"
		     "     s<vertex id> (switch chips), a link l<bundle> per bundle (direction UP\n"
		     "     from the lower vertex id to the higher) with a one-link route between\n"
		     "     its ends where one is a router, and fabricx's %s routes between every\n"
		     "     two devices (%s where it splits). -->\n"
		     "<platform version=\"4.1\">\n"
		     "  <zone id=\"fabricx\" routing=\"Full\">\n",
		ds->name, f->builder ? f->builder->kind : "?", fx_route_policy_name(pol),
		h ? fx_route_policy_name(fallback) : "none");
	for (int64_t v = 0; v < f->ndev; v++)
		fprintf(out, "    <host id=\"h%lld\" speed=\"1Gf\"/>\n", (long long)v);
	for (int64_t v = f->ndev; v < f->nv; v++)
		if (f->v[v].type == FX_V_SWITCH && !(f->vdown && f->vdown[v]))
			fprintf(out, "    <router id=\"s%lld\"/>\n", (long long)v);
	int64_t nlinks = 0;
	for (int64_t e = 0; e < f->ne; e++) {
		if (!fx_fabric_edge_up(f, e))
			continue;
		const fx_link *lk = &f->e[e];
		fprintf(out, "    <link id=\"l%lld\" bandwidth=\"%sBps\" latency=\"%ss\" "
			"sharing_policy=\"SPLITDUPLEX\"/><!-- %s",
			(long long)e, fx_export_conv(lk->bw * lk->count, b1), fx_export_conv(lk->lat, b2),
			fx_fabric_vertex_name(f, f->ends[2 * e], nb, sizeof nb));
		fprintf(out, " - %s -->\n", fx_fabric_vertex_name(f, f->ends[2 * e + 1], nb, sizeof nb));
		nlinks++;
	}
	/* where each link is: a one-link route between its ends (UP: from
	 * ends[2e] to ends[2e + 1]), once per pair of ends */
	int64_t twice = 0, nc = 0;
	pair_e *pc = fx_xmalloc((size_t)(f->ne > 0 ? f->ne : 1) * sizeof *pc);
	for (int64_t e = 0; e < f->ne; e++) {
		int64_t a = (int64_t)f->ends[2 * e], b = (int64_t)f->ends[2 * e + 1];
		if (fx_fabric_edge_up(f, e) && (f->v[a].type == FX_V_SWITCH || f->v[b].type == FX_V_SWITCH) &&
		    f->v[a].type != FX_V_CPU && f->v[b].type != FX_V_CPU)
			pc[nc++] = (pair_e){a < b ? a : b, a < b ? b : a, e};
	}
	if (nc)
		qsort(pc, (size_t)nc, sizeof *pc, pair_cmp);
	uint8_t *place = fx_xcalloc((size_t)(f->ne > 0 ? f->ne : 1), 1);
	for (int64_t k = 0; k < nc; k++) {
		if (k && pc[k].a == pc[k - 1].a && pc[k].b == pc[k - 1].b)
			twice++;
		else
			place[pc[k].e] = 1;
	}
	for (int64_t e = 0; e < f->ne; e++) {
		if (!place[e])
			continue;
		int64_t a = (int64_t)f->ends[2 * e], b = (int64_t)f->ends[2 * e + 1];
		fprintf(out, "    <route src=\"%c%lld\" dst=\"%c%lld\"><link_ctn id=\"l%lld\" "
			"direction=\"UP\"/></route>\n", a < f->ndev ? 'h' : 's', (long long)a,
			b < f->ndev ? 'h' : 's', (long long)b, (long long)e);
	}
	free(pc);
	free(place);
	if (twice)
		fx_export_lost(info, "%lld bundles join the same two vertices as another: SimGrid takes "
			       "one route per pair, so only the first is placed by a one-link route",
			       (long long)twice);
	double *load = fx_xcalloc((size_t)(f->ne > 0 ? 2 * f->ne : 1), sizeof *load);
	int64_t room = f->nv + 1;
	int64_t *path = fx_xmalloc((size_t)room * sizeof *path);
	int rc = 0;
	int64_t nroutes = 0, unreachable = 0, split = 0;
	for (int64_t s = 0; s < f->ndev && rc == 0; s++) {
		if (f->vdown && f->vdown[s])
			continue;
		for (int64_t t = 0; t < f->ndev && rc == 0; t++) {
			if (t == s || (f->vdown && f->vdown[t]))
				continue;
			fx_diag quiet;
			fx_diag_init(&quiet);
			int64_t n = one_path(f, r, s, t, load, path, room, &quiet);
			if (n < 0 && h) {
				n = one_path(f, h, s, t, load, path, room, &quiet);
				split += n >= 0;
			}
			fx_diag_release(&quiet);
			if (n < 0) {
				unreachable++;
				continue;
			}
			fprintf(out, "    <route src=\"h%lld\" dst=\"h%lld\" symmetrical=\"NO\">",
				(long long)s, (long long)t);
			for (int64_t k = 0; k < n; k++)
				fprintf(out, "<link_ctn id=\"l%lld\" direction=\"%s\"/>",
					(long long)(path[k] / 2), path[k] % 2 ? "DOWN" : "UP");
			fprintf(out, "</route>\n");
			nroutes++;
		}
	}
	if (split)
		fx_export_lost(info, "routing: fabricx's %s policy divides the flows of %lld of the "
			       "%lld ordered device pairs over several paths, and a SimGrid route "
			       "is one path: those routes are the %s policy's (fabricx's "
			       "--routing %s times these routes)", fx_route_policy_name(pol),
			       (long long)split, (long long)nroutes, fx_route_policy_name(fallback),
			       fx_route_policy_name(fallback));
	if (unreachable)
		fx_export_lost(info, "%lld ordered device pairs have no single-path route (cut off, "
			       "or the router split them) and no <route>", (long long)unreachable);
	fprintf(out, "  </zone>\n</platform>\n");
	info->vertices = f->ndev;
	info->edges = nlinks;
	free(load);
	free(path);
	fx_router_free(r);
	fx_router_free(h);
	return rc;
}
