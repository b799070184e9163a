/*
 * The bill of materials report: links by medium and place, cables and
 * optical modules by length band, switch chips and boxes, racks on the
 * floor plan, and cost where the spec prices the parts (bom/bom.h has the
 * counting rules), with power and cost per GB/s of bisection.
 */
#include <errno.h>
#include <math.h>
#include <string.h>

#include "../bom/bom.h"
#include "report.h"

/* One run: the design, where its tables and errors go. */
typedef struct rctx {
	const fx_design *ds;
	fx_sink *out;
	fx_diag *d;
} rctx;

static int links_table(rctx *c, const fx_bom *b)
{
	static const fx_col cols[] = {
		{"medium", "medium", FX_F_TEXT}, {"place", "place", FX_F_TEXT},
		{"bundles", "bundles", FX_F_INT}, {"links", "links", FX_F_INT},
		{"bandwidth_Bps", "bandwidth (sum, per direction)", FX_F_BPS}, {NULL, NULL, 0},
	};
	fx_table *t = fx_table_typed("bom_links", "Links by medium and place", cols);
	fx_table_json_key(t, "link_classes");
	for (int m = 0; m < FX_MEDIUMS; m++)
		for (int w = 0; w < FX_BOM_WHERES; w++) {
			const fx_bom_links *x = &b->links[m][w];
			if (!x->bundles)
				continue;
			fx_table_cell(t, "%s", fx_medium_name((fx_medium)m));
			fx_table_cell(t, "%s", fx_bom_where_name((fx_bom_where)w));
			fx_table_int(t, x->bundles);
			fx_table_int(t, x->links);
			fx_table_num(t, x->bandwidth);
		}
	return fx_sink_put(c->out, t, c->d);
}

/* Cables, fibres and modules by type and length band. */
static int runs_table(rctx *c, const fx_bom *b)
{
	static const fx_col cols[] = {
		{"part", "part", FX_F_TEXT}, {"type", "type", FX_F_TEXT},
		{"length_band_m", "length up to", FX_F_METRES}, {"count", "count", FX_F_INT},
		{"length_m", "length (sum)", FX_F_METRES}, {NULL, NULL, 0},
	};
	fx_table *t = fx_table_typed("bom_lengths", "Cables and modules by length band (floor plan: docs/output.md)",
				     cols);
	fx_table_json_key(t, "lengths");
	for (size_t i = 0; i < b->nrun; i++) {
		const fx_bom_run *r = &b->run[i];
		fx_table_cell(t, "%s", r->kind);
		fx_table_cell(t, "%s", r->type);
		fx_table_num(t, r->band_m);
		fx_table_int(t, (long long)r->count);
		fx_table_num(t, r->length_m);
	}
	return fx_sink_put(c->out, t, c->d);
}

/* The racks on the floor, and the bundles between them. */
static int floor_tables(rctx *c, const fx_bom *b)
{
	static const fx_col rcols[] = {
		{"rack", "rack", FX_F_INT}, {"kind", "kind", FX_F_TEXT}, {"row", "row", FX_F_INT},
		{"position", "position", FX_F_INT}, {"x_m", "x", FX_F_METRES}, {"y_m", "y", FX_F_METRES},
		{NULL, NULL, 0},
	};
	fx_table *t = fx_table_typed("bom_floor", "Floor plan", rcols);
	fx_table_json_key(t, "floor");
	for (int64_t r = 0; r < b->compute_racks + b->network_racks; r++) {
		const fx_bom_rack *k = &b->rack[r];
		fx_table_int(t, r);
		fx_table_cell(t, "%s", k->network ? "network" : "compute");
		fx_table_int(t, k->row);
		fx_table_int(t, k->pos);
		fx_table_num(t, k->x_m);
		fx_table_num(t, k->y_m);
	}
	int rc = fx_sink_put(c->out, t, c->d);
	static const fx_col scols[] = {
		{"rack_a", "rack", FX_F_INT}, {"rack_b", "and rack", FX_F_INT}, {"medium", "medium", FX_F_TEXT},
		{"links", "links", FX_F_INT}, {"length_m", "length each", FX_F_METRES}, {NULL, NULL, 0},
	};
	t = fx_table_typed("bom_spans", "Links between racks, by rack pair", scols);
	fx_table_json_key(t, "spans");
	for (size_t i = 0; i < b->nspan; i++) {
		const fx_bom_span *s = &b->span[i];
		fx_table_int(t, s->a);
		fx_table_int(t, s->b);
		fx_table_cell(t, "%s", fx_medium_name((fx_medium)s->medium));
		fx_table_int(t, s->links);
		fx_table_num(t, s->length_m);
	}
	return rc | fx_sink_put(c->out, t, c->d);
}

