/*
 * composite: scale-up domains joined by a scale-out network through the
 * devices' NICs (issue 27; the chapter "Supernodes" §6.5.1's two HGX
 * servers, §6.7.4's eight).
 *
 *   domains: K     copies of the domain
 *   domain: {...}  a fabric map of any kind but composite and wafer-mesh
 *                  (nvswitch, ub, torus, mesh, custom, ...), built once
 *                  and instantiated K times
 *   network: {...} a fabric map of a switched kind (fat-tree, rail-clos,
 *                  ...) whose hosts are the NICs; it may have more hosts
 *                  than there are NICs (their ports stay idle)
 *   nics: {per_device: n, link: {...}, hosts: [...]}
 *                  NIC q of device j of domain k is network host
 *                  k*D*n + hosts[j*n + q] (hosts: by default j*n + q), so
 *                  in a rail-clos of D*n rails device j's NIC joins rail j
 *                  of its own server; `link` replaces the network's host
 *                  links (every port of every NIC), else they are kept
 *
 * Both tiers are built by their own registry entries (parse, size, build)
 * and copied in: devices domain by domain (device j of domain k is
 * k*D + j), then the domains' switches role by role, the network's
 * switches, the domains' CPUs.  A network host's links become its NIC's
 * links, bundle for bundle, so a chip's ports are what its own kind
 * wires.  Links of the network and the NICs carry fx_link.scale_out, the
 * domains' roles and link tiers stay as their kind sets them and the
 * network's stack on top.  fx_fabric.domain_of says which domain each
 * vertex is in: routing keeps flows inside a domain there.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../core/xalloc.h"
#include "fabric.h"

typedef struct comp_params {
	int64_t domains, per_device;
	const fx_builder *db, *nb;
	void *dparams, *nparams;
	int have_link;
	fx_linkspec nic_link;
	int64_t *hosts;         /* [devices x per_device] or NULL */
	size_t nhosts;
	const fx_snode *fab, *hosts_node;
} comp_params;

static int parse(fx_diag *d, const fx_snode *fab, void *params);

/* The tier's builder, or an error naming what the key may hold. */
static const fx_builder *tier_builder(fx_diag *d, const fx_snode *map, int network)
{
	const char *kind;
	if (fx_spec_str(d, map, "kind", &kind))
		return NULL;
	const fx_builder *b = fx_builder_find(kind);
	const fx_snode *k = fx_snode_get(map, "kind");
	if (!b) {
		fx_snode_error(d, k, "'%s' names no fabric kind: '%s' (see 'fabricx kinds')", k->path, kind);
		return NULL;
	}
	if (b->parse == parse) {
		fx_snode_error(d, k, "'%s' cannot be composite: a composite's %s is one fabric", k->path,
			       network ? "network" : "domain");
		return NULL;
	}
	if (b->caps & FX_KIND_WAFER) {
		fx_snode_error(d, k, "'%s' cannot be %s: a wafer is not a tier of a composite", k->path,
			       kind);
		return NULL;
	}
	return b;
}

static int parse_tier(fx_diag *d, const fx_snode *fab, const char *key, int network,
		      const fx_builder **b, void **params)
{
	const fx_snode *m;
	if (fx_spec_map(d, fab, key, 1, &m))
		return -1;
	if (!(*b = tier_builder(d, m, network)))
		return -1;
	*params = fx_xcalloc(1, (*b)->params_size);
	return (*b)->parse(d, m, *params);
}

