/*
 * power: the power, cooling and installation model of a build.
 *
 * The `power:` map of a spec (all keys optional, all quantities with units):
 *
 *   device: 700 W          per device
 *   node: 10.2 kW          per node, everything in it included (or:)
 *   node_overhead: 4.6 kW  per node on top of its devices and CPUs
 *   cpu: 300 W             per CPU (when `node` is not given)
 *   switch: 100 W          per switch chip outside nodes' totals
 *   optics: 9 W            per optical link (its modules)
 *   copper: 0 W            per copper link
 *   fixed: 0 W             supporting power P0 (Eq. 6-11)
 *   budget: 120 kW         system budget Pb
 *   rack_budget: 40 kW     per-rack limit
 *   air_limit: 40 kW       racks above this need liquid cooling
 *   install_nodes: 4       nodes are installed in whole groups of this many
 *   radix_step: {devices: 64, power: 10.2 kW}
 *                          past this many devices a further switching tier
 *                          must be added, drawing this much
 *   racks: 4               racks available (default: as many as needed)
 *   liquid: true           racks above air_limit may be liquid cooled; with
 *                          false every rack must stay under air_limit
 *
 * Ownership: fx_power_config is a plain value; nothing to free.
 */
#ifndef FX_POWER_H
#define FX_POWER_H

#include "../core/diag.h"
#include "../spec/spec.h"

typedef struct fx_power_config {
	int present;              /* the spec has a power: map */
	double device, node, node_overhead, cpu, sw, optics, copper, fixed;
	double budget, rack_budget, air_limit;
	int64_t install_nodes;
	int64_t step_devices;
	double step_power;
	int64_t racks;            /* racks available, 0 = unlimited */
	int liquid;               /* liquid cooling available (default 1) */
} fx_power_config;

/* Reads the spec's `power:` map (absent: everything 0, air_limit 40 kW, the
 * book's §6.5.2 threshold). */
int fx_power_parse(fx_diag *d, const fx_spec *spec, fx_power_config *out);

struct fx_fabric;

/* Power of the build with n of the fabric's nodes installed, by part. */
typedef struct fx_power_parts {
	double nodes;             /* n x per-node power */
	double infra;             /* switches outside nodes and links, pro rata */
	double step;              /* the extra switching tier, if past radix_step */
	double fixed;             /* P0 */
	double total;
} fx_power_parts;

typedef struct fx_power_rack {
	int64_t rack, nodes;
	double watts;
	int liquid;               /* over air_limit */
} fx_power_rack;

/* What a budget buys: the most devices, in whole install increments. */
typedef struct fx_power_plan {
	double budget, rack_limit;    /* W; 0 = none */
	int64_t devices_per_node;
	double node_watts;            /* one node, all in */
	int64_t max_nodes, max_devices;
	int64_t nodes_per_rack;       /* after the rack limit */
	int64_t racks;
	fx_power_parts parts;
	char limited_by[64];          /* "power", "ports", "cooling", "increments", "none" */
	fx_power_rack *rack;          /* [racks], owned; free with fx_power_plan_release */
} fx_power_plan;

/* Power of one node of the fabric, all in (Eq. 6-11's P_s). */
double fx_power_node(const fx_power_config *c, const struct fx_fabric *f);
/* Power of the build with n nodes installed. */
fx_power_parts fx_power_of(const fx_power_config *c, const struct fx_fabric *f, int64_t n);
/* The largest build within the budget (Eq. 6-11 generalised: install
 * increments, radix steps, rack limits and racks available); nodes < 0
 * plans exactly that many nodes instead.  Exit-3 style failures (nothing
 * fits) are reported through d with fx_diag_infeasible. */
int fx_power_plan_build(const fx_power_config *c, const struct fx_fabric *f, int64_t nodes,
			fx_power_plan *out, fx_diag *d);
void fx_power_plan_release(fx_power_plan *p);

#endif
