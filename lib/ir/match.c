#include "config.h"

#include "base/host_facts.h"
#include "base/once.h"
#include "match.h"

#include <ctype.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Resolved pattern text; lit[i] marks a character that came from a
 * context value and so is never a wildcard. */
struct resolved {
	char *s;
	bool *lit;
	size_t n, cap, lit_cap;
};

static void res_add(struct resolved *r, char c, bool lit)
{
	/* a byte at a time: the calls are skipped while there is room */
	if (r->n + 2 > r->cap)
		grow_array((void **)&r->s, &r->cap, r->n + 2, 1);
	if (r->n + 1 > r->lit_cap)
		grow_array((void **)&r->lit, &r->lit_cap, r->n + 1, sizeof(bool));
	r->s[r->n] = c;
	r->lit[r->n] = lit;
	r->n++;
	r->s[r->n] = '\0';
}

static bool resolve(struct resolved *r, const char *text, const struct ir_context *ctx,
		    int *missing)
{
	memset(r, 0, sizeof(*r));
	res_add(r, '\0', false);
	r->n = 0;
	for (const char *p = text; *p; p++) {
		if (*p != IR_VAR_OPEN) {
			res_add(r, *p, false);
			continue;
		}
		const char *end = strchr(p, IR_VAR_CLOSE);
		int var = ir_ctx_var_lookup(p + 1, (size_t)(end - p - 1));
		const char *value = ctx && var >= 0 ? ctx->value[var] : NULL;
		if (!value) {
			*missing = var;
			return false;
		}
		for (const char *v = value; *v; v++)
			res_add(r, *v, true);
		p = end;
	}
	return true;
}

static void res_free(struct resolved *r)
{
	free(r->s);
	free(r->lit);
}

/* Collapse repeated slashes and drop a trailing one (paths). */
static void res_normalize_path(struct resolved *r)
{
	size_t w = 0;
	for (size_t i = 0; i < r->n; i++) {
		if (r->s[i] == '/' && w > 0 && r->s[w - 1] == '/')
			continue;
		r->s[w] = r->s[i];
		r->lit[w] = r->lit[i];
		w++;
	}
	if (w > 1 && r->s[w - 1] == '/')
		w--;
	r->n = w;
	r->s[w] = '\0';
}

static bool is_wild(const struct resolved *r, size_t i)
{
	return !r->lit[i] && (r->s[i] == '*' || r->s[i] == '?' || r->s[i] == '[');
}

static struct ir_specificity res_specificity(const struct resolved *r, enum ir_op op)
{
	struct ir_specificity s = { 0, 0 };
	bool in_literal = true;
	for (size_t i = 0; i < r->n; i++) {
		if (is_wild(r, i)) {
			in_literal = false;
			s.wildcards++;
			if (r->s[i] == '[') {
				const char *close = strchr(r->s + i + 1, ']');
				if (close)
					i = (size_t)(close - r->s);
			}
		} else if (in_literal || op == IR_NET) {
			s.literal++;
		}
	}
	return s;
}

static void re_escape_char(struct strbuf *sb, char c)
{
	if (!isalnum((unsigned char)c) && (unsigned char)c < 0x80)
		sb_addc(sb, '\\');
	sb_addc(sb, c);
}

/* Translate a glob to an anchored regex.  In paths '*' and '?' stay within
 * one component and "**" spans any depth (as the last component it also
 * matches the directory itself); elsewhere '*' matches anything. */
