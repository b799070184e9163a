/* The result model (core/table.h): one table, four formats that agree. */
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "helpers.h"

#include "../../core/table.h"

/* What an emitter wrote, as a string (caller frees). */
typedef void (*emit_fn)(const fx_table *t, FILE *f);

static char *emit(const fx_table *t, emit_fn fn)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	ck_assert_ptr_nonnull(f);
	fn(t, f);
	fclose(f);
	return text;
}

static void json_emit(const fx_table *t, FILE *f)
{
	fx_json j;
	fx_json_init(&j, f);
	fx_json_obj_begin(&j, NULL);
	fx_table_write_json(t, &j);
	fx_json_obj_end(&j);
}

static fx_table *links(void)
{
	static const fx_col cols[] = {
		{"src", "from", FX_F_TEXT}, {"time_s", "time", FX_F_SECONDS},
		{"bandwidth_Bps", "bandwidth", FX_F_BPS}, {"share", "share", FX_F_FRACTION},
		{"hops", "hops", FX_F_INT}, {NULL, NULL, 0},
	};
	fx_table *t = fx_table_typed("links", "Links", cols);
	fx_table_cell(t, "(0,0,0)");
	fx_table_num(t, 2.6404111);
	fx_table_num(t, 25.6e12);
	fx_table_num(t, 0.125);
	fx_table_int(t, 3);
	fx_table_cell(t, "say \"hi\"");
	fx_table_num(t, 612.852e-6);
	fx_table_null(t, "n/a");
	fx_table_num(t, 1);
	fx_table_int(t, 0);
	return t;
}

START_TEST(text_rescales)
{
	fx_table *t = links();
	char *s = emit(t, fx_table_print);
	ck_assert_msg(strstr(s, "2.64 s") && strstr(s, "25.6 TB/s") && strstr(s, "612.9 us") &&
		      strstr(s, "12.50%") && strstr(s, "n/a"), "%s", s);
	ck_assert_ptr_null(strstr(s, "time_s"));  /* labels, not field names */
	free(s);
	s = emit(t, fx_table_write_markdown);
	ck_assert_msg(strstr(s, "| from | time |") && strstr(s, "| 2.64 s |"), "%s", s);
	free(s);
	fx_table_free(t);
}
END_TEST

START_TEST(csv_raw_and_quoted)
{
	fx_table *t = links();
	char *s = emit(t, fx_table_csv);
	ck_assert_str_eq(s, "src,time_s,bandwidth_Bps,share,hops\n"
			    "\"(0,0,0)\",2.6404111,25600000000000,0.125,3\n"
			    "\"say \"\"hi\"\"\",0.000612852,,1,0\n");
	free(s);
	fx_table_free(t);
}
END_TEST

START_TEST(json_same_names)
{
	fx_table *t = links();
	char *s = emit(t, json_emit);
	ck_assert_msg(strstr(s, "\"links\": [") && strstr(s, "\"time_s\": 2.6404111") &&
		      strstr(s, "\"bandwidth_Bps\": null") && strstr(s, "\"src\": \"(0,0,0)\""), "%s", s);
	free(s);
	fx_table_free(t);
}
END_TEST

START_TEST(record)
{
	fx_table *t = fx_record_new("power", "Power", "power");
	fx_record_num(t, "power_W", "power", FX_F_WATTS, 559400);
	fx_record_int(t, "racks", "racks", 16);
	fx_record_bool(t, "over_budget", "over budget", 0);
	fx_record_null(t, "budget_W", "budget", FX_F_WATTS, "none");
	char *s = emit(t, fx_table_print);
	ck_assert_msg(strstr(s, "power        559.4 kW") && strstr(s, "budget       none"), "%s", s);
	free(s);
	s = emit(t, fx_table_csv);
	ck_assert_str_eq(s, "power_W,racks,over_budget,budget_W\n559400,16,false,\n");
	free(s);
	s = emit(t, json_emit);
	ck_assert_msg(strstr(s, "\"power\": {") && strstr(s, "\"racks\": 16") &&
		      strstr(s, "\"budget_W\": null"), "%s", s);
	free(s);
	fx_table_free(t);
}
END_TEST

/* untyped tables keep their display text and write no JSON */
START_TEST(untyped)
{
	fx_table *t = fx_table_new("x", "X", (const char *[]){"a", "b", NULL});
	fx_table_cell(t, "1 us");
	fx_table_cell(t, "x,y");
	char *s = emit(t, fx_table_csv);
	ck_assert_str_eq(s, "a,b\n1 us,\"x,y\"\n");
	free(s);
	s = emit(t, json_emit);
	ck_assert_str_eq(s, "{}\n");
	free(s);
	fx_table_free(t);
}
END_TEST

START_TEST(suffixes)
{
	ck_assert_str_eq(fx_field_suffix(FX_F_SECONDS), "_s");
	ck_assert_str_eq(fx_field_suffix(FX_F_BYTES), "_bytes");
	ck_assert_str_eq(fx_field_suffix(FX_F_BPS), "_Bps");
	ck_assert_str_eq(fx_field_suffix(FX_F_WATTS), "_W");
	ck_assert_str_eq(fx_field_suffix(FX_F_JOULES), "_J");
	ck_assert_str_eq(fx_field_suffix(FX_F_METRES), "_m");
	ck_assert_str_eq(fx_field_suffix(FX_F_INT), "");
}
END_TEST

/* Device time is seconds in CSV and JSON and GPU-seconds in text: the
 * chapter "Supernodes" §6.7.3 costs four TP2 instances 0.238 GPU·s per
 * on-time session (8 cards x 119.1 ms / 4 sessions), which a table once
 * printed as a wait of "238.2 ms". */
