/* An index of path rules by their literal components: which rules may
 * share a target with a given one (eval_segments.c). */
#ifndef CORDON_EVAL_SEGMENTS_H
#define CORDON_EVAL_SEGMENTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ir/ir.h"

struct matcher;
struct seg_index;

struct seg_pairs {
	uint32_t *ids;
	size_t n, cap;
};

/* An absolute path pattern of op, literal or glob: the index can place it. */
bool seg_indexable(const struct matcher *m, enum ir_op op);
struct seg_index *seg_index_new(void);
/* m's text must outlive the index: its components are borrowed. */
void seg_index_add(struct seg_index *x, const struct matcher *m, uint32_t id);
/* out: every rule of the index that may share a target with the pattern or
 * path text[0..len) (a rule meets its own text), each once. */
void seg_index_meeting(const struct seg_index *x, const char *text, size_t len,
		       struct seg_pairs *out);
void seg_index_free(struct seg_index *x);

#endif
