/* SPDX-License-Identifier: GPL-2.0 */
/*
 * arsctl: a minimal streaming JSON writer. Values are written as they come;
 * the writer only tracks nesting, so that commas, keys and (with pretty)
 * indentation come out right. A finished top-level value ends its line, so
 * one writer can emit a stream of objects, one per line.
 */
#ifndef _ARSCTL_JSON_H
#define _ARSCTL_JSON_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#define JSON_MAX_DEPTH	16

struct json {
	FILE *f;
	bool pretty;
	bool after_key;		/* a key was written, its value comes next */
	unsigned int depth;
	bool has_items[JSON_MAX_DEPTH + 1];
};

void json_init(struct json *j, FILE *f, bool pretty);

void json_object_open(struct json *j);
void json_object_close(struct json *j);
void json_array_open(struct json *j);
void json_array_close(struct json *j);

void json_key(struct json *j, const char *key);
void json_string(struct json *j, const char *s);
void json_u64(struct json *j, uint64_t v);
void json_bool(struct json *j, bool v);
void json_null(struct json *j);

void json_kv_string(struct json *j, const char *key, const char *s);
void json_kv_u64(struct json *j, const char *key, uint64_t v);
void json_kv_bool(struct json *j, const char *key, bool v);

/* The string s as a quoted JSON string, invalid UTF-8 as U+FFFD. */
void json_write_escaped(FILE *f, const char *s);

#endif /* _ARSCTL_JSON_H */
