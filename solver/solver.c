/*
 * solver: GLPK behind 0-based indexes, with GLPK's aborts turned into errors.
 *
 * Three GLPK habits shape this file:
 *
 * - GLPK reports misuse and internal failures (running out of memory
 *   included) by printing a message and calling abort().  Its only escape is
 *   an error hook that longjmps, after which the whole GLPK environment must
 *   be dropped with glp_free_env() -- and that destroys every problem object,
 *   not only the one in use.  So the GLPK calls that could fail run inside
 *   guard(), which catches the error, frees the environment and bumps
 *   env_gen.  Each fx_lp remembers the generation it was created in, so
 *   after such an error *every* existing model is unusable (its calls fail)
 *   but can still be freed; new models work.  Arguments are checked here
 *   first, so this path is for what cannot be checked (GLPK's memory limit,
 *   GLPK bugs).  Like the rest of fabricx: one thread.
 *
 * - It checks neither NaN nor infinite coefficients nor integer bounds
 *   until solve time, where it refuses fractional bounds on integer columns
 *   and lo > hi on any row or column (GLP_EBOUND).  Integer bounds are
 *   rounded inward here; lo > hi (after rounding) is a legitimate,
 *   infeasible model, answered without calling GLPK.
 *
 * - Its CPLEX LP writer silently renames invalid names and merges columns
 *   that share a name when the file is read back, so names are cleaned and
 *   made unique when they are set.
 */
#include "solver.h"

#include <errno.h>
#include <glpk.h>
#include <limits.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../core/outfile.h"
#include "../core/xalloc.h"

struct fx_lp {
	glp_prob *P;            /* valid only while env == env_gen */
	unsigned env;
	int maximize;
	int ncols, nrows;
	int nint;               /* integer and binary columns: > 0 makes a MIP */
	int nbad;               /* rows and columns with lo > hi */
	int solved;             /* solved since the last change to the model */
	fx_lp_status status;
	double bound;
	double t0, limit_ms;    /* during fx_lp_solve: start (glp_time) and limit */
	long nodes, node_limit; /* branch-and-bound nodes selected, and the limit */
	double gap;
	int *ind;               /* 1-based scratch for one row, as GLPK wants it */
	double *val;
	size_t cap;
	unsigned *mark;         /* mark[col] == stamp: col already in this row */
	size_t nmark, capmark;
	unsigned stamp;
};

static unsigned env_gen;        /* bumped by each glp_free_env() */
static char glpk_msg[512];      /* what GLPK printed inside guard() */
static char last_err[512];

static int fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int fail(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(last_err, sizeof last_err, fmt, ap);
	va_end(ap);
	return -1;
}

const char *fx_lp_last_error(void)
{
	return last_err;
}

/* With terminal output off, GLPK prints only when it is about to fail (it
 * turns output back on for that); keep the text for the error message. */
static int on_term(void *info, const char *s)
{
	(void)info;
	size_t n = strlen(glpk_msg);
	snprintf(glpk_msg + n, sizeof glpk_msg - n, "%s", s);
	return 1;   /* nothing reaches stdout */
}

static void on_error(void *info)
{
	longjmp(*(jmp_buf *)info, 1);
}

/* Runs fn(arg) with GLPK's errors caught: returns 0, or -1 after an error
 * (GLPK's state is then unknown, so all of it is dropped).  The only setjmp
 * in the file: fn and arg are never modified, so nothing is clobbered. */
static int guard(void (*fn)(void *), void *arg)
{
	jmp_buf jb;
	if (setjmp(jb)) {
		glp_free_env();
		env_gen++;
		glpk_msg[strcspn(glpk_msg, "\n")] = '\0';
		return fail("GLPK error: %s (all models are now unusable)", glpk_msg);
	}
	/* the hooks live in the environment, which an error replaces */
	glp_term_out(GLP_OFF);
	glp_term_hook(on_term, NULL);
	glp_error_hook(on_error, &jb);
	glpk_msg[0] = '\0';
	fn(arg);
	glp_error_hook(NULL, NULL);   /* no hook into a dead stack frame */
	return 0;
}

static int usable(const fx_lp *lp, const char *fn)
{
	if (!lp)
		return fail("%s: no model", fn), 0;
	if (lp->env != env_gen)
		return fail("%s: model lost to an earlier GLPK error", fn), 0;
	return 1;
}

struct new_args {
	fx_lp *lp;
	const char *name;
};

