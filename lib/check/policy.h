/* The inside of a cordon_policy, shared by the library's modules. */
#ifndef CORDON_POLICY_H
#define CORDON_POLICY_H

#include "cordon.h"
#include "base/diag.h"
#include "ir/ir.h"
#include "base/source.h"

struct cordon_policy {
	char *name;
	struct srcmgr sm;
	struct diag_list diags;
	struct arena arena; /* the syntax trees of this compile */
	struct ir_policy ir;
	bool io_failed;
	/* The managed layer above this policy (owned), or NULL: every
	 * evaluator of this policy decides with both and keeps the stricter
	 * decision (docs/fleet.md); its presets are the ones there are. */
	struct cordon_policy *managed;
};

struct cordon_context {
	struct ir_context vars;
	char *owned[CTX_COUNT];
	const struct host_facts *host; /* NULL: this machine's */
	/* Decide on the host's facts alone, never this machine's files: a
	 * context of made-up directories (/ws, /home/u) that diff, lint and
	 * the managed layer's check compare policies in. */
	bool fixed;
};

/* Text and JSON dumps of one preset (ir_dump.c). */
char *ir_dump_text(const struct srcmgr *sm, const struct ir_preset *p,
		   const struct ir_context *ctx, int flags);
char *ir_dump_json(const struct srcmgr *sm, const struct ir_preset *p,
		   const struct ir_context *ctx, int flags);

#endif
