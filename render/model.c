/*
 * The drawing model of switched and custom fabrics: which boxes are drawn,
 * in which clusters, and which edges join them.
 *
 * Full detail draws every vertex: devices, CPUs and node switches in their
 * node's cluster inside their rack's, other switches in their plane's
 * cluster (for roles split over a few planes) or their rack's.
 *
 * Aggregated (the default past a few dozen vertices):
 *   - several nodes: one box per node holding its devices, CPUs and node
 *     switches, with the links between them counted inside;
 *   - one node (HGX-like boards, the 64-card switched case): devices and
 *     CPUs in blocks of consecutive ids, at most 8 blocks; switches one by
 *     one (or per role and plane past 16 of a role);
 *   - switches outside nodes grouped per role, and per plane where a role
 *     spans 2..16 planes (CloudMatrix384: 7 L2 plane groups), inside the
 *     rack all their lower-tier neighbours share, if any (fat-tree leaf and
 *     aggregation switches of a pod that fills part of a rack);
 *   - many racks that hold their own switches (a leaf-spine or fat-tree
 *     whose pods are racks), or more than 48 nodes: one box per rack;
 *   - with dot, node boxes of a rack whose links all leave the rack (or
 *     that are many), and rack boxes, form an area: their links to one box
 *     become one edge clipped at the area's cluster.
 *
 * With dot, switched fabrics are drawn in tiers (tiers()): each switch tier
 * a rank, the highest on top; devices, nodes or racks at the bottom in
 * numeric order, left to right, in rows of at most 8 wide or 16 narrow
 * boxes; a bottom of several rows and several racks becomes one area with
 * one edge per upper box (CloudMatrix384: 7 edges, not 84).  Each level is
 * chained by invisible flat edges; emit.c makes a rank=same subgraph per
 * level and cluster, and declares clusters so dot keeps them in order.
 *
 * Edges that are all alike (same links, same bandwidth) lose their labels
 * to one line in the title; dense labelled drawings without tiers rank
 * left to right so the labels stack instead of widening one rank.  Every
 * edge keeps its numbers in attributes and tooltips.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../core/sort.h"
#include "../core/xalloc.h"
#include "render_internal.h"

/* Past these, full detail is the default no more. */
#define AUTO_FULL_VERTICES 40
#define AUTO_FULL_EDGES 100
/* Blocks per node when one node is expanded; switches drawn one by one. */
#define MAX_BLOCKS 8
#define MAX_SINGLE_SWITCHES 16
/* A role split over this many planes is grouped per plane. */
#define MAX_PLANE_GROUPS 16
/* dot draws hierarchies up to about this size in well under a second. */
#define DOT_MAX_BOXES 150
#define DOT_MAX_EDGES 300
#define FDP_MAX_BOXES 1500
#define LABEL_MAX_EDGES 400
#define UNIFORM_EDGES 6
#define M_PI_CIRCLE 3.14159265358979323846

const char *rd_int(int64_t n, char *buf, size_t len)
{
	char tmp[32];
	int k = snprintf(tmp, sizeof tmp, "%lld", (long long)(n < 0 ? -n : n));
	size_t o = 0;
	if (n < 0 && o + 1 < len)
		buf[o++] = '-';
	for (int i = 0; i < k && o + 1 < len; i++) {
		if (i > 0 && (k - i) % 3 == 0 && o + 1 < len)
			buf[o++] = ',';
		if (o + 1 < len)
			buf[o++] = tmp[i];
	}
	buf[o] = '\0';
	return buf;
}

int64_t rd_box_new(rd_model *m, rd_kind kind, int64_t cluster)
{
	m->box = fx_xgrow(m->box, &m->capbox, (size_t)m->nbox + 1, sizeof *m->box);
	rd_box *b = &m->box[m->nbox];
	memset(b, 0, sizeof *b);
	b->kind = kind;
	b->first = b->last = -1;
	b->cluster = cluster;
	b->rack = b->node = b->plane = -1;
	b->rack_hi = -1;
	b->role = -1;
	b->chain_next = -1;
	b->unit_id = -1;
	b->level = -1;
	return m->nbox++;
}

void rd_box_add(rd_model *m, int64_t b, int64_t v)
{
	rd_box *x = &m->box[b];
	const fx_vertex *fv = &m->f->v[v];
	if (x->first < 0 || v < x->first)
		x->first = v;
	if (v > x->last)
		x->last = v;
	x->n[fv->type]++;
	if (fv->role >= 0)
		x->nrole[fv->role]++;
	m->box_of[v] = b;
}

int64_t rd_cluster_get(rd_model *m, int kind, int64_t parent, const char *name, const char *label)
{
	for (int64_t i = m->ncl - 1; i >= 0; i--)
		if (m->cl[i].kind == kind && m->cl[i].parent == parent && strcmp(m->cl[i].name, name) == 0)
			return i;
	m->cl = fx_xgrow(m->cl, &m->capcl, (size_t)m->ncl + 1, sizeof *m->cl);
	rd_cluster *c = &m->cl[m->ncl];
	snprintf(c->name, sizeof c->name, "%s", name);
	snprintf(c->label, sizeof c->label, "%s", label);
	c->parent = parent;
	c->kind = kind;
	return m->ncl++;
}

/* ---- box-pair hash: (lo, hi) -> index ---- */

typedef struct pairmap {
	uint64_t *key;   /* 0 = empty, else lo * n + hi + 1 */
	int64_t *val;
	size_t cap;
} pairmap;

static void pairmap_init(pairmap *h, size_t expect)
{
	h->cap = 16;
	while (h->cap < 2 * expect)
		h->cap *= 2;
	h->key = fx_xcalloc(h->cap, sizeof *h->key);
	h->val = fx_xmalloc(h->cap * sizeof *h->val);
}

static void pairmap_release(pairmap *h)
{
	free(h->key);
	free(h->val);
}

/* The slot of key k: found (key[slot] == k) or empty. */
static size_t pairmap_slot(const pairmap *h, uint64_t k)
{
	uint64_t x = k * 0x9E3779B97F4A7C15ull;
	size_t i = (size_t)(x >> 17) & (h->cap - 1);
	while (h->key[i] && h->key[i] != k)
		i = (i + 1) & (h->cap - 1);
	return i;
}

static int64_t box_tier(const rd_model *m, int64_t b)
{
	return m->box[b].tier;
}

/* Adds `links` links (bandwidth bw in all, lbw each) between boxes a and b,
 * merged with earlier ones under the key pair (ka, kb).  Returns the edge. */
static int64_t add_link(rd_model *m, pairmap *h, int64_t nkeys, int64_t ka, int64_t kb, int64_t a,
		     int64_t b, int64_t links, double bw, double lbw, double util, unsigned media,
		     int wrap)
{
	int64_t lo = ka < kb ? ka : kb, hi = ka < kb ? kb : ka;
	uint64_t k = (uint64_t)lo * (uint64_t)nkeys + (uint64_t)hi + 1;
	size_t s = pairmap_slot(h, k);
	rd_edge *e;
	int64_t idx;
	if (!h->key[s]) {
		if ((size_t)m->nedge * 2 + 2 > h->cap) {  /* grow and rehash */
			pairmap n;
			pairmap_init(&n, h->cap);
			for (size_t i = 0; i < h->cap; i++)
				if (h->key[i]) {
					size_t t = pairmap_slot(&n, h->key[i]);
					n.key[t] = h->key[i];
					n.val[t] = h->val[i];
				}
			pairmap_release(h);
			*h = n;
			s = pairmap_slot(h, k);
		}
		m->edge = fx_xgrow(m->edge, &m->capedge, (size_t)m->nedge + 1, sizeof *m->edge);
		e = &m->edge[m->nedge];
		memset(e, 0, sizeof *e);
		/* the upper tier is the tail, so dot ranks switches above devices */
		int up = box_tier(m, a) > box_tier(m, b) || (box_tier(m, a) == box_tier(m, b) && a < b);
		e->a = up ? a : b;
		e->b = up ? b : a;
		e->link_bw = lbw;
		e->lhead = e->ltail = -1;
		h->key[s] = k;
		h->val[s] = idx = m->nedge++;
	} else {
		idx = h->val[s];
		e = &m->edge[idx];
		if (e->link_bw != lbw)
			e->link_bw = -1;
	}
	e->links += links;
	e->bw += bw;
	if (util > e->util)
		e->util = util;
	e->media |= media;
	e->parts++;
	e->wrap |= wrap;
	return idx;
}

