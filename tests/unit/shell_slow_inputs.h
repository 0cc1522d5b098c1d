/* Inputs that a careless shell parser takes quadratic time over: a head, a
 * unit repeated to the size wanted, a tail.  Shared by the unit test (they
 * must parse) and bench/shell_bench (their time must grow linearly). */
#ifndef CORDON_SHELL_SLOW_INPUTS_H
#define CORDON_SHELL_SLOW_INPUTS_H

struct shell_slow_input {
	const char *name, *head, *unit, *tail;
};

static const struct shell_slow_input shell_slow_inputs[] = {
	{ "braces", ": ", "{", "" },
	{ "brace commas", ": ", "{,", "}" },
	{ "brackets", ": ", "[", "" },
	{ "bracket quotes", ": ", "[\"", "" },
	{ "arith comments", "", "$(( #(\n))", "" },
	{ "cd chain", "", "cd a;", "" },
	{ "pipeline", "", "a|", "a" },
	{ "and-or", "", "a&&", "a" },
	{ "sudo chain", "", "sudo ", "rm" },
	{ "find exec chain", "", "find -exec ", "rm" },
	{ "here-docs", "", "cat <<E\nE\n", "" },
	{ "ansi escapes", ": ", "$'\\x41'", "" },
	{ "eval chain", "", "eval ", "rm" },
	{ "functions", "", "f(){ cd x; };f;", "" },
	{ "assignments", "", "a=b ", "c" },
	{ "tilde", ": ", "~", "" },
	{ "git -c", "git ", "-c alias.x=y ", "x" },
	{ "quotes", ": ", "\"$(x)\"", "" },
	};

#endif