static char *glob_to_regex(const struct resolved *r, bool path)
{
	struct strbuf sb;
	const char *any = path ? "[^/]" : ".";
	sb_init(&sb);
	sb_adds(&sb, "^(?:");
	for (size_t i = 0; i < r->n; i++) {
		char c = r->s[i];
		if (r->lit[i]) {
			re_escape_char(&sb, c);
			continue;
		}
		if (path && c == '/' && i + 2 < r->n + 0 && r->s[i + 1] == '*' && r->s[i + 2] == '*' &&
		    !r->lit[i + 1] && !r->lit[i + 2] && (i + 3 == r->n || r->s[i + 3] == '/')) {
			sb_adds(&sb, "(?:/.*)?");
			i += 2;
			continue;
		}
		if (c == '*') {
			if (i + 1 < r->n && r->s[i + 1] == '*' && !r->lit[i + 1]) {
				sb_adds(&sb, ".*");
				i++;
			} else {
				sb_adds(&sb, any);
				sb_addc(&sb, '*');
			}
		} else if (c == '?') {
			sb_adds(&sb, any);
		} else if (c == '[') {
			const char *close = strchr(r->s + i + 1 + (r->s[i + 1] == ']'), ']');
			if (!close) {
				sb_adds(&sb, "\\[");
				continue;
			}
			sb_addc(&sb, '[');
			size_t j = i + 1;
			if (r->s[j] == '!' || r->s[j] == '^') {
				sb_addc(&sb, '^');
				j++;
			}
			for (; r->s + j < close; j++) {
				if (r->s[j] == '\\' || (r->s[j] == '[' && r->s[j + 1] == ':'))
					sb_addc(&sb, '\\');
				sb_addc(&sb, r->s[j]);
			}
			if (r->s + i + 1 + (r->s[i + 1] == ']') > close)
				sb_adds(&sb, "\\]");
			sb_addc(&sb, ']');
			i = (size_t)(close - r->s);
		} else {
			re_escape_char(&sb, c);
		}
	}
	sb_adds(&sb, ")$");
	return sb_steal(&sb);
}

static pcre2_code *compile_re(const char *src, uint32_t options, char **err)
{
	int code;
	PCRE2_SIZE off;
	pcre2_code *re = pcre2_compile((PCRE2_SPTR)src, PCRE2_ZERO_TERMINATED,
				       options | PCRE2_DOLLAR_ENDONLY, &code, &off, NULL);
	if (!re) {
		PCRE2_UCHAR msg[256];
		pcre2_get_error_message(code, msg, sizeof(msg));
		*err = xasprintf("cannot compile /%s/: %s", src, (const char *)msg);
		return NULL;
	}
	return re;
}

/* A path glob's program, at its first match.  Its source is made from the
 * glob by glob_to_regex and compiles whenever the glob parsed: a failure is
 * a fault of cordon's (or memory), and stops the process rather than
 * leave a rule that matches nothing. */
static void compile_path_glob(void *arg)
{
	struct matcher *m = arg;
	char *err = NULL;
	m->re = compile_re(m->re_src, PCRE2_DOTALL, &err);
	if (!m->re) {
		fprintf(stderr, "cordon: internal error: %s\n", err);
		abort();
	}
}

static char *dir_anchor(const char *prefix, size_t n)
{
	while (n > 0 && prefix[n - 1] != '/')
		n--;
	if (n > 1)
		n--; /* the directory, without its trailing slash */
	return n == 0 ? NULL : xstrndup(prefix, n);
}

static int parse_port(const char *s, size_t n)
{
	int port = 0;
	if (n == 0 || n > 5)
		return -2;
	for (size_t i = 0; i < n; i++) {
		if (!isdigit((unsigned char)s[i]))
			return -2;
		port = port * 10 + (s[i] - '0');
	}
	return port >= 1 && port <= 65535 ? port : -2;
}

/* Split host[:port]; "[v6]:port" and bare IPv6 literals too.  The host is
 * lowercased, without a trailing dot. */
