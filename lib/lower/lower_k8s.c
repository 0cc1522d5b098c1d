/* The preset for Kubernetes: a List of a Pod and a NetworkPolicy with the
 * bounds of the bwrap plan, read from the typed plan as `--emit oci`
 * reads it.  The seccomp profile is the node's localhost profile, the
 * very bytes of `--emit k8s-seccomp` (the OCI config's linux.seccomp).
 *
 * A write root is a volume (the workspace a PersistentVolumeClaim, any
 * other an emptyDir), what the plan takes back inside it a read-only
 * mount of a subPath of that volume, a mask or a fence a read-only
 * emptyDir; the root file system is read-only.  Every volume mount, every
 * variable and what is not expressed carry annotations (cordon/...) with
 * the rule's file:line:col. */
#include "config.h"

#include "cordon/landlock.h"
#include "lower.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

#define WORKSPACE_CLAIM "cordon-workspace"
#define PROXY_NAME "cordon-proxy"
#define SECCOMP_DIR "cordon"

struct k8s {
	const struct lower_input *in;
	json_t *mounts, *volumes, *env, *annotations;
	size_t nvolumes, nskipped, nunexpressed;
	/* The write roots mounted so far, and their volumes' names. */
	const char **roots;
	char **root_volumes;
	size_t nroots, roots_cap;
	bool read_only_root, mask_files;
};

