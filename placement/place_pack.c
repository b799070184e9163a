/*
 * The constructive placement and its lower bound.
 *
 * Instances are identical, and an instance's cost depends only on the
 * level it spans (one node, one rack, several racks), so a placement is
 * judged by how many instances sit at each level.  The packer takes the
 * levels cheapest first and fills each in fabric order: node by node, rack
 * by rack, then across racks, powering a node only while the system and
 * rack budgets allow.  The bound counts how many instances could sit at
 * each level at most (fx_place_counts) and fills the cheapest levels up to
 * those counts.  When the two meet the packing is optimal, proven without
 * a search; that is the common case, and it takes one pass over the nodes
 * however many instances there are.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../core/xalloc.h"
#include "place_internal.h"

/* ---- plans ---- */

void fx_plan_init(fx_plan *p, int64_t ninst)
{
	memset(p, 0, sizeof *p);
	p->first = fx_xcalloc((size_t)ninst + 1, sizeof *p->first);
}

void fx_plan_add(fx_plan *p, int64_t node, int64_t units)
{
	if (p->n == p->cap) {
		p->cap = p->cap ? 2 * p->cap : 64;
		p->node = fx_xrealloc(p->node, (size_t)p->cap * sizeof *p->node);
		p->units = fx_xrealloc(p->units, (size_t)p->cap * sizeof *p->units);
	}
	p->node[p->n] = node;
	p->units[p->n++] = units;
}

void fx_plan_end_instance(fx_plan *p)
{
	p->first[++p->ninst] = p->n;
}

void fx_plan_release(fx_plan *p)
{
	free(p->node);
	free(p->units);
	free(p->first);
	memset(p, 0, sizeof *p);
}

fx_level fx_plan_level(const fx_pctx *c, const fx_plan *p, int64_t i, int64_t *nodes, int64_t *racks)
{
	int64_t a = p->first[i], b = p->first[i + 1], r = 0;
	for (int64_t s = a; s < b; s++) {
		int seen = 0;  /* instances span few nodes: a quadratic scan is cheap */
		for (int64_t t = a; t < s && !seen; t++)
			seen = c->node_rack[p->node[t]] == c->node_rack[p->node[s]];
		r += !seen;
	}
	*nodes = b - a;
	*racks = r;
	return b - a <= 1 ? FX_LEVEL_NODE : r <= 1 ? FX_LEVEL_RACK : FX_LEVEL_ANY;
}

double fx_plan_cost(const fx_pctx *c, const fx_plan *p)
{
	double sum = 0;
	for (int64_t i = 0; i < p->ninst; i++) {
		int64_t n, r;
		sum += c->cost[fx_plan_level(c, p, i, &n, &r)];
	}
	return sum;
}

int fx_plan_valid(const fx_pctx *c, const fx_plan *p, char *why, size_t len)
{
	int64_t *units = fx_xcalloc((size_t)c->N + 1, sizeof *units);
	int64_t *owners = fx_xcalloc((size_t)c->N + 1, sizeof *owners);
	int64_t *rack_owners = fx_xcalloc((size_t)c->R + 1, sizeof *rack_owners);
	int64_t *rack_on = fx_xcalloc((size_t)c->R + 1, sizeof *rack_on);
	double *port = fx_xcalloc((size_t)c->N + 1, sizeof *port);
	int64_t *last_rack = fx_xmalloc((size_t)(c->R + 1) * sizeof *last_rack);
	for (int64_t r = 0; r < c->R; r++)
		last_rack[r] = -1;
	int ok = p->ninst == c->I;
	if (!ok)
		snprintf(why, len, "%lld instances placed of %lld", (long long)p->ninst, (long long)c->I);
	for (int64_t i = 0; i < p->ninst && ok; i++) {
		int64_t nn, nr, sum = 0;
		fx_level L = fx_plan_level(c, p, i, &nn, &nr);
		if (L > c->w->keep_instance || !c->ok[L]) {
			snprintf(why, len, "instance %lld spans a %s", (long long)i, fx_level_name(L));
			ok = 0;
		}
		for (int64_t s = p->first[i]; s < p->first[i + 1]; s++) {
			int64_t n = p->node[s], r = c->node_rack[n];
			sum += p->units[s];
			units[n] += p->units[s];
			owners[n]++;
			if (last_rack[r] != i) {
				last_rack[r] = i;
				rack_owners[r]++;
			}
			port[n] += c->cross[L] * (double)p->units[s];
		}
		if (sum != c->U) {
			snprintf(why, len, "instance %lld has %lld units of %lld", (long long)i,
				 (long long)sum, (long long)c->U);
			ok = 0;
		}
	}
	int64_t on = 0;
	for (int64_t n = 0; n < c->N && ok; n++) {
		if (!units[n])
			continue;
		on++;
		rack_on[c->node_rack[n]]++;
		if (units[n] > c->P) {
			snprintf(why, len, "node %lld holds %lld units of %lld", (long long)n,
				 (long long)units[n], (long long)c->P);
			ok = 0;
		} else if (!c->node_ok[n]) {
			snprintf(why, len, "node %lld holds a failed device", (long long)n);
			ok = 0;
		} else if (c->w->failure_domain == FX_LEVEL_NODE && owners[n] > 1) {
			snprintf(why, len, "node %lld is shared (failure domain)", (long long)n);
			ok = 0;
		} else if (c->w->comm_budget > 0 && c->uplink[n] > 0 &&
			   port[n] / c->uplink[n] > c->w->comm_budget * (1 + 1e-9)) {
			snprintf(why, len, "node %lld's ports are over the comm budget", (long long)n);
			ok = 0;
		}
	}
	for (int64_t r = 0; r < c->R && ok; r++) {
		if (c->w->failure_domain == FX_LEVEL_RACK && rack_owners[r] > 1) {
			snprintf(why, len, "rack %lld is shared (failure domain)", (long long)r);
			ok = 0;
		} else if (rack_on[r] > c->rack_max[r]) {
			snprintf(why, len, "rack %lld powers %lld nodes of %lld", (long long)r,
				 (long long)rack_on[r], (long long)c->rack_max[r]);
			ok = 0;
		}
	}
	if (ok && on > c->sys_max) {
		snprintf(why, len, "%lld nodes powered of %lld", (long long)on, (long long)c->sys_max);
		ok = 0;
	}
	free(units);
	free(owners);
	free(rack_owners);
	free(rack_on);
	free(port);
	free(last_rack);
	return ok;
}

