/*
 * compare's parts: the options every row shares, one evaluated build per
 * row (cli/compare_eval.c), and the tables, CSV and JSON (cli/compare.c).
 */
#ifndef FX_CLI_COMPARE_H
#define FX_CLI_COMPARE_H

#include "cli.h"

#define FX_CMP_MAX_COLLS 8
#define FX_CMP_MAX_SPECS 64

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
	char cooling[16];
	char limited[256];
	char built_as[256];      /* the overrides of a capped build, "" when as specified */
} fx_cmp_row;

/* Evaluates SPEC[@KEY=VALUE,...] under the options; returns an exit
 * status (0 ok, 2 bad input, 3 nothing fits the cap).  Messages go to
 * stderr like any command's; the first, with its position and key, also
 * into *first (may be NULL) when it holds none yet, for --json. */
int fx_cmp_evaluate(const char *arg, const fx_cmp_opts *o, fx_cmp_row *out, fx_diag *first);

/* Splits "specs/a.yaml@k=v,k2=[1,2]" at the '@' that ends the spec's path
 * (the first with an existing file to its left, else the first followed by
 * KEY=, else the first after the last '/': values may hold '/') and at
 * top-level commas (commas inside [], {} or quotes stay with their value);
 * buf receives the pieces.  Returns the number of overrides (0 without
 * '@'), or -1 when one is empty or unbalanced. */
int fx_cmp_split(const char *arg, char *buf, size_t len, const char **path, const char **sets,
		 int max_sets);

#endif
