/*
 * What the exporters share (interop/export.c); not installed.
 */
#ifndef FX_EXPORT_INTERNAL_H
#define FX_EXPORT_INTERNAL_H

#include "interop.h"

int fx_export_graphml(const fx_design *ds, FILE *out, fx_export_info *info, fx_diag *d);
int fx_export_gml(const fx_design *ds, FILE *out, fx_export_info *info, fx_diag *d);
int fx_export_dot(const fx_design *ds, FILE *out, fx_export_info *info, fx_diag *d);
int fx_export_ns3(const fx_design *ds, FILE *out, fx_export_info *info, fx_diag *d);
int fx_export_simai(const fx_design *ds, FILE *out, fx_export_info *info, fx_diag *d);
int fx_export_booksim(const fx_design *ds, FILE *out, fx_export_info *info, fx_diag *d);
int fx_export_simgrid(const fx_design *ds, FILE *out, fx_export_info *info, fx_diag *d);
int fx_export_htsim(const fx_design *ds, FILE *out, fx_export_info *info, fx_diag *d);
int fx_export_infragraph(const fx_design *ds, FILE *out, fx_export_info *info, fx_diag *d);
int fx_export_smpi(const fx_design *ds, FILE *out, fx_export_info *info, fx_diag *d);
int fx_export_simgrid_hosts(const fx_design *ds, FILE *out, fx_export_info *info, fx_diag *d);
int fx_export_astra(const fx_design *ds, FILE *out, fx_export_info *info, fx_diag *d);

/* Appends one sentence to info->lost. */
void fx_export_lost(fx_export_info *info, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* On a degraded fabric, the lost-list's sentence for formats that leave
 * failed elements out. */
void fx_export_failed_left_out(const fx_fabric *f, fx_export_info *info);
/* x in at most `digits` significant digits (17: exact), the fewest that
 * keep its value, fixed notation where short; real: always readable as a
 * real (a decimal point or an exponent).  Returns buf. */
const char *fx_export_num(double x, int digits, int real, char buf[48]);
/* The graph formats' exact reals; the simulators' converted figures. */
#define fx_export_real(x, buf) fx_export_num((x), 17, 1, (buf))
#define fx_export_conv(x, buf) fx_export_num((x), 12, 0, (buf))

/* The live bundles between two (mapped) vertices, summed: bw is the
 * pair's bandwidth per direction over all its links, lat the slowest. */
typedef struct fx_export_pair {
	int64_t a, b;          /* a < b */
	double bw, lat;
	int64_t links, bundles;
} fx_export_pair;
/* Every pair of live bundles' ends, through map[v] when map is given
 * (-1: left out; equal ends: dropped), sorted; *summed counts pairs of
 * more than one physical link.  *out is the caller's to free. */
size_t fx_export_pairs(const fx_fabric *f, const int64_t *map, fx_export_pair **out,
		       int64_t *summed);

#endif
