/*
 * What the importers share (interop/import.c); not installed.  A reader
 * fills an fx_imp_graph from a file's text; import.c writes it as a
 * `custom` spec.
 */
#ifndef FX_IMPORT_INTERNAL_H
#define FX_IMPORT_INTERNAL_H

#include <stdint.h>

#include "interop.h"

/* files past this are refused, not read (a WSE-2 GraphML is ~300 MiB) */
#define FX_IMPORT_MAX_BYTES (512 << 20)

typedef struct fx_imp_vertex_t {
	char *key;          /* the file's id for it (unique) */
	char *name;         /* the name to give it, or NULL: key */
	int type;           /* 0 device, 1 switch, 2 cpu, -1 not given */
	char *role;
	int64_t tier, node, plane, ports;   /* -1: not given */
	fx_loc loc;
} fx_imp_vertex_t;

typedef struct fx_imp_link {
	int64_t a, b;       /* vertex indexes */
	int64_t count;
	double bw, lat;     /* B/s per direction per link, s; < 0: not given */
	int medium;         /* fx_medium, -1: not given */
	int64_t bundle;     /* the file's bundle id, -1: none */
	fx_loc loc;
} fx_imp_link;

typedef struct fx_imp_graph {
	fx_imp_vertex_t *v;
	size_t nv, capv;
	fx_imp_link *l;
	size_t nl, capl;
	size_t *index;      /* vertices sorted by key, after fx_imp_index */
	char **assumed;
	size_t nassumed;
	char **lost;        /* what the file says that the spec cannot */
	size_t nlost;
	size_t untyped;
	int devices_relay, cpus_relay;   /* what the file says: 1, 0, or -1 (silent) */
} fx_imp_graph;

int64_t fx_imp_vertex(fx_imp_graph *g, const char *key, fx_loc loc);
/* Sorts the keys for fx_imp_find; a key given twice is an error there. */
int fx_imp_index(fx_imp_graph *g, fx_diag *d);
int64_t fx_imp_find(const fx_imp_graph *g, const char *key);
fx_imp_link *fx_imp_link_add(fx_imp_graph *g, int64_t a, int64_t b, fx_loc loc);
void fx_imp_assume(fx_imp_graph *g, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* What the file says that a custom spec cannot: said, never dropped silently. */
void fx_imp_lose(fx_imp_graph *g, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

int fx_import_graphml(const char *file, const char *text, size_t len, fx_imp_graph *g, fx_diag *d);
int fx_import_gml(const char *file, const char *text, size_t len, fx_imp_graph *g, fx_diag *d);
int fx_import_ns3(const char *file, const char *text, size_t len, fx_imp_graph *g, fx_diag *d);
int fx_import_simai(const char *file, const char *text, size_t len, fx_imp_graph *g, fx_diag *d);
int fx_import_nccl_topo(const char *file, const char *text, size_t len, fx_imp_graph *g, fx_diag *d);
int fx_import_nvidia_smi(const char *file, const char *text, size_t len, fx_imp_graph *g, fx_diag *d);
int fx_import_simgrid(const char *file, const char *text, size_t len, fx_imp_graph *g, fx_diag *d);
int fx_import_booksim(const char *file, const char *text, size_t len, fx_imp_graph *g, fx_diag *d);

#endif
