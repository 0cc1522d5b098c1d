/* The typed plan (cordon/plan.h): its kinds as a table, and the renderings
 * every consumer shares: bwrap's argument vector, one operation as JSON,
 * and the comparison `cordon diff` makes. */
#include "config.h"

#include "lower.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>

/* How a kind is written for bwrap: its option, then the operation's
 * arguments in this order. */
enum shape {
	SHAPE_NONE,        /* --opt */
	SHAPE_PATH,        /* --opt PATH */
	SHAPE_SOURCE_PATH, /* --opt SOURCE PATH */
	SHAPE_PATH_SOURCE, /* --opt NAME VALUE */
	SHAPE_ALL,         /* --opt ALL */
};

static const struct {
	const char *option;
	enum shape shape;
	enum cordon_plan_effect effect;
	bool mounts; /* a mount at path, hiding what was there */
} kinds[] = {
	[CORDON_PLAN_UNSHARE_USER] = { "--unshare-user", SHAPE_NONE, CORDON_PLAN_NARROWS, false },
	[CORDON_PLAN_UNSHARE_PID] = { "--unshare-pid", SHAPE_NONE, CORDON_PLAN_NARROWS, false },
	[CORDON_PLAN_UNSHARE_IPC] = { "--unshare-ipc", SHAPE_NONE, CORDON_PLAN_NARROWS, false },
	[CORDON_PLAN_UNSHARE_UTS] = { "--unshare-uts", SHAPE_NONE, CORDON_PLAN_NARROWS, false },
	[CORDON_PLAN_UNSHARE_CGROUP_TRY] = { "--unshare-cgroup-try", SHAPE_NONE,
					     CORDON_PLAN_NARROWS, false },
	[CORDON_PLAN_UNSHARE_NET] = { "--unshare-net", SHAPE_NONE, CORDON_PLAN_NARROWS, false },
	/* A namespace with a way out is wider than one without. */
	[CORDON_PLAN_UNSHARE_NET_EGRESS] = { "--unshare-net", SHAPE_NONE, CORDON_PLAN_WIDENS, false },
	[CORDON_PLAN_DIE_WITH_PARENT] = { "--die-with-parent", SHAPE_NONE, CORDON_PLAN_NEUTRAL, false },
	[CORDON_PLAN_NEW_SESSION] = { "--new-session", SHAPE_NONE, CORDON_PLAN_NEUTRAL, false },
	[CORDON_PLAN_CAP_DROP_ALL] = { "--cap-drop", SHAPE_ALL, CORDON_PLAN_NARROWS, false },
	[CORDON_PLAN_DEV] = { "--dev", SHAPE_PATH, CORDON_PLAN_NEUTRAL, true },
	[CORDON_PLAN_PROC] = { "--proc", SHAPE_PATH, CORDON_PLAN_NEUTRAL, true },
	[CORDON_PLAN_RO_BIND] = { "--ro-bind", SHAPE_SOURCE_PATH, CORDON_PLAN_NARROWS, true },
	[CORDON_PLAN_BIND] = { "--bind", SHAPE_SOURCE_PATH, CORDON_PLAN_WIDENS, true },
	[CORDON_PLAN_TMPFS] = { "--tmpfs", SHAPE_PATH, CORDON_PLAN_NARROWS, true },
	[CORDON_PLAN_MASK_DIR] = { "--tmpfs", SHAPE_PATH, CORDON_PLAN_NARROWS, true },
	[CORDON_PLAN_MASK_FILE] = { "--ro-bind", SHAPE_SOURCE_PATH, CORDON_PLAN_NARROWS, true },
	[CORDON_PLAN_DIR] = { "--dir", SHAPE_PATH, CORDON_PLAN_NEUTRAL, false },
	[CORDON_PLAN_REMOUNT_RO] = { "--remount-ro", SHAPE_PATH, CORDON_PLAN_NARROWS, false },
	[CORDON_PLAN_SYMLINK] = { "--symlink", SHAPE_SOURCE_PATH, CORDON_PLAN_NEUTRAL, false },
	[CORDON_PLAN_CLEARENV] = { "--clearenv", SHAPE_NONE, CORDON_PLAN_NARROWS, false },
	[CORDON_PLAN_SETENV] = { "--setenv", SHAPE_PATH_SOURCE, CORDON_PLAN_NEUTRAL, false },
	[CORDON_PLAN_UNSETENV] = { "--unsetenv", SHAPE_PATH, CORDON_PLAN_NEUTRAL, false },
	[CORDON_PLAN_CHDIR] = { "--chdir", SHAPE_PATH, CORDON_PLAN_NEUTRAL, false },
	[CORDON_PLAN_SKIP] = { NULL, SHAPE_PATH, CORDON_PLAN_NEUTRAL, false },
	[CORDON_PLAN_BIND_FD] = { "--bind-fd", SHAPE_SOURCE_PATH, CORDON_PLAN_WIDENS, true },
	[CORDON_PLAN_RO_BIND_FD] = { "--ro-bind-fd", SHAPE_SOURCE_PATH, CORDON_PLAN_NARROWS, true },
};
_Static_assert(ARRAY_SIZE(kinds) == CORDON_PLAN_KIND_COUNT, "one row a plan kind");