static void new_prob(void *arg)
{
	struct new_args *a = arg;
	fx_lp *lp = a->lp;
	lp->P = glp_create_prob();
	glp_create_index(lp->P);   /* for the uniqueness check in set_name */
	if (a->name && *a->name) {
		char clean[256];
		snprintf(clean, sizeof clean, "%s", a->name);
		for (char *p = clean; *p; p++)   /* it lands in a comment: no '*' */
			if ((unsigned char)*p < ' ' || *p == '*' || *p == '\\' || (unsigned char)*p > '~')
				*p = '_';
		glp_set_prob_name(lp->P, clean);
	}
	glp_set_obj_dir(lp->P, lp->maximize ? GLP_MAX : GLP_MIN);
}

fx_lp *fx_lp_new(const char *name, int maximize)
{
	fx_lp *lp = fx_xcalloc(1, sizeof *lp);
	lp->maximize = maximize != 0;
	lp->env = env_gen;
	/* after a GLPK error lp is returned unusable: every call on it fails */
	guard(new_prob, &(struct new_args){lp, name});
	return lp;
}

void fx_lp_free(fx_lp *lp)
{
	if (!lp)
		return;
	if (lp->env == env_gen && lp->P)
		glp_delete_prob(lp->P);
	free(lp->ind);
	free(lp->val);
	free(lp->mark);
	free(lp);
}

/* CPLEX LP names: up to 255 characters among letters, digits and
 * !"#$%&()/,.;?@_`'{}|~, not starting with a digit or '.'.  Anything else
 * becomes '_' ('[' and ']' become parentheses, keeping x[1] readable).
 * '~' is left out too: GLPK's writer names its helper columns "~r_N". */
static void clean_name(char *out, const char *in)
{
	static const char punct[] = "!\"#$%&()/,.;?@_`'{}|";
	size_t n = 0;
	if ((*in >= '0' && *in <= '9') || *in == '.')
		out[n++] = '_';
	for (; *in && n < 255; in++) {
		char c = *in;
		int ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
			 (c && strchr(punct, c));
		out[n++] = ok ? c : c == '[' ? '(' : c == ']' ? ')' : '_';
	}
	out[n] = '\0';
}

static int name_taken(const fx_lp *lp, int row, const char *s)
{
	return row ? glp_find_row(lp->P, s) != 0 : glp_find_col(lp->P, s) != 0;
}

/* Names row or column k (1-based); no name gives r<i> / c<j> (0-based, as
 * the caller sees them).  A name in use gets "#<index>" appended: in the
 * file, two columns with one name would be one variable. */
static void set_name(fx_lp *lp, int row, int k, const char *name)
{
	char base[256], buf[256];
	if (name && *name)
		clean_name(base, name);
	else
		snprintf(base, sizeof base, "%c%d", row ? 'r' : 'c', k - 1);
	strcpy(buf, base);
	for (int t = 0; name_taken(lp, row, buf); t++) {
		char sfx[32];
		int m = t ? snprintf(sfx, sizeof sfx, "#%d_%d", k - 1, t)
			  : snprintf(sfx, sizeof sfx, "#%d", k - 1);
		snprintf(buf, sizeof buf, "%.*s%s", 255 - m, base, sfx);
	}
	if (row)
		glp_set_row_name(lp->P, k, buf);
	else
		glp_set_col_name(lp->P, k, buf);
}

/* Makes room for n entries in the 1-based scratch arrays. */
static void scratch(fx_lp *lp, int n)
{
	size_t cap = lp->cap;
	if ((size_t)n + 1 <= cap)
		return;
	lp->ind = fx_xgrow(lp->ind, &cap, (size_t)n + 1, sizeof *lp->ind);
	lp->val = fx_xrealloc(lp->val, cap * sizeof *lp->val);
	lp->cap = cap;
}

/* A bound at or beyond FX_LP_INF is absent.  Rejects NaN and the bounds
 * that exclude everything by themselves (lo = +inf, hi = -inf). */
static int check_bounds(const char *fn, double lo, double hi)
{
	if (isnan(lo) || isnan(hi) || lo >= FX_LP_INF || hi <= -FX_LP_INF)
		return fail("%s: invalid bounds [%g, %g]", fn, lo, hi);
	return 0;
}

static int glp_type(double lo, double hi)
{
	int has_lo = lo > -FX_LP_INF, has_hi = hi < FX_LP_INF;
	if (has_lo && has_hi)
		return lo == hi ? GLP_FX : GLP_DB;
	return has_lo ? GLP_LO : has_hi ? GLP_UP : GLP_FR;
}

