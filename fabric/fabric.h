/*
 * fabric: interconnect fabrics built from specs, stored as igraph graphs.
 *
 * A fabric is an undirected igraph multigraph plus parallel arrays that
 * describe each vertex and each edge:
 *
 *   - vertices 0 .. ndev-1 are the devices (accelerators), in device order;
 *     switches and CPUs follow.  "The first N devices" always means vertex
 *     ids 0 .. N-1.
 *   - each edge is a bundle of `count` identical physical links between two
 *     vertices; bandwidth is per link and per direction, latency per hop.
 *     Directed link ids used by routing are 2*e (from the lower vertex id to
 *     the higher) and 2*e+1 (the other way).
 *   - the packaging hierarchy (node, rack) and switch planes are per vertex;
 *     -1 means "not assigned".
 *
 * Builders live in a registry (fabric/registry.c), one per `fabric.kind`.
 * Each parses its keys into a params struct, sizes the fabric without
 * allocating (so too-large fabrics are refused up front with an estimate),
 * then wires it.  The entry also carries what the rest of fabricx needs to
 * know about the kind (its router family, device noun, shrink rule and
 * FX_KIND_* capabilities), and the fabric keeps the kind's own state in a
 * typed union, so no code outside fabric/ compares kind names.
 *
 * Ownership: fx_fabric_build() fills a caller-provided fx_fabric, which the
 * caller releases with fx_fabric_release().  The fabric copies what it needs
 * from the spec and does not borrow from it afterwards.
 */
#ifndef FX_FABRIC_H
#define FX_FABRIC_H

#include <igraph.h>
#include <stdint.h>

#include "../core/diag.h"
#include "../core/xalloc.h"
#include "../spec/spec.h"

#define FX_MAX_DIMS 8
#define FX_MAX_ROLES 8
#define FX_HOPS_MAX 64

typedef enum fx_vtype { FX_V_DEVICE = 0, FX_V_SWITCH, FX_V_CPU } fx_vtype;

typedef enum fx_medium {
	FX_MEDIUM_COPPER = 0,  /* electrical: PCB traces, backplane, copper cable */
	FX_MEDIUM_OPTICAL,     /* pluggable or co-packaged optics */
	FX_MEDIUM_SILICON,     /* on-wafer or on-package wires */
	FX_MEDIUMS
} fx_medium;

typedef struct fx_vertex {
	uint8_t type;   /* fx_vtype */
	int8_t role;    /* switch role (index into fx_fabric.roles), -1 otherwise */
	int32_t node;   /* packaging node (server, tray, board) or -1 */
	int32_t rack;   /* rack or -1 */
	int32_t plane;  /* switch plane or -1 */
	int32_t index;  /* index among vertices of the same type */
} fx_vertex;

typedef struct fx_link {
	double bw;      /* bytes per second, per direction, per physical link */
	double lat;     /* seconds per hop */
	int32_t count;  /* parallel physical links in this bundle */
	uint8_t medium; /* fx_medium */
	int8_t tier;    /* link class: 0 = device links, 1 = first switch tier up, ... */
	/* 1: a link of a composite's scale-out network, its NIC links
	 * included (fabric/topo_composite.c); the rounds that cross one
	 * take collective.network_overhead */
	uint8_t scale_out;
	/* routing weight (a custom graph's per-link `cost`; 0 and 1 both mean
	 * 1): ECMP takes the least-cost paths, hop counts where all are 1
	 * (routing/route_cost.c) */
	uint8_t cost;
} fx_link;

/* A class of switch chips sharing a radix, e.g. "L1" and "L2" of a UB fabric. */
typedef struct fx_role {
	char name[24];
	int radix;      /* ports per chip */
	int tier;       /* 1 = nearest the devices */
	char radix_key[32]; /* the fabric key that sets the radix, for errors */
	int64_t count;      /* chips of this role */
	int64_t first;      /* switch index (fx_vertex.index) of the first one */
} fx_role;

/* Link parameters as written in a spec: {bandwidth, latency, medium}. */
typedef struct fx_linkspec {
	double bw;
	double lat;
	fx_medium medium;
} fx_linkspec;

/* Counts known before building; bytes is the estimated memory. */
typedef struct fx_fabric_size {
	int64_t devices, switches, cpus;
	int64_t edges;   /* link bundles (igraph edges) */
	double bytes;
} fx_fabric_size;