void rd_edges_build(rd_model *m)
{
	const fx_fabric *f = m->f;
	const double *u = m->o->view == FX_VIEW_LOADS ? m->o->utilisation : NULL;
	size_t pairs = (size_t)m->nbox * (size_t)(m->nbox > 0 ? m->nbox - 1 : 0) / 2;
	pairmap h;
	pairmap_init(&h, (size_t)f->ne < pairs ? (size_t)f->ne : pairs);
	for (int64_t b = 0; b < m->nbox; b++)
		m->box[b].in_link_bw = 0;
	for (int64_t e = 0; e < f->ne; e++) {
		int64_t a = m->box_of[f->ends[2 * e]], b = m->box_of[f->ends[2 * e + 1]];
		const fx_link *l = &f->e[e];
		double util = 0;
		if (u)
			util = u[2 * e] > u[2 * e + 1] ? u[2 * e] : u[2 * e + 1];
		if (a == b) {
			rd_box *x = &m->box[a];
			if (x->in_links == 0)
				x->in_link_bw = l->bw;
			else if (x->in_link_bw != l->bw)
				x->in_link_bw = -1;
			x->in_links += l->count;
			x->in_bw += l->count * l->bw;
			if (util > x->in_util)
				x->in_util = util;
			continue;
		}
		int wrap = 0;
		if (m->lattice && m->box[a].kind == RD_DEVICE) {
			int xa[FX_MAX_DIMS], xb[FX_MAX_DIMS];
			fx_fabric_coords(f, f->ends[2 * e], xa);
			fx_fabric_coords(f, f->ends[2 * e + 1], xb);
			for (int i = 0; i < f->ndims; i++)
				wrap |= abs(xa[i] - xb[i]) > 1;
		}
		add_link(m, &h, m->nbox, a, b, a, b, l->count, l->count * l->bw, l->bw, util,
			 1u << l->medium, wrap);
	}
	pairmap_release(&h);
}

/* ---- switched and custom fabrics ---- */

/* Adjacency of the fabric's vertices (CSR), for the searches below. */
static void adjacency(rd_model *m)
{
	const fx_fabric *f = m->f;
	int64_t *deg = fx_xcalloc((size_t)f->nv + 1, sizeof *deg);
	int64_t *adj = fx_xmalloc((size_t)(2 * f->ne + 1) * sizeof *adj);
	for (int64_t e = 0; e < f->ne; e++) {
		deg[f->ends[2 * e] + 1]++;
		deg[f->ends[2 * e + 1] + 1]++;
	}
	for (int64_t v = 0; v < f->nv; v++)
		deg[v + 1] += deg[v];
	int64_t *fill = fx_xmalloc((size_t)(f->nv + 1) * sizeof *fill);
	memcpy(fill, deg, (size_t)f->nv * sizeof *fill);
	for (int64_t e = 0; e < f->ne; e++) {
		adj[fill[f->ends[2 * e]]++] = f->ends[2 * e + 1];
		adj[fill[f->ends[2 * e + 1]]++] = f->ends[2 * e];
	}
	free(fill);
	m->adj_start = deg;
	m->adj = adj;
}

/* Whether the roles say nothing about tiers: no switches, or every role
 * at one tier (a custom graph whose switches give no role or tier: all
 * "switch", tier 1). */
static int roles_flat(const fx_fabric *f)
{
	for (int r = 1; r < f->nroles; r++)
		if (f->roles[r].tier != f->roles[0].tier)
			return 0;
	return 1;
}

/* Each vertex's tier: 0 for devices and CPUs; a switch's role tier, or,
 * when the roles give no tiers, its distance in switch hops from the
 * nearest device plus one (a rail-optimised graph's leaves 1 and spines
 * 2, whatever order its vertices are listed in).  A switch no device
 * reaches through switches takes the top tier plus one. */
static void vertex_tiers(rd_model *m)
{
	const fx_fabric *f = m->f;
	m->vtier = fx_xcalloc((size_t)f->nv + 1, sizeof *m->vtier);
	if (f->nsw == 0)
		return;
	if (!roles_flat(f) || f->nroles == 0) {
		for (int64_t v = 0; v < f->nv; v++) {
			const fx_vertex *x = &f->v[v];
			m->vtier[v] = x->type == FX_V_SWITCH && x->role >= 0 ? f->roles[x->role].tier : 0;
		}
		return;
	}
	int64_t *queue = fx_xmalloc((size_t)f->nv * sizeof *queue), head = 0, tail = 0;
	for (int64_t v = 0; v < f->nv; v++) {
		m->vtier[v] = f->v[v].type == FX_V_SWITCH ? -1 : 0;
		if (f->v[v].type == FX_V_DEVICE)
			queue[tail++] = v;
	}
	int top = 0;
	while (head < tail) {
		int64_t v = queue[head++];
		for (int64_t k = m->adj_start[v]; k < m->adj_start[v + 1]; k++) {
			int64_t w = m->adj[k];
			if (m->vtier[w] >= 0 || f->v[w].type != FX_V_SWITCH)
				continue;
			m->vtier[w] = m->vtier[v] + 1;
			if (m->vtier[w] > top)
				top = m->vtier[w];
			queue[tail++] = w;
		}
	}
	free(queue);
	for (int64_t v = 0; v < f->nv; v++)
		if (m->vtier[v] < 0)
			m->vtier[v] = top + 1;
	for (int64_t v = 0; v < f->nv; v++)
		m->tiers_derived |= m->vtier[v] > 1;
}

static int vtier(const rd_model *m, int64_t v)
{
	return m->vtier[v];
}

/* The rack each vertex outside a node stands in: its own, or the one all its
 * lower-tier neighbours share (leaf and aggregation switches of a fat-tree
 * whose hosts fill one rack), else -1.  Vertices in nodes: their rack. */
static int32_t *home_racks(const rd_model *m)
{
	const fx_fabric *f = m->f;
	const int64_t *deg = m->adj_start, *adj = m->adj;
	int32_t *home = fx_xmalloc((size_t)(f->nv + 1) * sizeof *home);
	int maxtier = 0;
	for (int64_t v = 0; v < f->nv; v++) {
		home[v] = f->v[v].node >= 0 || f->v[v].rack >= 0 ? f->v[v].rack : -2;
		if (vtier(m, v) > maxtier)
			maxtier = vtier(m, v);
	}
	for (int t = 0; t <= maxtier; t++)
		for (int64_t v = 0; v < f->nv; v++) {
			if (home[v] != -2 || vtier(m, v) != t)
				continue;
			int32_t r = -2;
			for (int64_t k = deg[v]; k < deg[v + 1] && r != -1; k++) {
				int64_t w = adj[k];
				if (vtier(m, w) >= t && !(t == 0 && f->v[w].type != FX_V_SWITCH))
					continue;
				if (home[w] < 0)
					r = -1;
				else if (r == -2)
					r = home[w];
				else if (r != home[w])
					r = -1;
			}
			home[v] = r < 0 ? -1 : r;
		}
	return home;
}

/* Planes each role's chips outside nodes (in_nodes 0) or inside them
 * (in_nodes 1) spread over (distinct values, at most MAX_PLANE_GROUPS + 1). */
static void role_planes_of(const fx_fabric *f, int in_nodes, int planes[FX_MAX_ROLES])
{
	for (int r = 0; r < f->nroles; r++) {
		int32_t seen[MAX_PLANE_GROUPS + 1];
		int n = 0;
		for (int64_t v = 0; v < f->nv && n <= MAX_PLANE_GROUPS; v++) {
			const fx_vertex *x = &f->v[v];
			if (x->role != r || (x->node >= 0) != in_nodes || x->plane < 0)
				continue;
			int found = 0;
			for (int k = 0; k < n; k++)
				found |= seen[k] == x->plane;
			if (!found)
				seen[n++] = x->plane;
		}
		planes[r] = n;
	}
}

static void role_planes(const fx_fabric *f, int planes[FX_MAX_ROLES])
{
	role_planes_of(f, 0, planes);
}

static int planar(int n)
{
	return n >= 2 && n <= MAX_PLANE_GROUPS;
}

/* Plane columns (Unified Bus: L1 chip i of every node serves plane i, whose
 * L2 chips serve nothing else): when a role's chips inside nodes and
 * another's outside both spread over 2..16 planes, the node chips leave
 * their node boxes for one group per plane, and each plane's groups stand
 * in a cluster of their own ("plane i"), side by side, so plane i's L2
 * chips are seen wired to plane i's L1 chips alone.  pull[r]: role r's
 * node chips are so grouped.  Returns whether any is. */
static int plane_columns(const fx_fabric *f, const int planes[FX_MAX_ROLES], int pull[FX_MAX_ROLES])
{
	int in[FX_MAX_ROLES], outside = 0, any = 0;
	role_planes_of(f, 1, in);
	for (int r = 0; r < f->nroles; r++)
		outside |= planar(planes[r]);
	for (int r = 0; r < f->nroles; r++) {
		pull[r] = f->nnodes >= 2 && outside && planar(in[r]);
		any |= pull[r];
	}
	return any;
}

static int64_t column_cluster(rd_model *m, int32_t plane)
{
	char name[48], label[64];
	snprintf(name, sizeof name, "cluster_plane%d", plane);
	snprintf(label, sizeof label, "plane %d", plane);
	return rd_cluster_get(m, 2, -1, name, label);
}

static int64_t rack_cluster(rd_model *m, int32_t rack)
{
	char name[48], label[64];
	if (rack < 0)
		return -1;
	snprintf(name, sizeof name, "cluster_rack%d", rack);
	snprintf(label, sizeof label, "%s %d", m->unit, rack);
	return rd_cluster_get(m, 0, -1, name, label);
}

static int64_t node_cluster(rd_model *m, int32_t rack, int32_t node)
{
	char name[48], label[64];
	snprintf(name, sizeof name, "cluster_node%d", node);
	snprintf(label, sizeof label, "node %d", node);
	return rd_cluster_get(m, 1, rack_cluster(m, rack), name, label);
}

