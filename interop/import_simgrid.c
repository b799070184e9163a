/*
 * SimGrid platform XML (v4.1) into the import graph: <host> a device,
 * <router> a switch, <link> a link, <cluster> (a star: each host's private
 * link to the cluster's router) expanded.  Zones nest: the graph is the
 * union of every zone's, and a zoneRoute between two child zones is a
 * route between its gateways (gw_src in the src zone, gw_dst in the dst
 * zone), its links joined as a route's are.
 *
 * A SimGrid link has no ends: the routes say where links meet.  A route
 * src -> dst through links l1..ln puts src at l1's tail, l(k)'s head at
 * l(k+1)'s tail and ln's head at dst (direction UP goes from a link's
 * first end to its second, DOWN back; a link_ctn without a direction goes
 * the way that continues where the route is, else UP).  The ends that
 * meet are one vertex (a union-find); a vertex no host or router names is
 * a switch the file leaves unnamed -- fabricx's own export declares no
 * switch chips, so its files read back through these.  One-link routes
 * (Floyd and Dijkstra zones have only those; Full zones with routers, as
 * SimGrid's ns-3 rule asks) are read first, so they anchor the ends.
 *
 * fabricx routes every pair over its shortest paths itself (ECMP): a
 * route longer than the shortest path is what a custom spec cannot say,
 * and is listed as lost, as are the pairs a route pins to one of several
 * shortest paths, loopback routes, links on no route, and what the
 * sharing policies mean that a full-duplex link does not.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../core/xalloc.h"
#include "import_internal.h"
#include "xml.h"

enum { SHARED_POL, SPLIT_POL, FAT_POL };
enum { SG_MAX_DEPTH = 64 };

typedef struct sg_link {
	char *id;
	double bw, lat;
	int policy;
	fx_loc loc;
	int used;    /* on a route between two different points */
} sg_link;

typedef struct sg_ctn {
	int64_t link;
	int dir;     /* -1 none, 0 UP, 1 DOWN */
	fx_loc loc;
} sg_ctn;

typedef struct sg_route {
	char *src, *dst;
	fx_loc loc, sloc, dloc;
	size_t first, n;   /* into the ctn array */
	int64_t s, t;      /* netpoints, once known */
	int full;          /* its zone routes Full (a pinned path is said lost) */
	/* a zoneRoute's zones (names, kept for after reading) and the zone it
	 * is in; -1 for a route */
	char *zsrc, *zdst;
	fx_loc zsloc, zdloc;
	int64_t in_zone;
} sg_route;

/* a <zone> or a <cluster> (SimGrid makes each cluster a zone) */
typedef struct sg_zone {
	char *id;
	int64_t parent;    /* -1: the top */
	fx_loc loc;
	int full;          /* routes Full: its routes are the paths it means */
} sg_zone;

typedef struct sg {
	fx_imp_graph *g;
	fx_diag *d;
	sg_link *l;
	size_t nl, capl;
	size_t *lindex;
	sg_ctn *c;
	size_t nc, capc;
	sg_route *r;
	size_t nr, capr;
	int64_t *uf, *np;   /* union-find over netpoints then link ends; netpoint of a root */
	size_t nuf;
	size_t fatpipe, shared, clusters;
	sg_zone *z;
	size_t nz, capz;
	size_t *zindex;    /* zones sorted by id, after reading */
	int depth;         /* zones open */
	int64_t cur;       /* the zone being read, -1 outside any */
	int cur_full;
	int64_t *vz;       /* each vertex's zone, as declared */
	size_t capvz;
	size_t nzr;        /* zoneRoutes */
	size_t nbypass;    /* bypassRoutes, bypassZoneRoutes */
	char other[160];   /* zones of routings that pick one shortest path */
	size_t nother;
} sg;

/* A quantity with SimGrid's units (xbt's parse_units: SI and binary
 * prefixes; bytes "Bps", bits "bps"; times from ps to weeks). */
static int sg_qty(const char *t, const fx_loc *at, const char *key, int bw, double *out, fx_diag *d)
{
	static const struct { const char *p; double f; } pre[] = {
		{"", 1}, {"k", 1e3}, {"M", 1e6}, {"G", 1e9}, {"T", 1e12}, {"P", 1e15}, {"E", 1e18},
		{"Ki", 1024.0}, {"Mi", 1048576.0}, {"Gi", 1073741824.0}, {"Ti", 1099511627776.0},
		{"Pi", 1125899906842624.0}, {"Ei", 1152921504606846976.0},
	};
	static const struct { const char *u; double f; } tu[] = {
		{"w", 604800}, {"d", 86400}, {"h", 3600}, {"m", 60}, {"s", 1}, {"ms", 1e-3},
		{"us", 1e-6}, {"ns", 1e-9}, {"ps", 1e-12},
	};
	char *end;
	double v = strtod(t, &end);
	if (end != t && isfinite(v) && v < 1e300 && (bw ? v > 0 : v >= 0)) {
		if (bw) {
			for (size_t i = 0; i < sizeof pre / sizeof pre[0]; i++) {
				size_t n = strlen(pre[i].p);
				if (strncmp(end, pre[i].p, n) == 0 &&
				    (strcmp(end + n, "Bps") == 0 || strcmp(end + n, "bps") == 0)) {
					*out = v * pre[i].f / (end[n] == 'b' ? 8 : 1);
					return 0;
				}
			}
		} else {
			for (size_t i = 0; i < sizeof tu / sizeof tu[0]; i++)
				if (strcmp(end, tu[i].u) == 0) {
					*out = v * tu[i].f;
					return 0;
				}
		}
	}
	return fx_diag_error(d, at, bw ? "'%s' must be a number > 0 with a unit (Bps, kBps, MBps, GBps, "
			     "bps, Gbps, GiBps...), not '%.40s'"
			     : "'%s' must be a number >= 0 with a unit (s, ms, us, ns, ps), not '%.40s'",
			     key, t);
}

