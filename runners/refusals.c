/* The egress proxy's refusals, reported after the call (refusals.h). */
#include "config.h"

#ifdef __linux__

#include "refusals.h"
#include "run_approval.h"
#include "run_util.h"

#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char *const kind_names[] = {
	[PROXY_REFUSED_RULE] = "rule",
	[PROXY_REFUSED_ADDRESS] = "address",
	[PROXY_REFUSED_REQUEST] = "request",
	[PROXY_REFUSED_APPROVED_ONLY] = "approved-only",
};

static const char *const fix_names[] = {
	[REFUSAL_FIX_NONE] = "none",
	[REFUSAL_FIX_RULE] = "rule",
	[REFUSAL_FIX_APPROVE] = "approve",
};

/* ---- escaping --------------------------------------------------------- */

static void add_hex(struct strbuf *sb, unsigned char ch)
{
	sb_addf(sb, "\\x%02x", ch);
}

/* The length of the UTF-8 sequence at s that is a printable character
 * (not a C0 or C1 control, not DEL), or 0. */
static size_t printable_utf8(const unsigned char *s)
{
	uint32_t cp;
	size_t n;
	if (s[0] >= 0x20 && s[0] < 0x7f)
		return 1;
	if ((s[0] & 0xe0) == 0xc0)
		n = 2, cp = s[0] & 0x1f;
	else if ((s[0] & 0xf0) == 0xe0)
		n = 3, cp = s[0] & 0x0f;
	else if ((s[0] & 0xf8) == 0xf0)
		n = 4, cp = s[0] & 0x07;
	else
		return 0;
	for (size_t i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (s[i] & 0x3f);
	}
	static const uint32_t least[] = { 0, 0, 0x80, 0x800, 0x10000 };
	if (cp < least[n] || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff) ||
	    (cp >= 0x80 && cp <= 0x9f))
		return 0;
	return n;
}

/* s with every byte that is not printable ASCII (utf8: nor a printable
 * UTF-8 character) as \xHH, and a backslash doubled: what the command
 * sent can neither move the cursor, nor colour, nor end a line. */
static char *escaped(const char *s, bool utf8)
{
	struct strbuf sb;
	sb_init(&sb);
	sb_adds(&sb, "");
	for (const unsigned char *p = (const unsigned char *)s; *p;) {
		size_t n = utf8 ? printable_utf8(p) : (*p >= 0x20 && *p < 0x7f);
		if (*p == '\\')
			sb_adds(&sb, "\\\\"), n = 1;
		else if (n)
			sb_add(&sb, (const char *)p, n);
		else
			add_hex(&sb, *p), n = 1;
		p += n;
	}
	return sb_steal(&sb);
}

char *refusals_escape(const char *s)
{
	return escaped(s, true);
}

/* A JSON string of s, which escaped() made: only '"' and '\' to escape. */
static void add_json(struct strbuf *sb, const char *s)
{
	if (!s) {
		sb_adds(sb, "null");
		return;
	}
	sb_addc(sb, '"');
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		if (*p == '"' || *p == '\\')
			sb_addc(sb, '\\'), sb_addc(sb, (char)*p);
		else if (*p < 0x20 || *p == 0x7f)
			sb_addf(sb, "\\u%04x", *p);
		else
			sb_addc(sb, (char)*p);
	}
	sb_addc(sb, '"');
}

/* ---- reading ---------------------------------------------------------- */

static bool same(const struct proxy_refusal *a, const struct proxy_refusal *b)
{
	return a->kind == b->kind && a->effect == b->effect && a->port == b->port &&
	       strcmp(a->host, b->host) == 0 && strcmp(a->rule, b->rule) == 0 &&
	       strcmp(a->reason, b->reason) == 0;
}

