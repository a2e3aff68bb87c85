// SPDX-License-Identifier: GPL-2.0
/*
 * Ports: one entry per network device of each namespace, keyed by ifindex,
 * holding what ars steered to the device and the device's quality as the
 * ars qdisc measures it.
 *
 * Entries come and go with the devices, from a netdevice notifier (under
 * RTNL, which serialises every change of the table); the data plane finds
 * them under RCU, so it never allocates. The table is an array indexed by
 * ifindex for the namespace's first devices and an xarray for the rest
 * (ars_port_find()): no chain to walk, however many devices there are.
 */
#include <linux/ethtool.h>
#include <linux/netdevice.h>
#include <linux/rculist.h>
#include <linux/rtnetlink.h>
#include <linux/slab.h>
#include <net/netns/generic.h>

#include "ports.h"
#include "state.h"

/* The link speed, in bit/s, for ports measured without a bandwidth. */
static void ars_port_read_speed(struct ars_port *port, struct net_device *dev)
{
	struct ethtool_link_ksettings ks;
	u64 speed = 0;

	ASSERT_RTNL();
	if (!__ethtool_get_link_ksettings(dev, &ks) &&
	    ks.base.speed != SPEED_UNKNOWN && ks.base.speed)
		speed = (u64)ks.base.speed * 1000000;
	WRITE_ONCE(port->link_speed, speed);
}

static void ars_port_free_rcu(struct rcu_head *head)
{
	struct ars_port *port = container_of(head, struct ars_port, rcu);

	ars_free_percpu(port->pcpu);
	kfree(port);
	ars_object_put();
}

/* A port-info dump that spans a change is flagged (ars_port_info_dumpit()). */
static void ars_ports_changed(struct ars_net *an)
{
	WRITE_ONCE(an->ports_seq, (an->ports_seq + 1) ?: 1);
}

/* A reference of the table or of a qdisc (ports.h); under RTNL. */
void ars_port_put(struct ars_port *port)
{
	if (refcount_dec_and_test(&port->refcnt))
		call_rcu(&port->rcu, ars_port_free_rcu);
}

/* Its qdiscs, which hold ars.ko, may still hold it (ports.h). */
static void ars_port_del(struct ars_net *an, struct ars_port *port)
{
	if ((unsigned int)port->ifindex < ARS_PORTS_DIRECT)
		RCU_INIT_POINTER(an->ports[port->ifindex], NULL);
	else
		xa_erase(&an->ports_far, port->ifindex);
	ars_ports_changed(an);
	ars_port_put(port);
}

static int ars_port_add(struct ars_net *an, struct net_device *dev)
{
	struct ars_port *port;
	int err = -ENOMEM;

	if (ars_port_find(an, dev->ifindex))
		return 0;

	port = kzalloc(sizeof(*port), GFP_KERNEL);
	if (!port)
		return -ENOMEM;
	port->pcpu = ars_alloc_percpu_gfp(struct ars_port_pcpu, GFP_KERNEL);
	if (!port->pcpu)
		goto err_free;
	port->ifindex = dev->ifindex;
	refcount_set(&port->refcnt, 1);		/* the table's */
	port->band = ARS_BAND_UNKNOWN;
	ars_port_read_speed(port, dev);
	if ((unsigned int)dev->ifindex < ARS_PORTS_DIRECT) {
		rcu_assign_pointer(an->ports[dev->ifindex], port);
	} else {
		/* Publishes the initialised port, as rcu_assign_pointer(). */
		err = xa_err(xa_store(&an->ports_far, dev->ifindex, port,
				      GFP_KERNEL));
		if (err)
			goto err_pcpu;
	}
	ars_object_get();
	ars_ports_changed(an);
	return 0;

err_pcpu:
	ars_free_percpu(port->pcpu);
err_free:
	kfree(port);
	return err;
}

static int ars_netdev_event(struct notifier_block *nb, unsigned long event,
			    void *ptr)
{
	struct net_device *dev = netdev_notifier_info_to_dev(ptr);
	struct ars_net *an = ars_pernet(dev_net(dev));
	struct ars_port *port;

	switch (event) {
	case NETDEV_REGISTER:
		/* Without a port the device is simply not counted. */
		if (ars_port_add(an, dev))
			netdev_warn(dev, "ars: no memory to track the device\n");
		break;
	case NETDEV_UP:
	case NETDEV_CHANGE:
		/* Speed and duplex follow the carrier. */
		port = ars_port_find(an, dev->ifindex);
		if (port)
			ars_port_read_speed(port, dev);
		break;
	case NETDEV_UNREGISTER:
		port = ars_port_find(an, dev->ifindex);
		if (port)
			ars_port_del(an, port);
		break;
	}
	return NOTIFY_DONE;
}

static struct notifier_block ars_netdev_nb = {
	.notifier_call = ars_netdev_event,
};

/*
 * Called when the namespace goes away, after its devices did: nothing else
 * reads or changes its table any more.
 */
void ars_ports_flush(struct ars_net *an)
{
	struct ars_port *port;
	unsigned long i;

	for (i = 0; i < ARRAY_SIZE(an->ports); i++) {
		port = rcu_dereference_protected(an->ports[i], true);
		if (port)
			ars_port_del(an, port);
	}
	xa_for_each(&an->ports_far, i, port)
		ars_port_del(an, port);
	xa_destroy(&an->ports_far);
}

int ars_ports_init(void)
{
	/* Replays NETDEV_REGISTER for the devices that already exist. */
	return register_netdevice_notifier(&ars_netdev_nb);
}

void ars_ports_uninit(void)
{
	/* Replays NETDEV_UNREGISTER, which frees every port. */
	unregister_netdevice_notifier(&ars_netdev_nb);
}
