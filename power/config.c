/* Parsing and validation of the `power:` map. */
#include <stdint.h>
#include <string.h>

#include "power.h"

int fx_power_parse(fx_diag *d, const fx_spec *spec, fx_power_config *c)
{
	static const char *const keys[] = {
		"device", "node", "node_overhead", "cpu", "switch", "optics", "copper", "fixed",
		"budget", "rack_budget", "air_limit", "install_nodes", "radix_step", "racks",
		"liquid", NULL};
	static const char *const step_keys[] = {"devices", "power", NULL};
	const fx_snode *p, *st;
	memset(c, 0, sizeof *c);
	c->install_nodes = 1;
	c->air_limit = 40e3;  /* book §6.5.2: the example's air-cooled rack threshold */
	c->liquid = 1;
	if (fx_spec_map(d, spec->root, "power", 0, &p))
		return -1;
	if (!p)
		return 0;
	c->present = 1;
	int rc = fx_spec_keys(d, p, keys);
	rc |= fx_spec_qty_opt(d, p, "device", FX_UNIT_POWER, 0, 0, &c->device);
	rc |= fx_spec_qty_opt(d, p, "node", FX_UNIT_POWER, 0, 1, &c->node);
	rc |= fx_spec_qty_opt(d, p, "node_overhead", FX_UNIT_POWER, 0, 0, &c->node_overhead);
	rc |= fx_spec_qty_opt(d, p, "cpu", FX_UNIT_POWER, 0, 0, &c->cpu);
	rc |= fx_spec_qty_opt(d, p, "switch", FX_UNIT_POWER, 0, 0, &c->sw);
	rc |= fx_spec_qty_opt(d, p, "optics", FX_UNIT_POWER, 0, 0, &c->optics);
	rc |= fx_spec_qty_opt(d, p, "copper", FX_UNIT_POWER, 0, 0, &c->copper);
	rc |= fx_spec_qty_opt(d, p, "fixed", FX_UNIT_POWER, 0, 0, &c->fixed);
	rc |= fx_spec_qty_opt(d, p, "budget", FX_UNIT_POWER, 0, 1, &c->budget);
	rc |= fx_spec_qty_opt(d, p, "rack_budget", FX_UNIT_POWER, 0, 1, &c->rack_budget);
	rc |= fx_spec_qty_opt(d, p, "air_limit", FX_UNIT_POWER, 0, 1, &c->air_limit);
	rc |= fx_spec_int_opt(d, p, "install_nodes", 1, INT32_MAX, &c->install_nodes);
	rc |= fx_spec_int_opt(d, p, "racks", 1, INT32_MAX, &c->racks);
	rc |= fx_spec_bool_opt(d, p, "liquid", &c->liquid);
	if (fx_spec_map(d, p, "radix_step", 0, &st))
		return -1;
	if (st) {
		rc |= fx_spec_keys(d, st, step_keys);
		rc |= fx_spec_int(d, st, "devices", 1, INT32_MAX, &c->step_devices);
		rc |= fx_spec_qty(d, st, "power", FX_UNIT_POWER, 0, 0, &c->step_power);
	}
	if (rc == 0 && c->node > 0 && (fx_snode_get(p, "node_overhead") || fx_snode_get(p, "cpu")))
		rc = fx_snode_error(d, fx_snode_get(p, "node"), "give either 'power.node' (the whole "
				    "node) or 'power.node_overhead'/'power.cpu', not both");
	return rc;
}
