/* Sinks (core/sink.h): a tee of every ready sink gets what each emitter
 * writes alone, and a capture hands typed values back without text. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "helpers.h"

#include "../../core/sink.h"

static fx_table *colls(void)
{
	static const fx_col cols[] = {
		{"pattern", "pattern", FX_F_TEXT}, {"ranks", "ranks", FX_F_INT},
		{"time_s", "time", FX_F_SECONDS}, {NULL, NULL, 0},
	};
	fx_table *t = fx_table_typed("collectives", "Collectives", cols);
	fx_table_cell(t, "allreduce");
	fx_table_int(t, 8);
	fx_table_num(t, 2.5e-6);
	fx_table_cell(t, "all-to-all");
	fx_table_int(t, 8);
	fx_table_num(t, 0.0125);
	fx_table_cell(t, "broadcast");
	fx_table_int(t, 8);
	fx_table_null(t, "not applicable");
	return t;
}

static char *slurp(const char *path)
{
	FILE *f = fopen(path, "r");
	ck_assert_ptr_nonnull(f);
	char *s = calloc(1, 1 << 16);
	ck_assert_uint_lt(fread(s, 1, (1 << 16) - 1, f), (1 << 16) - 1);
	fclose(f);
	return s;
}

/* What print, Markdown, JSON and CSV sinks in one tee write is what the
 * table's own emitters write. */
START_TEST(tee_matches_emitters)
{
	char dir[] = "/tmp/fx-sink-XXXXXX";
	ck_assert_ptr_nonnull(mkdtemp(dir));
	char *txt = NULL, *md = NULL, *js = NULL;
	size_t ltxt = 0, lmd = 0, ljs = 0;
	FILE *ft = open_memstream(&txt, &ltxt), *fm = open_memstream(&md, &lmd),
	     *fj = open_memstream(&js, &ljs);
	fx_json j;
	fx_json_init(&j, fj);
	fx_json_obj_begin(&j, NULL);
	fx_sink p, m, jn, c, cap, tee;
	fx_sink_print_init(&p, ft);
	fx_sink_markdown_init(&m, fm);
	fx_sink_json_init(&jn, &j);
	fx_sink_csv_init(&c, dir);
	fx_sink_capture_init(&cap);
	fx_sink *to[] = {&p, &m, &jn, &c, &cap};
	fx_sink_tee_init(&tee, to, 5);
	fx_diag d;
	fx_diag_init(&d);
	ck_assert_int_eq(fx_sink_put(&tee, colls(), &d), 0);
	fx_json_obj_end(&j);
	fclose(ft);
	fclose(fm);
	fclose(fj);

	fx_table *t = colls();
	char *want = NULL;
	size_t lw = 0;
	FILE *fw = open_memstream(&want, &lw);
	fx_table_print(t, fw);
	fputc('\n', fw);
	fclose(fw);
	ck_assert_str_eq(txt, want);
	free(want);
	fw = open_memstream(&want, &lw);
	fx_table_write_markdown(t, fw);
	fclose(fw);
	ck_assert_str_eq(md, want);
	free(want);
	/* raw SI seconds in JSON and CSV, null for the inapplicable row */
	ck_assert_ptr_nonnull(strstr(js, "\"time_s\": 0.0125"));
	ck_assert_ptr_nonnull(strstr(js, "\"time_s\": null"));
	char path[64];
	snprintf(path, sizeof path, "%s/collectives.csv", dir);
	char *csv = slurp(path);
	ck_assert_str_eq(csv, "pattern,ranks,time_s\nallreduce,8,2.5e-06\nall-to-all,8,0.0125\n"
			      "broadcast,8,\n");
	free(csv);
	unlink(path);
	rmdir(dir);
	/* the capture holds its own copy */
	ck_assert_uint_eq(fx_sink_count(&cap), 1);
	fx_value v;
	ck_assert_int_eq(fx_sink_value(&cap, "collectives", "pattern", "all-to-all", "time_s", &v), 1);
	ck_assert_int_eq(v.type, FX_CELL_NUM);
	ck_assert_int_eq(v.kind, FX_F_SECONDS);
	ck_assert_double_eq(v.num, 0.0125);
	fx_table_free(t);
	free(txt);
	free(md);
	free(js);
	fx_sink_release(&cap);
	fx_diag_release(&d);
}
END_TEST

