/*
 * Cut sets: max-flow between two device sets with igraph, the canonical
 * bisection of structured fabrics, and a spectral + Fiduccia-Mattheyses split for
 * fabrics without one.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../core/sort.h"
#include "../core/xalloc.h"
#include "internal.h"

/* A failed bundle (fabric/fail.c) carries nothing. */
static double capacity(const fx_fabric *f, int64_t e)
{
	return fx_fabric_edge_up(f, e) ? f->e[e].count * f->e[e].bw : 0;
}

/* Physical links of bundle e that can carry traffic. */
static double live_links(const fx_fabric *f, int64_t e)
{
	return fx_fabric_edge_up(f, e) ? f->e[e].count : 0;
}

/* A bisection past MAXFLOW_CONFIRM_LIMIT vertices + edges uses its closed
 * form, or else the edge cut of a split found in linear time: igraph's
 * push-relabel on the whole graph, each device tied to a terminal by an
 * infinite edge, took 1.6 s at 256k, 4.1 s at 442k and 83 s at 1M (a
 * 64^3 torus). */
#define MAXFLOW_CONFIRM_LIMIT 250000
/* Degraded fabrics past this many vertices + edges skip the spectral split
 * when they have a canonical one (see degraded_bisection). */
#define DEGRADED_SPECTRAL_LIMIT 20000
/* A cut (--cut, failures) whose flow graph, each set contracted into one
 * terminal, is larger than this many vertices + edges is not decided.
 * Measured (docs/performance.md, "Max-flow on the contracted graph"): the
 * cut x=0:x=50 of a 100^3 torus, 980,000 free vertices and 2.97M links,
 * 3.9 s of CPU for the whole command; a k=128 fat-tree's failures, four
 * max-flows over 20,480 switches and 1.05M links, 6 s. */
#define MAXFLOW_LIMIT 4000000
/* The spectral seeds (ARPACK's Lanczos iterations for the Laplacian's
 * smallest eigenvectors, to a residual of 1e-3: heuristic_halves) cost
 * more than everything else a bisection does past this many vertices +
 * edges.  Measured (docs/performance.md, "Spectral seeds" and "Bisection
 * seeds that converge"): converged seeds cut random cubic graphs of 12,500
 * and 25,000 devices far better (1,632 and 3,262 links against 2,192 and
 * 4,400) but in 3.2 and 5.7 s against 0.1 and 0.8 s, and at 50,000 devices
 * take 40 s for no gain; below it they cost under 0.5 s and matter (a
 * 7,000-device cubic graph: 900 links with them, 1,240 without). */
#define SPECTRAL_LIMIT 20000

/*
 * The max-flow between the sets side[] marks, on the flow graph with each
 * set contracted into one terminal: a vertex of set A would be tied to the
 * source by an infinite edge, so it may as well be the source, and no cut
 * changes.  Links from a terminal to one free vertex merge into one edge
 * (capacities and link counts summed) and links joining the sets into one
 * source-sink edge, which every cut cuts.  What is left for igraph's
 * push-relabel is the free vertices that forward: a k=96 fat-tree's
 * failures measure 11,520 switches in place of 232,704 vertices.  The
 * size limit is on that graph.  igraph reports the cut whose sink side is
 * what can still reach the sink, which no contraction of the sets
 * changes, so the links counted are those of the whole graph's cut.
 */
