/*
 * Failed elements: a mask over the built fabric (fx_fabric.vdown, .edown)
 * that every router, hop count and cut honours, so any command can measure
 * the degraded fabric (issue 17; the chapter "Supernodes" §6.7.2: a
 * failure's scope depends on what shares it).  The graph itself is never
 * changed: vertex and edge ids stay those of the intact build, and
 * clearing the mask gives the intact fabric back.
 *
 * Selectors are those of --cut (fabric/select.c): a vertex selector fails
 * the vertices it picks with every bundle they end (a device, a switch
 * chip, a node or rack with all it holds, a plane's chips, a power
 * domain); "A~B" fails the bundles between what A and B pick (a link).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../core/xalloc.h"
#include "fabric.h"

static void ensure(fx_fabric *f)
{
	if (!f->vdown)
		f->vdown = fx_xcalloc((size_t)f->nv + 1, 1);
	if (!f->edown)
		f->edown = fx_xcalloc((size_t)f->ne + 1, 1);
}

void fx_fabric_fail_mark(fx_fabric *f, const uint8_t *sel, const uint8_t *dead)
{
	ensure(f);
	for (int64_t v = 0; sel && v < f->nv; v++)
		f->vdown[v] |= sel[v] != 0;
	for (int64_t e = 0; e < f->ne; e++)
		f->edown[e] |= (dead && dead[e]) || f->vdown[f->ends[2 * e]] ||
			       f->vdown[f->ends[2 * e + 1]];
}

void fx_fabric_fail_clear(fx_fabric *f)
{
	free(f->vdown);
	free(f->edown);
	f->vdown = f->edown = NULL;
}

void fx_fabric_fail_save(const fx_fabric *f, fx_fail_saved *s)
{
	s->vdown = s->edown = NULL;
	if (f->vdown) {
		s->vdown = fx_xmalloc((size_t)f->nv + 1);
		memcpy(s->vdown, f->vdown, (size_t)f->nv + 1);
	}
	if (f->edown) {
		s->edown = fx_xmalloc((size_t)f->ne + 1);
		memcpy(s->edown, f->edown, (size_t)f->ne + 1);
	}
}

void fx_fabric_fail_restore(fx_fabric *f, fx_fail_saved *s)
{
	fx_fabric_fail_clear(f);
	f->vdown = s->vdown;
	f->edown = s->edown;
	s->vdown = s->edown = NULL;
}

void fx_fabric_domain_view(const fx_fabric *f, fx_fabric *view)
{
	*view = *f;
	view->domain_of = NULL;
	view->vdown = fx_xcalloc((size_t)f->nv + 1, 1);
	view->edown = fx_xcalloc((size_t)f->ne + 1, 1);
	if (f->vdown)
		memcpy(view->vdown, f->vdown, (size_t)f->nv + 1);
	for (int64_t e = 0; e < f->ne; e++)
		view->edown[e] = f->e[e].scale_out || !fx_fabric_edge_up(f, e);
}

void fx_fabric_domain_view_release(fx_fabric *view)
{
	free(view->vdown);
	free(view->edown);
	memset(view, 0, sizeof *view);
}

void fx_fabric_fail_counts(const fx_fabric *f, int64_t *vertices, int64_t *links)
{
	*vertices = *links = 0;
	for (int64_t v = 0; f->vdown && v < f->nv; v++)
		*vertices += f->vdown[v];
	for (int64_t e = 0; f->edown && e < f->ne; e++)
		*links += f->edown[e] ? f->e[e].count : 0;
}

/* "A~B": the bundles between the two vertex sets. */
static int fail_links(fx_fabric *f, const char *expr, const char *tilde, const char *where,
		      const fx_snode *n, fx_diag *d)
{
	char *a = fx_xstrndup(expr, (size_t)(tilde - expr));
	uint8_t *sa = fx_xcalloc((size_t)f->nv + 1, 1), *sb = fx_xcalloc((size_t)f->nv + 1, 1);
	char wa[96], wb[96];
	snprintf(wa, sizeof wa, "%s (link end A)", where ? where : "failures");
	snprintf(wb, sizeof wb, "%s (link end B)", where ? where : "failures");
	int rc = fx_fabric_select(f, a, wa, sa, d);
	if (rc == 0)
		rc = fx_fabric_select(f, tilde + 1, wb, sb, d);
	uint8_t *dead = NULL;
	if (rc == 0) {
		dead = fx_xcalloc((size_t)f->ne + 1, 1);
		int64_t n_dead = 0;
		for (int64_t e = 0; e < f->ne; e++) {
			int64_t x = f->ends[2 * e], y = f->ends[2 * e + 1];
			dead[e] = (sa[x] && sb[y]) || (sa[y] && sb[x]);
			n_dead += dead[e];
		}
		if (n_dead == 0 && n)
			rc = fx_snode_error(d, n, "'%s' names no link: no link joins '%s' and '%s'",
					    n->path, a, tilde + 1);
		else if (n_dead == 0)
			rc = fx_diag_error(d, NULL, "%s: '%s' names no link: no link joins '%s' and '%s'",
					   where, expr, a, tilde + 1);
	}
	if (rc == 0)
		fx_fabric_fail_mark(f, NULL, dead);
	free(dead);
	free(a);
	free(sa);
	free(sb);
	return rc;
}

