/* SPDX-License-Identifier: GPL-2.0 */
/*
 * arsctl: parsing of command line values and formatting of values for
 * humans. Parsers return 0 or -EINVAL (-ERANGE on overflow) and leave the
 * result untouched on error; they check syntax only, ranges are the
 * kernel's business. Keywords and names are taken in any case.
 */
#ifndef _ARSCTL_PARSE_H
#define _ARSCTL_PARSE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

/* Big enough for any value the fmt_*() helpers print. */
#define FMT_BUFSZ	32

/*
 * Whether arg names word: a non-empty prefix of it, in any case, as ip(8)
 * takes "sh" for "show". Tables are searched in order, so the first word
 * an abbreviation fits wins.
 */
bool matches(const char *arg, const char *word);

/* Whether s, in any case, is a time unit that parse_time() knows. */
bool is_time_unit(const char *s);

int parse_time(const char *s, uint64_t *ns);
int parse_u32(const char *s, uint32_t *val);
int parse_percent(const char *s, uint32_t *val);
int parse_on_off(const char *s, bool *on);
int parse_mode(const char *s, uint32_t *mode);

const char *mode_name(uint32_t mode);
const char *reason_name(uint32_t reason);
const char *family_name(uint32_t af);

void fmt_time_exact(char *buf, size_t len, uint64_t ns);
void fmt_time_short(char *buf, size_t len, uint64_t ns);
void fmt_bits(char *buf, size_t len, uint64_t bits);
void fmt_bytes(char *buf, size_t len, uint64_t bytes);
void fmt_permille(char *buf, size_t len, uint32_t permille);
/* "2026-11-30T14:05:09.123456", local time, from a CLOCK_REALTIME time. */
void fmt_timestamp(char *buf, size_t len, uint64_t realtime_ns);

/*
 * The kernel's extended ACK message as arsctl prints it: without the
 * "ars: " that NL_SET_ERR_MSG_MOD() puts before it, arsctl's own
 * "arsctl: " saying already where it comes from.
 */
const char *kernel_msg(const char *msg);

/*
 * What every message on stderr begins with: "arsctl: ", and while a batch
 * runs, the file and line of its command, "arsctl: ars.conf:3: ".
 * batch_where(NULL, 0) goes back to the plain prefix.
 */
const char *msg_prefix(void);
void batch_where(const char *file, unsigned int line);

/*
 * What needs CAP_NET_ADMIN in command cmd ("set", "stats reset", "flows",
 * "monitor"), for the message of an EPERM: "changing the profile".
 */
const char *privileged_action(const char *cmd);

#endif /* _ARSCTL_PARSE_H */
