/*
 * table: the one result model every report is written from, and its
 * emitters (text, Markdown, CSV, JSON).
 *
 * A result is computed once into typed tables and records; each emitter
 * then writes it in its own way, so the formats cannot disagree:
 *
 *   text, Markdown  numbers rescaled for reading: "2.64 s", "25.6 TB/s"
 *   CSV, JSON       raw numbers in SI base units, full precision, under
 *                   the field's name; CSV quoted as RFC 4180 says
 *
 * Field names follow one convention (docs/output.md): snake_case, and a
 * quantity with a unit ends in the suffix of its SI base unit:
 *
 *   _s seconds   _bytes bytes   _Bps bytes per second   _W watts
 *   _J joules    _m metres
 *
 * Counts, plain numbers and fractions (0..1, shown as percentages in
 * text) carry no suffix.  fx_table_typed() and the fx_record_* calls
 * refuse (abort: a programming error) a field whose suffix contradicts
 * its kind, so a name cannot drift from its unit.
 *
 * A table is rows of cells under named columns; in JSON it is an array
 * of objects under the table's name.  A record is one row of scalar
 * results, printed as a two-column "metric  value" table; in JSON its
 * fields go into the object open (or an object under its key), in CSV it
 * is one header line and one line of values.
 *
 * Untyped tables (fx_table_new, fx_table_cell) hold display text only and
 * are never written as JSON: the commands not yet moved to the model.
 *
 * The caller owns a table and frees it with fx_table_free(); texts are
 * copied.
 */
#ifndef FX_TABLE_H
#define FX_TABLE_H

#include <stdio.h>

#include "json.h"

/* What a field measures: its JSON/CSV suffix and how text shows it. */
typedef enum fx_field_kind {
	FX_F_TEXT = 0,   /* a string */
	FX_F_INT,        /* a count or an index */
	FX_F_NUM,        /* a plain number or ratio without unit */
	FX_F_FRACTION,   /* a share, 0..1; text shows "12.5%" */
	FX_F_BOOL,
	FX_F_SECONDS,    /* _s */
	FX_F_BYTES,      /* _bytes */
	FX_F_BPS,        /* _Bps: bytes per second */
	FX_F_WATTS,      /* _W */
	FX_F_JOULES,     /* _J */
	FX_F_METRES,     /* _m */
	/* _s of device time (GPU-seconds: devices x seconds, the chapter
	 * "Supernodes" §6.7.2's cost): raw seconds in JSON and CSV, text shows
	 * "0.2382 GPU-s", never a wall-clock "238.2 ms" */
	FX_F_GPU_SECONDS,
	FX_F_KINDS
} fx_field_kind;

/* A column: field name (with its unit suffix), header label, kind. */
typedef struct fx_col {
	const char *field;
	const char *label;
	fx_field_kind kind;
} fx_col;

typedef enum fx_cell_type {
	FX_CELL_NULL = 0,  /* unknown or not applicable: JSON null, CSV empty */
	FX_CELL_NUM,
	FX_CELL_INT,
	FX_CELL_TEXT,
	FX_CELL_BOOL,
	FX_CELL_LIST        /* numbers of the column's kind: a JSON array */
} fx_cell_type;

typedef struct fx_cell {
	fx_cell_type type;
	double num;         /* NUM: base units */
	long long i;        /* INT, BOOL */
	char *text;         /* TEXT; NULL: what text shows (NULL: "-") */
	double *list;       /* LIST: nlist numbers */
	size_t nlist;
} fx_cell;

typedef struct fx_tcol {
	char *field, *label;
	fx_field_kind kind;
} fx_tcol;

typedef struct fx_table {
	char *name;         /* CSV file stem ("hops" -> hops.csv), a table's JSON key */
	char *title;
	char *key;          /* JSON key: a table's array (NULL: its name); a record's
			     * object (NULL: fields in the object open) */
	int typed;          /* written as JSON; CSV of raw values */
	int record;         /* one row of named scalars */
	int no_json;        /* text and CSV only: another table carries its rows */
	int no_text;        /* CSV and JSON only: text tables carry its rows */
	int verbatim;       /* text only: the title is the text, printed as is with no
			     * blank line after (a layout older than the model, kept
			     * byte for byte); Markdown shows it as a code block */
	int json_open;      /* record: its key's object stays open for the tables
			     * after it, until a json_close table */
	int json_close;     /* no fields: ends the object a json_open record opened */
	int json_values;    /* one column: a JSON array of its values, not of objects */
	size_t ncol, capcol;
	fx_tcol *cols;
	fx_cell *cells;     /* row-major, data rows only */
	size_t ncell, capcell;
} fx_table;