struct fx_builder;

/* The router family of a kind.  fabric/ only names it; routing/ maps each
 * family to its router in one table, so a new family is added there and a
 * kind left without one (FX_ROUTER_NONE) fails the registry test. */
typedef enum fx_router_family {
	FX_ROUTER_NONE = 0,   /* not set: a registry error */
	FX_ROUTER_DOR,        /* dimension-order on a lattice */
	FX_ROUTER_ECMP,       /* ECMP over relay-aware shortest paths */
	FX_ROUTER_DRAGONFLY,  /* dragonfly groups: minimal, Valiant or UGAL */
	FX_ROUTER_FAMILIES
} fx_router_family;

/* Capabilities of a kind (fx_builder.caps). */
enum {
	/* devices form a lattice: ndims, dims, wrap and plus_edge are set */
	FX_KIND_LATTICE = 1u << 0,
	/* a wafer of processing elements: fx_fabric.state.wafer holds its
	 * PLMR figures, and the wafer collectives run on it */
	FX_KIND_WAFER = 1u << 1,
	/* the open mesh kind (no wrap unless asked): a ring over every device
	 * of a 2-D mesh snakes through the grid (routing/coll_ring.c) */
	FX_KIND_MESH = 1u << 2,
	/* an explicit graph, routed by shortest-path searches with no
	 * structure to exploit, so a collective's routing work is counted
	 * before it runs (routing/collective.c) and small rings and trees
	 * are laid over its wires */
	FX_KIND_EXPLICIT = 1u << 3,
	/* chips of one role, and links of one tier, are not all alike with
	 * respect to the canonical split (a dragonfly's routers hold global
	 * links to different groups), so no one of them stands for the rest
	 * (cli/failures.c evaluates every chip) */
	FX_KIND_UNEVEN = 1u << 4,
};

/* A smaller build of the same fabric, in whole increments of its kind, as
 * the `--set` overrides that build it (so `metrics --set ...` reproduces
 * it).  Filled by a builder's shrink hook. */
#define FX_SHRINK_MAX_SETS 4
typedef struct fx_shrink {
	int nsets;
	char set[FX_SHRINK_MAX_SETS][128];  /* KEY=VALUE */
	int64_t devices;                    /* devices of the smaller build */
	char rule[128];                     /* the kind's increment, or why it cannot shrink */
} fx_shrink;

/*
 * Per-kind state: the sizes a builder keeps for naming, its bisection
 * formula and its shrink rule, and the wafer's PLMR figures that routing
 * reads.  fx_fabric.state holds the one of its kind; read the wafer's
 * through fx_fabric_wafer(), which checks the kind.
 */
typedef struct fx_fattree_state {
	int64_t tiers;
	int64_t d1, u1;    /* leaf ports down (hosts) and up */
	int64_t d2, u2;    /* three tiers: leaves per pod, aggregation uplinks */
	int64_t spines;    /* two tiers: spine chips */
} fx_fattree_state;

typedef struct fx_nvswitch_state {
	int64_t nodes;     /* NVLink domains */
	int64_t devices;   /* GPUs per domain */
	int64_t switches;  /* NVSwitch chips per domain */
	int64_t spines;    /* second-tier chips (0: one tier) */
	int64_t cpus;      /* CPUs per domain */
} fx_nvswitch_state;

typedef struct fx_ub_state {
	int64_t nodes, devices_per_node, planes, l2_per_plane, cpus_per_node;
} fx_ub_state;

typedef struct fx_railclos_state {
	int64_t servers, rails, per_leaf, planes, tiers;
	int64_t up;           /* leaf uplinks */
	int64_t spines;       /* per plane (two tiers) or per pod (three) */
	int64_t sus_per_pod, spine_up;
} fx_railclos_state;

/* composite: `domains` copies of a scale-up domain kind joined by a
 * scale-out network through the devices' NICs (fabric/topo_composite.c). */
