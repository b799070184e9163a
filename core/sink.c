#include "sink.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "xalloc.h"

static int print_put(fx_sink *s, const fx_table *t, fx_diag *d)
{
	(void)d;
	if (t->no_text)
		return 0;
	fx_table_print(t, s->f);
	if (!t->verbatim)
		fputc('\n', s->f);
	return 0;
}

static int markdown_put(fx_sink *s, const fx_table *t, fx_diag *d)
{
	(void)d;
	if (!t->no_text)
		fx_table_write_markdown(t, s->f);
	return 0;
}

static int json_put(fx_sink *s, const fx_table *t, fx_diag *d)
{
	(void)d;
	fx_table_write_json(t, s->j);
	return 0;
}

static int csv_put(fx_sink *s, const fx_table *t, fx_diag *d)
{
	if (!s->dir || !s->dir[0])
		return 0;  /* no folder (yet): nothing asked */
	if (t->verbatim || t->json_close || t->ncol == 0)
		return 0;  /* text, or JSON's nesting: no rows to write */
	if (fx_table_write_csv(t, s->dir))
		return fx_diag_error(d, NULL, "cannot write '%s/%s.csv': %s", s->dir, t->name,
				     strerror(errno));
	return 0;
}

static int capture_adopt(fx_sink *s, fx_table *t, fx_diag *d)
{
	(void)d;
	s->tables = fx_xgrow(s->tables, &s->cap, s->ntables + 1, sizeof *s->tables);
	s->tables[s->ntables++] = t;
	return 0;
}

static int capture_put(fx_sink *s, const fx_table *t, fx_diag *d)
{
	return capture_adopt(s, fx_table_dup(t), d);
}

static void capture_release(fx_sink *s)
{
	for (size_t i = 0; i < s->ntables; i++)
		fx_table_free(s->tables[i]);
	free(s->tables);
	s->tables = NULL;
	s->ntables = s->cap = 0;
}

/* every sink sees the table, whatever an earlier one said */
static int tee_put(fx_sink *s, const fx_table *t, fx_diag *d)
{
	int rc = 0;
	for (size_t i = 0; i < s->nto; i++)
		rc |= s->to[i]->put(s->to[i], t, d);
	return rc;
}

static void init(fx_sink *s)
{
	memset(s, 0, sizeof *s);
}

void fx_sink_print_init(fx_sink *s, FILE *f)
{
	init(s);
	s->put = print_put;
	s->f = f;
}

void fx_sink_markdown_init(fx_sink *s, FILE *f)
{
	init(s);
	s->put = markdown_put;
	s->f = f;
}

void fx_sink_json_init(fx_sink *s, fx_json *j)
{
	init(s);
	s->put = json_put;
	s->j = j;
}

void fx_sink_csv_init(fx_sink *s, const char *dir)
{
	init(s);
	s->put = csv_put;
	s->dir = dir;
}

void fx_sink_capture_init(fx_sink *s)
{
	init(s);
	s->put = capture_put;
	s->adopt = capture_adopt;
	s->release = capture_release;
}

void fx_sink_tee_init(fx_sink *s, fx_sink *const *to, size_t n)
{
	init(s);
	s->put = tee_put;
	s->to = to;
	s->nto = n;
}

void fx_sink_release(fx_sink *s)
{
	if (s && s->release)
		s->release(s);
}

int fx_sink_put(fx_sink *s, fx_table *t, fx_diag *d)
{
	if (s->adopt)
		return s->adopt(s, t, d);
	int rc = s->put(s, t, d);
	fx_table_free(t);
	return rc;
}

size_t fx_sink_count(const fx_sink *s)
{
	return s->ntables;
}

const fx_table *fx_sink_table(const fx_sink *s, size_t i)
{
	return i < s->ntables ? s->tables[i] : NULL;
}

static int named(const fx_table *t, const char *name)
{
	return strcmp(t->name, name) == 0 || (t->key && strcmp(t->key, name) == 0);
}

