/*
 * slimfly: the McKay-Miller-Siran graphs of Slim Fly (Besta and Hoefler,
 * "Slim Fly: A Cost Effective Low-Diameter Network Topology", SC'14, §II-B,
 * after Hafner 2004), diameter 2.
 *
 *   q: Q        a prime power 4w + delta, delta in {-1, 0, 1} (every prime
 *               power but 2): 2 q^2 routers of network degree (3q - delta)/2
 *   p: P        devices per router (default ceil(degree / 2), Besta and
 *               Hoefler's full global bandwidth)
 *   radix: R    optional: ports per router, checked
 *   link, router_link   device links, router-router links (default link)
 *
 * With xi a primitive element of GF(q) and the generator sets X (even
 * powers of xi, see gen_sets) and X', routers (0, x, y) and (1, m, c) for
 * x, y, m, c in GF(q) are joined when: (0,x,y)-(0,x,y') with y - y' in X;
 * (1,m,c)-(1,m,c') with c - c' in X'; (0,x,y)-(1,m,c) with y = m x + c.
 * Routers are numbered (x, s, y) -> (2x + s) q + y, so routers (0,x,.) and
 * (1,x,.) are neighbours in the numbering: a rack each by default (q racks
 * of 2q routers, the paper's §V layout).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../core/xalloc.h"
#include "fabric.h"

#define SF_MAX_Q 512

typedef struct slimfly_params {
	int64_t q, p, radix, prime, power, delta;
	fx_linkspec link, router;
} slimfly_params;

/* q = prime^power, or 0 when q is no prime power. */
static int64_t prime_of(int64_t q, int64_t *power)
{
	for (int64_t d = 2; d <= q; d++)
		if (q % d == 0) {
			int64_t x = q, n = 0;
			while (x % d == 0) {
				x /= d;
				n++;
			}
			*power = n;
			return x == 1 ? d : 0;
		}
	return 0;
}

/* GF(q) as polynomials over GF(prime) of degree < power, written base
 * prime (an element is an integer 0 .. q-1); pw[k] = xi^k for a primitive
 * element xi (the class of x modulo a primitive polynomial), lg its
 * inverse. */
typedef struct gf {
	int64_t q, prime, power;
	int64_t *pw, *lg;
} gf;

static int64_t gf_add(const gf *F, int64_t a, int64_t b)
{
	int64_t r = 0, place = 1;
	for (int64_t i = 0; i < F->power; i++) {
		r += (a % F->prime + b % F->prime) % F->prime * place;
		a /= F->prime;
		b /= F->prime;
		place *= F->prime;
	}
	return r;
}

static int64_t gf_neg(const gf *F, int64_t a)
{
	int64_t r = 0, place = 1;
	for (int64_t i = 0; i < F->power; i++) {
		r += (F->prime - a % F->prime) % F->prime * place;
		a /= F->prime;
		place *= F->prime;
	}
	return r;
}

static int64_t gf_mul(const gf *F, int64_t a, int64_t b)
{
	if (a == 0 || b == 0)
		return 0;
	return F->pw[(F->lg[a] + F->lg[b]) % (F->q - 1)];
}

/* Multiplies polynomial a (base prime) by x modulo the monic f, whose
 * lower coefficients are low[0 .. power-1]. */
static int64_t times_x(const gf *F, int64_t a, const int64_t *low)
{
	int64_t c[64] = {0};
	for (int64_t i = 0; i < F->power; i++) {
		c[i + 1] = a % F->prime;
		a /= F->prime;
	}
	int64_t top = c[F->power];  /* x^power = -(low[0] + low[1] x + ...) */
	int64_t r = 0, place = 1;
	for (int64_t i = 0; i < F->power; i++) {
		int64_t v = ((c[i] - top * low[i]) % F->prime + F->prime) % F->prime;
		r += v * place;
		place *= F->prime;
	}
	return r;
}

/* Finds a primitive polynomial of degree power (x has order q - 1 modulo
 * it: then every non-zero class is a power of x and the ring is a field). */