static const sg *sort_sg;
static int by_link_id(const void *a, const void *b)
{
	return strcmp(sort_sg->l[*(const size_t *)a].id, sort_sg->l[*(const size_t *)b].id);
}

static int64_t link_find(const sg *s, const char *id)
{
	size_t lo = 0, hi = s->nl;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		int c = strcmp(s->l[s->lindex[mid]].id, id);
		if (c == 0)
			return (int64_t)s->lindex[mid];
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return -1;
}

static sg_link *link_new(sg *s, const char *id, fx_loc loc)
{
	if (s->nl == s->capl)
		s->l = fx_xrealloc(s->l, (s->capl = s->capl ? 2 * s->capl : 64) * sizeof *s->l);
	sg_link *l = &s->l[s->nl++];
	memset(l, 0, sizeof *l);
	l->id = fx_xstrdup(id);
	l->loc = loc;
	l->policy = SPLIT_POL;
	return l;
}

static sg_route *route_new(sg *s, const char *src, const char *dst, fx_loc loc)
{
	if (s->nr == s->capr)
		s->r = fx_xrealloc(s->r, (s->capr = s->capr ? 2 * s->capr : 64) * sizeof *s->r);
	sg_route *r = &s->r[s->nr++];
	memset(r, 0, sizeof *r);
	r->src = fx_xstrdup(src);
	r->dst = fx_xstrdup(dst);
	r->loc = r->sloc = r->dloc = loc;
	r->first = s->nc;
	r->full = s->cur_full;
	r->in_zone = -1;
	return r;
}

static int64_t zone_new(sg *s, const char *id, fx_loc loc)
{
	if (s->nz == s->capz)
		s->z = fx_xrealloc(s->z, (s->capz = s->capz ? 2 * s->capz : 16) * sizeof *s->z);
	s->z[s->nz] = (sg_zone){fx_xstrdup(id), s->cur, loc, 1};
	return (int64_t)s->nz++;
}

static const sg *sort_zones;
static int by_zone_id(const void *a, const void *b)
{
	return strcmp(sort_zones->z[*(const size_t *)a].id, sort_zones->z[*(const size_t *)b].id);
}

/* Sorts the zone ids for zone_find; an id given twice is an error. */
static int zone_index(sg *s)
{
	s->zindex = fx_xmalloc((s->nz ? s->nz : 1) * sizeof *s->zindex);
	for (size_t i = 0; i < s->nz; i++)
		s->zindex[i] = i;
	sort_zones = s;
	if (s->nz)
		qsort(s->zindex, s->nz, sizeof *s->zindex, by_zone_id);
	for (size_t i = 1; i < s->nz; i++)
		if (strcmp(s->z[s->zindex[i]].id, s->z[s->zindex[i - 1]].id) == 0) {
			size_t a = s->zindex[i] < s->zindex[i - 1] ? s->zindex[i] : s->zindex[i - 1];
			size_t b = a == s->zindex[i] ? s->zindex[i - 1] : s->zindex[i];
			return fx_diag_error(s->d, &s->z[b].loc, "zone '%.64s' is given twice (first at "
					     "line %d; a cluster is a zone)", s->z[b].id, s->z[a].loc.line);
		}
	return 0;
}

static int64_t zone_find(const sg *s, const char *id)
{
	size_t lo = 0, hi = s->nz;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		int c = strcmp(s->z[s->zindex[mid]].id, id);
		if (c == 0)
			return (int64_t)s->zindex[mid];
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return -1;
}

/* A host or router of zone `zone`. */
static int64_t sg_vertex(sg *s, const char *key, fx_loc loc, int type, int64_t zone)
{
	int64_t v = fx_imp_vertex(s->g, key, loc);
	s->g->v[v].type = type;
	if ((size_t)v >= s->capvz) {
		size_t old = s->capvz;
		s->capvz = s->capvz ? 2 * s->capvz : 256;
		while ((size_t)v >= s->capvz)
			s->capvz *= 2;
		s->vz = fx_xrealloc(s->vz, s->capvz * sizeof *s->vz);
		for (size_t i = old; i < s->capvz; i++)
			s->vz[i] = -1;
	}
	s->vz[v] = zone;
	return v;
}

/* Whether zone a is zone b or inside it. */
static int zone_within(const sg *s, int64_t a, int64_t b)
{
	for (; a >= 0; a = s->z[a].parent)
		if (a == b)
			return 1;
	return 0;
}

/* a ctn naming link id by name (resolved later) is kept as its name's
 * link index after the links are indexed; during reading, the id */
typedef struct pend_ctn {
	char *id;
	fx_loc loc;
} pend_ctn;

