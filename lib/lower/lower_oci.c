/* The preset for a container runtime: an OCI runtime-spec config.json
 * (runtime-spec 1.1.0) that crun, runc or podman runs as the bwrap plan
 * would.  It is read from the typed plan itself (lower_bwrap_plan), so the
 * mounts are the plan's mounts in the plan's order; the seccomp section is
 * the filter's rule table (lower_seccomp_each), the rlimits the preset's
 * limits.  What a runtime cannot express is said in the annotations
 * (org.cordon.unexpressed.N), never dropped in silence.
 *
 * Every entry names the rule it came from: org.cordon.origin.mounts.N is
 * the rule of mounts[N], org.cordon.origin.linux.seccomp.syscalls.N of
 * the N-th syscalls entry, and so on; values are "file:line:col". */
#include "config.h"

#include "cordon/landlock.h"
#include "lower.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#define OCI_VERSION "1.1.0"
#define NOBODY 65534u

/* The members written on one line whatever their depth: the seccomp
 * section is the very bytes of `--emit k8s-seccomp`. */
static const char *const flat_members[] = { "seccomp", NULL };

static void indent(struct strbuf *sb, int level)
{
	for (int i = 0; i < level; i++)
		sb_adds(sb, "  ");
}

static void put_compact(struct strbuf *sb, json_t *v)
{
	char *s = json_dumps(v, JSON_COMPACT | JSON_PRESERVE_ORDER | JSON_ENCODE_ANY);
	sb_adds(sb, s ? s : "null");
	free(s);
}

static bool is_flat(const char *key, const char *const *flat)
{
	for (size_t i = 0; flat && flat[i]; i++)
		if (strcmp(flat[i], key) == 0)
			return true;
	return false;
}

static void layout(struct strbuf *sb, json_t *v, int level, int depth, const char *const *flat)
{
	bool obj = json_is_object(v), arr = json_is_array(v);
	size_t n = obj ? json_object_size(v) : arr ? json_array_size(v) : 0, i = 0;
	/* An object is opened above depth, an array at it too: a member or an
	 * element a line. */
	if (n == 0 || (obj && level >= depth) || (arr && level > depth)) {
		put_compact(sb, v);
		return;
	}
	sb_adds(sb, obj ? "{\n" : "[\n");
	if (obj) {
		const char *key;
		json_t *m;
		json_object_foreach(v, key, m) {
			json_t *k = json_string(key);
			indent(sb, level + 1);
			put_compact(sb, k);
			json_decref(k);
			sb_adds(sb, ": ");
			layout(sb, m, is_flat(key, flat) ? depth + 1 : level + 1, depth, flat);
			sb_adds(sb, ++i < n ? ",\n" : "\n");
		}
	} else {
		json_t *m;
		json_array_foreach(v, i, m) {
			indent(sb, level + 1);
			layout(sb, m, level + 1, depth, flat);
			sb_adds(sb, i + 1 < n ? ",\n" : "\n");
		}
	}
	indent(sb, level);
	sb_adds(sb, obj ? "}" : "]");
}

void lower_json_layout(struct strbuf *sb, json_t *v, int depth, const char *const *flat)
{
	layout(sb, v, 0, depth, flat);
	sb_adds(sb, "\n");
}

void lower_oci_user(const struct lower_input *in, unsigned *uid, unsigned *gid)
{
	*uid = in->host.uid ? in->host.uid : NOBODY;
	*gid = in->host.uid ? in->host.gid : NOBODY;
}

/* ---- seccomp ----------------------------------------------------------- */

struct sc_collect {
	json_t *syscalls, *origins;
};

static void sc_collect(const struct lower_sc_entry *e, void *data)
{
	struct sc_collect *c = data;
	json_t *o = json_object();
	json_object_set_new(o, "names", json_pack("[s]", e->syscall));
	json_object_set_new(o, "action", json_string("SCMP_ACT_ERRNO"));
	json_object_set_new(o, "errnoRet", json_integer(e->err));
	if (e->ncmp) {
		json_t *args = json_array();
		for (unsigned i = 0; i < e->ncmp; i++)
			json_array_append_new(args,
					      json_pack("{s:I,s:I,s:I,s:s}", "index",
							(json_int_t)e->cmp[i].arg, "value",
							(json_int_t)e->cmp[i].value, "valueTwo",
							(json_int_t)e->cmp[i].value_two, "op",
							e->cmp[i].op));
		json_object_set_new(o, "args", args);
	}
	json_array_append_new(c->syscalls, o);
	json_array_append_new(c->origins, json_pack("{s:s,s:s,s:s,s:s}", "origin", e->origin,
						    "errno", e->err_name, "condition", e->cond,
						    "why", e->why));
}