/* ---- the packer ---- */

typedef struct packer {
	const fx_pctx *c;
	int64_t *free;          /* [N] units free */
	int64_t *owners;        /* [N] instances on the node */
	int64_t *rack_owners;   /* [R] instances in the rack */
	uint8_t *on;            /* [N] powered */
	int64_t *rack_on;       /* [R] nodes powered */
	int64_t on_total;
	int64_t *tn, *tu;       /* [N] the instance being tried: nodes, units */
	int64_t *new_in_rack;   /* [R] nodes it would power */
} packer;

static void packer_init(packer *k, const fx_pctx *c)
{
	memset(k, 0, sizeof *k);
	k->c = c;
	size_t N = (size_t)c->N + 1, R = (size_t)c->R + 1;
	k->free = fx_xmalloc(N * sizeof *k->free);
	for (int64_t n = 0; n < c->N; n++)
		k->free[n] = c->node_ok[n] ? c->P : 0;
	k->owners = fx_xcalloc(N, sizeof *k->owners);
	k->rack_owners = fx_xcalloc(R, sizeof *k->rack_owners);
	k->on = fx_xcalloc(N, 1);
	k->rack_on = fx_xcalloc(R, sizeof *k->rack_on);
	k->tn = fx_xmalloc(N * sizeof *k->tn);
	k->tu = fx_xmalloc(N * sizeof *k->tu);
	k->new_in_rack = fx_xcalloc(R, sizeof *k->new_in_rack);
}

static void packer_release(packer *k)
{
	free(k->free);
	free(k->owners);
	free(k->rack_owners);
	free(k->on);
	free(k->rack_on);
	free(k->tn);
	free(k->tu);
	free(k->new_in_rack);
}

/* Tries to place one instance on the nodes list[from..to) in order, taking
 * free units node by node.  Commits and returns 1 on success; 0 leaves
 * everything as it was. */
static int try_place(packer *k, const int64_t *list, int64_t from, int64_t to, fx_plan *p)
{
	const fx_pctx *c = k->c;
	fx_level fd = c->w->failure_domain;
	int64_t need = c->U, m = 0, newly = 0;
	for (int64_t j = from; j < to && need > 0; j++) {
		int64_t n = list[j], r = c->node_rack[n];
		if (k->free[n] == 0)
			continue;
		if (fd == FX_LEVEL_NODE && k->owners[n])
			continue;
		if (fd == FX_LEVEL_RACK && k->rack_owners[r])
			continue;  /* another instance's rack */
		if (!k->on[n]) {
			if (k->on_total + newly >= c->sys_max ||
			    k->rack_on[r] + k->new_in_rack[r] >= c->rack_max[r])
				continue;
			newly++;
			k->new_in_rack[r]++;
		}
		int64_t take = k->free[n] < need ? k->free[n] : need;
		k->tn[m] = n;
		k->tu[m++] = take;
		need -= take;
	}
	for (int64_t s = 0; s < m; s++)
		k->new_in_rack[c->node_rack[k->tn[s]]] = 0;
	if (need > 0)
		return 0;
	for (int64_t s = 0; s < m; s++) {
		int64_t n = k->tn[s], r = c->node_rack[n];
		if (!k->on[n]) {
			k->on[n] = 1;
			k->rack_on[r]++;
			k->on_total++;
		}
		k->free[n] -= k->tu[s];
		k->owners[n]++;
		int first_in_rack = 1;
		for (int64_t t = 0; t < s; t++)
			first_in_rack &= c->node_rack[k->tn[t]] != r;
		k->rack_owners[r] += first_in_rack;
		fx_plan_add(p, n, k->tu[s]);
	}
	fx_plan_end_instance(p);
	return 1;
}