static int split_hostport(const char *s, size_t len, char **host, int *port)
{
	const char *colon = NULL;
	size_t hlen = len;
	*port = -1;
	if (len && s[0] == '[') {
		const char *close = memchr(s, ']', len);
		if (!close)
			return -1;
		hlen = (size_t)(close - s) + 1;
		if (hlen < len) {
			if (s[hlen] != ':')
				return -1;
			colon = s + hlen;
		}
	} else {
		const char *first = memchr(s, ':', len);
		if (first && !memchr(first + 1, ':', len - (size_t)(first - s) - 1))
			colon = first;
	}
	if (colon) {
		hlen = (size_t)(colon - s);
		size_t plen = len - hlen - 1;
		if (plen == 1 && colon[1] == '*')
			*port = -1;
		else if ((*port = parse_port(colon + 1, plen)) < 0)
			return -1;
	}
	while (hlen > 1 && s[hlen - 1] == '.')
		hlen--;
	if (hlen == 0)
		return -1;
	*host = xstrndup(s, hlen);
	for (char *p = *host; *p; p++)
		*p = (char)tolower((unsigned char)*p);
	return 0;
}

/* A path that starts with one of the host's aliases names the place the
 * alias stands for, as a request is resolved: the alias's target replaces
 * it, literal.  A wildcard in the alias's last component ("/etc*") makes
 * no alias: that pattern names no one place. */
static const struct host_alias *res_host_alias(struct resolved *r,
					       const struct host_facts *host)
{
	const struct host_alias *alias = host_alias_of(host, r->s, r->n);
	if (!alias)
		return NULL;
	const char *target = alias->target;
	size_t k = strlen(alias->path);
	struct resolved a;
	memset(&a, 0, sizeof(a));
	res_add(&a, '\0', false);
	a.n = 0;
	for (const char *t = target; *t; t++)
		res_add(&a, *t, true);
	for (size_t i = k; i < r->n; i++)
		res_add(&a, r->s[i], r->lit[i]);
	res_free(r);
	*r = a;
	return alias;
}

/* The text after a path glob's last wildcard: glob_to_regex makes every
 * character there a literal one, the regex is anchored at the end
 * (PCRE2_DOLLAR_ENDONLY) and not caseless, so a target that does not end
 * with it cannot match.  A glob ending in a wildcard (a trailing "**") has none. */
static void glob_tail(struct matcher *m, const struct resolved *r)
{
	size_t k = r->n;
	while (k > 0 && (r->lit[k - 1] || (r->s[k - 1] != '*' && r->s[k - 1] != '?' &&
					   r->s[k - 1] != '[' && r->s[k - 1] != ']')))
		k--;
	if (k == r->n)
		return;
	m->tail_len = r->n - k;
	m->tail = xstrndup(r->s + k, m->tail_len);
}

enum match_status matcher_build(struct matcher *m, enum ir_op op, const struct ir_pattern *pat,
				const struct ir_context *ctx, int *missing, char **err)
{
	return matcher_build_host(m, op, pat, ctx, NULL, missing, err);
}

/* A bare regex: on the canonical path, host, tool name or command; a
 * path's literal start anchors it to a directory. */
static enum match_status build_bare_regex(struct matcher *m, enum ir_op op, char **err)
{
	m->re = compile_re(m->regex, PCRE2_DOTALL, err);
	if (!m->re)
		return MATCH_ERROR;
	char *prefix = ir_regex_prefix(m->regex);
	bool path = ir_op_on_paths(op);
	m->spec.literal = prefix ? (unsigned)strlen(prefix) : 0;
	m->spec.wildcards = 1;
	m->anchor = prefix && path ? dir_anchor(prefix, strlen(prefix)) : NULL;
	m->floating = !m->anchor;
	free(prefix);
	return MATCH_OK;
}

/* The word r[start, end) of a command prefix: literal, or a glob with
 * its regex.  False when that regex does not compile. */