static void ctn_add(sg *s, int64_t link, int dir, fx_loc loc)
{
	if (s->nc == s->capc)
		s->c = fx_xrealloc(s->c, (s->capc = s->capc ? 2 * s->capc : 256) * sizeof *s->c);
	s->c[s->nc++] = (sg_ctn){link, dir, loc};
}

static int64_t uf_find(sg *s, int64_t x)
{
	while (s->uf[x] != x) {
		s->uf[x] = s->uf[s->uf[x]];
		x = s->uf[x];
	}
	return x;
}

/* Joins a and b; -1 after reporting when both name a different point. */
static int uf_join(sg *s, int64_t a, int64_t b, const sg_route *r, const sg_ctn *c)
{
	a = uf_find(s, a);
	b = uf_find(s, b);
	if (a == b)
		return 0;
	if (s->np[a] >= 0 && s->np[b] >= 0)
		return fx_diag_error(s->d, &c->loc, "the route %.64s -> %.64s puts an end of link '%.64s' "
				     "at both '%.64s' and '%.64s': the routes describe no graph",
				     r->src, r->dst, s->l[c->link].id, s->g->v[s->np[a]].key,
				     s->g->v[s->np[b]].key);
	if (a < b) {
		s->uf[b] = a;
		if (s->np[a] < 0)
			s->np[a] = s->np[b];
	} else {
		s->uf[a] = b;
		if (s->np[b] < 0)
			s->np[b] = s->np[a];
	}
	return 0;
}

/* The ends of one route joined. */
static int walk(sg *s, const sg_route *r)
{
	int64_t np = (int64_t)s->g->nv, at = r->s;
	for (size_t k = 0; k < r->n; k++) {
		const sg_ctn *c = &s->c[r->first + k];
		int64_t e0 = np + 2 * c->link, e1 = e0 + 1;
		int rev = c->dir == 1;
		if (c->dir < 0 && uf_find(s, e1) == uf_find(s, at) && uf_find(s, e0) != uf_find(s, at))
			rev = 1;
		if (uf_join(s, at, rev ? e1 : e0, r, c))
			return -1;
		at = rev ? e0 : e1;
		s->l[c->link].used = 1;
	}
	return uf_join(s, at, r->t, r, &s->c[r->first + r->n - 1]);
}

static int cluster(sg *s, const fx_xml_tok *t)
{
	fx_loc at, bl, ll;
	const char *id = fx_xml_attr(t, "id", NULL), *pre = fx_xml_attr(t, "prefix", NULL);
	const char *suf = fx_xml_attr(t, "suffix", NULL), *rad = fx_xml_attr(t, "radical", &at);
	const char *bw = fx_xml_attr(t, "bw", &bl), *lat = fx_xml_attr(t, "lat", &ll);
	const char *topo = fx_xml_attr(t, "topology", NULL);
	const char *bb = fx_xml_attr(t, "bb_bw", NULL), *pol = fx_xml_attr(t, "sharing_policy", NULL);
	if (!id || !rad || !bw || !lat)
		return fx_diag_error(s->d, &t->loc, "a <cluster> needs id, radical, bw and lat");
	if (topo && strcmp(topo, "FLAT") != 0)
		return fx_diag_error(s->d, &t->loc, "a <cluster> of topology '%.20s' is not read (only "
				     "FLAT, the star: SimGrid's own routing of the others is not "
				     "fabricx's)", topo);
	double b, l;
	if (sg_qty(bw, &bl, "bw", 1, &b, s->d) || sg_qty(lat, &ll, "lat", 0, &l, s->d))
		return -1;
	/* a zone of its own, which zoneRoutes name; its router is
	 * PREFIX ID_router SUFFIX unless router_id names it (SimGrid's
	 * src/kernel/xml/sg_platf.cpp) */
	int64_t cz = zone_new(s, id, t->loc);
	const char *rid = fx_xml_attr(t, "router_id", NULL);
	char name[256];
	if (rid && *rid)
		snprintf(name, sizeof name, "%s", rid);
	else
		snprintf(name, sizeof name, "%s%s_router%s", pre ? pre : "", id, suf ? suf : "");
	int64_t rt = sg_vertex(s, name, t->loc, 1, cz);
	/* radical: "0-99" or "0-3,8,10-11" */
	const char *p = rad;
	int64_t nh = 0;
	while (*p) {
		char *end;
		long long a = strtoll(p, &end, 10), z = a;
		if (end == p || a < 0)
			return fx_diag_error(s->d, &at, "'radical' must be ranges like 0-99 or 0-3,8, not "
					     "'%.40s'", rad);
		p = end;
		if (*p == '-') {
			z = strtoll(p + 1, &end, 10);
			if (end == p + 1 || z < a)
				return fx_diag_error(s->d, &at, "'radical' must be ranges like 0-99 or 0-3,8, "
						     "not '%.40s'", rad);
			p = end;
		}
		if (*p == ',')
			p++;
		else if (*p)
			return fx_diag_error(s->d, &at, "'radical' must be ranges like 0-99 or 0-3,8, not "
					     "'%.40s'", rad);
		if (z - a + nh > 65536)
			return fx_diag_error(s->d, &at, "'radical' gives more than 65,536 hosts");
		for (long long i = a; i <= z; i++, nh++) {
			snprintf(name, sizeof name, "%s%lld%s", pre ? pre : "", i, suf ? suf : "");
			int64_t h = sg_vertex(s, name, t->loc, 0, cz);
			snprintf(name, sizeof name, "%s_link_%lld", id, i);
			sg_link *lk = link_new(s, name, t->loc);
			lk->bw = b;
			lk->lat = l;
			lk->used = 1;
			lk->policy = pol && strcmp(pol, "SHARED") == 0 ? SHARED_POL : SPLIT_POL;
			/* the private link as a one-link route host -> router, its
			 * names resolved as a file's are */
			sg_route *r = route_new(s, s->g->v[h].key, s->g->v[rt].key, t->loc);
			ctn_add(s, (int64_t)(s->nl - 1), 0, t->loc);
			r->n = 1;
			s->c[r->first].link = -1 - (int64_t)(s->nl - 1);   /* already an index */
		}
	}
	if (bb)
		fx_imp_lose(s->g, "cluster '%s': the backbone (bb_bw %s) every flow between its hosts "
			    "shares is not a link between two vertices: its router is a switch without it",
			    id, bb);
	s->clusters++;
	return 0;
}

