/*
 * fabricx bom: the bill of materials of a build — links by medium and
 * place, cables and optical modules, switch chips and boxes, racks, and
 * cost where the spec prices the parts (bom/bom.h has the counting rules).
 */
#include <errno.h>
#include <math.h>
#include <string.h>

#include "../bom/bom.h"
#include "../routing/routing.h"
#include "cli.h"
#include "render.h"
#include "report.h"

static const fx_opt opts[] = {
	{"csv", "FILE", "write the parts table (raw numbers) to FILE"},
	{NULL, NULL, NULL},
};

static int links_table(fx_cli *c, const fx_bom *b)
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
	return fx_cli_table(c, t);
}

/* Cables, fibres and modules by type and length band. */
static int runs_table(fx_cli *c, const fx_bom *b)
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
	return fx_cli_table(c, t);
}

/* The racks on the floor, and the bundles between them. */
static int floor_tables(fx_cli *c, const fx_bom *b)
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
	int rc = fx_cli_table(c, t);
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
	return rc | fx_cli_table(c, t);
}

static int parts_table(fx_cli *c, const fx_bom *b, const char *csv)
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
		int rc = fx_diag_error(&c->d, NULL, "bom: cannot write '%s': %s", csv, strerror(errno));
		fx_table_free(t);
		return rc;
	}
	return fx_cli_table(c, t);
}

int fx_report_bom(fx_cli *c, const char *csv)
{
	fx_bom_config bc;
	fx_bom b = {0};
	fx_cut cut = {0};
	int rc = fx_bom_parse(&c->d, &c->design.spec, &bc);
	if (rc == 0)
		rc = fx_bom_build(&bc, &c->design.power, &c->design.fab, &b, &c->d);
	if (rc == 0)
		rc = fx_route_bisection(&c->design.fab, &cut, &c->d);
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
		double watts = fx_power_of(&c->design.power, &c->design.fab, c->design.fab.nnodes).total;
		int pw = c->design.power.present && isfinite(watts) && watts > 0;
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
		rc = fx_cli_table(c, t);
		rc |= links_table(c, &b);
		rc |= parts_table(c, &b, csv);
		rc |= runs_table(c, &b);
		rc |= floor_tables(c, &b);
	}
	fx_bom_release(&b);
	return rc;
}

int fx_cmd_bom(int argc, char **argv)
{
	fx_cli c;
	int rc = fx_cli_parse(&c, "bom", "bom SPEC [--csv FILE] [--json] [--out DIR]", opts, argc, argv);
	if (rc)
		return fx_cli_finish(&c, rc > 0 ? 0 : -1);
	rc = fx_cli_load(&c);
	if (rc == 0)
		rc = fx_cli_outdir_asked(&c);
	if (rc == 0) {
		fx_cli_begin(&c);
		rc = fx_report_bom(&c, fx_cli_opt(&c, "csv"));
		fx_cli_end(&c);
	}
	return fx_cli_finish(&c, rc);
}

int fx_bom_floor_picture(fx_cli *c, int view, const char *format, const char *path, fx_render_info *info)
{
	fx_bom_config bc;
	fx_bom b = {0};
	int rc = fx_bom_parse(&c->d, &c->design.spec, &bc);
	if (rc == 0)
		rc = fx_bom_build(&bc, &c->design.power, &c->design.fab, &b, &c->d);
	if (rc == 0 && view == FX_VIEW_RACKS)
		rc = fx_render_racks(&b, &c->design.fab, c->design.fab.name, format, path, info, &c->d);
	else if (rc == 0)
		rc = fx_render_floor(&b, c->design.fab.name, format, path, info, &c->d);
	fx_bom_release(&b);
	return rc;
}