static int parse_nics(fx_diag *d, const fx_snode *fab, comp_params *p)
{
	static const char *const keys[] = {"per_device", "link", "hosts", NULL};
	const fx_snode *n;
	p->per_device = 1;
	if (fx_spec_map(d, fab, "nics", 0, &n))
		return -1;
	if (!n)
		return 0;
	int rc = fx_spec_keys(d, n, keys) |
		 fx_spec_int_opt(d, n, "per_device", 1, 64, &p->per_device);
	if (fx_snode_get(n, "link")) {
		p->have_link = 1;
		rc |= fx_linkspec_get(d, n, "link", 1, &p->nic_link);
		p->nic_link.medium = fx_snode_get(fx_snode_get(n, "link"), "medium")
					     ? p->nic_link.medium : FX_MEDIUM_OPTICAL;
	}
	if (rc == 0 && (p->hosts_node = fx_snode_get(n, "hosts")))
		rc = fx_spec_int_list(d, n, "hosts", 0, INT32_MAX, &p->hosts, &p->nhosts);
	return rc;
}

static int parse(fx_diag *d, const fx_snode *fab, void *params)
{
	static const char *const keys[] = {"kind", "domains", "domain", "network", "nics", NULL};
	comp_params *p = params;
	p->fab = fab;
	int rc = fx_spec_keys(d, fab, keys);
	rc |= fx_spec_int(d, fab, "domains", 1, 1 << 20, &p->domains);
	if (rc)
		return -1;
	if (parse_tier(d, fab, "domain", 0, &p->db, &p->dparams) ||
	    parse_tier(d, fab, "network", 1, &p->nb, &p->nparams) || parse_nics(d, fab, p))
		return -1;
	return 0;
}

static void size(const void *params, fx_fabric_size *sz)
{
	const comp_params *p = params;
	fx_fabric_size a = {0}, b = {0};
	p->db->size(p->dparams, &a);
	p->nb->size(p->nparams, &b);
	sz->devices = p->domains * a.devices;
	sz->switches = p->domains * a.switches + b.switches;
	sz->cpus = p->domains * a.cpus + b.cpus;
	sz->edges = p->domains * a.edges + b.edges;
}

/* One tier built alone by its own builder: vertices, edges and roles
 * (no graph, packaging or checks; the composite's build checks the whole). */
static int part_build(const fx_builder *b, const void *params, fx_fabric *part, fx_diag *d)
{
	memset(part, 0, sizeof *part);
	return b->build(params, part, d);
}

static void part_release(fx_fabric *part)
{
	part->builder = NULL;  /* no graph was made */
	fx_fabric_release(part);
}

static int max_tier(const fx_fabric *f, int links)
{
	int t = 0;
	if (links) {
		for (int64_t e = 0; e < f->ne; e++)
			if (f->e[e].tier > t)
				t = f->e[e].tier;
	} else {
		for (int r = 0; r < f->nroles; r++)
			if (f->roles[r].tier > t)
				t = f->roles[r].tier;
	}
	return t;
}

/* The network host of NIC i (in NIC order: device-major, then its NICs). */
static int64_t host_of(const comp_params *p, int64_t per_domain, int64_t i)
{
	int64_t k = i / per_domain, slot = i % per_domain;
	return k * per_domain + (p->hosts ? p->hosts[slot] : slot);
}

static int check_hosts(const comp_params *p, int64_t per_domain, fx_diag *d)
{
	if (!p->hosts)
		return 0;
	if ((int64_t)p->nhosts != per_domain)
		return fx_snode_error(d, p->hosts_node, "'%s' must list %lld hosts, one per NIC of a "
				      "domain (%lld devices x %lld NICs)", p->hosts_node->path,
				      (long long)per_domain, (long long)(per_domain / p->per_device),
				      (long long)p->per_device);
	uint8_t *seen = fx_xcalloc((size_t)per_domain, 1);
	int rc = 0;
	for (size_t i = 0; i < p->nhosts && rc == 0; i++) {
		if (p->hosts[i] >= per_domain || seen[p->hosts[i]])
			rc = fx_snode_error(d, p->hosts_node->items[i], "'%s' must be a host of the domain's "
					    "block, 0 to %lld, each once: a permutation, got %lld",
					    p->hosts_node->items[i]->path, (long long)(per_domain - 1),
					    (long long)p->hosts[i]);
		else
			seen[p->hosts[i]] = 1;
	}
	free(seen);
	return rc;
}

