/* The spec loader: positions, typed getters, YAML pitfalls, --set. */
#include <string.h>

#include "helpers.h"

#define HAS(fx, s) ck_assert_msg(strstr((fx)->msg, s) != NULL, "expected '%s' in:\n%s", s, (fx)->msg)

START_TEST(position_and_key_in_errors)
{
	fixture fx;
	const char *y = "name: t\nfabric:\n  kind: torus\n  dims: [4, 0]\n"
			"  link: {bandwidth: 50 GB/s, latency: 200 ns}\n";
	ck_assert_int_eq(fixture_load(&fx, "t.yaml", y, NULL), -1);
	HAS(&fx, "t.yaml:4:13: error: 'fabric.dims[1]' must be at least 1, got 0");
	HAS(&fx, "    dims: [4, 0]\n                ^");  /* the line and a caret */
	ck_assert_int_eq(fx.d.status, FX_EXIT_INPUT);
	fixture_release(&fx);
}
END_TEST

START_TEST(unknown_key_lists_expected)
{
	fixture fx;
	const char *y = "fabric:\n  kind: torus\n  dim: [4]\n  link: {bandwidth: 1 GB/s, latency: 1 ns}\n";
	ck_assert_int_eq(fixture_load(&fx, "t.yaml", y, NULL), -1);
	HAS(&fx, "t.yaml:3:3: error: unknown key 'dim' in 'fabric' (expected: kind, dims, wrap, "
		 "links_per_neighbor, link, dim_link, wrap_link, node_shape, rack_shape, rack_link, ocs)");
	fixture_release(&fx);
}
END_TEST

START_TEST(yaml_pitfalls)
{
	fixture fx;
	ck_assert_int_eq(fixture_load(&fx, "t.yaml", "a: 1\na: 2\n", NULL), -1);
	HAS(&fx, "t.yaml:2:1: error: duplicate key 'a' in '(top)'");
	fixture_release(&fx);

	ck_assert_int_eq(fixture_load(&fx, "t.yaml", "b: &x {c: 1}\nd:\n  <<: *x\n", NULL), -1);
	HAS(&fx, "merge keys '<<' are not supported");
	fixture_release(&fx);

	/* an alias cycle is a loop, reported where the anchor is */
	ck_assert_int_eq(fixture_load(&fx, "t.yaml", "a: &x [1, *x]\n", NULL), -1);
	HAS(&fx, "t.yaml:1:4: error: YAML alias loop");
	fixture_release(&fx);

	/* nested aliases (10 x 10 x 10 x 10 = 10^4 leaves from 5 short lines)
	 * may grow the tree to 4x the document + 10,000 nodes, not to millions */
	ck_assert_int_eq(fixture_load(&fx, "t.yaml",
				      "a: &a [x, x, x, x, x, x, x, x, x, x]\n"
				      "b: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a, *a]\n"
				      "c: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b, *b]\n"
				      "d: [*c, *c, *c, *c, *c, *c, *c, *c, *c, *c]\n", NULL), -1);
	HAS(&fx, "expands too many aliases");
	fixture_release(&fx);
	/* ... while the same with three levels (1,000 leaves) loads */
	ck_assert_int_eq(fixture_load(&fx, "t.yaml",
				      "a: &a [x, x, x, x, x, x, x, x, x, x]\n"
				      "b: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a, *a]\n"
				      "c: [*b, *b, *b, *b, *b, *b, *b, *b, *b, *b]\n"
				      "fabric: {kind: torus, dims: [2], link: {bandwidth: 1 GB/s, latency: 1 ns}}\n",
				      NULL), 0);
	fixture_release(&fx);

	ck_assert_int_eq(fixture_load(&fx, "t.yaml", "a: [1, 2\nb: 3\n", NULL), -1);
	HAS(&fx, "t.yaml:2:2: error: invalid YAML:");
	fixture_release(&fx);

	ck_assert_int_eq(fixture_load(&fx, "t.yaml", "", NULL), -1);
	HAS(&fx, "t.yaml:1:1: error: empty document");
	fixture_release(&fx);

	/* a quoted number is a string, not a count */
	const char *q = "fabric:\n  kind: torus\n  dims: [\"4\"]\n  link: {bandwidth: 1 GB/s, latency: 1 ns}\n";
	ck_assert_int_eq(fixture_load(&fx, "t.yaml", q, NULL), -1);
	HAS(&fx, "'fabric.dims[0]' must be an integer, got the quoted string \"4\"");
	fixture_release(&fx);
}
END_TEST

