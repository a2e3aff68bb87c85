// SPDX-License-Identifier: GPL-2.0
/*
 * arsctl -b FILE: the commands of a file, one a line, as ip -b and tc -b
 * run theirs. A configuration file (/etc/ars/ars.conf) is such a batch.
 *
 * All or nothing as far as arsctl can tell: every line is parsed before
 * the first is sent, so that a typo on line 9 leaves the kernel as it
 * was, not with lines 1 to 8 applied. A command the kernel refuses stops
 * the batch there; the commands before it stay applied, since the kernel
 * has no transaction to roll them back. Messages name the file and the
 * line: "arsctl: ars.conf:9: set: unknown keyword "idle"".
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arsctl.h"
#include "parse.h"

#define WORDS_MAX	64

struct line {
	unsigned int no;
	int argc;
	char **argv;	/* into buf */
	char *buf;
};

struct batch {
	const char *name;	/* as messages print it */
	struct line *lines;
	size_t n, alloc;
};

static void batch_free(struct batch *b)
{
	size_t i;

	for (i = 0; i < b->n; i++) {
		free(b->lines[i].argv);
		free(b->lines[i].buf);
	}
	free(b->lines);
}

/*
 * Split buf into words at blanks; a word that begins with '#' begins a
 * comment. Returns the number of words, or -1 when there are too many.
 */
static int split_words(char *buf, char **argv)
{
	char *save = NULL, *w;
	int n = 0;

	for (w = strtok_r(buf, " \t\r\n\v\f", &save); w;
	     w = strtok_r(NULL, " \t\r\n\v\f", &save)) {
		if (w[0] == '#')
			break;
		if (n == WORDS_MAX)
			return -1;
		argv[n++] = w;
	}
	argv[n] = NULL;
	return n;
}

static int add_line(struct batch *b, char *text, unsigned int no)
{
	struct line *l;
	char **argv;
	int n;

	argv = calloc(WORDS_MAX + 1, sizeof(*argv));
	if (!argv)
		return -ENOMEM;
	n = split_words(text, argv);
	if (n <= 0) {
		free(argv);
		if (n == 0)
			return 0;	/* blank, or a comment */
		batch_where(b->name, no);
		fprintf(stderr, "%smore than %d words\n", msg_prefix(),
			WORDS_MAX);
		return -E2BIG;
	}
	if (b->n == b->alloc) {
		size_t alloc = b->alloc ? 2 * b->alloc : 16;

		l = realloc(b->lines, alloc * sizeof(*l));
		if (!l) {
			free(argv);
			return -ENOMEM;
		}
		b->lines = l;
		b->alloc = alloc;
	}
	b->lines[b->n++] = (struct line){ no, n, argv, text };
	return 1;
}

/* Every command line of f into b; 0 or -errno, having said why. */
static int batch_read(struct batch *b, FILE *f)
{
	unsigned int no = 0;
	char *text = NULL;
	size_t len = 0;
	int ret;

	while (getline(&text, &len, f) >= 0) {
		no++;
		ret = add_line(b, text, no);
		if (ret == -ENOMEM)
			fprintf(stderr, "%sout of memory\n", msg_prefix());
		if (ret < 0) {
			free(text);
			return ret;
		}
		if (ret > 0) {		/* the line keeps its buffer */
			text = NULL;
			len = 0;
		}
	}
	free(text);
	if (ferror(f)) {
		ret = -errno;
		fprintf(stderr, "%sreading \"%s\": %s\n", msg_prefix(),
			b->name, strerror(errno));
		return ret;
	}
	return 0;
}

/* Reset what a command leaves in c, for the next one. */
static void ctx_next(struct ctx *c, const struct line *l, bool pretty)
{
	c->cmd = NULL;
	c->listing = false;
	c->parsed = false;
	c->argc = l->argc - 1;
	c->argv = l->argv + 1;
	json_init(&c->jw, stdout, pretty);
}

/*
 * First pass: each command parses its arguments and stops where it would
 * open the socket (ctx_open() notes that it got there). A command that
 * needs no kernel (help) is done by then and prints nothing. Every line is
 * checked, each bad one reported; false if there was one.
 */
static bool batch_check(struct ctx *c, const struct batch *b, bool pretty)
{
	bool good = true;
	size_t i;
	int ret;

	c->checking = true;
	c->nobjects = 0;
	for (i = 0; i < b->n; i++) {
		batch_where(b->name, b->lines[i].no);
		ctx_next(c, &b->lines[i], pretty);
		ret = run_command(c, b->lines[i].argv[0]);
		if (ret != EXIT_OK && !c->parsed)
			good = false;
	}
	c->checking = false;
	return good;
}

/* Every line in order, until one fails; EXIT_OK or EXIT_FAIL. */
static int batch_apply(struct ctx *c, const struct batch *b, bool pretty)
{
	size_t i;

	for (i = 0; i < b->n; i++) {
		batch_where(b->name, b->lines[i].no);
		ctx_next(c, &b->lines[i], pretty);
		if (run_command(c, b->lines[i].argv[0]) != EXIT_OK)
			return EXIT_FAIL;
		/* Each command's output is whole before the next one runs. */
		fflush(stdout);
	}
	return EXIT_OK;
}

/*
 * arsctl -r: the lines run once with their requests noted, not sent, to
 * learn what the file names; what else the kernel holds is removed; the
 * lines run again, add and enable as replace; what is left over goes.
 */
static int batch_reconcile(struct ctx *c, const struct batch *b,
			   bool pretty)
{
	struct cfg *want;
	FILE *out = stdout;
	int ret;

	/*
	 * Open first: nl_open() would clear what reconcile_learn() sets. A
	 * reconcile needs the module whatever the file says, so its absence
	 * is the run's error, not that of the check pass's last line.
	 */
	batch_where(NULL, 0);
	if (!ctx_open(c) || reconcile_learn(c, &want))
		return EXIT_FAIL;
	/* What the lines print (show) is printed once, when they run. */
	stdout = fopen("/dev/null", "w");
	if (!stdout)
		stdout = out;
	ret = batch_apply(c, b, pretty);
	if (stdout != out)
		fclose(stdout);
	stdout = out;
	batch_where(NULL, 0);
	if (!ret)
		ret = reconcile_prune(c, want);
	if (!ret)
		ret = batch_apply(c, b, pretty);
	batch_where(NULL, 0);
	if (!ret)
		return reconcile_finish(c, want);
	free(want);
	return ret;
}

int batch_run(struct ctx *c, const char *file, bool pretty, bool check_only)
{
	struct batch b = { .name = strcmp(file, "-") ? file : "stdin" };
	FILE *f = strcmp(file, "-") ? fopen(file, "r") : stdin;
	int ret = EXIT_OK;

	if (!f) {
		fprintf(stderr, "%scannot open \"%s\": %s\n", msg_prefix(), file,
			strerror(errno));
		return EXIT_FAIL;
	}
	if (batch_read(&b, f) || !batch_check(c, &b, pretty))
		ret = EXIT_FAIL;
	if (!check_only && ret == EXIT_OK)
		ret = c->replace ? batch_reconcile(c, &b, pretty) :
				   batch_apply(c, &b, pretty);
	batch_where(NULL, 0);
	if (f != stdin)
		fclose(f);
	batch_free(&b);
	return ret;
}
