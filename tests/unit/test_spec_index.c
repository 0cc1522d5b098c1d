/* The index of a program spec's option and subcommand names
 * (lib/ir/ir_spec_index.c) against a plain scan of the spec, over every
 * spec of the embedded policy (rules/commands.cordon): each option name,
 * its prefixes (an index answers only whole names; the abbreviations
 * git and getopt_long accept are resolved by the analysis, not here), the
 * name with "=value" (the --opt=value form looks up the part before '='),
 * the names of every other spec's options, and words no spec names; each
 * subcommand name, glob names matched, and the roles declared.  Then
 * specs made here, for the order rules a policy rarely exercises. */
#include "config.h"

#include "check/policy.h"
#include "ir/ir.h"
#include "base/strmap.h"
#include "base/util.h"
#include "cordon.h"

#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tap.h"

/* The first option with a name of exactly the n bytes of name; one in the
 * role contacts only where no option of another role has the name. */
static const struct ir_option *scan_option(const struct ir_spec *s, const char *name, size_t n)
{
	const struct ir_option *contacts = NULL;
	for (size_t i = 0; i < s->noptions; i++)
		for (size_t j = 0; j < s->options[i].nnames; j++)
			if (strlen(s->options[i].names[j]) == n &&
			    memcmp(s->options[i].names[j], name, n) == 0) {
				if (s->options[i].role != ROLE_CONTACTS)
					return &s->options[i];
				if (!contacts)
					contacts = &s->options[i];
			}
	return contacts;
}

/* The first subcommand with a name equal to word, or one holding '*' that
 * matches it as a glob. */
static const struct ir_spec *scan_sub(const struct ir_spec *s, const char *word)
{
	for (size_t k = 0; k < s->nsubs; k++)
		for (size_t j = 0; j < s->subs[k].nnames; j++) {
			const char *name = s->subs[k].names[j];
			if (strcmp(name, word) == 0 ||
			    (strchr(name, '*') && fnmatch(name, word, 0) == 0))
				return &s->subs[k];
		}
	return NULL;
}

static bool scan_declares(const struct ir_spec *s, enum ir_role role)
{
	for (size_t i = 0; i < s->noptions; i++)
		if (s->options[i].role == role)
			return true;
	return false;
}

struct tally {
	size_t lookups, wrong;
	char first[200]; /* the first disagreement */
};

static void disagree(struct tally *t, const struct ir_spec *s, const char *what, const char *word)
{
	if (!t->wrong++)
		snprintf(t->first, sizeof(t->first), "spec '%s': %s '%s'",
			 s->nnames ? s->names[0] : "?", what, word);
}

static void check_option(struct tally *t, const struct ir_spec *s, const char *name, size_t n)
{
	t->lookups++;
	if (ir_spec_option(s, name, n) != scan_option(s, name, n))
		disagree(t, s, "option", name);
}

/* Every word of words[] against s, with its prefixes and with "=value". */
static void check_words(struct tally *t, const struct ir_spec *s, char **words, size_t nwords)
{
	for (size_t i = 0; i < nwords; i++) {
		const char *w = words[i];
		size_t len = strlen(w);
		for (size_t n = 0; n <= len; n++)
			check_option(t, s, w, n);
		char buf[256];
		snprintf(buf, sizeof(buf), "%s=value", w);
		check_option(t, s, buf, strlen(buf));
		check_option(t, s, buf, len);     /* --opt=value: the part before '=' */
		check_option(t, s, buf, len + 1); /* key=value: the part with '=' */
	}
}

/* Every option name of s and of its subcommands, once each. */
static void gather_names(struct strmap *seen, char ***v, size_t *n, size_t *cap,
			 const struct ir_spec *s)
{
	for (size_t i = 0; i < s->noptions; i++)
		for (size_t j = 0; j < s->options[i].nnames; j++) {
			char *name = s->options[i].names[j];
			if (strmap_get(seen, name, strlen(name)))
				continue;
			strmap_add(seen, name, strlen(name), 0);
			VEC_PUSH(*v, *n, *cap, name);
		}
	for (size_t k = 0; k < s->nsubs; k++)
		gather_names(seen, v, n, cap, ir_spec_ready(&s->subs[k]));
}