START_TEST(units_in_specs)
{
	fixture fx;
	const char *y = "fabric:\n  kind: torus\n  dims: [4]\n  link: {bandwidth: 50, latency: 200 ns}\n";
	ck_assert_int_eq(fixture_load(&fx, "t.yaml", y, NULL), -1);
	HAS(&fx, "t.yaml:4:21: error: 'fabric.link.bandwidth' needs a unit: '50'");
	fixture_release(&fx);
	y = "fabric:\n  kind: torus\n  dims: [4]\n  link: {bandwidth: 50 GB, latency: 200 ns}\n";
	ck_assert_int_eq(fixture_load(&fx, "t.yaml", y, NULL), -1);
	HAS(&fx, "'fabric.link.bandwidth' must be a bandwidth, but '50 GB' is a size");
	fixture_release(&fx);
}
END_TEST

START_TEST(set_overrides)
{
	fixture fx;
	const char *sets[] = {"fabric.dims=[8,8,8]", "fabric.link.bandwidth=100 GB/s",
			      "packaging.nodes_per_rack=2", NULL};
	load_ok(&fx, "specs/tpu-v4-cube.yaml", sets);
	ck_assert_int_eq(fx.f.ndev, 512);
	ck_assert_double_eq(fx.f.e[0].bw, 100e9);
	ck_assert_int_eq(fx.f.nracks, 64);  /* 128 nodes of 4, 2 per rack */
	fixture_release(&fx);

	const char *idx[] = {"fabric.links[0].count=3", NULL};
	load_ok(&fx, "specs/dgx1.yaml", idx);
	ck_assert_int_eq(fx_fabric_links(&fx.f), 26);  /* 24 + 2 more on gpu0-gpu1 */
	fixture_release(&fx);

	const char *bad[] = {"fabric.dims=[4,-1]", NULL};
	ck_assert_int_eq(fixture_load(&fx, "specs/tpu-v4-cube.yaml", NULL, bad), -1);
	HAS(&fx, "--set fabric.dims:1:4: error: 'fabric.dims[1]' must be at least 1, got -1");
	fixture_release(&fx);

	const char *scalar[] = {"fabric.kind.x=1", NULL};
	ck_assert_int_eq(fixture_load(&fx, "specs/tpu-v4-cube.yaml", NULL, scalar), -1);
	HAS(&fx, "--set: 'fabric.kind' is a single value, not a map");
	fixture_release(&fx);
}
END_TEST

/* The paths errors name after --set: the grafted value's nodes read from
 * the root where they now sit (under an index, under maps --set made),
 * and the nodes the override did not touch keep theirs. */
