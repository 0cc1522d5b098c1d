/* A decision as one line of JSON, written straight into a string buffer:
 * the stream writes one a request, and building a tree of JSON objects to
 * print it cost more than the decision.  The bytes are those jansson
 * writes for the same object (JSON_COMPACT, members in this order), which
 * tests/unit/test_decision_json checks. */
#include "config.h"

#include "eval.h"
#include "base/json_write.h"

#include <string.h>

/* The bytes a string may not hold as they are: the quote, the backslash,
 * the control characters and NUL, which ends it; and every byte from 0x80
 * up, which is copied as it is only when the whole string is UTF-8. */
static const bool json_special[256] = {
	[0 ... 0x1f] = true, ['"'] = true, ['\\'] = true, [0x80 ... 0xff] = true,
};

void json_add_string(struct strbuf *sb, const char *s)
{
	int utf8 = -1; /* is s UTF-8: not asked until a byte from 0x80 up */
	sb_addc(sb, '"');
	for (const char *p = s;;) {
		/* The run up to the next byte to escape, copied whole. */
		size_t k = 0;
		for (;;) {
			while (!json_special[(unsigned char)p[k]])
				k++;
			if ((unsigned char)p[k] < 0x80)
				break;
			/* Not UTF-8: shown lossily, every byte from 0x80 up as '?',
			 * rather than dropped. */
			if (utf8 < 0) {
				size_t n = strlen(s);
				utf8 = utf8_invalid_at((const unsigned char *)s, n) == n;
			}
			if (!utf8)
				break;
			k++;
		}
		sb_add(sb, p, k);
		p += k;
		unsigned char c = (unsigned char)*p++;
		switch (c) {
		case '\0': sb_addc(sb, '"'); return;
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
	if (d->layer) {
		sb_addc(&sb, ',');
		member(&sb, "layer", d->layer);
	}
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
	/* An exec that cordon run would not run: the status it exits with,
	 * so a host reading the JSON tells "may be approved" from "never"
	 * by the same number it sees from the run. */
	if (d->analysed && d->effect != IR_ALLOW)
		sb_addf(&sb, ",\"run_status\":%d",
			d->effect == IR_DENY ? CORDON_RUN_DENIED : CORDON_RUN_ASK);
	if (d->analysed) {
		sb_addc(&sb, ',');
		member(&sb, "analysed", d->analysed);
	}
	if (d->unsandboxed)
		sb_adds(&sb, ",\"unsandboxed\":true");
	sb_addc(&sb, '}');
	return sb_steal(&sb);
}
