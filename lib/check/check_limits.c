/* `limits { processes 512; file_size 8G; memory 8G best_effort; }` inside a
 * preset: each key once per preset, each value a whole number in its
 * unit, checked here so that the runner only ever sees numbers it can set. */
#include "config.h"

#include "check.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define ERR(d, locp, id, ...) diag_add((d), DIAG_ERROR, (locp), (id), __VA_ARGS__)

/* The largest value a limit takes: a count fits an int (the kernel's
 * fd and pid numbers), bytes and seconds fit a signed 64-bit number. */
#define LIMIT_COUNT_MAX 2147483647ULL
#define LIMIT_SIZE_MAX 9223372036854775807ULL

struct unit {
	const char *name;
	unsigned long long scale;
};

/* Sizes are powers of 1024 (K and KiB mean the same); durations are
 * whole seconds, as RLIMIT_CPU counts them. */
static const struct unit byte_units[] = {
	{ "B", 1 },
	{ "K", 1ULL << 10 }, { "KiB", 1ULL << 10 },
	{ "M", 1ULL << 20 }, { "MiB", 1ULL << 20 },
	{ "G", 1ULL << 30 }, { "GiB", 1ULL << 30 },
	{ "T", 1ULL << 40 }, { "TiB", 1ULL << 40 },
};
static const struct unit second_units[] = {
	{ "s", 1 }, { "m", 60 }, { "h", 3600 },
};

static struct loc part_loc(struct loc base, size_t from, size_t to)
{
	struct loc l = { base.file, base.start + (uint32_t)from, base.start + (uint32_t)to };
	return l;
}

static const char *unit_hint(enum ir_limit_unit u)
{
	switch (u) {
	case IR_UNIT_BYTES:
		return "a size is a whole number with B, K, M, G or T (powers of 1024), as in 8G";
	case IR_UNIT_SECONDS:
		return "a duration is whole seconds with s, m or h, as in 10m";
	default:
		return "a count is a whole number, as in 512";
	}
}

/* The value token into v; false after reporting why not. */
static bool limit_value(struct diag_list *d, enum ir_limit which, const struct ast *tok,
			struct ir_limit_value *v)
{
	const char *key = ir_limit_names[which], *text = tok->u.tok.text;
	enum ir_limit_unit u = ir_limit_units[which];
	/* A string's location includes its quotes; the text starts after one. */
	size_t skip = tok->kind == AST_STRING ? 1 : 0, digits;
	struct diag *dg;

	if (strcmp(text, "unlimited") == 0 && tok->kind != AST_NUMBER) {
		v->unlimited = true;
		return true;
	}
	if (text[0] == '-') {
		dg = ERR(d, &tok->loc, "bad-value", "%s cannot be negative ('%s')", key, text);
		diag_hint(dg, "%s; write unlimited for no limit", unit_hint(u));
		return false;
	}
	digits = strspn(text, "0123456789");
	if (digits == 0 || tok->kind == AST_IDENT) {
		dg = ERR(d, &tok->loc, "bad-value", "'%s' is not a value for %s", text, key);
		diag_hint(dg, "%s; write unlimited for no limit", unit_hint(u));
		return false;
	}
	errno = 0;
	unsigned long long n = strtoull(text, NULL, 10), scale = 1;
	bool too_big = errno == ERANGE;
	const char *unit = text + digits;
	if (*unit) {
		const struct unit *units = u == IR_UNIT_BYTES ? byte_units : second_units;
		size_t nunits = u == IR_UNIT_BYTES ? ARRAY_SIZE(byte_units) : ARRAY_SIZE(second_units);
		const char *names[ARRAY_SIZE(byte_units)];
		bool found = false;
		for (size_t i = 0; i < nunits; i++) {
			names[i] = units[i].name;
			if (strcmp(unit, units[i].name) == 0) {
				scale = units[i].scale;
				found = true;
			}
		}
		if (!found) {
			struct loc at = part_loc(tok->loc, skip + digits, skip + strlen(text));
			if (u == IR_UNIT_COUNT) {
				dg = ERR(d, &at, "bad-value", "%s is a count; it takes no unit ('%s')", key,
					 unit);
			} else {
				dg = ERR(d, &at, "bad-value", "unknown unit '%s' for %s", unit, key);
				const char *best = closest_word(unit, names, nunits);
				if (best)
					diag_hint(dg, "did you mean '%s'?", best);
			}
			if (dg && !dg->hint)
				diag_hint(dg, "%s", unit_hint(u));
			return false;
		}
	}
	unsigned long long max = u == IR_UNIT_COUNT ? LIMIT_COUNT_MAX : LIMIT_SIZE_MAX;
	if (too_big || n > max / scale) {
		dg = ERR(d, &tok->loc, "bad-value", "%s %s is too large", key, text);
		diag_hint(dg, "the largest value for %s is %llu%s; write unlimited for no limit", key, max,
			  u == IR_UNIT_COUNT ? "" : u == IR_UNIT_BYTES ? " bytes" : " seconds");
		return false;
	}
	if (n == 0) {
		dg = ERR(d, &tok->loc, "bad-value", "%s 0 leaves the command nothing to run with", key);
		diag_hint(dg, "%s; write unlimited for no limit", unit_hint(u));
		return false;
	}
	v->value = n * scale;
	return true;
}

