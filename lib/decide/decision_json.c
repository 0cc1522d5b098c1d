/* A decision as one line of JSON, written straight into a string buffer:
 * the stream writes one a request, and building a tree of JSON objects to
 * print it cost more than the decision.  The bytes are those jansson
 * writes for the same object (JSON_COMPACT, members in this order), which
 * tests/unit/test_decision_json checks. */
#include "config.h"

#include "eval.h"
#include "base/json_write.h"

#include <string.h>

void json_add_string(struct strbuf *sb, const char *s)
{
	size_t n = strlen(s);
	/* Not UTF-8: shown lossily, every byte from 0x80 up as '?', rather
	 * than dropped. */
	bool lossy = utf8_invalid_at((const unsigned char *)s, n) != n;
	sb_addc(sb, '"');
	const char *run = s;
	for (const char *p = s;; p++) {
		unsigned char c = (unsigned char)*p;
		if (c >= 0x20 && c != '"' && c != '\\' && !(lossy && c >= 0x80))
			continue;
		sb_add(sb, run, (size_t)(p - run));
		run = p + 1;
		if (!c)
			break;
		switch (c) {
		case '"': sb_adds(sb, "\\\""); break;
		case '\\': sb_adds(sb, "\\\\"); break;
		case '\b': sb_adds(sb, "\\b"); break;
		case '\f': sb_adds(sb, "\\f"); break;
		case '\n': sb_adds(sb, "\\n"); break;
		case '\r': sb_adds(sb, "\\r"); break;
		case '\t': sb_adds(sb, "\\t"); break;
		default:
			if (c >= 0x80)
				sb_addc(sb, '?');
			else
				sb_addf(sb, "\\u%04X", c);
		}
	}
	sb_addc(sb, '"');
}

static void member(struct strbuf *sb, const char *key, const char *value)
{
	sb_addc(sb, '"');
	sb_adds(sb, key);
	sb_adds(sb, "\":");
	if (value)
		json_add_string(sb, value);
	else
		sb_adds(sb, "null");
}

char *cordon_decision_json(const cordon_decision *d)
{
	struct strbuf sb;
	sb_init(&sb);
	sb_addc(&sb, '{');
	member(&sb, "decision", ir_effect_names[d->effect]);
	sb_addc(&sb, ',');
	member(&sb, "reason", d->reason);
	sb_addc(&sb, ',');
	member(&sb, "rule", d->rule);
	sb_addc(&sb, ',');
	member(&sb, "preset", d->preset);
	sb_adds(&sb, ",\"operations\":[");
	for (size_t i = 0; i < d->nops; i++) {
		const struct dec_op *o = &d->ops[i];
		sb_adds(&sb, i ? ",{" : "{");
		member(&sb, "op", ir_op_names[o->op]);
		sb_addc(&sb, ',');
		member(&sb, "target", o->target);
		if (o->detail) {
			sb_addc(&sb, ',');
			member(&sb, "detail", o->detail);
		}
		sb_addc(&sb, ',');
		member(&sb, "decision", ir_effect_names[o->effect]);
		sb_addc(&sb, ',');
		member(&sb, "reason", o->reason);
		sb_addc(&sb, ',');
		member(&sb, "rule", o->rule);
		if (o->contained)
			sb_adds(&sb, ",\"contained\":true");
		sb_addc(&sb, '}');
	}
	sb_adds(&sb, "],");
	member(&sb, "sandbox", d->sandbox);
	if (d->analysed) {
		sb_addc(&sb, ',');
		member(&sb, "analysed", d->analysed);
	}
	if (d->unsandboxed)
		sb_adds(&sb, ",\"unsandboxed\":true");
	sb_addc(&sb, '}');
	return sb_steal(&sb);
}