static int contracted_maxflow(const fx_fabric *f, const uint8_t *side, double limit, fx_cut *out,
			      fx_diag *d)
{
	for (int64_t v = 0; v < f->nv; v++)
		if (side[v] < 2 && f->v[v].type == FX_V_DEVICE)
			out->side[side[v]]++;
	/* vertex ids: 0 the source (set A), 1 the sink (set B), then the
	 * free vertices that forward; -1 for those that do not */
	int64_t *id = fx_xmalloc(((size_t)f->nv + 1) * sizeof *id);
	int64_t nid = 2;
	for (int64_t v = 0; v < f->nv; v++)
		id[v] = side[v] < 2 ? side[v] : fx_fabric_relays(f, v) ? nid++ : -1;
	/* per id, capacity and links to each terminal ([2 * id + set]) */
	double *term = fx_xcalloc(2 * (size_t)nid, sizeof *term);
	double *tlinks = fx_xcalloc(2 * (size_t)nid, sizeof *tlinks);
	int64_t inner = 0;  /* links between free vertices: kept one for one */
	for (int64_t e = 0; e < f->ne; e++) {
		int64_t a = id[f->ends[2 * e]], b = id[f->ends[2 * e + 1]];
		if (a < 0 || b < 0 || !fx_fabric_edge_up(f, e) || (a < 2 && a == b))
			continue;
		if (a >= 2 && b >= 2) {
			inner++;
			continue;
		}
		if (a < 2 && b < 2)  /* joins the sets: the source-sink edge */
			out->direct_links += f->e[e].count;
		int64_t w = a < 2 ? b : a, set = a < 2 ? a : b;
		term[2 * w + set] += capacity(f, e);
		tlinks[2 * w + set] += f->e[e].count;
	}
	int64_t m = inner;
	for (int64_t w = 0; w < nid; w++)
		m += (tlinks[2 * w] > 0) + (tlinks[2 * w + 1] > 0);
	if ((double)nid + (double)m > limit) {
		free(id);
		free(term);
		free(tlinks);
		/* a valid question fabricx will not spend minutes deciding:
		 * exit 4, as for a placement model too large to solve */
		return fx_diag_undecided(d, "the cut needs a max-flow over %lld vertices and %lld "
					 "edges (each set counted as one vertex), past fabricx's limit of "
					 "%.3g in all (minutes of igraph push-relabel); measure a smaller "
					 "fabric", (long long)nid, (long long)m, limit);
	}
	igraph_integer_t *ends = fx_xmalloc(2 * ((size_t)m + 1) * sizeof *ends);
	double *links = fx_xmalloc(((size_t)m + 1) * sizeof *links);
	igraph_vector_t c;
	fx_igraph_alloc(igraph_vector_init(&c, (igraph_integer_t)m));
	int64_t k = 0;
	for (int64_t e = 0; e < f->ne; e++) {
		int64_t a = id[f->ends[2 * e]], b = id[f->ends[2 * e + 1]];
		if (a < 2 || b < 2 || !fx_fabric_edge_up(f, e))
			continue;
		ends[2 * k] = a;
		ends[2 * k + 1] = b;
		links[k] = f->e[e].count;
		VECTOR(c)[k++] = capacity(f, e);
	}
	for (int64_t w = 0; w < nid; w++)
		for (int set = 0; set < 2; set++)
			if (tlinks[2 * w + set] > 0) {
				/* w < 2 is a link joining the sets: source to sink */
				ends[2 * k] = set == 0 ? 0 : w;
				ends[2 * k + 1] = set == 0 ? w : 1;
				links[k] = tlinks[2 * w + set];
				VECTOR(c)[k++] = term[2 * w + set];
			}
	free(id);
	free(term);
	free(tlinks);
	igraph_vector_int_t ev, cut;
	igraph_vector_int_view(&ev, ends, 2 * m);
	fx_igraph_alloc(igraph_vector_int_init(&cut, 0));
	igraph_t g;
	int rc = 0;
	igraph_real_t value = 0;
	if (igraph_create(&g, &ev, nid, IGRAPH_UNDIRECTED) != IGRAPH_SUCCESS) {
		rc = fx_diag_internal(d, "igraph could not build the flow graph");
	} else {
		if (igraph_st_mincut(&g, &value, &cut, NULL, NULL, 0, 1, &c) != IGRAPH_SUCCESS)
			rc = fx_diag_internal(d, "igraph max-flow failed");
		igraph_destroy(&g);
	}
	if (rc == 0) {
		out->bandwidth = value;
		for (igraph_integer_t i = 0; i < igraph_vector_int_size(&cut); i++)
			out->links += links[VECTOR(cut)[i]];
	}
	igraph_vector_int_destroy(&cut);
	igraph_vector_destroy(&c);
	free(ends);
	free(links);
	return rc;
}