json_t *lower_oci_seccomp_json(const struct lower_input *in, json_t **origins, char **err)
{
	const char *arches[4];
	struct sc_collect c = { json_array(), json_array() };
	if (lower_seccomp_each(in, sc_collect, &c, err) != 0) {
		json_decref(c.syscalls);
		json_decref(c.origins);
		return NULL;
	}
	json_t *archs = json_array();
	for (size_t i = 0, n = lower_seccomp_arch_names(arches, 4); i < n; i++)
		json_array_append_new(archs, json_string(arches[i]));
	json_t *sc = json_object();
	json_object_set_new(sc, "defaultAction", json_string("SCMP_ACT_ALLOW"));
	json_object_set_new(sc, "architectures", archs);
	json_object_set_new(sc, "syscalls", c.syscalls);
	*origins = c.origins;
	return sc;
}

char *lower_oci_seccomp(const struct lower_input *in, size_t *len, char **err)
{
	json_t *origins = NULL, *sc = lower_oci_seccomp_json(in, &origins, err);
	struct strbuf sb;
	if (!sc)
		return NULL;
	sb_init(&sb);
	lower_json_layout(&sb, sc, -1, NULL);
	json_decref(sc);
	json_decref(origins);
	*len = sb.len;
	return sb_steal(&sb);
}

/* ---- the config -------------------------------------------------------- */

struct oci {
	const struct lower_input *in;
	json_t *root, *env, *mounts, *namespaces, *readonly_paths, *annotations;
	size_t nskipped, nunexpressed;
	bool fences, mask_files, symlinks;
};

static void annotate(struct oci *o, const char *key, const char *value)
{
	json_object_set_new(o->annotations, key, json_string(value ? value : "(not UTF-8)"));
}

