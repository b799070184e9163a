/* Parsing and validation of the `power:` map and `packaging.switches`. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "power.h"

static int cooling_of(fx_diag *d, const fx_snode *map, const char *key, int *out)
{
	const char *s = NULL;
	if (fx_spec_str_opt(d, map, key, &s))
		return -1;
	if (!s)
		return 0;
	if (!strcmp(s, "auto"))
		*out = FX_COOL_AUTO;
	else if (!strcmp(s, "air"))
		*out = FX_COOL_AIR;
	else if (!strcmp(s, "liquid"))
		*out = FX_COOL_LIQUID;
	else
		return fx_snode_error(d, fx_snode_get(map, key), "'%s' must be auto, air or liquid, "
				      "got '%s'", fx_snode_get(map, key)->path, s);
	return 0;
}

/* The entry for role `name`, added when new; NULL when the table is full. */
static fx_power_role *role_of(fx_diag *d, fx_power_config *c, const char *name, const fx_snode *at)
{
	for (int i = 0; i < c->nroles; i++)
		if (!strcmp(c->role[i].name, name))
			return &c->role[i];
	if (c->nroles == FX_POWER_MAX_ROLES || strlen(name) >= sizeof c->role[0].name) {
		fx_snode_error(d, at, "'%s': at most %d switch roles of up to %zu characters",
			       at->path, FX_POWER_MAX_ROLES, sizeof c->role[0].name - 1);
		return NULL;
	}
	fx_power_role *r = &c->role[c->nroles++];
	memset(r, 0, sizeof *r);
	snprintf(r->name, sizeof r->name, "%s", name);
	r->at = at;
	r->sw = -1;
	r->chips_per_box = 1;
	return r;
}

/* `switch`: one power for every chip, or a map of role -> power. */
static int parse_switch(fx_diag *d, const fx_snode *p, fx_power_config *c)
{
	const fx_snode *s = fx_snode_get(p, "switch");
	c->switch_at = s;
	if (!s || s->kind != FX_SNODE_MAP)
		return fx_spec_qty_opt(d, p, "switch", FX_UNIT_POWER, 0, 0, &c->sw);
	int rc = 0;
	for (size_t i = 0; i < s->n; i++) {
		fx_power_role *r = role_of(d, c, s->keys[i], s->items[i]);
		if (!r)
			return -1;
		rc |= fx_snode_qty(d, s->items[i], FX_UNIT_POWER, 0, 0, &r->sw);
	}
	return rc;
}

/* `optics`: per optical link, or {module, modules_per_link} so the sourced
 * figure (one module's power) and the count (modules at both ends over the
 * links a module carries) each stay visible in the spec. */
static int parse_optics(fx_diag *d, const fx_snode *p, fx_power_config *c)
{
	static const char *const keys[] = {"module", "modules_per_link", NULL};
	const fx_snode *o = fx_snode_get(p, "optics");
	if (!o || o->kind != FX_SNODE_MAP)
		return fx_spec_qty_opt(d, p, "optics", FX_UNIT_POWER, 0, 0, &c->optics);
	double module = 0, per = 0;
	int rc = fx_spec_keys(d, o, keys);
	rc |= fx_spec_qty(d, o, "module", FX_UNIT_POWER, 0, 0, &module);
	rc |= fx_spec_qty(d, o, "modules_per_link", FX_UNIT_NONE, 0, 1, &per);
	c->optics = module * per;
	return rc;
}

/* packaging.switches: {ROLE: {chips_per_box, boxes_per_rack, cooling}} */
static int parse_switch_racks(fx_diag *d, const fx_spec *spec, fx_power_config *c)
{
	static const char *const keys[] = {"chips_per_box", "boxes_per_rack", "cooling", NULL};
	const fx_snode *pk, *s;
	if (fx_spec_map(d, spec->root, "packaging", 0, &pk))
		return -1;  /* (pk is NULL then: a not-a-map is an error, not an absence) */
	if (!pk)
		return 0;
	if (fx_spec_map(d, pk, "switches", 0, &s))
		return -1;
	if (!s)
		return 0;
	int rc = 0;
	for (size_t i = 0; i < s->n; i++) {
		const fx_snode *e = s->items[i];
		if (e->kind != FX_SNODE_MAP) {
			rc |= fx_snode_error(d, e, "'%s' must be a map {chips_per_box, boxes_per_rack, "
					     "cooling}", e->path);
			continue;
		}
		fx_power_role *r = role_of(d, c, s->keys[i], e);
		if (!r)
			return -1;
		r->at = e;
		rc |= fx_spec_keys(d, e, keys);
		rc |= fx_spec_int_opt(d, e, "chips_per_box", 1, INT32_MAX, &r->chips_per_box);
		rc |= fx_spec_int_opt(d, e, "boxes_per_rack", 1, INT32_MAX, &r->boxes_per_rack);
		rc |= cooling_of(d, e, "cooling", &r->cooling);
	}
	return rc;
}

int fx_power_parse(fx_diag *d, const fx_spec *spec, fx_power_config *c)
{
	static const char *const keys[] = {
		"device", "node", "node_overhead", "cpu", "switch", "optics", "copper", "fixed",
		"budget", "rack_budget", "air_limit", "cooling", "install_nodes", "radix_step",
		"racks", "liquid", NULL};
	static const char *const step_keys[] = {"devices", "power", NULL};
	const fx_snode *p, *st;
	if (!c)
		return fx_diag_error(d, NULL, "fx_power_parse: no configuration to fill");
	memset(c, 0, sizeof *c);
	if (!spec || !spec->root)
		return fx_diag_error(d, NULL, "fx_power_parse: no spec (NULL, or one that failed to load)");
	c->install_nodes = 1;
	/* the chapter "Supernodes", §6.5.2: the example's air-cooled rack threshold */
	c->air_limit = 40e3;
	c->liquid = 1;
	if (fx_spec_map(d, spec->root, "power", 0, &p))
		return -1;
	int rc = parse_switch_racks(d, spec, c);
	if (!p)
		return rc;
	c->present = 1;
	rc |= fx_spec_keys(d, p, keys);
	rc |= fx_spec_qty_opt(d, p, "device", FX_UNIT_POWER, 0, 0, &c->device);
	rc |= fx_spec_qty_opt(d, p, "node", FX_UNIT_POWER, 0, 1, &c->node);
	rc |= fx_spec_qty_opt(d, p, "node_overhead", FX_UNIT_POWER, 0, 0, &c->node_overhead);
	rc |= fx_spec_qty_opt(d, p, "cpu", FX_UNIT_POWER, 0, 0, &c->cpu);
	rc |= parse_switch(d, p, c);
	rc |= parse_optics(d, p, c);
	rc |= fx_spec_qty_opt(d, p, "copper", FX_UNIT_POWER, 0, 0, &c->copper);
	rc |= fx_spec_qty_opt(d, p, "fixed", FX_UNIT_POWER, 0, 0, &c->fixed);
	rc |= fx_spec_qty_opt(d, p, "budget", FX_UNIT_POWER, 0, 1, &c->budget);
	rc |= fx_spec_qty_opt(d, p, "rack_budget", FX_UNIT_POWER, 0, 1, &c->rack_budget);
	rc |= fx_spec_qty_opt(d, p, "air_limit", FX_UNIT_POWER, 0, 1, &c->air_limit);
	rc |= cooling_of(d, p, "cooling", &c->cooling);
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
