/* The names of a program spec's options and subcommands, hashed the first
 * time a command of the program is read: reading a command looks up every
 * word that starts with '-' (and every operand that may be a subcommand)
 * in the spec of its subcommand and of its program, and git's spec alone
 * lists hundreds of names.  A policy holds nearly two hundred specs and a
 * call reads a few, so each is hashed when it is first read (once.h). */
#include "config.h"

#include "ir.h"

#include "base/once.h"

#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>

_Static_assert(ROLE_COUNT <= 64, "ir_spec_index.roles holds a bit a role");

static void spec_index(void *arg)
{
	struct ir_spec *s = arg;
	struct ir_spec_index *x = &s->index;
	strmap_init(&x->options);
	strmap_init(&x->subs);
	x->glob_subs = NULL;
	x->nglob_subs = 0;
	x->roles = 0;
	for (size_t i = 0; i < s->noptions; i++) {
		const struct ir_option *o = &s->options[i];
		x->roles |= (uint64_t)1 << o->role;
		for (size_t j = 0; j < o->nnames; j++)
			strmap_add(&x->options, o->names[j], strlen(o->names[j]), (uint32_t)i);
	}
	size_t cap = 0;
	for (size_t k = 0; k < s->nsubs; k++) {
		bool glob = false;
		for (size_t j = 0; j < s->subs[k].nnames; j++) {
			const char *name = s->subs[k].names[j];
			strmap_add(&x->subs, name, strlen(name), (uint32_t)k);
			glob = glob || strchr(name, '*');
		}
		if (glob)
			VEC_PUSH(x->glob_subs, x->nglob_subs, cap, k);
	}
}

/* s, read if it was deferred, its names hashed (its subcommands' when
 * they are read). */
static const struct ir_spec *indexed(const struct ir_spec *s)
{
	ir_spec_ready(s);
	once_build((atomic_bool *)&s->index.built, spec_index, (void *)s);
	return s;
}

const struct ir_spec *ir_spec_ready(const struct ir_spec *s)
{
	if (s && s->deferred)
		once_build((atomic_bool *)&s->read, s->deferred->read, (void *)s);
	return s;
}

void ir_spec_index(struct ir_spec *s)
{
	indexed(s);
}

void ir_spec_index_free(struct ir_spec_index *x)
{
	strmap_free(&x->options);
	strmap_free(&x->subs);
	free(x->glob_subs);
	x->glob_subs = NULL;
	x->nglob_subs = 0;
	x->roles = 0;
	atomic_store(&x->built, false);
}

/* The first option spelled name, but one listed as `contacts` only where
 * no option of another role lists it too (`-K FILE` is read, and what it
 * contacts is found besides). */
const struct ir_option *ir_spec_option(const struct ir_spec *s, const char *name, size_t n)
{
	const struct ir_option *contacts = NULL;
	if (!s)
		return NULL;
	const struct strmap_entry *e = strmap_get(&indexed(s)->index.options, name, n);
	for (size_t k = 0; e && k < e->nitems; k++) {
		const struct ir_option *o = &s->options[e->items[k]];
		if (o->role != ROLE_CONTACTS)
			return o;
		if (!contacts)
			contacts = o;
	}
	return contacts;
}

static bool sub_globs(const struct ir_spec *sub, const char *word)
{
	for (size_t j = 0; j < sub->nnames; j++)
		if (strchr(sub->names[j], '*') && fnmatch(sub->names[j], word, 0) == 0)
			return true;
	return false;
}

const struct ir_spec *ir_spec_sub(const struct ir_spec *s, const char *word)
{
	const struct strmap_entry *e = strmap_get(&indexed(s)->index.subs, word, strlen(word));
	size_t exact = e ? e->items[0] : s->nsubs;
	/* A glob of an earlier subcommand comes first. */
	for (size_t g = 0; g < s->index.nglob_subs && s->index.glob_subs[g] < exact; g++)
		if (sub_globs(&s->subs[s->index.glob_subs[g]], word))
			return ir_spec_ready(&s->subs[s->index.glob_subs[g]]);
	return exact < s->nsubs ? ir_spec_ready(&s->subs[exact]) : NULL;
}

bool ir_spec_declares(const struct ir_spec *s, enum ir_role role)
{
	return s && (indexed(s)->index.roles >> role) & 1;
}
