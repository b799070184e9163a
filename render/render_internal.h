/*
 * render internals: the drawing model between a fabric and Graphviz.
 *
 * model.c decides what is drawn: each fabric vertex maps to one box (itself
 * or an aggregate), each edge between two boxes stands for the fabric edges
 * between their vertices, and boxes sit in clusters (racks, nodes, planes).
 * lattice.c does the same for tori and meshes, with pinned positions.
 * emit.c turns the model into a cgraph graph with the view's styling;
 * render.c runs Graphviz; page.c lays panels out one by one and composes
 * them on one page.  Only emit.c, render.c and page.c include Graphviz
 * headers.
 */
#ifndef FX_RENDER_INTERNAL_H
#define FX_RENDER_INTERNAL_H

#include "render.h"

typedef enum rd_kind {
	RD_DEVICE = FX_V_DEVICE,  /* one vertex of each type */
	RD_SWITCH = FX_V_SWITCH,
	RD_CPU = FX_V_CPU,
	RD_NODE,                  /* everything of one node (tray, server) */
	RD_BLOCK,                 /* consecutive devices or CPUs of one node */
	RD_GROUP,                 /* switches of one role (and plane) */
	RD_LATTICE,               /* a block of lattice coordinates */
	RD_RACK                   /* everything of one rack (many racks) */
} rd_kind;

typedef struct rd_box {
	rd_kind kind;
	int64_t first, last;      /* lowest and highest vertex id it stands for */
	int64_t n[3];             /* vertices it holds, by fx_vtype */
	int64_t nrole[FX_MAX_ROLES];
	int64_t cluster;          /* innermost cluster, -1 for the root */
	int32_t rack, node, plane;
	int32_t rack_hi;          /* RD_RACK of a range of racks (coarsened): the last, else -1 */
	int64_t merged;           /* coarsened: boxes of the finer drawing it stands for, else 0 */
	int role;                 /* RD_GROUP / RD_SWITCH: the role, else -1 */
	int tier;                 /* dot ranking: 0 devices, role tier for switches */
	int64_t in_links;         /* links between vertices of this box */
	double in_bw;             /* their bandwidth, summed */
	double in_link_bw;        /* per link when all alike, else -1 */
	double in_util;           /* busiest inner directed link (loads) */
	int pinned;
	double x, y;              /* pinned position, inches */
	int lo[FX_MAX_DIMS], hi[FX_MAX_DIMS];  /* RD_LATTICE: coordinate range */
	int64_t units;            /* RD_LATTICE: packaging units (nodes) inside */
	char unit[16];            /* RD_LATTICE: what a block is ("rack", "node"; "" tiles) */
	int32_t unit_id;
	int64_t chain_next;       /* invisible dot edge that stacks boxes, -1 */
	int level;                /* tiered dot: rank from the top (0), -1 free */
} rd_box;

typedef struct rd_edge {
	int64_t a, b;             /* boxes; a is the upper tier (dot tail) */
	int64_t links;            /* physical links */
	double bw;                /* sum of links x per-link bandwidth */
	double link_bw;           /* per link when all alike, else -1 */
	double util;              /* busiest directed link (loads) */
	unsigned media;           /* bit set of fx_medium */
	int64_t parts;            /* box-to-box edges merged into this one */
	int32_t lhead, ltail;     /* clusters the edge is clipped at (dot), -1 */
	int wrap;                 /* lattice wraparound */
} rd_edge;

typedef struct rd_cluster {
	char name[48];            /* "cluster_rack3" */
	char label[64];
	int64_t parent;           /* -1 root */
	int kind;                 /* 0 rack, 1 node, 2 plane, 3 area of rack boxes */
} rd_cluster;

/* What the panels of a page drew, for the page's one legend (page.c):
 * rd_emit ORs each panel's into it. */
typedef struct rd_legend {
	fx_view view;
	int kinds[8];             /* box kinds drawn (rd_kind) */
	unsigned media;           /* bit set of fx_medium drawn */
	int fans;                 /* physical: panels whose edges are coloured by switch */
	int panels;               /* panels drawn */
	int64_t ninst;            /* placement: instances */
	int group;                /* placement: groups shaded */
	int failed;               /* failed elements marked */
	double umax;              /* loads: the scale's 100% */
	int absolute;             /* loads: the fixed ramp of link capacity (umax 1) */
	char noun[16];            /* the devices' noun (the first panel's) */
	char unit[8];             /* what rack boxes stand for (the first panel's) */
} rd_legend;

