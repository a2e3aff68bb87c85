// SPDX-License-Identifier: GPL-2.0
/*
 * Configuration that can be applied twice: the replace forms of the
 * commands, and arsctl -r -b FILE, which makes the namespace's objects,
 * bindings, alternates, interfaces and profile what FILE says.
 *
 * The family's NEW and ENABLE requests refuse what exists (EEXIST) and
 * know no NLM_F_REPLACE. Replacing one object could be taught to the
 * kernel, but removing what a file no longer names needs the whole file,
 * which only user space has; so both are done here, by the dumps: a
 * replace asks what exists and sends what makes it as asked; a reconcile
 * learns from the batch's own requests (nl->record) what the file names,
 * removes the rest, then applies the file with replace. Nothing of this
 * is atomic: between two requests the data path sees the state between
 * them, as with ip -b.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <linux/ars.h>
#include <linux/genetlink.h>
#include <linux/rtnetlink.h>

#include "arsctl.h"
#include "parse.h"

/* A binding: what selects the packets, and what steers them. */
struct bkey {
	int kind;		/* ARS_A_BIND_NHID, _PREFIX or _MARK */
	uint32_t id;		/* nhid, or the prefix's table */
	unsigned char addr[16];
	size_t alen;
	unsigned int plen;
	uint32_t mark, mask;
	bool exempt;
	char object[ARS_OBJECT_NAME_LEN];
};

static const enum mnl_attr_data_type bind_types[ARS_A_BIND_MAX + 1] = {
	[ARS_A_BIND_OBJECT] = MNL_TYPE_NUL_STRING,
	[ARS_A_BIND_EXEMPT] = MNL_TYPE_FLAG,
	[ARS_A_BIND_NHID] = MNL_TYPE_U32,
	[ARS_A_BIND_PREFIX] = MNL_TYPE_BINARY,
	[ARS_A_BIND_PREFIX_LEN] = MNL_TYPE_U8,
	[ARS_A_BIND_TABLE] = MNL_TYPE_U32,
	[ARS_A_BIND_MARK] = MNL_TYPE_U32,
	[ARS_A_BIND_MASK] = MNL_TYPE_U32,
};

/* A request's or a dump's binding; false when it is none. */
static bool bkey_from(const struct nlmsghdr *nlh, struct bkey *k)
{
	const struct nlattr *tb[ARS_A_BIND_MAX + 1];

	memset(k, 0, sizeof(*k));
	nl_parse(nlh, tb, bind_types, ARS_A_BIND_MAX);
	if (tb[ARS_A_BIND_NHID]) {
		k->kind = ARS_A_BIND_NHID;
		k->id = mnl_attr_get_u32(tb[ARS_A_BIND_NHID]);
	} else if (tb[ARS_A_BIND_PREFIX] && tb[ARS_A_BIND_PREFIX_LEN]) {
		k->kind = ARS_A_BIND_PREFIX;
		k->alen = mnl_attr_get_payload_len(tb[ARS_A_BIND_PREFIX]);
		if (k->alen > sizeof(k->addr))
			return false;
		memcpy(k->addr, mnl_attr_get_payload(tb[ARS_A_BIND_PREFIX]),
		       k->alen);
		k->plen = mnl_attr_get_u8(tb[ARS_A_BIND_PREFIX_LEN]);
		/* The kernel's default table. */
		k->id = tb[ARS_A_BIND_TABLE] ?
			mnl_attr_get_u32(tb[ARS_A_BIND_TABLE]) : RT_TABLE_MAIN;
	} else if (tb[ARS_A_BIND_MARK]) {
		k->kind = ARS_A_BIND_MARK;
		k->mark = mnl_attr_get_u32(tb[ARS_A_BIND_MARK]);
		k->mask = tb[ARS_A_BIND_MASK] ?
			  mnl_attr_get_u32(tb[ARS_A_BIND_MASK]) : 0;
	} else {
		return false;
	}
	k->exempt = tb[ARS_A_BIND_EXEMPT];
	if (tb[ARS_A_BIND_OBJECT])
		snprintf(k->object, sizeof(k->object), "%s",
			 mnl_attr_get_str(tb[ARS_A_BIND_OBJECT]));
	return true;
}