START_TEST(set_paths)
{
	fx_spec s;
	fx_diag d;
	fx_diag_init(&d);
	ck_assert_int_eq(fx_spec_load_text(&s, "t.yaml",
					   "fabric:\n  links:\n    - {a: x, b: y}\n    - {a: y, b: z}\n"
					   "  dims: [2, 3]\n", &d), 0);
	ck_assert_int_eq(fx_spec_set(&s, "fabric.links[1]={a: u, b: [1, 2]}", &d), 0);
	ck_assert_int_eq(fx_spec_set(&s, "power.rack.cap=10 kW", &d), 0);
	ck_assert_int_eq(fx_spec_set(&s, "fabric.dims=[4, 5, 6]", &d), 0);
	const fx_snode *f = fx_snode_get(s.root, "fabric");
	const fx_snode *links = fx_snode_get(f, "links");
	ck_assert_str_eq(links->path, "fabric.links");
	ck_assert_str_eq(links->items[0]->items[1]->path, "fabric.links[0].b");
	const fx_snode *l1 = links->items[1];
	ck_assert_str_eq(l1->path, "fabric.links[1]");
	ck_assert_str_eq(fx_snode_get(l1, "a")->path, "fabric.links[1].a");
	ck_assert_str_eq(fx_snode_get(l1, "b")->items[1]->path, "fabric.links[1].b[1]");
	const fx_snode *p = fx_snode_get(s.root, "power");
	ck_assert_str_eq(p->path, "power");
	ck_assert_str_eq(fx_snode_get(p, "rack")->path, "power.rack");
	ck_assert_str_eq(fx_snode_get(fx_snode_get(p, "rack"), "cap")->path, "power.rack.cap");
	ck_assert_str_eq(fx_snode_get(f, "dims")->items[2]->path, "fabric.dims[2]");
	fx_spec_release(&s);
	fx_diag_release(&d);
}
END_TEST

/* fx_spec_copy: the same tree (paths, positions, keys, texts), and its
 * own: a --set on the copy leaves the original as it was, and the copy
 * outlives the original. */
START_TEST(spec_copy)
{
	fx_spec s, c;
	fx_diag d;
	fx_diag_init(&d);
	ck_assert_int_eq(fx_spec_load_text(&s, "t.yaml",
					   "name: t\nfabric:\n  kind: torus\n  dims: [2, 3]\n"
					   "  link: {bandwidth: 50 GB/s}\n", &d), 0);
	fx_spec_copy(&c, &s);
	ck_assert_str_eq(c.file, "t.yaml");
	ck_assert_ptr_ne(c.root, s.root);
	const fx_snode *f0 = fx_snode_get(s.root, "fabric"), *f1 = fx_snode_get(c.root, "fabric");
	ck_assert_uint_eq(f1->n, 3);
	const fx_snode *b0 = fx_snode_get(fx_snode_get(f0, "link"), "bandwidth");
	const fx_snode *b1 = fx_snode_get(fx_snode_get(f1, "link"), "bandwidth");
	ck_assert_str_eq(b1->path, "fabric.link.bandwidth");
	ck_assert_str_eq(b1->text, "50 GB/s");
	ck_assert_int_eq(b1->loc.line, 5);
	ck_assert_int_eq(b1->loc.col, b0->loc.col);
	ck_assert_int_eq(f1->keyloc[1].line, 4);
	ck_assert_str_eq(fx_snode_get(f1, "dims")->items[1]->path, "fabric.dims[1]");
	ck_assert_int_eq(fx_spec_set(&c, "fabric.dims=[4, 5, 6]", &d), 0);
	ck_assert_uint_eq(fx_snode_get(f0, "dims")->n, 2);
	fx_spec_release(&s);
	ck_assert_uint_eq(fx_snode_get(fx_snode_get(c.root, "fabric"), "dims")->n, 3);
	ck_assert_str_eq(fx_snode_get(fx_snode_get(fx_snode_get(c.root, "fabric"), "link"),
				      "bandwidth")->text, "50 GB/s");
	fx_spec_release(&c);
	fx_diag_release(&d);
}
END_TEST

Suite *suite_spec(void)
{
	Suite *s = suite_create("spec");
	TCase *tc = tcase_create("core");
	tcase_add_test(tc, position_and_key_in_errors);
	tcase_add_test(tc, unknown_key_lists_expected);
	tcase_add_test(tc, yaml_pitfalls);
	tcase_add_test(tc, units_in_specs);
	tcase_add_test(tc, set_overrides);
	tcase_add_test(tc, set_paths);
	tcase_add_test(tc, spec_copy);
	suite_add_tcase(s, tc);
	return s;
}
