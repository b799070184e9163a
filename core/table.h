/*
 * table: the readable tables every command prints, and their CSV copies.
 *
 * A table is a title, a header row and rows of text cells.  Columns whose
 * cells all look numeric are right-aligned.  The caller owns the table and
 * frees it with fx_table_free(); cells are copied.
 */
#ifndef FX_TABLE_H
#define FX_TABLE_H

#include <stdio.h>

typedef struct fx_table {
	char *name;     /* file stem for the CSV copy: "hops" -> hops.csv */
	char *title;
	size_t ncol;
	char **cells;   /* row-major; row 0 is the header */
	size_t ncell, capcell;
} fx_table;

/* Creates a table with the given columns (NULL-terminated list). */
fx_table *fx_table_new(const char *name, const char *title, const char *const *cols);
void fx_table_free(fx_table *t);
/* Appends one cell to the current row (rows fill left to right). */
void fx_table_cell(fx_table *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
size_t fx_table_rows(const fx_table *t);  /* data rows, header excluded */
void fx_table_print(const fx_table *t, FILE *f);
/* Writes DIR/NAME.csv. Returns 0, or -1 with errno set. */
int fx_table_write_csv(const fx_table *t, const char *dir);
/* Writes the table as a Markdown section (title as a heading). */
void fx_table_write_markdown(const fx_table *t, FILE *f);
/* Writes the CSV to exactly `path`. */
int fx_table_write_csv_file(const fx_table *t, const char *path);

#endif
