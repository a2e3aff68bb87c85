/* SPDX-License-Identifier: GPL-2.0 */
/*
 * arsctl: the generic netlink socket of the "ars" family.
 *
 * Functions returning int give 0 or a negative errno. The kernel's extended
 * ACK (message, offending attribute, its valid range) is kept in struct
 * ars_nl until the next request, for nl_perror().
 */
#ifndef _ARSCTL_NL_H
#define _ARSCTL_NL_H

#include <stdbool.h>
#include <stdint.h>

#include <libmnl/libmnl.h>

struct ars_extack {
	char msg[256];		/* empty when the kernel gave none */
	uint32_t offs;		/* offending attribute's offset, 0 if none */
	bool has_range;
	uint64_t min, max;	/* valid range of that attribute */
};

struct ars_nl {
	struct mnl_socket *sock;
	unsigned int portid;
	unsigned int seq;
	uint16_t family;
	uint32_t version;
	uint32_t mcgrp_monitor;	/* 0 when the kernel has no such group */
	struct nlmsghdr *req;	/* the request being built or last sent */
	struct ars_extack ext;
	bool dump_intr;		/* a dump was interrupted by a change */
	/*
	 * When set, nl_talk() gives its request to record() instead of
	 * sending it, and returns what record() returns: arsctl -r learns
	 * from the batch's requests what the configuration holds.
	 */
	int (*record)(const struct nlmsghdr *req, void *data);
	void *record_data;
};

/*
 * Open a generic netlink socket and look up the ars family; prints the
 * error (the module-not-loaded message when the family is absent).
 */
int nl_open(struct ars_nl *nl);
void nl_close(struct ars_nl *nl);

/*
 * Whether the ars family is still registered under nl's id, asked on a
 * socket of its own, so that the answer cannot mix with the multicast
 * events nl receives. True when that cannot be told.
 */
bool nl_family_alive(const struct ars_nl *nl);

/*
 * Start a request for cmd, a do (which asks for an ACK) unless flags has
 * NLM_F_DUMP; attributes go after it with mnl_attr_put*(nl->req, ...).
 */
struct nlmsghdr *nl_request(struct ars_nl *nl, uint8_t cmd, uint16_t flags);

/*
 * Send nl->req and run cb on every reply message until the ACK or the end
 * of the dump. cb may be NULL when no reply is expected.
 */
int nl_talk(struct ars_nl *nl, mnl_cb_t cb, void *data);

/*
 * Keep a copy of nl->req in buf (of NL_REQ_MAX bytes) while other requests
 * are made, then make it the request again, with a new sequence number.
 */
#define NL_REQ_MAX	8192
void nl_save_req(const struct ars_nl *nl, void *buf);
void nl_restore_req(struct ars_nl *nl, const void *buf);

/* Join the monitor group, or another; then nl_recv() until it fails. */
int nl_join_monitor(struct ars_nl *nl);
int nl_join_group(struct ars_nl *nl, int grp);
int nl_fd(const struct ars_nl *nl);
int nl_recv(struct ars_nl *nl, mnl_cb_t cb, void *data);

/*
 * Report err on stderr as "arsctl: <extack message>" (strerror when the
 * kernel gave no message, and without the kernel's "ars: " prefix),
 * followed by " (<detail>)" when detail is set.
 */
void nl_perror(const struct ars_nl *nl, int err, const char *detail);

/* Type of the request attribute the kernel refused, -1 if it named none. */
int nl_bad_attr(const struct ars_nl *nl);

/*
 * Parse the attributes of a genl message into tb[0..max], each checked
 * against types[] (indexed by attribute type); an attribute that is
 * malformed or unknown to this arsctl is left out.
 */
void nl_parse(const struct nlmsghdr *nlh, const struct nlattr **tb,
	      const enum mnl_attr_data_type *types, unsigned int max);

/* The same for the attributes nested in nest. */
void nl_parse_nested(const struct nlattr *nest, const struct nlattr **tb,
		     const enum mnl_attr_data_type *types, unsigned int max);

#endif /* _ARSCTL_NL_H */