static int element(sg *s, const fx_xml_tok *t, sg_route **cur, pend_ctn **pc,
		   size_t *npc, size_t *cappc)
{
	fx_loc at;
	const char *nm = t->name;
	if (strcmp(nm, "host") == 0 || strcmp(nm, "router") == 0) {
		const char *id = fx_xml_attr(t, "id", NULL);
		if (!id)
			return fx_diag_error(s->d, &t->loc, "a <%s> without an id", nm);
		sg_vertex(s, id, t->loc, nm[0] == 'h' ? 0 : 1, s->cur);
		return 0;
	}
	if (strcmp(nm, "link") == 0) {
		const char *id = fx_xml_attr(t, "id", NULL);
		if (!id)
			return fx_diag_error(s->d, &t->loc, "a <link> without an id");
		sg_link *l = link_new(s, id, t->loc);
		fx_loc bl, ll, pl;
		const char *bw = fx_xml_attr(t, "bandwidth", &bl), *lat = fx_xml_attr(t, "latency", &ll);
		const char *pol = fx_xml_attr(t, "sharing_policy", &pl);
		if (!bw)
			return fx_diag_error(s->d, &t->loc, "link '%.64s' has no bandwidth", id);
		if (sg_qty(bw, &bl, "bandwidth", 1, &l->bw, s->d))
			return -1;
		l->lat = 0;
		if (lat && sg_qty(lat, &ll, "latency", 0, &l->lat, s->d))
			return -1;
		if (!pol || strcmp(pol, "SPLITDUPLEX") == 0)
			l->policy = SPLIT_POL;
		else if (strcmp(pol, "SHARED") == 0)
			l->policy = SHARED_POL;
		else if (strcmp(pol, "FATPIPE") == 0)
			l->policy = FAT_POL;
		else
			return fx_diag_error(s->d, &pl, "'sharing_policy' must be SPLITDUPLEX, SHARED or "
					     "FATPIPE, not '%.40s'", pol);
		return 0;
	}
	/* a bypass route is read as the route it replaces would be: where
	 * its links are (SimGrid takes it instead of its zone's routing) */
	int bypass = strcmp(nm, "bypassRoute") == 0 || strcmp(nm, "bypassZoneRoute") == 0 ||
		     strcmp(nm, "bypassASroute") == 0;
	int zr = strcmp(nm, "zoneRoute") == 0 || strcmp(nm, "ASroute") == 0 ||
		 strcmp(nm, "bypassZoneRoute") == 0 || strcmp(nm, "bypassASroute") == 0;
	if (strcmp(nm, "route") == 0 || strcmp(nm, "bypassRoute") == 0 || zr) {
		fx_loc sl, dl, gsl, gdl;
		const char *a = fx_xml_attr(t, "src", &sl), *b = fx_xml_attr(t, "dst", &dl);
		if (!a || !b)
			return fx_diag_error(s->d, &t->loc, "a <%s> without %s", nm, !a ? "a src" : "a dst");
		if (*cur)
			return fx_diag_error(s->d, &t->loc, "a <%s> inside a route", nm);
		sg_route *r;
		if (zr) {
			/* gateway to gateway: the links between the two zones */
			const char *ga = fx_xml_attr(t, "gw_src", &gsl), *gb = fx_xml_attr(t, "gw_dst", &gdl);
			if (!ga || !gb)
				return fx_diag_error(s->d, &t->loc, "a <%s> without %s (the netpoints its "
						     "links join)", nm, !ga ? "a gw_src" : "a gw_dst");
			if (s->cur < 0)
				return fx_diag_error(s->d, &t->loc, "a <%s> outside a zone", nm);
			r = route_new(s, ga, gb, t->loc);
			r->sloc = gsl;
			r->dloc = gdl;
			r->zsrc = fx_xstrdup(a);
			r->zdst = fx_xstrdup(b);
			r->zsloc = sl;
			r->zdloc = dl;
			r->in_zone = s->cur;
			s->nzr += !bypass;
		} else {
			r = route_new(s, a, b, t->loc);
			r->sloc = sl;
			r->dloc = dl;
		}
		s->nbypass += bypass;
		*cur = t->empty ? NULL : r;
		return 0;
	}
	if (strcmp(nm, "link_ctn") == 0) {
		if (!*cur)
			return fx_diag_error(s->d, &t->loc, "a <link_ctn> outside a <route> or <zoneRoute>");
		const char *id = fx_xml_attr(t, "id", &at);
		fx_loc dl;
		const char *dir = fx_xml_attr(t, "direction", &dl);
		if (!id)
			return fx_diag_error(s->d, &t->loc, "a <link_ctn> without an id");
		int dv = -1;
		if (dir && strcmp(dir, "UP") == 0)
			dv = 0;
		else if (dir && strcmp(dir, "DOWN") == 0)
			dv = 1;
		else if (dir && strcmp(dir, "NONE") != 0)
			return fx_diag_error(s->d, &dl, "'direction' must be UP, DOWN or NONE, not '%.40s'", dir);
		if (*npc == *cappc)
			*pc = fx_xrealloc(*pc, (*cappc = *cappc ? 2 * *cappc : 256) * sizeof **pc);
		(*pc)[(*npc)++] = (pend_ctn){fx_xstrdup(id), at};
		ctn_add(s, (int64_t)(*npc - 1), dv, at);
		(*cur)->n++;
		return 0;
	}
	if (strcmp(nm, "cluster") == 0) {
		/* its routes would move the array *cur points into */
		if (*cur)
			return fx_diag_error(s->d, &t->loc, "a <cluster> inside a <route>");
		return cluster(s, t);
	}
	if (strcmp(nm, "zone") == 0 || strcmp(nm, "AS") == 0) {
		const char *id = fx_xml_attr(t, "id", NULL);
		if (!id)
			return fx_diag_error(s->d, &t->loc, "a <%s> without an id", nm);
		if (*cur)
			return fx_diag_error(s->d, &t->loc, "a <%s> inside a route", nm);
		const char *rt = fx_xml_attr(t, "routing", &at);
		/* None: no routes of its own (its members meet the others
		 * through zoneRoutes) */
		if (rt && strcmp(rt, "Full") != 0 && strcmp(rt, "Floyd") != 0 &&
		    strcmp(rt, "Dijkstra") != 0 && strcmp(rt, "DijkstraCache") != 0 &&
		    strcmp(rt, "None") != 0)
			return fx_diag_error(s->d, &at, "'routing' %.20s is not read (Full, Floyd, "
					     "Dijkstra, DijkstraCache and None zones are: the others route "
					     "their own way)", rt);
		if (rt && strcmp(rt, "Full") != 0 && strcmp(rt, "None") != 0) {
			size_t n = strlen(s->other);
			if (s->nother++ < 4)
				snprintf(s->other + n, sizeof s->other - n, "%s'%.24s' (%s)",
					 n ? ", " : "", id, rt);
		}
		/* real platforms nest a few deep; the bound keeps a gateway's
		 * check (up its zones) short */
		if (!t->empty && s->depth >= SG_MAX_DEPTH)
			return fx_diag_error(s->d, &t->loc, "zones nested more than %d deep", SG_MAX_DEPTH);
		int64_t z = zone_new(s, id, t->loc);
		s->z[z].full = !rt || strcmp(rt, "Full") == 0;
		if (!t->empty) {
			s->depth++;
			s->cur = z;
			s->cur_full = s->z[z].full;
		}
		return 0;
	}
	if (strcmp(nm, "backbone") == 0 || strcmp(nm, "peer") == 0 || strcmp(nm, "cabinet") == 0 ||
	    strcmp(nm, "host_link") == 0 || strcmp(nm, "include") == 0)
		return fx_diag_error(s->d, &t->loc, "<%s> is not read (hosts, routers, links, routes, "
				     "zones, zoneRoutes, bypass routes and flat clusters are)", nm);
	return 0;   /* prop, disk, actor, config, trace...: not the network's */
}