/* Role r of part, renamed when the other tier already has one so called. */
static int copy_role(fx_fabric *f, const fx_fabric *part, int r, int tier_base, const char *prefix)
{
	char name[24], key[32];
	snprintf(name, sizeof name, "%s", part->roles[r].name);
	for (int q = 0; q < f->nroles; q++)
		if (strcmp(f->roles[q].name, name) == 0)
			snprintf(name, sizeof name, "net-%.19s", part->roles[r].name);
	snprintf(key, sizeof key, "%s.%.20s", prefix, part->roles[r].radix_key);
	return fx_fb_role(f, name, part->roles[r].radix, tier_base + part->roles[r].tier,
			  part->roles[r].radix_key[0] ? key : "");
}

static int build(const void *params, fx_fabric *f, fx_diag *d)
{
	const comp_params *p = params;
	fx_fabric dom, net;
	if (part_build(p->db, p->dparams, &dom, d))
		return -1;
	if (part_build(p->nb, p->nparams, &net, d)) {
		part_release(&dom);
		return -1;
	}
	const fx_snode *netmap = fx_snode_get(p->fab, "network");
	int64_t K = p->domains, D = dom.ndev, per_domain = D * p->per_device, N = K * per_domain;
	int rc = check_hosts(p, per_domain, d);
	if (rc == 0 && net.devices_forward)
		rc = fx_snode_error(d, fx_snode_get(netmap, "kind"), "'%s.kind' must be a switched kind "
				    "(fat-tree, rail-clos, ...): a %s's devices relay traffic, so its "
				    "hosts cannot stand for NICs", netmap->path, p->nb->kind);
	if (rc == 0 && net.ncpu)
		rc = fx_snode_error(d, netmap, "'%s' has %lld CPUs: a scale-out network's vertices are "
				    "its hosts (the NICs) and switches", netmap->path, (long long)net.ncpu);
	if (rc == 0 && N > net.ndev)
		rc = fx_snode_error(d, netmap, "'%s' has %lld host ports, but the %lld NICs (%lld domains "
				    "x %lld devices x %lld NICs, 'fabric.nics.per_device') need one each",
				    netmap->path, (long long)net.ndev, (long long)N, (long long)K,
				    (long long)D, (long long)p->per_device);
	/* every host's links, in edge order, and the hosts each network edge ends */
	int64_t *hoff = NULL, *hedge = NULL;
	if (rc == 0) {
		hoff = fx_xcalloc((size_t)net.ndev + 1, sizeof *hoff);
		for (int64_t e = 0; e < net.ne && rc == 0; e++) {
			int64_t a = net.ends[2 * e], b = net.ends[2 * e + 1];
			if (a < net.ndev && b < net.ndev)
				rc = fx_snode_error(d, netmap, "'%s' links host %lld to host %lld: a NIC "
						    "reaches the network through switches only", netmap->path,
						    (long long)a, (long long)b);
			else if (a < net.ndev)
				hoff[a + 1]++;
		}
		for (int64_t h = 0; h < net.ndev; h++)
			hoff[h + 1] += hoff[h];
		hedge = fx_xmalloc((size_t)(hoff[net.ndev] + 1) * sizeof *hedge);
		int64_t *fill = fx_xcalloc((size_t)net.ndev + 1, sizeof *fill);
		for (int64_t e = 0; e < net.ne; e++)
			if (net.ends[2 * e] < net.ndev) {
				int64_t h = net.ends[2 * e];
				hedge[hoff[h] + fill[h]++] = e;
			}
		free(fill);
	}
	int64_t *dmap = NULL, *nmap = NULL;
	int dnodes = 0;
	if (rc == 0) {
		for (int64_t v = 0; v < dom.nv; v++)
			if (dom.v[v].node + 1 > dnodes)
				dnodes = dom.v[v].node + 1;
		dmap = fx_xmalloc((size_t)(K * dom.nv) * sizeof *dmap);
		nmap = fx_xmalloc((size_t)net.nv * sizeof *nmap);
		/* roles: the domain's, then the network's above them */
		int drole[FX_MAX_ROLES], nrole[FX_MAX_ROLES];
		if (dom.nroles + net.nroles > FX_MAX_ROLES)
			rc = fx_snode_error(d, p->fab, "'%s' has %d switch roles in its two tiers, more "
					    "than the %d fabricx keeps", p->fab->path, dom.nroles + net.nroles,
					    FX_MAX_ROLES);
		for (int r = 0; r < dom.nroles && rc == 0; r++)
			drole[r] = copy_role(f, &dom, r, 0, "domain");
		int base = max_tier(&dom, 0);
		for (int r = 0; r < net.nroles && rc == 0; r++)
			nrole[r] = copy_role(f, &net, r, base, "network");
		/* devices, domain by domain */
		for (int64_t k = 0; k < K && rc == 0; k++)
			for (int64_t v = 0; v < D; v++) {
				int64_t node = dom.v[v].node >= 0 ? k * (dnodes ? dnodes : 1) + dom.v[v].node : k;
				dmap[k * dom.nv + v] = fx_fb_vertex(f, FX_V_DEVICE, -1, node, -1);
			}
		/* the domains' switches, role by role (so each role's chips are
		 * contiguous), then the network's */
		for (int r = 0; r < dom.nroles && rc == 0; r++)
			for (int64_t k = 0; k < K; k++)
				for (int64_t v = D; v < dom.nv; v++)
					if (dom.v[v].type == FX_V_SWITCH && dom.v[v].role == r)
						dmap[k * dom.nv + v] = fx_fb_vertex(
							f, FX_V_SWITCH, drole[r],
							dom.v[v].node >= 0 ? k * (dnodes ? dnodes : 1) + dom.v[v].node : -1,
							dom.v[v].plane);
		for (int r = 0; r < net.nroles && rc == 0; r++)
			for (int64_t v = net.ndev; v < net.nv; v++)
				if (net.v[v].type == FX_V_SWITCH && net.v[v].role == r)
					nmap[v] = fx_fb_vertex(f, FX_V_SWITCH, nrole[r], -1, net.v[v].plane);
		for (int64_t k = 0; k < K && rc == 0; k++)
			for (int64_t v = D; v < dom.nv; v++)
				if (dom.v[v].type == FX_V_CPU)
					dmap[k * dom.nv + v] = fx_fb_vertex(
						f, FX_V_CPU, -1,
						dom.v[v].node >= 0 ? k * (dnodes ? dnodes : 1) + dom.v[v].node : k, -1);
		/* a switch without a role cannot be placed (no kind builds one) */
		for (int64_t v = 0; v < dom.nv && rc == 0; v++)
			if (dom.v[v].type == FX_V_SWITCH && dom.v[v].role < 0)
				rc = fx_diag_internal(d, "composite: a domain switch has no role");
		for (int64_t v = net.ndev; v < net.nv && rc == 0; v++)
			if (net.v[v].role < 0)
				rc = fx_diag_internal(d, "composite: a network switch has no role");
	}
	if (rc == 0) {
		/* the domains' links, domain by domain */
		for (int64_t k = 0; k < K; k++)
			for (int64_t e = 0; e < dom.ne; e++) {
				const fx_link *l = &dom.e[e];
				fx_linkspec ls = {l->bw, l->lat, (fx_medium)l->medium};
				fx_fb_link(f, dmap[k * dom.nv + dom.ends[2 * e]],
					   dmap[k * dom.nv + dom.ends[2 * e + 1]], &ls, l->count, l->tier);
			}
		int ltier = max_tier(&dom, 1) + 1;
		/* NIC links, NIC by NIC: host h's links become its NIC's */
		f->nic_edge0 = f->ne;
		f->nnics = N;
		f->nic_ports = N ? (int)(hoff[host_of(p, per_domain, 0) + 1] - hoff[host_of(p, per_domain, 0)]) : 0;
		for (int64_t i = 0; i < N; i++) {
			int64_t h = host_of(p, per_domain, i), dev = i / p->per_device;
			if (hoff[h + 1] - hoff[h] != f->nic_ports)
				f->nic_ports = -1;  /* uneven: no nic= selector */
			for (int64_t t = hoff[h]; t < hoff[h + 1]; t++) {
				int64_t e = hedge[t];
				const fx_link *l = &net.e[e];
				fx_linkspec ls = {l->bw, l->lat, (fx_medium)l->medium};
				int64_t x = fx_fb_link(f, dev, nmap[net.ends[2 * e + 1]],
						       p->have_link ? &p->nic_link : &ls, l->count,
						       ltier + l->tier);
				f->e[x].scale_out = 1;
			}
		}
		if (f->nic_ports < 0)
			f->nnics = f->nic_ports = 0;
		/* the network's own links */
		for (int64_t e = 0; e < net.ne; e++) {
			if (net.ends[2 * e] < net.ndev)
				continue;
			const fx_link *l = &net.e[e];
			fx_linkspec ls = {l->bw, l->lat, (fx_medium)l->medium};
			int64_t x = fx_fb_link(f, nmap[net.ends[2 * e]], nmap[net.ends[2 * e + 1]], &ls,
					       l->count, ltier + l->tier);
			f->e[x].scale_out = 1;
		}
		f->domain_of = fx_xmalloc((size_t)(f->nv ? f->nv : 1) * sizeof *f->domain_of);
		for (int64_t v = 0; v < f->nv; v++)
			f->domain_of[v] = -1;
		for (int64_t k = 0; k < K; k++)
			for (int64_t v = 0; v < dom.nv; v++)
				f->domain_of[dmap[k * dom.nv + v]] = (int32_t)k;
		f->ndomains = K;
		f->devices_forward = dom.devices_forward;
		f->cpus_forward = dom.cpus_forward;
		f->state.composite = (fx_composite_state){
			.domain = p->db, .network = p->nb, .domains = K, .devices = D,
			.nics_per_device = p->per_device, .network_hosts = net.ndev,
		};
	}
	free(hoff);
	free(hedge);
	free(dmap);
	free(nmap);
	part_release(&dom);
	part_release(&net);
	return rc;
}

