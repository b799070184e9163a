/*
 * What the importers share (interop/import.c); not installed.  A reader
 * fills an fx_imp_graph from a file's text; import.c writes it as a
 * `custom` spec.
 */
#ifndef FX_IMPORT_INTERNAL_H
#define FX_IMPORT_INTERNAL_H

#include <stdint.h>

#include "../core/units.h"
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

/* x as a spec quantity that reads back as exactly x (import.c). */
const char *fx_imp_qty(double x, fx_unit_kind k, char buf[64]);

/* What recognition found (import_recog.c): the kind whose builder makes a
 * fabric isomorphic to the file's graph, or none. */
typedef struct fx_imp_recog {
	const char *kind;       /* "torus", "mesh", "fat-tree", "nvswitch"; NULL: custom */
	char *fabric;           /* the spec's `fabric:` map, indented two spaces */
	char *why;              /* one sentence: how it was proven, or why no kind */
	int64_t assumed_ports;  /* > 0: switch ports assumed (the most in use) */
	/* 1: the file's names are the kind's own, and naming each vertex by
	 * them is an isomorphism, so nothing of the names is lost */
	int names_kept;
	/* with names_kept: the file's attributes the kind gives otherwise
	 * (FX_IMP_NODE | ...), said as lost */
	unsigned attrs_differ;
} fx_imp_recog;
enum { FX_IMP_NODE = 1, FX_IMP_PLANE = 2, FX_IMP_ROLE = 4, FX_IMP_TIER = 8 };
/* Looks for a kind among the candidates g's counts and degrees propose,
 * each built and compared by bliss; fills r (why always).  g's links are
 * merged (write_spec) and its vertices typed; lost lines may be added. */
int fx_imp_recognise(fx_imp_graph *g, const fx_import_opts *o, fx_imp_recog *r);
void fx_imp_recog_release(fx_imp_recog *r);

int fx_import_graphml(const char *file, const char *text, size_t len, fx_imp_graph *g, fx_diag *d);
int fx_import_gml(const char *file, const char *text, size_t len, fx_imp_graph *g, fx_diag *d);
int fx_import_ns3(const char *file, const char *text, size_t len, fx_imp_graph *g, fx_diag *d);
int fx_import_simai(const char *file, const char *text, size_t len, fx_imp_graph *g, fx_diag *d);
int fx_import_nccl_topo(const char *file, const char *text, size_t len, fx_imp_graph *g, fx_diag *d);
int fx_import_nvidia_smi(const char *file, const char *text, size_t len, fx_imp_graph *g, fx_diag *d);
int fx_import_simgrid(const char *file, const char *text, size_t len, fx_imp_graph *g, fx_diag *d);
int fx_import_booksim(const char *file, const char *text, size_t len, fx_imp_graph *g, fx_diag *d);

#endif
