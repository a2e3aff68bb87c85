// SPDX-License-Identifier: GPL-2.0
/*
 * arsctl: a minimal streaming JSON writer (RFC 8259 output).
 *
 * Strings are escaped as the RFC requires ('"', '\\' and control
 * characters); other bytes pass through when they form valid UTF-8, and
 * each byte that does not is replaced by U+FFFD, so the output is always
 * valid JSON whatever a device name holds.
 */
#include <inttypes.h>
#include <stddef.h>

#include "json.h"

void json_init(struct json *j, FILE *f, bool pretty)
{
	*j = (struct json){ .f = f, .pretty = pretty };
}

static void indent(struct json *j)
{
	unsigned int i;

	fputc('\n', j->f);
	for (i = 0; i < j->depth; i++)
		fputs("    ", j->f);
}

/* Separate a new item (a value or a key) from the previous one. */
static void begin_item(struct json *j)
{
	if (j->after_key) {
		j->after_key = false;
		return;
	}
	if (j->has_items[j->depth])
		fputc(',', j->f);
	if (j->pretty && j->depth)
		indent(j);
	j->has_items[j->depth] = true;
}

/* A top-level value is complete: end its line. */
static void end_value(struct json *j)
{
	if (!j->depth && !j->after_key) {
		fputc('\n', j->f);
		j->has_items[0] = false;
	}
}

static void open_container(struct json *j, char c)
{
	begin_item(j);
	fputc(c, j->f);
	if (j->depth < JSON_MAX_DEPTH)
		j->depth++;
	j->has_items[j->depth] = false;
}

static void close_container(struct json *j, char c)
{
	bool had_items = j->has_items[j->depth];

	if (j->depth)
		j->depth--;
	if (j->pretty && had_items)
		indent(j);
	fputc(c, j->f);
	end_value(j);
}

void json_object_open(struct json *j)
{
	open_container(j, '{');
}

void json_object_close(struct json *j)
{
	close_container(j, '}');
}

void json_array_open(struct json *j)
{
	open_container(j, '[');
}

void json_array_close(struct json *j)
{
	close_container(j, ']');
}

/* Length of the valid UTF-8 sequence at s, 0 if there is none. */
static size_t utf8_len(const unsigned char *s)
{
	unsigned char lo = 0x80, hi = 0xbf;
	size_t n, i;

	if (s[0] < 0x80)
		return 1;
	if (s[0] >= 0xc2 && s[0] <= 0xdf)
		n = 2;
	else if (s[0] >= 0xe0 && s[0] <= 0xef)
		n = 3;
	else if (s[0] >= 0xf0 && s[0] <= 0xf4)
		n = 4;
	else
		return 0;

	/* No overlong forms, no surrogates, nothing above U+10FFFF. */
	if (s[0] == 0xe0)
		lo = 0xa0;
	else if (s[0] == 0xed)
		hi = 0x9f;
	else if (s[0] == 0xf0)
		lo = 0x90;
	else if (s[0] == 0xf4)
		hi = 0x8f;
	if (s[1] < lo || s[1] > hi)
		return 0;
	for (i = 2; i < n; i++)
		if (s[i] < 0x80 || s[i] > 0xbf)
			return 0;
	return n;
}

static void write_char(FILE *f, unsigned char c)
{
	switch (c) {
	case '"':
		fputs("\\\"", f);
		break;
	case '\\':
		fputs("\\\\", f);
		break;
	case '\b':
		fputs("\\b", f);
		break;
	case '\f':
		fputs("\\f", f);
		break;
	case '\n':
		fputs("\\n", f);
		break;
	case '\r':
		fputs("\\r", f);
		break;
	case '\t':
		fputs("\\t", f);
		break;
	default:
		if (c < 0x20)
			fprintf(f, "\\u%04x", c);
		else
			fputc(c, f);
	}
}

void json_write_escaped(FILE *f, const char *str)
{
	const unsigned char *s = (const unsigned char *)str;
	size_t n;

	fputc('"', f);
	while (*s) {
		n = utf8_len(s);
		if (n == 1) {
			write_char(f, *s);
		} else if (n) {
			fwrite(s, 1, n, f);
		} else {
			fputs("\\ufffd", f);
			n = 1;
		}
		s += n;
	}
	fputc('"', f);
}

void json_key(struct json *j, const char *key)
{
	begin_item(j);
	json_write_escaped(j->f, key);
	fputs(j->pretty ? ": " : ":", j->f);
	j->after_key = true;
}

void json_string(struct json *j, const char *s)
{
	begin_item(j);
	json_write_escaped(j->f, s);
	end_value(j);
}

void json_u64(struct json *j, uint64_t v)
{
	begin_item(j);
	fprintf(j->f, "%" PRIu64, v);
	end_value(j);
}

void json_bool(struct json *j, bool v)
{
	begin_item(j);
	fputs(v ? "true" : "false", j->f);
	end_value(j);
}

void json_null(struct json *j)
{
	begin_item(j);
	fputs("null", j->f);
	end_value(j);
}

void json_kv_string(struct json *j, const char *key, const char *s)
{
	json_key(j, key);
	json_string(j, s);
}

void json_kv_u64(struct json *j, const char *key, uint64_t v)
{
	json_key(j, key);
	json_u64(j, v);
}

void json_kv_bool(struct json *j, const char *key, bool v)
{
	json_key(j, key);
	json_bool(j, v);
}