static bool build_exec_word(struct matcher *m, const struct resolved *r, size_t start, size_t end,
			    char **err)
{
	struct resolved w = { 0 };
	res_add(&w, '\0', false);
	w.n = 0;
	bool wild = false;
	for (size_t k = start; k < end; k++) {
		res_add(&w, r->s[k], r->lit[k]);
		wild = wild || is_wild(r, k);
	}
	m->word_re = xrealloc(m->word_re, (m->nwords + 1) * sizeof(*m->word_re));
	m->word_jit = xrealloc(m->word_jit, (m->nwords + 1) * sizeof(*m->word_jit));
	memset(&m->word_jit[m->nwords], 0, sizeof(*m->word_jit));
	m->words = xrealloc(m->words, (m->nwords + 1) * sizeof(*m->words));
	m->words[m->nwords] = xstrdup(w.s);
	m->word_re[m->nwords] = NULL;
	m->word_prog = xrealloc(m->word_prog, (m->nwords + 1) * sizeof(*m->word_prog));
	m->word_prog[m->nwords] = gprog_build(w.s, w.lit, w.n, GPROG_WORD, !wild);
	if (wild) {
		char *src = glob_to_regex(&w, false);
		m->word_re[m->nwords] = compile_re(src, PCRE2_DOTALL, err);
		free(src);
	}
	m->nwords++;
	res_free(&w);
	return !wild || m->word_re[m->nwords - 1];
}

/* An exec pattern: the words of a command prefix, each matched on its
 * own; a first word without wildcards anchors it, a regex narrows it. */
static enum match_status build_exec(struct matcher *m, const struct ir_pattern *pat,
				    const struct resolved *r, char **err)
{
	size_t start = 0;
	for (size_t i = 0; i <= r->n; i++) {
		if (i < r->n && r->s[i] != ' ')
			continue;
		if (i > start && !build_exec_word(m, r, start, i, err))
			return MATCH_ERROR;
		start = i + 1;
	}
	if (m->nwords && !m->word_re[0])
		m->anchor = xstrdup(m->words[0]);
	m->floating = !m->anchor;
	if (pat->regex) {
		m->re = compile_re(pat->regex, PCRE2_DOTALL, err);
		m->spec.literal++; /* a regex narrows the prefix */
		if (!m->re)
			return MATCH_ERROR;
	}
	return MATCH_OK;
}

/* A net pattern: host[:port], the host a name or a glob, caseless. */
static enum match_status build_net(struct matcher *m, const struct resolved *r, char **err)
{
	char *host = NULL;
	int port;
	if (split_hostport(r->s, r->n, &host, &port) != 0) {
		*err = xasprintf("'%s' is not a host pattern", r->s);
		return MATCH_ERROR;
	}
	m->port = port;
	/* Rebuild the flags for the host part alone; brackets of an IPv6
	 * literal are plain characters, not a glob set. */
	struct resolved h = { 0 };
	res_add(&h, '\0', false);
	h.n = 0;
	for (size_t i = 0; host[i]; i++)
		res_add(&h, host[i], (i < r->n && r->lit[i]) || host[i] == '[' || host[i] == ']');
	/* Hosts narrow from the right: every literal character counts, and
	 * naming a port adds one. */
	m->spec.literal = 0;
	m->spec.wildcards = 0;
	for (size_t i = 0; i < h.n; i++) {
		if (!h.lit[i] && (h.s[i] == '*' || h.s[i] == '?'))
			m->spec.wildcards++;
		else
			m->spec.literal++;
	}
	if (port >= 0)
		m->spec.literal++;
	m->prog = gprog_build(h.s, h.lit, h.n, GPROG_HOST, m->spec.wildcards == 0);
	if (m->spec.wildcards) {
		char *src = glob_to_regex(&h, false);
		m->re = compile_re(src, PCRE2_DOTALL | PCRE2_CASELESS, err);
		free(src);
		m->floating = true;
	} else {
		m->anchor = xstrdup(host);
	}
	free(host);
	res_free(&h);
	return m->re || m->anchor ? MATCH_OK : MATCH_ERROR;
}

/* A path or a tool name: literal, exact or a glob.  A path glob's regex
 * is compiled at its first use (compile_path_glob); its directory before
 * the first wildcard anchors it. */