int fx_route_cut(const fx_fabric *f, const uint8_t *side, fx_cut *out, fx_diag *d)
{
	if (!out)
		return fx_diag_error(d, NULL, "fx_route_cut: no result to fill");
	memset(out, 0, sizeof *out);
	if (!fx_fabric_built(f))
		return fx_diag_error(d, NULL, "fx_route_cut: no fabric (NULL, or one whose load failed)");
	if (!side)
		return fx_diag_error(d, NULL, "fx_route_cut: no sides");
	for (int64_t v = 0; v < f->nv; v++)
		if (side[v] > 2)
			return fx_diag_error(d, NULL, "fx_route_cut: side of vertex %lld is %d, not 0, 1 "
					     "or 2", (long long)v, side[v]);
	return fx_route_cut_within(f, side, MAXFLOW_LIMIT, out, d);
}

int fx_route_cut_within(const fx_fabric *f, const uint8_t *side, double limit, fx_cut *out,
			fx_diag *d)
{
	memset(out, 0, sizeof *out);
	out->formula = -1;
	/* every vertex on a side: nothing is left for a flow to route round, so
	 * the least cut is the edges between the sides, counted in one pass
	 * (a wafer's failures need no max-flow over 750k vertices) */
	int64_t free_v = 0;
	for (int64_t v = 0; v < f->nv && !free_v; v++)
		free_v += side[v] > 1;
	if (!free_v) {
		for (int64_t v = 0; v < f->nv; v++)
			out->side[side[v]] += f->v[v].type == FX_V_DEVICE;
		for (int64_t e = 0; e < f->ne; e++)
			if (side[f->ends[2 * e]] != side[f->ends[2 * e + 1]]) {
				out->bandwidth += capacity(f, e);
				out->links += live_links(f, e);
				out->direct_links += live_links(f, e);
			}
		return 0;
	}
	return contracted_maxflow(f, side, limit, out, d);
}

/* ---- heuristic bisection for fabrics without a canonical split ---- */

/* ctx: the values, indexed by vertex */
static int by_value(const void *a, const void *b, void *ctx)
{
	const double *val = ctx;
	double x = val[*(const int64_t *)a], y = val[*(const int64_t *)b];
	int64_t i = *(const int64_t *)a, j = *(const int64_t *)b;
	return x < y ? -1 : x > y ? 1 : (i > j) - (i < j);
}

/* Splits the devices at the median of val (first half on side 0) and puts
 * every other vertex on the side its value falls. */
static void split_by(const fx_fabric *f, const double *val, uint8_t *side)
{
	int64_t *ord = fx_xmalloc((size_t)f->ndev * sizeof *ord);
	for (int64_t v = 0; v < f->ndev; v++)
		ord[v] = v;
	fx_sort_r(ord, (size_t)f->ndev, sizeof *ord, by_value, (void *)val);
	double median = val[ord[f->ndev / 2]];
	for (int64_t i = 0; i < f->ndev; i++)
		side[ord[i]] = i >= f->ndev / 2;
	for (int64_t v = f->ndev; v < f->nv; v++)
		side[v] = val[v] >= median;
	free(ord);
}

static double edge_cut(const fx_fabric *f, const uint8_t *side)
{
	double c = 0;
	for (int64_t e = 0; e < f->ne; e++)
		if (side[f->ends[2 * e]] != side[f->ends[2 * e + 1]])
			c += capacity(f, e);
	return c;
}

#define BFS_SEEDS 3

/*
 * Balanced split of the devices for fabrics without a canonical one.  Seeds:
 * the two leading non-trivial eigenvectors of the capacity-weighted
 * Laplacian (a torus's Fiedler space is degenerate, so one vector can point
 * diagonally), breadth-first balls grown from a few devices and the device
 * order (FM made seeds cheap; a torus written out by hand row by row is cut
 * best by its rows, which the others can miss: 45x45, 122 links for 92);
 * each seed
 * is refined by Fiduccia-Mattheyses passes (routing/cut_fm.c) and the
 * smallest edge cut kept.
 */
