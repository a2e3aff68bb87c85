// SPDX-License-Identifier: GPL-2.0
/*
 * A flowlet that starts, or a packet of a per-packet mode: the route
 * lookup (through a per-CPU cache of routes and their bands), the object
 * and binding that select the mode, the alternates, the core's choice of
 * a path and the steering of the kernel's multipath selection to it.
 */
#include "steer.h"

#define CREATE_TRACE_POINTS
#include "trace.h"

DEFINE_PER_CPU(u64, ars_rnd);

/*
 * A path is a next hop, not a device: several of a route's next hops may
 * share one (gateways on a LAN, a VLAN trunk, a bond). Before the core
 * looks for the path of the entry's flowlet by its device, tell it which
 * one the flowlet is on: the one the kernel takes for the entry's hash,
 * when that is on the entry's device. So the flowlet stays with its
 * gateway when flowlet-random left its path unknown, or the route's order
 * changed. Only on the slow path of an entry that holds a flowlet that
 * goes on: an idle one starts a new flowlet, whose old path is not read.
 */
static void ars_flow_path_sync(struct ars_flow *f, const struct ars_route *r,
			       const struct ars_route_ctx *rc,
			       const struct ars_ctx *c)
{
	u64 state = READ_ONCE(f->state);
	u8 path;

	if (!ars_flow_gen(state) || READ_ONCE(f->tag) != c->tag ||
	    !ars_flow_live(state, c->now, c->idle))
		return;
	path = ars_route_hash_path(r, rc, READ_ONCE(f->hash));
	if (path == ARS_PATH_NONE || path == ars_flow_path(state) ||
	    r->path[path].dev != READ_ONCE(f->ifindex))
		return;
	WRITE_ONCE(f->state,
		   ars_flow_pack(ars_flow_time(state) << ARS_TIME_SHIFT, path,
				 ars_flow_gen(state)));
}

/* Every next hop of @r is on an ARS-enabled device (SONiC's rule). */
static bool ars_route_enabled(const struct ars_conf *conf,
			      const struct ars_route *r)
{
	unsigned int i;

	for (i = 0; i < r->n; i++)
		if (!ars_conf_interface(conf, r->path[i].dev))
			return false;
	return true;
}

/* The object the packet's route selects (objects.c). */
static int ars_object_of_route(const struct ars_conf *conf,
			       const struct sk_buff *skb, int family,
			       const struct ars_route_ctx *rc, int *bind)
{
	struct in6_addr daddr;

	if (family == AF_INET)
		daddr.s6_addr32[0] = ip_hdr(skb)->daddr;
	else
		daddr = ipv6_hdr(skb)->daddr;
	return ars_conf_route(conf, family, &daddr, rc->table, rc->nhid, bind);
}

/*
 * The route cache. A route that a packet looked up serves the next packets
 * to the same destination on this CPU for one sampling interval, bands
 * and the object its binding selects included: that is the bands' own
 * resolution (a port's figures change once per interval), and the longest
 * that ars may go on choosing a next hop that died without a change of the
 * routing generation (a group member whose neighbour failed), which the
 * kernel, given any hash, skips anyway. A change of objects or bindings
 * moves the generation too. Only for routes that follow from the
 * destination alone (no policy rules, ars_route_key()) and are no
 * resilient groups, whose buckets ars reads at each choice.
 */
static struct ars_rcache_slot *ars_rcache_slot(struct ars_rcache *rcache,
					       const struct ars_rkey *k)
{
	u32 h = (__force u32)k->daddr.s6_addr32[0];

	if (k->family != AF_INET)
		h ^= (__force u32)k->daddr.s6_addr32[3];
	h = hash_32(h, ilog2(ARS_RCACHE_SLOTS));
	return &rcache->slot[h];
}

/*
 * Cached key @a is the fresh key @b: an IPv4 key compares its three fields
 * alone, not the 36 bytes of an IPv6 one (nor needs them zeroed).
 */