/* glp_intopt refuses fractional bounds on integer columns; round inward,
 * forgiving float noise such as 2.0000000001 (+ 0.0 turns -0 into 0, which
 * the file would show). */
static double int_lo(double lo)
{
	return lo <= -FX_LP_INF ? lo : ceil(lo - 1e-9 * fmax(1, fabs(lo))) + 0.0;
}

static double int_hi(double hi)
{
	return hi >= FX_LP_INF ? hi : floor(hi + 1e-9 * fmax(1, fabs(hi))) + 0.0;
}

struct col_args {
	fx_lp *lp;
	const char *name;
	fx_lp_kind kind;
	double lo, hi, cost;
	int j;
};

static void add_col(void *arg)
{
	struct col_args *a = arg;
	glp_prob *P = a->lp->P;
	a->j = glp_add_cols(P, 1);
	set_name(a->lp, 0, a->j, a->name);
	if (a->kind != FX_LP_CONTINUOUS)
		glp_set_col_kind(P, a->j, a->kind == FX_LP_BINARY ? GLP_BV : GLP_IV);
	glp_set_col_bnds(P, a->j, glp_type(a->lo, a->hi), a->lo, a->hi);
	glp_set_obj_coef(P, a->j, a->cost);
}

int fx_lp_col(fx_lp *lp, const char *name, fx_lp_kind kind, double lo, double hi, double cost)
{
	if (!usable(lp, "fx_lp_col") || check_bounds("fx_lp_col", lo, hi))
		return -1;
	if (kind != FX_LP_CONTINUOUS && kind != FX_LP_INTEGER && kind != FX_LP_BINARY)
		return fail("fx_lp_col: invalid kind %d", (int)kind);
	if (!(fabs(cost) < FX_LP_INF))
		return fail("fx_lp_col: invalid cost %g", cost);
	if (lp->ncols == INT_MAX - 1)
		return fail("fx_lp_col: too many columns");
	if (kind == FX_LP_BINARY) {   /* narrower bounds fix the column */
		lo = fmax(lo, 0);
		hi = fmin(hi, 1);
	}
	if (kind != FX_LP_CONTINUOUS) {
		lo = int_lo(lo);
		hi = int_hi(hi);
	}
	struct col_args a = {lp, name, kind, lo, hi, cost, 0};
	if (guard(add_col, &a))
		return -1;
	lp->ncols++;
	lp->nint += kind != FX_LP_CONTINUOUS;
	lp->nbad += lo > hi;
	lp->solved = 0;
	return a.j - 1;
}

struct row_args {
	fx_lp *lp;
	const char *name;
	double lo, hi;
	int n;   /* coefficients in lp->ind, lp->val */
	int i;
};

static void add_row(void *arg)
{
	struct row_args *a = arg;
	glp_prob *P = a->lp->P;
	a->i = glp_add_rows(P, 1);
	set_name(a->lp, 1, a->i, a->name);
	glp_set_mat_row(P, a->i, a->n, a->lp->ind, a->lp->val);
	glp_set_row_bnds(P, a->i, glp_type(a->lo, a->hi), a->lo, a->hi);
}

int fx_lp_row(fx_lp *lp, const char *name, double lo, double hi, int n, const int *idx,
	      const double *val)
{
	if (!usable(lp, "fx_lp_row") || check_bounds("fx_lp_row", lo, hi))
		return -1;
	if (n < 0 || (n > 0 && (!idx || !val)))
		return fail("fx_lp_row: invalid coefficient arrays (n = %d)", n);
	if (lp->nrows == INT_MAX - 1)
		return fail("fx_lp_row: too many rows");
	/* GLPK wants ind[1..n], val[1..n] with 1-based columns: translate into
	 * scratch arrays kept between calls, checking what GLPK would abort on
	 * (range, duplicates) and what it would silently accept (NaN, inf). */
	scratch(lp, n);
	if (lp->nmark < (size_t)lp->ncols) {
		lp->mark = fx_xgrow(lp->mark, &lp->capmark, (size_t)lp->ncols, sizeof *lp->mark);
		memset(lp->mark + lp->nmark, 0, ((size_t)lp->ncols - lp->nmark) * sizeof *lp->mark);
		lp->nmark = (size_t)lp->ncols;
	}
	if (++lp->stamp == 0) {   /* wrapped: forget every old mark */
		memset(lp->mark, 0, lp->nmark * sizeof *lp->mark);
		lp->stamp = 1;
	}
	for (int k = 0; k < n; k++) {
		int c = idx[k];
		if (c < 0 || c >= lp->ncols)
			return fail("fx_lp_row: column index %d out of range (%d columns)", c, lp->ncols);
		if (lp->mark[c] == lp->stamp)
			return fail("fx_lp_row: column %d appears twice", c);
		if (!(fabs(val[k]) < FX_LP_INF))
			return fail("fx_lp_row: invalid coefficient %g for column %d", val[k], c);
		lp->mark[c] = lp->stamp;
		lp->ind[k + 1] = c + 1;
		lp->val[k + 1] = val[k];
	}
	struct row_args a = {lp, name, lo, hi, n, 0};
	if (guard(add_row, &a))
		return -1;
	lp->nrows++;
	lp->nbad += lo > hi;
	lp->solved = 0;
	return a.i - 1;
}

