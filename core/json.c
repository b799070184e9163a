#include "json.h"

#include <math.h>

void fx_json_init(fx_json *j, FILE *f)
{
	j->f = f;
	j->depth = 0;
	j->count[0] = 0;
}

static void put_string(FILE *f, const char *s)
{
	fputc('"', f);
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		switch (*p) {
		case '"': fputs("\\\"", f); break;
		case '\\': fputs("\\\\", f); break;
		case '\n': fputs("\\n", f); break;
		case '\t': fputs("\\t", f); break;
		case '\r': fputs("\\r", f); break;
		default:
			if (*p < 0x20)
				fprintf(f, "\\u%04x", *p);
			else
				fputc(*p, f);
		}
	}
	fputc('"', f);
}

/* Writes the separator, indentation and key that precede a value. */
static void prefix(fx_json *j, const char *key)
{
	if (j->count[j->depth]++ > 0)
		fputc(',', j->f);
	if (j->depth > 0) {
		fputc('\n', j->f);
		for (int i = 0; i < j->depth; i++)
			fputs("  ", j->f);
	}
	if (key) {
		put_string(j->f, key);
		fputs(": ", j->f);
	}
}

static void open(fx_json *j, const char *key, char c)
{
	prefix(j, key);
	fputc(c, j->f);
	if (j->depth + 1 < FX_JSON_MAX_DEPTH)
		j->depth++;
	j->count[j->depth] = 0;
}

static void close(fx_json *j, char c)
{
	int had = j->count[j->depth] > 0;
	if (j->depth > 0)
		j->depth--;
	if (had) {
		fputc('\n', j->f);
		for (int i = 0; i < j->depth; i++)
			fputs("  ", j->f);
	}
	fputc(c, j->f);
	if (j->depth == 0)
		fputc('\n', j->f);
}

void fx_json_obj_begin(fx_json *j, const char *key) { open(j, key, '{'); }
void fx_json_obj_end(fx_json *j) { close(j, '}'); }
void fx_json_arr_begin(fx_json *j, const char *key) { open(j, key, '['); }
void fx_json_arr_end(fx_json *j) { close(j, ']'); }

void fx_json_num(fx_json *j, const char *key, double v)
{
	prefix(j, key);
	if (!isfinite(v))
		fputs("null", j->f);
	else if (v == floor(v) && fabs(v) < 1e15)
		fprintf(j->f, "%.0f", v);
	else
		fprintf(j->f, "%.12g", v);
}

void fx_json_int(fx_json *j, const char *key, long long v)
{
	prefix(j, key);
	fprintf(j->f, "%lld", v);
}

void fx_json_str(fx_json *j, const char *key, const char *s)
{
	prefix(j, key);
	if (s)
		put_string(j->f, s);
	else
		fputs("null", j->f);
}

void fx_json_bool(fx_json *j, const char *key, int v)
{
	prefix(j, key);
	fputs(v ? "true" : "false", j->f);
}

void fx_json_null(fx_json *j, const char *key)
{
	prefix(j, key);
	fputs("null", j->f);
}

void fx_json_fork(fx_json *child, const fx_json *parent, FILE *f)
{
	*child = *parent;
	child->f = f;
}

void fx_json_join(fx_json *parent, const fx_json *child)
{
	parent->count[parent->depth] = child->count[parent->depth];
}