static int64_t plane_cluster(rd_model *m, int32_t rack, int role, int32_t plane)
{
	char name[48], label[64];
	snprintf(name, sizeof name, "cluster_%s_p%d", m->f->roles[role].name, plane);
	for (char *p = name; *p; p++)
		if (*p == '-' || *p == '.')
			*p = '_';
	snprintf(label, sizeof label, "%s plane %d", m->f->roles[role].name, plane);
	return rd_cluster_get(m, 2, rack_cluster(m, rack), name, label);
}

static void box_meta(rd_model *m, int64_t b, int64_t v, int32_t rack)
{
	rd_box *x = &m->box[b];
	const fx_vertex *fv = &m->f->v[v];
	x->rack = rack;
	x->tier = vtier(m, v);
	if (x->kind == RD_SWITCH || x->kind == RD_GROUP) {
		x->role = fv->role;
		x->plane = fv->plane;
	}
}

static void build_full(rd_model *m, const int32_t *home, const int planes[FX_MAX_ROLES],
		       const int64_t *node_size)
{
	const fx_fabric *f = m->f;
	for (int64_t v = 0; v < f->nv; v++) {
		const fx_vertex *x = &f->v[v];
		int64_t cl;
		if (x->node >= 0 && node_size[x->node] > 1)
			cl = node_cluster(m, x->rack, x->node);
		else if (x->type == FX_V_SWITCH && x->role >= 0 && x->plane >= 0 &&
			 planes[x->role] >= 2 && planes[x->role] <= MAX_PLANE_GROUPS)
			cl = plane_cluster(m, home[v], x->role, x->plane);
		else
			cl = rack_cluster(m, home[v]);
		int64_t b = rd_box_new(m, (rd_kind)x->type, cl);
		rd_box_add(m, b, v);
		box_meta(m, b, v, home[v]);
		m->box[b].node = x->node;
	}
}

/* Key of a group box for vertices outside nodes. */
typedef struct gkey {
	int32_t home, plane;
	int type, role, tier;
	int64_t box;
} gkey;

/* Whether to draw one box per rack: many racks that hold their own switches
 * (a leaf-spine or fat-tree whose pods are racks: 16 racks of a leaf and 4
 * nodes draw 7,000 px wide as nodes), or too many nodes for one picture. */
#define RACK_BOXES_RACKS 4
#define RACK_BOXES_NODES 48

static int want_rack_boxes(const fx_fabric *f, const int32_t *home)
{
	int64_t nracks = 0, nodes = f->nnodes;
	int own_switches = 0;
	int32_t last = -1;
	for (int64_t v = 0; v < f->nv; v++) {
		const fx_vertex *x = &f->v[v];
		if (x->node >= 0 && x->rack >= 0 && x->rack != last) {
			if (x->rack > last)
				nracks++;
			last = x->rack;
		}
		own_switches |= x->node < 0 && x->type == FX_V_SWITCH && home[v] >= 0;
	}
	return nracks > RACK_BOXES_RACKS && (own_switches || nodes > RACK_BOXES_NODES);
}

/* Chips of a switch domain drawn one by one: at most this many a role. */
#define MAX_FAN_CHIPS 24

/* fan[r]: role r is an NVSwitch-like domain, 2..MAX_FAN_CHIPS chips
 * outside nodes (and no planes of their own), each wired to every device
 * (NVL72: 18 chips, link i of every GPU to chip i).  Its chips are drawn
 * one by one, so each GPU is seen fanned out to all of them, one edge a
 * chip carrying the count (collapsed per node area, merge_areas). */
static void fan_roles(const rd_model *m, const int planes[FX_MAX_ROLES], int fan[FX_MAX_ROLES])
{
	const fx_fabric *f = m->f;
	int64_t n[FX_MAX_ROLES] = {0};
	for (int r = 0; r < FX_MAX_ROLES; r++)
		fan[r] = r < f->nroles && !planar(planes[r]) && f->ndev >= 2;
	uint8_t *mark = fx_xcalloc((size_t)f->nv + 1, 1);
	for (int64_t v = 0; v < f->nv; v++) {
		const fx_vertex *x = &f->v[v];
		if (x->type != FX_V_SWITCH || x->role < 0 || x->role >= FX_MAX_ROLES || !fan[x->role])
			continue;
		int r = x->role;
		if (x->node >= 0 || ++n[r] > MAX_FAN_CHIPS) {
			fan[r] = 0;
			continue;
		}
		int64_t devs = 0;  /* distinct devices next to v */
		for (int64_t k = m->adj_start[v]; k < m->adj_start[v + 1]; k++) {
			int64_t w = m->adj[k];
			if (f->v[w].type == FX_V_DEVICE && !mark[w]) {
				mark[w] = 1;
				devs++;
			}
		}
		for (int64_t k = m->adj_start[v]; k < m->adj_start[v + 1]; k++)
			mark[m->adj[k]] = 0;
		fan[r] &= devs == f->ndev;
	}
	for (int r = 0; r < FX_MAX_ROLES; r++)
		fan[r] &= n[r] >= 2;
	free(mark);
}

static void build_aggregated(rd_model *m, const int32_t *home, const int planes[FX_MAX_ROLES])
{
	const fx_fabric *f = m->f;
	int fan[FX_MAX_ROLES];
	int32_t fan_seen[FX_MAX_ROLES] = {0};
	fan_roles(m, planes, fan);
	int multi = f->nnodes >= 2;
	int racks = multi && want_rack_boxes(f, home);
	int64_t *node_box = fx_xmalloc((size_t)(f->nnodes + 1) * sizeof *node_box);
	int64_t *rack_box = fx_xmalloc((size_t)(f->nracks + 1) * sizeof *rack_box);
	for (int64_t n = 0; n <= f->nnodes; n++)
		node_box[n] = -1;
	for (int64_t r = 0; r <= f->nracks; r++)
		rack_box[r] = -1;
	/* one node expanded: per type (and role), how many and the block size */
	int64_t cnt[3 + FX_MAX_ROLES] = {0}, seen[3 + FX_MAX_ROLES] = {0};
	int64_t cur[3 + FX_MAX_ROLES];
	for (int k = 0; k < 3 + FX_MAX_ROLES; k++)
		cur[k] = -1;
	if (!multi)
		for (int64_t v = 0; v < f->nv; v++)
			if (f->v[v].node >= 0)
				cnt[f->v[v].type == FX_V_SWITCH ? 3 + f->v[v].role : f->v[v].type]++;
	gkey *keys = NULL;
	size_t nkeys = 0, capkeys = 0;
	int pull[FX_MAX_ROLES];
	int columns = multi && plane_columns(f, planes, pull);
	for (int64_t v = 0; v < f->nv; v++) {
		const fx_vertex *x = &f->v[v];
		int64_t b = -1;
		int column = columns && x->type == FX_V_SWITCH && x->role >= 0 && x->plane >= 0 &&
			     (x->node >= 0 ? pull[x->role] : planar(planes[x->role]));
		if (racks && !column && home[v] >= 0 && home[v] < f->nracks) {
			if (rack_box[home[v]] < 0) {
				rack_box[home[v]] = rd_box_new(m, RD_RACK, -1);
				m->box[rack_box[home[v]]].rack = home[v];
			}
			rd_box_add(m, rack_box[home[v]], v);
			continue;
		}
		if (x->node >= 0 && multi && !column) {
			if (node_box[x->node] < 0) {
				node_box[x->node] = rd_box_new(m, RD_NODE, rack_cluster(m, x->rack));
				m->box[node_box[x->node]].node = x->node;
				m->box[node_box[x->node]].rack = x->rack;
			}
			b = node_box[x->node];
			rd_box_add(m, b, v);
			continue;
		}
		if (x->node >= 0 && !column) {  /* the single node, expanded */
			int k = x->type == FX_V_SWITCH ? 3 + x->role : x->type;
			int64_t per = 1;
			if (x->type != FX_V_SWITCH && cnt[k] > MAX_BLOCKS)
				per = (cnt[k] + MAX_BLOCKS - 1) / MAX_BLOCKS;
			int group_sw = x->type == FX_V_SWITCH && cnt[k] > MAX_SINGLE_SWITCHES;
			if (!group_sw) {
				if (seen[k] % per == 0)
					cur[k] = rd_box_new(m, per > 1 ? RD_BLOCK : (rd_kind)x->type,
							    node_cluster(m, x->rack, x->node));
				seen[k]++;
				b = cur[k];
				rd_box_add(m, b, v);
				box_meta(m, b, v, x->rack);
				m->box[b].node = x->node;
				continue;
			}
		}
		/* a group: per home rack, type, role and (for few planes) plane */
		int32_t plane = x->type == FX_V_SWITCH && x->role >= 0 && planes[x->role] >= 2 &&
					planes[x->role] <= MAX_PLANE_GROUPS ? x->plane : -1;
		if (x->node >= 0)
			plane = x->plane;
		if (x->type == FX_V_SWITCH && x->node < 0 && x->role >= 0 && x->role < FX_MAX_ROLES && fan[x->role])
			plane = fan_seen[x->role]++, m->fan_chips++;  /* each chip its own box */
		int32_t hr = column ? -1 : home[v];
		int tier = vtier(m, v);  /* one role, tiers from the graph: leaves apart from spines */
		for (size_t i = 0; i < nkeys && b < 0; i++)
			if (keys[i].home == hr && keys[i].plane == plane && keys[i].type == x->type &&
			    keys[i].role == x->role && keys[i].tier == tier)
				b = keys[i].box;
		if (b < 0) {
			int64_t cl = column ? column_cluster(m, plane) :
				     x->node >= 0 ? node_cluster(m, x->rack, x->node) : rack_cluster(m, hr);
			b = rd_box_new(m, x->type == FX_V_SWITCH ? RD_GROUP : RD_BLOCK, cl);
			keys = fx_xgrow(keys, &capkeys, nkeys + 1, sizeof *keys);
			keys[nkeys++] = (gkey){hr, plane, x->type, x->role, tier, b};
			box_meta(m, b, v, hr);
			m->box[b].plane = plane;
			m->box[b].node = column ? -1 : x->node;
		}
		rd_box_add(m, b, v);
	}
	/* a group of one is that vertex */
	for (int64_t b = 0; b < m->nbox; b++) {
		rd_box *x = &m->box[b];
		if ((x->kind == RD_GROUP || x->kind == RD_BLOCK) && x->n[0] + x->n[1] + x->n[2] == 1)
			x->kind = (rd_kind)f->v[x->first].type;
	}
	free(keys);
	free(node_box);
	free(rack_box);
}