int fx_lp_ncols(const fx_lp *lp)
{
	return lp ? lp->ncols : 0;
}

int fx_lp_nrows(const fx_lp *lp)
{
	return lp ? lp->nrows : 0;
}

/* ---- solving ----------------------------------------------------------- */

/* The bound that proves nothing (-inf when minimizing), and the one of an
 * infeasible model (the optimum over an empty set). */
static double no_bound(const fx_lp *lp)
{
	return lp->maximize ? HUGE_VAL : -HUGE_VAL;
}

static double empty_bound(const fx_lp *lp)
{
	return -no_bound(lp);
}

/* Milliseconds left for the next GLPK call; the limit covers the whole
 * solve, which may take several calls. */
static int tm_left(const fx_lp *lp)
{
	if (lp->limit_ms <= 0)
		return INT_MAX;
	double left = lp->limit_ms - (glp_time() - lp->t0);
	return left < 1 ? 1 : left >= INT_MAX ? INT_MAX : (int)left;
}

/* glp_simplex with the presolver.  The presolver may stop at "no dual
 * feasible solution" (GLP_ENODFS), which means unbounded *or* infeasible;
 * the plain primal simplex from the standard basis tells which. */
static int simplex(fx_lp *lp)
{
	glp_smcp c;
	glp_init_smcp(&c);
	c.msg_lev = GLP_MSG_OFF;
	c.presolve = GLP_ON;
	c.tm_lim = tm_left(lp);
	int rc = glp_simplex(lp->P, &c);
	if (rc == GLP_ENODFS) {
		c.presolve = GLP_OFF;
		c.tm_lim = tm_left(lp);
		glp_std_basis(lp->P);
		rc = glp_simplex(lp->P, &c);
	}
	return rc;
}

/* Maps glp_simplex's (return code, status).  With the presolver, GLPK only
 * recovers an optimal solution: an interrupted solve has status GLP_UNDEF. */
static fx_lp_status simplex_status(fx_lp *lp, int rc)
{
	int st = glp_get_status(lp->P);
	if (rc == 0 && st == GLP_OPT)
		return FX_LP_OPTIMAL;
	if ((rc == 0 && st == GLP_NOFEAS) || rc == GLP_ENOPFS)
		return FX_LP_INFEASIBLE;
	if (rc == 0 && st == GLP_UNBND)
		return FX_LP_UNBOUNDED;
	if (rc == GLP_ETMLIM)
		return st == GLP_FEAS ? FX_LP_FEASIBLE : FX_LP_NO_SOLUTION;
	fail("glp_simplex failed (code %d, status %d)", rc, st);
	return FX_LP_ERROR;
}

/* Branch and bound reports its progress here.  When it asks for the next
 * node, every unexplored part of the search hangs below an open node, so
 * the best open node's bound, capped by the incumbent (nodes that cannot
 * beat it may not be pruned yet), bounds the optimum: the bound GLPK's own
 * mip_gap test uses.  The tree's problem is the presolved one, whose
 * objective keeps the constant of the removed columns. */
static void on_tree(glp_tree *T, void *info)
{
	fx_lp *lp = info;
	if (glp_ios_reason(T) != GLP_ISELECT)
		return;
	/* a node limit stops the search where a time limit would, but at the
	 * same place on every machine (tests use it) */
	if (lp->node_limit > 0 && ++lp->nodes > lp->node_limit) {
		glp_ios_terminate(T);
		return;
	}
	glp_prob *Q = glp_ios_get_prob(T);
	int p = glp_ios_best_node(T), found = glp_mip_status(Q) == GLP_FEAS;
	if (!p && !found)
		return;
	double b = p ? glp_ios_node_bound(T, p) : glp_mip_obj_val(Q);
	if (found)
		b = lp->maximize ? fmax(b, glp_mip_obj_val(Q)) : fmin(b, glp_mip_obj_val(Q));
	lp->bound = lp->maximize ? fmin(lp->bound, b) : fmax(lp->bound, b);
}

