/* Units as the chapter "Supernodes" writes them: decimal GB, binary
 * GiB/MiB/KiB (§6.1.2: "GB and TB use decimal units, while MiB and GiB use binary units"). */
#include <string.h>

#include "helpers.h"

#include "../../core/sha256.h"
#include "../../core/sort.h"
#include "../../core/units.h"

static double parse(const char *s, fx_unit_kind k)
{
	double v = -1;
	ck_assert_msg(fx_unit_parse(s, k, &v, NULL) == FX_UNIT_OK, "'%s' did not parse", s);
	return v;
}

START_TEST(quantities)
{
	ck_assert_double_eq(parse("50 GB/s", FX_UNIT_BANDWIDTH), 50e9);
	/* the chapter, §6.1.2: a 400 Gbit/s (50 GB/s) ConnectX-7 NIC */
	ck_assert_double_eq(parse("400 Gbit/s", FX_UNIT_BANDWIDTH), 50e9);
	ck_assert_double_eq(parse("400 Gb/s", FX_UNIT_BANDWIDTH), 50e9);
	ck_assert_double_eq(parse("1 GiB/s", FX_UNIT_BANDWIDTH), 1073741824.0);
	ck_assert_double_eq_tol(parse("200 ns", FX_UNIT_TIME), 200e-9, 1e-20);
	ck_assert_double_eq_tol(parse("0.822 us", FX_UNIT_TIME), 0.822e-6, 1e-20);
	ck_assert_double_eq_tol(parse("0.822 \xce\xbcs", FX_UNIT_TIME), 0.822e-6, 1e-20);
	ck_assert_double_eq_tol(parse("10.2 kW", FX_UNIT_POWER), 10200, 1e-9);
	ck_assert_double_eq(parse("700 W", FX_UNIT_POWER), 700);
	ck_assert_double_eq(parse("48 KiB", FX_UNIT_SIZE), 49152);
	ck_assert_double_eq(parse("32 MiB", FX_UNIT_SIZE), 33554432);
	ck_assert_double_eq(parse("48 KB", FX_UNIT_SIZE), 48000);
	ck_assert_double_eq(parse("80 GB", FX_UNIT_SIZE), 80e9);
	ck_assert_double_eq(parse("1.1 GHz", FX_UNIT_FREQUENCY), 1.1e9);
	ck_assert_double_eq(parse("4", FX_UNIT_NONE), 4);
}
END_TEST

START_TEST(errors)
{
	double v;
	fx_unit_kind got = FX_UNIT_NONE;
	ck_assert_int_eq(fx_unit_parse("50", FX_UNIT_BANDWIDTH, &v, NULL), FX_UNIT_MISSING);
	ck_assert_int_eq(fx_unit_parse("50 GBs", FX_UNIT_BANDWIDTH, &v, NULL), FX_UNIT_UNKNOWN);
	ck_assert_int_eq(fx_unit_parse("fast", FX_UNIT_BANDWIDTH, &v, NULL), FX_UNIT_NOT_A_NUMBER);
	ck_assert_int_eq(fx_unit_parse("50 GB", FX_UNIT_BANDWIDTH, &v, &got), FX_UNIT_WRONG_KIND);
	ck_assert_int_eq(got, FX_UNIT_SIZE);
	/* GB/s is bytes, Gb/s is bits: case matters */
	ck_assert_int_eq(fx_unit_parse("1 gb/s", FX_UNIT_BANDWIDTH, &v, NULL), FX_UNIT_UNKNOWN);
	ck_assert_int_eq(fx_unit_parse("inf GB/s", FX_UNIT_BANDWIDTH, &v, NULL), FX_UNIT_NOT_A_NUMBER);
}
END_TEST

START_TEST(format)
{
	char b[32];
	ck_assert_str_eq(fx_unit_format(50e9, FX_UNIT_BANDWIDTH, b, sizeof b), "50 GB/s");
	ck_assert_str_eq(fx_unit_format(800e-9, FX_UNIT_TIME, b, sizeof b), "800 ns");
	ck_assert_str_eq(fx_unit_format(49152, FX_UNIT_SIZE, b, sizeof b), "48 KiB");
	ck_assert_str_eq(fx_unit_format(10200, FX_UNIT_POWER, b, sizeof b), "10.2 kW");
}
END_TEST

/* SHA-256 (explore names the spec it read by it): the FIPS 180-4
 * examples "abc" and the 448-bit message, and the empty string. */
START_TEST(sha256)
{
	char h[65];
	fx_sha256_hex("abc", 3, h);
	ck_assert_str_eq(h, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
	const char *m = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";
	fx_sha256_hex(m, strlen(m), h);
	ck_assert_str_eq(h, "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
	fx_sha256_hex("", 0, h);
	ck_assert_str_eq(h, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
}
END_TEST

/* ctx: the keys; only key order counts, so ties test stability */
static int by_key(const void *a, const void *b, void *ctx)
{
	const int *key = ctx;
	int x = key[*(const int *)a], y = key[*(const int *)b];
	return (x > y) - (x < y);
}

/* fx_sort_r orders by the context's keys and keeps equal keys in their
 * first order, against a plain insertion sort, on every length to 64. */
START_TEST(sort_r_stable)
{
	int key[64], idx[64], want[64];
	unsigned seed = 7;
	for (int n = 0; n <= 64; n++) {
		for (int i = 0; i < n; i++) {
			seed = seed * 1103515245u + 12345u;
			key[i] = (int)((seed >> 16) % 5);  /* many ties */
			idx[i] = want[i] = i;
		}
		for (int i = 1; i < n; i++)  /* stable by construction */
			for (int j = i; j > 0 && key[want[j - 1]] > key[want[j]]; j--) {
				int t = want[j];
				want[j] = want[j - 1];
				want[j - 1] = t;
			}
		fx_sort_r(idx, (size_t)n, sizeof *idx, by_key, key);
		for (int i = 0; i < n; i++)
			ck_assert_int_eq(idx[i], want[i]);
	}
}
END_TEST

Suite *suite_units(void)
{
	Suite *s = suite_create("units");
	TCase *tc = tcase_create("core");
	tcase_add_test(tc, quantities);
	tcase_add_test(tc, errors);
	tcase_add_test(tc, format);
	tcase_add_test(tc, sha256);
	tcase_add_test(tc, sort_r_stable);
	suite_add_tcase(s, tc);
	return s;
}
