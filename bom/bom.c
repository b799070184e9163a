/*
 * The bill of materials: the counting rules are in bom.h and
 * docs/output.md; this file applies them to a built fabric.
 */
#include "bom.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../core/xalloc.h"

static const char *const where_names[FX_BOM_WHERES] = {"in-node", "in-rack", "between racks"};

const char *fx_bom_where_name(fx_bom_where w)
{
	return w < FX_BOM_WHERES ? where_names[w] : "?";
}

static const char *const priced_keys[FX_BOM_PRICED] = {
	[FX_BOM_P_SWITCH_CHIP] = "switch_chip", [FX_BOM_P_SWITCH_BOX] = "switch_box",
	[FX_BOM_P_RACK] = "rack",               [FX_BOM_P_DEVICE] = "device",
	[FX_BOM_P_CPU] = "cpu",                 [FX_BOM_P_FIBRE] = "fibre",
};

/* {usd: N, source: "..."}: a price is a number of US dollars and says
 * where it comes from (a source, or "assumed: why"). */
static int parse_price(fx_diag *d, const fx_snode *n, fx_bom_price *p)
{
	static const char *const keys[] = {"usd", "source", NULL};
	if (!n)
		return 0;
	if (n->kind != FX_SNODE_MAP)
		return fx_snode_error(d, n, "'%s' must be a map {usd: N, source: \"...\"}, got %s", n->path,
				      fx_snode_kind_name(n));
	int rc = fx_spec_keys(d, n, keys);
	rc |= fx_spec_qty(d, n, "usd", FX_UNIT_NONE, 0, 0, &p->usd);
	rc |= fx_spec_str(d, n, "source", &p->source);
	if (rc == 0 && !*p->source)
		rc = fx_snode_error(d, fx_snode_get(n, "source"), "'%s.source' must say where the price "
				    "comes from, or \"assumed: why\"", n->path);
	p->given = rc == 0;
	return rc;
}

static int parse_rules(fx_diag *d, const fx_snode *bom, const char *key, const char *per_key,
		       fx_bom_rule *rules, int *n)
{
	static const char *const cable_keys[] = {"type", "cables_per_link", "bandwidth", "price", NULL};
	static const char *const module_keys[] = {"type", "links_per_module", "bandwidth", "price", NULL};
	const fx_snode *s;
	if (fx_spec_seq(d, bom, key, 0, &s))
		return -1;
	if (!s)
		return 0;
	if (s->n > FX_BOM_MAX_RULES)
		return fx_snode_error(d, s, "'%s': at most %d rules, got %zu", s->path, FX_BOM_MAX_RULES, s->n);
	int rc = 0;
	for (size_t i = 0; i < s->n; i++) {
		const fx_snode *r = s->items[i];
		fx_bom_rule *x = &rules[i];
		if (r->kind != FX_SNODE_MAP) {
			rc |= fx_snode_error(d, r, "'%s' must be a map, got %s", r->path, fx_snode_kind_name(r));
			continue;
		}
		rc |= fx_spec_keys(d, r, strcmp(key, "cables") ? module_keys : cable_keys);
		rc |= fx_spec_str(d, r, "type", &x->type);
		double per = 1;
		rc |= fx_spec_qty_opt(d, r, per_key, FX_UNIT_NONE, 0, 1, &per);
		x->per = per > 0 ? per : 1;
		rc |= fx_spec_qty_opt(d, r, "bandwidth", FX_UNIT_BANDWIDTH, 0, 1, &x->bandwidth);
		rc |= parse_price(d, fx_snode_get(r, "price"), &x->price);
	}
	*n = (int)s->n;
	return rc;
}

/* bom.floor: every key optional; the defaults are assumed (docs/spec.md §6g). */
static const fx_bom_floor default_floor = {
	.racks_per_row = 0, .rack_width_m = 0.6, .row_pitch_m = 2.4, .rise_m = 1.5, .in_rack_m = 1.0,
};