static enum match_status build_text(struct matcher *m, const struct ir_pattern *pat,
				    struct resolved *r, bool path, char **err)
{
	size_t first_wild = 0;
	while (first_wild < r->n && !is_wild(r, first_wild))
		first_wild++;
	bool glob = first_wild < r->n;
	if (pat->kind == IR_PAT_EXACT) {
		/* One path, every character literal, nothing below it. */
		for (size_t i = 0; i < r->n; i++)
			r->lit[i] = true;
		glob = false;
		m->spec.literal++;
	}
	m->prog = gprog_build(r->s, r->lit, r->n, path ? GPROG_PATH : GPROG_TEXT,
			      pat->kind == IR_PAT_LITERAL || (!glob && pat->kind != IR_PAT_EXACT));
	if (glob && path) {
		m->re_src = glob_to_regex(r, path);
	} else if (glob) {
		char *src = glob_to_regex(r, path);
		m->re = compile_re(src, PCRE2_DOTALL, err);
		free(src);
		if (!m->re)
			return MATCH_ERROR;
	}
	if (!glob) {
		m->anchor = xstrdup(r->s);
	} else if (path) {
		m->anchor = dir_anchor(r->s, first_wild);
		if (!m->anchor)
			m->anchor = xstrdup("/");
		glob_tail(m, r);
	}
	m->floating = !m->anchor;
	return MATCH_OK;
}

enum match_status matcher_build_host(struct matcher *m, enum ir_op op,
				     const struct ir_pattern *pat, const struct ir_context *ctx,
				     const struct host_facts *facts, int *missing, char **err)
{
	struct resolved r;
	memset(m, 0, sizeof(*m));
	m->kind = pat->kind;
	m->port = -1;
	bool path = ir_op_on_paths(op);
	m->regex = pat->regex && path ? host_alias_regex(facts, pat->regex, &m->alias) : NULL;
	if (!m->regex && pat->regex)
		m->regex = xstrdup(pat->regex);

	if (pat->kind == IR_PAT_OPAQUE) {
		m->floating = true;
		m->spec.literal = 1;
		return MATCH_OK;
	}
	if (!pat->text)
		return build_bare_regex(m, op, err);
	if (!resolve(&r, pat->text, ctx, missing)) {
		res_free(&r);
		return MATCH_INACTIVE;
	}
	if (path) {
		res_normalize_path(&r);
		m->alias = res_host_alias(&r, facts);
	}
	m->text = xstrdup(r.s);
	m->spec = res_specificity(&r, op);
	enum match_status st = op == IR_EXEC  ? build_exec(m, pat, &r, err)
			       : op == IR_NET ? build_net(m, &r, err)
					      : build_text(m, pat, &r, path, err);
	res_free(&r);
	return st;
}

void matcher_build_path(struct matcher *m, const char *path)
{
	memset(m, 0, sizeof(*m));
	m->kind = IR_PAT_LITERAL;
	m->port = -1;
	m->text = xstrdup(path);
	m->anchor = xstrdup(path);
	m->spec.literal = (unsigned)strlen(path);
}

void matcher_free(struct matcher *m)
{
	free(m->text);
	free(m->regex);
	free(m->anchor);
	free(m->tail);
	free(m->re_src);
	pcre2_code_free(m->re);
	pcre2_code_free(atomic_load(&m->re_jit.code));
	gprog_free(m->prog);
	for (size_t i = 0; i < m->nwords; i++) {
		free(m->words[i]);
		pcre2_code_free(m->word_re[i]);
		pcre2_code_free(atomic_load(&m->word_jit[i].code));
		gprog_free(m->word_prog[i]);
	}
	free(m->word_jit);
	free(m->word_prog);
	free(m->words);
	free(m->word_re);
	memset(m, 0, sizeof(*m));
}