static void annotatef(struct oci *o, const char *value, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void annotatef(struct oci *o, const char *value, const char *fmt, ...)
{
	va_list ap;
	struct strbuf key;
	sb_init(&key);
	va_start(ap, fmt);
	sb_vaddf(&key, fmt, ap);
	va_end(ap);
	annotate(o, key.buf, value);
	sb_free(&key);
}

static void unexpressed(struct oci *o, const char *what)
{
	annotatef(o, what, "org.cordon.unexpressed.%zu", o->nunexpressed++);
}

/* A mount, and the rule and note of the plan's operation it came from. */
static void add_mount(struct oci *o, const struct cordon_plan_op *op, const char *dest,
		      const char *type, const char *source, json_t *options)
{
	size_t n = json_array_size(o->mounts);
	json_t *m = json_object();
	json_object_set_new(m, "destination", json_string(dest));
	json_object_set_new(m, "type", json_string(type));
	json_object_set_new(m, "source", json_string(source));
	json_object_set_new(m, "options", options);
	json_array_append_new(o->mounts, m);
	if (op && op->origin)
		annotatef(o, op->origin, "org.cordon.origin.mounts.%zu", n);
	if (op && op->note)
		annotatef(o, op->note, "org.cordon.note.mounts.%zu", n);
}

static void add_namespace(struct oci *o, const char *type)
{
	json_array_append_new(o->namespaces, json_pack("{s:s}", "type", type));
}

/* bwrap's --dev: a tmpfs with the runtime's default devices, a devpts of
 * its own and a /dev/shm. */
static void mount_dev(struct oci *o, const struct cordon_plan_op *op)
{
	add_mount(o, op, "/dev", "tmpfs", "tmpfs",
		  json_pack("[s,s,s,s]", "nosuid", "strictatime", "mode=755", "size=65536k"));
	add_mount(o, NULL, "/dev/pts", "devpts", "devpts",
		  json_pack("[s,s,s,s,s]", "nosuid", "noexec", "newinstance", "ptmxmode=0666",
			    "mode=0620"));
	add_mount(o, NULL, "/dev/shm", "tmpfs", "shm",
		  json_pack("[s,s,s,s,s]", "nosuid", "noexec", "nodev", "mode=1777",
			    "size=65536k"));
}

static void skipped(struct oci *o, const struct cordon_plan_op *op, const char *why)
{
	char *v = xasprintf("%s%s%s: %s", op->path ? op->path : "", op->origin ? " by " : "",
			    op->origin ? op->origin : "", why ? why : "");
	annotatef(o, v, "org.cordon.skipped.%zu", o->nskipped++);
	free(v);
}

/* The host's root bound at "/", bwrap's first mount: a runtime cannot
 * take "/" itself as the container's root (pivot_root refuses it), so the
 * root is an empty directory of the bundle, rootfs, and each entry of the
 * host's root is bound into it as "/" would be: /dev and /proc are the
 * container's own. */
static bool set_root(struct oci *o, const struct cordon_plan_op *op)
{
	if (json_object_get(o->root, "path") || strcmp(op->path, "/") != 0 ||
	    strcmp(op->source, "/") != 0)
		return false;
	bool ro = op->kind == CORDON_PLAN_RO_BIND;
	json_object_set_new(o->root, "path", json_string("rootfs"));
	json_object_set_new(o->root, "readonly", json_boolean(ro));
	if (op->origin)
		annotate(o, "org.cordon.origin.root", op->origin);
	annotate(o, "org.cordon.note.root",
		 "the host's root, as bwrap binds it: rootfs is an empty directory of the bundle, "
		 "and each entry of the host's \"/\" but /dev and /proc is bound into it");
	for (size_t i = 0; i < o->in->host.nroot_entries; i++) {
		const char *e = o->in->host.root_entries[i];
		if (strcmp(e, "/dev") == 0 || strcmp(e, "/proc") == 0)
			continue;
		add_mount(o, op, e, "bind", e,
			  json_pack("[s,s,s,s]", "rbind", ro ? "ro" : "rw", "nosuid", "nodev"));
	}
	return true;
}

static void add_bind(struct oci *o, const struct cordon_plan_op *op)
{
	add_mount(o, op, op->path, "bind", op->source,
		  json_pack("[s,s,s,s]", "rbind", op->kind == CORDON_PLAN_BIND ? "rw" : "ro",
			    "nosuid", "nodev"));
}

/* A directory pinned as a mount point above a fence, which does not
 * exist: cordon run makes it for the call and binds it, a runtime cannot
 * bind what is not there.  An empty tmpfs pins it instead, the fence's
 * mount point made inside: it cannot be renamed away, and what is written
 * in it is not kept, narrower than the bind.  A path the snapshot does not
 * hold lies above one that exists. */
static bool pin_missing(struct oci *o, const struct cordon_plan_op *op)
{
	const struct lower_fact *f = lower_fact(o->in, op->source);
	if (!f->path || f->lstat_errno == 0)
		return false;
	struct cordon_plan_op pin = *op;
	pin.note = "does not exist, and a runtime binds only what does: an empty tmpfs pins it "
		   "as a mount point in its place; what is written in it is not kept";
	add_mount(o, &pin, op->path, "tmpfs", "tmpfs",
		  json_pack("[s,s,s,s,s]", op->kind == CORDON_PLAN_BIND ? "rw" : "ro", "nosuid",
			    "nodev", "noexec", "mode=755"));
	return true;
}

static void plan_mount(struct oci *o, const struct cordon_plan_op *op)
{
	switch (op->kind) {
	case CORDON_PLAN_DEV:
		mount_dev(o, op);
		break;
	case CORDON_PLAN_PROC:
		add_mount(o, op, op->path, "proc", "proc", json_pack("[s,s,s]", "nosuid", "noexec",
								      "nodev"));
		break;
	case CORDON_PLAN_RO_BIND:
	case CORDON_PLAN_BIND:
		if (set_root(o, op))
			break;
		/* /proc is the container's own: its parts are made read-only
		 * where they are, not bound from the host's. */
		if (path_under(op->path, "/proc")) {
			json_array_append_new(o->readonly_paths, json_string(op->path));
			break;
		}
		if (pin_missing(o, op))
			break;
		add_bind(o, op);
		break;
	case CORDON_PLAN_TMPFS:
	case CORDON_PLAN_MASK_DIR:
		/* Read-only from the start: a runtime remounts a read-only
		 * mount once what lies below it is mounted, as bwrap's
		 * --remount-ro does. */
		o->fences = o->fences || op->kind == CORDON_PLAN_TMPFS;
		add_mount(o, op, op->path, "tmpfs", "tmpfs",
			  json_pack("[s,s,s,s,s]", "ro", "nosuid", "nodev", "noexec", "mode=755"));
		break;
	case CORDON_PLAN_MASK_FILE:
		o->mask_files = true;
		add_mount(o, op, op->path, "bind", op->source,
			  json_pack("[s,s,s,s,s]", "bind", "ro", "nosuid", "nodev", "noexec"));
		break;
	default:
		break;
	}
}

/* One operation of the plan. */
static void plan_op(struct oci *o, const struct cordon_plan_op *op, json_t *process)
{
	static const char *const ns[CORDON_PLAN_KIND_COUNT] = {
		[CORDON_PLAN_UNSHARE_PID] = "pid",
		[CORDON_PLAN_UNSHARE_IPC] = "ipc",
		[CORDON_PLAN_UNSHARE_UTS] = "uts",
		[CORDON_PLAN_UNSHARE_CGROUP_TRY] = "cgroup",
		[CORDON_PLAN_UNSHARE_NET] = "network",
		[CORDON_PLAN_UNSHARE_NET_EGRESS] = "network",
	};
	if (ns[op->kind]) {
		if (op->note)
			annotatef(o, op->note, "org.cordon.note.linux.namespaces.%s", ns[op->kind]);
		add_namespace(o, ns[op->kind]);
		return;
	}
	switch (op->kind) {
	case CORDON_PLAN_SETENV: {
		size_t n = json_array_size(o->env);
		char *kv = xasprintf("%s=%s", op->path, op->source);
		json_array_append_new(o->env, json_string(kv));
		free(kv);
		if (op->origin)
			annotatef(o, op->origin, "org.cordon.origin.process.env.%zu", n);
		break;
	}
	case CORDON_PLAN_CHDIR:
		json_object_set_new(process, "cwd", json_string(op->path));
		break;
	case CORDON_PLAN_SKIP:
		skipped(o, op, op->note);
		break;
	case CORDON_PLAN_DIR:
		skipped(o, op, "a directory bwrap makes: the runtime makes mount points itself");
		break;
	case CORDON_PLAN_SYMLINK:
		o->symlinks = true;
		skipped(o, op, "a symlink bwrap makes in the sandbox: a runtime makes none; it "
			       "must be in the root");
		break;
	default:
		/* The user namespace, capabilities, the environment's clearing and
		 * the read-only remounts are the config's own members; dying with
		 * the parent and a new session are said below. */
		plan_mount(o, op);
		break;
	}
}

/* ---- limits ------------------------------------------------------------ */

/* The rlimit a limit is, as cordon-exec applies it, or NULL: memory is a
 * cgroup's. */
static const char *const rlimit_names[IR_LIMIT_COUNT] = {
	[IR_LIMIT_PROCESSES] = "RLIMIT_NPROC",   [IR_LIMIT_OPEN_FILES] = "RLIMIT_NOFILE",
	[IR_LIMIT_FILE_SIZE] = "RLIMIT_FSIZE",   [IR_LIMIT_CPU_TIME] = "RLIMIT_CPU",
	[IR_LIMIT_ADDRESS_SPACE] = "RLIMIT_AS",  [IR_LIMIT_MEMORY] = NULL,
};

/* process.rlimits, and linux.resources: pids.max beside RLIMIT_NPROC (the
 * runner's cgroup where it has one), memory.max. */
static void add_limits(struct oci *o, json_t *process, json_t *linux_)
{
	const struct lower_input *in = o->in;
	json_t *rlimits = json_array(), *resources = json_object();
	for (size_t i = 0; i < in->nlimits; i++) {
		const struct cordon_limit *l = &in->limits[i];
		const char *name = rlimit_names[l->which];
		json_int_t v = (json_int_t)l->value;
		if (name) {
			/* RLIMIT_CPU's hard limit a second later: SIGXCPU, then SIGKILL. */
			json_int_t hard = l->which == (int)IR_LIMIT_CPU_TIME ? v + 1 : v;
			annotatef(o, l->origin, "org.cordon.origin.process.rlimits.%zu",
				  json_array_size(rlimits));
			json_array_append_new(rlimits, json_pack("{s:s,s:I,s:I}", "type", name,
								 "hard", hard, "soft", v));
		}
		if (l->which == (int)IR_LIMIT_PROCESSES) {
			json_object_set_new(resources, "pids", json_pack("{s:I}", "limit", v));
			annotate(o, "org.cordon.origin.linux.resources.pids", l->origin);
		} else if (l->which == (int)IR_LIMIT_MEMORY) {
			json_object_set_new(resources, "memory", json_pack("{s:I}", "limit", v));
			annotate(o, "org.cordon.origin.linux.resources.memory", l->origin);
			if (l->best_effort)
				annotate(o, "org.cordon.note.linux.resources.memory",
					 "best_effort: cordon run goes on where it gets no cgroup; a "
					 "runtime that cannot set memory.max fails to start or warns");
		}
	}
	if (json_array_size(rlimits))
		json_object_set_new(process, "rlimits", rlimits);
	else
		json_decref(rlimits);
	if (json_object_size(resources))
		json_object_set_new(linux_, "resources", resources);
	else
		json_decref(resources);
}

/* ---- what a runtime cannot express ------------------------------------ */

static void say_unexpressed(struct oci *o)
{
	const struct lower_input *in = o->in;
	unexpressed(o, "Landlock: cordon run applies a Landlock ruleset inside the sandbox (the "
		       "write roots; TCP refused but to the egress proxy) through its helper "
		       "cordon-exec, which only cordon run can start; a runtime applies none. The "
		       "mounts and the seccomp filter here hold the same write roots and network "
		       "without it");
	if (in->net_allowed) {
		char *s = xasprintf("egress by host (%s): cordon run gives each call a proxy that "
				    "decides every host by the policy; here the network namespace "
				    "has only its loopback and no proxy, so no host is reached at "
				    "all (`cordon proxy` or a proxy of one's own, and a network to "
				    "it, open a way out)",
				    in->net_origin ? in->net_origin : "a net rule");
		unexpressed(o, s);
		free(s);
	}
	unexpressed(o, "the seccomp filter's action on a syscall of another ABI: cordon kills the "
		       "process; OCI seccomp has no member for it, so the runtime's libseccomp "
		       "default (kill the thread) applies");
	unexpressed(o, "dying with the caller: bwrap's --die-with-parent; a runtime keeps the "
		       "container when its caller dies (crun kill ends it)");
	if (in->nadvisories)
		unexpressed(o, "glob and regex path rules (org.cordon.advisory.N): cordon run masks "
			       "what a read deny matches when a call starts; a config is written "
			       "once, so they are enforced by cordon's decisions only");
	if (o->fences)
		unexpressed(o, "fences of missing protected paths: the runtime makes their mount "
			       "points on the host, as empty directories, and leaves them after the "
			       "run; cordon run makes them for a call and removes them");
	if (o->mask_files)
		unexpressed(o, "a masked file is bound from an empty read-only file beside the "
			       "per-call temp dir (${tmp}.mask): cordon run makes it, a bundle's "
			       "maker must");
	if (o->symlinks)
		unexpressed(o, "the links bwrap makes where the host's root is not shown "
			       "(org.cordon.skipped.N): the root given must hold them");
}

static void add_advisories(struct oci *o)
{
	const struct lower_input *in = o->in;
	for (size_t i = 0; i < in->nadvisories; i++) {
		const struct lower_advisory *a = &in->advisories[i];
		char *v = xasprintf("%s %s %s by %s", ir_op_names[a->op], a->pattern,
				    ir_effect_names[a->effect], a->origin);
		annotatef(o, v, "org.cordon.advisory.%zu", i);
		free(v);
	}
}

/* ---- the whole ---------------------------------------------------------- */

static json_t *oci_process(struct oci *o)
{
	unsigned uid, gid;
	lower_oci_user(o->in, &uid, &gid);
	json_t *p = json_object(), *caps = json_object();
	json_object_set_new(p, "terminal", json_false());
	json_object_set_new(p, "user", json_pack("{s:I,s:I}", "uid", (json_int_t)uid, "gid",
						 (json_int_t)gid));
	annotate(o, "org.cordon.note.process.user",
		 o->in->host.uid ? "the caller's user and group"
				 : "the caller is root: the container runs as nobody (65534), "
				   "which must be able to write the write roots");
	json_object_set_new(p, "args", json_pack("[s]", "/bin/sh"));
	annotate(o, "org.cordon.note.process.args",
		 "not the preset's: the command to run goes in process.args");
	json_object_set_new(p, "env", json_incref(o->env));
	json_object_set_new(p, "cwd", json_string("/"));
	const char *sets[] = { "bounding", "effective", "inheritable", "permitted", "ambient" };
	for (size_t i = 0; i < ARRAY_SIZE(sets); i++)
		json_object_set_new(caps, sets[i], json_array());
	json_object_set_new(p, "capabilities", caps);
	return p;
}

/* The user namespace a caller other than root needs: its own ids alone. */
static void oci_user_namespace(struct oci *o, json_t *linux_)
{
	unsigned uid, gid;
	if (!o->in->host.uid)
		return;
	lower_oci_user(o->in, &uid, &gid);
	add_namespace(o, "user");
	json_object_set_new(linux_, "uidMappings",
			    json_pack("[{s:I,s:I,s:I}]", "containerID", (json_int_t)uid, "hostID",
				      (json_int_t)uid, "size", (json_int_t)1));
	json_object_set_new(linux_, "gidMappings",
			    json_pack("[{s:I,s:I,s:I}]", "containerID", (json_int_t)gid, "hostID",
				      (json_int_t)gid, "size", (json_int_t)1));
}

/* The seccomp section and its origins. */
static int oci_seccomp(struct oci *o, json_t *linux_, char **err)
{
	json_t *origins = NULL, *sc = lower_oci_seccomp_json(o->in, &origins, err), *e;
	size_t i;
	if (!sc)
		return -1;
	json_array_foreach(origins, i, e) {
		annotatef(o, json_string_value(json_object_get(e, "origin")),
			  "org.cordon.origin.linux.seccomp.syscalls.%zu", i);
		char *why = xasprintf("%s: %s", json_string_value(json_object_get(e, "condition")),
				      json_string_value(json_object_get(e, "why")));
		annotatef(o, why, "org.cordon.note.linux.seccomp.syscalls.%zu", i);
		free(why);
	}
	json_decref(origins);
	json_object_set_new(linux_, "seccomp", sc);
	return 0;
}

static void oci_free(struct oci *o)
{
	json_decref(o->root);
	json_decref(o->env);
	json_decref(o->mounts);
	json_decref(o->namespaces);
	json_decref(o->readonly_paths);
	json_decref(o->annotations);
}

static json_t *oci_build(const struct lower_input *in, const struct cordon_plan *pl, char **err)
{
	struct oci o = { in, json_object(), json_array(), json_array(), json_array(),
			 json_array(), json_object(), 0, 0, false, false, false };
	json_t *linux_ = json_object(), *process;
	annotate(&o, "org.cordon.preset", in->preset);
	process = oci_process(&o);
	add_namespace(&o, "mount");
	for (size_t i = 0; i < pl->n; i++)
		plan_op(&o, &pl->ops[i], process);
	if (!json_object_get(o.root, "path")) {
		/* No rule lets the whole host be read: the read roots are bound
		 * into an empty root. */
		json_object_set_new(o.root, "path", json_string("rootfs"));
		json_object_set_new(o.root, "readonly", json_true());
		annotate(&o, "org.cordon.note.root",
			 "no rule lets the whole host be read: rootfs, an empty directory in the "
			 "bundle, holds the read roots bound into it");
	}
	json_object_set_new(process, "noNewPrivileges", json_true());
	oci_user_namespace(&o, linux_);
	add_limits(&o, process, linux_);
	json_object_set_new(linux_, "namespaces", json_incref(o.namespaces));
	if (json_array_size(o.readonly_paths))
		json_object_set_new(linux_, "readonlyPaths", json_incref(o.readonly_paths));
	if (oci_seccomp(&o, linux_, err) != 0) {
		json_decref(process);
		json_decref(linux_);
		oci_free(&o);
		return NULL;
	}
	add_advisories(&o);
	say_unexpressed(&o);
	json_t *config = json_object();
	json_object_set_new(config, "ociVersion", json_string(OCI_VERSION));
	json_object_set_new(config, "root", json_incref(o.root));
	json_object_set_new(config, "process", process);
	json_object_set_new(config, "mounts", json_incref(o.mounts));
	json_object_set_new(config, "linux", linux_);
	json_object_set_new(config, "annotations", json_incref(o.annotations));
	oci_free(&o);
	return config;
}

char *lower_oci(const struct lower_input *in, size_t *len, char **err)
{
	struct cordon_plan pl;
	struct strbuf sb;
	/* No walk follows a container's run: every missing protected path
	 * keeps its fence. */
	struct lower_input fenced_in = *in;
	fenced_in.no_after_call = true;
	if (lower_bwrap_plan(&fenced_in, &pl, err) != 0)
		return NULL;
	json_t *config = oci_build(in, &pl, err);
	cordon_plan_free(&pl);
	if (!config)
		return NULL;
	sb_init(&sb);
	lower_json_layout(&sb, config, 2, flat_members);
	json_decref(config);
	*len = sb.len;
	return sb_steal(&sb);
}
