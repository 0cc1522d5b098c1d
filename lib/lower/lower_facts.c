/* `--emit facts`: the host facts a preset's decisions and plans were made
 * with, for an auditor: the host, its aliases, and every literal path of
 * the rules that resolves elsewhere there, with the rule that names it. */
#include "config.h"

#include "lower.h"

#include <string.h>

char *lower_facts_text(const struct lower_input *in, size_t *len, char **err)
{
	const cordon_evaluator *ev = in->ev;
	const struct host_facts *h = ev->host;
	struct strbuf sb;
	(void)err;
	sb_init(&sb);
	sb_adds(&sb, "# cordon: host facts of preset ");
	sb_add_quoted(&sb, ev->preset->name);
	sb_addf(&sb, "\nhost %s  # %s; a restricted preset runs under %s\n", h->name,
		h->live ? "this machine: symlinks are read from its file system"
			: "the standard facts, built in: nothing of this machine is read",
		h->sandbox);
	for (size_t i = 0; i < h->naliases; i++) {
		const struct host_alias *a = &h->aliases[i];
		sb_adds(&sb, "alias ");
		sb_add_quoted(&sb, a->path);
		sb_adds(&sb, " -> ");
		sb_add_quoted(&sb, a->target);
		sb_addf(&sb, "  # %s\n", a->kind == HOST_SYMLINK ? "a symlink the system keeps"
								  : "a firmlink's second name");
	}
	size_t shown = 0;
	for (size_t i = 0; i < ev->nlinks; i++) {
		const struct ev_link *l = &ev->links[i];
		if (l->real && strcmp(l->real, l->path) == 0)
			continue;
		sb_adds(&sb, "link ");
		sb_add_quoted(&sb, l->path);
		if (l->real) {
			sb_adds(&sb, " -> ");
			sb_add_quoted(&sb, l->real);
		} else {
			sb_adds(&sb, " cannot be resolved");
		}
		sb_addf(&sb, "  # %s\n", l->origin);
		shown++;
	}
	if (!shown)
		sb_adds(&sb, "# no literal path of the rules resolves elsewhere\n");
	*len = sb.len;
	return sb_steal(&sb);
}