typedef struct fx_composite_state {
	const struct fx_builder *domain, *network;  /* the tiers' kinds */
	int64_t domains;          /* scale-up domains */
	int64_t devices;          /* devices per domain */
	int64_t nics_per_device;
	int64_t network_hosts;    /* host ports the network was built with */
} fx_composite_state;
/*
 * dragonfly (topo_dragonfly.c; Kim, Dally, Scott and Abts, ISCA 2008): g
 * groups joined by global links, m between every pair of groups.  A group
 * has `edge` switches holding p devices each.  Complete groups (leaves 0):
 * the edge switches are its a routers, every two joined by one local link,
 * each holding h global links.  Leaf-spine groups (Dragonfly+, Shpiner et
 * al. 2017): `edge` = leaves leaves, each linked once to each of the a
 * spines, which hold the h global links each.  Vertex order: the devices
 * (device d on edge switch d / p, counted over all groups), then group by
 * group its edge switches, then its spines.  Global port j of a group (0 ..
 * a h - 1, on its global switch j / h) leads to the group o(j) = j mod (g -
 * 1) + 1 further round (the "relative" arrangement), so rotating the groups
 * is an automorphism: every group is alike.
 */
typedef struct fx_dragonfly_state {
	int64_t p, a, h, g;
	int64_t leaves;    /* leaf-spine groups: leaves per group; 0: complete groups */
	int64_t edge;      /* edge switches per group: leaves, or a */
	int64_t m;         /* global links between each pair of groups: a h / (g - 1) */
} fx_dragonfly_state;

/* slimfly (topo_slimfly.c; Besta and Hoefler, SC'14): the McKay-Miller-Siran
 * graph of the prime power q = 4w + delta: 2 q^2 routers of network degree
 * (3q - delta)/2, p devices each.  Router (s, x, y) is vertex ndev + (s q +
 * x) q + y for s in {0, 1} and x, y elements of GF(q) numbered 0 .. q-1. */
typedef struct fx_slimfly_state {
	int64_t q, p, delta, degree;
} fx_slimfly_state;

/* hyperx (topo_hyperx.c; Ahn, Binkert, Davis, McLaren and Schreiber, SC'09):
 * routers at the points of an L-dimensional lattice of widths s[k], every
 * two that differ in one coordinate k joined by k_links[k] links; t devices
 * per router.  Router r (coordinates r = x0 + s0 (x1 + s1 (x2 ...))) is
 * vertex ndev + r and holds devices r t .. r t + t - 1. */
typedef struct fx_hyperx_state {
	int ndims;
	int64_t s[FX_MAX_DIMS], k_links[FX_MAX_DIMS];
	int64_t t, routers;
} fx_hyperx_state;

/* wafer-mesh (PLMR model, WaferLLM): per-PE memory, software routing stage
 * latency (beta) and router table entries per PE; dies: the die (reticle)
 * grid along x and y when the spec gives one (0 0: not given), which only
 * drawings read (fx_wafer_die). */
typedef struct fx_wafer_state {
	double pe_memory, routing_latency;
	int64_t routes_per_pe;
	int dies[2];
} fx_wafer_state;

