/*
 * render: architecture diagrams with Graphviz (cgraph + gvc, in process).
 *
 * Three views of a fabric:
 *   physical   racks, nodes and planes as clusters; devices, CPUs and
 *              switches drawn differently; links labelled count x bandwidth.
 *              Switched fabrics in tiers (switch tiers on top, devices,
 *              nodes or racks below in numeric order); tori as grids with
 *              wraparounds as outward stubs, rings as circles.  Large
 *              fabrics are aggregated by default (one box per node or rack,
 *              switches grouped per role and plane, bundles of links as one
 *              edge with their count and total bandwidth; lattices as blocks
 *              of packaging units or of coordinates), within
 *              FX_RENDER_MAX_INCHES and FX_RENDER_MAX_BOXES; pods the top
 *              tier joins drawn as pods where they are not racks (a k=8
 *              fat-tree); planes of chips inside and outside nodes as
 *              parallel columns (Unified Bus); few boxes with too many
 *              edges for tiers on a circle (a dragonfly's groups);
 *              `detail_full` draws every vertex where that is sane
 *              (FX_RENDER_MAX_FULL).
 *   loads      the physical view with links coloured and thickened by
 *              utilisation (0..1 per directed link) relative to the busiest
 *              link (or, util_absolute, as the fraction of the link's
 *              capacity on a fixed ramp), idle links dotted, with the scale and the
 *              busiest and mean utilisation per link class (role pair or
 *              lattice dimension) in the legend.  A drawn edge shows the
 *              busiest directed link it stands for; a box that holds links
 *              (a node box, a lattice block) shows its busiest inner link.
 *   placement  devices coloured by instance (and shaded by group).
 *
 * Every drawn edge carries the attributes links= (physical links it stands
 * for) and bandwidth= (their sum, bytes/s per direction); every box holding
 * links carries inner_links= and inner_bandwidth=.  Over a drawing, links
 * and inner_links add up to fx_fabric_links().  The loads view's graph
 * carries util_max= (the utilisation drawn as 100%) and util_scale=
 * (relative or absolute).  The DOT text names its
 * layout engine (graph attribute layout=), so `dot -Tsvg file.dot` redraws
 * it (fabricx numbers cgraph objects in creation order, which keeps racks
 * in order; dot reading the file may order sibling clusters otherwise).
 * The same input gives the same bytes.
 *
 * This is the only module that includes Graphviz headers.  Graphviz keeps
 * global state: do not render from two threads at once.
 *
 * Ownership: the caller owns everything passed in; fx_render_dot returns a
 * malloc'd string the caller frees.
 */
#ifndef FX_RENDER_H
#define FX_RENDER_H

#include <stddef.h>
#include <stdint.h>

#include "../core/diag.h"
#include "../fabric/fabric.h"

typedef enum fx_view { FX_VIEW_PHYSICAL, FX_VIEW_LOADS, FX_VIEW_PLACEMENT, FX_VIEW_FLOOR, FX_VIEW_RACKS, FX_VIEWS } fx_view;

/* "physical", "loads", "placement", "floor", "racks". */
const char *fx_view_name(fx_view v);
/* The view called name, or -1. */
int fx_view_find(const char *name);

/* `detail_full` is refused beyond this many vertices (or 5x as many edges):
 * past it no layout engine gives a picture anyone can read. */
#define FX_RENDER_MAX_FULL 4000

typedef struct fx_render_opts {
	fx_view view;
	int detail_full;            /* draw every vertex (refused past FX_RENDER_MAX_FULL) */
	const char *title;          /* graph label, may be NULL (the fabric's name) */
	const double *utilisation;  /* loads view: [2 * ne] busy fraction per directed link */
	const int64_t *instance;    /* placement view: [ndev] instance of each device, -1 none */
} fx_render_opts;

/* An aggregated drawing holds at most this many boxes and drawn edges
 * whatever the fabric's size (model.c coarsens past them: ranges of racks,
 * switches merged per tier, role and range), so its layout costs what a
 * drawing of that size costs: dot on tiers, or neato with every box pinned
 * (lattices, a circle of groups).  Lattices are drawn whole up to 200
 * devices, else in at most 64 blocks.  Full
 * detail (`detail_full`) is bounded by FX_RENDER_MAX_FULL instead. */
#define FX_RENDER_MAX_BOXES 96
#define FX_RENDER_MAX_EDGES 600

/* Default pictures fit this many inches on the long side (2,400 px at 96
 * dpi); aggregation keeps them there, and Graphviz scales down what still
 * does not fit.  --detail full is not bounded. */
#define FX_RENDER_MAX_INCHES 24.5

/* What a rendering drew. */
typedef struct fx_render_info {
	int64_t vertices;           /* boxes drawn (vertices or aggregates) */
	int64_t edges;              /* edges drawn */
	int aggregated;             /* 1 when boxes stand for several vertices */
	char engine[16];            /* layout engine used (or named, for DOT) */
	double seconds;             /* wall time of building, layout and output */
	int64_t width_px, height_px; /* laid-out picture at 96 dpi (0 for DOT) */
} fx_render_info;

/* Further options, kept out of fx_render_opts so callers that initialise
 * it by position keep compiling; every field may be NULL. */