/* A capture put to directly keeps the table itself; values come back as
 * numbers with their kind, null as null, a missing row or field as 0. */
START_TEST(capture_values)
{
	fx_sink cap;
	fx_sink_capture_init(&cap);
	fx_diag d;
	fx_diag_init(&d);
	fx_table *t = colls();
	ck_assert_int_eq(fx_sink_put(&cap, t, &d), 0);
	ck_assert_ptr_eq(fx_sink_table(&cap, 0), t);
	fx_table *r = fx_record_new("metrics", "Fabric", NULL);
	fx_record_int(r, "diameter_hops", "diameter", 3);
	fx_record_num(r, "bisection_bandwidth_Bps", "bisection", FX_F_BPS, 1.6e12);
	fx_record_text(r, "bisection_method", "method", "exact");
	ck_assert_int_eq(fx_sink_put(&cap, r, &d), 0);
	ck_assert_ptr_eq(fx_sink_find(&cap, "metrics"), r);
	fx_value v;
	ck_assert_int_eq(fx_sink_value(&cap, NULL, NULL, NULL, "diameter_hops", &v), 1);
	ck_assert_int_eq(v.type, FX_CELL_INT);
	ck_assert_double_eq(v.num, 3);
	ck_assert_int_eq(fx_sink_value(&cap, "metrics", NULL, NULL, "bisection_bandwidth_Bps", &v), 1);
	ck_assert_int_eq(v.kind, FX_F_BPS);
	ck_assert_double_eq(v.num, 1.6e12);
	ck_assert_int_eq(fx_sink_value(&cap, "metrics", NULL, NULL, "bisection_method", &v), 1);
	ck_assert_str_eq(v.text, "exact");
	ck_assert_int_eq(fx_sink_value(&cap, NULL, "pattern", "broadcast", "time_s", &v), 1);
	ck_assert_int_eq(v.type, FX_CELL_NULL);
	ck_assert(isnan(v.num));
	ck_assert_int_eq(fx_sink_value(&cap, NULL, "ranks", "8", "pattern", &v), 1);
	ck_assert_str_eq(v.text, "allreduce");  /* the first row that matches */
	ck_assert_int_eq(fx_sink_value(&cap, NULL, "pattern", "gather", "time_s", &v), 0);
	ck_assert_int_eq(fx_sink_value(&cap, "metrics", NULL, NULL, "time_s", &v), 0);
	fx_sink_release(&cap);
	ck_assert_uint_eq(fx_sink_count(&cap), 0);
	fx_diag_release(&d);
}
END_TEST

/* A CSV that cannot be written is an error naming the file, and the other
 * sinks of the tee still get the table. */
START_TEST(csv_error_named)
{
	char *err = NULL;
	size_t lerr = 0;
	FILE *fe = open_memstream(&err, &lerr);
	fx_diag d;
	fx_diag_init(&d);
	d.out = fe;
	fx_sink c, cap, tee;
	fx_sink_csv_init(&c, "/nonexistent/fx-sink");
	fx_sink_capture_init(&cap);
	fx_sink *to[] = {&c, &cap};
	fx_sink_tee_init(&tee, to, 2);
	ck_assert_int_eq(fx_sink_put(&tee, colls(), &d), -1);
	ck_assert_uint_eq(fx_sink_count(&cap), 1);
	fclose(fe);
	ck_assert_ptr_nonnull(strstr(err, "cannot write '/nonexistent/fx-sink/collectives.csv'"));
	free(err);
	fx_sink_release(&cap);
	fx_diag_release(&d);
}
END_TEST