static int parts_table(rctx *c, const fx_bom *b, const char *csv)
{
	static const fx_col cols[] = {
		{"part", "part", FX_F_TEXT}, {"type", "type", FX_F_TEXT}, {"count", "count", FX_F_INT},
		{"unit_price_usd", "unit price (USD)", FX_F_NUM}, {"cost_usd", "cost (USD)", FX_F_NUM},
		{"price_source", "price source", FX_F_TEXT}, {"rule", "counted as", FX_F_TEXT},
		{NULL, NULL, 0},
	};
	fx_table *t = fx_table_typed("bom_parts", "Parts", cols);
	fx_table_json_key(t, "parts");
	for (size_t i = 0; i < b->npart; i++) {
		const fx_bom_part *p = &b->part[i];
		fx_table_cell(t, "%s", p->kind);
		fx_table_cell(t, "%s", p->type);
		fx_table_int(t, (long long)p->count);
		if (isnan(p->unit_usd)) {
			fx_table_null(t, "n/a");
			fx_table_null(t, "n/a");
			fx_table_null(t, "no price");
		} else {
			fx_table_num(t, p->unit_usd);
			fx_table_num(t, p->cost_usd);
			fx_table_cell(t, "%s", p->source);
		}
		fx_table_cell(t, "%s", p->rule);
	}
	if (csv && fx_table_write_csv_file(t, csv)) {
		int rc = fx_diag_error(c->d, NULL, "bom: cannot write '%s': %s", csv, strerror(errno));
		fx_table_free(t);
		return rc;
	}
	return fx_sink_put(c->out, t, c->d);
}

static int bom(rctx *c, const char *csv)
{
	fx_bom_config bc;
	fx_bom b = {0};
	fx_cut cut = {0};
	int rc = fx_bom_parse(c->d, &c->ds->spec, &bc);
	if (rc == 0)
		rc = fx_bom_build(&bc, &c->ds->power, &c->ds->fab, &b, c->d);
	if (rc == 0)
		rc = fx_route_bisection(&c->ds->fab, &cut, c->d);
	double bis = cut.bandwidth;
	if (rc == 0) {
		fx_table *t = fx_record_new("bom", "Bill of materials (counting rules: docs/output.md)", NULL);
		fx_record_int(t, "racks", "racks", b.compute_racks + b.network_racks);
		fx_record_int(t, "compute_racks", "compute racks", b.compute_racks);
		fx_record_int(t, "network_racks", "network racks", b.network_racks);
		if (isnan(b.cost_usd))
			fx_record_null(t, "cost_usd", "cost (USD)", FX_F_NUM, "n/a (the spec gives no prices)");
		else
			fx_record_num(t, "cost_usd", "cost (USD)", FX_F_NUM, b.cost_usd);
		fx_record_int(t, "parts_priced", "part lines priced", b.priced);
		fx_record_int(t, "parts_unpriced", "part lines without a price (not in the cost)", b.unpriced);
		fx_record_text(t, "floor_plan", "floor plan", "%s", b.floor.given ? "bom.floor"
			       : "assumed (no bom.floor: the defaults of docs/spec.md 6g)");
		fx_record_int(t, "racks_per_row", "racks per row", b.floor.racks_per_row);
		int64_t nr = b.compute_racks + b.network_racks;
		fx_record_int(t, "rows", "rows", (nr + b.floor.racks_per_row - 1) / b.floor.racks_per_row);
		fx_record_num(t, "cable_length_m", "copper cable, total length", FX_F_METRES, b.cable_length_m);
		fx_record_num(t, "fibre_length_m", "fibre, total length", FX_F_METRES, b.fibre_length_m);
		fx_record_int(t, "unplaced_links", "links with an end in no rack", b.unplaced_links);
		/* what the bisection costs: the whole build's power and the
		 * bill's cost over its bisection bandwidth */
		double watts = fx_power_of(&c->ds->power, &c->ds->fab, c->ds->fab.nnodes).total;
		int pw = c->ds->power.present && isfinite(watts) && watts > 0;
		if (pw)
			fx_record_num(t, "power_W", "power (all nodes)", FX_F_WATTS, watts);
		else
			fx_record_null(t, "power_W", "power (all nodes)", FX_F_WATTS, "n/a (the spec has no power: map)");
		fx_record_num(t, "bisection_bandwidth_Bps", "bisection bandwidth (per direction)", FX_F_BPS, bis);
		if (pw && bis > 0)
			fx_record_num(t, "power_per_bisection_GBps_W", "power per GB/s of bisection",
				      FX_F_WATTS, watts / (bis / 1e9));
		else
			fx_record_null(t, "power_per_bisection_GBps_W", "power per GB/s of bisection",
				       FX_F_WATTS, "n/a");
		if (!isnan(b.cost_usd) && bis > 0)
			fx_record_num(t, "cost_per_bisection_GBps_usd", "cost per GB/s of bisection (USD)",
				      FX_F_NUM, b.cost_usd / (bis / 1e9));
		else
			fx_record_null(t, "cost_per_bisection_GBps_usd", "cost per GB/s of bisection (USD)",
				       FX_F_NUM, "n/a");
		rc = fx_sink_put(c->out, t, c->d);
		rc |= links_table(c, &b);
		rc |= parts_table(c, &b, csv);
		rc |= runs_table(c, &b);
		rc |= floor_tables(c, &b);
	}
	fx_bom_release(&b);
	return rc;
}

int fx_report_bom(const fx_design *ds, const char *csv, fx_sink *out, fx_diag *d)
{
	if (!ds || !out)
		return fx_diag_internal(d, "fx_report_bom: a NULL argument");
	rctx c = {ds, out, d};
	return bom(&c, csv);
}
