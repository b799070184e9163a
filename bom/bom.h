/*
 * bom: the bill of materials of a build — links by medium and by where
 * they run (inside a node, inside a rack, between racks), the cables and
 * optical modules they take, switch chips and boxes, racks, devices and
 * CPUs, and their cost where the spec gives unit prices.
 *
 * Counting rules (docs/output.md, "bom"):
 *   - a link's place: in-node when both ends are in one node; in-rack when
 *     both are in one rack (compute racks, and the network racks of
 *     packaging.switches, chips filled in vertex order as the power model
 *     fills them); else between racks;
 *   - copper links that leave a node take `cables_per_link` cables each
 *     (default 1; NVLink 5: 2 lanes x 2 directions = 4 twinax pairs);
 *     links inside a node are board or backplane wiring, no cable;
 *   - optical links take one fibre cable each and a module at each end,
 *     one module carrying `links_per_module` links (default 1):
 *     modules = ceil(2 x links / links_per_module);
 *   - silicon links (on a wafer or package) take neither.
 *
 * The spec's optional `bom:` map (docs/spec.md):
 *
 *   bom:
 *     cables:  [{type: NVLink 5 twinax pair, cables_per_link: 4, bandwidth: 50 GB/s,
 *                price: {usd: 10, source: "assumed: ..."}}]
 *     modules: [{type: 400G LPO, links_per_module: 2, bandwidth: 28 GB/s}]
 *     prices:  {switch_chip: {usd: .., source: ..}, switch_box: .., rack: ..,
 *               device: .., cpu: .., fibre: ..}
 *
 * A rule with `bandwidth` applies to the links of that bandwidth, one
 * without to the rest; the first that matches counts a link.
 *
 * Ownership: fx_bom_config points into the spec (types, sources, error
 * positions) and must not outlive it; fx_bom owns its parts
 * (fx_bom_release).
 */
#ifndef FX_BOM_H
#define FX_BOM_H

#include <stdint.h>

#include "../core/diag.h"
#include "../fabric/fabric.h"
#include "../power/power.h"
#include "../spec/spec.h"

#define FX_BOM_MAX_RULES 8

typedef enum fx_bom_where { FX_BOM_IN_NODE = 0, FX_BOM_IN_RACK, FX_BOM_BETWEEN_RACKS, FX_BOM_WHERES } fx_bom_where;

/* A unit price and where it comes from ("assumed: ..." when no source). */
typedef struct fx_bom_price {
	int given;
	double usd;
	const char *source;
} fx_bom_price;

/* A cable or module rule. */
typedef struct fx_bom_rule {
	const char *type;         /* "400G LPO" */
	double bandwidth;         /* links of this bandwidth only; 0: any */
	double per;               /* cables per link, or links per module */
	fx_bom_price price;
} fx_bom_rule;

typedef enum fx_bom_priced {
	FX_BOM_P_SWITCH_CHIP = 0, FX_BOM_P_SWITCH_BOX, FX_BOM_P_RACK, FX_BOM_P_DEVICE, FX_BOM_P_CPU,
	FX_BOM_P_FIBRE, FX_BOM_PRICED
} fx_bom_priced;

/* The floor plan (bom.floor; every key optional, defaults assumed and
 * said so in docs/spec.md §6g): racks in rack order, compute racks then
 * network racks, racks_per_row to a row; rack r stands at position
 * r mod racks_per_row of row r / racks_per_row, rack_width_m apart in a
 * row, row_pitch_m (a rack's depth and an aisle) between rows. */
typedef struct fx_bom_floor {
	int64_t racks_per_row;    /* default (0): a square floor, at least 8 a row:
				   * max(8, ceil(sqrt(racks x row_pitch_m / rack_width_m))) */
	double rack_width_m;      /* default 0.6 */
	double row_pitch_m;       /* default 2.4 */
	double rise_m;            /* default 1.5: a cable's run from its port up to the overhead
				   * tray, at each end of a link between racks */
	double in_rack_m;         /* default 1.0: a cable inside one rack */
	int given;                /* the spec has bom.floor */
} fx_bom_floor;

typedef struct fx_bom_config {
	fx_bom_rule cable[FX_BOM_MAX_RULES], module[FX_BOM_MAX_RULES];
	int ncable, nmodule;
	fx_bom_price price[FX_BOM_PRICED];
	fx_bom_floor floor;
} fx_bom_config;