/* Node boxes of a rack form an area past this many (see merge_areas). */
#define MANY_NODES 8

static void add_invis(rd_model *m, int64_t a, int64_t b, int flat)
{
	m->invis = fx_xgrow(m->invis, &m->capinvis, (size_t)m->ninvis + 1, sizeof *m->invis);
	m->invis[m->ninvis][0] = a;
	m->invis[m->ninvis][1] = b;
	m->invis[m->ninvis][2] = flat;
	m->ninvis++;
}

/* Keeps the plane groups of a role in plane order (dot). */
static void order_planes(rd_model *m)
{
	for (int64_t b = 0; b < m->nbox; b++) {
		const rd_box *x = &m->box[b];
		if ((x->kind != RD_GROUP && x->kind != RD_SWITCH) || x->plane < 0)
			continue;
		int64_t next = -1;
		for (int64_t c = 0; c < m->nbox; c++) {
			const rd_box *y = &m->box[c];
			if (y->kind == x->kind && y->role == x->role && y->cluster == x->cluster &&
			    y->plane > x->plane && (next < 0 || y->plane < m->box[next].plane))
				next = c;
		}
		if (next >= 0)
			add_invis(m, b, next, 1);
	}
}

/* Areas: boxes that stand together, their links to one box merged into one
 * edge clipped at the area's cluster.  The node boxes of a rack (with no
 * links between them) form an area when all their links leave the rack or
 * when there are MANY_NODES of them (the rack's cluster, or a cluster of
 * its own inside the rack when the rack also holds switches); rack boxes
 * (no links between them) form one area.  area[b]: the area of box b, -1. */
static void merge_areas(rd_model *m)
{
	int64_t nr = 0;
	for (int64_t b = 0; b < m->nbox; b++)
		if (m->box[b].rack + 1 > nr)
			nr = m->box[b].rack + 1;
	if (nr == 0)
		return;
	/* areas 0..nr-1: node boxes of rack r; nr: the rack boxes */
	int64_t na = nr + 1;
	int64_t *nodes = fx_xcalloc((size_t)na, sizeof *nodes);
	int64_t *cl = fx_xmalloc((size_t)na * sizeof *cl);
	int64_t *anchor = fx_xmalloc((size_t)na * sizeof *anchor);
	int64_t *area = fx_xmalloc((size_t)m->nbox * sizeof *area);
	uint8_t *other = fx_xcalloc((size_t)na, 1);   /* the rack holds boxes besides nodes */
	uint8_t *local = fx_xcalloc((size_t)na, 1);   /* area boxes link inside the area */
	uint8_t *merge = fx_xcalloc((size_t)na, 1);
	for (int64_t a = 0; a < na; a++)
		anchor[a] = -1;
	for (int64_t b = 0; b < m->nbox; b++) {
		const rd_box *x = &m->box[b];
		int64_t a = x->kind == RD_RACK ? nr : x->kind == RD_NODE && x->rack >= 0 ? x->rack : -1;
		area[b] = a;
		if (a >= 0) {
			nodes[a]++;
			if (anchor[a] < 0)
				anchor[a] = b;
		} else if (x->rack >= 0) {
			other[x->rack] = 1;
		}
	}
	for (int64_t i = 0; i < m->nedge; i++) {
		int64_t a = area[m->edge[i].a], b = area[m->edge[i].b];
		const rd_box *x = &m->box[m->edge[i].a], *y = &m->box[m->edge[i].b];
		if (a >= 0 && a == b)
			local[a] |= 2;
		else if (a >= 0 && a < nr && y->rack == a)
			local[a] |= 1;
		else if (b >= 0 && b < nr && x->rack == b)
			local[b] |= 1;
	}
	int any = 0;
	for (int64_t a = 0; a < na; a++) {
		merge[a] = nodes[a] >= 2 && local[a] < 2 && (a == nr || !local[a] || nodes[a] >= MANY_NODES);
		any |= merge[a];
	}
	if (!any)
		goto out;
	for (int64_t a = 0; a < na; a++) {
		char name[48], label[64];
		int64_t lo = -1, hi = -1;
		if (!merge[a])
			continue;
		for (int64_t b = 0; b < m->nbox; b++)
			if (area[b] == a) {
				int32_t id = a == nr ? m->box[b].rack : m->box[b].node;
				if (lo < 0)
					lo = id;
				hi = a == nr && m->box[b].rack_hi > id ? m->box[b].rack_hi : id;
			}
		if (a == nr) {
			snprintf(label, sizeof label, "%ss %lld–%lld", m->unit, (long long)lo, (long long)hi);
			cl[a] = rd_cluster_get(m, 3, -1, "cluster_racks", label);
		} else {
			cl[a] = rack_cluster(m, (int32_t)a);
			if (other[a]) {
				snprintf(name, sizeof name, "cluster_rack%lld_nodes", (long long)a);
				snprintf(label, sizeof label, "nodes %lld–%lld", (long long)lo, (long long)hi);
				cl[a] = rd_cluster_get(m, 1, cl[a], name, label);
			}
		}
		for (int64_t b = 0; b < m->nbox; b++)
			if (area[b] == a)
				m->box[b].cluster = cl[a];
	}
	/* merged edges: a box of a merged area stands for its area */
	rd_edge *old = m->edge;
	int64_t nold = m->nedge;
	m->edge = NULL;
	m->nedge = 0;
	m->capedge = 0;
	pairmap h;
	pairmap_init(&h, (size_t)nold);
	int64_t nkeys = m->nbox + na;
	for (int64_t i = 0; i < nold; i++) {
		const rd_edge *e = &old[i];
		int64_t aa = area[e->a], ab = area[e->b];
		int ma = aa >= 0 && merge[aa], mb = ab >= 0 && merge[ab];
		int64_t ka = ma ? m->nbox + aa : e->a, kb = mb ? m->nbox + ab : e->b;
		int64_t before = m->nedge;
		add_link(m, &h, nkeys, ka, kb, e->a, e->b, e->links, e->bw, e->link_bw, e->util,
			 e->media, e->wrap);
		if (m->nedge > before) {  /* new: drawn between real boxes, a over b */
			rd_edge *n = &m->edge[before];
			n->a = ma ? anchor[aa] : e->a;
			n->b = mb ? anchor[ab] : e->b;
			n->ltail = ma ? (int32_t)cl[aa] : -1;
			n->lhead = mb ? (int32_t)cl[ab] : -1;
		}
	}
	pairmap_release(&h);
	free(old);
	m->compound = 1;
out:
	free(nodes);
	free(cl);
	free(anchor);
	free(area);
	free(other);
	free(local);
	free(merge);
}

/* ---- tiers (dot) ---- */

/* Boxes per row of the bottom tier: narrow boxes (devices) up to 16, wide
 * ones (nodes, racks) up to 8, about sqrt(3 n) so the picture stays within
 * 3:1 either way. */
static int64_t row_width(int64_t n, int wide)
{
	int64_t cap = wide ? 8 : 16;
	if (!wide && n <= cap)
		return n;
	int64_t p = (int64_t)ceil(sqrt(3.0 * (double)n));
	return p < 1 ? 1 : p > cap ? cap : p;
}

/* The bottom boxes that stay together: a rack's (rack boxes: all of them). */
static int32_t bottom_group(const rd_box *x)
{
	return x->kind == RD_RACK ? -2 : x->rack;
}

