/*
 * sink: where a report's tables go.
 *
 * A report (report/report.h) computes its result into typed tables
 * (core/table.h) and hands each to a sink; the sink decides what becomes
 * of it.  The ready sinks:
 *
 *   print     text tables on a stream, each followed by a blank line
 *   markdown  Markdown sections on a stream
 *   json      the table's keys into the object an fx_json has open
 *   csv       DIR/<name>.csv, written whole through core/outfile.h
 *   capture   keeps the tables for a program to read: typed cells, a
 *             number in SI base units with its field kind, never text
 *             to parse again (fx_sink_value)
 *   tee       every table to each of several sinks, in order
 *
 * The command line composes its outputs from these (cli/cli.c); a program
 * captures.  A sink of one's own sets `put` (and `release` if it holds
 * anything).
 *
 * Ownership: fx_sink_put takes the table (a capture keeps it, the others
 * free it); a tee borrows its sinks, which outlive it.  The init calls
 * set up a sink the caller has (on the stack: none of them allocates but
 * capture, whose tables fx_sink_release frees).
 */
#ifndef FX_SINK_H
#define FX_SINK_H

#include <stdio.h>

#include "diag.h"
#include "json.h"
#include "table.h"

typedef struct fx_sink fx_sink;

struct fx_sink {
	/* shows t, which stays the caller's; 0, or -1 after reporting to d */
	int (*put)(fx_sink *s, const fx_table *t, fx_diag *d);
	/* takes t (NULL: put, then the table is freed) */
	int (*adopt)(fx_sink *s, fx_table *t, fx_diag *d);
	void (*release)(fx_sink *s);   /* NULL: holds nothing */
	FILE *f;                       /* print, markdown */
	fx_json *j;                    /* json */
	const char *dir;               /* csv: borrowed, read at each table */
	fx_sink *const *to;            /* tee: [nto], borrowed */
	size_t nto;
	fx_table **tables;             /* capture: [ntables], owned */
	size_t ntables, cap;
	void *ctx;                     /* a sink of one's own */
};

void fx_sink_print_init(fx_sink *s, FILE *f);
void fx_sink_markdown_init(fx_sink *s, FILE *f);
/* Typed tables only (untyped ones are display text, never JSON). */
void fx_sink_json_init(fx_sink *s, fx_json *j);
/* DIR/<table name>.csv; a file that cannot be written is an error naming
 * it.  dir is read at each table, so a caller may fill it later. */
void fx_sink_csv_init(fx_sink *s, const char *dir);
void fx_sink_capture_init(fx_sink *s);
void fx_sink_tee_init(fx_sink *s, fx_sink *const *to, size_t n);
/* Frees what the sink holds (a capture's tables); the struct stays. */
void fx_sink_release(fx_sink *s);

/* Hands t to s, which takes it.  0, or -1 after reporting to d (the
 * table is freed all the same). */
int fx_sink_put(fx_sink *s, fx_table *t, fx_diag *d);

/* A capture's tables, in the order they came. */
size_t fx_sink_count(const fx_sink *s);
const fx_table *fx_sink_table(const fx_sink *s, size_t i);
/* The first table whose name (its CSV stem) or JSON key is `name`. */
const fx_table *fx_sink_find(const fx_sink *s, const char *name);

/* One typed value read back from a capture. */
typedef struct fx_value {
	fx_cell_type type;   /* FX_CELL_NULL: known not to apply ("n/a", "-") */
	fx_field_kind kind;  /* the column's: the unit of num */
	double num;          /* NUM, INT and BOOL as a number, base units; NaN for NULL */
	const char *text;    /* TEXT, borrowed from the table */
} fx_value;

/* Field `field` of table `table` (name or key; NULL: any captured table
 * with that column), in its first row, or with sel_field the first row
 * whose sel_field shows sel_value (text as is; numbers equal to the
 * value read).  1 found, 0 not there. */
int fx_sink_value(const fx_sink *s, const char *table, const char *sel_field,
		  const char *sel_value, const char *field, fx_value *out);
/* The same in row `row` of t. */
int fx_table_value(const fx_table *t, size_t row, const char *field, fx_value *out);

/* A copy of t (a tee hands a capture its own). */
fx_table *fx_table_dup(const fx_table *t);

#endif