static int gf_init(gf *F, int64_t q, int64_t prime, int64_t power)
{
	F->q = q;
	F->prime = prime;
	F->power = power;
	F->pw = fx_xmalloc((size_t)q * sizeof *F->pw);
	F->lg = fx_xmalloc((size_t)q * sizeof *F->lg);
	int64_t low[64];
	for (int64_t code = 0; code < q; code++) {
		int64_t c = code;
		for (int64_t i = 0; i < power; i++) {
			low[i] = c % prime;
			c /= prime;
		}
		for (int64_t i = 0; i < q; i++)
			F->lg[i] = -1;
		int64_t x = 1, k = 0, ok = 1;
		for (; k < q - 1; k++) {
			if (F->lg[x] >= 0) {
				ok = 0;
				break;
			}
			F->pw[k] = x;
			F->lg[x] = k;
			x = times_x(F, x, low);
		}
		if (ok && x == 1 && F->lg[0] < 0)
			return 0;
	}
	return -1;
}

static void gf_release(gf *F)
{
	free(F->pw);
	free(F->lg);
}

/* The generator sets as exponents of xi: in_x[k] (X) and in_xp[k] (X'),
 * k = 0 .. q-2 (Besta and Hoefler §II-B, step 2). */
static void gen_sets(int64_t q, int64_t delta, uint8_t *in_x, uint8_t *in_xp)
{
	memset(in_x, 0, (size_t)q);
	memset(in_xp, 0, (size_t)q);
	if (delta == 1) {
		for (int64_t k = 0; k <= q - 3; k += 2)
			in_x[k] = 1;
		for (int64_t k = 1; k <= q - 2; k += 2)
			in_xp[k] = 1;
	} else if (delta == -1) {
		int64_t w = (q + 1) / 4;
		for (int64_t k = 0; k <= 2 * w - 2; k += 2)
			in_x[k] = 1;
		for (int64_t k = 2 * w - 1; k <= 4 * w - 3; k += 2)
			in_x[k] = 1;
		for (int64_t k = 1; k <= 2 * w - 1; k += 2)
			in_xp[k] = 1;
		for (int64_t k = 2 * w; k <= 4 * w - 2; k += 2)
			in_xp[k % (q - 1)] = 1;
	} else {
		for (int64_t k = 0; k <= q - 2; k += 2)
			in_x[k] = 1;
		for (int64_t k = 1; k <= q - 1; k += 2)
			in_xp[k % (q - 1)] = 1;
	}
}

static int64_t degree_of(int64_t q, int64_t delta)
{
	return (3 * q - delta) / 2;
}

static int parse(fx_diag *d, const fx_snode *fab, void *params)
{
	static const char *const keys[] = {"kind", "q", "p", "radix", "link", "router_link", NULL};
	slimfly_params *p = params;
	int rc = fx_spec_keys(d, fab, keys);
	rc |= fx_spec_int(d, fab, "q", 2, SF_MAX_Q, &p->q);
	rc |= fx_spec_int_opt(d, fab, "radix", 2, 1 << 20, &p->radix);
	rc |= fx_linkspec_get(d, fab, "link", 1, &p->link);
	if (rc)
		return -1;
	const fx_snode *qn = fx_snode_get(fab, "q");
	p->prime = prime_of(p->q, &p->power);
	if (!p->prime)
		return fx_snode_error(d, qn, "'%s' (%lld) must be a prime power (the MMS graphs are built "
				      "over the field GF(q)), e.g. 5, 7, 8, 9, 11, 13", qn->path,
				      (long long)p->q);
	if (p->q % 4 == 2)
		return fx_snode_error(d, qn, "'%s' (%lld) must be 4w - 1, 4w or 4w + 1: no MMS graph "
				      "has q = 2", qn->path, (long long)p->q);
	p->delta = p->q % 4 == 1 ? 1 : p->q % 4 == 3 ? -1 : 0;
	int64_t k = degree_of(p->q, p->delta);
	p->p = (k + 1) / 2;
	if (fx_spec_int_opt(d, fab, "p", 1, 1 << 16, &p->p))
		return -1;
	if (p->radix && p->p + k > p->radix)
		return fx_snode_error(d, fx_snode_get(fab, "radix"), "'%s.radix' (%lld) is too few: "
				      "routers need p + (3q - delta)/2 = %lld + %lld ports", fab->path,
				      (long long)p->radix, (long long)p->p, (long long)k);
	p->router = p->link;
	if (fx_snode_get(fab, "router_link") && fx_linkspec_get(d, fab, "router_link", 1, &p->router))
		return -1;
	return 0;
}

