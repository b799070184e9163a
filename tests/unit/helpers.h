/* Shared helpers for the Check suites. */
#ifndef FX_TEST_HELPERS_H
#define FX_TEST_HELPERS_H

#include <check.h>
#include <stdio.h>

#include "../../core/diag.h"
#include "../../fabric/fabric.h"
#include "../../spec/spec.h"

/* A spec and its fabric, loaded together; errors go to a temp file so tests
 * can read the message. */
typedef struct fixture {
	fx_diag d;
	fx_spec s;
	fx_fabric f;
	FILE *err;
	int loaded, built;
	char msg[4096];    /* diagnostics printed so far */
} fixture;

/* Loads path (or YAML text when text != NULL), applies NULL-terminated
 * --set assignments, builds.  Returns 0 or -1 (message in fx->msg). */
int fixture_load(fixture *fx, const char *path, const char *text, const char *const *sets);
void fixture_release(fixture *fx);

/* Loads and builds a shipped spec, failing the test on error. */
void load_ok(fixture *fx, const char *path, const char *const *sets);
/* Reads what the fixture's diagnostics printed so far into fx->msg. */
void fixture_messages(fixture *fx);

/* Utilisation (busy time over completion time) per directed link of an
 * all-to-all of 32 MiB per rank, direct, over devices 0..nranks-1 with
 * split routing and no overheads; [2 ne] numbers, the caller frees them. */
double *a2a_util(const fx_fabric *f, int64_t nranks);

/* The width and height a PNG's header gives; -1 when path is no PNG. */
int png_size(const char *path, int64_t *w, int64_t *h);

Suite *suite_units(void);
Suite *suite_sink(void);
Suite *suite_report(void);
Suite *suite_spec(void);
Suite *suite_fabric(void);
Suite *suite_metrics(void);
Suite *suite_collective(void);
Suite *suite_solver(void);
Suite *suite_model(void);
Suite *suite_step(void);
Suite *suite_wafer(void);
Suite *suite_power(void);
Suite *suite_place(void);
Suite *suite_design(void);
Suite *suite_render(void);
Suite *suite_render_page(void);
Suite *suite_access(void);
Suite *suite_routing(void);
Suite *suite_sweep(void);
Suite *suite_bisection(void);
Suite *suite_outfile(void);
Suite *suite_space(void);
Suite *suite_table(void);
Suite *suite_api(void);
Suite *suite_peer(void);
Suite *suite_calib(void);
Suite *suite_bom(void);
Suite *suite_plot(void);
Suite *suite_fail(void);
Suite *suite_lattice_fast(void);
Suite *suite_railclos(void);
Suite *suite_composite(void);
Suite *suite_kinds(void);
Suite *suite_measured(void);
Suite *suite_plan(void);
Suite *suite_orbit(void);

#endif