/* A verbatim table prints its text as is (no blank line after, a code
 * block in Markdown, no JSON, no CSV); open and close records nest the
 * JSON; a values table is an array of its column's values. */
START_TEST(verbatim_and_nesting)
{
	char dir[] = "/tmp/fx-sink-XXXXXX";
	ck_assert_ptr_nonnull(mkdtemp(dir));
	char *txt = NULL, *md = NULL, *js = NULL;
	size_t ltxt = 0, lmd = 0, ljs = 0;
	FILE *ft = open_memstream(&txt, &ltxt), *fm = open_memstream(&md, &lmd),
	     *fj = open_memstream(&js, &ljs);
	fx_json j;
	fx_json_init(&j, fj);
	fx_json_obj_begin(&j, NULL);
	fx_sink p, m, jn, c, tee;
	fx_sink_print_init(&p, ft);
	fx_sink_markdown_init(&m, fm);
	fx_sink_json_init(&jn, &j);
	fx_sink_csv_init(&c, dir);
	fx_sink *to[] = {&p, &m, &jn, &c};
	fx_sink_tee_init(&tee, to, 4);
	fx_diag d;
	fx_diag_init(&d);
	ck_assert_int_eq(fx_sink_put(&tee, fx_table_verbatim("head", "a  b\n"), &d), 0);
	fx_table *o = fx_record_open("outer", "outer");
	fx_record_text(o, "mode", "mode", "bound");
	ck_assert_int_eq(fx_sink_put(&tee, o, &d), 0);
	ck_assert_int_eq(fx_sink_put(&tee, fx_record_open("inner", "inner"), &d), 0);
	static const fx_col cols[] = {{"switch", "switch", FX_F_TEXT}, {NULL, NULL, 0}};
	fx_table *v = fx_table_typed("names", "Names", cols);
	fx_table_json_key(v, "names");
	v->json_values = 1;
	v->no_text = 1;
	fx_table_cell(v, "L2.p0.0");
	fx_table_cell(v, "L2.p0.1");
	ck_assert_int_eq(fx_sink_put(&tee, v, &d), 0);
	ck_assert_int_eq(fx_sink_put(&tee, fx_record_close("inner_end"), &d), 0);
	ck_assert_int_eq(fx_sink_put(&tee, fx_record_close("outer_end"), &d), 0);
	fx_json_obj_end(&j);
	fclose(ft);
	fclose(fm);
	fclose(fj);
	ck_assert_str_eq(txt, "a  b\n");
	ck_assert_str_eq(md, "```\na  b\n```\n\n");
	ck_assert_str_eq(js, "{\n  \"outer\": {\n    \"mode\": \"bound\",\n    \"inner\": {\n"
			 "      \"names\": [\n        \"L2.p0.0\",\n        \"L2.p0.1\"\n      ]\n"
			 "    }\n  }\n}\n");
	char path[64];
	const char *none[] = {"head", "inner", "inner_end", "outer_end"};
	for (size_t i = 0; i < 4; i++) {
		snprintf(path, sizeof path, "%s/%s.csv", dir, none[i]);
		ck_assert_msg(access(path, F_OK) != 0, "%s written", path);
	}
	snprintf(path, sizeof path, "%s/names.csv", dir);
	char *csv = slurp(path);
	ck_assert_str_eq(csv, "switch\nL2.p0.0\nL2.p0.1\n");
	free(csv);
	unlink(path);
	snprintf(path, sizeof path, "%s/outer.csv", dir);
	unlink(path);
	ck_assert_int_eq(rmdir(dir), 0);
	fx_diag_release(&d);
	free(txt);
	free(md);
	free(js);
}
END_TEST

Suite *suite_sink(void)
{
	Suite *s = suite_create("sink");
	TCase *tc = tcase_create("sink");
	tcase_add_test(tc, tee_matches_emitters);
	tcase_add_test(tc, capture_values);
	tcase_add_test(tc, csv_error_named);
	tcase_add_test(tc, verbatim_and_nesting);
	suite_add_tcase(s, tc);
	return s;
}
