/*
 * interop: a fabric written in the formats of the peer tools, and their
 * files read back as specs.
 *
 * Every peer can describe less than a spec (../shared/reference/interop.md
 * has each format's rules): an exporter writes the closest faithful form
 * and lists, in fx_export_info.lost, exactly what the file does not carry
 * (per-link bandwidth a format has no field for, parallel links it sums,
 * switch chips it merges, failed elements it leaves out), never silently.
 * A format that cannot express the fabric at all refuses it (exit 2) with
 * the reason.
 *
 * Formats (fx_export_formats[], one entry each, in documentation order):
 *   graphml   GraphML for NetworkX / igraph / Gephi: one <edge> per
 *             physical link (a multigraph), attributes named as
 *             docs/output.md names them (bandwidth_Bps, latency_s, ...)
 *   gml       the same graph as GML (igraph, NetworkX, Gephi)
 *   dot       the plain graph for Graphviz (render draws the pictures)
 *   ns3       ASTRA-sim's ns-3 edge list
 *   simai     SimAI's edge list (its header and NVSwitch numbering)
 *   booksim   BookSim2's anynet file
 *   astra-sim ASTRA-sim's analytical network YAML (per-dimension form)
 *   simgrid   SimGrid platform XML v4.1, fabricx's routes as explicit routes
 *   simgrid-hosts, smpi  its host file, and an SMPI program running the
 *             spec's collectives as fabricx schedules them
 *   htsim     htsim's fat-tree .topo (fat-trees only)
 *   infragraph InfraGraph JSON
 *
 * Import reads graphml, gml, ns3/simai edge lists, booksim anynet files,
 * SimGrid platforms (simgrid: hosts, routers, links, routes, flat clusters),
 * NCCL's topology dump (nccl-topo) and `nvidia-smi topo -m` (nvidia-smi)
 * into a spec (YAML), with every value the file does not give marked
 * "assumed" in the spec's sources: the torus, mesh, fat-tree or NVSwitch
 * domain whose builder makes a fabric isomorphic to the file's graph
 * (proven by bliss, interop/import_recog.c), else a `custom` spec.  Bad files are errors at
 * FILE:LINE:COL, as bad specs are.
 *
 * Ownership: fx_export_info and fx_import_info hold malloc'd strings the
 * caller releases with their _release functions.
 */
#ifndef FX_INTEROP_H
#define FX_INTEROP_H

#include <stdio.h>

#include "../core/diag.h"
#include "../design/design.h"

typedef struct fx_export_info {
	char **lost;      /* what the file does not carry, one sentence each */
	size_t nlost;
	int64_t vertices, edges;  /* what the file holds (its own counting) */
} fx_export_info;

typedef struct fx_export_format {
	const char *name;
	const char *ext;        /* the usual file extension, without the dot */
	const char *summary;
	/* Writes ds's fabric to out; fills info.  0, or -1 after reporting
	 * through d (a fabric the format cannot express: bad input). */
	int (*write)(const fx_design *ds, FILE *out, fx_export_info *info, fx_diag *d);
} fx_export_format;

/* The registry, NULL-name terminated. */
extern const fx_export_format fx_export_formats[];
const fx_export_format *fx_export_find(const char *name);
/* "graphml, gml, ..." for messages. */
const char *fx_export_names(void);

/* Writes ds's fabric in `format` to out.  0, or -1 after reporting
 * (an unknown format, a fabric the format cannot express, a NULL argument). */
int fx_export(const fx_design *ds, const char *format, FILE *out, fx_export_info *info,
	      fx_diag *d);
void fx_export_info_release(fx_export_info *info);

/* ---- import ---- */

typedef struct fx_import_info {
	char **assumed;   /* values the file did not give, as written into the spec */
	size_t nassumed;
	char **lost;      /* what the file says that the spec does not carry */
	size_t nlost;
	int64_t devices, switches, cpus, links;
	/* the kind written ("torus", "mesh", "fat-tree", "nvswitch"), or NULL
	 * for a custom spec; static storage */
	const char *kind;
	char *recognition;   /* one sentence: how the kind was proven, or why none */
} fx_import_info;

/* What an import assumes for links its file gives no figure for. */
typedef struct fx_import_opts {
	double bandwidth;   /* bytes/s per direction per link */
	double latency;     /* seconds per hop */
} fx_import_opts;

/* Import formats: "graphml, gml, ns3, simai, booksim, simgrid, nccl-topo, nvidia-smi". */
const char *fx_import_names(void);
/* Reads the file at path in `format` and writes a spec named `name`
 * (fx_name_check's rule) to out, once fabricx has loaded it back: of the
 * kind recognised (info->kind), else `custom`.
 * 0, or -1 after reporting errors at FILE:LINE:COL through d. */
int fx_import(const char *path, const char *format, const char *name, const fx_import_opts *o,
	      FILE *out, fx_import_info *info, fx_diag *d);
void fx_import_info_release(fx_import_info *info);

#endif
