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
} fx_power_config;

/* Reads the spec's `power:` map (absent: everything 0). */
int fx_power_parse(fx_diag *d, const fx_spec *spec, fx_power_config *out);

#endif
