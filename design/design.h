/*
 * design: one loaded design — a spec with its --set overrides, the fabric
 * it builds, its power configuration, collective time model, workload and
 * groups.  Everything a command or a design-space point evaluates starts
 * from one of these; the CLI keeps only argv, options and output.
 *
 * Ownership: the design owns everything it holds and releases it all in
 * fx_design_free().
 */
#ifndef FX_DESIGN_H
#define FX_DESIGN_H

#include "../core/diag.h"
#include "../fabric/fabric.h"
#include "../placement/placement.h"
#include "../power/power.h"
#include "../routing/routing.h"
#include "../spec/spec.h"

/* One collective the spec's workload asks `explore` to evaluate. */
typedef struct fx_wl_coll {
	const char *pattern, *algo, *group;  /* algo, group may be NULL */
	double size;
	int64_t nranks;                      /* 0: all devices (or the group) */
} fx_wl_coll;

typedef struct fx_design {
	fx_spec spec;
	fx_fabric fab;
	fx_power_config power;
	fx_coll_time coll;                   /* the spec's collective: overhead */
	fx_wl_coll *wl;                      /* workload.collectives */
	size_t nwl;
	fx_workload work;                    /* workload placement keys */
	int have_accel, have_sessions;       /* workload.accelerator / .sessions */
	fx_accel accel;
	fx_sessions sessions;
	int have_spec, have_fab;
	char name[FX_NAME_MAX + 1];          /* spec name (fx_name_check) */
} fx_design;

#endif
