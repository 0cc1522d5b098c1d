/* The Landlock ruleset, as text for a reader: the running kernel's ABI,
 * what each ABI adds, the rights the ruleset handles, the path-beneath
 * rules that grant them (the write roots and /dev), and what Landlock
 * cannot express.  The runner applies the same ruleset inside the sandbox
 * with cordon_landlock_apply(lower_landlock_roots(), lower_landlock_flags()).
 *
 * CORDON_LANDLOCK_ABI=N in the environment shows the ruleset for ABI N
 * instead of the running kernel's (0: a kernel without Landlock); both
 * are read with the host (lower_host_read). */
#include "config.h"

#include "cordon/landlock.h"
#include "lower.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static const struct {
	int abi;
	const char *kernel;
	const char *adds;
} abi_table[] = {
	{ 1, "5.13", "filesystem: execute, read and write files, read directories, remove files "
		     "and directories, make directories, files, links, sockets, fifos, devices" },
	{ 2, "5.19", "REFER: link or rename a file into another directory" },
	{ 3, "6.2", "TRUNCATE: truncate, ftruncate and open with O_TRUNC" },
	{ 4, "6.7", "TCP: bind and connect (handled_access_net)" },
	{ 5, "6.10", "IOCTL_DEV: ioctl on character and block devices" },
	{ 6, "6.12", "scopes: abstract unix sockets and signals outside the domain" },
	{ 7, "6.15", "audit: logging flags for landlock_restrict_self" },
};

static bool root_is_slash(const struct lower_input *in)
{
	for (size_t i = 0; i < in->npaths; i++)
		if (in->paths[i].why == LOWER_WRITE_ROOT && strcmp(in->paths[i].path, "/") == 0)
			return true;
	return false;
}

/* The write root that covers p (another write root, or /dev), if any. */
static const char *covered_by(const struct lower_input *in, const struct lower_path *p)
{
	for (size_t i = 0; i < in->npaths; i++) {
		const struct lower_path *q = &in->paths[i];
		if (q->why == LOWER_WRITE_ROOT && strcmp(q->path, p->path) != 0 &&
		    path_under(p->path, q->path))
			return q->path;
	}
	if (strcmp(p->path, "/dev") != 0 && path_under(p->path, "/dev"))
		return "/dev";
	return NULL;
}

const char **lower_landlock_roots(const struct lower_input *in, size_t *n)
{
	const char **roots = NULL;
	size_t cap = 0;
	*n = 0;
	if (!root_is_slash(in))
		VEC_PUSH(roots, *n, cap, "/dev");
	for (size_t i = 0; i < in->npaths; i++) {
		const struct lower_path *p = &in->paths[i];
		if (p->why == LOWER_WRITE_ROOT && !covered_by(in, p) &&
		    !(strcmp(p->path, "/dev") == 0 && !root_is_slash(in)))
			VEC_PUSH(roots, *n, cap, p->path);
	}
	return roots;
}

unsigned lower_landlock_flags(const struct lower_input *in)
{
	return CORDON_LANDLOCK_DENY_TCP | (in->net_allowed ? CORDON_LANDLOCK_EGRESS : 0) |
	       (in->unix_allowed ? 0 : CORDON_LANDLOCK_SCOPE_UNIX);
}

static int pretend_abi(const struct lower_host *h, int *abi, bool *pretend, char **err)
{
	const char *s = h->landlock_abi_shown;
	*pretend = s != NULL;
	if (!*pretend) {
		*abi = h->landlock_abi;
		return 0;
	}
	char *end;
	errno = 0;
	long v = strtol(s, &end, 10);
	if (errno || *end || v < 0 || v > 99) {
		*err = xasprintf("CORDON_LANDLOCK_ABI='%s' is not an ABI version (0 to 99)", s);
		return -1;
	}
	*abi = (int)v;
	return 0;
}

/* The title and the kernel's Landlock ABI as found (or as CORDON_LANDLOCK_ABI
 * pretends): the first lines of lower_landlock_text, one step of it. */
static void text_kernel(struct strbuf *sb, const struct lower_input *in, int kabi, bool pretend)
{
	sb_adds(sb, "# Landlock ruleset for preset ");
	sb_add_quoted(sb, in->preset);
	sb_adds(sb, "\n");
	if (kabi == 0)
		sb_addf(sb, "kernel: no Landlock%s: nothing can be applied; shown below is the "
			    "ruleset for ABI 1\n",
			pretend ? " (CORDON_LANDLOCK_ABI)" : "");
	else
		sb_addf(sb, "kernel: Landlock ABI %d%s%s\n", kabi,
			pretend ? " (CORDON_LANDLOCK_ABI)" : "",
			kabi > CORDON_LANDLOCK_ABI_KNOWN ? ", newer than this build knows: used as "
							   "the newest it knows"
							 : "");
}