static int heuristic_halves(const fx_fabric *f, uint8_t *side, int *spectral, fx_diag *d)
{
	(void)d;
	fx_fm k;
	fx_fm_init(&k, f);
	double *val = fx_xmalloc((size_t)f->nv * sizeof *val);

	igraph_matrix_t X;
	igraph_vector_t w;
	fx_igraph_alloc(igraph_matrix_init(&X, 0, 0));
	fx_igraph_alloc(igraph_vector_init(&w, f->ne));
	for (int64_t e = 0; e < f->ne; e++)
		VECTOR(w)[e] = capacity(f, e);
	/* The vectors are seeds that FM refines.  ARPACK's default (machine
	 * precision, 3,000 restarts) failed to converge at all on a 48x48 or
	 * 64x64 torus written out by hand (a degenerate Fiedler space) and on
	 * random cubic graphs of 7,000 vertices, after 80 % of the command's
	 * time.  So machine precision gets a work budget (restarts x size), which
	 * the small graphs it suits fit in, and past it a residual of 1e-3, which
	 * converged on every graph tried in 100-500 restarts with the same or
	 * smaller cuts (docs/performance.md, "Bisection seeds that converge").
	 * A loose vector alone is not enough: on a 16-endpoint rail Clos written
	 * out by hand its split refined to twice the cut the precise one gives. */
	int neig = 0;
	double size = (double)f->nv + (double)f->ne;
	for (int pass = 0; pass < 2 && neig == 0 && f->nv > 3 && size <= SPECTRAL_LIMIT; pass++) {
		igraph_arpack_options_t opt;
		igraph_arpack_options_init(&opt);
		opt.tol = pass == 0 ? 0 : 1e-3;
		opt.mxiter = pass == 0 ? (int)fmin(3000, fmax(50, 2e6 / size)) : 1000;
		if (igraph_laplacian_spectral_embedding(&f->g, 3, &w, IGRAPH_EIGEN_SA,
							IGRAPH_EMBEDDING_D_A, 0, &X, NULL, NULL,
							&opt) == IGRAPH_SUCCESS)
			neig = (int)igraph_matrix_ncol(&X) - 1;  /* column 0 is the constant vector */
	}
	igraph_vector_destroy(&w);
	*spectral = neig > 0;

	igraph_vector_int_t order;
	fx_igraph_alloc(igraph_vector_int_init(&order, 0));
	double best = INFINITY;
	for (int s = 0; s < neig + BFS_SEEDS + 1; s++) {
		if (s == neig + BFS_SEEDS) {
			/* device order: slabs of a lattice or blocks of a regular
			 * build written out by hand (what linear_bound tries too) */
			for (int64_t v = 0; v < f->nv; v++)
				val[v] = (double)v;
		} else if (s < neig) {
			for (int64_t v = 0; v < f->nv; v++)
				val[v] = MATRIX(X, v, s + 1);
		} else {
			int64_t root = (s - neig) * f->ndev / BFS_SEEDS;
			fx_igraph_alloc(igraph_bfs_simple(&f->g, root, IGRAPH_ALL, &order, NULL, NULL));
			for (igraph_integer_t i = 0; i < igraph_vector_int_size(&order); i++)
				val[VECTOR(order)[i]] = (double)i;
		}
		split_by(f, val, k.side);
		fx_fm_refine(&k);
		double c = edge_cut(f, k.side);
		if (c < best) {
			best = c;
			memcpy(side, k.side, (size_t)f->nv);
		}
	}
	igraph_vector_int_destroy(&order);
	igraph_matrix_destroy(&X);
	fx_fm_release(&k);
	free(val);
	return 0;
}