/* Level L's pass: as many instances as fit at that level, in fabric order.
 * nodes: every node in order; by_rack: the same grouped by rack, with
 * rack r's nodes at by_rack[rfirst[r] .. rfirst[r+1]). */
static void fill_level(packer *k, fx_level L, const int64_t *nodes, const int64_t *by_rack,
		       const int64_t *rfirst, fx_plan *p)
{
	const fx_pctx *c = k->c;
	if (L == FX_LEVEL_NODE) {
		for (int64_t j = 0; j < c->N && p->ninst < c->I; j++)
			while (p->ninst < c->I && k->free[nodes[j]] >= c->U &&
			       try_place(k, nodes, j, j + 1, p))
				;
	} else if (L == FX_LEVEL_RACK) {
		for (int64_t r = 0; r < c->R && p->ninst < c->I; r++)
			while (p->ninst < c->I && try_place(k, by_rack, rfirst[r], rfirst[r + 1], p))
				;
	} else {
		while (p->ninst < c->I && try_place(k, nodes, 0, c->N, p))
			;
	}
}

/* Levels allowed, cheapest first; ties go to the more compact level. */
static int levels_by_cost(const fx_pctx *c, fx_level *order)
{
	int n = 0;
	for (int L = 0; L < FX_LEVELS; L++)
		if (c->ok[L] && L <= (int)c->w->keep_instance)
			order[n++] = (fx_level)L;
	for (int i = 1; i < n; i++)
		for (int j = i; j > 0 && c->cost[order[j]] < c->cost[order[j - 1]]; j--) {
			fx_level t = order[j];
			order[j] = order[j - 1];
			order[j - 1] = t;
		}
	return n;
}

int fx_place_pack(const fx_pctx *c, fx_plan *p)
{
	int64_t *nodes = fx_xmalloc((size_t)(c->N + 1) * sizeof *nodes);
	int64_t *by_rack = fx_xmalloc((size_t)(c->N + 1) * sizeof *by_rack);
	int64_t *rfirst = fx_xcalloc((size_t)c->R + 2, sizeof *rfirst);
	for (int64_t n = 0; n < c->N; n++) {
		nodes[n] = n;
		rfirst[c->node_rack[n] + 1]++;
	}
	for (int64_t r = 0; r < c->R; r++)
		rfirst[r + 1] += rfirst[r];
	int64_t *at = fx_xmalloc((size_t)(c->R + 1) * sizeof *at);
	memcpy(at, rfirst, (size_t)c->R * sizeof *at);
	for (int64_t n = 0; n < c->N; n++)
		by_rack[at[c->node_rack[n]]++] = n;
	packer k;
	packer_init(&k, c);
	fx_plan_init(p, c->I);
	fx_level order[FX_LEVELS];
	int nl = levels_by_cost(c, order);
	for (int i = 0; i < nl && p->ninst < c->I; i++)
		fill_level(&k, order[i], nodes, by_rack, rfirst, p);
	packer_release(&k);
	free(nodes);
	free(by_rack);
	free(rfirst);
	free(at);
	char why[128];
	if (p->ninst == c->I && fx_plan_valid(c, p, why, sizeof why))
		return 1;
	fx_plan_release(p);
	return 0;
}

/* ---- the bound ---- */

/* min sum_L cost[L] n_L over n_L >= 0 with sum n_L = I and, for each
 * level, the instances at it and below at most the count that fits there:
 * a relaxation of every placement, since a placement with n_L instances
 * at level L has n_0 + .. + n_L instances within a level-L domain.
 * Levels not allowed take none.  With nested caps the cheapest-first fill
 * is optimal for a monotone order; the general case is a 3-column LP. */
double fx_place_bound(const fx_pctx *c)
{
	int64_t k[FX_LEVELS];
	fx_place_counts(c, k);
	fx_lp *lp = fx_lp_new("fabricx_place_bound", 0);
	int col[FX_LEVELS];
	for (int L = 0; L < FX_LEVELS; L++) {
		int allowed = c->ok[L] && L <= (int)c->w->keep_instance;
		col[L] = fx_lp_col(lp, fx_level_name((fx_level)L), FX_LP_CONTINUOUS, 0,
				   allowed ? (double)c->I : 0, c->cost[L]);
	}
	double one[FX_LEVELS] = {1, 1, 1};
	for (int L = 0; L < FX_LEVELS - 1; L++)
		fx_lp_row(lp, "fits", -FX_LP_INF, (double)k[L], L + 1, col, one);
	fx_lp_row(lp, "all", (double)c->I, (double)c->I, FX_LEVELS, col, one);
	fx_lp_status st = fx_lp_solve(lp, NULL);
	double b = st == FX_LP_OPTIMAL ? fx_lp_objective(lp) : NAN;
	fx_lp_free(lp);
	return b;
}