int target_prepare(struct target *t, enum ir_op op, const char *text, size_t len, char **err)
{
	memset(t, 0, sizeof(*t));
	t->op = op;
	t->text = text;
	t->len = len;
	t->port = -1;
	if (op == IR_EXEC) {
		size_t cap = 0, lcap = 0;
		for (size_t i = 0; i < len;) {
			while (i < len && isspace((unsigned char)text[i]))
				i++;
			size_t start = i;
			while (i < len && !isspace((unsigned char)text[i]))
				i++;
			if (i > start) {
				VEC_PUSH(t->words, t->nwords, cap, (char *)text + start);
				t->nwords--;
				VEC_PUSH(t->word_len, t->nwords, lcap, i - start);
			}
		}
	} else if (op == IR_NET) {
		if (split_hostport(text, len, &t->host, &t->port) != 0) {
			*err = xasprintf("'%.*s' is not a host or host:port", (int)len, text);
			return -1;
		}
	}
	return 0;
}

void target_free(struct target *t)
{
	free(t->words);
	free(t->word_len);
	free(t->host);
	memset(t, 0, sizeof(*t));
}

/* The JIT copy of re (struct re_jit), made by the use that reaches
 * RE_JIT_AFTER.  JIT is an optimisation: where it is unavailable, fails
 * or is refused, the interpreter goes on.  CORDON_NO_JIT=1 refuses it
 * (valgrind cannot follow JIT-generated code and reports it), and so does
 * a regex that turns UTF mode on itself ("(*UTF)"): re_match's fast path
 * does not check the subject's encoding, and exec words may hold any
 * byte. */
static void jit_copy(const pcre2_code *re, struct re_jit *j)
{
	const char *no_jit = getenv("CORDON_NO_JIT");
	uint32_t all = 0;
	(void)pcre2_pattern_info(re, PCRE2_INFO_ALLOPTIONS, &all);
	if ((no_jit && strcmp(no_jit, "1") == 0) || (all & PCRE2_UTF))
		return;
	pcre2_code *c = pcre2_code_copy(re);
	if (c && pcre2_jit_compile(c, PCRE2_JIT_COMPLETE) == 0)
		atomic_store_explicit(&j->code, c, memory_order_release);
	else
		pcre2_code_free(c);
}

static const pcre2_code *jit_of(const pcre2_code *re, struct re_jit *j)
{
	pcre2_code *c = atomic_load_explicit(&j->code, memory_order_acquire);
	if (c || atomic_load_explicit(&j->uses, memory_order_relaxed) > RE_JIT_AFTER)
		return c;
	if (atomic_fetch_add_explicit(&j->uses, 1, memory_order_relaxed) == RE_JIT_AFTER)
		jit_copy(re, j);
	return atomic_load_explicit(&j->code, memory_order_acquire);
}

/* With a JIT copy, JIT's fast path: pcre2_match's checks are of what is
 * true here (a subject with its length; no UTF mode, jit_copy, so no
 * encoding to check), and its dispatch cost a third of each match.
 * Without, the interpreter. */
static bool re_match(const pcre2_code *re, const struct re_jit *j, const char *s, size_t n,
		     pcre2_match_data *md)
{
	const pcre2_code *fast = jit_of(re, (struct re_jit *)j);
	int rc = fast ? pcre2_jit_match(fast, (PCRE2_SPTR)s, n, 0, 0, md, NULL)
		      : pcre2_match(re, (PCRE2_SPTR)s, n, 0, 0, md, NULL);
	return rc >= 0;
}

/* An exec target: opaque parts only by `exec opaque`, "*" or a regex;
 * others word by word, then the regex on the whole text. */
static bool match_exec(const struct matcher *m, const struct target *t, pcre2_match_data *md)
{
	if (m->kind == IR_PAT_OPAQUE)
		return t->opaque;
	if (t->opaque) {
		/* Nothing is known of an opaque part's words: only "*" and a
		 * regex on its text can speak for it. */
		if (m->nwords == 1 && m->word_re[0] && strcmp(m->words[0], "*") == 0)
			return !m->re || re_match(m->re, &m->re_jit, t->text, t->len, md);
		return m->nwords == 0 && m->re && re_match(m->re, &m->re_jit, t->text, t->len, md);
	}
	if (m->nwords > t->nwords)
		return false;
	for (size_t i = 0; i < m->nwords; i++) {
		if (m->word_re[i]) {
			if (!re_match(m->word_re[i], &m->word_jit[i], t->words[i], t->word_len[i], md))
				return false;
		} else if (strlen(m->words[i]) != t->word_len[i] ||
			   memcmp(m->words[i], t->words[i], t->word_len[i]) != 0) {
			return false;
		}
	}
	return !m->re || re_match(m->re, &m->re_jit, t->text, t->len, md);
}