static bool bkey_same_key(const struct bkey *a, const struct bkey *b)
{
	if (a->kind != b->kind)
		return false;
	switch (a->kind) {
	case ARS_A_BIND_NHID:
		return a->id == b->id;
	case ARS_A_BIND_PREFIX:
		return a->id == b->id && a->alen == b->alen &&
		       a->plen == b->plen && !memcmp(a->addr, b->addr, a->alen);
	default:
		return a->mark == b->mark && a->mask == b->mask;
	}
}

static bool bkey_same(const struct bkey *a, const struct bkey *b)
{
	return bkey_same_key(a, b) && a->exempt == b->exempt &&
	       !strcmp(a->object, b->object);
}

/* The request that deletes binding k. */
static void bkey_del_request(struct ars_nl *nl, const struct bkey *k)
{
	nl_request(nl, ARS_CMD_BIND_DEL, 0);
	switch (k->kind) {
	case ARS_A_BIND_NHID:
		mnl_attr_put_u32(nl->req, ARS_A_BIND_NHID, k->id);
		break;
	case ARS_A_BIND_PREFIX:
		mnl_attr_put(nl->req, ARS_A_BIND_PREFIX, k->alen, k->addr);
		mnl_attr_put_u8(nl->req, ARS_A_BIND_PREFIX_LEN, k->plen);
		mnl_attr_put_u32(nl->req, ARS_A_BIND_TABLE, k->id);
		break;
	default:
		mnl_attr_put_u32(nl->req, ARS_A_BIND_MARK, k->mark);
		mnl_attr_put_u32(nl->req, ARS_A_BIND_MASK, k->mask);
	}
}

/* A list of bindings, from a dump or from a file. */
struct blist {
	struct bkey k[ARS_BINDINGS_MAX];
	size_t n;
};

static int blist_cb(const struct nlmsghdr *nlh, void *data)
{
	struct blist *l = data;

	if (l->n < ARS_BINDINGS_MAX && bkey_from(nlh, &l->k[l->n]))
		l->n++;
	return MNL_CB_OK;
}

static int blist_fetch(struct ctx *c, struct blist *l)
{
	l->n = 0;
	nl_request(&c->nl, ARS_CMD_BIND_GET, NLM_F_DUMP);
	return nl_talk(&c->nl, blist_cb, l);
}

/* The request attributes' names, for a refusal that points at one. */
struct attr_names {
	const char *const *names;
	int max;
};

static struct attr_names req_names;

/*
 * Send nl->req; what exists already is no error when exists_ok, what is
 * gone already none for a request that deletes.
 */
static int send_req(struct ctx *c, bool exists_ok)
{
	const struct genlmsghdr *genl = mnl_nlmsg_get_payload(c->nl.req);
	int err = nl_talk(&c->nl, NULL, NULL);

	if (err == -EEXIST && exists_ok)
		return EXIT_OK;
	if (err == -ENOENT && exists_ok &&
	    (genl->cmd == ARS_CMD_OBJECT_DEL || genl->cmd == ARS_CMD_BIND_DEL ||
	     genl->cmd == ARS_CMD_ALTERNATE_DEL ||
	     genl->cmd == ARS_CMD_INTERFACE_DISABLE))
		return EXIT_OK;
	return err ? cmd_error(c, err, refused_attr(&c->nl, req_names.names,
						    req_names.max)) :
		     EXIT_OK;
}

/*
 * bind replace: nothing when the binding is there as asked; else the one
 * of the same key (what it selects) goes first, then the new one comes.
 */
static int bind_replace(struct ctx *c)
{
	static char saved[NL_REQ_MAX];
	static struct blist have;
	struct bkey want;
	size_t i;
	int err;

	if (!bkey_from(c->nl.req, &want))
		return send_req(c, false);
	nl_save_req(&c->nl, saved);
	err = blist_fetch(c, &have);
	if (err)
		return cmd_error(c, err, NULL);
	for (i = 0; i < have.n; i++) {
		if (!bkey_same_key(&have.k[i], &want))
			continue;
		if (bkey_same(&have.k[i], &want))
			return EXIT_OK;
		bkey_del_request(&c->nl, &have.k[i]);
		err = nl_talk(&c->nl, NULL, NULL);
		if (err && err != -ENOENT)
			return cmd_error(c, err, NULL);
		break;
	}
	nl_restore_req(&c->nl, saved);
	return send_req(c, false);
}