static char **all_names; /* of every spec of the policy */
static size_t nall_names;

static void check_spec(struct tally *t, const struct ir_spec *s, const struct ir_policy *ir)
{
	/* The spec's own names with their prefixes and =value; then the
	 * names of every spec, whole. */
	for (size_t i = 0; i < s->noptions; i++)
		check_words(t, s, s->options[i].names, s->options[i].nnames);
	for (size_t i = 0; i < nall_names; i++)
		check_option(t, s, all_names[i], strlen(all_names[i]));
	static char *unknown[] = { "", "-", "--", "-\x01", "--no-such-option", "+", "=", "-=",
				   "----", "-Z", "--\xc3\xa9" };
	check_words(t, s, unknown, sizeof(unknown) / sizeof(*unknown));
	for (int r = 0; r < ROLE_COUNT; r++) {
		t->lookups++;
		if (ir_spec_declares(s, (enum ir_role)r) != scan_declares(s, (enum ir_role)r))
			disagree(t, s, "role", "");
	}
	/* Subcommand words: the names, a glob's '*' filled in, unknown words. */
	for (size_t k = 0; k < s->nsubs; k++) {
		for (size_t j = 0; j < s->subs[k].nnames; j++) {
			const char *name = s->subs[k].names[j];
			char filled[256], longer[256];
			size_t m = 0;
			for (const char *c = name; *c && m + 4 < sizeof(filled); c++)
				if (*c == '*') {
					memcpy(filled + m, "abc", 3);
					m += 3;
				} else {
					filled[m++] = *c;
				}
			filled[m] = '\0';
			snprintf(longer, sizeof(longer), "%sx", name);
			const char *words[] = { name, filled, longer, name + (name[0] ? 1 : 0) };
			for (size_t w = 0; w < sizeof(words) / sizeof(*words); w++) {
				t->lookups++;
				if (ir_spec_sub(s, words[w]) != scan_sub(s, words[w]))
					disagree(t, s, "subcommand", words[w]);
			}
		}
		check_spec(t, &s->subs[k], ir);
	}
	static const char *const no_sub[] = { "", "-", "no-such-subcommand", "*" };
	for (size_t w = 0; w < sizeof(no_sub) / sizeof(*no_sub); w++) {
		t->lookups++;
		if (ir_spec_sub(s, no_sub[w]) != scan_sub(s, no_sub[w]))
			disagree(t, s, "subcommand", no_sub[w]);
	}
}

static char *names1(const char *a)
{
	char **v = malloc(sizeof(*v));
	v[0] = strdup(a);
	return (char *)v;
}

/* A spec made here: options "-a" (flag) and "-a", "--all" (recursive): the
 * first option listing a name wins; subcommands "x-*", "x-y", "z". */