static void take(struct refusals *rs, const struct proxy_refusal *in)
{
	struct proxy_refusal r = *in;
	/* Whatever the pipe held, the strings end inside their arrays. */
	r.host[sizeof(r.host) - 1] = r.rule[sizeof(r.rule) - 1] = r.reason[sizeof(r.reason) - 1] = 0;
	if (r.kind < 0 || r.kind > PROXY_REFUSED_APPROVED_ONLY)
		r.kind = PROXY_REFUSED_REQUEST;
	if (r.effect != CORDON_ASK)
		r.effect = CORDON_DENY;
	if (r.port < 0 || r.port > 65535)
		r.port = 0;
	if (r.widens != 0 && r.widens != 1)
		r.widens = -1;
	for (size_t i = 0; i < rs->n; i++) {
		if (same(&rs->items[i].r, &r)) {
			rs->items[i].count++;
			return;
		}
	}
	if (rs->n >= REFUSALS_MAX) {
		rs->more++;
		return;
	}
	struct refusal f = { .r = r, .count = 1 };
	AUTO_FREE char *host = escaped(r.host, false);
	if (!r.host[0])
		f.target = xstrdup("(a request that names no host)");
	else if (!r.port)
		f.target = steal_pointer(&host);
	else
		f.target = xasprintf(strchr(r.host, ':') ? "[%s]:%d" : "%s:%d", host, r.port);
	f.rule = r.rule[0] ? escaped(r.rule, true) : NULL;
	f.reason = escaped(r.reason, true);
	VEC_PUSH(rs->items, rs->n, rs->cap, f);
}