const char *cordon_plan_kind_option(enum cordon_plan_kind kind)
{
	return kinds[kind].option;
}

enum cordon_plan_effect cordon_plan_kind_effect(enum cordon_plan_kind kind)
{
	return kinds[kind].effect;
}

bool cordon_plan_kind_mounts(enum cordon_plan_kind kind)
{
	return kinds[kind].mounts;
}

/* The operation's arguments after its option, in bwrap's order: their
 * number, at most two. */
static int op_args(const struct cordon_plan_op *op, const char *arg[2])
{
	switch (kinds[op->kind].shape) {
	case SHAPE_NONE:
		return 0;
	case SHAPE_PATH:
		arg[0] = op->path;
		return 1;
	case SHAPE_SOURCE_PATH:
		arg[0] = op->source;
		arg[1] = op->path;
		return 2;
	case SHAPE_PATH_SOURCE:
		arg[0] = op->path;
		arg[1] = op->source;
		return 2;
	case SHAPE_ALL:
		arg[0] = "ALL";
		return 1;
	}
	return 0;
}

void plan_push(struct cordon_plan *pl, enum cordon_plan_kind kind, const char *path,
	       const char *source, const char *origin, char *note)
{
	struct cordon_plan_op op = { kind, path ? xstrdup(path) : NULL,
				     source ? xstrdup(source) : NULL,
				     origin ? xstrdup(origin) : NULL, note };
	VEC_PUSH(pl->ops, pl->n, pl->cap, op);
}

bool cordon_plan_binds_host(const struct cordon_plan_op *op)
{
	return op->kind == CORDON_PLAN_BIND || op->kind == CORDON_PLAN_RO_BIND ||
	       op->kind == CORDON_PLAN_MASK_FILE;
}

void cordon_plan_bind_fd(struct cordon_plan_op *op, int fd)
{
	op->kind = op->kind == CORDON_PLAN_BIND ? CORDON_PLAN_BIND_FD : CORDON_PLAN_RO_BIND_FD;
	free(op->source);
	op->source = xasprintf("%d", fd);
}

void cordon_plan_free(struct cordon_plan *pl)
{
	if (!pl)
		return;
	for (size_t i = 0; i < pl->n; i++) {
		free(pl->ops[i].path);
		free(pl->ops[i].source);
		free(pl->ops[i].origin);
		free(pl->ops[i].note);
	}
	free(pl->ops);
	free(pl->preset);
	memset(pl, 0, sizeof(*pl));
}

static bool same_str(const char *a, const char *b)
{
	return a == b || (a && b && strcmp(a, b) == 0);
}

bool cordon_plan_op_same(const struct cordon_plan_op *a, const struct cordon_plan_op *b)
{
	return a->kind == b->kind && same_str(a->path, b->path) && same_str(a->source, b->source) &&
	       same_str(a->note, b->note);
}

static json_t *jstr(const char *s)
{
	json_t *j = s ? json_string(s) : json_null();
	return j ? j : json_string("(not UTF-8)");
}

char *cordon_plan_op_json(const struct cordon_plan_op *op, bool with_origin, bool sorted)
{
	json_t *o = json_object();
	const char *option = kinds[op->kind].option;
	if (option) {
		const char *arg[2];
		int n = op_args(op, arg);
		json_t *args = json_array();
		json_array_append_new(args, json_string(option));
		for (int i = 0; i < n; i++)
			json_array_append_new(args, jstr(arg[i]));
		json_object_set_new(o, "args", args);
	} else {
		json_object_set_new(o, "skipped", jstr(op->path));
	}
	if (with_origin && op->origin)
		json_object_set_new(o, "origin", json_string(op->origin));
	if (op->note)
		json_object_set_new(o, "note", jstr(op->note));
	char *s = json_dumps(o, JSON_COMPACT | (sorted ? JSON_SORT_KEYS : JSON_PRESERVE_ORDER));
	json_decref(o);
	return s ? s : xstrdup("{}");
}

char *cordon_plan_bwrap_args(const struct cordon_plan *pl, size_t *len)
{
	struct strbuf sb;
	sb_init(&sb);
	for (size_t i = 0; i < pl->n; i++) {
		const struct cordon_plan_op *op = &pl->ops[i];
		const char *option = kinds[op->kind].option, *arg[2];
		if (!option)
			continue;
		sb_add(&sb, option, strlen(option) + 1);
		for (int a = 0, n = op_args(op, arg); a < n; a++)
			sb_add(&sb, arg[a], strlen(arg[a]) + 1);
	}
	*len = sb.len;
	return sb_steal(&sb);
}