static void size(const void *params, fx_fabric_size *sz)
{
	const slimfly_params *p = params;
	int64_t r = 2 * p->q * p->q, k = degree_of(p->q, p->delta);
	sz->devices = r * p->p;
	sz->switches = r;
	sz->edges = sz->devices + r * k / 2;
}

static int64_t router_of(int64_t q, int64_t s, int64_t x, int64_t y)
{
	return (2 * x + s) * q + y;
}

static int build(const void *params, fx_fabric *f, fx_diag *d)
{
	const slimfly_params *p = params;
	int64_t q = p->q, R = 2 * q * q;
	gf F;
	if (gf_init(&F, q, p->prime, p->power))
		return fx_diag_internal(d, "no primitive polynomial found for GF(%lld)", (long long)q);
	uint8_t *in_x = fx_xmalloc((size_t)q), *in_xp = fx_xmalloc((size_t)q);
	gen_sets(q, p->delta, in_x, in_xp);
	/* X and X' as elements; both must be closed under negation, or the
	 * "y - y' in X" relation would not be symmetric */
	uint8_t *ex = fx_xcalloc((size_t)q, 1), *exp_ = fx_xcalloc((size_t)q, 1);
	for (int64_t k = 0; k < q - 1; k++) {
		if (in_x[k])
			ex[F.pw[k]] = 1;
		if (in_xp[k])
			exp_[F.pw[k]] = 1;
	}
	int rc = 0;
	for (int64_t e = 1; e < q && rc == 0; e++)
		if (ex[e] != ex[gf_neg(&F, e)] || exp_[e] != exp_[gf_neg(&F, e)])
			rc = fx_diag_internal(d, "slimfly: generator sets of GF(%lld) not symmetric",
					      (long long)q);
	if (rc == 0) {
		for (int64_t v = 0; v < R * p->p; v++)
			fx_fb_vertex(f, FX_V_DEVICE, -1, v / p->p, -1);
		int role = fx_fb_role(f, "router", (int)p->radix, 1, "radix");
		int64_t r0 = f->nv;
		for (int64_t r = 0; r < R; r++)
			fx_fb_vertex(f, FX_V_SWITCH, role, r, -1);
		for (int64_t v = 0; v < f->ndev; v++)
			fx_fb_link(f, v, r0 + v / p->p, &p->link, 1, 0);
		for (int64_t x = 0; x < q; x++)
			for (int64_t y = 0; y < q; y++)
				for (int64_t y2 = y + 1; y2 < q; y2++) {
					int64_t diff = gf_add(&F, y, gf_neg(&F, y2));
					if (ex[diff])
						fx_fb_link(f, r0 + router_of(q, 0, x, y), r0 + router_of(q, 0, x, y2),
							   &p->router, 1, 1);
					if (exp_[diff])
						fx_fb_link(f, r0 + router_of(q, 1, x, y), r0 + router_of(q, 1, x, y2),
							   &p->router, 1, 1);
				}
		for (int64_t x = 0; x < q; x++)
			for (int64_t m = 0; m < q; m++)
				for (int64_t c = 0; c < q; c++)
					fx_fb_link(f, r0 + router_of(q, 0, x, gf_add(&F, gf_mul(&F, m, x), c)),
						   r0 + router_of(q, 1, m, c), &p->router, 1, 1);
		f->state.slimfly = (fx_slimfly_state){
			.q = q, .p = p->p, .delta = p->delta, .degree = degree_of(q, p->delta),
		};
		f->rack_devices = 2 * q * p->p;
	}
	free(in_x);
	free(in_xp);
	free(ex);
	free(exp_);
	gf_release(&F);
	return rc;
}

static void vertex_name(const fx_fabric *f, int64_t v, char *buf, size_t len)
{
	const fx_slimfly_state *s = &f->state.slimfly;
	if (v < f->ndev) {
		snprintf(buf, len, "device%lld", (long long)v);
		return;
	}
	int64_t r = v - f->ndev, y = r % s->q, xs = r / s->q;
	snprintf(buf, len, "r%lld.%lld.%lld", (long long)(xs % 2), (long long)(xs / 2), (long long)y);
}

