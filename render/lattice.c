/*
 * The drawing model of lattices (torus, mesh, wafer-mesh), with pinned
 * positions so neato draws the grid as a grid.
 *
 * Two dimensions are a plain grid.  Three are drawn obliquely: the z layers
 * of a column (x, y) step down and right inside its grid cell, so x and y
 * links stay horizontal and vertical, z links are short diagonals, and each
 * row of a layer keeps a band of its own (trays are rows, as fabricx numbers
 * devices x first).  Further dimensions repeat the picture side by side.
 *
 * Small lattices (<= 200 devices) are drawn whole, with node (tray)
 * clusters.  Larger ones are drawn as blocks: racks or nodes when they are
 * aligned boxes of coordinates and number 2..64 (an 8x8x8 torus in racks of
 * 8x8x1 becomes a ring of 8 racks), else a tiling of at most 8 x 8 (2-D) or
 * 4 x 4 x 4 (3-D) blocks (a 757 x 996 wafer as 8 x 8 blocks), or a
 * wafer's dies when the spec gives them (fabric.dies), inside the wafer's
 * outline.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../core/xalloc.h"
#include "render_internal.h"

#define MAX_BLOCKS 64
#define PI 3.14159265358979323846

/* Where lattice point c of a grid of dims d[nd] is drawn, in inches.  w, h:
 * the box size; ring: a single wrapped dimension is drawn as a circle. */
static void place(const int *c, const int *d, int nd, double w, double h, int ring, double *x,
		  double *y)
{
	int eff[FX_MAX_DIMS], ne = 0;
	for (int i = 0; i < nd; i++)
		if (d[i] > 1)
			eff[ne++] = i;
	*x = *y = 0;
	if (ne == 0)
		return;
	if (ne == 1) {
		int n = d[eff[0]];
		if (ring) {
			double r = fmax(1.5, n * (w + 0.9) / (2 * PI));
			double a = 2 * PI * c[eff[0]] / n - PI / 2;
			*x = r * cos(a);
			*y = -r * sin(a);
		} else {
			/* a line of more than 3 boxes snakes in rows (a 32x32 mesh in
			 * 4 racks of 32x8 was a 4:1 chain; pictures keep within 3:1):
			 * neighbours stay side by side, each row turns back */
			int per = n;
			if (n > 3)
				for (per = 1; per * per < n; per++)
					;
			int row = c[eff[0]] / per, col = c[eff[0]] % per;
			if (row % 2)
				col = per - 1 - col;
			*x = col * (w + 0.9);
			*y = -row * (h + 0.9);
		}
		return;
	}
	double sx = w + 0.9, sy = h + 0.6;
	int dz = ne >= 3 ? d[eff[2]] : 1;
	double t = ne >= 3 ? 0.8 / dz : 0;
	if (ne >= 3) {
		sx = w + 1.2;
		sy = (h + 0.3) / t;
	}
	*x = c[eff[0]] * sx;
	*y = -c[eff[1]] * sy;
	if (ne >= 3) {
		*x += t * c[eff[2]] * sx;
		*y -= t * c[eff[2]] * sy;
	}
	/* dimensions past the third: copies of the picture side by side */
	double px = d[eff[0]] * sx + 2 * sx, py = d[eff[1]] * sy + 2 * sy;
	for (int k = 3; k < ne; k++) {
		if (k % 2) {
			*x += c[eff[k]] * px;
			px *= d[eff[k]];
		} else {
			*y -= c[eff[k]] * py;
			py *= d[eff[k]];
		}
	}
}

/* Whether every unit (node or rack) is an aligned box of coordinates of the
 * same extents; sets ext. */
static int units_are_boxes(const fx_fabric *f, int rack, int64_t nunits, int *ext)
{
	int nd = f->ndims;
	int *lo = fx_xmalloc((size_t)(nunits * nd) * sizeof *lo);
	int *hi = fx_xmalloc((size_t)(nunits * nd) * sizeof *hi);
	int64_t *cnt = fx_xcalloc((size_t)nunits, sizeof *cnt);
	int ok = 1, x[FX_MAX_DIMS];
	for (int64_t v = 0; v < f->ndev && ok; v++) {
		int64_t u = rack ? f->v[v].rack : f->v[v].node;
		if (u < 0 || u >= nunits) {
			ok = 0;
			break;
		}
		fx_fabric_coords(f, v, x);
		for (int i = 0; i < nd; i++) {
			if (cnt[u] == 0 || x[i] < lo[u * nd + i])
				lo[u * nd + i] = x[i];
			if (cnt[u] == 0 || x[i] > hi[u * nd + i])
				hi[u * nd + i] = x[i];
		}
		cnt[u]++;
	}
	for (int64_t u = 0; u < nunits && ok; u++) {
		int64_t size = 1;
		for (int i = 0; i < nd; i++) {
			int e = hi[u * nd + i] - lo[u * nd + i] + 1;
			if (u == 0)
				ext[i] = e;
			ok &= e == ext[i] && lo[u * nd + i] % e == 0 && f->dims[i] % e == 0;
			size *= e;
		}
		ok &= cnt[u] == size;
	}
	free(lo);
	free(hi);
	free(cnt);
	return ok;
}