/* Every ABI version this build knows, those in the ruleset starred. */
static void text_abi_table(struct strbuf *sb, int abi)
{
	sb_adds(sb, "\nABI versions (* = in this ruleset):\n");
	for (size_t i = 0; i < ARRAY_SIZE(abi_table); i++)
		sb_addf(sb, "  %c %d  Linux %-5s %s\n", abi_table[i].abi <= abi ? '*' : ' ',
			abi_table[i].abi, abi_table[i].kernel, abi_table[i].adds);
}

/* The filesystem rights the ruleset handles: every write right. */
static void text_handled_fs(struct strbuf *sb, int abi)
{
	char names[512];
	sb_adds(sb, "\nruleset:\n");
	cordon_landlock_fs_names(cordon_landlock_fs_writes(abi), names, sizeof(names));
	sb_addf(sb, "  handled_access_fs   %s\n", names);
	sb_adds(sb, "                      every write right the ABI knows: denied wherever no "
		    "rule below grants it\n");
	if (abi < 2)
		sb_adds(sb, "                      without REFER (ABI 1), linking or renaming a "
			    "file into another directory always fails\n");
}

/* The network rights the ruleset handles, and the ports it leaves open
 * when a host may be reached: four cases of net allowed and ABI 4. */
static void text_handled_net(struct strbuf *sb, const struct lower_input *in, int abi)
{
	if (in->net_allowed && abi >= 4) {
		sb_addf(sb, "  handled_access_net  BIND_TCP CONNECT_TCP\n"
			    "                      but CONNECT_TCP to port %d, the egress proxy on "
			    "the sandbox's loopback (a net rule allows some host: %s)\n",
			CORDON_EGRESS_PORT, in->net_origin ? in->net_origin : "?");
		/* The sandbox's network namespace has no route out: these
		 * reach cordon-exec's transparent relay and nothing else. */
		sb_adds(sb, "                      and to ports");
		for (size_t i = 0; i < in->nrelay_ports; i++)
			sb_addf(sb, "%s %d", i && i + 1 == in->nrelay_ports ? " and" : "",
				in->relay_ports[i]);
		sb_adds(sb, ", the transparent relay there\n");
	} else if (in->net_allowed)
		sb_addf(sb, "  handled_access_net  none: TCP needs ABI 4; the network namespace "
			    "holds only the egress proxy (%s)\n",
			in->net_origin ? in->net_origin : "?");
	else if (abi >= 4)
		sb_adds(sb, "  handled_access_net  BIND_TCP CONNECT_TCP\n"
			    "                      no rule grants them: every TCP bind and connect "
			    "fails (no net rule allows a host)\n");
	else
		sb_adds(sb, "  handled_access_net  none: TCP needs ABI 4; the network namespace and "
			    "the seccomp filter deny the network\n");
}

/* The scopes: abstract unix sockets, unless net "unix" is allowed. */
static void text_scoped(struct strbuf *sb, const struct lower_input *in, int abi)
{
	if (in->unix_allowed)
		sb_adds(sb, "  scoped              none: net \"unix\" is allowed\n");
	else if (abi >= 6)
		sb_adds(sb, "  scoped              ABSTRACT_UNIX_SOCKET\n"
			    "                      no abstract unix socket outside the sandbox "
			    "(net \"unix\" is not allowed)\n");
	else
		sb_adds(sb, "  scoped              none: scopes need ABI 6; the seccomp filter "
			    "refuses unix sockets\n");
}

/* The rules: each write root, what it grants (a directory, a file, or
 * nothing where it does not exist) and the rule it comes from, in columns. */
static void text_rules(struct strbuf *sb, const struct lower_input *in, int abi)
{
	char names[512];
	size_t nroots;
	const char **roots = lower_landlock_roots(in, &nroots);
	size_t w = 0;
	for (size_t i = 0; i < nroots; i++)
		if (strlen(roots[i]) > w)
			w = strlen(roots[i]);
	char **what = xcalloc(nroots ? nroots : 1, sizeof(*what));
	size_t ww = 0;
	for (size_t i = 0; i < nroots; i++) {
		const struct lower_fact *f = lower_fact(in, roots[i]);
		if (f->stat_errno) {
			what[i] = xstrdup("skipped: does not exist");
		} else if (f->stat_dir) {
			what[i] = xstrdup("every handled right");
		} else {
			cordon_landlock_fs_names(cordon_landlock_fs_file_writes(abi), names, sizeof(names));
			what[i] = xasprintf("a file: %s", names);
		}
		if (strlen(what[i]) > ww)
			ww = strlen(what[i]);
	}
	sb_adds(sb, "\nrules (path beneath: a right granted on a directory holds below it):\n");
	for (size_t i = 0; i < nroots; i++) {
		const char *origin = NULL;
		for (size_t j = 0; j < in->npaths; j++)
			if (in->paths[j].why == LOWER_WRITE_ROOT && strcmp(in->paths[j].path, roots[i]) == 0)
				origin = in->paths[j].origin;
		sb_addf(sb, "  %-*s  %-*s  %s\n", (int)w, roots[i], (int)ww, what[i],
			origin ? origin : "/dev/null and terminals (the sandbox's own /dev)");
		free(what[i]);
	}
	free(what);
	free(roots);
}