/* Side 0: routers (0, x, .) with x < ceil(q/2) and (1, m, .) with m <
 * floor(q/2), q^2 routers; no link inside a subgraph crosses (those join
 * routers of one x or one m), and of the q links between each (x, m)
 * those with x and m on different sides do. */
static int halves(const fx_fabric *f, uint8_t *side)
{
	const fx_slimfly_state *s = &f->state.slimfly;
	int64_t q = s->q, c = (q + 1) / 2, fl = q / 2;
	if (f->ndev % 2)
		return 0;
	for (int64_t v = 0; v < f->ndev; v++) {
		int64_t r = v / s->p, xs = r / q, sub = xs % 2, x = xs / 2;
		side[v] = sub == 0 ? x >= c : x >= fl;
	}
	return 2;
}

/* That split's cut: q (c^2 + f^2) router links, c = ceil(q/2), f =
 * floor(q/2), or the device links of one half when fewer. */
static double bisection(const fx_fabric *f, double *links)
{
	const fx_slimfly_state *s = &f->state.slimfly;
	if (f->ndev % 2)
		return -1;
	double q = (double)s->q, c = (double)((s->q + 1) / 2), fl = (double)(s->q / 2);
	double cut = q * (c * c + fl * fl), host = (double)f->ndev / 2;
	double rbw = f->e[f->ne - 1].bw, hbw = f->e[0].bw;
	if (host * hbw < cut * rbw) {
		*links = host;
		return host * hbw;
	}
	*links = cut;
	return cut * rbw;
}

/*
 * Hop counts in closed form: an MMS graph has diameter 2 (McKay, Miller
 * and Siran 1998) and every router `degree` neighbours, so from each router
 * `degree` routers are 1 hop away and 2q^2 - 1 - degree are 2; devices add
 * their two device links.
 */
static int hops(const fx_fabric *f, double *hist, int *nhist, int64_t far[2], const char **how)
{
	const fx_slimfly_state *s = &f->state.slimfly;
	double N = (double)f->ndev, p = (double)s->p, k = (double)s->degree;
	double R = 2.0 * (double)s->q * (double)s->q;
	memset(hist, 0, FX_HOPS_MAX * sizeof *hist);
	hist[2] = N * (p - 1);
	hist[3] = N * p * k;
	hist[4] = N * p * (R - 1 - k);
	*nhist = 5;
	/* router 0 is (0, 0, 0); (0, 1, 0) is 2 away: same y, another x, so
	 * no link, and diameter 2 */
	far[0] = 0;
	far[1] = 2 * s->q * s->p;
	*how = "exact: closed form (diameter 2, every router of degree (3q - delta)/2)";
	return 0;
}

/* Shrinks to the largest prime power q' <= q whose 2 q'^2 routers of p
 * devices fit (p stays as the spec gives it, or its default for q'). */
static int shrink(const fx_fabric *f, const fx_snode *fab, int64_t max_devices, fx_shrink *out)
{
	const fx_slimfly_state *s = &f->state.slimfly;
	int given = fx_snode_get(fab, "p") != NULL;
	snprintf(out->rule, sizeof out->rule, "a smaller prime power q (2 q^2 routers)");
	out->devices = 0;
	for (int64_t q = s->q - 1; q >= 3; q--) {
		int64_t power, pr = prime_of(q, &power);
		if (!pr || q % 4 == 2)
			continue;
		int64_t delta = q % 4 == 1 ? 1 : q % 4 == 3 ? -1 : 0;
		int64_t p = given ? s->p : (degree_of(q, delta) + 1) / 2;
		if (2 * q * q * p <= max_devices) {
			out->devices = 2 * q * q * p;
			fx_shrink_set(out, "fabric.q=%lld", (long long)q);
			break;
		}
	}
	return 0;
}

const fx_builder fx_builder_slimfly = {
	.kind = "slimfly",
	.summary = "Slim Fly: McKay-Miller-Siran graph of a prime power q, diameter 2",
	.params_size = sizeof(slimfly_params),
	.parse = parse,
	.size = size,
	.build = build,
	.vertex_name = vertex_name,
	.halves = halves,
	.bisection = bisection,
	.shrink = shrink,
	.hops = hops,
	.router = FX_ROUTER_ECMP,
	.device_noun = "device",
	.caps = FX_KIND_UNEVEN,  /* subgraphs 0 and 1 meet the split differently */
};