typedef struct rd_model {
	const fx_fabric *f;
	const fx_render_opts *o;
	const fx_render_ext *x;   /* never NULL */
	rd_box *box;
	int64_t nbox;
	size_t capbox;
	int64_t *box_of;          /* [nv] */
	rd_edge *edge;
	int64_t nedge;
	size_t capedge;
	rd_cluster *cl;
	int64_t ncl;
	size_t capcl;
	int64_t (*invis)[3];      /* invisible dot edges that place boxes: a, b, flat
				   * (same rank, a before b) */
	int64_t ninvis;
	size_t capinvis;
	int aggregated;
	int lattice;              /* pinned positions */
	int compound;             /* edges clipped at rack clusters */
	int64_t fan_chips;        /* chips of switch domains drawn one by one (model.c fan_roles) */
	const char *engine;       /* chosen layout engine */
	int edge_labels;          /* 0: labels only in tooltips (too many edges) */
	int uniform;              /* every edge alike: one label in the title */
	int uniform_util;         /* loads: and equally busy */
	int lr;                   /* dot: rank left to right (dense labelled edges) */
	int nlevels;              /* tiered dot: ranks fixed per box (rd_box.level) */
	int64_t *adj_start, *adj;  /* switched and custom: the vertices' neighbours (CSR) */
	int *vtier;               /* [nv] tier of each vertex (0 devices, CPUs) */
	int tiers_derived;        /* the tiers come from the graph, not the roles */
	int coarse;               /* coarsened into this many ranges (0: not) */
	int circle;               /* boxes pinned on a circle (neato), or as a cube */
	int cube;                 /* a hybrid cube-mesh pinned as a cube (model.c cube) */
	char unit[8];             /* what a rack cluster or box stands for: "rack", or "pod" */
	fx_fabric *pods;          /* pods drawn as racks: a copy of the fabric whose
				   * vertices' racks are their pods (m->f points here) */
	char how[224];            /* how the drawing aggregates, for the title */
	char noun[16];            /* what a device is called: "GPU", "NPU", "chip", "PE" */
	/* a panel of a page (page.c; zero for a picture of its own): */
	const char *prefix;       /* before every node and subgraph name, so panels' names differ */
	rd_legend *legend;        /* the page's legend: this panel's caption has none */
} rd_model;

/* Builds the model of f for o.  Returns 0, or -1 through d (detail refused). */
int rd_model_build(rd_model *m, const fx_fabric *f, const fx_render_opts *o,
		   const fx_render_ext *x, fx_diag *d);
void rd_model_release(rd_model *m);

/* model.c helpers shared with lattice.c */
int64_t rd_box_new(rd_model *m, rd_kind kind, int64_t cluster);
void rd_box_add(rd_model *m, int64_t b, int64_t v);
/* The cluster called name under parent (-1: the root), created if new. */
int64_t rd_cluster_get(rd_model *m, int kind, int64_t parent, const char *name, const char *label);
/* Merges every fabric edge into the box edges (and boxes' inner links). */
void rd_edges_build(rd_model *m);

/* Lattices: full or aggregated; sets pinned positions. */
void rd_lattice_build(rd_model *m, int full);

/* Builds the cgraph graph of the model with the view's styling (emit.c).
 * Returns 0, or -1 through d when Graphviz refuses something. */
struct Agraph_s;
int rd_emit(const rd_model *m, struct Agraph_s **out, fx_diag *d);

/* The page's legend as an HTML label (heading may be NULL); malloc'd. */
char *rd_legend_html(const rd_legend *l, const char *heading);

/* Graphviz plumbing shared by render.c and page.c (render.c). */
struct GVC_s;
struct GVC_s *rd_gv_context(void);
/* Starts collecting Graphviz messages; rd_gv_end restores the old handler. */
void rd_gv_begin(void);
void rd_gv_end(void);
/* Reports what Graphviz said since the last check; -1 if it had errors. */
int rd_gv_check(fx_diag *d, const char *what);
/* Checks the options, builds the model and its graph. */
int rd_build(const fx_fabric *f, const fx_render_opts *o, const fx_render_ext *x, rd_model *m,
	     struct Agraph_s **g, fx_diag *d);
/* Lays g out with engine and writes it to path (through core/outfile:
 * whole or not at all) in format: "dot" writes g unlaid.  flags:
 * RD_GV_FULL unbounded (detail_full: the size said in a note), RD_GV_RATIO
 * laid out again within 3:1 when the first layout is not.  *w, *h get the
 * picture's size at 96 dpi (0 for DOT).  Shared by render.c, floor.c and
 * racks.c. */
#define RD_GV_FULL 1u
#define RD_GV_RATIO 2u
int rd_gv_layout_write(struct Agraph_s *g, const char *engine, unsigned flags, const char *format,
		       const char *path, int64_t *w, int64_t *h, fx_diag *d);
/* The picture's size at 96 dpi after layout, bounded unless detail_full. */
void rd_picture_size(struct Agraph_s *g, int detail_full, int64_t *w, int64_t *h);

/* A cgraph discipline that numbers objects in creation order, so that
 * Graphviz visits subgraphs and nodes as they were made (its default
 * orders them by the address of their names: by heap layout). */
struct Agdisc_s;
struct Agdisc_s *rd_ordered_disc(void);

/* Formats n with thousands separators ("12,096"). */
const char *rd_int(int64_t n, char *buf, size_t len);

#endif