/*
 * The bisection of a fabric too large for max-flow and without a closed
 * form, in O(V + E): devices split by the builder's canonical halves when
 * it has them, else by breadth-first order from device 0; switches and CPUs
 * then join, one pass in vertex order, the side most of their capacity to
 * already placed vertices goes to.  The edge cut of that split bounds the
 * bisection from above.
 */
static void linear_bound(const fx_fabric *f, int canonical, uint8_t *side, fx_cut *out)
{
	if (!canonical) {
		/* two seeds: device order (slabs of a lattice, blocks of a
		 * regular build) and a breadth-first ball; keep the smaller cut */
		double *val = fx_xmalloc((size_t)f->nv * sizeof *val);
		uint8_t *alt = fx_xmalloc((size_t)f->nv);
		for (int64_t v = 0; v < f->nv; v++)
			val[v] = (double)v;
		split_by(f, val, side);
		igraph_vector_int_t order;
		fx_igraph_alloc(igraph_vector_int_init(&order, 0));
		for (int64_t v = 0; v < f->nv; v++)
			val[v] = (double)f->nv;  /* unreached: last */
		fx_igraph_alloc(igraph_bfs_simple(&f->g, 0, IGRAPH_ALL, &order, NULL, NULL));
		for (igraph_integer_t i = 0; i < igraph_vector_int_size(&order); i++)
			val[VECTOR(order)[i]] = (double)i;
		igraph_vector_int_destroy(&order);
		split_by(f, val, alt);
		if (edge_cut(f, alt) < edge_cut(f, side))
			memcpy(side, alt, (size_t)f->nv);
		free(alt);
		free(val);
	}
	double *pull = fx_xcalloc((size_t)f->nv * 2, sizeof *pull);  /* capacity to each side */
	for (int64_t e = 0; e < f->ne; e++) {
		int64_t a = f->ends[2 * e], b = f->ends[2 * e + 1];
		if (a < f->ndev && b >= f->ndev)
			pull[2 * b + side[a]] += capacity(f, e);
		if (b < f->ndev && a >= f->ndev)
			pull[2 * a + side[b]] += capacity(f, e);
	}
	for (int64_t v = f->ndev; v < f->nv; v++)
		side[v] = pull[2 * v + 1] > pull[2 * v];
	free(pull);
	out->bandwidth = 0;
	out->links = 0;
	for (int64_t e = 0; e < f->ne; e++)
		if (side[f->ends[2 * e]] != side[f->ends[2 * e + 1]]) {
			out->bandwidth += capacity(f, e);
			out->links += live_links(f, e);
		}
	for (int64_t v = 0; v < f->ndev; v++)
		out->side[side[v]]++;
	out->direct_links = -1;  /* not counted */
}

/* What fx_route_cut finds when every vertex is a device on side 0 or 1:
 * the links between the sides (bandwidth summed in edge order). */
static void device_cut(const fx_fabric *f, const uint8_t *side, fx_cut *out)
{
	for (int64_t v = 0; v < f->nv; v++)
		out->side[side[v]]++;
	for (int64_t e = 0; e < f->ne; e++)
		if (side[f->ends[2 * e]] != side[f->ends[2 * e + 1]]) {
			out->bandwidth += capacity(f, e);
			out->links += live_links(f, e);
			out->direct_links += live_links(f, e);
		}
}

/* The cut of a split: its edge cut when every vertex is a device, else
 * igraph's max-flow with switches and CPUs on neither side. */
static int split_cut(const fx_fabric *f, uint8_t *side, fx_cut *out, fx_diag *d)
{
	for (int64_t v = f->ndev; v < f->nv; v++)
		side[v] = 2;
	if (f->nv == f->ndev) {
		memset(out, 0, sizeof *out);
		device_cut(f, side, out);
		return 0;
	}
	return fx_route_cut(f, side, out, d);
}

/*
 * A degraded fabric (fabric/fail.c) has no closed form and its canonical
 * split need not be its least: the least of the canonical split's cut and
 * a spectral + Fiduccia-Mattheyses split's, both on the degraded graph
 * (failed devices stay in the halves: they carry nothing).  Always a bound
 * from above: an 8-ring with a link failed is an 8-path, whose bisection
 * (1 link) both splits find when the failed link is one the canonical
 * split cuts, and the heuristic finds when it is not.
 */