/* "nic=I" or "nic=LO-HI": every port of those NICs (rail-clos endpoints,
 * a composite's devices). */
static int fail_nics(fx_fabric *f, const char *expr, const char *where, const fx_snode *n,
		     fx_diag *d)
{
	const char *r = expr + 4;
	char *end;
	long lo = -1, hi = -1;
	if (*r >= '0' && *r <= '9') {
		lo = hi = strtol(r, &end, 10);
		if (*end == '-' && end[1] >= '0' && end[1] <= '9')
			hi = strtol(end + 1, &end, 10);
		if (*end)
			lo = -1;
	}
	const char *why = NULL;
	char range[96];
	snprintf(range, sizeof range, "0-%lld", (long long)(f->nnics - 1));
	if (f->nnics == 0)
		why = "names NICs, but this fabric has none (rail-clos and composite fabrics have "
		      "them; fail a link with A~B)";
	else if (lo < 0 || hi < lo)
		why = "must be nic=I or nic=LO-HI";
	else if (hi >= f->nnics)
		why = "names a NIC the fabric does not have";
	if (why) {
		if (n)
			return fx_snode_error(d, n, "'%s' %s%s%s", n->path, why, f->nnics ? ": NICs " : "",
					      f->nnics ? range : "");
		return fx_diag_error(d, NULL, "%s: '%s' %s%s%s", where ? where : "failures", expr, why,
				     f->nnics ? ": NICs " : "", f->nnics ? range : "");
	}
	uint8_t *dead = fx_xcalloc((size_t)f->ne + 1, 1);
	for (long i = lo; i <= hi; i++)
		for (int j = 0; j < f->nic_ports; j++)
			dead[f->nic_edge0 + i * f->nic_ports + j] = 1;
	fx_fabric_fail_mark(f, NULL, dead);
	free(dead);
	return 0;
}

static int fail_expr(fx_fabric *f, const char *expr, const char *where, const fx_snode *n,
		     fx_diag *d)
{
	if (strncmp(expr, "nic=", 4) == 0)
		return fail_nics(f, expr, where, n, d);
	const char *tilde = strchr(expr, '~');
	if (tilde)
		return fail_links(f, expr, tilde, where, n, d);
	uint8_t *sel = fx_xcalloc((size_t)f->nv + 1, 1);
	int rc = n ? fx_fabric_select_node(f, n, sel, d) : fx_fabric_select(f, expr, where, sel, d);
	if (rc == 0)
		fx_fabric_fail_mark(f, sel, NULL);
	free(sel);
	return rc;
}

int fx_fabric_fail(fx_fabric *f, const char *expr, const char *where, fx_diag *d)
{
	if (!fx_fabric_built(f) || !expr)
		return fx_diag_error(d, NULL, "fx_fabric_fail: no %s", expr ? "fabric (NULL, or one "
				     "whose load failed)" : "selector");
	return fail_expr(f, expr, where, NULL, d);
}

int fx_fabric_fail_node(fx_fabric *f, const fx_snode *n, fx_diag *d)
{
	if (!fx_fabric_built(f) || !n)
		return fx_diag_error(d, NULL, "fx_fabric_fail_node: no %s", n ? "fabric (NULL, or one "
				     "whose load failed)" : "selector");
	if (n->kind != FX_SNODE_SCALAR)
		return fx_snode_error(d, n, "'%s' must be a selector string such as 'node=0' or "
				      "'device=3~device=4', got %s", n->path, fx_snode_kind_name(n));
	return fail_expr(f, n->text, NULL, n, d);
}

/* Live devices reached from src over live bundles, relaying where the
 * fabric allows; marks them in mark[] with tag and returns how many. */