const fx_table *fx_sink_find(const fx_sink *s, const char *name)
{
	for (size_t i = 0; i < s->ntables; i++)
		if (named(s->tables[i], name))
			return s->tables[i];
	return NULL;
}

static int col_of(const fx_table *t, const char *field)
{
	for (size_t k = 0; k < t->ncol; k++)
		if (strcmp(t->cols[k].field, field) == 0)
			return (int)k;
	return -1;
}

int fx_table_value(const fx_table *t, size_t row, const char *field, fx_value *out)
{
	int k = col_of(t, field);
	if (k < 0 || row >= fx_table_rows(t))
		return 0;
	const fx_cell *c = &t->cells[row * t->ncol + (size_t)k];
	*out = (fx_value){.type = c->type, .kind = t->cols[k].kind, .num = NAN};
	switch (c->type) {
	case FX_CELL_NUM: out->num = c->num; break;
	case FX_CELL_INT: case FX_CELL_BOOL: out->num = (double)c->i; break;
	case FX_CELL_TEXT: out->text = c->text; break;
	default: break;
	}
	return 1;
}

/* Whether (row, col) shows want: text as is, a number equal to want read. */
static int cell_is(const fx_table *t, size_t row, const char *field, const char *want)
{
	fx_value v;
	if (!fx_table_value(t, row, field, &v))
		return 0;
	if (v.type == FX_CELL_TEXT)
		return v.text && strcmp(v.text, want) == 0;
	if (v.type == FX_CELL_BOOL)
		return strcmp(want, v.num != 0 ? "true" : "false") == 0;
	char *end;
	double w = strtod(want, &end);
	return (v.type == FX_CELL_NUM || v.type == FX_CELL_INT) && *want && !*end && v.num == w;
}

int fx_sink_value(const fx_sink *s, const char *table, const char *sel_field,
		  const char *sel_value, const char *field, fx_value *out)
{
	for (size_t i = 0; i < s->ntables; i++) {
		const fx_table *t = s->tables[i];
		if (!t->typed || (table && !named(t, table)) || col_of(t, field) < 0)
			continue;
		size_t rows = fx_table_rows(t), row = 0;
		if (sel_field)
			while (row < rows && !cell_is(t, row, sel_field, sel_value))
				row++;
		if (row < rows)
			return fx_table_value(t, row, field, out);
	}
	return 0;
}

static char *dup_or_null(const char *s)
{
	return s ? fx_xstrdup(s) : NULL;
}

fx_table *fx_table_dup(const fx_table *t)
{
	fx_table *c = fx_xmalloc(sizeof *c);
	*c = *t;
	c->name = fx_xstrdup(t->name);
	c->title = dup_or_null(t->title);
	c->key = dup_or_null(t->key);
	c->capcol = t->ncol;
	c->cols = fx_xmalloc((t->ncol ? t->ncol : 1) * sizeof *c->cols);
	for (size_t i = 0; i < t->ncol; i++) {
		c->cols[i] = t->cols[i];
		c->cols[i].field = fx_xstrdup(t->cols[i].field);
		c->cols[i].label = fx_xstrdup(t->cols[i].label);
	}
	c->capcell = t->ncell;
	c->cells = fx_xmalloc((t->ncell ? t->ncell : 1) * sizeof *c->cells);
	for (size_t i = 0; i < t->ncell; i++) {
		c->cells[i] = t->cells[i];
		c->cells[i].text = dup_or_null(t->cells[i].text);
		if (t->cells[i].list) {
			c->cells[i].list = fx_xmalloc((t->cells[i].nlist ? t->cells[i].nlist : 1) *
						      sizeof *c->cells[i].list);
			memcpy(c->cells[i].list, t->cells[i].list, t->cells[i].nlist * sizeof *c->cells[i].list);
		}
	}
	return c;
}
