/* Redaction: the policy's `redact` patterns, compiled once, replace the
 * secrets they match with [REDACTED:name].
 *
 * Every pattern is matched against the original text and the matched
 * ranges are merged before anything is replaced, so the result does not
 * depend on the order of the patterns and no pattern sees another's
 * replacement.  A pattern with a group named `secret` replaces only what
 * that group matched (`password=[REDACTED:password]` keeps the key); any
 * other pattern replaces its whole match.  A match that fails (a pcre2
 * resource limit) hides the whole text: redaction fails closed.
 *
 * The patterns of rules/redact.cordon always apply; a policy's own `redact`
 * statements add to them or replace one by name (a pattern that never
 * matches, /(?!)/, switches one off). */
#include "config.h"

#include "lang/embedded.h"
#include "check/policy.h"
#include "redact.h"

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>
#include <stdlib.h>
#include <string.h>

struct redact_pattern {
	char *name;
	pcre2_code *code;
	int secret;       /* group number of (?<secret>...), or 0 */
};

struct cordon_redactor {
	struct redact_pattern *pats;
	size_t npats;
};

struct range {
	size_t start, end;
	size_t pat;
};

/* Compile one pattern into r, replacing a pattern of the same name. */
static int add_pattern(cordon_redactor *r, const char *name, const char *regex, bool jit,
		       char **err)
{
	int errcode;
	PCRE2_SIZE erroff;
	pcre2_code *code = pcre2_compile((PCRE2_SPTR)regex, PCRE2_ZERO_TERMINATED, 0, &errcode,
					 &erroff, NULL);
	struct redact_pattern *p = NULL;
	if (!code) {
		/* The checker compiled it already; this is memory. */
		PCRE2_UCHAR msg[256];
		pcre2_get_error_message(errcode, msg, sizeof(msg));
		*err = xasprintf("redaction '%s': %s", name, (char *)msg);
		return -1;
	}
	if (jit)
		(void)pcre2_jit_compile(code, PCRE2_JIT_COMPLETE);
	for (size_t i = 0; i < r->npats && !p; i++)
		if (strcmp(r->pats[i].name, name) == 0) {
			p = &r->pats[i];
			pcre2_code_free(p->code);
		}
	if (!p) {
		size_t cap = r->npats;
		grow_array((void **)&r->pats, &cap, r->npats + 1, sizeof(*r->pats));
		p = &r->pats[r->npats++];
		p->name = xstrdup(name);
	}
	int g = pcre2_substring_number_from_name(code, (PCRE2_SPTR) "secret");
	p->code = code;
	p->secret = g > 0 ? g : 0;
	return 0;
}

static int add_policy(cordon_redactor *r, const struct ir_policy *ir, bool jit, char **err)
{
	for (size_t i = 0; i < ir->nredacts; i++)
		if (add_pattern(r, ir->redacts[i].name, ir->redacts[i].regex, jit, err) != 0)
			return -1;
	return 0;
}

cordon_redactor *cordon_redactor_new(const cordon_policy *policy, char **err)
{
	const struct embedded_file *shipped = embedded_find("rules/redact.cordon");
	/* JIT is an optimisation; CORDON_NO_JIT=1 keeps valgrind quiet. */
	const char *no_jit = getenv("CORDON_NO_JIT");
	bool jit = !no_jit || strcmp(no_jit, "1") != 0;
	cordon_policy *base;
	cordon_redactor *r;

	if (cordon_policy_error_count(policy)) {
		*err = xasprintf("%s has errors", cordon_policy_name(policy));
		return NULL;
	}
	r = xcalloc(1, sizeof(*r));
	/* The shipped patterns are the floor: a policy adds to them and
	 * replaces them by name, and one without a `redact` of its own (a
	 * file that cannot include the embedded rules/redact.cordon) still
	 * redacts what they know. */
	base = cordon_policy_load_string(shipped->name, NULL, shipped->text, shipped->len);
	if (cordon_policy_error_count(base)) {
		*err = xstrdup("the shipped rules/redact.cordon has errors");
		goto fail;
	}
	if (add_policy(r, &base->ir, jit, err) != 0 || add_policy(r, &policy->ir, jit, err) != 0)
		goto fail;
	/* Under a managed layer, its patterns come last: a lower layer adds
	 * patterns, and cannot replace one of the managed layer's by name. */
	if (policy->managed && add_policy(r, &policy->managed->ir, jit, err) != 0)
		goto fail;
	cordon_policy_free(base);
	return r;
fail:
	cordon_policy_free(base);
	cordon_redactor_free(r);
	return NULL;
}