static int parse_floor(fx_diag *d, const fx_snode *b, fx_bom_floor *fl)
{
	static const char *const keys[] = {"racks_per_row", "rack_width_m", "row_pitch_m", "rise_m",
					   "in_rack_m", NULL};
	const fx_snode *n;
	*fl = default_floor;
	if (!b || fx_spec_map(d, b, "floor", 0, &n))
		return b ? -1 : 0;
	if (!n)
		return 0;
	fl->given = 1;
	int rc = fx_spec_keys(d, n, keys);
	rc |= fx_spec_int_opt(d, n, "racks_per_row", 1, 1 << 20, &fl->racks_per_row);
	rc |= fx_spec_qty_opt(d, n, "rack_width_m", FX_UNIT_NONE, 0, 1, &fl->rack_width_m);
	rc |= fx_spec_qty_opt(d, n, "row_pitch_m", FX_UNIT_NONE, 0, 1, &fl->row_pitch_m);
	rc |= fx_spec_qty_opt(d, n, "rise_m", FX_UNIT_NONE, 0, 0, &fl->rise_m);
	rc |= fx_spec_qty_opt(d, n, "in_rack_m", FX_UNIT_NONE, 0, 1, &fl->in_rack_m);
	return rc;
}

int fx_bom_parse(fx_diag *d, const fx_spec *spec, fx_bom_config *c)
{
	static const char *const keys[] = {"cables", "modules", "prices", "floor", NULL};
	if (!c)
		return fx_diag_error(d, NULL, "fx_bom_parse: no configuration to fill");
	memset(c, 0, sizeof *c);
	c->floor = default_floor;
	if (!spec || !spec->root)
		return fx_diag_error(d, NULL, "fx_bom_parse: no spec (NULL, or one that failed to load)");
	const fx_snode *b, *p;
	if (fx_spec_map(d, spec->root, "bom", 0, &b))
		return -1;
	if (!b)
		return 0;
	int rc = fx_spec_keys(d, b, keys);
	rc |= parse_floor(d, b, &c->floor);
	rc |= parse_rules(d, b, "cables", "cables_per_link", c->cable, &c->ncable);
	rc |= parse_rules(d, b, "modules", "links_per_module", c->module, &c->nmodule);
	if (fx_spec_map(d, b, "prices", 0, &p))
		return -1;
	if (p) {
		static const char *const pkeys[] = {"switch_chip", "switch_box", "rack", "device", "cpu",
						    "fibre", NULL};
		rc |= fx_spec_keys(d, p, pkeys);
		for (int k = 0; k < FX_BOM_PRICED; k++)
			rc |= parse_price(d, fx_snode_get(p, priced_keys[k]), &c->price[k]);
	}
	return rc ? -1 : 0;
}

/* ---- the floor ---- */

double fx_bom_band(double m)
{
	static const double bands[] = {1, 2, 3, 5, 10, 20, 30, 50, 100, 300, 1000};
	for (size_t i = 0; i < sizeof bands / sizeof bands[0]; i++)
		if (m <= bands[i] * (1 + 1e-12))
			return bands[i];
	return 1000 * ceil(m / 1000 - 1e-12);
}

double fx_bom_length(const fx_bom_floor *fl, const fx_bom_rack *a, const fx_bom_rack *b)
{
	if (a == b)
		return fl->in_rack_m;
	/* up to the overhead tray, along the row and across the rows, down */
	return fabs(a->x_m - b->x_m) + fabs(a->y_m - b->y_m) + 2 * fl->rise_m;
}

static void place_racks(fx_bom *b)
{
	int64_t n = b->compute_racks + b->network_racks, per = b->floor.racks_per_row;
	b->rack = fx_xcalloc((size_t)n + 1, sizeof *b->rack);
	for (int64_t r = 0; r < n; r++) {
		fx_bom_rack *k = &b->rack[r];
		k->row = r / per;
		k->pos = r % per;
		k->x_m = (double)k->pos * b->floor.rack_width_m;
		k->y_m = (double)k->row * b->floor.row_pitch_m;
		k->network = r >= b->compute_racks;
	}
}