static int object_exists_cb(const struct nlmsghdr *nlh, void *data)
{
	(void)nlh;
	*(bool *)data = true;
	return MNL_CB_OK;
}

/*
 * object replace: a new object, or the one of that name set to what the
 * request says, the settings it does not give at their defaults (those
 * of ars_object_defaults() in the kernel), so that the object is as if
 * it had just been added.
 */
static int object_replace(struct ctx *c)
{
	static char saved[NL_REQ_MAX];
	const struct nlattr *tb[ARS_A_OBJECT_MAX + 1];
	static const enum mnl_attr_data_type types[ARS_A_OBJECT_MAX + 1] = {
		[ARS_A_OBJECT_NAME] = MNL_TYPE_NUL_STRING,
		[ARS_A_OBJECT_MODE] = MNL_TYPE_U32,
		[ARS_A_OBJECT_IDLE_TIME] = MNL_TYPE_U64,
		[ARS_A_OBJECT_PRIMARY_THRESHOLD] = MNL_TYPE_U8,
		[ARS_A_OBJECT_ALTERNATE_COST] = MNL_TYPE_U8,
		[ARS_A_OBJECT_ALTERNATE_BIAS] = MNL_TYPE_U8,
		[ARS_A_OBJECT_TABLE_SIZE] = MNL_TYPE_U32,
	};
	struct genlmsghdr *genl;
	struct nlmsghdr *req;
	bool exists = false;
	int err;

	nl_save_req(&c->nl, saved);
	req = (struct nlmsghdr *)saved;
	nl_parse(req, tb, types, ARS_A_OBJECT_MAX);
	if (!tb[ARS_A_OBJECT_NAME])
		return send_req(c, false);
	nl_request(&c->nl, ARS_CMD_OBJECT_GET, 0);
	mnl_attr_put_strz(c->nl.req, ARS_A_OBJECT_NAME,
			  mnl_attr_get_str(tb[ARS_A_OBJECT_NAME]));
	err = nl_talk(&c->nl, object_exists_cb, &exists);
	if (err && err != -ENOENT)
		return cmd_error(c, err, NULL);
	nl_restore_req(&c->nl, saved);
	if (!exists)
		return send_req(c, false);
	genl = mnl_nlmsg_get_payload(c->nl.req);
	genl->cmd = ARS_CMD_OBJECT_SET;
	if (!tb[ARS_A_OBJECT_MODE])
		mnl_attr_put_u32(c->nl.req, ARS_A_OBJECT_MODE,
				 ARS_MODE_FLOWLET_QUALITY);
	if (!tb[ARS_A_OBJECT_IDLE_TIME])
		mnl_attr_put_u64(c->nl.req, ARS_A_OBJECT_IDLE_TIME,
				 ARS_IDLE_TIME_DEFAULT);
	if (!tb[ARS_A_OBJECT_PRIMARY_THRESHOLD])
		mnl_attr_put_u8(c->nl.req, ARS_A_OBJECT_PRIMARY_THRESHOLD, 0);
	if (!tb[ARS_A_OBJECT_ALTERNATE_COST])
		mnl_attr_put_u8(c->nl.req, ARS_A_OBJECT_ALTERNATE_COST, 0);
	if (!tb[ARS_A_OBJECT_ALTERNATE_BIAS])
		mnl_attr_put_u8(c->nl.req, ARS_A_OBJECT_ALTERNATE_BIAS,
				ARS_ALTERNATE_BIAS_MAX);
	if (!tb[ARS_A_OBJECT_TABLE_SIZE])
		mnl_attr_put_u32(c->nl.req, ARS_A_OBJECT_TABLE_SIZE, 0);
	return send_req(c, false);
}