static bool ars_rkey_equal(const struct ars_rkey *a, const struct ars_rkey *b)
{
	if (a->family != b->family)
		return false;
	if (b->family == AF_INET)
		return a->daddr.s6_addr32[0] == b->daddr.s6_addr32[0] &&
		       a->tos == b->tos;
	return ipv6_addr_equal(&a->daddr, &b->daddr) &&
	       ipv6_addr_equal(&a->saddr, &b->saddr);
}

static bool ars_rcache_hit(const struct ars_rcache_slot *s,
			   const struct ars_rkey *k,
			   const struct ars_ctx *c,
			   const struct ars_profile *p,
			   struct ars_route_ctx *rc)
{
	if (!s->time || s->gen != c->gen ||
	    c->now - s->time >= p->sampling_interval ||
	    !ars_rkey_equal(&s->key, k))
		return false;
	rc->nhg = NULL;
	rc->res_table = NULL;
	rc->fi = NULL;
	rc->f6i = NULL;
	rc->table = s->table;
	rc->nhid = s->nhid;
	return true;
}

static void ars_rcache_store(struct ars_rcache_slot *s,
			     const struct ars_rkey *k, const struct ars_ctx *c,
			     const struct ars_route *r,
			     const struct ars_route_ctx *rc)
{
	s->time = c->now;
	s->key.family = k->family;
	s->key.tos = k->tos;
	if (k->family == AF_INET) {
		s->key.daddr.s6_addr32[0] = k->daddr.s6_addr32[0];
	} else {
		s->key.daddr = k->daddr;
		s->key.saddr = k->saddr;
	}
	s->gen = c->gen;
	s->bands = false;
	s->table = rc->table;
	s->nhid = rc->nhid;
	s->route.n = r->n;
	memcpy(s->route.path, r->path, r->n * sizeof(r->path[0]));
}

/* Next hop @nhc goes through the alternate @a's gateway. */
static bool ars_alt_gw_is(const struct ars_alt_nh *a,
			  const struct fib_nh_common *nhc)
{
	if (!nhc || nhc->nhc_gw_family != a->family)
		return false;
	if (a->family == AF_INET)
		return nhc->nhc_gw.ipv4 == a->gw.s6_addr32[0];
	return ipv6_addr_equal(&nhc->nhc_gw.ipv6, &a->gw);
}

/* Path @i of @r, whose next hop is @nhc, is one of @o's alternates. */
static u8 ars_path_alternate(const struct ars_object *o,
			     const struct ars_route *r, unsigned int i,
			     const struct fib_nh_common *nhc)
{
	unsigned int k;

	for (k = 0; k < o->n_alt; k++) {
		const struct ars_alt_nh *a = &o->alts[k];

		if (a->ifindex ? a->ifindex == r->path[i].dev :
				 ars_alt_gw_is(a, nhc))
			return 1;
	}
	return 0;
}

/*
 * Object @o has alternates: which paths of @r they are, for the step's
 * copy of the route (ars_step()), which the core then rewrites
 * (ars_route_alternates()). Gateways come from the next hops of a fresh
 * lookup (@rc), as the caller makes sure. Only for objects with
 * alternates: no other packet comes here.
 */
static noinline u64 ars_alt_mask(const struct ars_object *o,
				 const struct ars_route *r,
				 const struct ars_route_ctx *rc)
{
	const struct fib_nh_common *nhc = NULL;
	unsigned int i;
	u64 mask = 0;

	for (i = 0; i < r->n; i++) {
		if (o->alt_gw)
			nhc = ars_route_nhc(rc, i);
		if (ars_path_alternate(o, r, i, nhc))
			mask |= 1ULL << i;
	}
	return mask;
}

/*
 * The bands of @r in the quality modes: the route cache's @slot may hold
 * them already (@r is its route then: @s->bands and @s->known say so, and
 * @s->best and @s->total are the slot's, and its maxima with a flowlet
 * window), else the step measures them, and *@slot, left set, keeps them.
 * They are the ports' own, for the interval: the step counts a flowlet
 * window on a copy (ars_step_window()).
 */
