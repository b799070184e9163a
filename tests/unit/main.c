/* Runs every Check suite; CK_RUN_SUITE / CK_RUN_CASE select a subset. */
#include <stdlib.h>

#include "helpers.h"

int main(void)
{
	/* Tests must not depend on the machine's speed.  Check kills a test
	 * after 4 s by default, which a loaded 2-core machine overran (a shrink
	 * of every kind took 4 s at load 7.5, 2 s alone): the default becomes
	 * 10 minutes, and the suites' own timeouts count four times over, so
	 * only a hang fails.  Either can still be set from the environment. */
	setenv("CK_DEFAULT_TIMEOUT", "600", 0);
	setenv("CK_TIMEOUT_MULTIPLIER", "4", 0);
	fx_igraph_quiet();  /* as the CLI: errors as return codes */
	SRunner *sr = srunner_create(suite_units());
	srunner_add_suite(sr, suite_spec());
	srunner_add_suite(sr, suite_fabric());
	srunner_add_suite(sr, suite_metrics());
	srunner_add_suite(sr, suite_collective());
	srunner_add_suite(sr, suite_solver());
	srunner_add_suite(sr, suite_model());
	srunner_add_suite(sr, suite_step());
	srunner_add_suite(sr, suite_wafer());
	srunner_add_suite(sr, suite_power());
	srunner_add_suite(sr, suite_place());
	srunner_add_suite(sr, suite_render());
	srunner_add_suite(sr, suite_render_page());
	srunner_add_suite(sr, suite_access());
	srunner_add_suite(sr, suite_routing());
	srunner_add_suite(sr, suite_sweep());
	srunner_add_suite(sr, suite_bisection());
	srunner_add_suite(sr, suite_outfile());
	srunner_add_suite(sr, suite_space());
	srunner_add_suite(sr, suite_design());
	srunner_add_suite(sr, suite_table());
	srunner_add_suite(sr, suite_sink());
	srunner_add_suite(sr, suite_report());
	srunner_add_suite(sr, suite_fail());
	srunner_add_suite(sr, suite_lattice_fast());
	srunner_add_suite(sr, suite_railclos());
	srunner_add_suite(sr, suite_composite());
	srunner_add_suite(sr, suite_kinds());
	srunner_add_suite(sr, suite_api());
	srunner_add_suite(sr, suite_orbit());
	srunner_add_suite(sr, suite_peer());
	srunner_add_suite(sr, suite_calib());
	srunner_add_suite(sr, suite_measured());
	srunner_add_suite(sr, suite_plan());
	srunner_add_suite(sr, suite_bom());
	srunner_add_suite(sr, suite_plot());
	srunner_run_all(sr, CK_ENV);
	int failed = srunner_ntests_failed(sr);
	int ran = srunner_ntests_run(sr);
	srunner_free(sr);
	if (ran == 0) {
		fprintf(stderr, "no test ran (check CK_RUN_SUITE / CK_RUN_CASE)\n");
		return EXIT_FAILURE;
	}
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