/* Orders boxes of one level: rack, node, then vertex id. */
static int box_order_cmp(const void *pa, const void *pb, void *ctx);
static int box_pos_cmp(const rd_model *m, int64_t a, int64_t b)
{
	return box_order_cmp(&a, &b, (void *)m);
}
static int box_order_cmp(const void *pa, const void *pb, void *ctx)
{
	const rd_model *m = ctx;
	const rd_box *a = &m->box[*(const int64_t *)pa];
	const rd_box *b = &m->box[*(const int64_t *)pb];
	if (a->rack != b->rack)
		return a->rack < b->rack ? -1 : 1;
	if (a->plane != b->plane)
		return a->plane < b->plane ? -1 : 1;
	if (a->node != b->node)
		return a->node < b->node ? -1 : 1;
	if ((a->kind == RD_CPU) != (b->kind == RD_CPU))
		return a->kind == RD_CPU ? 1 : -1;
	return a->first < b->first ? -1 : a->first > b->first;
}

/* The outermost cluster holding box b, -1. */
static int64_t root_cluster(const rd_model *m, int64_t b)
{
	int64_t c = m->box[b].cluster;
	while (c >= 0 && m->cl[c].parent >= 0)
		c = m->cl[c].parent;
	return c;
}

/* A bottom in several rows, of several clusters (racks): edges from above
 * to each rack would run down beside the upper rows and spread the picture
 * (CloudMatrix384: 84 edges to 12 racks in 6 rows drew 6,000 px wide), so
 * the bottom becomes one area and each upper box gets one edge to it,
 * clipped at the area's border. */
static void merge_bottom(rd_model *m, int bottom)
{
	int64_t anchor = -1, first_cl = -2, lo = -1, hi = -1;
	int several = 0, rows = 0, racks = 1;
	for (int64_t b = 0; b < m->nbox; b++) {
		const rd_box *x = &m->box[b];
		if (x->level < bottom)
			continue;
		int64_t c = root_cluster(m, b);
		if (first_cl == -2)
			first_cl = c;
		several |= c != first_cl || c < 0;
		rows |= x->level > bottom;
		racks &= x->rack >= 0;
		if (anchor < 0 || (x->level == bottom && m->box[anchor].level == bottom &&
				   box_pos_cmp(m, b, anchor) < 0) || m->box[anchor].level != bottom)
			anchor = b;
	}
	if (!several || !rows || anchor < 0)
		return;
	char label[64];
	for (int64_t b = 0; b < m->nbox; b++) {
		const rd_box *x = &m->box[b];
		int32_t id = racks ? x->rack : x->node;
		if (x->level < bottom || id < 0)
			continue;
		if (lo < 0 || id < lo)
			lo = id;
		if (id > hi)
			hi = id;
	}
	snprintf(label, sizeof label, "%s%s %lld–%lld", racks ? m->unit : "node", "s", (long long)lo,
		 (long long)hi);
	int64_t area = rd_cluster_get(m, 3, -1, "cluster_bottom", label);
	for (int64_t b = 0; b < m->nbox; b++) {
		if (m->box[b].level < bottom)
			continue;
		int64_t c = root_cluster(m, b);
		if (c < 0)
			m->box[b].cluster = area;
		else if (c != area)
			m->cl[c].parent = area;
	}
	rd_edge *old = m->edge;
	int64_t nold = m->nedge;
	m->edge = NULL;
	m->nedge = 0;
	m->capedge = 0;
	pairmap h;
	pairmap_init(&h, (size_t)nold);
	for (int64_t i = 0; i < nold; i++) {
		const rd_edge *e = &old[i];
		int down = m->box[e->a].level < bottom && m->box[e->b].level >= bottom;
		int64_t kb = down ? m->nbox : e->b;
		int64_t before = m->nedge;
		int64_t k = add_link(m, &h, m->nbox + 1, e->a, kb, e->a, e->b, e->links, e->bw,
				     e->link_bw, e->util, e->media, e->wrap);
		rd_edge *n = &m->edge[k];  /* after add_link: it may move m->edge */
		if (m->nedge > before) {
			n->a = e->a;
			n->b = down ? anchor : e->b;
			n->ltail = e->ltail;
			n->lhead = down ? (int32_t)area : e->lhead;
			n->parts = 0;
		}
		n->parts += e->parts - (m->nedge > before ? 0 : 1);
	}
	pairmap_release(&h);
	free(old);
	m->compound = 1;
	char *p = strstr(m->how, "; links");  /* say so in the caption */
	if (p)
		*p = '\0';
	if (strlen(m->how) + 48 < sizeof m->how)
		strcat(m->how, "; each upper box's links into the area drawn as one edge");
}

static int box_level_cmp(const void *pa, const void *pb, void *ctx)
{
	const rd_model *m = ctx;
	const rd_box *a = &m->box[*(const int64_t *)pa];
	const rd_box *b = &m->box[*(const int64_t *)pb];
	if (a->level != b->level)
		return a->level < b->level ? -1 : 1;
	return box_order_cmp(pa, pb, ctx);
}

/* Clos, NVSwitch and UB pictures in tiers: each switch tier a rank of its
 * own, the highest on top, devices (nodes, racks) at the bottom in rows in
 * numeric order, left to right.  Sets each box's level; emit.c fixes them
 * with rank=same subgraphs and chains each level in order. */
static int tiers(rd_model *m)
{
	int seen[64] = {0}, ntier = 0, top = 0;
	for (int64_t b = 0; b < m->nbox; b++) {
		int t = m->box[b].tier;
		if (t < 0 || t >= 64)
			return 0;
		if (t > 0 && !seen[t]) {
			seen[t] = 1;
			ntier++;
		}
		if (t > top)
			top = t;
	}
	if (ntier == 0)
		return 0;
	int lev[64], k = 0;
	for (int t = top; t > 0; t--)
		if (seen[t])
			lev[t] = k++;
	/* the bottom: boxes of tier 0 in order, in rows; a rack stays together
	 * unless it holds switches of its own (its tiers sit side by side) */
	int64_t *bot = fx_xmalloc((size_t)m->nbox * sizeof *bot), n = 0;
	int wide = 0, rack_switches = 0;
	for (int64_t b = 0; b < m->nbox; b++) {
		rd_box *x = &m->box[b];
		if (x->tier > 0) {
			x->level = lev[x->tier];
			rack_switches |= x->rack >= 0 && x->cluster >= 0;
			continue;
		}
		bot[n++] = b;
		wide |= x->kind == RD_NODE || x->kind == RD_RACK;
	}
	fx_sort_r(bot, (size_t)n, sizeof *bot, box_order_cmp, m);
	int64_t groups = 0;
	for (int64_t i = 0; i < n; i++)
		groups += i == 0 || bottom_group(&m->box[bot[i]]) != bottom_group(&m->box[bot[i - 1]]);
	rack_switches &= groups > 1;  /* one rack: its nodes may take rows */
	int64_t p = rack_switches ? n : row_width(n, wide);
	/* racks of one size that fit a row share rows; else rows within a rack */
	int64_t per_rack = 0, row = 0, col = 0;
	for (int64_t i = 0, j; i < n; i = j) {
		for (j = i; j < n && bottom_group(&m->box[bot[j]]) == bottom_group(&m->box[bot[i]]); j++)
			;
		if (j - i > per_rack)
			per_rack = j - i;
	}
	int racks_share = !rack_switches && per_rack < n && per_rack <= p && m->box[bot[0]].rack >= 0 &&
			  m->box[bot[0]].kind != RD_RACK;
	int64_t rows = (n + p - 1) / (p > 0 ? p : 1);
	int64_t even = rows > 0 ? (n + rows - 1) / rows : n;  /* balanced rows */
	for (int64_t i = 0, j; i < n; i = j) {
		for (j = i; j < n && bottom_group(&m->box[bot[j]]) == bottom_group(&m->box[bot[i]]); j++)
			;
		if (racks_share) {
			if (col > 0 && col + (j - i) > p) {
				row++;
				col = 0;
			}
			for (int64_t q = i; q < j; q++)
				m->box[bot[q]].level = k + (int)row;
			col += j - i;
		} else if (rack_switches) {
			for (int64_t q = i; q < j; q++)
				m->box[bot[q]].level = k;
		} else {
			int64_t per = per_rack < n ? (j - i + (j - i + p - 1) / p - 1) / ((j - i + p - 1) / p) : even;
			for (int64_t q = i; q < j; q++) {
				m->box[bot[q]].level = k + (int)(row + (q - i) / per);
			}
			row += (j - i + per - 1) / per;
		}
	}
	if (racks_share)
		row++;
	m->nlevels = k + (int)(rack_switches ? 1 : row);
	for (int64_t i = 0; i < n; i++)
		if (m->box[bot[i]].level + 1 > m->nlevels)
			m->nlevels = m->box[bot[i]].level + 1;
	free(bot);
	/* each level chained left to right in order, its first box over the
	 * next level's first (a level without edges up keeps its place) */
	int64_t *all = fx_xmalloc((size_t)m->nbox * sizeof *all);
	for (int64_t b = 0; b < m->nbox; b++)
		all[b] = b;
	fx_sort_r(all, (size_t)m->nbox, sizeof *all, box_level_cmp, m);
	for (int64_t i = 0; i + 1 < m->nbox; i++) {
		const rd_box *x = &m->box[all[i]], *y = &m->box[all[i + 1]];
		if (x->level == y->level)
			add_invis(m, all[i], all[i + 1], 1);
	}
	for (int64_t i = 0, first = 0; i < m->nbox; i++)
		if (i > 0 && m->box[all[i]].level != m->box[all[i - 1]].level) {
			add_invis(m, all[first], all[i], 0);
			first = i;
		}
	free(all);
	return k;
}