static void add_run(fx_bom *b, const char *kind, const char *type, double band, double count,
		    double length)
{
	for (size_t i = 0; i < b->nrun; i++)
		if (b->run[i].band_m == band && !strcmp(b->run[i].kind, kind) && !strcmp(b->run[i].type, type)) {
			b->run[i].count += count;
			b->run[i].length_m += length;
			return;
		}
	b->run = fx_xgrow(b->run, &b->caprun, b->nrun + 1, sizeof *b->run);
	fx_bom_run *x = &b->run[b->nrun++];
	memset(x, 0, sizeof *x);
	snprintf(x->kind, sizeof x->kind, "%s", kind);
	snprintf(x->type, sizeof x->type, "%s", type);
	x->band_m = band;
	x->count = count;
	x->length_m = length;
}

static int run_cmp(const void *pa, const void *pb)
{
	const fx_bom_run *a = pa, *b = pb;
	int k = strcmp(a->kind, b->kind);
	if (!k)
		k = strcmp(a->type, b->type);
	return k ? k : (a->band_m > b->band_m) - (a->band_m < b->band_m);
}

static int span_cmp(const void *pa, const void *pb)
{
	const fx_bom_span *a = pa, *b = pb;
	if (a->a != b->a)
		return a->a < b->a ? -1 : 1;
	if (a->b != b->b)
		return a->b < b->b ? -1 : 1;
	return (a->medium > b->medium) - (a->medium < b->medium);
}

/* The between-rack links, one span per rack pair and medium. */
static void merge_spans(fx_bom *b)
{
	if (b->nspan > 1)  /* qsort(NULL, 0) is undefined (UBSan) */
		qsort(b->span, b->nspan, sizeof *b->span, span_cmp);
	size_t k = 0;
	for (size_t i = 0; i < b->nspan; i++) {
		if (k && !span_cmp(&b->span[k - 1], &b->span[i]))
			b->span[k - 1].links += b->span[i].links;
		else
			b->span[k++] = b->span[i];
	}
	b->nspan = k;
}

/* ---- counting ---- */

static const fx_bom_rule default_cable = {.type = "copper cable", .per = 1};
static const fx_bom_rule default_module = {.type = "optical module", .per = 1};

static const fx_bom_rule *rule_for(const fx_bom_rule *r, int n, double bw, const fx_bom_rule *dflt)
{
	for (int i = 0; i < n; i++)
		if (r[i].bandwidth <= 0 || fabs(r[i].bandwidth - bw) <= 1e-6 * bw)
			return &r[i];
	return dflt;
}

static fx_bom_part *add_part(fx_bom *b, const char *kind, const char *type, double count,
			     const fx_bom_price *price)
{
	for (size_t i = 0; i < b->npart; i++)  /* the same part from two rules or bundles: one line */
		if (!strcmp(b->part[i].kind, kind) && !strcmp(b->part[i].type, type)) {
			b->part[i].count += count;
			return &b->part[i];
		}
	b->part = fx_xgrow(b->part, &b->cappart, b->npart + 1, sizeof *b->part);
	fx_bom_part *x = &b->part[b->npart++];
	memset(x, 0, sizeof *x);
	snprintf(x->kind, sizeof x->kind, "%s", kind);
	snprintf(x->type, sizeof x->type, "%s", type);
	x->count = count;
	x->unit_usd = price && price->given ? price->usd : NAN;
	x->source = price && price->given ? price->source : NULL;
	return x;
}

static const fx_power_role *role_of(const fx_power_config *p, const fx_fabric *f, int role)
{
	for (int i = 0; p && role >= 0 && i < p->nroles; i++)
		if (!strcmp(p->role[i].name, f->roles[role].name))
			return &p->role[i];
	return NULL;
}

