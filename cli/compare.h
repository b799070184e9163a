/*
 * compare's parts: the options every row shares, one evaluated build per
 * row (cli/compare_eval.c), and the tables, CSV and JSON (cli/compare.c).
 */
#ifndef FX_CLI_COMPARE_H
#define FX_CLI_COMPARE_H

#include "cli.h"

#define FX_CMP_MAX_COLLS 8
#define FX_CMP_MAX_SPECS 64
#define FX_CMP_MAX_BOM 16

/* A bill-of-materials column (--bom): a field of the bom report
 * (report/bom.c), read back from its record "bom" or, for `part`, the
 * sum of its parts table's counts of that part. */
typedef struct fx_cmp_bom {
	const char *field;       /* docs/output.md's name: "cost_usd", "cables" */
	const char *label;       /* the text header */
	int kind;                /* fx_field_kind of the column */
	const char *part;        /* NULL: a field of record "bom"; else bom_parts' part */
} fx_cmp_bom;

/* The bom column named `name`, or NULL. */
const fx_cmp_bom *fx_cmp_bom_find(const char *name);
/* The names, comma-separated, for messages. */
const char *fx_cmp_bom_names(void);

/* One collective column: pattern and size, and the algorithm (NULL: the
 * fastest in the registry for each fabric). */
typedef struct fx_cmp_coll {
	const char *pattern, *algo;
	double size;
	char label[64];   /* "allreduce 10 KiB" */
	char key[64];     /* "allreduce_10KiB" (fields: key_s, key_algo) */
} fx_cmp_coll;

typedef struct fx_cmp_opts {
	int have_cap;
	double cap;                        /* W */
	fx_cmp_coll coll[FX_CMP_MAX_COLLS];
	int ncoll;
	const fx_cmp_bom *bom[FX_CMP_MAX_BOM];  /* --bom columns, in order */
	int nbom;
	char **common;                     /* --set/--out/--max-memory pairs for every spec */
	int ncommon;
} fx_cmp_opts;

typedef struct fx_cmp_row {
	char name[192], kind[16];
	int ok;                  /* evaluated; else a load error, not shown */
	int built;               /* the structural columns hold the build's figures */
	int power;               /* the spec has a power model */
	int64_t devices, spec_devices, switches, links, diameter;
	int64_t racks, compute_racks, network_racks, liquid;
	double bis_per_dev;      /* bytes/s per direction */
	double watts;            /* NAN: n/a */
	double t_s[FX_CMP_MAX_COLLS];      /* seconds; NAN: n/a */
	char algo[FX_CMP_MAX_COLLS][16];
	double bom[FX_CMP_MAX_BOM];        /* base units; NAN: n/a (no price, no power model) */
	char cooling[16];
	char limited[256];
	char built_as[256];      /* the overrides of a capped build, "" when as specified */
} fx_cmp_row;

/* Evaluates SPEC[@KEY=VALUE,...] under the options; returns an exit
 * status (0 ok, 2 bad input, 3 nothing fits the cap).  Messages go to
 * stderr like any command's; the first, with its position and key, also
 * into *first (may be NULL) when it holds none yet, for --json. */
int fx_cmp_evaluate(const char *arg, const fx_cmp_opts *o, fx_cmp_row *out, fx_diag *first);

/* The --bom columns of the build c holds (r->bom, NAN where a field is
 * null): one run of the bom report.  0, or -1 reported through c->d. */
int fx_cmp_bom_cells(fx_cli *c, const fx_cmp_opts *o, fx_cmp_row *r);

/* Splits "specs/a.yaml@k=v,k2=[1,2]" at the '@' that ends the spec's path
 * (the first with an existing file to its left, else the first followed by
 * KEY=, else the first after the last '/': values may hold '/') and at
 * top-level commas (commas inside [], {} or quotes stay with their value);
 * buf receives the pieces.  Returns the number of overrides (0 without
 * '@'), or -1 when one is empty or unbalanced. */
int fx_cmp_split(const char *arg, char *buf, size_t len, const char **path, const char **sets,
		 int max_sets);

#endif
