/* SPDX-License-Identifier: GPL-2.0 */
/*
 * arsctl: requests on an rtnetlink socket (routes, nexthop objects,
 * links), beside the generic netlink one of nl.h. Functions returning int
 * give 0 or a negative errno.
 */
#ifndef _ARSCTL_RTNL_H
#define _ARSCTL_RTNL_H

#include <stddef.h>
#include <stdint.h>

#include <libmnl/libmnl.h>

/* An rtnetlink socket, bound; NULL with errno set. */
struct mnl_socket *rtnl_open(void);

/*
 * Send nlh (its sequence number set here) and run cb on every reply until
 * the end of the dump or the ACK: a request that is no dump must ask for
 * one (NLM_F_ACK). A dump that ends in an error (NLMSG_DONE carries it)
 * fails with it.
 */
int rtnl_talk(struct mnl_socket *sock, struct nlmsghdr *nlh, mnl_cb_t cb,
	      void *data);

/*
 * A dump of messages of type type, family family; hdrlen is the size of
 * the request's family header (struct rtmsg, nhmsg, ifinfomsg), each of
 * which begins with the family.
 */
int rtnl_dump(struct mnl_socket *sock, uint16_t type, int family,
	      size_t hdrlen, mnl_cb_t cb, void *data);

/* The same dump with one u32 attribute attr (its value) in the request. */
int rtnl_dump_u32(struct mnl_socket *sock, uint16_t type, int family,
		  size_t hdrlen, uint16_t attr, uint32_t value, mnl_cb_t cb,
		  void *data);

#endif /* _ARSCTL_RTNL_H */