static int64_t reach_from(const fx_fabric *f, const int64_t *off, const int64_t *inc, int64_t src,
			  int32_t *mark, int32_t tag, int64_t *queue)
{
	int64_t head = 0, tail = 0, n = 0;
	uint8_t *seen = fx_xcalloc((size_t)f->nv + 1, 1);
	seen[src] = 1;
	queue[tail++] = src;
	while (head < tail) {
		int64_t u = queue[head++];
		if (f->v[u].type == FX_V_DEVICE && mark[u] < 0) {
			mark[u] = tag;
			n++;
		}
		if (u != src && !fx_fabric_relays(f, u))
			continue;
		for (int64_t t = off[u]; t < off[u + 1]; t++) {
			int64_t w = fx_fabric_other(f, inc[t], u);
			if (!seen[w] && fx_fabric_vertex_up(f, w)) {
				seen[w] = 1;
				queue[tail++] = w;
			}
		}
	}
	free(seen);
	return n;
}

/* v's live neighbours on a lattice (at most 2D), from plus_edge: no
 * incidence list needed. */
static int lattice_live_nbrs(const fx_fabric *f, int64_t v, int64_t *out)
{
	int n = 0, x[FX_MAX_DIMS];
	fx_fabric_coords(f, v, x);
	int64_t st = 1;
	for (int i = 0; i < f->ndims; i++) {
		int64_t e = f->plus_edge[v * f->ndims + i];
		if (e >= 0 && fx_fabric_edge_up(f, e))
			out[n++] = fx_fabric_other(f, e, v);
		/* the vertex whose + link ends at v */
		int64_t u = x[i] > 0 ? v - st : f->wrap[i] ? v + st * (f->dims[i] - 1) : -1;
		e = u >= 0 ? f->plus_edge[u * f->ndims + i] : -1;
		if (e >= 0 && fx_fabric_edge_up(f, e) && fx_fabric_other(f, e, u) == v)
			out[n++] = u;
		st *= f->dims[i];
	}
	return n;
}

#define DETOUR_LINKS 64    /* failed links checked one by one, at most */
#define DETOUR_SEEN 256    /* vertices a detour search may visit */

/* Whether b is within reach of a over live links, searching at most
 * DETOUR_SEEN vertices around a (a lattice's square detour is 3 hops). */
static int detour(const fx_fabric *f, int64_t a, int64_t b)
{
	int64_t seen[DETOUR_SEEN], nb[2 * FX_MAX_DIMS];
	int n = 0;
	seen[n++] = a;
	for (int head = 0; head < n; head++) {
		int k = lattice_live_nbrs(f, seen[head], nb);
		for (int j = 0; j < k; j++) {
			if (nb[j] == b)
				return 1;
			int known = 0;
			for (int t = 0; t < n && !known; t++)
				known = seen[t] == nb[j];
			if (known)
				continue;
			if (n == DETOUR_SEEN)
				return 0;
			seen[n++] = nb[j];
		}
	}
	return 0;
}

/*
 * A whole lattice (every vertex a relaying device, connected as built)
 * that lost links but no vertex: when each failed link's ends are still
 * joined by live links nearby, every path of the intact lattice has a
 * live replacement, so every device still reaches every other.  That
 * settles it without a search of the whole fabric and its incidence list
 * (a WSE-2 explore's failures section searched 754k PEs per failed link).
 * Returns 1 when it applies.
 */
static int lattice_still_whole(const fx_fabric *f)
{
	if (!f->plus_edge || f->nv != f->ndev || !f->devices_forward || f->ndims < 1)
		return 0;
	if (f->vdown)
		for (int64_t v = 0; v < f->nv; v++)
			if (f->vdown[v])
				return 0;
	int checked = 0;
	for (int64_t e = 0; e < f->ne; e++)
		if (!fx_fabric_edge_up(f, e) &&
		    (++checked > DETOUR_LINKS || !detour(f, f->ends[2 * e], f->ends[2 * e + 1])))
			return 0;
	return 1;
}

static int64_t mutual_sets(const fx_fabric *f, const int64_t *off, const int64_t *inc,
			   uint8_t *reach);

/* Past this many search steps (devices x (vertices + edges)) a composite's
 * joined devices are found as other fabrics' are. */
#define MUTUAL_MAX_STEPS 2e8

