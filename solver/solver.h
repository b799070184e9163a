/*
 * solver: a small wrapper over GLPK for fabricx's placement models.
 *
 * This is the only module that includes <glpk.h>.  A model is built column
 * by column and row by row with 0-based indexes, solved with a time limit
 * and a relative MIP gap, and can be written in CPLEX LP format so a user
 * can read it (and re-solve it with `glpsol --lp FILE`).
 *
 * GLPK aborts the process on API misuse; the wrapper checks arguments itself
 * (failing with -1 / FX_LP_ERROR and a message in fx_lp_last_error()) and
 * installs an error hook that turns any remaining GLPK abort into an error.
 * GLPK can only recover from one by dropping all its state, so after such an
 * error every existing model is unusable (its calls fail) but must still be
 * freed; models created afterwards work.
 *
 * Ownership: fx_lp_new() returns a model the caller frees with
 * fx_lp_free(); names are copied.
 */
#ifndef FX_SOLVER_H
#define FX_SOLVER_H

#include <stddef.h>

typedef struct fx_lp fx_lp;

typedef enum fx_lp_kind { FX_LP_CONTINUOUS, FX_LP_INTEGER, FX_LP_BINARY } fx_lp_kind;

typedef enum fx_lp_status {
	FX_LP_OPTIMAL,      /* proven optimal (within the gap, if one was given) */
	FX_LP_FEASIBLE,     /* a solution, not proven optimal (time limit) */
	FX_LP_INFEASIBLE,   /* no solution exists */
	FX_LP_UNBOUNDED,
	FX_LP_NO_SOLUTION,  /* time limit with no solution found */
	FX_LP_ERROR         /* GLPK failed */
} fx_lp_status;

#define FX_LP_INF 1e300   /* an absent bound */

fx_lp *fx_lp_new(const char *name, int maximize);
void fx_lp_free(fx_lp *lp);
/* Adds a column with bounds [lo, hi] (FX_LP_INF / -FX_LP_INF for none) and
 * objective coefficient cost; returns its index, or -1.  Integer bounds are
 * rounded inward; binary ones are intersected with [0, 1].  lo > hi is
 * allowed and makes the model infeasible.  Names are made valid for CPLEX
 * LP and unique ("x" twice gives "x" and "x#<index>"); none gives c<index>. */
int fx_lp_col(fx_lp *lp, const char *name, fx_lp_kind kind, double lo, double hi, double cost);
/* Adds a row lo <= sum val[k] x[idx[k]] <= hi; returns its index, or -1 on
 * a column index out of range or repeated, or a non-finite value. */
int fx_lp_row(fx_lp *lp, const char *name, double lo, double hi, int n, const int *idx,
	      const double *val);
int fx_lp_ncols(const fx_lp *lp);
int fx_lp_nrows(const fx_lp *lp);

typedef struct fx_lp_opts {
	double time_limit;   /* seconds; 0 = none */
	double mip_gap;      /* relative; 0 = prove optimality */
	long node_limit;     /* branch-and-bound nodes; 0 = none.  Stops like the
			      * time limit (FEASIBLE or NO_SOLUTION), but at the
			      * same node on every machine */
} fx_lp_opts;

/* Solves (MIP if any column is integer or binary, else LP).  opts may be
 * NULL (no limit, gap 0). */
fx_lp_status fx_lp_solve(fx_lp *lp, const fx_lp_opts *opts);
const char *fx_lp_status_name(fx_lp_status s);
/* After a solve with a solution (OPTIMAL or FEASIBLE): column values and
 * objective; NaN otherwise, or after the model was changed. */
double fx_lp_value(const fx_lp *lp, int col);
double fx_lp_objective(const fx_lp *lp);
/* The best bound GLPK proved: for an LP the optimum; for a MIP the optimum
 * when proven, else the tighter of the LP relaxation's optimum and the best
 * open node of the branch and bound.  Nothing proved: -inf when minimizing
 * (+inf when maximizing); infeasible: +inf (-inf); NaN on error. */
double fx_lp_bound(const fx_lp *lp);
/* Writes the model in CPLEX LP format. Returns 0 or -1.  GLPK's writer
 * leaves out free rows (both bounds absent), writes a ranged row as an
 * equality with a helper column "~r_<row+1>", and for a model without rows
 * writes only a comment (which GLPK cannot read back). */
int fx_lp_write(const fx_lp *lp, const char *path);
/* Why the last call that failed (-1 or FX_LP_ERROR) did. */
const char *fx_lp_last_error(void);

#endif