static int degraded_bisection(const fx_fabric *f, fx_cut *out, fx_diag *d)
{
	uint8_t *side = fx_xcalloc((size_t)f->nv + 1, 1);
	int canon = f->builder->halves ? f->builder->halves(f, side) : 0;
	int rc = 0;
	out->method = "bound";
	if (f->nv + f->ne > MAXFLOW_CONFIRM_LIMIT) {
		linear_bound(f, canon != 0, side, out);
		out->how = "split of the degraded graph, its edge cut; too large for max-flow";
	} else if (canon && f->nv + f->ne > DEGRADED_SPECTRAL_LIMIT) {
		/* a failed vertex is isolated, which leaves ARPACK a repeated
		 * zero eigenvalue to converge through: 15 s on a 200x200 mesh */
		rc = split_cut(f, side, out, d);
		out->how = "degraded graph: the canonical split (max-flow); too large for the "
			   "spectral + Fiduccia-Mattheyses split";
	} else {
		fx_cut best;
		int have = 0;
		if (canon) {
			rc = split_cut(f, side, &best, d);
			have = rc == 0;
		}
		int spectral = 0;
		if (rc == 0)
			rc = heuristic_halves(f, side, &spectral, d);
		fx_cut h;
		if (rc == 0)
			rc = split_cut(f, side, &h, d);
		int heur = rc == 0 && (!have || h.bandwidth < best.bandwidth);
		if (heur)
			best = h;
		if (rc == 0) {
			*out = best;
			out->how = canon ? heur ? "degraded graph: a spectral + Fiduccia-Mattheyses split "
						  "cut less than the canonical one (max-flow)"
						: "degraded graph: the canonical split (max-flow), no "
						  "spectral + Fiduccia-Mattheyses split cut less"
				   : spectral ? "degraded graph: spectral + Fiduccia-Mattheyses split, max-flow"
					      : "degraded graph: breadth-first + Fiduccia-Mattheyses split, "
						"max-flow";
		}
	}
	free(side);
	out->method = "bound";
	out->exact = 0;
	out->confirmed = 0;
	out->formula = -1;
	out->per_device = out->bandwidth / ((double)f->ndev / 2);
	return rc;
}