int64_t fx_fabric_reachable(const fx_fabric *f, uint8_t *reach)
{
	int64_t nd = f->ndev;
	if (!fx_fabric_degraded(f) || lattice_still_whole(f)) {
		for (int64_t v = 0; v < nd; v++)
			reach[v] = 1;
		return nd;
	}
	/* incidence of the live bundles */
	int64_t *off = fx_xcalloc((size_t)f->nv + 1, sizeof *off);
	int64_t *inc = fx_xmalloc((size_t)(2 * f->ne + 1) * sizeof *inc);
	for (int64_t e = 0; e < f->ne; e++)
		if (fx_fabric_edge_up(f, e)) {
			off[f->ends[2 * e] + 1]++;
			off[f->ends[2 * e + 1] + 1]++;
		}
	for (int64_t v = 0; v < f->nv; v++)
		off[v + 1] += off[v];
	int64_t *at = fx_xmalloc((size_t)(f->nv + 1) * sizeof *at);
	memcpy(at, off, (size_t)f->nv * sizeof *at);
	for (int64_t e = 0; e < f->ne; e++)
		if (fx_fabric_edge_up(f, e)) {
			inc[at[f->ends[2 * e]]++] = e;
			inc[at[f->ends[2 * e + 1]]++] = e;
		}
	free(at);
	if (f->domain_of && (double)nd * (double)(f->nv + f->ne) <= MUTUAL_MAX_STEPS) {
		int64_t n = mutual_sets(f, off, inc, reach);
		free(off);
		free(inc);
		return n;
	}
	int32_t *mark = fx_xmalloc((size_t)(nd + 1) * sizeof *mark);
	int64_t *queue = fx_xmalloc((size_t)(f->nv + 1) * sizeof *queue);
	for (int64_t v = 0; v < nd; v++)
		mark[v] = -1;
	int32_t best_tag = -1, tag = 0;
	int64_t best = 0, covered = 0;
	/* each set is searched from its first live device; a set larger than
	 * what is left unsearched cannot be beaten, so stop there */
	for (int64_t v = 0; v < nd && best < nd - covered; v++) {
		if (mark[v] >= 0 || !fx_fabric_vertex_up(f, v))
			continue;
		int64_t n = reach_from(f, off, inc, v, mark, tag, queue);
		covered += n;
		if (n > best) {
			best = n;
			best_tag = tag;
		}
		tag++;
	}
	for (int64_t v = 0; v < nd; v++)
		reach[v] = best_tag >= 0 && mark[v] == best_tag;
	free(mark);
	free(queue);
	free(off);
	free(inc);
	return best;
}

/*
 * A composite's devices do not relay, and they reach the rest of their
 * domain and the network by different links, so what one device reaches
 * is not what another does: a GPU that lost its NIC still reaches its own
 * server's GPUs, and they the other server, but it cannot.  Searching from
 * the first device would call its server the whole fabric.  Here every
 * live device is searched, and devices are dropped, the one missing the
 * most partners first, until every device left reaches every other.
 */
static int64_t mutual_sets(const fx_fabric *f, const int64_t *off, const int64_t *inc,
			   uint8_t *reach)
{
	int64_t nd = f->ndev, words = (nd + 63) / 64;
	uint64_t *m = fx_xcalloc((size_t)(nd * words + 1), sizeof *m);
	int32_t *mark = fx_xmalloc((size_t)(nd + 1) * sizeof *mark);
	int64_t *queue = fx_xmalloc((size_t)(f->nv + 1) * sizeof *queue);
	for (int64_t s = 0; s < nd; s++) {
		reach[s] = fx_fabric_vertex_up(f, s) != 0;
		if (!reach[s])
			continue;
		for (int64_t v = 0; v < nd; v++)
			mark[v] = -1;
		reach_from(f, off, inc, s, mark, 0, queue);
		for (int64_t v = 0; v < nd; v++)
			if (mark[v] == 0)
				m[s * words + v / 64] |= (uint64_t)1 << (v % 64);
	}
	int64_t *miss = fx_xmalloc((size_t)(nd + 1) * sizeof *miss);
	for (;;) {
		int64_t worst = -1;
		for (int64_t a = 0; a < nd; a++)
			miss[a] = 0;
		for (int64_t a = 0; a < nd; a++)
			for (int64_t b = a + 1; b < nd && reach[a]; b++)
				if (reach[b] && !((m[a * words + b / 64] >> (b % 64)) & 1 &&
						  (m[b * words + a / 64] >> (a % 64)) & 1)) {
					miss[a]++;
					miss[b]++;
				}
		for (int64_t a = 0; a < nd; a++)
			if (reach[a] && miss[a] > 0 && (worst < 0 || miss[a] > miss[worst]))
				worst = a;
		if (worst < 0)
			break;
		reach[worst] = 0;
	}
	int64_t n = 0;
	for (int64_t a = 0; a < nd; a++)
		n += reach[a];
	free(miss);
	free(m);
	free(mark);
	free(queue);
	return n;
}