/* The write roots that need no rule of their own, under the one above
 * that covers them, in columns. */
static void text_covered(struct strbuf *sb, const struct lower_input *in)
{
	bool any = false;
	size_t w = 0, ww = 0;
	for (size_t i = 0; i < in->npaths; i++) {
		const char *by = in->paths[i].why == LOWER_WRITE_ROOT ? covered_by(in, &in->paths[i])
								       : NULL;
		if (by && strlen(in->paths[i].path) > w)
			w = strlen(in->paths[i].path);
		if (by && strlen(by) > ww)
			ww = strlen(by);
	}
	for (size_t i = 0; i < in->npaths; i++) {
		const struct lower_path *p = &in->paths[i];
		const char *by;
		if (p->why != LOWER_WRITE_ROOT || !(by = covered_by(in, p)))
			continue;
		if (!any)
			sb_adds(sb, "\ncovered by a rule above:\n");
		any = true;
		sb_addf(sb, "  %-*s  under %-*s  %s\n", (int)w, p->path, (int)ww, by, p->origin);
	}
}

/* The read-only paths inside a write root, which Landlock cannot carve
 * out and bwrap enforces, with why each is read-only. */
static void text_read_only(struct strbuf *sb, const struct lower_input *in)
{
	bool any = false;
	size_t w = 0;
	for (size_t i = 0; i < in->npaths; i++)
		if (in->paths[i].why == LOWER_READ_ONLY && strlen(in->paths[i].path) > w)
			w = strlen(in->paths[i].path);
	for (size_t i = 0; i < in->npaths; i++) {
		const struct lower_path *p = &in->paths[i];
		if (p->why != LOWER_READ_ONLY)
			continue;
		if (!any)
			sb_adds(sb, "\nread-only inside a write root: Landlock only grants, so these "
				    "cannot be carved out of a rule above;\nbwrap's read-only binds "
				    "enforce them:\n");
		any = true;
		sb_addf(sb, "  %-*s  %-17s  %s\n", (int)w, p->path,
			p->protect ? "protected" : "write not allowed",
			p->origin);
	}
}

/* The globs and regexes no rule can carry, and the closing notes. */
static void text_advisories(struct strbuf *sb, const struct lower_input *in)
{
	if (in->nadvisories) {
		sb_adds(sb, "\nadvisories (a glob or regex is no rule: enforced when file tools ask, "
			    "not by Landlock):\n");
		for (size_t i = 0; i < in->nadvisories; i++) {
			const struct lower_advisory *a = &in->advisories[i];
			sb_addf(sb, "  %s %s %s  %s\n", ir_op_names[a->op], a->pattern,
				ir_effect_names[a->effect], a->origin);
		}
	}
	sb_adds(sb, "\nnot handled: reading and executing (bwrap's mounts and masks bound them)\n"
		    "applied inside the sandbox before exec: prctl(PR_SET_NO_NEW_PRIVS), then "
		    "landlock_restrict_self\n");
}

char *lower_landlock_text(const struct lower_input *in, size_t *len, char **err)
{
	struct strbuf sb;
	bool pretend;
	int kabi, abi;
	if (!in->restricted) {
		*err = xasprintf("preset '%s' runs without a sandbox (sandbox none): there is no "
				 "Landlock ruleset",
				 in->preset);
		return NULL;
	}
	if (pretend_abi(&in->host, &kabi, &pretend, err) != 0)
		return NULL;
	abi = kabi > CORDON_LANDLOCK_ABI_KNOWN ? CORDON_LANDLOCK_ABI_KNOWN : kabi;

	sb_init(&sb);
	text_kernel(&sb, in, kabi, pretend);
	if (abi == 0)
		abi = 1;
	text_abi_table(&sb, abi);
	text_handled_fs(&sb, abi);
	text_handled_net(&sb, in, abi);
	text_scoped(&sb, in, abi);
	text_rules(&sb, in, abi);
	text_covered(&sb, in);
	text_read_only(&sb, in);
	text_advisories(&sb, in);
	*len = sb.len;
	return sb_steal(&sb);
}