int fx_route_bisection(const fx_fabric *f, fx_cut *out, fx_diag *d)
{
	if (!out)
		return fx_diag_error(d, NULL, "fx_route_bisection: no result to fill");
	memset(out, 0, sizeof *out);
	out->formula = -1;
	if (!fx_fabric_built(f))
		return fx_diag_error(d, NULL, "fx_route_bisection: no fabric (NULL, or one whose load "
				     "failed)");
	if (f->ndev < 2) {
		out->exact = 1;
		out->method = "exact";
		out->how = "fewer than two devices";
		return 0;
	}
	if (fx_fabric_degraded(f))
		return degraded_bisection(f, out, d);
	uint8_t *side = fx_xcalloc((size_t)f->nv, 1);
	/* halves: 1 a proven bisection, 2 a canonical split that only bounds it */
	int canon = f->builder->halves ? f->builder->halves(f, side) : 0;
	int exact = canon == 1;
	double links = 0;
	/* a bound's closed form is its canonical split's cut: what a split
	 * that is not proven least gives (dragonfly, slimfly, hyperx) */
	double formula = canon && f->builder->bisection ? f->builder->bisection(f, &links) : -1;
	int rc = 0;
	int large = f->nv + f->ne > MAXFLOW_CONFIRM_LIMIT;
	if (large && formula < 0) {
		linear_bound(f, canon != 0, side, out);
		free(side);
		out->exact = 0;
		out->method = "bound";
		out->how = canon ? "canonical split, its edge cut; too large for max-flow"
				 : "device-order or breadth-first split, its edge cut; too large for spectral + max-flow";
		out->per_device = out->bandwidth / ((double)f->ndev / 2);
		return 0;
	}
	int spectral = 0;
	if (!canon)
		rc = heuristic_halves(f, side, &spectral, d);
	for (int64_t v = f->ndev; v < f->nv; v++)
		side[v] = 2;  /* switches and CPUs belong to neither half */
	int flow = formula < 0 || !large;
	/* When every vertex is a device (tori, meshes, direct custom graphs)
	 * each is tied to the source or the sink, so the only finite cut
	 * is the links between the halves: the max-flow is their edge cut,
	 * counted here in O(E) (igraph's push-relabel took 2 s on a 37^3
	 * torus for the same number) */
	int by_edges = flow && f->nv == f->ndev;
	if (rc == 0 && by_edges)
		device_cut(f, side, out);
	else if (rc == 0 && flow)
		rc = fx_route_cut(f, side, out, d);
	if (rc == 0 && !flow) {
		for (int64_t v = 0; v < f->ndev; v++)
			out->side[side[v]]++;
		out->bandwidth = formula;
		out->links = links;
		out->direct_links = -1;  /* not counted */
	}
	free(side);
	if (rc)
		return rc;
	out->confirmed = flow && formula >= 0 &&
			 fabs(formula - out->bandwidth) <= 1e-9 * fmax(1, formula);
	if (!exact && flow && formula >= 0 && !out->confirmed && out->bandwidth < formula) {
		/* the max-flow found a cheaper cut of the same split than the
		 * closed form's: the smaller bound stands (tests pin the kinds
		 * where the two agree) */
		formula = -1;
	}
	out->exact = exact;
	out->method = exact ? "exact" : "bound";
	out->how = out->confirmed ? by_edges ? "closed form = max-flow = edge cut, all devices"
			       : exact ? "closed form = igraph max-flow"
				       : "canonical split: closed form = igraph max-flow (a cut, not "
					 "proven least)"
		   : exact && formula >= 0 ? "closed form; too large for max-flow"
		   : formula >= 0 ? "canonical split's closed form (a cut, not proven least); too "
				    "large for max-flow"
		   : canon ? by_edges ? "canonical split, max-flow = edge cut, all devices"
				      : "canonical split, igraph max-flow"
		   : spectral ? by_edges ? "spectral + Fiduccia-Mattheyses split, max-flow = edge cut, all devices"
				         : "spectral + Fiduccia-Mattheyses split, igraph max-flow"
		   : by_edges ? "breadth-first + Fiduccia-Mattheyses split, max-flow = edge cut, all devices"
			      : "breadth-first + Fiduccia-Mattheyses split, igraph max-flow";
	out->formula = formula;
	out->per_device = out->bandwidth / ((double)f->ndev / 2);

	if (flow && formula >= 0 && !out->confirmed)
		return fx_diag_internal(d, "bisection of '%s': max-flow gives %.6g B/s but the closed "
					"form gives %.6g B/s", f->name, out->bandwidth, formula);
	return 0;
}

int fx_route_split(const fx_fabric *f, uint8_t *side, fx_diag *d)
{
	memset(side, 0, (size_t)f->nv);
	int canon = f->builder->halves ? f->builder->halves(f, side) : 0;
	int rc = 0, spectral = 0;
	if (!canon) {
		if (f->ndev < 2)
			return fx_diag_error(d, NULL, "%s has fewer than two devices: nothing to split",
					     f->name);
		if (f->nv + f->ne > SPECTRAL_LIMIT * 50)
			return fx_diag_undecided(d, "%s has no canonical split, and a spectral + "
						 "Fiduccia-Mattheyses split of %lld vertices and edges is "
						 "past fabricx's limit of %d", f->name,
						 (long long)(f->nv + f->ne), SPECTRAL_LIMIT * 50);
		rc = heuristic_halves(f, side, &spectral, d);
	}
	for (int64_t v = f->ndev; v < f->nv; v++)
		side[v] = 2;
	return rc ? rc : canon ? 0 : 1;
}