static void full(rd_model *m)
{
	const fx_fabric *f = m->f;
	int x[FX_MAX_DIMS], ring = 0;
	int64_t *node_size = fx_xcalloc((size_t)f->nnodes + 1, sizeof *node_size);
	for (int64_t v = 0; v < f->ndev; v++)
		if (f->v[v].node >= 0 && f->v[v].node < f->nnodes)
			node_size[f->v[v].node]++;
	for (int i = 0; i < f->ndims; i++)
		ring |= f->wrap[i];
	for (int64_t v = 0; v < f->ndev; v++) {
		const fx_vertex *fv = &f->v[v];
		int64_t cl = -1;
		if (f->nracks > 1) {
			char name[48], label[64];
			snprintf(name, sizeof name, "cluster_rack%d", fv->rack);
			snprintf(label, sizeof label, "rack %d", fv->rack);
			cl = rd_cluster_get(m, 0, -1, name, label);
		}
		if (fv->node >= 0 && node_size[fv->node] > 1) {
			char name[48], label[64];
			snprintf(name, sizeof name, "cluster_node%d", fv->node);
			snprintf(label, sizeof label, "node %d", fv->node);
			cl = rd_cluster_get(m, 1, cl, name, label);
		}
		int64_t b = rd_box_new(m, RD_DEVICE, cl);
		rd_box_add(m, b, v);
		rd_box *bx = &m->box[b];
		bx->rack = fv->rack;
		bx->node = fv->node;
		fx_fabric_coords(f, v, x);
		place(x, f->dims, f->ndims, 0.7, 0.3, ring, &bx->x, &bx->y);
		bx->pinned = 1;
	}
	free(node_size);
	int64_t dpn = f->nnodes > 0 ? f->ndev / f->nnodes : 1;
	if (dpn > 1)
		snprintf(m->how, sizeof m->how, "every %s and link drawn; grey bands: nodes of %lld %ss%s",
			 m->noun, (long long)dpn, m->noun,
			 f->ndims >= 3 ? "; z layers step down and right" : "");
	else
		snprintf(m->how, sizeof m->how, "every %s and link drawn%s", m->noun,
			 f->ndims >= 3 ? "; z layers step down and right" : "");
}

/* How blocks tile the lattice along each dimension: nb[i] blocks of ext[i]
 * points (the last one short), or, for a wafer's dies, nb[i] dies split as
 * evenly as whole PEs allow (fx_wafer_die). */
typedef struct tiling {
	int dies;
	int ext[FX_MAX_DIMS], nb[FX_MAX_DIMS];
	int64_t n[FX_MAX_DIMS];
} tiling;

static int tile_of(const tiling *t, int i, int x)
{
	return t->dies ? fx_wafer_die(x, t->n[i], t->nb[i]) : x / t->ext[i];
}

static int tile_lo(const tiling *t, int i, int b)
{
	return t->dies ? (int)fx_wafer_die_lo(b, t->n[i], t->nb[i]) : b * t->ext[i];
}

static int tile_hi(const tiling *t, int i, int b)
{
	return b + 1 < t->nb[i] ? tile_lo(t, i, b + 1) - 1 : (int)t->n[i] - 1;
}

