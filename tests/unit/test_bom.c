/* The bill of materials (bom/bom.c) against counts by hand and published
 * totals:
 *   - NVL72 (hardware.md §2): 72 GPUs x 18 NVLink 5 links = 1,296 links
 *     between the compute trays and the switch trays, in one rack; each
 *     link 2 lanes, a lane a twinax pair each way, 4 cables per link:
 *     5,184, NVIDIA's "about 5,000" copper spine cables;
 *   - CloudMatrix384 (hardware.md §1): 48 nodes x 7 L1 x 16 uplinks =
 *     5,376 optical L1-L2 links between racks, 2 per 400G LPO module at
 *     each end: 5,376 scale-up modules; 12 compute racks + 112 L2 chips in
 *     bus racks of 14 boxes x 2 chips = 4, 16 racks; 56 L2 boxes;
 *   - a 4-ring torus with no bom: map: default rules, no cables inside a
 *     node and no cost. */
#include <math.h>
#include <string.h>

#include "../../bom/bom.h"
#include "../../power/power.h"
#include "helpers.h"

static const fx_bom_part *part(const fx_bom *b, const char *kind, const char *type)
{
	for (size_t i = 0; i < b->npart; i++)
		if (!strcmp(b->part[i].kind, kind) && (!type || !strcmp(b->part[i].type, type)))
			return &b->part[i];
	return NULL;
}

static void bom_of(fixture *fx, const char *path, const char *const *sets, fx_bom *b)
{
	fx_bom_config c;
	fx_power_config p;
	load_ok(fx, path, sets);
	ck_assert_int_eq(fx_bom_parse(&fx->d, &fx->s, &c), 0);
	ck_assert_int_eq(fx_power_parse(&fx->d, &fx->s, &p), 0);
	ck_assert_int_eq(fx_bom_build(&c, &p, &fx->f, b, &fx->d), 0);
}

START_TEST(bom_nvl72_spine)
{
	fixture fx;
	fx_bom b;
	bom_of(&fx, "specs/nvl72.yaml", NULL, &b);
	ck_assert_int_eq(b.links[FX_MEDIUM_COPPER][FX_BOM_IN_RACK].links, 72 * 18);
	ck_assert_int_eq(b.links[FX_MEDIUM_COPPER][FX_BOM_IN_NODE].links, 72);  /* C2C, one per GPU */
	const fx_bom_part *p = part(&b, "cable", NULL);
	ck_assert_ptr_nonnull(p);
	ck_assert_double_eq(p->count, 72 * 18 * 2 * 2);
	ck_assert(fabs(p->count / 5000 - 1) < 0.05);  /* "about 5,000" */
	ck_assert_int_eq(b.compute_racks + b.network_racks, 1);
	ck_assert_ptr_null(part(&b, "module", NULL));  /* no optics for NVLink */
	ck_assert(isnan(b.cost_usd));
	fx_bom_release(&b);
	fixture_release(&fx);
}
END_TEST

START_TEST(bom_cm384_optics_racks)
{
	fixture fx;
	fx_bom b;
	static const char *const prices[] = {
		"bom.prices.rack={usd: 50000, source: \"assumed: a test\"}",
		"bom.modules=[{type: 400G LPO, links_per_module: 2, bandwidth: 28 GB/s, price: {usd: 300, source: \"assumed: a test\"}}]",
		NULL};
	bom_of(&fx, "specs/cm384.yaml", NULL, &b);
	ck_assert_int_eq(b.links[FX_MEDIUM_OPTICAL][FX_BOM_BETWEEN_RACKS].links, 48 * 7 * 16);
	const fx_bom_part *p = part(&b, "module", "400G LPO");
	ck_assert_ptr_nonnull(p);
	ck_assert_double_eq(p->count, 5376);
	ck_assert_int_eq(b.compute_racks, 12);
	ck_assert_int_eq(b.network_racks, 4);
	ck_assert_double_eq(part(&b, "switch box", "L2")->count, 56);
	ck_assert_ptr_null(part(&b, "switch box", "L1"));  /* on the nodes' boards */
	ck_assert_double_eq(part(&b, "switch chip", "L1")->count, 336);
	ck_assert_ptr_null(part(&b, "cable", NULL));  /* copper only inside nodes */
	fx_bom_release(&b);
	fixture_release(&fx);
	/* cost: 16 racks x 50,000 + 5,376 modules x 300, the rest unpriced */
	bom_of(&fx, "specs/cm384.yaml", prices, &b);
	ck_assert_double_eq_tol(b.cost_usd, 16 * 50000.0 + 5376 * 300.0, 1e-6);
	ck_assert_int_eq(b.priced, 3);
	fx_bom_release(&b);
	fixture_release(&fx);
}
END_TEST