static void check_limit(struct diag_list *d, const struct ast *it, struct ir_limit_value *out)
{
	const struct ast *key = it->u.limit.key, *flag = it->u.limit.flag;
	struct ir_limit_value v = { .set = true, .origin = it->loc };
	int which = -1;

	for (int i = 0; i < IR_LIMIT_COUNT; i++)
		if (strcmp(key->u.tok.text, ir_limit_names[i]) == 0)
			which = i;
	if (which < 0) {
		struct diag *dg = ERR(d, &key->loc, "unknown-limit", "unknown limit '%s'",
				      key->u.tok.text);
		const char *best = closest_word(key->u.tok.text, ir_limit_names, IR_LIMIT_COUNT);
		if (best)
			diag_hint(dg, "did you mean '%s'?", best);
		else
			diag_hint(dg, "limits are processes, open_files, file_size, cpu_time, "
				      "address_space and memory");
		return;
	}
	if (out[which].set) {
		struct diag *dg = ERR(d, &key->loc, "duplicate-setting",
				      "limit '%s' is set twice in this preset", key->u.tok.text);
		diag_note(dg, out[which].origin, "first set here");
		return;
	}
	for (int i = 0; flag && i < IR_LIMIT_COUNT; i++) {
		if (strcmp(flag->u.tok.text, ir_limit_names[i]) == 0) {
			/* Two limits run together: the ';' between them is missing. */
			struct loc at = { it->loc.file, it->u.limit.value->loc.end,
					  it->u.limit.value->loc.end };
			ERR(d, &at, "syntax", "expected ';' before '%s'", flag->u.tok.text);
			return;
		}
	}
	if (flag && strcmp(flag->u.tok.text, "best_effort") != 0) {
		struct diag *dg = ERR(d, &flag->loc, "syntax", "unknown limit flag '%s'",
				      flag->u.tok.text);
		diag_hint(dg, "a limit may end in best_effort: applied where the machine allows");
		return;
	}
	if (!limit_value(d, (enum ir_limit)which, it->u.limit.value, &v))
		return;
	if (flag && v.unlimited) {
		ERR(d, &flag->loc, "syntax", "'unlimited' sets no limit; best_effort has nothing to apply");
		return;
	}
	v.best_effort = flag != NULL;
	out[which] = v;
}

void check_limits(struct diag_list *d, const struct ast *node, bool in_preset,
		  struct ir_limit_value out[IR_LIMIT_COUNT])
{
	const struct ast *word = node->u.block.name;
	if (strcmp(word->u.tok.text, "limits") != 0) {
		static const char *const blocks[] = { "limits", "env" };
		struct diag *dg = ERR(d, &word->loc, "syntax", "unknown block '%s'", word->u.tok.text);
		const char *best = closest_word(word->u.tok.text, blocks, ARRAY_SIZE(blocks));
		if (best)
			diag_hint(dg, "did you mean '%s'?", best);
		return;
	}
	if (!in_preset) {
		struct diag *dg = ERR(d, &word->loc, "syntax", "'limits' belongs inside a preset");
		diag_hint(dg, "a preset's children inherit its limits through extends");
		return;
	}
	for (const struct ast *it = node->u.block.body.head; it; it = it->next)
		check_limit(d, it, out);
}