typedef struct fx_fabric {
	char *name;                 /* spec name */
	const struct fx_builder *builder;
	igraph_t g;
	int64_t nv, ne;             /* vertices, edges (bundles) */
	int64_t ndev, nsw, ncpu;
	fx_vertex *v;               /* [nv] */
	fx_link *e;                 /* [ne] */
	fx_role roles[FX_MAX_ROLES];
	int nroles;
	double max_bytes;           /* the run's memory limit (--max-memory), which
				 * what is built on the fabric later (schedules,
				 * MILPs, drawings) is held to as well; 0 = none */
	int64_t nnodes, nracks;     /* packaging units that hold devices */
	int64_t rack_devices;       /* devices per rack when packaging.nodes_per_rack
				 * is not given (a dragonfly's groups); 0: one rack */
	/* Lattice kinds (torus, mesh, wafer-mesh): device v has coordinates
	 * v = x0 + d0*(x1 + d1*(x2 ...)); plus_edge[v*ndims+i] is the edge to
	 * the +1 neighbour in dimension i, or -1 at a mesh boundary. */
	int ndims;
	int dims[FX_MAX_DIMS];
	int wrap[FX_MAX_DIMS];
	int64_t *plus_edge;
	/* Every device is equivalent to every other under an automorphism of
	 * the fabric, so distances from device 0 stand for all devices. */
	int device_transitive;
	/* Devices relay traffic for others (direct fabrics: torus, mesh, wafer,
	 * custom graphs).  In switched fabrics only switches forward. CPUs never
	 * forward. */
	int devices_forward;
	int cpus_forward;           /* custom graphs: any vertex may relay */
	/* What the kind keeps beyond the graph: only the member of
	 * f->builder's kind is live (fx_fabric_wafer() checks it). */
	union {
		fx_fattree_state fattree;
		fx_nvswitch_state nvswitch;
		fx_ub_state ub;
		fx_wafer_state wafer;
		fx_railclos_state railclos;
		fx_composite_state composite;
		fx_dragonfly_state dragonfly;
		fx_slimfly_state slimfly;
		fx_hyperx_state hyperx;
	} state;
	/* NICs, on kinds that have them (rail-clos endpoints, a composite's
	 * devices): NIC i's ports are bundles nic_edge0 + i*nic_ports ..
	 * + nic_ports - 1, one per network plane; nnics 0: no NICs.  `--fail
	 * nic=I` fails them (fabric/fail.c). */
	int64_t nic_edge0, nnics;
	int nic_ports;
	/* Composite fabrics: each vertex's scale-up domain, -1 for the
	 * scale-out network's switches (NULL elsewhere).  The domains are
	 * alike and their devices run domain by domain: domain k holds
	 * devices k*n .. k*n + n-1, n = ndev / ndomains.  Routing keeps a
	 * flow between two devices of one domain inside the domain
	 * (routing/route.c), and hop counts measure it there. */
	int32_t *domain_of;
	int64_t ndomains;
	char **names;               /* custom fabrics: vertex names; else NULL */
	char **groups;              /* custom fabrics: vertex group or NULL */
	/* Edge endpoints: ends[2e] < ends[2e+1].  Directed link 2e runs from
	 * the lower id to the higher, 2e+1 back. */
	igraph_integer_t *ends;
	size_t capv, cape;          /* builder scratch: allocated sizes */
	/* Failed elements (--fail, the spec's `failures:`; fabric/fail.c):
	 * vdown[v] a failed vertex, edown[e] a failed bundle (a failed
	 * vertex fails every bundle it ends).  Both NULL while nothing has
	 * failed; routers, hop counts and cuts skip what they mark. */
	uint8_t *vdown, *edown;
	/* packaging.nodes_per_power_domain: nodes sharing a power supply
	 * (0: not given); vertex v's domain is node / this. */
	int64_t nodes_per_power;
	/* fabric.ocs (a torus of rack_shape cubes joined through optical
	 * circuit switches, topo_lattice.c): the switches, the ports each
	 * uses, their radix and the cube; ocs_switches 0: none. */
	int64_t ocs_switches, ocs_ports, ocs_radix;
	int ocs_cube[FX_MAX_DIMS];
} fx_fabric;

/* One entry of the builder registry. */
typedef struct fx_builder {
	const char *kind;
	const char *summary;
	size_t params_size;
	/* Reads the kind's keys from the `fabric` map into params. */
	int (*parse)(fx_diag *d, const fx_snode *fabric, void *params);
	/* Counts vertices and edges without allocating. */
	void (*size)(const void *params, fx_fabric_size *sz);
	/* Wires the fabric (vertices, edges, roles) with the fx_fb_* helpers. */
	int (*build)(const void *params, fx_fabric *f, fx_diag *d);
	/* Frees arrays inside params (may be NULL). */
	void (*release)(void *params);
	/* Writes a readable name for vertex v (may be NULL for the default). */
	void (*vertex_name)(const fx_fabric *f, int64_t v, char *buf, size_t len);
	/* Assigns each device to side 0 or 1 of the canonical bisection and
	 * returns 1 when that split is proven minimal, 2 when it is only a
	 * balanced split that bounds the bisection (a lattice whose bounds do
	 * not meet), or 0 when this fabric has no canonical balanced split
	 * (custom graphs): a heuristic is used instead. */
	int (*halves)(const fx_fabric *f, uint8_t *side);
	/* Closed-form bandwidth (bytes/s per direction) and physical links of
	 * the canonical bisection, checked against igraph's max-flow; returns
	 * -1 when no formula applies (may be NULL). */
	double (*bisection)(const fx_fabric *f, double *links);
	/* The largest build of at most max_devices devices in whole increments
	 * of the kind (fab is the spec's `fabric` map); 0, or -1 when the kind
	 * cannot shrink this fabric (out->rule says why).  NULL: cannot shrink. */
	int (*shrink)(const fx_fabric *f, const fx_snode *fab, int64_t max_devices, fx_shrink *out);
	/* Hop counts between the devices of the intact fabric in closed form,
	 * or from the kind's own structure (searches from a few devices that
	 * stand for all): hist[h] ordered pairs of distinct devices h hops
	 * apart for h < *nhist (at most FX_HOPS_MAX), one farthest pair in
	 * far[0], far[1], and *how says how.  0, or -1 when no formula applies
	 * (routing/ searches instead).  NULL: none. */
	int (*hops)(const fx_fabric *f, double *hist, int *nhist, int64_t far[2], const char **how);
	/* Candidate automorphisms of the kind's structure (a lattice's
	 * reflections and shifts, a fat-tree's rotations of alike parts):
	 * offer(ctx, perm) for each, perm[nv] the image of each vertex.
	 * fx_fabric_orbits checks every one (fabric/orbit.c), so a wrong
	 * candidate costs only precision.  May be NULL. */
	void (*symmetries)(const struct fx_fabric *f, void (*offer)(void *ctx, const int64_t *perm),
			   void *ctx);
	/* How the kind routes: routing/ maps the family to its router. */
	fx_router_family router;
	/* What a device is called in drawings ("GPU", "PE"); NULL: from the
	 * vertex names (custom graphs name their own). */
	const char *device_noun;
	/* FX_KIND_* flags that other code asks instead of comparing names. */
	unsigned caps;
} fx_builder;

