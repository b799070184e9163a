/*
 * compare --bom LIST: bill-of-materials columns.  The values are read
 * back from the bom report (report/bom.c, the one `fabricx bom` prints)
 * run on the build as compare evaluated it, so compare and bom cannot
 * disagree: record fields by their docs/output.md names, and part totals
 * (cables, modules, ...) summed from its parts table.
 */
#include <math.h>
#include <string.h>
#include <strings.h>

#include "../core/sink.h"
#include "../report/report.h"
#include "compare.h"

static const fx_cmp_bom cols[] = {
	{"cost_usd", "cost (USD)", FX_F_NUM, NULL},
	{"cost_per_bisection_GBps_usd", "USD per GB/s", FX_F_NUM, NULL},
	{"power_per_bisection_GBps_W", "W per GB/s", FX_F_WATTS, NULL},
	{"bisection_bandwidth_Bps", "bisection", FX_F_BPS, NULL},
	{"cable_length_m", "cable length", FX_F_METRES, NULL},
	{"fibre_length_m", "fibre length", FX_F_METRES, NULL},
	{"unplaced_links", "unplaced links", FX_F_INT, NULL},
	{"parts_unpriced", "unpriced lines", FX_F_INT, NULL},
	{"cables", "cables", FX_F_INT, "cable"},
	{"modules", "modules", FX_F_INT, "module"},
	{"fibres", "fibres", FX_F_INT, "fibre"},
	{"switch_chips", "switch chips", FX_F_INT, "switch chip"},
	{"switch_boxes", "switch boxes", FX_F_INT, "switch box"},
};
#define NCOLS (sizeof cols / sizeof cols[0])

const fx_cmp_bom *fx_cmp_bom_find(const char *name)
{
	for (size_t i = 0; i < NCOLS; i++)
		if (!strcasecmp(name, cols[i].field))
			return &cols[i];
	return NULL;
}

const char *fx_cmp_bom_names(void)
{
	static char buf[512];
	if (!buf[0])
		for (size_t i = 0, at = 0; i < NCOLS; i++)
			at += (size_t)snprintf(buf + at, sizeof buf - at, "%s%s", i ? ", " : "", cols[i].field);
	return buf;
}

/* The parts table's total count of one part (0 when the build has none:
 * a fabric without optics has no modules, which is a count, not n/a). */
static double part_total(const fx_sink *s, const char *part)
{
	const fx_table *t = fx_sink_find(s, "parts");
	double n = 0;
	fx_value p, k;
	for (size_t row = 0; t && fx_table_value(t, row, "part", &p); row++)
		if (p.text && !strcmp(p.text, part) && fx_table_value(t, row, "count", &k) &&
		    k.type != FX_CELL_NULL)
			n += k.num;
	return t ? n : NAN;
}

int fx_cmp_bom_cells(fx_cli *c, const fx_cmp_opts *o, fx_cmp_row *r)
{
	for (int i = 0; i < FX_CMP_MAX_BOM; i++)
		r->bom[i] = NAN;
	if (!o->nbom)
		return 0;
	fx_sink s;
	fx_sink_capture_init(&s);
	int rc = fx_report_bom(&c->design, NULL, &s, &c->d);
	for (int i = 0; rc == 0 && i < o->nbom; i++) {
		const fx_cmp_bom *b = o->bom[i];
		fx_value v;
		if (b->part)
			r->bom[i] = part_total(&s, b->part);
		else if (fx_sink_value(&s, "bom", NULL, NULL, b->field, &v) && v.type != FX_CELL_NULL)
			r->bom[i] = v.num;
	}
	fx_sink_release(&s);
	return rc;
}