static void blocks(rd_model *m)
{
	const fx_fabric *f = m->f;
	int nd = f->ndims, x[FX_MAX_DIMS];
	tiling t = {0};
	int *ext = t.ext, *bd = t.nb;
	const char *unit = "";
	char b1[32];
	const fx_wafer_state *w = fx_fabric_wafer(f);
	for (int i = 0; i < nd; i++)
		t.n[i] = f->dims[i];
	if (w && w->dies[0] > 0 && nd == 2 && w->dies[0] <= f->dims[0] && w->dies[1] <= f->dims[1]) {
		/* the wafer's own grid of dies, inside its outline */
		unit = "die";
		t.dies = 1;
		for (int i = 0; i < nd; i++) {
			bd[i] = w->dies[i];
			ext[i] = (f->dims[i] + bd[i] - 1) / bd[i];  /* the largest die */
		}
	} else if (f->nracks >= 2 && f->nracks <= MAX_BLOCKS && units_are_boxes(f, 1, f->nracks, ext))
		unit = "rack";
	else if (f->nnodes >= 2 && f->nnodes <= MAX_BLOCKS && f->nnodes < f->ndev &&
		 units_are_boxes(f, 0, f->nnodes, ext))
		unit = "node";
	else {
		int eff = 0;
		for (int i = 0; i < nd; i++)
			eff += f->dims[i] > 1;
		int per = eff <= 1 ? 16 : eff == 2 ? 8 : eff == 3 ? 4 : 2;
		for (int i = 0; i < nd; i++) {
			int nb = f->dims[i] < per ? f->dims[i] : per;
			ext[i] = (f->dims[i] + nb - 1) / nb;
		}
	}
	int64_t nblocks = 1;
	for (int i = 0; i < nd; i++) {
		if (!t.dies)
			bd[i] = (f->dims[i] + ext[i] - 1) / ext[i];
		nblocks *= bd[i];
	}
	int ring = 0, eff = 0;
	for (int i = 0; i < nd; i++)
		if (bd[i] > 1) {
			eff++;
			ring = f->wrap[i] && bd[i] >= 3;
		}
	ring &= eff == 1;
	int rack_clusters = strcmp(unit, "node") == 0 && f->nracks > 1;
	int64_t wafer = -1;
	if (t.dies) {
		char label[64];
		snprintf(label, sizeof label, "wafer: %d × %d dies", bd[0], bd[1]);
		wafer = rd_cluster_get(m, 0, -1, "cluster_wafer", label);
	}
	/* a placement box lists its instances: rows of a snake twice as far apart */
	double box_h = m->o && m->o->view == FX_VIEW_PLACEMENT && eff == 1 ? 2.2 : 1.1;
	for (int64_t k = 0; k < nblocks; k++) {
		int64_t r = k;
		int c[FX_MAX_DIMS];
		for (int i = 0; i < nd; i++) {
			c[i] = (int)(r % bd[i]);
			r /= bd[i];
		}
		int64_t b = rd_box_new(m, RD_LATTICE, wafer);
		rd_box *bx = &m->box[b];
		for (int i = 0; i < nd; i++) {
			bx->lo[i] = tile_lo(&t, i, c[i]);
			bx->hi[i] = tile_hi(&t, i, c[i]);
		}
		snprintf(bx->unit, sizeof bx->unit, "%s", unit);
		if (t.dies)
			bx->unit_id = (int32_t)k;
		place(c, bd, nd, 2.2, box_h, ring, &bx->x, &bx->y);
		bx->pinned = 1;
	}
	for (int64_t v = 0; v < f->ndev; v++) {
		fx_fabric_coords(f, v, x);
		int64_t k = 0;
		for (int i = nd - 1; i >= 0; i--)
			k = k * bd[i] + tile_of(&t, i, x[i]);
		rd_box_add(m, k, v);
		rd_box *bx = &m->box[k];
		if (bx->unit_id < 0) {
			bx->unit_id = *unit == 'r' ? f->v[v].rack : *unit == 'n' ? f->v[v].node : -1;
			bx->rack = f->v[v].rack;
			bx->node = *unit == 'n' ? f->v[v].node : -1;
			if (rack_clusters) {
				char name[48], label[64];
				snprintf(name, sizeof name, "cluster_rack%d", f->v[v].rack);
				snprintf(label, sizeof label, "rack %d", f->v[v].rack);
				bx->cluster = rd_cluster_get(m, 0, -1, name, label);
			}
		}
		if (f->nnodes < f->ndev && (v == 0 || f->v[v].node != f->v[v - 1].node))
			bx->units++;
	}
	char shape[64] = "";
	size_t o = 0;
	for (int i = 0; i < nd; i++)
		o += (size_t)snprintf(shape + o, sizeof shape - o, "%s%d", i ? "×" : "",
				      ext[i] < f->dims[i] ? ext[i] : f->dims[i]);
	if (t.dies)
		snprintf(m->how, sizeof m->how, "the wafer's %d × %d dies (fabric.dies), one box "
			 "each, of up to %s %ss", bd[0], bd[1], shape, m->noun);
	else if (*unit)
		snprintf(m->how, sizeof m->how, "aggregated: one box per %s (%s), each %s %ss", unit,
			 rd_int(nblocks, b1, sizeof b1), shape, m->noun);
	else
		snprintf(m->how, sizeof m->how, "aggregated: %s blocks of up to %s %ss",
			 rd_int(nblocks, b1, sizeof b1), shape, m->noun);
	/* block edges that jump over blocks are wraparounds (not on a ring) */
	rd_edges_build(m);
	for (int64_t i = 0; i < m->nedge && !ring; i++) {
		const rd_box *a = &m->box[m->edge[i].a], *b = &m->box[m->edge[i].b];
		for (int k = 0; k < nd; k++)
			m->edge[i].wrap |= abs(tile_of(&t, k, a->lo[k]) - tile_of(&t, k, b->lo[k])) > 1;
	}
}

void rd_lattice_build(rd_model *m, int whole)
{
	if (whole) {
		full(m);
		rd_edges_build(m);
	} else {
		m->aggregated = 1;
		blocks(m);
	}
}