static bool match_net(const struct matcher *m, const struct target *t, pcre2_match_data *md)
{
	if (m->port >= 0 && m->port != t->port)
		return false;
	if (m->re)
		return re_match(m->re, &m->re_jit, t->host, strlen(t->host), md);
	return strcmp(m->anchor, t->host) == 0;
}

/* A path: a literal one covers its subtree, an exact one itself; a glob
 * is told by its tail first, then by its regex, built at first use. */
static bool match_path(const struct matcher *m, const struct target *t, pcre2_match_data *md)
{
	if (m->kind == IR_PAT_LITERAL) {
		size_t n = strlen(m->text);
		if (n == 1 && m->text[0] == '/')
			return true;
		return t->len >= n && memcmp(t->text, m->text, n) == 0 &&
		       (t->len == n || t->text[n] == '/');
	}
	if (m->kind == IR_PAT_EXACT)
		return strlen(m->text) == t->len && memcmp(m->text, t->text, t->len) == 0;
	if (m->tail && (t->len < m->tail_len ||
			memcmp(t->text + t->len - m->tail_len, m->tail, m->tail_len) != 0))
		return false;
	if (m->re_src)
		once_build((atomic_bool *)&m->re_built, compile_path_glob, (void *)m);
	return re_match(m->re, &m->re_jit, t->text, t->len, md);
}

bool matcher_match(const struct matcher *m, const struct target *t, pcre2_match_data *md)
{
	switch (t->op) {
	case IR_EXEC:
		return match_exec(m, t, md);
	case IR_NET:
		return match_net(m, t, md);
	case IR_READ:
	case IR_WRITE:
		return match_path(m, t, md);
	default:
		if (m->kind == IR_PAT_LITERAL || m->kind == IR_PAT_EXACT)
			return strlen(m->text) == t->len && memcmp(m->text, t->text, t->len) == 0;
		return re_match(m->re, &m->re_jit, t->text, t->len, md);
	}
}

int spec_cmp(struct ir_specificity a, struct ir_specificity b)
{
	if (a.literal != b.literal)
		return a.literal > b.literal ? 1 : -1;
	if (a.wildcards != b.wildcards)
		return a.wildcards < b.wildcards ? 1 : -1;
	return 0;
}

void name_set_init(struct name_set *s, const struct ir_pattern *pats, size_t n)
{
	s->pats = pats;
	s->n = n;
	s->re = xcalloc(n + 1, sizeof(*s->re));
	for (size_t i = 0; i < n; i++) {
		int code;
		PCRE2_SIZE off;
		if (pats[i].regex)
			s->re[i] = pcre2_compile((PCRE2_SPTR)pats[i].regex, PCRE2_ZERO_TERMINATED, 0,
						 &code, &off, NULL);
	}
}

bool name_set_match(const struct name_set *s, const char *name, pcre2_match_data *md)
{
	for (size_t i = 0; i < s->n; i++) {
		const struct ir_pattern *d = &s->pats[i];
		if (d->regex) {
			if (!s->re[i])
				return true; /* checked at compile time; fail closed */
			/* 0: a match the match data is too small to hold. */
			if (pcre2_match(s->re[i], (PCRE2_SPTR)name, PCRE2_ZERO_TERMINATED, 0, 0, md,
					NULL) >= 0)
				return true;
		} else if (d->text && fnmatch(d->text, name, 0) == 0) {
			return true;
		}
	}
	return false;
}

void name_set_free(struct name_set *s)
{
	for (size_t i = 0; i < s->n; i++)
		pcre2_code_free(s->re[i]);
	free(s->re);
}