static void ars_bands(const struct ars_ctx *c, const struct ars_profile *p,
		      struct ars_rcache_slot **slot, struct ars_step *s)
{
	s->bands = false;
	if (c->mode != ARS_MODE_PACKET_QUALITY &&
	    c->mode != ARS_MODE_FLOWLET_QUALITY) {
		*slot = NULL;
		return;
	}
	if (*slot && (*slot)->bands) {
		s->bands = true;	/* the cached route holds them */
		s->known = (*slot)->known;
		s->best = (*slot)->best;
		s->total = (*slot)->total;
		if (p->flowlet_window) {
			s->max_bandwidth = (*slot)->max_bandwidth;
			s->max_delay = (*slot)->max_delay;
			s->unknown = (*slot)->unknown;
		}
		*slot = NULL;
	}
}

/*
 * With the route: resolve the object if the mark did not (@obj
 * ARS_OBJ_ROUTE), then start, carry or share the entry's flowlet (@f), or,
 * in a per-packet mode, choose for the packet alone.
 */
unsigned int ars_steer_slow(struct ars_net *an,
			    const struct ars_profile *p,
			    const struct ars_conf *conf,
			    struct sk_buff *skb, struct net_device *in,
			    int family, struct ars_ctx *c,
			    struct ars_flow *f, u32 index, int obj,
			    int bind)
{
	struct ars_rcache *rcache = this_cpu_ptr(an->rcache);
	/*
	 * The route when it is not the cache's, or the step's copy of it:
	 * this CPU's, as the cache is (ars_steer_bh()), not 776 bytes of
	 * stack. Filled before it is read.
	 */
	struct ars_route *local = &rcache->local, *r = local;
	struct ars_rcache_slot *slot = NULL;
	struct ars_flow *nf = f;	/* the namespace's entry */
	const struct ars_object *o;
	/*
	 * Each field is written before it is read (the inputs below, bands
	 * and known by ars_bands() and the step, res by the step): not
	 * zeroed for every packet under INIT_STACK_ALL_ZERO.
	 */
	struct ars_step step __uninitialized;
	/*
	 * The same for these: the key by ars_route_key(), the route's
	 * context by the lookup or the cache hit, the gateway and the
	 * hash as it came before they are read.
	 */
	struct ars_route_ctx rc __uninitialized;
	struct ars_skb_hash saved __uninitialized;
	struct ars_rkey k __uninitialized;
	struct ars_gw gw __uninitialized;
	bool hit = false;
	u32 hash, old_ifindex;
	int kind = ARS_ROUTE_MULTI;

	if (ars_route_key(an->net, skb, family, &k))
		slot = ars_rcache_slot(rcache, &k);
	if (slot)
		hit = ars_rcache_hit(slot, &k, c, p, &rc);
	if (hit) {
		r = &slot->route;
	} else {
		kind = ars_route(an, skb, in, family, r, &rc);
		if (kind == ARS_ROUTE_NONE)
			return NF_ACCEPT;
		if (kind == ARS_ROUTE_SINGLE) {
			ars_stat_inc(an, ARS_STAT_SINGLEPATH);
			return NF_ACCEPT;
		}
		if (kind == ARS_ROUTE_MULTI && slot && !rc.res_table) {
			ars_rcache_store(slot, &k, c, r, &rc);
			r = &slot->route;
		} else {
			slot = NULL;
		}
	}
	if (obj == ARS_OBJ_ROUTE) {
		obj = ars_object_of_route(conf, skb, family, &rc, &bind);
		ars_bstat_inc_packets(an, bind);
	}
	if (obj < 0) {
		ars_stat_inc(an, ARS_STAT_ECMP);
		return NF_ACCEPT;
	}
	if (conf->obj[obj].mode == ARS_MODE_ECMP)
		return ars_ecmp(an, skb, obj);
	/* A route with too many next hops left @r unset: not steered. */
	if (kind >= 0 && conf->n_ifaces && !ars_route_enabled(conf, r)) {
		ars_ostat_inc(an, obj, ARS_STAT_DISABLED);
		return NF_ACCEPT;
	}
	o = &conf->obj[obj];
	ars_ctx_object(an, c, o);
	if (!ars_mode_flowlet(c->mode))
		f = NULL;
	else if (unlikely(!f))
		kind = -ENOENT;		/* no table */
	else
		f = ars_flow_of(conf, f, obj, c->key, &index);

	if (kind < 0 || !ars_hash_policy_l4(an->net, family))
		goto unsteered;

	c->rand = ars_random();
	if (f)
		ars_flow_path_sync(f, r, &rc, c);
	step.alt = NULL;
	step.remote = NULL;
	step.remote_moved = false;
	if (unlikely(p->remote)) {
		step.remote_route = ars_remote_route(an, family,
						     ars_daddr(skb, family));
		/*
		 * Only a flowlet that starts reads the scores: one that goes
		 * on keeps its path (a failover, rare, chooses by the local
		 * bands alone).
		 */
		if (!f || ars_flowlet_expired(f, c))
			step.remote = &an->remote;
	}
	if (unlikely(o->n_alt)) {
		/*
		 * Gateways need the route's next hops, which a cached route
		 * lacks: look it up again, leaving the cache alone.
		 */
		if (hit && o->alt_gw) {
			r = local;
			if (ars_route(an, skb, in, family, r, &rc) !=
			    ARS_ROUTE_MULTI)
				goto unsteered;
			slot = NULL;
		}
		step.alt = &o->alt;
		step.alt_mask = ars_alt_mask(o, r, &rc);
	}
	step.env = an;
	step.window = p->flowlet_window;
	step.delay_full = 0;
	step.rate_weight = p->rate_weight;
	ars_bands(c, p, &slot, &step);
	r = ars_step(&step, f, r, local, c);
	if (slot) {
		/*
		 * The step measured the cached route's bands: with them, what
		 * the next packets' choices read first.
		 */
		slot->known = step.known;
		slot->best = ars_route_best(&slot->route, &slot->total);
		slot->max_bandwidth = step.max_bandwidth;
		slot->max_delay = step.max_delay;
		slot->unknown = step.unknown;
		slot->bands = true;
	}
	if (step.res.path == ARS_PATH_NONE ||
	    !ars_route_steer_hash(r, &rc, step.res.path, c->key, &hash))
		goto unsteered;

	/*
	 * The kernel's own lookup, with the hash, decides: a packet that it
	 * does not forward (rp_filter, forwarding off, a policy rule ars's
	 * lookup did not see the same way) starts no flowlet, is not counted
	 * as steered and keeps the hash it came with.
	 */
	ars_skb_hash_save(skb, &saved);
	skb_set_hash(skb, hash, PKT_HASH_TYPE_L4);
	if (!ars_route_input(skb, in, family) ||
	    !ars_dst_forwarded(skb, family, &gw)) {
		ars_skb_hash_restore(skb, &saved);
		goto unsteered;
	}
	if (f) {
		old_ifindex = ars_flow_gen(READ_ONCE(f->state)) ?
			      READ_ONCE(f->ifindex) : 0;
		if (step.res.write == ARS_WRITE_ALL)
			ars_flow_object_set(f, c, obj);
	}
	ars_step_commit(&step, f, r, c, hash);
	if (f) {
		if (unlikely(conf->own_tables))
			ars_flow_hint(an, conf, nf, obj, c, step.res.assigned);
		if (step.res.assigned)
			ars_flowlet_started(an, obj, bind, index, &step.res,
					    old_ifindex, r->path[step.res.path].dev,
					    family);
		if (unlikely(p->remote))
			ars_remote_steered(an, skb, family, &step,
					   r->path[step.res.path].dev, obj,
					   c->now);
	}
	if (!step.known && (step.res.assigned || !f))
		ars_ostat_inc(an, obj, ARS_STAT_UNKNOWN_QUALITY);
	ars_ostat_inc(an, obj, ARS_STAT_STEERED);
	/* The gateway of the next hop the kernel took, for the paths dump. */
	ars_account(an, r->path[step.res.path].dev, skb,
		    step.res.assigned ? &gw : NULL);
	return NF_ACCEPT;

unsteered:
	ars_ostat_inc(an, obj, ARS_STAT_UNSTEERED);
	return NF_ACCEPT;
}