int apply_replace(struct ctx *c, const char *const *names, int max)
{
	const struct genlmsghdr *genl = mnl_nlmsg_get_payload(c->nl.req);

	req_names = (struct attr_names){ names, max };
	/* While a reconcile learns the file, its requests are only noted. */
	if (c->nl.record)
		return send_req(c, false);
	switch (genl->cmd) {
	case ARS_CMD_OBJECT_NEW:
		return object_replace(c);
	case ARS_CMD_BIND_NEW:
		return bind_replace(c);
	case ARS_CMD_ALTERNATE_NEW:
	case ARS_CMD_INTERFACE_ENABLE:
		/* Nothing but the key: the one that exists is the same. */
		return send_req(c, true);
	case ARS_CMD_OBJECT_DEL:
	case ARS_CMD_BIND_DEL:
	case ARS_CMD_ALTERNATE_DEL:
	case ARS_CMD_INTERFACE_DISABLE:
		/* A reconcile may have removed it already. */
		return send_req(c, true);
	default:
		return send_req(c, false);
	}
}

/* ---- arsctl -r -b FILE */

struct alt {
	char object[ARS_OBJECT_NAME_LEN];
	uint32_t ifindex;		/* else the gateway */
	unsigned char gw[16];
	size_t glen;
};

/* What a file names (from its requests), or what the kernel holds. */
struct cfg {
	char objects[ARS_OBJECTS_MAX * 4][ARS_OBJECT_NAME_LEN];
	size_t nobjects;
	struct blist binds;
	struct alt alts[ARS_OBJECTS_MAX * ARS_ALTERNATES_MAX];
	size_t nalts;
	uint32_t ifaces[ARS_INTERFACES_MAX * 2];
	size_t nifaces;
	bool profile[ARS_A_PROFILE_MAX + 1];	/* the attributes set */
};

static bool has_object(const struct cfg *s, const char *name)
{
	size_t i;

	for (i = 0; i < s->nobjects; i++)
		if (!strcmp(s->objects[i], name))
			return true;
	return false;
}

static bool alt_same(const struct alt *a, const struct alt *b)
{
	return !strcmp(a->object, b->object) && a->ifindex == b->ifindex &&
	       a->glen == b->glen && !memcmp(a->gw, b->gw, a->glen);
}

static bool has_alt(const struct cfg *s, const struct alt *a)
{
	size_t i;

	for (i = 0; i < s->nalts; i++)
		if (alt_same(&s->alts[i], a))
			return true;
	return false;
}

static bool has_interface(const struct cfg *s, uint32_t ifindex)
{
	size_t i;

	for (i = 0; i < s->nifaces; i++)
		if (s->ifaces[i] == ifindex)
			return true;
	return false;
}

static bool alt_from(const struct nlattr *const *tb, const char *object,
		     struct alt *a)
{
	memset(a, 0, sizeof(*a));
	snprintf(a->object, sizeof(a->object), "%s", object);
	if (tb[ARS_A_ALTERNATE_IFINDEX]) {
		a->ifindex = mnl_attr_get_u32(tb[ARS_A_ALTERNATE_IFINDEX]);
		return true;
	}
	if (!tb[ARS_A_ALTERNATE_GATEWAY])
		return false;
	a->glen = mnl_attr_get_payload_len(tb[ARS_A_ALTERNATE_GATEWAY]);
	if (a->glen > sizeof(a->gw))
		return false;
	memcpy(a->gw, mnl_attr_get_payload(tb[ARS_A_ALTERNATE_GATEWAY]),
	       a->glen);
	return true;
}

static const enum mnl_attr_data_type alt_types[ARS_A_ALTERNATE_MAX + 1] = {
	[ARS_A_ALTERNATE_OBJECT] = MNL_TYPE_NUL_STRING,
	[ARS_A_ALTERNATE_IFINDEX] = MNL_TYPE_U32,
	[ARS_A_ALTERNATE_GATEWAY] = MNL_TYPE_BINARY,
};

static void remove_bind(struct blist *l, const struct bkey *k)
{
	size_t i;

	for (i = 0; i < l->n; i++)
		if (bkey_same_key(&l->k[i], k))
			l->k[i--] = l->k[--l->n];
}