void cordon_redactor_free(cordon_redactor *r)
{
	if (!r)
		return;
	for (size_t i = 0; i < r->npats; i++) {
		free(r->pats[i].name);
		pcre2_code_free(r->pats[i].code);
	}
	free(r->pats);
	free(r);
}

size_t cordon_redactor_count(const cordon_redactor *r)
{
	return r ? r->npats : 0;
}

static int range_cmp(const void *pa, const void *pb)
{
	const struct range *a = pa, *b = pb;
	if (a->start != b->start)
		return a->start < b->start ? -1 : 1;
	if (a->end != b->end)
		return a->end > b->end ? -1 : 1;
	return a->pat < b->pat ? -1 : a->pat > b->pat;
}

/* Every range pattern p matches in buf; -1 when a match fails. */
static int collect(const struct redact_pattern *p, size_t idx, const char *buf, size_t len,
		   pcre2_match_data *md, struct range **out, size_t *n, size_t *cap)
{
	size_t offset = 0;
	while (offset <= len) {
		int rc = pcre2_match(p->code, (PCRE2_SPTR)buf, len, offset, 0, md, NULL);
		if (rc == PCRE2_ERROR_NOMATCH)
			return 0;
		if (rc < 0)
			return -1;
		PCRE2_SIZE *ov = pcre2_get_ovector_pointer(md);
		size_t s = ov[0], e = ov[1];
		if (p->secret && (uint32_t)rc > (uint32_t)p->secret &&
		    ov[2 * p->secret] != PCRE2_UNSET) {
			s = ov[2 * p->secret];
			e = ov[2 * p->secret + 1];
		}
		if (e > s) {
			struct range r = { s, e, idx };
			VEC_PUSH(*out, *n, *cap, r);
		}
		/* \K or lookbehind can put the start past the end; move on. */
		offset = ov[1] > offset ? ov[1] : offset + 1;
	}
	return 0;
}

char *cordon_redact(const cordon_redactor *r, const char *buf, size_t len, size_t *out_len,
		    size_t *count)
{
	struct range *ranges = NULL;
	size_t n = 0, cap = 0, replaced = 0;
	struct strbuf sb;
	pcre2_match_data *md = NULL;
	bool failed = false;

	sb_init(&sb);
	if (r && r->npats && len) {
		md = pcre2_match_data_create(32, NULL);
		for (size_t i = 0; i < r->npats && !failed; i++)
			if (collect(&r->pats[i], i, buf, len, md, &ranges, &n, &cap) != 0)
				failed = true;
		pcre2_match_data_free(md);
	}
	if (failed) {
		sb_adds(&sb, "[REDACTED:redaction-failed]");
		replaced = 1;
	} else {
		sort_items(ranges, n, sizeof(*ranges), range_cmp);
		size_t at = 0;
		for (size_t i = 0; i < n;) {
			size_t start = ranges[i].start, end = ranges[i].end, pat = ranges[i].pat;
			/* Overlapping matches become one, named after the first. */
			for (i++; i < n && ranges[i].start < end; i++)
				if (ranges[i].end > end)
					end = ranges[i].end;
			sb_add(&sb, buf + at, start - at);
			sb_addf(&sb, "[REDACTED:%s]", r->pats[pat].name);
			at = end;
			replaced++;
		}
		sb_add(&sb, buf + at, len - at);
	}
	free(ranges);
	if (!sb.buf)
		sb_add(&sb, "", 0);
	if (out_len)
		*out_len = sb.len;
	if (count)
		*count = replaced;
	return sb_steal(&sb);
}