bool refusals_read(struct refusals *rs, int fd)
{
	for (;;) {
		ssize_t n = read(fd, rs->part + rs->part_len, sizeof(rs->part) - rs->part_len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return n < 0 && errno == EAGAIN;
		rs->part_len += (size_t)n;
		if (rs->part_len == sizeof(rs->part)) {
			struct proxy_refusal r;
			memcpy(&r, rs->part, sizeof(r));
			take(rs, &r);
			rs->part_len = 0;
		}
	}
}

/* ---- the change that would allow it ----------------------------------- */

/* Whether s can stand in a policy's string as it is. */
static bool plain(const char *s)
{
	return !strpbrk(s, "\"\\$*?[]{}\n");
}

/* Is target allowed for op in a preset that extends the one in force
 * by the one rule line?  1, 0, or -1 unknown. */
static int widens_with(const struct run_opts *o, const char *line, enum cordon_op op,
		       const char *target, const char *host)
{
	const char *name = cordon_policy_name(o->policy);
	if (!name || !plain(o->preset) || !plain(target))
		return -1;
	AUTO_FREE char *abs = NULL;
	bool embedded = !o->policy_path && name[0] != '/';
	if (!embedded && !(abs = realpath(o->policy_path ? o->policy_path : name, NULL)))
		return -1;
	if (abs && !plain(abs))
		return -1;
	const char *check = "cordon-refusal-check";
	AUTO_FREE char *text = xasprintf("cordon 1;\ninclude \"%s\";\npreset \"%s\" extends \"%s\" {\n"
					 "  %s\n}\n",
					 embedded ? strrchr(name, '/') ? strrchr(name, '/') + 1 : name : abs,
					 check, o->preset, line);
	cordon_policy *p = cordon_policy_load_string(embedded ? "rules/refusal-check.cordon"
							      : "refusal-check.cordon",
						     embedded ? NULL : "/", text, strlen(text));
	int works = -1;
	AUTO_FREE char *err = NULL;
	cordon_evaluator *ev = cordon_policy_error_count(p) == 0
				       ? cordon_evaluator_new(p, check, o->ctx, &err)
				       : NULL;
	struct cordon_request req = { .op = op, .target = target, .sandboxed = true };
	cordon_decision *d = ev ? cordon_evaluate(ev, &req, &err) : NULL;
	if (d) {
		works = cordon_decision_effect(d) == CORDON_ALLOW;
		if (works && host)
			works = cordon_evaluator_rule_names_host(ev, cordon_decision_rule(d), host);
	}
	cordon_decision_free(d);
	cordon_evaluator_free(ev);
	cordon_policy_free(p);
	return works;
}

int refusals_widens(void *arg, const char *target, const char *host, bool address)
{
	if (!plain(target))
		return -1;
	AUTO_FREE char *line = xasprintf("net \"%s\" allow;", target);
	return widens_with(arg, line, CORDON_NET, target, address ? host : NULL);
}

int refusals_widens_write(const struct run_opts *o, const char *pattern, const char *path)
{
	if (strpbrk(pattern, "\"\\$\n"))
		return -1;
	AUTO_FREE char *line = xasprintf("write \"%s\" allow;", pattern);
	return widens_with(o, line, CORDON_WRITE, path, NULL);
}

/* Does an approval of this call's command open host:port (its preview
 * names it exactly, as an ask the approval grants)? */
static bool approval_opens(const cordon_decision *d, const struct proxy_refusal *r)
{
	size_t n = d ? cordon_decision_operation_count(d) : 0;
	for (size_t i = 0; i < n; i++) {
		enum cordon_op op;
		enum cordon_effect e;
		const char *target, *grant = cordon_decision_operation_grant(d, i, NULL);
		char host[256];
		int port;
		cordon_decision_operation(d, i, &op, &target, &e, NULL, NULL);
		if (op == CORDON_NET && e == CORDON_ASK && grant && strcmp(grant, "host") == 0 &&
		    cordon_exec_approval_host(target, host, sizeof(host), &port) &&
		    strcmp(host, r->host) == 0 && (port < 0 || port == r->port))
			return true;
	}
	return false;
}

void refusals_explain(struct refusals *rs, const struct run_opts *o, const cordon_decision *d)
{
	for (size_t i = 0; i < rs->n; i++) {
		struct refusal *f = &rs->items[i];
		if (f->fs_kind)
			continue; /* explained where it was found (refusal_watch.c) */
		if (f->r.kind == PROXY_REFUSED_REQUEST || !f->r.host[0] || !f->r.port ||
		    !proxy_valid_host(f->r.host)) {
			f->fix = REFUSAL_FIX_NONE;
			f->why = xstrdup("the request itself is refused, before any rule: no change of "
					 "policy lets it through");
			continue;
		}
		if (f->r.kind == PROXY_REFUSED_RULE && f->r.effect == CORDON_ASK && approval_opens(d, &f->r)) {
			f->fix = REFUSAL_FIX_APPROVE;
			f->change = run_approval_commands(o);
			continue;
		}
		int works = f->r.widens;
		if (works == 0) {
			f->fix = REFUSAL_FIX_NONE;
			f->why = xasprintf("`net \"%s\" allow;` in a preset that extends '%s' does not "
					   "win over %s (checked): only a change of that rule where it is "
					   "written can allow it",
					   f->target, o->preset, f->rule ? f->rule : "the rule that refused");
			continue;
		}
		f->fix = REFUSAL_FIX_RULE;
		f->change = xasprintf("net \"%s\" allow;", f->target);
		if (works < 0)
			f->why = xstrdup("not checked against the policy");
		else if (f->r.effect == CORDON_ASK)
			f->why = xstrdup("an approval opens only the hosts its command names, and this "
					 "command's words do not name it");
	}
}

/* ---- the report --------------------------------------------------------- */

/* The change that allows x, or why there is none, under its line. */
static void print_fix(const struct refusal *x, const char *preset, bool ask, FILE *f)
{
	switch (x->fix) {
	case REFUSAL_FIX_APPROVE: {
		fprintf(f, "cordon:   to allow it for one call, a person approves it, then the "
			   "call runs with the id that prints:\n");
		const char *s = x->change;
		while (*s) {
			size_t n = strcspn(s, "\n");
			fprintf(f, "cordon:     %.*s\n", (int)n, s);
			s += n + (s[n] == '\n');
		}
		break;
	}
	case REFUSAL_FIX_RULE:
		if (ask && x->why)
			fprintf(f, "cordon:   no approval of this call opens it: %s\n", x->why);
		fprintf(f, "cordon:   to allow it, add to a preset that extends '%s':  %s%s%s%s\n",
			preset, x->change, !ask && x->why ? "  (" : "", !ask && x->why ? x->why : "",
			!ask && x->why ? ")" : "");
		break;
	case REFUSAL_FIX_NONE:
		fprintf(f, "cordon:   %s\n", x->why);
		break;
	}
}

static void print_net(const struct refusals *rs, const char *preset, FILE *f)
{
	unsigned long total = rs->more;
	for (size_t i = 0; i < rs->n; i++)
		total += rs->items[i].fs_kind ? 0 : rs->items[i].count;
	if (!total)
		return;
	fprintf(f, "cordon: after the call: the egress proxy refused %lu contact%s (preset '%s'):\n",
		total, total == 1 ? "" : "s", preset);
	for (size_t i = 0; i < rs->n; i++) {
		const struct refusal *x = &rs->items[i];
		if (x->fs_kind)
			continue;
		char times[32] = "";
		if (x->count > 1)
			snprintf(times, sizeof(times), " (%lu times)", x->count);
		bool ask = x->r.kind == PROXY_REFUSED_RULE && x->r.effect == CORDON_ASK;
		/* A rule without a reason of its own gives "denied by RULE". */
		bool said = x->rule && strstr(x->reason, x->rule);
		fprintf(f, "cordon: refused net %s%s: %s%s%s%s%s%s\n", x->target, times,
			ask ? "ask (a person could approve)" : "deny", x->rule ? " by " : "",
			x->rule ? x->rule : "", x->r.kind == PROXY_REFUSED_RULE ? "" : " (the proxy)",
			said ? "" : ": ", said ? "" : x->reason);
		print_fix(x, preset, ask, f);
	}
	if (rs->more)
		fprintf(f, "cordon: and %lu more refusals of other hosts (the audit log has each)\n",
			rs->more);
}

/* The writes the kernel refused: "cordon: refused write PATH (N times):
 * read-only by RULE: REASON" and the change, as a contact's. */
static void print_fs(const struct refusals *rs, const char *preset, FILE *f)
{
	unsigned long total = rs->fs_more;
	for (size_t i = 0; i < rs->n; i++)
		total += rs->items[i].fs_kind ? rs->items[i].count : 0;
	if (!total)
		return;
	fprintf(f, "cordon: after the call: the sandbox refused %lu write%s to the file system "
		   "(preset '%s'):\n",
		total, total == 1 ? "" : "s", preset);
	for (size_t i = 0; i < rs->n; i++) {
		const struct refusal *x = &rs->items[i];
		if (!x->fs_kind)
			continue;
		char times[32] = "";
		if (x->count > 1)
			snprintf(times, sizeof(times), " (%lu times)", x->count);
		bool said = x->rule && strstr(x->reason, x->rule);
		fprintf(f, "cordon: refused write %s%s: %s (%s)%s%s%s%s\n", x->target, times,
			strcmp(x->fs_kind, "outside") == 0 ? "outside every write root" : "read-only",
			x->call, x->rule ? " by " : "", x->rule ? x->rule : "",
			said ? "" : ": ", said ? "" : x->reason);
		print_fix(x, preset, false, f);
	}
	if (rs->fs_more)
		fprintf(f, "cordon: and %lu more refused writes to other paths (not listed)\n",
			rs->fs_more);
}

void refusals_print(const struct refusals *rs, const struct run_opts *o, FILE *f)
{
	if (!rs->n && !rs->fs_more)
		return;
	AUTO_FREE char *preset = escaped(o->preset, true);
	print_net(rs, preset, f);
	print_fs(rs, preset, f);
}

/* A write the kernel refused, as JSON (docs/decision.schema.json,
 * FsRefusal). */
static void json_fs(struct strbuf *sb, const struct refusal *x, const char *preset)
{
	sb_adds(sb, "{\"op\":\"write\",\"target\":");
	add_json(sb, x->target);
	sb_adds(sb, ",\"path\":");
	add_json(sb, x->path);
	sb_adds(sb, ",\"call\":");
	add_json(sb, x->call);
	sb_addf(sb, ",\"kind\":\"%s\",\"decision\":\"%s\",\"rule\":", x->fs_kind,
		x->r.effect == CORDON_ASK ? "ask" : x->r.effect == CORDON_ALLOW ? "allow" : "deny");
	add_json(sb, x->rule);
	sb_adds(sb, ",\"reason\":");
	add_json(sb, x->reason);
	sb_addf(sb, ",\"count\":%lu,\"fix\":{\"kind\":\"%s\"", x->count, fix_names[x->fix]);
	if (x->fix == REFUSAL_FIX_RULE) {
		sb_adds(sb, ",\"rule\":");
		add_json(sb, x->change);
		sb_adds(sb, ",\"extends\":");
		add_json(sb, preset);
	}
	sb_adds(sb, ",\"why\":");
	add_json(sb, x->why);
	sb_adds(sb, "}}");
}

char *refusals_json(const struct refusals *rs, const struct run_opts *o)
{
	AUTO_FREE char *preset = escaped(o->preset, true);
	struct strbuf sb;
	sb_init(&sb);
	sb_addc(&sb, '[');
	for (size_t i = 0; i < rs->n; i++) {
		const struct refusal *x = &rs->items[i];
		AUTO_FREE char *host = escaped(x->r.host, false);
		if (i)
			sb_addc(&sb, ',');
		if (x->fs_kind) {
			json_fs(&sb, x, preset);
			continue;
		}
		sb_adds(&sb, "{\"op\":\"net\",\"target\":");
		add_json(&sb, x->target);
		sb_adds(&sb, ",\"host\":");
		add_json(&sb, x->r.host[0] ? host : NULL);
		sb_addf(&sb, ",\"port\":%d,\"kind\":\"%s\",\"decision\":\"%s\",\"rule\":", x->r.port,
			kind_names[x->r.kind], x->r.effect == CORDON_ASK ? "ask" : "deny");
		add_json(&sb, x->rule);
		sb_adds(&sb, ",\"reason\":");
		add_json(&sb, x->reason);
		sb_addf(&sb, ",\"count\":%lu,\"fix\":{\"kind\":\"%s\"", x->count, fix_names[x->fix]);
		if (x->fix == REFUSAL_FIX_RULE) {
			sb_adds(&sb, ",\"rule\":");
			add_json(&sb, x->change);
			sb_adds(&sb, ",\"extends\":");
			add_json(&sb, preset);
		} else if (x->fix == REFUSAL_FIX_APPROVE) {
			sb_adds(&sb, ",\"commands\":[");
			const char *nl = strchr(x->change, '\n');
			AUTO_FREE char *first = xstrndup(x->change, (size_t)(nl - x->change));
			add_json(&sb, first);
			sb_addc(&sb, ',');
			add_json(&sb, nl + 1);
			sb_addc(&sb, ']');
		}
		sb_adds(&sb, ",\"why\":");
		add_json(&sb, x->why);
		sb_adds(&sb, "}}");
	}
	sb_addc(&sb, ']');
	return sb_steal(&sb);
}

void refusals_end(struct refusals *rs, const struct run_opts *o, const cordon_decision *d)
{
	refusal_watch_end(&rs->fs, o, rs);
	if (!rs->n && !rs->fs_more)
		return;
	refusals_explain(rs, o, d);
	if (!o->quiet_refusals)
		refusals_print(rs, o, stderr);
	if (o->refusals) {
		free(*o->refusals);
		*o->refusals = refusals_json(rs, o);
	}
}

void refusals_free(struct refusals *rs)
{
	for (size_t i = 0; i < rs->n; i++) {
		free(rs->items[i].target);
		free(rs->items[i].rule);
		free(rs->items[i].reason);
		free(rs->items[i].change);
		free(rs->items[i].why);
		free(rs->items[i].path);
		free(rs->items[i].call);
	}
	free(rs->items);
	refusal_watch_free(&rs->fs);
	memset(rs, 0, sizeof(*rs));
}

#endif
