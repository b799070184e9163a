/* design/: fx_design_load is the loader every command uses, so a spec and
 * its overrides load to the same fabric through the library as through
 * the CLI, and a bad override is reported, not half-applied. */
#include <string.h>

#include "helpers.h"

#include "../../cli/cli.h"
#include "../../design/design.h"

START_TEST(same_as_cli)
{
	const char *sets[] = {"fabric.dims=[4,4,2]"};
	fx_diag d;
	fx_diag_init(&d);
	fx_design ds;
	fx_design_limits lim = {.max_memory = 1e9};
	ck_assert_int_eq(fx_design_load(&ds, "specs/torus-8x8x8.yaml", sets, 1, &lim, &d), 0);

	char *argv[] = {"metrics", "specs/torus-8x8x8.yaml", "--set", "fabric.dims=[4,4,2]",
			"--max-memory", "1 GB", NULL};
	fx_cli c;
	ck_assert_int_eq(fx_cli_parse(&c, "metrics", "metrics SPEC", NULL, 6, argv), 0);
	ck_assert_int_eq(fx_cli_load(&c), 0);
	ck_assert_int_eq(ds.fab.ndev, 32);
	ck_assert_int_eq(ds.fab.ndev, c.design.fab.ndev);
	ck_assert_int_eq(ds.fab.nv, c.design.fab.nv);
	ck_assert_int_eq(ds.fab.ne, c.design.fab.ne);
	ck_assert_int_eq(ds.fab.nsw, c.design.fab.nsw);
	ck_assert_str_eq(ds.name, c.design.name);
	ck_assert_str_eq(ds.fab.builder->kind, c.design.fab.builder->kind);
	ck_assert_int_eq(fx_cli_finish(&c, 0), 0);
	fx_design_release(&ds);
	fx_design_release(&ds);  /* twice is harmless */
	fx_diag_release(&d);
}
END_TEST

START_TEST(bad_override)
{
	const char *sets[] = {"fabric.dims=[0]"};
	fx_diag d;
	fx_diag_init(&d);
	d.out = tmpfile();
	fx_design ds;
	ck_assert_int_eq(fx_design_load(&ds, "specs/torus-8x8x8.yaml", sets, 1, NULL, &d), -1);
	ck_assert_int_eq(d.status, FX_EXIT_INPUT);
	ck_assert_int_eq(ds.have_fab, 0);
	fx_design_release(&ds);
	fclose(d.out);
	fx_diag_release(&d);
}
END_TEST

START_TEST(from_text)
{
	static const char yaml[] =
		"name: t\n"
		"fabric: {kind: torus, dims: [2, 2], link: {bandwidth: 50 GB/s, latency: 1 us}}\n"
		"groups: {left: x=0}\n";
	fx_diag d;
	fx_diag_init(&d);
	fx_design ds;
	ck_assert_int_eq(fx_design_load_text(&ds, "t.yaml", yaml, NULL, 0, NULL, &d), 0);
	ck_assert_int_eq(ds.fab.ndev, 4);
	int64_t r[4];
	ck_assert_int_eq(fx_design_group_devices(&ds, "left", r, &d), 2);
	ck_assert_int_eq(fx_design_group_devices(&ds, "none", r, &d), 0);
	fx_design_release(&ds);
	fx_diag_release(&d);
}
END_TEST

Suite *suite_design(void)
{
	Suite *s = suite_create("design");
	TCase *t = tcase_create("load");
	tcase_add_test(t, same_as_cli);
	tcase_add_test(t, bad_override);
	tcase_add_test(t, from_text);
	suite_add_tcase(s, t);
	return s;
}