static void note(struct k8s *k, const char *value, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void note(struct k8s *k, const char *value, const char *fmt, ...)
{
	va_list ap;
	struct strbuf key;
	sb_init(&key);
	sb_adds(&key, "cordon/");
	va_start(ap, fmt);
	sb_vaddf(&key, fmt, ap);
	va_end(ap);
	json_object_set_new(k->annotations, key.buf, json_string(value ? value : "(not UTF-8)"));
	sb_free(&key);
}

/* A name Kubernetes takes (RFC 1123 label): lower case, digits and '-'. */
static char *k8s_name(const char *prefix, const char *preset)
{
	char *s = xasprintf("%s-%s", prefix, preset);
	for (char *p = s; *p; p++) {
		if (*p >= 'A' && *p <= 'Z')
			*p = (char)(*p - 'A' + 'a');
		else if (!((*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9')))
			*p = '-';
	}
	size_t n = strlen(s);
	while (n > 1 && s[n - 1] == '-')
		s[--n] = '\0';
	if (n > 63)
		s[63] = '\0';
	return s;
}

static void add_volume_mount(struct k8s *k, const struct cordon_plan_op *op, const char *volume,
			     const char *sub, bool ro)
{
	size_t n = json_array_size(k->mounts);
	json_t *m = json_pack("{s:s,s:s}", "name", volume, "mountPath", op->path);
	if (sub && sub[0])
		json_object_set_new(m, "subPath", json_string(sub));
	json_object_set_new(m, "readOnly", json_boolean(ro));
	json_array_append_new(k->mounts, m);
	if (op->origin)
		note(k, op->origin, "origin.volumeMounts.%zu", n);
	if (op->note)
		note(k, op->note, "note.volumeMounts.%zu", n);
}

/* A new volume: its name. */
static char *add_volume(struct k8s *k, json_t *source, const char *kind)
{
	char *name = xasprintf("%s-%zu", kind, k->nvolumes++);
	json_t *v = json_pack("{s:s}", "name", name);
	json_object_update(v, source);
	json_decref(source);
	json_array_append_new(k->volumes, v);
	return name;
}

/* The deepest write root mounted at or above path, or -1. */
static ssize_t root_of(const struct k8s *k, const char *path)
{
	ssize_t best = -1;
	for (size_t i = 0; i < k->nroots; i++)
		if (path_under(path, k->roots[i]) &&
		    (best < 0 || strlen(k->roots[i]) > strlen(k->roots[(size_t)best])))
			best = (ssize_t)i;
	return best;
}

static void skipped(struct k8s *k, const struct cordon_plan_op *op, const char *why)
{
	char *v = xasprintf("%s%s%s: %s", op->path ? op->path : "", op->origin ? " by " : "",
			    op->origin ? op->origin : "", why ? why : "");
	note(k, v, "skipped.%zu", k->nskipped++);
	free(v);
}

/* A bind: a write root becomes a volume; a bind below one (a pin, a
 * protection) a subPath of its volume; any other is the image's. */
static void k8s_bind(struct k8s *k, const struct cordon_plan_op *op)
{
	bool ro = op->kind == CORDON_PLAN_RO_BIND;
	if (strcmp(op->path, "/") == 0) {
		k->read_only_root = ro;
		if (op->origin)
			note(k, op->origin, "origin.readOnlyRootFilesystem");
		return;
	}
	ssize_t r = root_of(k, op->path);
	if (r >= 0) {
		const char *root = k->roots[r];
		const char *sub = op->path + strlen(root);
		add_volume_mount(k, op, k->root_volumes[r], sub[0] == '/' ? sub + 1 : sub, ro);
		return;
	}
	if (ro) {
		skipped(k, op, "the image's, read-only with its root file system");
		return;
	}
	bool ws = k->in->workspace && strcmp(op->path, k->in->workspace) == 0;
	char *name = ws ? add_volume(k, json_pack("{s:{s:s}}", "persistentVolumeClaim", "claimName",
						   WORKSPACE_CLAIM), "workspace")
			: add_volume(k, json_pack("{s:{}}", "emptyDir"), "write");
	add_volume_mount(k, op, name, NULL, false);
	VEC_PUSH(k->roots, k->nroots, k->roots_cap, op->path);
	k->root_volumes = xrealloc(k->root_volumes, k->roots_cap * sizeof(*k->root_volumes));
	k->root_volumes[k->nroots - 1] = name;
}

static void k8s_op(struct k8s *k, const struct cordon_plan_op *op, json_t *container)
{
	switch (op->kind) {
	case CORDON_PLAN_RO_BIND:
	case CORDON_PLAN_BIND:
		k8s_bind(k, op);
		break;
	case CORDON_PLAN_TMPFS:
	case CORDON_PLAN_MASK_DIR: {
		char *name = add_volume(k, json_pack("{s:{}}", "emptyDir"), "empty");
		add_volume_mount(k, op, name, NULL, true);
		free(name);
		break;
	}
	case CORDON_PLAN_MASK_FILE:
		k->mask_files = true;
		skipped(k, op, "a file is masked with an empty file: a volume mounts directories, "
			       "so the image must not hold it");
		break;
	case CORDON_PLAN_SETENV: {
		size_t n = json_array_size(k->env);
		json_array_append_new(k->env, json_pack("{s:s,s:s}", "name", op->path, "value",
							op->source));
		if (op->origin)
			note(k, op->origin, "origin.env.%zu", n);
		break;
	}
	case CORDON_PLAN_CHDIR:
		json_object_set_new(container, "workingDir", json_string(op->path));
		break;
	case CORDON_PLAN_SKIP:
		skipped(k, op, op->note);
		break;
	case CORDON_PLAN_SYMLINK:
	case CORDON_PLAN_DIR:
		skipped(k, op, "made by bwrap in the sandbox: the image must hold it");
		break;
	default:
		/* Namespaces, capabilities, /dev and /proc are the Pod's own; the
		 * read-only remounts are the read-only volume mounts. */
		break;
	}
}

/* The proxy, where a net rule allows a host: the Pod reaches it alone. */
static void k8s_proxy_env(struct k8s *k)
{
	static const char *const names[] = { "HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY",
					     "http_proxy", "https_proxy" };
	char *url = xasprintf("http://%s:%d", PROXY_NAME, CORDON_EGRESS_PORT);
	for (size_t i = 0; i < ARRAY_SIZE(names); i++) {
		note(k, k->in->net_origin, "origin.env.%zu", json_array_size(k->env));
		json_array_append_new(k->env, json_pack("{s:s,s:s}", "name", names[i], "value", url));
	}
	free(url);
}

static void unexpressed(struct k8s *k, const char *what)
{
	note(k, what, "unexpressed.%zu", k->nunexpressed++);
}

/* resources.limits: memory alone maps; the rlimits do not. */
static json_t *k8s_resources(struct k8s *k)
{
	const struct lower_input *in = k->in;
	json_t *limits = json_object();
	for (size_t i = 0; i < in->nlimits; i++) {
		const struct cordon_limit *l = &in->limits[i];
		struct strbuf sb;
		sb_init(&sb);
		if (l->which == (int)IR_LIMIT_MEMORY) {
			sb_addf(&sb, "%llu", (unsigned long long)l->value);
			json_object_set_new(limits, "memory", json_string(sb.buf));
			note(k, l->origin, "origin.resources.limits.memory");
		} else {
			sb_addf(&sb, "%s (%s): a Pod sets no rlimit; cordon run applies it with "
				     "setrlimit%s",
				ir_limit_names[l->which], l->origin,
				l->which == (int)IR_LIMIT_PROCESSES
					? ", and the kubelet's --pod-max-pids bounds a Pod's processes"
					: "");
			unexpressed(k, sb.buf);
		}
		sb_free(&sb);
	}
	return json_pack("{s:o}", "limits", limits);
}

static void k8s_say_unexpressed(struct k8s *k)
{
	unexpressed(k, "Landlock: cordon run applies a Landlock ruleset through its helper "
		       "cordon-exec; a Pod applies none. The read-only root, the volume mounts and "
		       "the seccomp profile hold the same bounds without it");
	unexpressed(k, "the seccomp profile is the node's: cordon compile --emit k8s-seccomp "
		       "writes it, to be installed as the kubelet's seccomp/" SECCOMP_DIR
		       "/PRESET.json on every node; a Pod whose profile is missing does not start");
	unexpressed(k, "the NetworkPolicy holds only where the cluster's network plugin enforces "
		       "NetworkPolicy");
	if (k->in->net_allowed)
		unexpressed(k, "egress by host: the Pod reaches only " PROXY_NAME
			       " (and the cluster's DNS, to find it); that proxy must decide each "
			       "host by the policy, as `cordon proxy` or cordon run's own does");
	if (k->in->nadvisories)
		unexpressed(k, "glob and regex path rules: enforced by cordon's decisions only");
}

/* The container's and the Pod's securityContext. */
static json_t *security_context(const struct k8s *k, bool container, const char *profile)
{
	unsigned uid, gid;
	lower_oci_user(k->in, &uid, &gid);
	json_t *sc = json_pack("{s:b,s:I,s:I}", "runAsNonRoot", 1, "runAsUser", (json_int_t)uid,
			       "runAsGroup", (json_int_t)gid);
	if (container) {
		json_object_set_new(sc, "readOnlyRootFilesystem", json_boolean(k->read_only_root));
		json_object_set_new(sc, "allowPrivilegeEscalation", json_false());
		json_object_set_new(sc, "privileged", json_false());
		json_object_set_new(sc, "capabilities", json_pack("{s:[s]}", "drop", "ALL"));
	}
	json_object_set_new(sc, "seccompProfile", json_pack("{s:s,s:s}", "type", "Localhost",
							    "localhostProfile", profile));
	return sc;
}

static json_t *network_policy(const struct k8s *k, const char *name, json_t *labels)
{
	json_t *egress = json_array();
	if (k->in->net_allowed) {
		json_array_append_new(
			egress,
			json_pack("{s:[{s:{s:{s:s}}}],s:[{s:s,s:i}]}", "to", "podSelector",
				  "matchLabels", "app.kubernetes.io/name", PROXY_NAME, "ports",
				  "protocol", "TCP", "port", CORDON_EGRESS_PORT));
		json_array_append_new(
			egress,
			json_pack("{s:[{s:{s:{s:s}},s:{s:{s:s}}}],s:[{s:s,s:i},{s:s,s:i}]}", "to",
				  "namespaceSelector", "matchLabels", "kubernetes.io/metadata.name",
				  "kube-system", "podSelector", "matchLabels", "k8s-app", "kube-dns",
				  "ports", "protocol", "UDP", "port", 53, "protocol", "TCP", "port",
				  53));
	}
	return json_pack("{s:s,s:s,s:{s:s},s:{s:{s:O},s:[s,s],s:[],s:o}}", "apiVersion",
			 "networking.k8s.io/v1", "kind", "NetworkPolicy", "metadata", "name", name,
			 "spec", "podSelector", "matchLabels", labels, "policyTypes", "Ingress",
			 "Egress", "ingress", "egress", egress);
}

static void k8s_free(struct k8s *k)
{
	json_decref(k->mounts);
	json_decref(k->volumes);
	json_decref(k->env);
	json_decref(k->annotations);
	for (size_t i = 0; i < k->nroots; i++)
		free(k->root_volumes[i]);
	free(k->root_volumes);
	free(k->roots);
}

static json_t *k8s_pod(struct k8s *k, const struct cordon_plan *pl, const char *name,
		       json_t *labels)
{
	char *profile = xasprintf("%s/%s.json", SECCOMP_DIR, k->in->preset);
	json_t *container = json_pack("{s:s,s:s,s:[s]}", "name", "agent", "image", "agent",
				      "command", "/bin/sh");
	note(k, "not the preset's: the agent's image, and the command in command", "note.image");
	note(k, profile, "seccomp-profile");
	for (size_t i = 0; i < pl->n; i++)
		k8s_op(k, &pl->ops[i], container);
	if (k->in->net_allowed)
		k8s_proxy_env(k);
	json_object_set_new(container, "env", json_incref(k->env));
	json_object_set_new(container, "resources", k8s_resources(k));
	json_object_set_new(container, "securityContext", security_context(k, true, profile));
	json_object_set_new(container, "volumeMounts", json_incref(k->mounts));
	k8s_say_unexpressed(k);
	json_t *pod = json_pack(
		"{s:s,s:s,s:{s:s,s:O,s:O},s:{s:b,s:b,s:b,s:b,s:b,s:s,s:o,s:[o],s:O}}", "apiVersion",
		"v1", "kind", "Pod", "metadata", "name", name, "labels", labels, "annotations",
		k->annotations, "spec", "automountServiceAccountToken", 0, "enableServiceLinks", 0,
		"hostNetwork", 0, "hostPID", 0, "hostIPC", 0, "restartPolicy", "Never",
		"securityContext", security_context(k, false, profile), "containers", container,
		"volumes", k->volumes);
	free(profile);
	return pod;
}

char *lower_k8s(const struct lower_input *in, size_t *len, char **err)
{
	struct cordon_plan pl;
	struct strbuf sb;
	json_t *origins = NULL, *sc = lower_oci_seccomp_json(in, &origins, err);
	if (!sc)
		return NULL;
	json_decref(sc);
	json_decref(origins);
	/* No walk follows a container's run: every missing protected path
	 * keeps its fence. */
	struct lower_input fenced_in = *in;
	fenced_in.no_after_call = true;
	if (lower_bwrap_plan(&fenced_in, &pl, err) != 0)
		return NULL;
	struct k8s k = { in, json_array(), json_array(), json_array(), json_object(), 0, 0, 0,
			 NULL, NULL, 0, 0, true, false };
	char *name = k8s_name("cordon", in->preset);
	json_t *labels = json_pack("{s:s,s:s}", "app.kubernetes.io/managed-by", "cordon",
				   "app.kubernetes.io/name", name);
	json_object_set_new(k.annotations, "cordon/preset", json_string(in->preset));
	json_t *pod = k8s_pod(&k, &pl, name, labels);
	json_t *list = json_pack("{s:s,s:s,s:[o,o]}", "apiVersion", "v1", "kind", "List", "items",
				 pod, network_policy(&k, name, labels));
	json_decref(labels);
	free(name);
	k8s_free(&k);
	cordon_plan_free(&pl);
	sb_init(&sb);
	lower_json_layout(&sb, list, 6, NULL);
	json_decref(list);
	*len = sb.len;
	return sb_steal(&sb);
}