START_TEST(gpu_seconds)
{
	fx_table *t = fx_record_new("plan", "Plan", "plan");
	fx_record_num(t, "gpu_time_per_on_time_s", "cost", FX_F_GPU_SECONDS, 0.2382216);
	fx_record_num(t, "gpu_time_s", "device time", FX_F_GPU_SECONDS, 0.9528864);
	char *s = emit(t, fx_table_print);
	ck_assert_msg(strstr(s, "cost         0.2382 GPU-s") && strstr(s, "0.9529 GPU-s"), "%s", s);
	ck_assert_msg(!strstr(s, " ms"), "%s", s);
	free(s);
	s = emit(t, fx_table_csv);
	ck_assert_str_eq(s, "gpu_time_per_on_time_s,gpu_time_s\n0.2382216,0.9528864\n");
	free(s);
	s = emit(t, json_emit);
	ck_assert_msg(strstr(s, "\"gpu_time_per_on_time_s\": 0.2382216"), "%s", s);
	free(s);
	fx_table_free(t);
	char b[64];
	fx_field_format(0, FX_F_GPU_SECONDS, b, sizeof b);
	ck_assert_str_eq(b, "0 GPU-s");
	fx_field_format(12345.6, FX_F_GPU_SECONDS, b, sizeof b);
	ck_assert_str_eq(b, "12346 GPU-s");
	fx_field_format(0.2382216, FX_F_SECONDS, b, sizeof b);
	ck_assert_str_eq(b, "238.2 ms");  /* a wait of the same number, for contrast */
	ck_assert_str_eq(fx_field_suffix(FX_F_GPU_SECONDS), "_s");
}
END_TEST

/* a field whose name contradicts its unit is a programming error */
START_TEST(wrong_suffix)
{
	fx_table *t = fx_record_new("x", "X", NULL);
	fx_record_num(t, "time_us", "time", FX_F_SECONDS, 1);
}
END_TEST

/* Issue 15: fx_csv_num_text (links.csv's numbers, integers digit by digit)
 * is the shortest of %.15g, %.16g, %.17g that reads back the same: checked
 * against that definition, and read back, over integers at and around the
 * 10^15 switch, signed zeros, fractions, extremes and a pseudo-random
 * spread of bit patterns. */
static void num_as_defined(double v)
{
	char want[40], got[40];
	for (int p = 15; p <= 17; p++) {
		snprintf(want, sizeof want, "%.*g", p, v);
		if (strtod(want, NULL) == v)
			break;
	}
	size_t n = fx_csv_num_text(v, got);
	ck_assert_msg(strcmp(got, want) == 0, "%.17g: '%s', want '%s'", v, got, want);
	ck_assert_uint_eq(n, strlen(want));
	if (v == v)  /* not NaN: reads back as the same double */
		ck_assert(strtod(got, NULL) == v);
}

START_TEST(csv_num_fast)
{
	static const double fixed[] = {0.0, -0.0, 1, -1, 7, 10, 100, 33554432, 1e14, 999999999999999,
				       1e15, 1e15 + 2, -999999999999999, -1e15, 9007199254740992.0,
				       1e300, -1e300, 0.5, 7.60032e-05, 0.1, 1.0 / 3, 5e-324,
				       2.2250738585072014e-308, 1e-5, 123456.789};
	for (size_t i = 0; i < sizeof fixed / sizeof *fixed; i++)
		num_as_defined(fixed[i]);
	num_as_defined(1.0 / 0.0);
	num_as_defined(-1.0 / 0.0);
	uint64_t x = 42;
	for (int i = 0; i < 20000; i++) {
		x = x * 6364136223846793005ULL + 1442695040888963407ULL;
		double v;
		uint64_t bits = x;
		memcpy(&v, &bits, sizeof v);
		if (v != v)
			continue;
		num_as_defined(v);
		num_as_defined((double)(int64_t)(x >> 14) - (double)(1LL << 49));  /* integers */
		num_as_defined((double)(x >> 40) / 1024.0);  /* binary fractions */
	}
}
END_TEST

/* fx_csv_text_buf against fx_csv_text (links.csv's names go through the
 * buffer): plain, quoted, doubled quotes, line breaks, empty. */
START_TEST(csv_text_buf_same)
{
	static const char *const words[] = {"", "a", "(0,0)", "gpu0", "say \"hi\"", "\"", "a,b,c",
					    "line\nbreak", "cr\r", "\"\"", ",", "x\",y\"z"};
	for (size_t i = 0; i < sizeof words / sizeof *words; i++) {
		char *text = NULL, out[64];
		size_t len = 0;
		FILE *m = open_memstream(&text, &len);
		fx_csv_text(m, words[i]);
		fclose(m);
		size_t n = fx_csv_text_buf(words[i], out);
		ck_assert_msg(n == len && memcmp(out, text, n) == 0, "'%s'", words[i]);
		ck_assert(n <= 2 * strlen(words[i]) + 2);
		free(text);
	}
}
END_TEST

Suite *suite_table(void)
{
	Suite *s = suite_create("table");
	TCase *tc = tcase_create("table");
	tcase_add_test(tc, text_rescales);
	tcase_add_test(tc, csv_raw_and_quoted);
	tcase_add_test(tc, json_same_names);
	tcase_add_test(tc, record);
	tcase_add_test(tc, untyped);
	tcase_add_test(tc, suffixes);
	tcase_add_test(tc, gpu_seconds);
	tcase_add_test(tc, csv_num_fast);
	tcase_add_test(tc, csv_text_buf_same);
	tcase_add_test_raise_signal(tc, wrong_suffix, SIGABRT);
	suite_add_tcase(s, tc);
	return s;
}