static int intopt(fx_lp *lp, double gap, int track_bound)
{
	glp_iocp c;
	glp_init_iocp(&c);
	c.msg_lev = GLP_MSG_OFF;
	c.presolve = GLP_ON;   /* also solves the root relaxation */
	c.tm_lim = tm_left(lp);
	c.mip_gap = gap;
	if (track_bound) {
		c.cb_func = on_tree;
		c.cb_info = lp;
	}
	return glp_intopt(lp->P, &c);
}

/* The relaxation is unbounded, so the MIP is unbounded if it has an integer
 * solution at all (true for rational data) and infeasible otherwise.  A
 * search with a zero objective tells which; it stops at the first solution. */
static fx_lp_status unbounded_or_infeasible(fx_lp *lp)
{
	int n = lp->ncols;
	scratch(lp, n);
	for (int j = 1; j <= n; j++) {
		lp->val[j] = glp_get_obj_coef(lp->P, j);
		glp_set_obj_coef(lp->P, j, 0);
	}
	int rc = intopt(lp, 0, 0), st = glp_mip_status(lp->P);
	for (int j = 1; j <= n; j++)
		glp_set_obj_coef(lp->P, j, lp->val[j]);
	if ((rc == 0 || rc == GLP_ETMLIM) && (st == GLP_OPT || st == GLP_FEAS))
		return FX_LP_UNBOUNDED;
	if ((rc == 0 && st == GLP_NOFEAS) || rc == GLP_ENOPFS)
		return FX_LP_INFEASIBLE;
	if (rc == GLP_ETMLIM)
		return FX_LP_NO_SOLUTION;
	fail("glp_intopt failed (code %d, status %d)", rc, st);
	return FX_LP_ERROR;
}

static fx_lp_status solve_mip(fx_lp *lp, double gap)
{
	/* The relaxation first: its optimum is the starting bound, and if it is
	 * infeasible or unbounded the search has nothing to do. */
	fx_lp_status s = simplex_status(lp, simplex(lp));
	if (s == FX_LP_UNBOUNDED)
		return unbounded_or_infeasible(lp);
	if (s == FX_LP_FEASIBLE)   /* out of time in the relaxation */
		s = FX_LP_NO_SOLUTION;
	if (s != FX_LP_OPTIMAL)
		return s;
	lp->bound = glp_get_obj_val(lp->P);

	int rc = intopt(lp, gap, 1), st = glp_mip_status(lp->P);
	if (rc == 0 && st == GLP_OPT) {
		lp->bound = glp_mip_obj_val(lp->P);
		return FX_LP_OPTIMAL;
	}
	if (rc == GLP_EMIPGAP && st == GLP_FEAS)
		return FX_LP_OPTIMAL;   /* within the gap; the bound says how close */
	if ((rc == 0 && st == GLP_NOFEAS) || rc == GLP_ENOPFS)
		return FX_LP_INFEASIBLE;
	/* The relaxation had an optimum, so the (tighter) presolved one cannot
	 * be unbounded: "no dual feasible solution" here means infeasible. */
	if (rc == GLP_ENODFS)
		return FX_LP_INFEASIBLE;
	if (rc == GLP_ETMLIM || rc == GLP_ESTOP)
		return st == GLP_FEAS ? FX_LP_FEASIBLE : FX_LP_NO_SOLUTION;
	fail("glp_intopt failed (code %d, status %d)", rc, st);
	return FX_LP_ERROR;
}

static void solve(void *arg)
{
	fx_lp *lp = arg;
	lp->t0 = glp_time();
	lp->bound = no_bound(lp);
	if (lp->nint) {
		lp->status = solve_mip(lp, lp->gap);
	} else {
		lp->status = simplex_status(lp, simplex(lp));
		if (lp->status == FX_LP_OPTIMAL)
			lp->bound = glp_get_obj_val(lp->P);
	}
}