/* The registry: every kind, in documentation order; NULL-terminated. */
extern const fx_builder *const fx_builders[];
const fx_builder *fx_builder_find(const char *kind);

/* Does the fabric's kind have capability cap (FX_KIND_*)? */
static inline int fx_fabric_is(const struct fx_fabric *f, unsigned cap)
{
	return f->builder && (f->builder->caps & cap) == cap;
}
/* Which of k dies along a dimension of n PEs holds coordinate x: the dies
 * split the grid as evenly as whole PEs allow, die i holding
 * ceil(i n / k) .. ceil((i + 1) n / k) - 1 (fx_wafer_die_lo), so 757 PEs
 * in 7 dies are 109 + 6 x 108. */
static inline int fx_wafer_die(int64_t x, int64_t n, int k)
{
	return (int)(x * k / n);
}

static inline int64_t fx_wafer_die_lo(int i, int64_t n, int k)
{
	return ((int64_t)i * n + k - 1) / k;
}

/* The wafer's PLMR figures, or NULL when the fabric is not a wafer. */
static inline const fx_wafer_state *fx_fabric_wafer(const struct fx_fabric *f)
{
	return fx_fabric_is(f, FX_KIND_WAFER) ? &f->state.wafer : NULL;
}
/* The kind's name for a device ("GPU", "NPU", "chip", "PE"), else the
 * letters of device 0's name in capitals when they are 2 or 3 ("gpu0" of a
 * custom graph: "GPU"), else "device". */
const char *fx_fabric_device_noun(const fx_fabric *f, char *buf, size_t len);

/* Installs fabricx's igraph handlers: an igraph error comes back as a
 * return code with igraph's temporaries freed (its default handler aborts
 * the program, ARPACK failing to converge included), and warnings print
 * nothing (fabricx reports what matters itself).  Every program using the
 * library calls it once, before anything else; the handlers are global to
 * igraph, so this is the program's choice, not the library's. */
void fx_igraph_quiet(void);

/* For igraph calls that fail only when memory runs out (vector and matrix
 * init and resize; incidence, neighbours and BFS from a valid vertex):
 * fx_xmalloc's policy, die.  igraph's error handler returns instead of
 * aborting (fx_igraph_quiet), so an unchecked failure would leave silently
 * wrong numbers; calls that can fail on their input are checked and
 * reported. */
static inline void fx_igraph_alloc(igraph_error_t err)
{
	if (err != IGRAPH_SUCCESS)
		fx_xalloc_failed();
}

/* Builds the fabric described by spec.  max_bytes > 0 refuses fabrics whose
 * estimated memory exceeds it.  On failure f is released (zeroed). */
