/*
 * json: a small streaming JSON writer.
 *
 * Commas and indentation are handled here so callers only say what to write.
 * Keys are given with each value inside an object and passed as NULL inside
 * arrays and at the top level.  Non-finite numbers are written as null.
 */
#ifndef FX_JSON_H
#define FX_JSON_H

#include <stdio.h>

#define FX_JSON_MAX_DEPTH 32

typedef struct fx_json {
	FILE *f;
	int depth;
	int count[FX_JSON_MAX_DEPTH];  /* values written at each depth */
} fx_json;

void fx_json_init(fx_json *j, FILE *f);
void fx_json_obj_begin(fx_json *j, const char *key);
void fx_json_obj_end(fx_json *j);
void fx_json_arr_begin(fx_json *j, const char *key);
void fx_json_arr_end(fx_json *j);
void fx_json_num(fx_json *j, const char *key, double v);
void fx_json_int(fx_json *j, const char *key, long long v);
void fx_json_str(fx_json *j, const char *key, const char *s);
void fx_json_bool(fx_json *j, const char *key, int v);
void fx_json_null(fx_json *j, const char *key);

#endif