static void made_spec(void)
{
	struct ir_spec s = { 0 };
	s.noptions = 2;
	s.options = calloc(2, sizeof(*s.options));
	s.options[0].names = (char **)names1("-a");
	s.options[0].nnames = 1;
	s.options[0].role = ROLE_FLAG;
	s.options[1].names = calloc(2, sizeof(char *));
	s.options[1].names[0] = strdup("-a");
	s.options[1].names[1] = strdup("--all");
	s.options[1].nnames = 2;
	s.options[1].role = ROLE_RECURSIVE;
	s.nsubs = 3;
	s.subs = calloc(3, sizeof(*s.subs));
	s.subs[0].names = (char **)names1("x-*");
	s.subs[1].names = (char **)names1("x-y");
	s.subs[2].names = (char **)names1("z");
	for (size_t k = 0; k < 3; k++)
		s.subs[k].nnames = 1;
	for (int pass = 0; pass < 2; pass++) {
		const char *how = pass ? "indexed" : "indexed by its first lookup";
		if (pass) {
			ir_spec_free(&s.subs[0]);
			ir_spec_free(&s.subs[1]);
			ir_spec_free(&s.subs[2]);
			ir_spec_index_free(&s.index);
			s.subs[0].names = (char **)names1("x-*");
			s.subs[1].names = (char **)names1("x-y");
			s.subs[2].names = (char **)names1("z");
			for (size_t k = 0; k < 3; k++)
				s.subs[k].nnames = 1;
			ir_spec_index(&s);
		}
		ok(s.index.built == (pass == 1), "made spec, %s: hashed %s", how,
		   pass ? "before a lookup" : "only when a lookup needs it");
		ok(ir_spec_option(&s, "-a", 2) == &s.options[0],
		   "made spec, %s: a name two options list is the first's", how);
		ok(ir_spec_option(&s, "--all=1", 5) == &s.options[1],
		   "made spec, %s: --all=1 up to '=' is --all", how);
		ok(!ir_spec_option(&s, "--al", 4) && !ir_spec_option(&s, "--all", 4),
		   "made spec, %s: a prefix of --all is no option", how);
		ok(!ir_spec_option(&s, "-a\0", 3), "made spec, %s: a NUL after the name is not it",
		   how);
		ok(!ir_spec_option(NULL, "-a", 2) && !ir_spec_declares(NULL, ROLE_FLAG),
		   "made spec, %s: no spec has no options", how);
		ok(ir_spec_declares(&s, ROLE_RECURSIVE) && ir_spec_declares(&s, ROLE_FLAG) &&
			   !ir_spec_declares(&s, ROLE_DELETES),
		   "made spec, %s: the roles declared", how);
		ok(ir_spec_sub(&s, "x-y") == &s.subs[0],
		   "made spec, %s: an earlier glob comes before a later exact name", how);
		ok(ir_spec_sub(&s, "x-*") == &s.subs[0] && ir_spec_sub(&s, "z") == &s.subs[2] &&
			   !ir_spec_sub(&s, "y") && !ir_spec_sub(&s, "x"),
		   "made spec, %s: exact names, a glob's own spelling, unknown words", how);
	}
	ir_spec_free(&s);
}

int main(void)
{
	cordon_policy *p = cordon_policy_load_embedded();
	ok(p != NULL, "the embedded policy loads");
	if (!p)
		return tap_done();
	const struct ir_policy *ir = &p->ir;
	ok(ir->nprograms > 100 && ir_program_find(ir, "git") && ir_program_find(ir, "tar"),
	   "it holds the program specs of rules/commands.cordon (%zu specs)", ir->nprograms);
	struct strmap seen;
	size_t cap = 0;
	strmap_init(&seen);
	/* The built-in specs and their subcommands are read when first
	 * needed: read them all, so that every option and subcommand name is
	 * gathered. */
	for (size_t i = 0; i < ir->nprograms; i++)
		gather_names(&seen, &all_names, &nall_names, &cap, ir_spec_ready(&ir->programs[i]));
	strmap_free(&seen);
	struct tally all = { 0 };
	size_t early = 0, unindexed = 0;
	for (size_t i = 0; i < ir->nprograms; i++)
		early += ir->programs[i].index.built;
	ok(early == 0, "no spec is hashed before a command of it is read (%zu are)", early);
	for (size_t i = 0; i < ir->nprograms; i++) {
		check_spec(&all, &ir->programs[i], ir);
		unindexed += !ir->programs[i].index.built;
	}
	ok(unindexed == 0, "every spec looked up is hashed (%zu not)", unindexed);
	ok(all.lookups > 100000 && all.wrong == 0,
	   "%zu lookups agree with a plain scan of the spec%s%s", all.lookups,
	   all.wrong ? "; first disagreement: " : "", all.wrong ? all.first : "");
	free(all_names);
	cordon_policy_free(p);
	made_spec();
	return tap_done();
}
