/*
 * design: one loaded design — a spec with its --set overrides, the fabric
 * it builds, its power configuration, collective time model, workload and
 * groups.  Everything a command or a design-space point evaluates starts
 * from one of these; the CLI keeps only argv, options and output.
 *
 * Ownership: the design owns everything it holds and releases it all in
 * fx_design_release().
 */
#ifndef FX_DESIGN_H
#define FX_DESIGN_H

#include "../core/diag.h"
#include "../fabric/fabric.h"
#include "../placement/placement.h"
#include "../power/power.h"
#include "../routing/routing.h"
#include "../spec/spec.h"
#include "../step/step.h"

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
	const char *description;             /* `description:`, or NULL (the spec's text) */
	const char **sources;                /* `sources:`, nsources strings (the spec's) */
	size_t nsources;
	/* the step model (step/step.h): the model as an inventory, its
	 * layout, load and hardware; have_step when the spec gives a model
	 * or `workload.inventory` */
	int have_step;
	fx_step_model step;
	fx_step_layout step_layout;
	fx_step_load step_load;
	fx_step_hw step_hw;
	/* workload.jobs (placement.h), njobs of them; their devices NULL
	 * where the spec gives none (last: the struct grows at its end) */
	fx_job *jobs;
	size_t njobs;
} fx_design;

/* What a load may cost.  A zeroed struct (or NULL) means the defaults. */
typedef struct fx_design_limits {
	double max_memory;   /* bytes the fabric may be estimated to need; 0: half of RAM */
} fx_design_limits;

/* Reads the spec at `path`, applies the `noverrides` KEY=VALUE overrides in
 * order (as --set does), checks the top-level keys, reads power, the
 * collective time model and `workload:`, builds the fabric and checks
 * `groups:`.  ds need not be initialised; after the call, whatever it
 * returned, fx_design_release() releases it.  0, or -1 after reporting
 * through d (d->status says why: bad input, too big, ...); a failed load
 * leaves ds empty, so every later use of it fails rather than reads a
 * half-built fabric.  NULL ds or path, NULL overrides when noverrides > 0
 * and a negative limit are refused with -1. */
int fx_design_load(fx_design *ds, const char *path, const char *const *overrides,
		   size_t noverrides, const fx_design_limits *limits, fx_diag *d);
/* The same from spec text in memory; `name` stands for the file in
 * messages (the fuzz target's entry). */
int fx_design_load_text(fx_design *ds, const char *name, const char *text,
			const char *const *overrides, size_t noverrides,
			const fx_design_limits *limits, fx_diag *d);
/* The same from a spec already parsed (copied: spec is not changed), so
 * a space parses its spec once for all its points.  Messages about spec
 * positions show their source line when d holds the spec's text
 * (fx_diag_add_source), as a load from text would. */
int fx_design_load_spec(fx_design *ds, const fx_spec *spec, const char *const *overrides,
			size_t noverrides, const fx_design_limits *limits, fx_diag *d);
/* Releases everything ds holds (not ds itself) and zeroes it; safe on a
 * zeroed or partly loaded design, and twice. */
void fx_design_release(fx_design *ds);

/* One step of the design's step model (ld NULL: the spec's load) with its
 * communication routed on the design's fabric: the instance's ranks are
 * devs[0 .. ndev) (a placement's), or with devs NULL the fabric's devices
 * in order.  0, or -1 after reporting through d (a collective that cannot
 * be routed, a layout the fabric is too small for). */
int fx_design_step(const fx_design *ds, const int64_t *devs, int64_t ndev, const fx_step_load *ld,
		   fx_step_result *out, fx_diag *d);

/* The devices of group `name` into r[] (room for ndev; device order):
 * a `groups:` selector of the spec or, on custom fabrics, the nodes'
 * `group:` keys.  Returns how many, 0 when there is no such group, -1
 * after reporting a bad selector through d. */
int64_t fx_design_group_devices(const fx_design *ds, const char *name, int64_t *r, fx_diag *d);

#endif