/* A zoneRoute joins two zones of the zone it is in, each gateway inside
 * its zone (SimGrid's RoutedZone::add_route checks as much). */
static int zone_route_check(sg *s, const sg_route *r)
{
	const char *nm[2] = {r->zsrc, r->zdst};
	const fx_loc *zl[2] = {&r->zsloc, &r->zdloc}, *gl[2] = {&r->sloc, &r->dloc};
	int64_t gw[2] = {r->s, r->t};
	for (int k = 0; k < 2; k++) {
		int64_t z = zone_find(s, nm[k]);
		if (z < 0)
			return fx_diag_error(s->d, zl[k], "the zoneRoute's %s '%.64s' is no zone's or "
					     "cluster's id", k ? "dst" : "src", nm[k]);
		if (s->z[z].parent != r->in_zone)
			return fx_diag_error(s->d, zl[k], "the zoneRoute's %s '%.64s' is not a zone of "
					     "'%.64s', where the zoneRoute is", k ? "dst" : "src", nm[k],
					     s->z[r->in_zone].id);
		if (!zone_within(s, s->vz[gw[k]], z))
			return fx_diag_error(s->d, gl[k], "the zoneRoute's %s '%.64s' is not in zone "
					     "'%.64s'", k ? "gw_dst" : "gw_src", s->g->v[gw[k]].key, nm[k]);
	}
	return 0;
}

/* Hop counts from one vertex (BFS) and whether several shortest paths
 * reach each vertex. */