fx_lp_status fx_lp_solve(fx_lp *lp, const fx_lp_opts *opts)
{
	if (!usable(lp, "fx_lp_solve"))
		return FX_LP_ERROR;
	lp->solved = 1;
	lp->status = FX_LP_ERROR;
	lp->bound = NAN;
	double limit = opts ? opts->time_limit : 0, gap = opts ? opts->mip_gap : 0;
	if (!(limit >= 0 && limit < 1e9) || !(gap >= 0 && gap < FX_LP_INF)) {
		fail("fx_lp_solve: invalid options (time limit %g s, gap %g)", limit, gap);
		return FX_LP_ERROR;
	}
	if (lp->nbad) {   /* some lo > hi: GLPK would refuse to start */
		lp->bound = empty_bound(lp);
		return lp->status = FX_LP_INFEASIBLE;
	}
	lp->limit_ms = limit * 1000;
	lp->gap = gap;
	lp->nodes = 0;
	lp->node_limit = opts && opts->node_limit > 0 ? opts->node_limit : 0;
	if (guard(solve, lp))
		return lp->status = FX_LP_ERROR;
	fx_lp_status s = lp->status;
	if (s == FX_LP_INFEASIBLE)
		lp->bound = empty_bound(lp);
	else if (s == FX_LP_ERROR)
		lp->bound = NAN;
	return s;
}

const char *fx_lp_status_name(fx_lp_status s)
{
	switch (s) {
	case FX_LP_OPTIMAL: return "optimal";
	case FX_LP_FEASIBLE: return "feasible";
	case FX_LP_INFEASIBLE: return "infeasible";
	case FX_LP_UNBOUNDED: return "unbounded";
	case FX_LP_NO_SOLUTION: return "no solution";
	case FX_LP_ERROR: return "error";
	}
	return "?";
}

static int has_solution(const fx_lp *lp)
{
	return lp && lp->env == env_gen && lp->solved &&
	       (lp->status == FX_LP_OPTIMAL || lp->status == FX_LP_FEASIBLE);
}

double fx_lp_value(const fx_lp *lp, int col)
{
	if (!has_solution(lp) || col < 0 || col >= lp->ncols)
		return NAN;
	return lp->nint ? glp_mip_col_val(lp->P, col + 1) : glp_get_col_prim(lp->P, col + 1);
}

double fx_lp_objective(const fx_lp *lp)
{
	if (!has_solution(lp))
		return NAN;
	return lp->nint ? glp_mip_obj_val(lp->P) : glp_get_obj_val(lp->P);
}

double fx_lp_bound(const fx_lp *lp)
{
	return lp && lp->env == env_gen && lp->solved ? lp->bound : NAN;
}

struct write_args {
	const fx_lp *lp;
	const char *path;
	int rc;
};

static void write_lp(void *arg)
{
	struct write_args *a = arg;
	a->rc = glp_write_lp(a->lp->P, NULL, a->path);
}

int fx_lp_write(const fx_lp *lp, const char *path)
{
	if (!usable(lp, "fx_lp_write"))
		return -1;
	if (!path || !*path)
		return fail("fx_lp_write: no path");
	/* GLPK's own message is lost with terminal output off; open the file
	 * first for a proper one.  GLPK writes the temporary, which becomes the
	 * file only once whole (core/outfile.h). */
	fx_outfile o;
	if (!fx_outfile_open(&o, path))
		return fail("cannot write '%s': %s", path, strerror(errno));
	/* a device or a FIFO is written in place (o.tmp is NULL): GLPK, which
	 * writes only by name, writes a private temporary that is copied in */
	char *priv = NULL;
	if (!o.tmp) {
		const char *dir = getenv("TMPDIR");
		priv = fx_xasprintf("%s/.fxlp.XXXXXX", dir && *dir == '/' ? dir : "/tmp");
		int fd = mkstemp(priv);
		if (fd < 0) {
			int e = errno;
			free(priv);
			fx_outfile_close(&o, 0);
			return fail("cannot write '%s': a temporary: %s", path, strerror(e));
		}
		close(fd);
	}
	struct write_args a = {lp, o.tmp ? o.tmp : priv, 0};
	int rc = guard(write_lp, &a);
	if (priv) {
		FILE *in = rc == 0 && a.rc == 0 ? fopen(priv, "rb") : NULL;
		char buf[65536];
		size_t n;
		while (in && (n = fread(buf, 1, sizeof buf, in)) > 0)
			if (fwrite(buf, 1, n, o.f) != n)
				break;
		if (in && ferror(in))
			a.rc = -1;
		if (in)
			fclose(in);
		unlink(priv);
		free(priv);
	}
	if (fx_outfile_close(&o, rc == 0 && a.rc == 0) && rc == 0)
		return fail("cannot write '%s': %s", path, strerror(errno));
	if (rc)
		return -1;
	return a.rc ? fail("cannot write '%s'", path) : 0;
}