/* The composite CM384 + RoCE (hardware.md §1): 768 NPU ports and 768
 * leaf-spine links of 200G, 2 per 400G module at each end: 1,536 scale-out
 * modules beside the 5,376 scale-up, 6,912 in all. */
START_TEST(bom_cm384_roce)
{
	fixture fx;
	fx_bom b;
	bom_of(&fx, "specs/cm384-roce.yaml", NULL, &b);
	ck_assert_double_eq(part(&b, "module", "400G LPO (UB 2 x 224G)")->count, 5376);
	ck_assert_double_eq(part(&b, "module", "400G LPO (RoCE 2 x 200G)")->count, 1536);
	ck_assert_int_eq(b.links[FX_MEDIUM_OPTICAL][FX_BOM_BETWEEN_RACKS].links, 5376 + 768 + 768);
	fx_bom_release(&b);
	fixture_release(&fx);
}
END_TEST

START_TEST(bom_defaults)
{
	fixture fx;
	fx_bom b;
	/* 8 hosts on one leaf, 4 leaves to 2 spines (custom, optical): the
	 * switches sit outside nodes and racks, so every link runs between
	 * racks; 32 + 8 optical links, a module at each end: 80 */
	static const char *const text =
		"name: t\nfabric:\n  kind: custom\n  link: {bandwidth: 50 GB/s, latency: 1 us, medium: optical}\n"
		"  nodes: [{name: h0, type: device}, {name: h1, type: device}, {name: s0, type: switch, role: leaf},"
		" {name: s1, type: switch, role: spine, tier: 2}]\n"
		"  links: [{a: h0, b: s0, count: 16}, {a: h1, b: s0, count: 16}, {a: s0, b: s1, count: 8}]\n";
	ck_assert_msg(fixture_load(&fx, "t.yaml", text, NULL) == 0, "%s", fx.msg);
	fx_bom_config c;
	fx_power_config p;
	ck_assert_int_eq(fx_bom_parse(&fx.d, &fx.s, &c), 0);
	ck_assert_int_eq(fx_power_parse(&fx.d, &fx.s, &p), 0);
	ck_assert_int_eq(fx_bom_build(&c, &p, &fx.f, &b, &fx.d), 0);
	ck_assert_int_eq(b.links[FX_MEDIUM_OPTICAL][FX_BOM_BETWEEN_RACKS].links, 40);
	ck_assert_double_eq(part(&b, "module", "optical module")->count, 80);
	ck_assert_double_eq(part(&b, "fibre", NULL)->count, 40);
	ck_assert_int_eq(b.network_racks, 2);  /* one per role, no packaging.switches */
	fx_bom_release(&b);
	fixture_release(&fx);
}
END_TEST

/* Length bands and the floor's Manhattan run (docs/spec.md 6g), by hand. */
START_TEST(bom_floor_lengths)
{
	ck_assert_double_eq(fx_bom_band(0.5), 1);
	ck_assert_double_eq(fx_bom_band(1), 1);
	ck_assert_double_eq(fx_bom_band(1.01), 2);
	ck_assert_double_eq(fx_bom_band(7.8), 10);
	ck_assert_double_eq(fx_bom_band(101), 300);
	ck_assert_double_eq(fx_bom_band(2500), 3000);
	fx_bom_floor fl = {.racks_per_row = 8, .rack_width_m = 0.6, .row_pitch_m = 2.4, .rise_m = 1.5,
			   .in_rack_m = 1.0};
	fx_bom_rack a = {0, 0, 0, 0, 0}, b = {1, 4, 2.4, 2.4, 1};
	ck_assert_double_eq_tol(fx_bom_length(&fl, &a, &b), 2.4 + 2.4 + 3, 1e-12);
	ck_assert_double_eq(fx_bom_length(&fl, &a, &a), 1.0);
}
END_TEST

Suite *suite_bom(void)
{
	Suite *s = suite_create("bom");
	TCase *tc = tcase_create("count");
	tcase_add_test(tc, bom_nvl72_spine);
	tcase_add_test(tc, bom_cm384_optics_racks);
	tcase_add_test(tc, bom_cm384_roce);
	tcase_add_test(tc, bom_defaults);
	tcase_add_test(tc, bom_floor_lengths);
	suite_add_tcase(s, tc);
	return s;
}