/* Each vertex's rack: its own; a switch chip outside nodes and racks sits
 * in its role's network racks, filled in vertex order (as the power model
 * fills them); -1 for anything else without a rack. */
static int64_t *vertex_racks(const fx_power_config *p, const fx_fabric *f, fx_bom *b)
{
	int64_t *rack = fx_xmalloc((size_t)(f->nv + 1) * sizeof *rack);
	int64_t count[FX_MAX_ROLES] = {0}, seen[FX_MAX_ROLES] = {0}, first[FX_MAX_ROLES], per[FX_MAX_ROLES];
	for (int64_t v = 0; v < f->nv; v++)
		if (f->v[v].type == FX_V_SWITCH && f->v[v].node < 0 && f->v[v].rack < 0 && f->v[v].role >= 0)
			count[f->v[v].role]++;
	b->compute_racks = f->nracks;
	int64_t at = f->nracks;
	for (int r = 0; r < f->nroles; r++) {
		const fx_power_role *rc = role_of(p, f, r);
		per[r] = rc && rc->boxes_per_rack > 0 ? rc->chips_per_box * rc->boxes_per_rack : count[r];
		first[r] = at;
		if (count[r])
			at += (count[r] + per[r] - 1) / per[r];
	}
	b->network_racks = at - f->nracks;
	for (int64_t v = 0; v < f->nv; v++) {
		const fx_vertex *x = &f->v[v];
		rack[v] = x->rack;
		if (x->type == FX_V_SWITCH && x->node < 0 && x->rack < 0 && x->role >= 0)
			rack[v] = first[x->role] + seen[x->role]++ / per[x->role];
	}
	return rack;
}

/* The switch boxes of the chips outside nodes: chips_per_box chips of
 * one role a box, in vertex order, a new box where the rack changes (a
 * box never spans two racks). */
static void place_boxes(const fx_power_config *p, const fx_fabric *f, fx_bom *b)
{
	int64_t open[FX_MAX_ROLES], fill[FX_MAX_ROLES], in[FX_MAX_ROLES];
	b->vertex_box = fx_xmalloc((size_t)(f->nv + 1) * sizeof *b->vertex_box);
	for (int r = 0; r < FX_MAX_ROLES; r++)
		open[r] = -1, fill[r] = 0, in[r] = -1;
	for (int64_t v = 0; v < f->nv; v++) {
		const fx_vertex *x = &f->v[v];
		b->vertex_box[v] = -1;
		if (x->type != FX_V_SWITCH || x->node >= 0 || x->role < 0 || x->role >= FX_MAX_ROLES)
			continue;
		const fx_power_role *rc = role_of(p, f, x->role);
		int64_t per = rc && rc->chips_per_box > 0 ? rc->chips_per_box : 1;
		int r = x->role;
		if (open[r] < 0 || fill[r] >= per || in[r] != b->vertex_rack[v]) {
			open[r] = b->switch_boxes++;
			fill[r] = 0;
			in[r] = b->vertex_rack[v];
		}
		fill[r]++;
		b->vertex_box[v] = open[r];
	}
}

int64_t fx_bom_above(int64_t n)
{
	return n > 1 ? n / 2 + 1 : n;
}