/* nl->record of the learning pass: what each request of the file makes. */
static int record(const struct nlmsghdr *req, void *data)
{
	const struct genlmsghdr *genl = mnl_nlmsg_get_payload(req);
	const struct nlattr *tb[ARS_A_ALTERNATE_MAX + 1];
	const struct nlattr *ob[ARS_A_OBJECT_MAX + 1];
	static const enum mnl_attr_data_type otypes[ARS_A_OBJECT_MAX + 1] = {
		[ARS_A_OBJECT_NAME] = MNL_TYPE_NUL_STRING,
	};
	static const enum mnl_attr_data_type itypes[ARS_A_INTERFACE_MAX + 1] = {
		[ARS_A_INTERFACE_IFINDEX] = MNL_TYPE_U32,
	};
	struct cfg *s = data;
	const struct nlattr *a;
	struct bkey k;
	struct alt alt;
	uint32_t ifindex;
	size_t i;

	switch (genl->cmd) {
	case ARS_CMD_OBJECT_NEW:
	case ARS_CMD_OBJECT_SET:
		nl_parse(req, ob, otypes, ARS_A_OBJECT_MAX);
		if (ob[ARS_A_OBJECT_NAME] &&
		    !has_object(s, mnl_attr_get_str(ob[ARS_A_OBJECT_NAME])) &&
		    s->nobjects < ARRAY_SIZE(s->objects))
			snprintf(s->objects[s->nobjects++], ARS_OBJECT_NAME_LEN,
				 "%s", mnl_attr_get_str(ob[ARS_A_OBJECT_NAME]));
		break;
	case ARS_CMD_OBJECT_DEL:
		nl_parse(req, ob, otypes, ARS_A_OBJECT_MAX);
		for (i = 0; ob[ARS_A_OBJECT_NAME] && i < s->nobjects; i++)
			if (!strcmp(s->objects[i],
				    mnl_attr_get_str(ob[ARS_A_OBJECT_NAME])))
				memcpy(s->objects[i--],
				       s->objects[--s->nobjects],
				       ARS_OBJECT_NAME_LEN);
		break;
	case ARS_CMD_BIND_NEW:
	case ARS_CMD_BIND_DEL:
		if (!bkey_from(req, &k))
			break;
		remove_bind(&s->binds, &k);
		if (genl->cmd == ARS_CMD_BIND_NEW &&
		    s->binds.n < ARS_BINDINGS_MAX)
			s->binds.k[s->binds.n++] = k;
		break;
	case ARS_CMD_ALTERNATE_NEW:
	case ARS_CMD_ALTERNATE_DEL:
		nl_parse(req, tb, alt_types, ARS_A_ALTERNATE_MAX);
		if (!tb[ARS_A_ALTERNATE_OBJECT] ||
		    !alt_from(tb, mnl_attr_get_str(tb[ARS_A_ALTERNATE_OBJECT]),
			      &alt))
			break;
		for (i = 0; i < s->nalts; i++)
			if (alt_same(&s->alts[i], &alt))
				s->alts[i--] = s->alts[--s->nalts];
		if (genl->cmd == ARS_CMD_ALTERNATE_NEW &&
		    s->nalts < ARRAY_SIZE(s->alts))
			s->alts[s->nalts++] = alt;
		break;
	case ARS_CMD_INTERFACE_ENABLE:
	case ARS_CMD_INTERFACE_DISABLE:
		nl_parse(req, tb, itypes, ARS_A_INTERFACE_MAX);
		if (!tb[ARS_A_INTERFACE_IFINDEX])
			break;
		ifindex = mnl_attr_get_u32(tb[ARS_A_INTERFACE_IFINDEX]);
		for (i = 0; i < s->nifaces; i++)
			if (s->ifaces[i] == ifindex)
				s->ifaces[i--] = s->ifaces[--s->nifaces];
		if (genl->cmd == ARS_CMD_INTERFACE_ENABLE &&
		    s->nifaces < ARRAY_SIZE(s->ifaces))
			s->ifaces[s->nifaces++] = ifindex;
		break;
	case ARS_CMD_PROFILE_SET:
		mnl_attr_for_each(a, req, sizeof(*genl))
			if (mnl_attr_get_type(a) <= ARS_A_PROFILE_MAX)
				s->profile[mnl_attr_get_type(a)] = true;
		break;
	}
	return 0;
}