static void bfs(const int64_t *off, const int64_t *adj, size_t nv, int64_t s, int64_t *dist,
		uint8_t *many, int64_t *queue)
{
	for (size_t i = 0; i < nv; i++) {
		dist[i] = -1;
		many[i] = 0;
	}
	size_t h = 0, q = 0;
	dist[s] = 0;
	queue[q++] = s;
	while (h < q) {
		int64_t u = queue[h++];
		for (int64_t k = off[u]; k < off[u + 1]; k++) {
			int64_t w = adj[k];
			if (dist[w] < 0) {
				dist[w] = dist[u] + 1;
				many[w] = many[u];
				queue[q++] = w;
			} else if (dist[w] == dist[u] + 1) {
				many[w] = 1;
			}
		}
	}
}

/* Routes checked against shortest paths: the lost-list says which differ. */
static void check_routes(sg *s)
{
	fx_imp_graph *g = s->g;
	size_t nv = g->nv;
	int64_t *deg = fx_xcalloc(nv + 1, sizeof *deg);
	for (size_t i = 0; i < g->nl; i++) {
		deg[g->l[i].a + 1]++;
		deg[g->l[i].b + 1]++;
	}
	for (size_t i = 0; i < nv; i++)
		deg[i + 1] += deg[i];
	int64_t *adj = fx_xmalloc((size_t)(deg[nv] ? deg[nv] : 1) * sizeof *adj);
	int64_t *fill = fx_xmalloc((nv ? nv : 1) * sizeof *fill);
	memcpy(fill, deg, nv * sizeof *fill);
	for (size_t i = 0; i < g->nl; i++) {
		adj[fill[g->l[i].a]++] = g->l[i].b;
		adj[fill[g->l[i].b]++] = g->l[i].a;
	}
	/* routes bucketed by source: one BFS each */
	size_t *cnt = fx_xcalloc(nv + 1, sizeof *cnt), *ord = fx_xmalloc((s->nr ? s->nr : 1) * sizeof *ord);
	for (size_t i = 0; i < s->nr; i++)
		if (s->r[i].s >= 0 && s->r[i].s != s->r[i].t)
			cnt[s->r[i].s + 1]++;
	for (size_t i = 0; i < nv; i++)
		cnt[i + 1] += cnt[i];
	size_t *pos = fx_xmalloc((nv ? nv : 1) * sizeof *pos);
	memcpy(pos, cnt, nv * sizeof *pos);
	for (size_t i = 0; i < s->nr; i++)
		if (s->r[i].s >= 0 && s->r[i].s != s->r[i].t)
			ord[pos[s->r[i].s]++] = i;
	int64_t *dist = fx_xmalloc((nv ? nv : 1) * sizeof *dist), *queue = fx_xmalloc((nv ? nv : 1) * sizeof *queue);
	uint8_t *many = fx_xmalloc(nv ? nv : 1);
	size_t longer = 0, pinned = 0;
	char ex[3][200];
	for (size_t v = 0; v < nv; v++) {
		if (cnt[v + 1] == cnt[v])
			continue;
		bfs(deg, adj, nv, (int64_t)v, dist, many, queue);
		for (size_t k = cnt[v]; k < cnt[v + 1]; k++) {
			const sg_route *r = &s->r[ord[k]];
			if (dist[r->t] >= 0 && (int64_t)r->n > dist[r->t]) {
				if (longer < 3)
					snprintf(ex[longer], sizeof ex[0], "%.40s -> %.40s (line %d: %zu links, "
						 "the shortest path %lld)", r->src, r->dst, r->loc.line, r->n,
						 (long long)dist[r->t]);
				longer++;
			} else if (many[r->t] && r->full) {
				pinned++;
			}
		}
	}
	if (longer)
		fx_imp_lose(g, "%zu routes are longer than the shortest path, which fabricx takes "
			    "(it routes shortest paths itself, ECMP): %s%s%s%s%s%s", longer, ex[0],
			    longer > 1 ? ", " : "", longer > 1 ? ex[1] : "", longer > 2 ? ", " : "",
			    longer > 2 ? ex[2] : "", longer > 3 ? ", ..." : "");
	if (pinned)
		fx_imp_lose(g, "%zu routes pin one of several shortest paths; fabricx divides those "
			    "pairs' flows over all of them (ECMP; its --routing hash pins one too)",
			    pinned);
	free(deg);
	free(adj);
	free(fill);
	free(cnt);
	free(ord);
	free(pos);
	free(dist);
	free(queue);
	free(many);
}