static void release(void *params)
{
	comp_params *p = params;
	if (p->db && p->dparams && p->db->release)
		p->db->release(p->dparams);
	if (p->nb && p->nparams && p->nb->release)
		p->nb->release(p->nparams);
	free(p->dparams);
	free(p->nparams);
	free(p->hosts);
}

/* Devices by the domain kind's noun ("gpu12"); chips by role. */
static void vname(const fx_fabric *f, int64_t v, char *buf, size_t len)
{
	const fx_vertex *x = &f->v[v];
	if (x->type == FX_V_DEVICE) {
		const char *noun = f->state.composite.domain->device_noun;
		char low[16];
		size_t i = 0;
		for (; noun && noun[i] && i + 1 < sizeof low; i++)
			low[i] = (char)(noun[i] >= 'A' && noun[i] <= 'Z' ? noun[i] - 'A' + 'a' : noun[i]);
		low[i] = '\0';
		snprintf(buf, len, "%s%d", i ? low : "device", x->index);
	} else if (x->type == FX_V_CPU) {
		snprintf(buf, len, "cpu%d", x->index);
	} else {
		const fx_role *r = &f->roles[x->role];
		snprintf(buf, len, "%s.%lld", r->name, (long long)(x->index - r->first));
	}
}

/* The first half of the domains against the rest (a domain split in two
 * when their number is odd): a balanced split whose max-flow bounds the
 * bisection; no closed form is claimed (a cheaper split could cut a
 * domain whose own wiring is thin). */