/* The objects, with their alternates, that the kernel holds. */
static int have_objects_cb(const struct nlmsghdr *nlh, void *data)
{
	const struct nlattr *tb[ARS_A_ALTERNATE_MAX + 1];
	struct cfg *s = data;
	const char *name = NULL;
	const struct nlattr *a;
	struct alt alt;

	mnl_attr_for_each(a, nlh, sizeof(struct genlmsghdr))
		if (mnl_attr_get_type(a) == ARS_A_OBJECT_NAME &&
		    !mnl_attr_validate(a, MNL_TYPE_NUL_STRING))
			name = mnl_attr_get_str(a);
	if (!name || s->nobjects == ARRAY_SIZE(s->objects))
		return MNL_CB_OK;
	snprintf(s->objects[s->nobjects++], ARS_OBJECT_NAME_LEN, "%s", name);
	mnl_attr_for_each(a, nlh, sizeof(struct genlmsghdr)) {
		if (mnl_attr_get_type(a) != ARS_A_OBJECT_ALTERNATE)
			continue;
		nl_parse_nested(a, tb, alt_types, ARS_A_ALTERNATE_MAX);
		if (alt_from(tb, name, &alt) && s->nalts < ARRAY_SIZE(s->alts))
			s->alts[s->nalts++] = alt;
	}
	return MNL_CB_OK;
}

static int have_interfaces_cb(const struct nlmsghdr *nlh, void *data)
{
	static const enum mnl_attr_data_type types[ARS_A_INTERFACE_MAX + 1] = {
		[ARS_A_INTERFACE_IFINDEX] = MNL_TYPE_U32,
	};
	const struct nlattr *tb[ARS_A_INTERFACE_MAX + 1];
	struct cfg *s = data;

	nl_parse(nlh, tb, types, ARS_A_INTERFACE_MAX);
	if (tb[ARS_A_INTERFACE_IFINDEX] && s->nifaces < ARRAY_SIZE(s->ifaces))
		s->ifaces[s->nifaces++] =
			mnl_attr_get_u32(tb[ARS_A_INTERFACE_IFINDEX]);
	return MNL_CB_OK;
}

static int state_fetch(struct ctx *c, struct cfg *s)
{
	int err;

	memset(s, 0, sizeof(*s));
	err = blist_fetch(c, &s->binds);
	if (err)
		return err;
	nl_request(&c->nl, ARS_CMD_OBJECT_GET, NLM_F_DUMP);
	err = nl_talk(&c->nl, have_objects_cb, s);
	if (err)
		return err;
	nl_request(&c->nl, ARS_CMD_INTERFACE_GET, NLM_F_DUMP);
	return nl_talk(&c->nl, have_interfaces_cb, s);
}

/* "object NAME" and what else a refusal while removing names. */
static int removing(struct ctx *c, const char *what, bool gone_ok)
{
	int err = nl_talk(&c->nl, NULL, NULL);

	if (!err || (gone_ok && err == -ENOENT))
		return EXIT_OK;
	c->cmd = "reconcile";
	return cmd_error(c, err, what);
}

/*
 * What the kernel holds and want does not name goes: bindings first (an
 * object they use cannot go before them, and a prefix the file binds
 * anew may overlap one it no longer binds), alternates, interfaces. With
 * objects, those objects too; one the profile's default-object still
 * names is left for after the file (deferred).
 */
