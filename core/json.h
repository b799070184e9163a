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

/* A section written apart: fork starts a writer on f that continues the
 * object `parent` has open (same depth and separators); join accounts
 * for what it wrote once the caller has copied f's bytes into parent's
 * file.  A section that fails is dropped by not joining it, so a failure
 * halfway never leaves the parent's JSON unbalanced. */
void fx_json_fork(fx_json *child, const fx_json *parent, FILE *f);
void fx_json_join(fx_json *parent, const fx_json *child);

#endif