int fx_bom_build(const fx_bom_config *c, const fx_power_config *p, const fx_fabric *f, fx_bom *b,
		 fx_diag *d)
{
	if (!b)
		return fx_diag_error(d, NULL, "fx_bom_build: no bill to fill");
	memset(b, 0, sizeof *b);
	if (!c || !fx_fabric_built(f))
		return fx_diag_error(d, NULL, "fx_bom_build: no configuration or no built fabric");
	int64_t *rack = b->vertex_rack = vertex_racks(p, f, b);  /* kept for the racks view */
	b->floor = c->floor;
	if (b->floor.rack_width_m <= 0)
		b->floor = default_floor;
	if (b->floor.racks_per_row < 1) {  /* a square floor, at least 8 racks a row */
		double n = (double)(b->compute_racks + b->network_racks);
		double side = ceil(sqrt(n * b->floor.row_pitch_m / b->floor.rack_width_m) - 1e-9);
		b->floor.racks_per_row = side > 8 ? (int64_t)side : 8;
	}
	place_racks(b);
	size_t capspan = 0;
	/* links by medium and place; cables and modules by rule, and by length */
	for (int64_t e = 0; e < f->ne; e++) {
		const fx_link *l = &f->e[e];
		int64_t u = f->ends[2 * e], v = f->ends[2 * e + 1];
		fx_bom_where w = f->v[u].node >= 0 && f->v[u].node == f->v[v].node ? FX_BOM_IN_NODE
				 : rack[u] >= 0 && rack[u] == rack[v]                ? FX_BOM_IN_RACK
										     : FX_BOM_BETWEEN_RACKS;
		int m = l->medium < FX_MEDIUMS ? l->medium : FX_MEDIUM_COPPER;
		fx_bom_links *x = &b->links[m][w];
		x->bundles++;
		x->links += l->count;
		x->bandwidth += l->bw * l->count;
		double len = 0;
		if (w != FX_BOM_IN_NODE) {
			int64_t ra = rack[u] < rack[v] ? rack[u] : rack[v], rb = rack[u] < rack[v] ? rack[v] : rack[u];
			if (ra < 0) {  /* an end in no rack: up and down, no run along the floor */
				len = 2 * b->floor.rise_m;
				b->unplaced_links += l->count;
			} else
				len = fx_bom_length(&b->floor, &b->rack[ra], &b->rack[rb]);
			if (ra >= 0 && ra != rb) {
				b->span = fx_xgrow(b->span, &capspan, b->nspan + 1, sizeof *b->span);
				b->span[b->nspan++] = (fx_bom_span){ra, rb, m, l->count, len};
			}
		}
		double band = fx_bom_band(len);
		if (m == FX_MEDIUM_COPPER && w != FX_BOM_IN_NODE) {
			const fx_bom_rule *r = rule_for(c->cable, c->ncable, l->bw, &default_cable);
			fx_bom_part *pt = add_part(b, "cable", r->type, l->count * r->per, &r->price);
			snprintf(pt->rule, sizeof pt->rule, "%g per copper link leaving a node", r->per);
			add_run(b, "cable", r->type, band, l->count * r->per, l->count * r->per * len);
			b->cable_length_m += l->count * r->per * len;
		} else if (m == FX_MEDIUM_OPTICAL) {
			const fx_bom_rule *r = rule_for(c->module, c->nmodule, l->bw, &default_module);
			/* the ceiling is taken on the whole count below */
			fx_bom_part *pt = add_part(b, "module", r->type, 2.0 * l->count / r->per, &r->price);
			snprintf(pt->rule, sizeof pt->rule, "one at each end of an optical link, %g link%s each",
				 r->per, r->per == 1 ? "" : "s");
			add_run(b, "module", r->type, band, 2.0 * l->count / r->per, 0);
			pt = add_part(b, "fibre", "optical cable", l->count, &c->price[FX_BOM_P_FIBRE]);
			snprintf(pt->rule, sizeof pt->rule, "one per optical link");
			add_run(b, "fibre", "optical cable", band, l->count, l->count * len);
			b->fibre_length_m += l->count * len;
		}
	}
	for (size_t i = 0; i < b->npart; i++)
		b->part[i].count = ceil(b->part[i].count - 1e-9);
	for (size_t i = 0; i < b->nrun; i++)
		b->run[i].count = ceil(b->run[i].count - 1e-9);
	if (b->nrun > 1)
		qsort(b->run, b->nrun, sizeof *b->run, run_cmp);
	merge_spans(b);
	/* switch chips and boxes by role */
	for (int r = 0; r < f->nroles; r++) {
		int64_t n = 0, out = 0;
		for (int64_t v = 0; v < f->nv; v++) {
			n += f->v[v].type == FX_V_SWITCH && f->v[v].role == r;
			out += f->v[v].type == FX_V_SWITCH && f->v[v].role == r && f->v[v].node < 0;
		}
		if (!n)
			continue;
		char t[64];
		snprintf(t, sizeof t, "%s", f->roles[r].name);
		fx_bom_part *pt = add_part(b, "switch chip", t, (double)n, &c->price[FX_BOM_P_SWITCH_CHIP]);
		snprintf(pt->rule, sizeof pt->rule, "the fabric's chips of the role");
		const fx_power_role *rc = role_of(p, f, r);
		if (rc && rc->chips_per_box > 0 && out > 0) {  /* chips in nodes are on the nodes' boards */
			pt = add_part(b, "switch box", t, ceil((double)out / (double)rc->chips_per_box),
				      &c->price[FX_BOM_P_SWITCH_BOX]);
			snprintf(pt->rule, sizeof pt->rule, "%lld chips per box (packaging.switches)",
				 (long long)rc->chips_per_box);
		}
	}
	place_boxes(p, f, b);
	/* nvswitch: GB200 NVL72's switch trays sit in the middle of the rack,
	 * compute trays above and below (S: setloop.io "GB200 NVL72
	 * architecture" and chips.sanjay920.com layer 06, "nine NVLink Switch
	 * trays sit in the middle of the rack"; hardware.md §2 P: 18 compute
	 * trays + 9 switch trays).  The split, 10 above and 8 below: U, NVIDIA's
	 * front-view rack drawings as SemiAnalysis reproduces them, not found
	 * in a text source; fx_bom_above holds it in one place. */
	b->switches_mid = f->builder && f->builder->kind && !strcmp(f->builder->kind, "nvswitch");
	/* racks, devices, CPUs */
	fx_bom_part *pt;
	if (b->compute_racks) {
		pt = add_part(b, "rack", "compute", (double)b->compute_racks, &c->price[FX_BOM_P_RACK]);
		snprintf(pt->rule, sizeof pt->rule, "packaging.nodes_per_rack");
	}
	if (b->network_racks) {
		pt = add_part(b, "rack", "network", (double)b->network_racks, &c->price[FX_BOM_P_RACK]);
		snprintf(pt->rule, sizeof pt->rule, "packaging.switches, per role");
	}
	char noun[32];
	fx_fabric_device_noun(f, noun, sizeof noun);
	pt = add_part(b, "device", noun, (double)f->ndev, &c->price[FX_BOM_P_DEVICE]);
	snprintf(pt->rule, sizeof pt->rule, "the fabric's devices");
	if (f->ncpu) {
		pt = add_part(b, "cpu", "CPU", (double)f->ncpu, &c->price[FX_BOM_P_CPU]);
		snprintf(pt->rule, sizeof pt->rule, "the fabric's CPUs");
	}
	/* cost */
	b->cost_usd = NAN;
	for (size_t i = 0; i < b->npart; i++) {
		fx_bom_part *x = &b->part[i];
		x->cost_usd = isnan(x->unit_usd) ? NAN : x->unit_usd * x->count;
		if (isnan(x->cost_usd)) {
			b->unpriced++;
			continue;
		}
		b->priced++;
		b->cost_usd = (isnan(b->cost_usd) ? 0 : b->cost_usd) + x->cost_usd;
	}
	return 0;
}

void fx_bom_release(fx_bom *b)
{
	if (!b)
		return;
	free(b->part);
	free(b->rack);
	free(b->span);
	free(b->run);
	free(b->vertex_rack);
	free(b->vertex_box);
	memset(b, 0, sizeof *b);
}