static int prune(struct ctx *c, const struct cfg *want, bool objects,
		 bool *deferred)
{
	static struct cfg have;
	char what[64];
	size_t i;
	int err, ret = EXIT_OK;

	err = state_fetch(c, &have);
	if (err) {
		c->cmd = "reconcile";
		return cmd_error(c, err, "reading the kernel's configuration");
	}
	for (i = 0; !objects && i < have.binds.n; i++) {
		size_t j;

		for (j = 0; j < want->binds.n; j++)
			if (bkey_same(&have.binds.k[i], &want->binds.k[j]))
				break;
		if (j < want->binds.n)
			continue;
		bkey_del_request(&c->nl, &have.binds.k[i]);
		ret |= removing(c, "deleting a binding", true);
	}
	for (i = 0; !objects && i < have.nalts; i++) {
		const struct alt *a = &have.alts[i];

		/* An object that goes takes its own; default never goes. */
		if (has_alt(want, a) || (!has_object(want, a->object) &&
					 strcmp(a->object, "default")))
			continue;
		nl_request(&c->nl, ARS_CMD_ALTERNATE_DEL, 0);
		mnl_attr_put_strz(c->nl.req, ARS_A_ALTERNATE_OBJECT, a->object);
		if (a->ifindex)
			mnl_attr_put_u32(c->nl.req, ARS_A_ALTERNATE_IFINDEX,
					 a->ifindex);
		else
			mnl_attr_put(c->nl.req, ARS_A_ALTERNATE_GATEWAY,
				     a->glen, a->gw);
		snprintf(what, sizeof(what), "deleting an alternate of %s",
			 a->object);
		ret |= removing(c, what, true);
	}
	for (i = 0; !objects && i < have.nifaces; i++) {
		if (has_interface(want, have.ifaces[i]))
			continue;
		nl_request(&c->nl, ARS_CMD_INTERFACE_DISABLE, 0);
		mnl_attr_put_u32(c->nl.req, ARS_A_INTERFACE_IFINDEX,
				 have.ifaces[i]);
		ret |= removing(c, "disabling an interface", true);
	}
	for (i = 0; objects && i < have.nobjects; i++) {
		if (!strcmp(have.objects[i], "default") ||
		    has_object(want, have.objects[i]))
			continue;
		nl_request(&c->nl, ARS_CMD_OBJECT_DEL, 0);
		mnl_attr_put_strz(c->nl.req, ARS_A_OBJECT_NAME, have.objects[i]);
		err = nl_talk(&c->nl, NULL, NULL);
		if (!err || err == -ENOENT)
			continue;
		if (err == -EBUSY && deferred) {
			*deferred = true;
			continue;
		}
		snprintf(what, sizeof(what), "deleting object %s",
			 have.objects[i]);
		c->cmd = "reconcile";
		ret |= cmd_error(c, err, what);
	}
	return ret ? EXIT_FAIL : EXIT_OK;
}

int reconcile_learn(struct ctx *c, struct cfg **out)
{
	struct cfg *s = calloc(1, sizeof(*s));

	if (!s) {
		fprintf(stderr, "%sout of memory\n", msg_prefix());
		return EXIT_FAIL;
	}
	c->nl.record = record;
	c->nl.record_data = s;
	*out = s;
	return EXIT_OK;
}

int reconcile_prune(struct ctx *c, struct cfg *want)
{
	bool deferred = false;

	c->nl.record = NULL;
	c->nl.record_data = NULL;
	if (prune(c, want, false, NULL))
		return EXIT_FAIL;
	/* Before the file's objects come: at most 16 fit. */
	return prune(c, want, true, &deferred);
}

/*
 * The built-in object default, when the file does not name it: its
 * settings back at their defaults (its mode and idle time are the
 * profile's, which profile_reset() sees to).
 */
static int default_reset(struct ctx *c, const struct cfg *want)
{
	if (has_object(want, "default"))
		return EXIT_OK;
	nl_request(&c->nl, ARS_CMD_OBJECT_SET, 0);
	mnl_attr_put_strz(c->nl.req, ARS_A_OBJECT_NAME, "default");
	mnl_attr_put_u8(c->nl.req, ARS_A_OBJECT_PRIMARY_THRESHOLD, 0);
	mnl_attr_put_u8(c->nl.req, ARS_A_OBJECT_ALTERNATE_COST, 0);
	mnl_attr_put_u8(c->nl.req, ARS_A_OBJECT_ALTERNATE_BIAS,
			ARS_ALTERNATE_BIAS_MAX);
	mnl_attr_put_u32(c->nl.req, ARS_A_OBJECT_TABLE_SIZE, 0);
	return removing(c, "resetting object default", false);
}

int reconcile_finish(struct ctx *c, struct cfg *want)
{
	int ret;

	ret = default_reset(c, want);
	if (!ret)
		ret = profile_reset(c, want->profile);
	if (!ret)
		ret = prune(c, want, true, NULL);
	free(want);
	return ret;
}