/* ---- coarsening: a bounded drawing whatever the fabric's size ---- */

/* An aggregated drawing past COARSE_BOXES boxes or COARSE_EDGES edges (a
 * fat-tree of k = 56 drew 1,375 rack boxes and 1,766 edges, 34 s through
 * fdp) is coarsened: the bottom boxes (racks, nodes, device blocks) in at
 * most COARSE_RANGES ranges of consecutive racks (or ids), each switch box
 * with the range all its lower-tier neighbours fall in (else none), and
 * the boxes of one tier, role, plane and range merged into one.  A tier
 * left with more than COARSE_RANGES boxes loses its ranges, then its
 * planes.  Each try halves the ranges until the drawing fits (one range
 * is at most a box per tier, role and plane) within COARSE_TARGET_EDGES.
 * The result is laid out by dot, or pinned on a circle (circle()); either
 * costs little on that many boxes. */
#define COARSE_BOXES FX_RENDER_MAX_BOXES
#define COARSE_EDGES FX_RENDER_MAX_EDGES
#define COARSE_TARGET_EDGES 240
#define COARSE_RANGES 8

typedef struct ckey {
	int tier, role;
	int32_t plane;
	int64_t range;
	int64_t box;      /* the old box */
} ckey;

static int ckey_cmp(const void *pa, const void *pb, void *ctx)
{
	(void)ctx;
	const ckey *a = pa, *b = pb;
	if (a->tier != b->tier)
		return a->tier < b->tier ? -1 : 1;
	if (a->role != b->role)
		return a->role < b->role ? -1 : 1;
	if (a->plane != b->plane)
		return a->plane < b->plane ? -1 : 1;
	if (a->range != b->range)
		return a->range < b->range ? -1 : 1;
	return (a->box > b->box) - (a->box < b->box);
}

static int ckey_same(const ckey *a, const ckey *b)
{
	return a->tier == b->tier && a->role == b->role && a->plane == b->plane && a->range == b->range;
}

static int i32_cmp(const void *pa, const void *pb, void *ctx)
{
	(void)ctx;
	int32_t a = *(const int32_t *)pa, b = *(const int32_t *)pb;
	return (a > b) - (a < b);
}

/* The ranges of the old boxes for nr ranges: range[b] (-1: none). */
static void coarse_ranges(const rd_model *m, int64_t nr, int64_t *range)
{
	int64_t nb = m->nbox;
	int32_t *racks = fx_xmalloc((size_t)(nb + 1) * sizeof *racks);
	int64_t nracks = 0, nfree = 0, seen_free = 0;
	for (int64_t b = 0; b < nb; b++) {
		range[b] = -1;
		if (m->box[b].tier == 0 && m->box[b].rack >= 0)
			racks[nracks++] = m->box[b].rack;
		else if (m->box[b].tier == 0)
			nfree++;
	}
	fx_sort_r(racks, (size_t)nracks, sizeof *racks, i32_cmp, NULL);
	int64_t u = 0;
	for (int64_t i = 0; i < nracks; i++)
		if (u == 0 || racks[u - 1] != racks[i])
			racks[u++] = racks[i];
	/* bottom boxes: by rack rank, or (no rack) by position in id order */
	int64_t *order = fx_xmalloc((size_t)(nb + 1) * sizeof *order);
	for (int64_t b = 0; b < nb; b++)
		order[b] = b;
	fx_sort_r(order, (size_t)nb, sizeof *order, box_order_cmp, (void *)m);
	for (int64_t i = 0; i < nb; i++) {
		const rd_box *x = &m->box[order[i]];
		if (x->tier != 0)
			continue;
		if (x->rack >= 0) {
			int64_t lo = 0, hi = u - 1;
			while (lo < hi) {
				int64_t mid = (lo + hi) / 2;
				if (racks[mid] < x->rack)
					lo = mid + 1;
				else
					hi = mid;
			}
			range[order[i]] = lo * nr / (u > 0 ? u : 1);
		} else {
			range[order[i]] = nr + seen_free++ * nr / nfree;
		}
	}
	free(order);
	free(racks);
	/* switch boxes, tier by tier upward: the range all their lower
	 * neighbours share */
	int top = 0;
	for (int64_t b = 0; b < nb; b++)
		if (m->box[b].tier > top)
			top = m->box[b].tier;
	int64_t *mine = fx_xmalloc((size_t)(nb + 1) * sizeof *mine);
	for (int t = 1; t <= top; t++) {
		for (int64_t b = 0; b < nb; b++)
			mine[b] = -2;
		for (int64_t i = 0; i < m->nedge; i++) {
			int64_t a = m->edge[i].a, c = m->edge[i].b;
			for (int side = 0; side < 2; side++, a ^= c, c ^= a, a ^= c) {
				if (m->box[a].tier != t || m->box[c].tier >= t)
					continue;
				int64_t r = range[c];
				mine[a] = mine[a] == -2 ? r : mine[a] == r ? r : -1;
			}
		}
		for (int64_t b = 0; b < nb; b++)
			if (m->box[b].tier == t)
				range[b] = mine[b] < 0 ? -1 : mine[b];
	}
	free(mine);
}

/* Builds the coarse boxes of the old boxes, their vertices (old_of) and
 * ranges into m (which has no boxes yet), and m->box_of; firstbox[new
 * box] is the first old box it stands for. */
static void coarse_build(rd_model *m, const rd_box *old, int64_t nold, const int64_t *old_of,
			 const int64_t *range, int64_t *firstbox)
{
	ckey *k = fx_xmalloc((size_t)(nold + 1) * sizeof *k);
	for (int64_t b = 0; b < nold; b++) {
		const rd_box *x = &old[b];
		k[b] = (ckey){x->tier, x->tier > 0 ? x->role : -1, x->tier > 0 ? x->plane : -1,
			      range[b], b};
	}
	/* a tier of more than COARSE_RANGES boxes loses its ranges, then its planes */
	for (int drop = 0; drop < 2; drop++) {
		fx_sort_r(k, (size_t)nold, sizeof *k, ckey_cmp, NULL);
		int64_t per[64] = {0};
		for (int64_t i = 0; i < nold; i++)
			if (k[i].tier > 0 && k[i].tier < 64 && (i == 0 || !ckey_same(&k[i], &k[i - 1])))
				per[k[i].tier]++;
		for (int64_t i = 0; i < nold; i++)
			if (k[i].tier > 0 && k[i].tier < 64 && per[k[i].tier] > COARSE_RANGES) {
				if (drop == 0)
					k[i].range = -1;
				else
					k[i].plane = -1;
			}
	}
	fx_sort_r(k, (size_t)nold, sizeof *k, ckey_cmp, NULL);
	/* one new box per distinct key, made in the order of their first old box */
	int64_t *cmap = fx_xmalloc((size_t)(nold + 1) * sizeof *cmap);
	int64_t *firstold = fx_xmalloc((size_t)(nold + 1) * sizeof *firstold);
	int64_t *members = fx_xmalloc((size_t)(nold + 1) * sizeof *members);
	int64_t nk = 0;
	for (int64_t i = 0, j; i < nold; i = j) {
		for (j = i + 1; j < nold && ckey_same(&k[j], &k[i]); j++)
			;
		int64_t lo = k[i].box;
		for (int64_t q = i; q < j; q++) {
			cmap[k[q].box] = nk;
			if (k[q].box < lo)
				lo = k[q].box;
		}
		firstold[nk] = lo;
		members[nk] = j - i;
		nk++;
	}
	free(k);
	int64_t *made = fx_xmalloc((size_t)(nk + 1) * sizeof *made);
	for (int64_t q = 0; q < nk; q++)
		made[q] = -1;
	int64_t *newof = fx_xmalloc((size_t)(nk + 1) * sizeof *newof);
	for (int64_t b = 0; b < nold; b++) {
		int64_t q = cmap[b];
		if (made[q] >= 0)
			continue;
		made[q] = 1;
		const rd_box *x = &old[firstold[q]];
		rd_kind kind = x->kind;
		if (members[q] > 1)
			kind = x->tier > 0 ? RD_GROUP : x->rack >= 0 ? RD_RACK : RD_BLOCK;
		int64_t nbx = rd_box_new(m, kind, -1);
		rd_box *y = &m->box[nbx];
		y->tier = x->tier;
		y->rack = x->rack;
		y->node = members[q] > 1 ? -1 : x->node;
		y->role = x->tier > 0 ? x->role : -1;
		y->plane = x->plane;
		y->merged = members[q];
		newof[q] = nbx;
		firstbox[nbx] = firstold[q];
	}
	/* the racks, planes and roles the merged boxes keep */
	for (int64_t b = 0; b < nold; b++) {
		rd_box *y = &m->box[newof[cmap[b]]];
		const rd_box *x = &old[b];
		if (y->merged <= 1)
			continue;
		int32_t hi = x->rack_hi > x->rack ? x->rack_hi : x->rack;
		if (y->kind == RD_RACK) {
			if (x->rack < y->rack)
				y->rack = x->rack;
			if (hi > y->rack_hi)
				y->rack_hi = hi;
		} else if (y->rack != x->rack) {
			y->rack = -1;
		}
		if (y->plane != x->plane)
			y->plane = -1;
	}
	for (int64_t v = 0; v < m->f->nv; v++)
		rd_box_add(m, newof[cmap[old_of[v]]], v);
	free(newof);
	free(made);
	free(cmap);
	free(firstold);
	free(members);
}

