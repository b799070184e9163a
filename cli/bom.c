/*
 * fabricx bom: the bill of materials of a build — links by medium and
 * place, cables and optical modules, switch chips and boxes, racks, and
 * cost where the spec prices the parts (bom/bom.h has the counting rules).
 */
#include <errno.h>
#include <math.h>
#include <string.h>

#include "../bom/bom.h"
#include "cli.h"

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

int fx_cmd_bom(int argc, char **argv)
{
	fx_cli c;
	int rc = fx_cli_parse(&c, "bom", "bom SPEC [--csv FILE] [--json] [--out DIR]", opts, argc, argv);
	if (rc)
		return fx_cli_finish(&c, rc > 0 ? 0 : -1);
	rc = fx_cli_load(&c);
	fx_bom_config bc;
	fx_bom b = {0};
	if (rc == 0)
		rc = fx_bom_parse(&c.d, &c.design.spec, &bc);
	if (rc == 0)
		rc = fx_bom_build(&bc, &c.design.power, &c.design.fab, &b, &c.d);
	if (rc == 0)
		rc = fx_cli_outdir_asked(&c);
	if (rc == 0) {
		fx_cli_begin(&c);
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
		rc = fx_cli_table(&c, t);
		rc |= links_table(&c, &b);
		rc |= parts_table(&c, &b, fx_cli_opt(&c, "csv"));
		fx_cli_end(&c);
	}
	fx_bom_release(&b);
	return fx_cli_finish(&c, rc);
}
