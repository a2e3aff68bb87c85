/* SPDX-License-Identifier: GPL-2.0 */
/*
 * arsctl: what the commands share.
 *
 * A command first parses all of its arguments (a usage error exits 2
 * before anything touches the kernel), then talks to the kernel through
 * an open struct ars_nl. Commands return the exit status.
 */
#ifndef _ARSCTL_H
#define _ARSCTL_H

#include <stdbool.h>

#include "json.h"
#include "nl.h"

enum {
	EXIT_OK		= 0,
	EXIT_FAIL	= 1,	/* the kernel or the system refused */
	EXIT_USAGE	= 2,	/* the command line is wrong */
};

struct ctx {
	bool json;
	struct json jw;		/* valid when json */
	struct ars_nl nl;
	bool listing;		/* a listing's output has started */
	int argc;		/* the command's arguments, after its name */
	char **argv;
};

/* Print "arsctl: <fmt>" and a hint to stderr; returns EXIT_USAGE. */
int usage_error(const char *fmt, ...)
	__attribute__((format(printf, 1, 2)));

/* Open the socket (the ars family must exist); false after an error. */
bool ctx_open(struct ctx *c);

int cmd_show(struct ctx *c);
int cmd_set(struct ctx *c);
int cmd_stats(struct ctx *c);
int cmd_flows(struct ctx *c);
int cmd_paths(struct ctx *c);
int cmd_monitor(struct ctx *c);

/*
 * A listing (flows, paths) starts its output, the JSON array or the table
 * header, with its first entry, so that an error before any entry leaves
 * stdout empty; list_end() starts it if need be (an empty listing), ends
 * it, and reports err (exit 1) or warns when the dump was interrupted by a
 * change (its output may miss or repeat an entry).
 */
void list_begin(struct ctx *c, void (*print_header)(void));
int list_end(struct ctx *c, void (*print_header)(void), int err);

/*
 * The name of device ifindex in the current namespace, in buf of
 * IF_NAMESIZE bytes; NULL for index 0 or a device that is gone.
 */
const char *ifname(unsigned int ifindex, char *buf);

#endif /* _ARSCTL_H */