int fx_fabric_build(fx_fabric *f, const fx_spec *spec, double max_bytes, fx_diag *d);
void fx_fabric_release(fx_fabric *f);
/* 1 when f holds a whole fabric fx_fabric_build built; 0 for NULL, a
 * zeroed, released or failed one.  Every function that takes a fabric
 * checks this first and fails (-1 with a diagnostic) on 0. */
int fx_fabric_built(const fx_fabric *f);

/* Name of vertex v ("gpu3", "L2.p4.7", "(1,2,3)"); "?" when v is not one
 * of f's vertices. */
const char *fx_fabric_vertex_name(const fx_fabric *f, int64_t v, char *buf, size_t len);
const char *fx_vtype_name(fx_vtype t);
const char *fx_medium_name(fx_medium m);
/* Fills out with the largest build of at most max_devices devices in the
 * kind's whole increments (no overrides when the fabric already fits);
 * -1 when the kind cannot shrink it (out->rule says why). */
int fx_fabric_shrink(const fx_fabric *f, const fx_spec *spec, int64_t max_devices, fx_shrink *out);
/* Appends one KEY=VALUE override to a shrink (builders' helper). */
void fx_shrink_set(fx_shrink *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Physical links (bundles weighted by count). */
int64_t fx_fabric_links(const fx_fabric *f);
/* Ports in use on vertex v (sum of link counts); -1 when v is not one of
 * f's vertices. */
int64_t fx_fabric_ports(const fx_fabric *f, int64_t v);
/* Ports and bandwidth of the busiest chip of a switch role, split down
 * (towards devices and lower tiers) and up. */
typedef struct fx_role_stat {
	int64_t chips, min_ports, max_ports, down, up;
	double down_bw, up_bw;  /* bytes/s per direction, summed over the ports */
} fx_role_stat;
void fx_fabric_role_stats(const fx_fabric *f, fx_role_stat stats[FX_MAX_ROLES]);
/* May traffic between two other vertices pass through v? */
static inline int fx_fabric_relays(const fx_fabric *f, int64_t v)
{
	switch ((fx_vtype)f->v[v].type) {
	case FX_V_SWITCH: return 1;
	case FX_V_DEVICE: return f->devices_forward;
	default: return f->cpus_forward;
	}
}
/* The directed link id for crossing edge e out of vertex `from`. */
static inline int64_t fx_fabric_dirlink(const fx_fabric *f, int64_t e, int64_t from)
{
	return f->ends[2 * e] == from ? 2 * e : 2 * e + 1;
}
/* The other end of edge e. */
static inline int64_t fx_fabric_other(const fx_fabric *f, int64_t e, int64_t v)
{
	return f->ends[2 * e] == v ? f->ends[2 * e + 1] : f->ends[2 * e];
}
/* ---- failed elements (fabric/fail.c) ---- */

/* Has anything failed? */
static inline int fx_fabric_degraded(const fx_fabric *f)
{
	return f->edown != NULL;
}
/* Is bundle e (vertex v) up? */
static inline int fx_fabric_edge_up(const fx_fabric *f, int64_t e)
{
	return !f->edown || !f->edown[e];
}
static inline int fx_fabric_vertex_up(const fx_fabric *f, int64_t v)
{
	return !f->vdown || !f->vdown[v];
}
/* Power domain of vertex v, or -1 (no node, or no power domains). */
static inline int64_t fx_fabric_power_domain(const fx_fabric *f, int64_t v)
{
	return f->nodes_per_power > 0 && f->v[v].node >= 0 ? f->v[v].node / f->nodes_per_power : -1;
}
/*
 * Fails what a selector names: the vertices fx_fabric_select picks (with
 * every bundle they end), or, for "A~B", the bundles between the vertices
 * A picks and those B picks (e.g. "device=3~device=4", a link of a ring).
 * Adds to what has already failed.  0, or -1 after reporting (where names
 * the option).
 */
int fx_fabric_fail(fx_fabric *f, const char *expr, const char *where, fx_diag *d);
/* The same for a selector in a spec value (`failures:` items). */
int fx_fabric_fail_node(fx_fabric *f, const fx_snode *n, fx_diag *d);
/* Fails the vertices sel[v] marks (and their bundles), or bundles dead[e]
 * marks; either may be NULL. */
void fx_fabric_fail_mark(fx_fabric *f, const uint8_t *sel, const uint8_t *dead);
/* Restores the intact fabric. */
void fx_fabric_fail_clear(fx_fabric *f);
/* A copy of the failure state, to put back with fx_fabric_fail_restore
 * (which frees the copy). */
typedef struct fx_fail_saved {
	uint8_t *vdown, *edown;
} fx_fail_saved;
void fx_fabric_fail_save(const fx_fabric *f, fx_fail_saved *s);
void fx_fabric_fail_restore(fx_fabric *f, fx_fail_saved *s);
/* The domains alone (composite fabrics): a shallow copy of f that shares
 * its arrays, with every scale-out link (fx_link.scale_out) failed on top
 * of f's own failures, so that routers and searches on it stay inside
 * each domain.  Release it with fx_fabric_domain_view_release (which
 * frees only the masks); never with fx_fabric_release. */
void fx_fabric_domain_view(const fx_fabric *f, fx_fabric *view);
void fx_fabric_domain_view_release(fx_fabric *view);
/* Failed vertices and failed physical links (bundles weighted by count). */
void fx_fabric_fail_counts(const fx_fabric *f, int64_t *vertices, int64_t *links);
/*
 * The devices the degraded fabric still joins: reach[d] = 1 for each live
 * device of the largest set of live devices that reach one another over
 * live bundles (through vertices that relay), 0 for failed devices and
 * those cut off.  Returns how many are reached.  Time complexity: O(V + E)
 * per set found (one set on an intact or barely damaged fabric).
 */
int64_t fx_fabric_reachable(const fx_fabric *f, uint8_t *reach);

/* ---- symmetry, proven (fabric/orbit.c) ---- */

/* A partition of some vertices into blocks an automorphism must map onto
 * blocks, permuting them as it likes (the canonical split's two sides, a
 * placement's instances, the nodes): of[v] in 0 .. n-1, or -1 for none. */
typedef struct fx_blocks {
	const int64_t *of;  /* [nv] */
	int64_t n;
} fx_blocks;

#define FX_ORBIT_MAX_BLOCKS 4
/* Auxiliary vertices (vertices + bundles + blocks) past which igraph's
 * automorphism search is not tried, leaving the kind's own candidates
 * (fx_builder.symmetries): bliss took 0.8 s on a k=16 fat-tree's 4.4k,
 * 18 s and 430 MB on a k=24's 14.5k, 74 s and 2.3 GB on a k=32's 34k. */
#define FX_ORBIT_BLISS_VERTICES 6000

/*
 * Whether perm (a permutation of the vertices) is an automorphism of f:
 * each vertex keeps its type, role and failure state; edge_map (the image
 * of each bundle; NULL: derived by sorting, O(E log E)) maps the bundles
 * one to one onto bundles joining the images of their ends with the same
 * bandwidth, count and state; each block system maps onto itself, its
 * image of block j into block_map[k][j] when block_map is not NULL.
 * Returns 1 or 0.  O(V + E) with edge_map given.
 */
int fx_fabric_automorphism(const fx_fabric *f, const int64_t *perm, const int64_t *edge_map,
			   const fx_blocks *blocks, int nblocks, int64_t **block_map);
/* The image of each bundle under perm, as fx_fabric_automorphism derives
 * it when given none (bundles sorted by their ends' images, bandwidth,
 * count and state, parallel alike bundles paired in id order) into
 * edge_map[ne]; 1 when the bundles and their images are the same multiset
 * (perm still to be checked), else 0.  O(E log E). */
int fx_fabric_edge_images(const fx_fabric *f, const int64_t *perm, int64_t *edge_map);

/* Orbits under the automorphisms found and each checked with
 * fx_fabric_automorphism (the kind's own candidates, fx_builder.symmetries,
 * and up to FX_ORBIT_BLISS_VERTICES igraph's automorphism group):
 * vertex[v], edge[e] and block[k][j] are the least member of the orbit.
 * With no symmetry found every element is its own orbit, so an orbit is
 * never wider than the truth.  Release with fx_orbits_release. */
typedef struct fx_orbits {
	int64_t *vertex;                        /* [nv] */
	int64_t *edge;                          /* [ne] */
	int64_t *block[FX_ORBIT_MAX_BLOCKS];    /* [blocks[k].n] */
	int64_t verified, rejected;             /* candidates kept, refused */
	const char *method;                     /* where the candidates came from */
} fx_orbits;
int fx_fabric_orbits(const fx_fabric *f, const fx_blocks *blocks, int nblocks, fx_orbits *o);
void fx_orbits_release(fx_orbits *o);

/* Links a full mesh of the devices would need: n(n-1)/2. */
int64_t fx_fabric_full_mesh_links(const fx_fabric *f);
/* Coordinates of lattice device v into x[ndims]. */
void fx_fabric_coords(const fx_fabric *f, int64_t v, int *x);

/*
 * Vertex selection for user-given cuts: "node=0-23", "rack=1", "plane=0",
 * "device=0-31", "x=0-3,y=0-1" (lattice coordinates; also d0, d1, ...).
 * Terms joined by ',' must all hold.  Sets sel[v] = 1 for each vertex that
 * matches.  Returns 0, or -1 after reporting through d (where names the option).
 */
int fx_fabric_select(const fx_fabric *f, const char *expr, const char *where, uint8_t *sel,
		     fx_diag *d);
/* The same for a selector held in a spec value: errors name its dotted key
 * at its position. */
int fx_fabric_select_node(const fx_fabric *f, const fx_snode *n, uint8_t *sel, fx_diag *d);

/*
 * Slices (the chapter "Supernodes" §6.5.4): the most disjoint blocks of
 * shape[ndims] chips (any axis order; across the wrap on a torus) that fit
 * the idle devices of a lattice, up to `jobs`, written to out[] with their
 * count in *found.  It seeks at most the idle chips over a block's (a
 * count no placement beats), and is exhaustive: 0 when decided (fewer than
 * `jobs` found is then proven), -1 when it ran out of max_steps first.
 */
typedef struct fx_slice {
	int origin[FX_MAX_DIMS], extent[FX_MAX_DIMS];
} fx_slice;
int fx_lattice_slices(const fx_fabric *f, const uint8_t *idle, const int *shape, int jobs,
		      long max_steps, fx_slice *out, int *found);

/* Physical RAM of this machine in bytes (used for the default size limit). */
double fx_fabric_default_limit(void);

/* ---- helpers for builders (fabric/build.c) ---- */

/* Parses a link map {bandwidth, latency, medium}; latency may be left out
 * (and then must not be given) when with_latency is 0. */
int fx_linkspec_parse(fx_diag *d, const fx_snode *map, int with_latency, fx_linkspec *out);
/* Parses the link map under `key` of map (required). */
int fx_linkspec_get(fx_diag *d, const fx_snode *map, const char *key, int with_latency,
		    fx_linkspec *out);
/* A tiered kind's links: `link` (every tier) or `tier_links`, one map per
 * tier, `first` naming the lowest ("host-leaf"), into link[0 .. 2]; tiers
 * above the last given repeat it.  Not both, not neither. */
int fx_fb_tier_links(fx_diag *d, const fx_snode *fab, int64_t tiers, const char *first,
		     fx_linkspec link[3]);
/* Registers a switch role whose radix comes from fabric key radix_key;
 * returns its index. */
int fx_fb_role(fx_fabric *f, const char *name, int radix, int tier, const char *radix_key);
/* Appends a vertex and returns its id. */
int64_t fx_fb_vertex(fx_fabric *f, fx_vtype t, int role, int64_t node, int64_t plane);
/* Appends an edge of `count` parallel links; returns its id. */
int64_t fx_fb_link(fx_fabric *f, int64_t a, int64_t b, const fx_linkspec *ls,
		   int count, int tier);
/* The canonical bisection of fabrics whose device order runs node by node
 * (or pod by pod): the first half of the devices against the second. */
int fx_fb_halves_by_index(const fx_fabric *f, uint8_t *side);
/* Candidate k (0, 1, ...) of the moves of n alike units (nodes, pods) in
 * device order for fx_builder.symmetries, into map[n]: turns of each half
 * of the canonical split (fx_fb_halves_by_index) by each divisor of n/2,
 * so that nodes of racks or power domains may stay together; the halves'
 * swap; a turn of all by one.  0 past the last. */
int fx_fb_unit_turn(int64_t n, int k, int64_t *map);
/* Wires an n-dimensional lattice of devices (torus, mesh, wafer). */
void fx_fb_lattice(fx_fabric *f, int ndims, const int64_t *dims, const int *wrap,
		   const fx_linkspec *ls, int count);

#endif