int fx_import_simgrid(const char *file, const char *text, size_t len, fx_imp_graph *g, fx_diag *d)
{
	fx_xml x;
	fx_xml_init(&x, file, text, len, d);
	fx_xml_tok t = {0};
	sg s = {.g = g, .d = d, .cur = -1, .cur_full = 1};
	pend_ctn *pc = NULL;
	size_t npc = 0, cappc = 0;
	sg_route *cur = NULL;
	int rc = 0, seen_root = 0;
	g->devices_relay = g->cpus_relay = -1;
	while ((rc = fx_xml_next(&x, &t)) == 0 && t.kind != FX_XML_EOF) {
		if (t.kind == FX_XML_TEXT) {
			if (!fx_xml_text_only(t.text)) {
				rc = fx_diag_error(d, &t.loc, "text in a platform file (SimGrid's elements "
						   "carry their values in attributes)");
				break;
			}
			continue;
		}
		if (t.kind == FX_XML_END) {
			if (strcmp(t.name, "route") == 0 || strcmp(t.name, "zoneRoute") == 0 ||
			    strcmp(t.name, "ASroute") == 0 || strncmp(t.name, "bypass", 6) == 0)
				cur = NULL;
			else if ((strcmp(t.name, "zone") == 0 || strcmp(t.name, "AS") == 0) && s.cur >= 0) {
				s.cur = s.z[s.cur].parent;
				s.depth--;
				s.cur_full = s.cur < 0 || s.z[s.cur].full;
			}
			continue;
		}
		if (!seen_root) {
			if (strcmp(t.name, "platform") != 0) {
				rc = fx_diag_error(d, &t.loc, "the root element is <%.40s>, not <platform>: not "
						   "a SimGrid platform file", t.name);
				break;
			}
			fx_loc vl;
			const char *ver = fx_xml_attr(&t, "version", &vl);
			if (ver && strtod(ver, NULL) < 4) {
				rc = fx_diag_error(d, &vl, "'version' %.20s: this reads version 4 files "
						   "(SimGrid's simgrid_update_xml upgrades older ones)", ver);
				break;
			}
			seen_root = 1;
			continue;
		}
		if ((rc = element(&s, &t, &cur, &pc, &npc, &cappc)) != 0)
			break;
	}
	if (rc == 0 && !seen_root)
		rc = fx_diag_error(d, &t.loc, "no <platform> in the file");
	/* names: netpoints, links */
	if (rc == 0)
		rc = fx_imp_index(g, d);
	if (rc == 0) {
		s.lindex = fx_xmalloc((s.nl ? s.nl : 1) * sizeof *s.lindex);
		for (size_t i = 0; i < s.nl; i++)
			s.lindex[i] = i;
		sort_sg = &s;
		if (s.nl)
			qsort(s.lindex, s.nl, sizeof *s.lindex, by_link_id);
		for (size_t i = 1; i < s.nl && rc == 0; i++)
			if (strcmp(s.l[s.lindex[i]].id, s.l[s.lindex[i - 1]].id) == 0) {
				size_t a = s.lindex[i] < s.lindex[i - 1] ? s.lindex[i] : s.lindex[i - 1];
				size_t b = a == s.lindex[i] ? s.lindex[i - 1] : s.lindex[i];
				rc = fx_diag_error(d, &s.l[b].loc, "link '%.64s' is given twice (first at line %d)",
						   s.l[b].id, s.l[a].loc.line);
			}
	}
	if (rc == 0)
		rc = zone_index(&s);
	for (size_t i = 0; i < s.nc && rc == 0; i++) {
		if (s.c[i].link < 0) {   /* a cluster's, already an index */
			s.c[i].link = -1 - s.c[i].link;
			continue;
		}
		const pend_ctn *p = &pc[s.c[i].link];
		s.c[i].link = link_find(&s, p->id);
		if (s.c[i].link < 0)
			rc = fx_diag_error(d, &p->loc, "link_ctn names link '%.64s', which no <link> declares",
					   p->id);
	}
	size_t loops = 0;
	for (size_t i = 0; i < s.nr && rc == 0; i++) {
		sg_route *r = &s.r[i];
		r->s = fx_imp_find(g, r->src);
		r->t = fx_imp_find(g, r->dst);
		if (r->s < 0 || r->t < 0)
			rc = fx_diag_error(d, r->s < 0 ? &r->sloc : &r->dloc, "the %s's %s '%.64s' is no "
					   "<host>'s or <router>'s id", r->zsrc ? "zoneRoute" : "route",
					   r->zsrc ? (r->s < 0 ? "gw_src" : "gw_dst") : (r->s < 0 ? "src" : "dst"),
					   r->s < 0 ? r->src : r->dst);
		else if (r->n == 0)
			rc = fx_diag_error(d, &r->loc, "the route %.64s -> %.64s holds no link_ctn", r->src,
					   r->dst);
		loops += r->s == r->t;
		if (rc == 0 && r->zsrc)
			rc = zone_route_check(&s, r);
	}
	/* ends joined: one-link routes first (they say where a link is) */
	size_t np = g->nv;
	if (rc == 0) {
		s.nuf = np + 2 * s.nl;
		s.uf = fx_xmalloc((s.nuf ? s.nuf : 1) * sizeof *s.uf);
		s.np = fx_xmalloc((s.nuf ? s.nuf : 1) * sizeof *s.np);
		for (size_t i = 0; i < s.nuf; i++) {
			s.uf[i] = (int64_t)i;
			s.np[i] = i < np ? (int64_t)i : -1;
		}
	}
	for (int pass = 0; pass < 2 && rc == 0; pass++)
		for (size_t i = 0; i < s.nr && rc == 0; i++)
			if (s.r[i].s != s.r[i].t && (s.r[i].n == 1) == (pass == 0))
				rc = walk(&s, &s.r[i]);
	if (rc == 0 && s.nzr)
		fx_imp_lose(g, "%zu zoneRoutes read as links between their gateways: SimGrid routes "
			    "between zones through those gateways (inside each zone, then gateway to "
			    "gateway); fabricx takes shortest paths over the whole graph", s.nzr);
	if (rc == 0 && s.nbypass)
		fx_imp_lose(g, "%zu bypass routes, which SimGrid takes instead of its zones' routing, "
			    "read for where their links are: fabricx takes shortest paths", s.nbypass);
	if (rc == 0 && s.nother)
		fx_imp_lose(g, "zones %s%s: SimGrid routes each pair on one shortest path; fabricx "
			    "divides a pair's flows over all of them (ECMP)", s.other,
			    s.nother > 4 ? ", ..." : "");
	if (rc == 0 && loops)
		fx_imp_lose(g, "%zu loopback routes (a host to itself) are not links between two vertices: "
			    "left out", loops);
	/* vertices: the netpoints, then every other meeting point of ends */
	int64_t *vert = NULL;
	size_t unnamed = 0, unused = 0, selfl = 0;
	if (rc == 0) {
		vert = fx_xmalloc((s.nuf ? s.nuf : 1) * sizeof *vert);
		for (size_t i = 0; i < s.nuf; i++)
			vert[i] = -1;
		for (size_t i = 0; i < np; i++)
			vert[uf_find(&s, (int64_t)i)] = (int64_t)i;
		for (size_t l = 0; l < s.nl; l++)
			for (int e = 0; s.l[l].used && e < 2; e++) {
				int64_t root = uf_find(&s, (int64_t)(np + 2 * l + (size_t)e));
				if (vert[root] == -1)
					vert[root] = -2 - (int64_t)unnamed++;
			}
		/* names no host or router has, all picked before any is added
		 * (fx_imp_find's index covers the netpoints only) */
		char (*nm)[32] = fx_xmalloc((unnamed ? unnamed : 1) * sizeof *nm);
		long long jn = 0;
		for (size_t i = 0; i < unnamed; i++) {
			do
				snprintf(nm[i], sizeof nm[i], "switch%lld", jn++);
			while (fx_imp_find(g, nm[i]) >= 0);
		}
		for (size_t i = 0; i < unnamed; i++)
			fx_imp_vertex(g, nm[i], (fx_loc){file, 1, 1});
		free(nm);
		for (size_t i = np; i < g->nv; i++)
			g->v[i].type = 1;
		for (size_t i = 0; i < s.nuf; i++)
			if (vert[i] <= -2)
				vert[i] = (int64_t)np + (-2 - vert[i]);
		if (unnamed)
			fx_imp_assume(g, "assumed: %zu points where the routes join links and no host or "
				      "router is named are switches (switch0...)", unnamed);
		char ids[160] = "";
		for (size_t l = 0; l < s.nl; l++) {
			if (!s.l[l].used) {
				/* the first few named, so the user finds them */
				size_t n = strlen(ids), k = strlen(s.l[l].id);
				if (unused < 4 && n + k + 5 < sizeof ids) {
					if (n) {
						memcpy(ids + n, ", ", 2);
						n += 2;
					}
					ids[n] = '\'';
					memcpy(ids + n + 1, s.l[l].id, k);
					memcpy(ids + n + 1 + k, "'", 2);
				}
				unused++;
				continue;
			}
			int64_t a = vert[uf_find(&s, (int64_t)(np + 2 * l))];
			int64_t b = vert[uf_find(&s, (int64_t)(np + 2 * l + 1))];
			if (a == b) {
				selfl++;
				continue;
			}
			fx_imp_link *k = fx_imp_link_add(g, a < b ? a : b, a < b ? b : a, s.l[l].loc);
			k->bw = s.l[l].bw;
			k->lat = s.l[l].lat;
			s.fatpipe += s.l[l].policy == FAT_POL;
			s.shared += s.l[l].policy == SHARED_POL;
		}
		if (unused)
			fx_imp_lose(g, "%zu links on no route between two different points (their ends are "
				    "unknown) are left out: %s%s", unused, ids, unused > 4 ? ", ..." : "");
		if (selfl)
			fx_imp_lose(g, "%zu links whose routes put both ends at one vertex are left out", selfl);
		if (s.shared)
			fx_imp_lose(g, "%zu SHARED links: SimGrid divides their bandwidth between both "
				    "directions; a fabricx link has it in each direction", s.shared);
		if (s.fatpipe)
			fx_imp_lose(g, "%zu FATPIPE links: SimGrid gives every flow the whole bandwidth; a "
				    "fabricx link divides it between the flows", s.fatpipe);
		rc = fx_imp_index(g, d);
	}
	if (rc == 0)
		check_routes(&s);
	free(vert);
	for (size_t i = 0; i < npc; i++)
		free(pc[i].id);
	free(pc);
	for (size_t i = 0; i < s.nl; i++)
		free(s.l[i].id);
	free(s.l);
	free(s.lindex);
	free(s.c);
	for (size_t i = 0; i < s.nr; i++) {
		free(s.r[i].src);
		free(s.r[i].dst);
		free(s.r[i].zsrc);
		free(s.r[i].zdst);
	}
	for (size_t i = 0; i < s.nz; i++)
		free(s.z[i].id);
	free(s.z);
	free(s.zindex);
	free(s.vz);
	free(s.r);
	free(s.uf);
	free(s.np);
	fx_xml_tok_release(&t);
	return rc;
}