/* An untyped (display text) table with the given column labels
 * (NULL-terminated list). */
fx_table *fx_table_new(const char *name, const char *title, const char *const *cols);
/* A typed table; cols ends with an entry whose field is NULL. */
fx_table *fx_table_typed(const char *name, const char *title, const fx_col *cols);
/* A record; key names its JSON object, NULL puts its fields in the
 * object the caller has open. */
fx_table *fx_record_new(const char *name, const char *title, const char *key);
/* A verbatim text table (see fx_table.verbatim): text, lines and their
 * newlines, is copied. */
fx_table *fx_table_verbatim(const char *name, const char *text);
/* A record whose JSON object (under key) stays open for the tables after
 * it (JSON only, as every sink but json ignores it when it has no
 * fields), and the table that ends it: the nesting of a JSON layout the
 * flat tables cannot say.  Every open needs its close, in the same sink. */
fx_table *fx_record_open(const char *name, const char *key);
fx_table *fx_record_close(const char *name);
/* Adds a column to a typed table before its first cell (columns known
 * only at run time). */
void fx_table_add_col(fx_table *t, const char *field, const char *label, fx_field_kind k);
/* Sets the JSON key (see fx_table.key). */
void fx_table_json_key(fx_table *t, const char *key);
void fx_table_free(fx_table *t);

/* Appends one cell to the current row (rows fill left to right). */
void fx_table_cell(fx_table *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void fx_table_num(fx_table *t, double v);       /* non-finite: null */
void fx_table_int(fx_table *t, long long v);
void fx_table_bool(fx_table *t, int v);
void fx_table_null(fx_table *t, const char *shown);  /* shown: text's stand-in, NULL = "-" */
/* A list of n numbers: a JSON array, one CSV field of numbers separated by
 * spaces; text shows whole numbers as runs ("0-7,16-23"), others joined
 * by " / ". */
void fx_table_list(fx_table *t, const double *v, size_t n);

/* Adds a field to a record. */
void fx_record_num(fx_table *t, const char *field, const char *label, fx_field_kind k, double v);
void fx_record_int(fx_table *t, const char *field, const char *label, long long v);
void fx_record_bool(fx_table *t, const char *field, const char *label, int v);
void fx_record_text(fx_table *t, const char *field, const char *label, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
void fx_record_null(fx_table *t, const char *field, const char *label, fx_field_kind k,
		    const char *shown);

size_t fx_table_rows(const fx_table *t);  /* data rows, header excluded */
/* The JSON/CSV suffix of kind k ("_s"; "" for unitless kinds). */
const char *fx_field_suffix(fx_field_kind k);
/* Cell (row, col) as text shows it, in buf (at least 64 bytes). */
const char *fx_table_show(const fx_table *t, size_t row, size_t col, char *buf, size_t len);
/* A number of kind k as text shows it ("238.2 ms", "0.2382 GPU-s"), into
 * buf[len]; for prose around a table's values. */
void fx_field_format(double v, fx_field_kind k, char *buf, size_t len);

void fx_table_print(const fx_table *t, FILE *f);
/* Writes the table as a Markdown section (title as a heading). */
void fx_table_write_markdown(const fx_table *t, FILE *f);
/* Writes DIR/NAME.csv. Returns 0, or -1 with errno set. */
int fx_table_write_csv(const fx_table *t, const char *dir);
/* Writes the CSV to exactly `path`. */
int fx_table_write_csv_file(const fx_table *t, const char *path);
/* Writes one CSV field, quoted when it holds a comma, quote or line break
 * (RFC 4180), for files written row by row. */
void fx_csv_text(FILE *f, const char *s);
/* fx_csv_text's field into out (room for 2 strlen(s) + 2 bytes, not
 * terminated); returns its length. */
size_t fx_csv_text_buf(const char *s, char *out);
/* Writes a number at full precision, as short as reads back the same. */
void fx_csv_num(FILE *f, double v);
/* fx_csv_num's text into buf (room for 40 bytes); returns its length. */
size_t fx_csv_num_text(double v, char *buf);
/* Writes the CSV to an open stream. */
void fx_table_csv(const fx_table *t, FILE *f);
/* Writes a typed table or record into j (nothing for untyped tables). */
void fx_table_write_json(const fx_table *t, fx_json *j);

#endif