static void coarsen(rd_model *m)
{
	if (m->nbox <= COARSE_BOXES && m->nedge <= COARSE_EDGES)
		return;
	rd_model old = *m;  /* the finer drawing: its boxes, edges and box_of */
	int64_t *range = fx_xmalloc((size_t)(old.nbox + 1) * sizeof *range);
	int64_t *firstbox = fx_xmalloc((size_t)(old.nbox + 1) * sizeof *firstbox);
	m->box_of = fx_xmalloc((size_t)(m->f->nv + 1) * sizeof *m->box_of);
	m->edge = NULL;
	for (int64_t nr = COARSE_RANGES;; nr /= 2) {
		coarse_ranges(&old, nr, range);
		m->box = NULL;
		m->nbox = 0;
		m->capbox = 0;
		m->nedge = 0;
		m->capedge = 0;
		coarse_build(m, old.box, old.nbox, old.box_of, range, firstbox);
		m->coarse = (int)nr;
		rd_edges_build(m);
		if ((m->nbox <= COARSE_BOXES && m->nedge <= COARSE_TARGET_EDGES) || nr == 1)
			break;
		free(m->box);  /* too many still: fewer ranges */
		free(m->edge);
		m->edge = NULL;
	}
	/* every coarse box sits at the top but plane columns (cluster kind 2),
	 * which keep their plane's boxes together */
	rd_cluster *cl = fx_xmalloc((size_t)(old.ncl + 1) * sizeof *cl);
	if (old.ncl)  /* memcpy from NULL is undefined even for 0 bytes (UBSan) */
		memcpy(cl, old.cl, (size_t)old.ncl * sizeof *cl);
	m->ncl = 0;
	for (int64_t b = 0; b < m->nbox; b++) {
		int64_t c = old.box[firstbox[b]].cluster;
		if (c >= 0 && cl[c].kind == 2 && cl[c].parent < 0 && m->box[b].plane >= 0)
			m->box[b].cluster = rd_cluster_get(m, 2, -1, cl[c].name, cl[c].label);
	}
	free(cl);
	free(firstbox);
	free(old.box);
	free(old.edge);
	free(old.box_of);
	free(range);
}

/* Whether every edge stands for the same links, and there are so many that
 * repeating the label would bury the picture: then it goes in the title. */
static int uniform_edges(const rd_model *m)
{
	if (m->nedge < UNIFORM_EDGES)
		return 0;
	const rd_edge *z = &m->edge[0];
	for (int64_t i = 0; i < m->nedge; i++) {
		const rd_edge *x = &m->edge[i];
		if (x->links != z->links || x->link_bw != z->link_bw || x->link_bw <= 0 ||
		    x->parts != z->parts || (x->ltail >= 0) != (z->ltail >= 0) ||
		    (x->lhead >= 0) != (z->lhead >= 0))
			return 0;
	}
	return 1;
}

static const char *choose_engine(const rd_model *m)
{
	if (m->x->engine)
		return m->x->engine;
	if (m->lattice)
		return "neato";
	if (m->nbox <= DOT_MAX_BOXES && m->nedge <= DOT_MAX_EDGES)
		return "dot";
	if (!m->o->detail_full && m->nbox <= COARSE_BOXES)
		return "circle";  /* pinned by circle(), drawn by neato */
	return m->nbox <= FDP_MAX_BOXES ? "fdp" : "sfdp";
}

/* Too many edges for dot's tiers among few boxes (a dragonfly's 33 groups,
 * every two joined: 528 edges): the boxes pinned on a circle in order, so
 * every edge is a chord that crosses no box and neato only draws it (no
 * search: its cost is the edges').  Box i sits at angle 2 pi i / n from
 * the top, clockwise. */
static void circle(rd_model *m)
{
	int64_t n = m->nbox;
	int64_t *order = fx_xmalloc((size_t)(n + 1) * sizeof *order);
	for (int64_t b = 0; b < n; b++)
		order[b] = b;
	fx_sort_r(order, (size_t)n, sizeof *order, box_order_cmp, m);
	/* boxes about 2.2 in wide and 0.9 high, 0.4 in apart round the rim */
	double r = fmax(2.0, (double)n * 1.8 / (2 * M_PI_CIRCLE));
	for (int64_t i = 0; i < n; i++) {
		rd_box *x = &m->box[order[i]];
		double a = 2 * M_PI_CIRCLE * (double)i / (double)n;
		x->pinned = 1;
		x->x = 1.6 * r * sin(a);  /* wider than high, as the boxes are */
		x->y = r * cos(a);
	}
	free(order);
	m->circle = 1;
	m->ncl = 0;  /* clusters would overlap the rim */
	for (int64_t b = 0; b < n; b++)
		m->box[b].cluster = -1;
}

/* A hybrid cube-mesh (DGX-1, NVIDIA's DGX-1 whitepaper figure): 8 device
 * boxes, two fully connected quads and each device of one joined to one
 * of the other.  Drawn as NVIDIA draws it, a cube: quad A the front face,
 * quad B the back face offset up and right, the quads' diagonals across
 * their faces, the matching as the cube's depth edges.  Returns whether
 * the boxes were so pinned (then neato draws them, straight). */
static int cube(rd_model *m)
{
	if (m->nbox != 8 || m->nedge != 16)
		return 0;
	for (int64_t b = 0; b < 8; b++)
		if (m->box[b].kind != RD_DEVICE)
			return 0;
	int adj[8][8] = {{0}};
	for (int64_t i = 0; i < m->nedge; i++) {
		int64_t a = m->edge[i].a, b = m->edge[i].b;
		if (a < 0 || a >= 8 || b < 0 || b >= 8 || a == b)
			return 0;
		adj[a][b] = adj[b][a] = 1;
	}
	/* quad A: box 0 and three others, all joined; B the rest, all joined;
	 * each of A joined to exactly one of B */
	for (int mask = 0; mask < 256; mask++) {
		if (!(mask & 1) || __builtin_popcount((unsigned)mask) != 4)
			continue;
		int ok = 1, partner[8];
		for (int u = 0; u < 8 && ok; u++) {
			int out = 0;
			for (int v = 0; v < 8; v++) {
				if (u == v)
					continue;
				int same = ((mask >> u) & 1) == ((mask >> v) & 1);
				if (same && !adj[u][v])
					ok = 0;
				if (!same && adj[u][v])
					out++, partner[u] = v;
			}
			ok &= out == 1;
		}
		if (!ok)
			continue;
		/* front face: A in box order at the corners; back: their partners */
		static const double cx[4] = {0, 1, 0, 1}, cy[4] = {0, 0, 1, 1};
		const double W = 4.6, H = 2.4, DX = 1.9, DY = 3.0;  /* inches: the back face above, clear of the front's diagonals */
		int k = 0;
		for (int u = 0; u < 8; u++) {
			if (!((mask >> u) & 1))
				continue;
			rd_box *a = &m->box[u], *b = &m->box[partner[u]];
			a->pinned = b->pinned = 1;
			a->x = W * cx[k], a->y = H * cy[k];
			b->x = W * cx[k] + DX, b->y = H * cy[k] + DY;
			k++;
		}
		m->circle = 1;  /* pinned, drawn straight by neato */
		m->cube = 1;
		m->ncl = 0;
		for (int64_t b = 0; b < 8; b++)
			m->box[b].cluster = -1;
		return 1;
	}
	return 0;
}

/* Pods from the graph: the parts the top switch tier joins (what is left
 * connected without it: a three-tier fat-tree's pods of leaves,
 * aggregation switches and hosts).  Where they do not match the racks (a
 * k=8 fat-tree's racks hold two pods each), the drawing's clusters and
 * boxes are the pods: m->pods, a copy of the fabric whose vertices' racks
 * are their pods (the top tier in none), and m->f points to it.  Needs
 * three tiers or more, 2 pods or more, every device in one. */
