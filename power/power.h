/*
 * power: the power, cooling and installation model of a build.
 *
 * The `power:` map of a spec (all keys optional, all quantities with units):
 *
 *   device: 700 W          per device
 *   node: 10.2 kW          per node, everything in it included (or:)
 *   node_overhead: 4.6 kW  per node on top of its devices and CPUs
 *   cpu: 300 W             per CPU (when `node` is not given)
 *   switch: 100 W          per switch chip outside nodes' totals, or a map
 *                          per switch role: {L2: 200 W, L1: 0 W}
 *   optics: 9 W            per optical link (the modules at both ends), or
 *                          {module: 17 W, modules_per_link: 0.5}
 *   copper: 0 W            per copper link
 *   fixed: 0 W             supporting power P0 (Eq. 6-11)
 *   budget: 120 kW         system budget Pb
 *   rack_budget: 40 kW     per-rack limit
 *   air_limit: 40 kW       racks above this need liquid cooling
 *   cooling: auto          compute racks: auto (by air_limit), air or liquid
 *   install_nodes: 4       nodes are installed in whole groups of this many
 *   radix_step: {devices: 64, power: 10.2 kW}
 *                          past this many devices a further switching tier
 *                          must be added, drawing this much
 *   racks: 4               racks available (default: as many as needed)
 *   liquid: true           racks above air_limit may be liquid cooled; with
 *                          false every rack must stay under air_limit
 *
 * and `packaging.switches`, where switch chips outside nodes and racks sit:
 *
 *   switches: {L2: {chips_per_box: 2, boxes_per_rack: 14, cooling: air}}
 *
 * A spec without a `power:` map has no power model: its figures are "n/a",
 * never 0 kW.
 *
 * Ownership: fx_power_config is a plain value that points into the spec
 * (for error positions); it must not outlive the spec.  A plan owns its
 * rack arrays (fx_power_plan_release).
 */
#ifndef FX_POWER_H
#define FX_POWER_H

#include "../core/diag.h"
#include "../spec/spec.h"

#define FX_POWER_MAX_ROLES 8

typedef enum fx_cooling { FX_COOL_AUTO = 0, FX_COOL_AIR, FX_COOL_LIQUID } fx_cooling;

/* What the spec says about one switch role: its chips' power and packaging. */
typedef struct fx_power_role {
	char name[24];
	const fx_snode *at;       /* the spec entry, for errors (NULL: none) */
	double sw;                /* W per chip; < 0: the scalar `switch` */
	int64_t chips_per_box;    /* default 1 */
	int64_t boxes_per_rack;   /* 0: every chip of the role in one rack */
	int cooling;              /* fx_cooling */
} fx_power_role;

typedef struct fx_power_config {
	int present;              /* the spec has a power: map */
	double device, node, node_overhead, cpu, sw, optics, copper, fixed;
	double budget, rack_budget, air_limit;
	int cooling;              /* compute racks (fx_cooling) */
	int64_t install_nodes;
	int64_t step_devices;
	double step_power;
	int64_t racks;            /* racks available, 0 = unlimited */
	int liquid;               /* liquid cooling available (default 1) */
	fx_power_role role[FX_POWER_MAX_ROLES];  /* per role, from `switch` and packaging */
	int nroles;
	const fx_snode *switch_at;  /* `power.switch`, for errors */
} fx_power_config;

/* Reads the spec's `power:` map and `packaging.switches` (absent: no
 * model, air_limit 40 kW, the "Supernodes" chapter's §6.5.2 threshold). */
int fx_power_parse(fx_diag *d, const fx_spec *spec, fx_power_config *out);

struct fx_fabric;

/* Power of the build with n of the fabric's nodes installed, by part. */
typedef struct fx_power_parts {
	double nodes;             /* n x per-node power */
	double switches;          /* switch chips outside nodes (all of them) */
	double links;             /* optical and copper links, pro rata */
	double infra;             /* switches + links */
	double step;              /* the extra switching tier, if past radix_step */
	double fixed;             /* P0 */
	double total;
} fx_power_parts;

/* One rack of the plan: compute racks first, then network racks. */
typedef struct fx_power_rack {
	int64_t rack, nodes;
	int network;              /* holds switch chips outside nodes */
	char role[24];            /* network racks: the switch role */
	int64_t chips;            /* switch chips in the rack */
	double watts;
	int liquid;               /* liquid cooled */
	int over_air;             /* declared air cooled but over air_limit */
} fx_power_rack;

/* What a budget buys: the most devices, in whole install increments. */
typedef struct fx_power_plan {
	int present;                  /* the spec has a power model */
	double budget, rack_limit;    /* W; 0 = none */
	int64_t devices_per_node;
	double node_watts;            /* one node, all in */
	int64_t max_nodes, max_devices;
	int64_t nodes_per_rack;       /* after the rack limit */
	int64_t racks;                /* all racks: compute_racks + network racks */
	int64_t compute_racks;
	fx_power_parts parts;
	char limited_by[64];          /* "power", "cooling", "increments", "given",
				       * "none" (as specified, no limit binds) */
	int over_budget;              /* a given build draws more than the budget */
	double over_watts;            /* by this much */
	fx_power_rack *rack;          /* [racks], owned; free with fx_power_plan_release */
} fx_power_plan;

/* Power of one node of the fabric, all in (Eq. 6-11's P_s); NAN without
 * a configuration or a built fabric. */
double fx_power_node(const fx_power_config *c, const struct fx_fabric *f);
/* Power of the build with n nodes installed (every part NAN for n < 0, no
 * configuration or no built fabric). */
fx_power_parts fx_power_of(const fx_power_config *c, const struct fx_fabric *f, int64_t n);
/* The largest build within the budget (Eq. 6-11 generalised: install
 * increments, radix steps, rack limits and racks available); nodes >= 0
 * plans exactly that many nodes instead and flags it over_budget when it
 * draws more than the budget (the caller decides the exit status).
 * Exit-3 style failures (nothing fits) are reported through d with
 * fx_diag_infeasible; a spec without power data gives a plan with
 * present = 0 and every node. */
int fx_power_plan_build(const fx_power_config *c, const struct fx_fabric *f, int64_t nodes,
			fx_power_plan *out, fx_diag *d);
void fx_power_plan_release(fx_power_plan *p);
/* The fabric's compute racks (racks[f->nracks]) as the plan counts them,
 * with only the nodes used[node] marks powered: each rack's watts (its
 * powered nodes, each with its share of the links, and the switch chips
 * kept in the rack), chips and cooling (power.cooling, air_limit), so that
 * a placement's racks are what `fabricx power` says of the same nodes. */
void fx_power_racks_used(const fx_power_config *c, const struct fx_fabric *f,
			 const uint8_t *used, fx_power_rack *racks);
/* "as specified (no limit binds)", "power", ... for people. */
const char *fx_power_limit_text(const fx_power_plan *p);
/* "air", "liquid" or "air (over the 40 kW air limit)" for one rack. */
const char *fx_power_cooling_text(const fx_power_rack *r);

#endif