static int halves(const fx_fabric *f, uint8_t *side)
{
	return fx_fb_halves_by_index(f, side) ? 2 : 0;
}

/* A tier alone (the map at key of fab), built to ask its shrink rule;
 * 0, or -1 when it does not build (then nothing is asked). */
static int part_alone(const fx_builder *b, const fx_snode *map, fx_fabric *part, void **params)
{
	fx_diag quiet;
	fx_diag_init(&quiet);
	quiet.max_shown = 0;
	*params = fx_xcalloc(1, b->params_size);
	memset(part, 0, sizeof *part);
	int rc = !map || b->parse(&quiet, map, *params) || part_build(b, *params, part, &quiet) ? -1 : 0;
	fx_diag_release(&quiet);
	return rc;
}

static void part_alone_release(const fx_builder *b, fx_fabric *part, void *params)
{
	part_release(part);
	if (b->release)
		b->release(params);
	free(params);
}

/* Appends a tier's overrides under fabric.<tier>. */
static void nest_sets(fx_shrink *out, const fx_shrink *in, const char *tier)
{
	for (int i = 0; i < in->nsets; i++)
		fx_shrink_set(out, "fabric.%s.%s", tier,
			      strncmp(in->set[i], "fabric.", 7) == 0 ? in->set[i] + 7 : in->set[i]);
}