static void find_pods(rd_model *m)
{
	const fx_fabric *f = m->f;
	int top = 0;
	for (int64_t v = 0; v < f->nv; v++)
		if (m->vtier[v] > top)
			top = m->vtier[v];
	if (top < 3 || m->tiers_derived || f->nracks < 1)
		return;
	int64_t *pod = fx_xmalloc((size_t)(f->nv + 1) * sizeof *pod), npods = 0;
	int64_t *queue = fx_xmalloc((size_t)(f->nv + 1) * sizeof *queue);
	for (int64_t v = 0; v < f->nv; v++)
		pod[v] = -1;
	for (int64_t s = 0; s < f->nv; s++) {
		if (pod[s] >= 0 || m->vtier[s] >= top || f->v[s].type != FX_V_DEVICE)
			continue;
		int64_t head = 0, tail = 0;
		pod[s] = npods;
		queue[tail++] = s;
		while (head < tail) {
			int64_t v = queue[head++];
			for (int64_t k = m->adj_start[v]; k < m->adj_start[v + 1]; k++) {
				int64_t w = m->adj[k];
				if (pod[w] < 0 && m->vtier[w] < top) {
					pod[w] = npods;
					queue[tail++] = w;
				}
			}
		}
		npods++;
	}
	free(queue);
	/* pods that match the racks (each rack's devices one pod, each pod's
	 * one rack) change nothing */
	int aligned = 1, placed = 1;
	int64_t *rack_pod = fx_xmalloc((size_t)(f->nracks + 1) * sizeof *rack_pod);
	int32_t *pod_rack = fx_xmalloc((size_t)(npods + 1) * sizeof *pod_rack);
	for (int64_t r = 0; r <= f->nracks; r++)
		rack_pod[r] = -1;
	for (int64_t p = 0; p <= npods; p++)
		pod_rack[p] = -1;
	for (int64_t v = 0; v < f->nv; v++) {
		const fx_vertex *x = &f->v[v];
		if (x->type != FX_V_DEVICE)
			continue;
		placed &= pod[v] >= 0;
		if (pod[v] < 0 || x->rack < 0 || x->rack >= f->nracks)
			continue;
		if (rack_pod[x->rack] < 0)
			rack_pod[x->rack] = pod[v];
		aligned &= rack_pod[x->rack] == pod[v];
		if (pod_rack[pod[v]] < 0)
			pod_rack[pod[v]] = x->rack;
		aligned &= pod_rack[pod[v]] == x->rack;
	}
	free(rack_pod);
	free(pod_rack);
	if (!aligned && placed && npods >= 2 && npods <= INT32_MAX) {
		fx_fabric *c = fx_xmalloc(sizeof *c);
		*c = *f;  /* a shallow copy: only the vertices differ */
		c->v = fx_xmalloc((size_t)(f->nv + 1) * sizeof *c->v);
		memcpy(c->v, f->v, (size_t)f->nv * sizeof *c->v);
		for (int64_t v = 0; v < f->nv; v++)
			c->v[v].rack = (int32_t)pod[v];
		c->nracks = npods;
		m->pods = c;
		m->f = c;
		snprintf(m->unit, sizeof m->unit, "pod");
	}
	free(pod);
}

int rd_model_build(rd_model *m, const fx_fabric *f, const fx_render_opts *o,
		   const fx_render_ext *x, fx_diag *d)
{
	memset(m, 0, sizeof *m);
	m->f = f;
	m->o = o;
	m->x = x;
	snprintf(m->unit, sizeof m->unit, "rack");
	char b1[32], b2[32], b3[32], b4[32];
	if (o->detail_full && (f->nv > FX_RENDER_MAX_FULL || f->ne > 5 * FX_RENDER_MAX_FULL))
		return fx_diag_error(d, NULL, "render: full detail would draw %s vertices and %s edges; "
				     "at most %s vertices and %s edges can be drawn readably (leave "
				     "out --detail full for the aggregated view)",
				     rd_int(f->nv, b1, sizeof b1), rd_int(f->ne, b2, sizeof b2),
				     rd_int(FX_RENDER_MAX_FULL, b3, sizeof b3),
				     rd_int(5 * FX_RENDER_MAX_FULL, b4, sizeof b4));
	m->box_of = fx_xmalloc((size_t)(f->nv > 0 ? f->nv : 1) * sizeof *m->box_of);
	fx_fabric_device_noun(f, m->noun, sizeof m->noun);
	if (f->ndims > 0 && f->nv == f->ndev) {
		m->lattice = 1;
		rd_lattice_build(m, o->detail_full || f->ndev <= 200);
	} else {
		int full = o->detail_full || (f->nv <= AUTO_FULL_VERTICES && f->ne <= AUTO_FULL_EDGES);
		adjacency(m);
		vertex_tiers(m);
		if (!full)
			find_pods(m);
		f = m->f;
		int32_t *home = home_racks(m);
		int planes[FX_MAX_ROLES];
		role_planes(f, planes);
		if (full) {
			int64_t *node_size = fx_xcalloc((size_t)f->nnodes + 1, sizeof *node_size);
			for (int64_t v = 0; v < f->nv; v++)
				if (f->v[v].node >= 0 && f->v[v].node < f->nnodes)
					node_size[f->v[v].node]++;
			build_full(m, home, planes, node_size);
			free(node_size);
			snprintf(m->how, sizeof m->how, "every vertex and link bundle drawn");
		} else {
			build_aggregated(m, home, planes);
			m->aggregated = 1;
		}
		free(home);
		rd_edges_build(m);
		if (!full)
			coarsen(m);
		if (!full && m->nbox <= DOT_MAX_BOXES &&
		    (!x->engine || strcmp(x->engine, "dot") == 0))
			merge_areas(m);
		if (!full) {
			int64_t nodes = 0, groups = 0, racks = 0;
			for (int64_t b = 0; b < m->nbox; b++) {
				nodes += m->box[b].kind == RD_NODE;
				groups += m->box[b].kind == RD_GROUP;
				racks += m->box[b].kind == RD_RACK;
			}
			if (m->coarse)
				snprintf(m->how, sizeof m->how, "aggregated to %lld boxes: %s in ranges of "
					 "consecutive ids, switches merged per tier, role and range",
					 (long long)m->nbox, racks ? (m->pods ? "pods" : "racks") : nodes ? "nodes" : m->noun);
			else if (racks)
				snprintf(m->how, sizeof m->how, "aggregated: one box per %s (%lld)%s%s",
					 m->unit, (long long)racks, groups ? ", switches grouped per role and plane" : "",
					 m->compound ? (m->pods ? "; links to the pods merged" : "; links to the racks merged") : "");
			else if (nodes && m->fan_chips)  /* NVL72: each GPU wired to every chip */
				snprintf(m->how, sizeof m->how, "aggregated: one box per node (%lld), each of the "
					 "%lld switch chips drawn, every %s wired to all of them%s",
					 (long long)nodes, (long long)m->fan_chips, m->noun,
					 m->compound ? "; links leaving a rack merged per rack" : "");
			else if (nodes)
				snprintf(m->how, sizeof m->how, "aggregated: one box per node (%lld)%s%s",
					 (long long)nodes, groups ? ", switches grouped per role and plane" : "",
					 m->compound ? "; links leaving a rack merged per rack" : "");
			else
				snprintf(m->how, sizeof m->how, "aggregated: %s blocks of consecutive ids%s",
					 m->noun, groups ? ", switches grouped per role and plane" : "");
		}
	}
	m->engine = choose_engine(m);
	if (!m->x->engine && strcmp(m->engine, "dot") == 0 && !m->lattice && cube(m)) {
		m->engine = "neato";
		snprintf(m->how, sizeof m->how, "every vertex and link bundle drawn; a hybrid cube-mesh "
			 "drawn as a cube (two fully joined quads, front and back)");
	}
	if (strcmp(m->engine, "circle") == 0) {
		circle(m);
		m->engine = "neato";
	}
	if (strcmp(m->engine, "dot") == 0 && !m->lattice) {
		int bottom = tiers(m);
		if (m->nlevels && !o->detail_full)
			merge_bottom(m, bottom);
	}
	m->edge_labels = m->nedge <= LABEL_MAX_EDGES;
	m->uniform = uniform_edges(m);
	if (o->view == FX_VIEW_PLACEMENT && m->nedge > 12)
		m->edge_labels = 0;  /* the devices are the point; links in tooltips */
	/* tiers: labels of many edges between two ranks stack into one wide band
	 * (HGX's 32 drew 3,000 px wide); colour tells, numbers in tooltips */
	if (o->view == FX_VIEW_LOADS && m->nlevels && m->nedge > 16)
		m->edge_labels = 0;
	if (o->view == FX_VIEW_LOADS && m->nedge >= UNIFORM_EDGES) {
		int same = 1;
		for (int64_t i = 1; i < m->nedge; i++)
			same &= lround(100 * m->edge[i].util) == lround(100 * m->edge[0].util);
		m->uniform_util = same;
		if (m->uniform && !same && m->nedge > 40)
			m->edge_labels = 0;  /* colour tells; numbers in tooltips */
	}
	/* dot: left to right when node areas stack (their columns become rows)
	 * or when many labelled edges would widen one rank */
	m->lr = strcmp(m->engine, "dot") == 0 && !m->nlevels &&
		(m->compound || (m->edge_labels && !m->uniform && m->nedge >= 16 &&
				 2 * m->nedge > 3 * m->nbox));
	if (strcmp(m->engine, "dot") == 0 && !m->nlevels)
		order_planes(m);
	return 0;
}

void rd_model_release(rd_model *m)
{
	free(m->box);
	free(m->box_of);
	free(m->edge);
	free(m->cl);
	free(m->invis);
	free(m->adj_start);
	free(m->adj);
	free(m->vtier);
	if (m->pods) {
		free(m->pods->v);
		free(m->pods);
	}
	memset(m, 0, sizeof *m);
}
