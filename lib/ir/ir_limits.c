/* The resource limits of a preset: their names, what their values count,
 * and the one spelling dumps and diagnostics use for a value. */
#include "config.h"

#include "cordon/lowering.h"
#include "ir.h"

/* The public kinds are these, in this order (cordon/lowering.h). */
_Static_assert((int)CORDON_LIMIT_PROCESSES == (int)IR_LIMIT_PROCESSES &&
		       (int)CORDON_LIMIT_OPEN_FILES == (int)IR_LIMIT_OPEN_FILES &&
		       (int)CORDON_LIMIT_FILE_SIZE == (int)IR_LIMIT_FILE_SIZE &&
		       (int)CORDON_LIMIT_CPU_TIME == (int)IR_LIMIT_CPU_TIME &&
		       (int)CORDON_LIMIT_ADDRESS_SPACE == (int)IR_LIMIT_ADDRESS_SPACE &&
		       (int)CORDON_LIMIT_MEMORY == (int)IR_LIMIT_MEMORY &&
		       (int)CORDON_LIMIT_COUNT == (int)IR_LIMIT_COUNT,
	       "enum cordon_limit_kind is enum ir_limit");

const char *const ir_limit_names[IR_LIMIT_COUNT] = {
	"processes", "open_files", "file_size", "cpu_time", "address_space", "memory",
};

const enum ir_limit_unit ir_limit_units[IR_LIMIT_COUNT] = {
	IR_UNIT_COUNT, IR_UNIT_COUNT, IR_UNIT_BYTES, IR_UNIT_SECONDS, IR_UNIT_BYTES, IR_UNIT_BYTES,
};

/* The largest unit that divides the value: 8G, not 8192M. */
void ir_limit_print(struct strbuf *sb, enum ir_limit which, const struct ir_limit_value *v)
{
	static const struct {
		char unit;
		unsigned long long scale;
	} bytes[] = { { 'T', 1ULL << 40 }, { 'G', 1ULL << 30 }, { 'M', 1ULL << 20 }, { 'K', 1ULL << 10 } },
	  seconds[] = { { 'h', 3600 }, { 'm', 60 } };

	if (v->unlimited) {
		sb_adds(sb, "unlimited");
		return;
	}
	switch (ir_limit_units[which]) {
	case IR_UNIT_COUNT:
		sb_addf(sb, "%llu", v->value);
		return;
	case IR_UNIT_BYTES:
		for (size_t i = 0; i < ARRAY_SIZE(bytes); i++)
			if (v->value % bytes[i].scale == 0) {
				sb_addf(sb, "%llu%c", v->value / bytes[i].scale, bytes[i].unit);
				return;
			}
		sb_addf(sb, "%lluB", v->value);
		return;
	case IR_UNIT_SECONDS:
		for (size_t i = 0; i < ARRAY_SIZE(seconds); i++)
			if (v->value % seconds[i].scale == 0) {
				sb_addf(sb, "%llu%c", v->value / seconds[i].scale, seconds[i].unit);
				return;
			}
		sb_addf(sb, "%llus", v->value);
		return;
	}
}