/*
 * Shrinks by whole domains, or, with one domain, by the domain kind's own
 * rule (a UB supernode by whole nodes); the network shrinks with them by
 * its own rule to the smallest of its builds that still gives every NIC a
 * host port (a network that cannot shrink stays whole, its extra ports
 * idle).  Overrides: fabric.domains=K or the domain's under fabric.domain,
 * and the network's under fabric.network.
 */
static int shrink(const fx_fabric *f, const fx_snode *fab, int64_t max_devices, fx_shrink *out)
{
	const fx_composite_state *s = &f->state.composite;
	int64_t K = max_devices / s->devices, devices = K * s->devices;
	snprintf(out->rule, sizeof out->rule, "whole domains of %lld devices, the network to fit",
		 (long long)s->devices);
	if (K > 0) {
		fx_shrink_set(out, "fabric.domains=%lld", (long long)K);
	} else if (s->domains == 1 && s->domain->shrink) {
		fx_fabric dom;
		void *dp;
		fx_shrink ds;
		memset(&ds, 0, sizeof ds);
		if (part_alone(s->domain, fx_snode_get(fab, "domain"), &dom, &dp) == 0 &&
		    s->domain->shrink(&dom, fx_snode_get(fab, "domain"), max_devices, &ds) == 0) {
			devices = ds.devices;
			snprintf(out->rule, sizeof out->rule, "its one domain's %.90s, the network to fit",
				 ds.rule);
			nest_sets(out, &ds, "domain");
		}
		part_alone_release(s->domain, &dom, dp);
	}
	out->devices = devices;
	const fx_snode *netmap = fx_snode_get(fab, "network");
	if (devices == 0 || !s->network->shrink || !netmap)
		return 0;
	fx_fabric net;
	void *np;
	int64_t need = devices * s->nics_per_device;
	if (part_alone(s->network, netmap, &net, &np) == 0 && need < net.ndev) {
		fx_shrink ns;
		/* the smallest build of the network's increments holding `need` */
		for (int64_t m = need; m <= net.ndev; m++) {
			memset(&ns, 0, sizeof ns);
			if (s->network->shrink(&net, netmap, m, &ns) < 0)
				break;
			if (ns.devices >= need) {
				if (ns.devices < net.ndev)
					nest_sets(out, &ns, "network");
				break;
			}
		}
	}
	part_alone_release(s->network, &net, np);
	return 0;
}

const fx_builder fx_builder_composite = {
	.kind = "composite",
	.summary = "scale-up domains of any kind joined by a scale-out network through their NICs",
	.params_size = sizeof(comp_params),
	.parse = parse,
	.size = size,
	.build = build,
	.release = release,
	.vertex_name = vname,
	.halves = halves,
	.shrink = shrink,
	.router = FX_ROUTER_ECMP,
	.device_noun = NULL,
};