typedef struct fx_render_ext {
	const int64_t *group;       /* placement view: [ndev] group (e.g. TP group) of each
				     * device within its instance; odd groups drawn lighter */
	const char *loads_caption;  /* loads view: what was run, for the legend */
	const char *engine;         /* layout engine override (dot, neato, fdp, sfdp, ...) */
	fx_render_info *info;       /* out: what was drawn */
	const uint8_t *failed;      /* [nv] vertices drawn as failed (red, dashed), with
				     * their links; may be NULL */
	const uint8_t *failed_links;  /* [ne] bundles drawn as failed besides those
				       * (a link failed alone); may be NULL */
	const char *note;           /* a further caption line (key figures), may be NULL */
	double util_scale;          /* loads: the utilisation drawn as 100% (0: the busiest
				     * link drawn); pictures to compare share one */
	int util_absolute;          /* loads: colour and width give the busy fraction of the
				     * link's capacity per direction on a fixed ramp (100%:
				     * busy the whole time), not relative to the busiest;
				     * util_scale is then ignored */
} fx_render_ext;

/* Builds the DOT text of the view (no layout). */
int fx_render_dot(const fx_fabric *f, const fx_render_opts *o, char **dot, fx_diag *d);
/* Lays out and renders to path in format "svg", "png", "pdf" or "dot" (the
 * text of fx_render_dot, unlaid), or "plain" (Graphviz's positions, for
 * tests).  A failed rendering leaves no file. */
int fx_render_file(const fx_fabric *f, const fx_render_opts *o, const char *format,
		   const char *path, fx_diag *d);
/* fx_render_file in a child process (core/isolate.h): a crash or an abort
 * inside Graphviz fails this drawing alone (-1, an internal error "Graphviz
 * drawing FILE: killed by signal N") and the caller goes on; the file is written
 * whole or not at all either way.  explore draws its diagrams so, and its
 * report stands whatever Graphviz does. */
int fx_render_file_isolated(const fx_fabric *f, const fx_render_opts *o, const char *format,
			    const char *path, fx_diag *d);
/* fx_render_file_ext in a child process, as fx_render_file_isolated. */
int fx_render_file_ext_isolated(const fx_fabric *f, const fx_render_opts *o, const fx_render_ext *x,
				const char *format, const char *path, fx_diag *d);
/* The same with further options (x may be NULL). */
int fx_render_dot_ext(const fx_fabric *f, const fx_render_opts *o, const fx_render_ext *x,
		      char **dot, fx_diag *d);
int fx_render_file_ext(const fx_fabric *f, const fx_render_opts *o, const fx_render_ext *x,
		       const char *format, const char *path, fx_diag *d);
/* The floor view (render/floor.c): the racks of bill b where its floor plan
 * stands them, and the bundles of links between them, to scale (fixed
 * positions, Graphviz "nop"), into path in format as fx_render_file.  The
 * fabric views (fx_render_file) refuse FX_VIEW_FLOOR. */
struct fx_bom;
int fx_render_floor(const struct fx_bom *b, const char *title, const char *format, const char *path,
		    fx_render_info *info, fx_diag *d);
/* The racks view (render/racks.c): rack elevations of bill b of fabric f
 * (the fabric b was built from) — each rack a cluster, its nodes (compute
 * trays, servers) and switch boxes (switch trays) stacked in rack order,
 * compute and network racks told apart; laid out by dot, into path in
 * format as fx_render_file.  The fabric views refuse FX_VIEW_RACKS. */
int fx_render_racks(const struct fx_bom *b, const fx_fabric *f, const char *title, const char *format,
		    const char *path, fx_render_info *info, fx_diag *d);
/* Whether fx_render_file and fx_render_page write format: "svg", "png",
 * "pdf", "dot" or "plain" (the one list both check against). */
int fx_render_format_known(const char *format);

/* ---- several pictures on one page, to one scale ---- */

#define FX_RENDER_MAX_PANELS 8

/* One panel of a page: a fabric drawn as fx_render_file_ext would draw
 * it (o.title heads its caption; x.info, x.engine and x.util_scale are
 * ignored). */
typedef struct fx_render_panel {
	const fx_fabric *f;
	fx_render_opts o;
	fx_render_ext x;
} fx_render_panel;

/* Draws n panels (1..FX_RENDER_MAX_PANELS, all of one view) on one page:
 * each laid out by itself, captioned with its title and key figures, then
 * placed in rows (side by side, or stacked when wide: the page within
 * FX_RENDER_MAX_INCHES and, where it can be, 3:1) at one scale, so a box
 * is as large in every panel; the loads view colours every panel relative
 * to the busiest link of all of them (or, util_absolute in the panels'
 * x, every panel on the fixed ramp of link capacity).  One legend for the page, under
 * heading (may be NULL).  Format as fx_render_file; "dot" gives the page
 * laid out (layout=nop2, positions in pos=).  Same input, same bytes.
 * info (may be NULL) gets the page's size and the boxes and edges of all
 * panels. */
int fx_render_page(const fx_render_panel *p, int n, const char *heading, const char *format,
		   const char *path, fx_render_info *info, fx_diag *d);

#endif