/* Links of one medium in one place. */
typedef struct fx_bom_links {
	int64_t bundles, links;
	double bandwidth;         /* sum over the links, per direction, B/s */
} fx_bom_links;

/* One line of the bill: count of a part, its price and cost (NAN: none). */
typedef struct fx_bom_part {
	char kind[16];            /* "cable", "fibre", "module", "switch chip", "switch box", "rack", ... */
	char type[64];
	double count;
	double unit_usd, cost_usd;
	const char *source;       /* the price's (NULL: no price) */
	char rule[96];            /* how it was counted */
} fx_bom_part;

/* A rack on the floor. */
typedef struct fx_bom_rack {
	int64_t row, pos;
	double x_m, y_m;          /* its position: pos x rack_width_m, row x row_pitch_m */
	int network;              /* a rack of switch chips (packaging.switches) */
} fx_bom_rack;

/* The links of one medium between two racks a < b (a bundle of cables
 * on the floor), each length_m long. */
typedef struct fx_bom_span {
	int64_t a, b;
	int medium;
	int64_t links;
	double length_m;
} fx_bom_span;

/* Cables, fibres or modules of one type in one length band. */
typedef struct fx_bom_run {
	char kind[16];            /* "cable", "fibre", "module" */
	char type[64];
	double band_m;            /* the band's upper bound: lengths in (previous band, band_m] */
	double count;
	double length_m;          /* cables and fibres: their summed length (modules: 0) */
} fx_bom_run;

typedef struct fx_bom {
	fx_bom_links links[FX_MEDIUMS][FX_BOM_WHERES];
	fx_bom_floor floor;       /* as used (defaults filled in) */
	fx_bom_rack *rack;        /* [compute_racks + network_racks] */
	fx_bom_span *span;        /* between racks, sorted by (a, b, medium) */
	size_t nspan;
	fx_bom_run *run;          /* sorted by kind, type, band */
	size_t nrun, caprun;
	double cable_length_m, fibre_length_m;  /* copper cables' and fibres' total length */
	int64_t unplaced_links;   /* links with an end in no rack: given 2 x rise_m */
	fx_bom_part *part;
	size_t npart, cappart;
	int64_t compute_racks, network_racks;
	double cost_usd;          /* the priced parts' sum; NAN when no part has a price */
	int priced, unpriced;     /* lines with and without a price */
	/* where each vertex sits, for the racks view (render/racks.c): */
	int64_t *vertex_rack;     /* [nv] its rack (compute or network), -1: none */
	int64_t *vertex_box;      /* [nv] a switch chip outside nodes: its switch box
				   * (packaging.switches chips_per_box of one role and
				   * rack, filled in vertex order; 1 chip without it),
				   * numbered from 0 across the build; else -1 */
	int64_t switch_boxes;     /* boxes numbered in vertex_box */
	/* The kind's physical tray order in a compute rack that holds switch
	 * boxes: 1 when the boxes sit among the nodes, fx_bom_above(n) of the
	 * rack's n nodes above them and the rest below (nvswitch: GB200 NVL72
	 * has 10 compute trays, the 9 NVLink switch trays, then 8 compute
	 * trays, top to bottom; bom.c has the source); 0: the boxes below
	 * every node. */
	int switches_mid;
} fx_bom;

/* Nodes above the switch boxes in a compute rack of n nodes when
 * switches_mid is set: n / 2 + 1 (18: 10 above, 8 below). */
int64_t fx_bom_above(int64_t n);

/* Reads the spec's `bom:` map (absent: the default rules, no prices). */
int fx_bom_parse(fx_diag *d, const fx_spec *spec, fx_bom_config *out);
/* Counts the bill of fabric f under c (p: packaging.switches, for network
 * racks and boxes).  Returns 0, or -1 with a diagnostic. */
int fx_bom_build(const fx_bom_config *c, const fx_power_config *p, const fx_fabric *f, fx_bom *out,
		 fx_diag *d);
void fx_bom_release(fx_bom *b);
/* The length band (its upper bound, m) a length falls in: 1, 2, 3, 5,
 * 10, 20, 30, 50, 100, 300, 1000, then whole kilometres. */
double fx_bom_band(double length_m);
/* The length of a cable between racks a and b on floor fl (a == b: in the
 * rack). */
double fx_bom_length(const fx_bom_floor *fl, const fx_bom_rack *a, const fx_bom_rack *b);
/* "in-node", "in-rack", "between racks". */
const char *fx_bom_where_name(fx_bom_where w);

#endif
