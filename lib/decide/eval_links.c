/* The host facts of the literal paths an evaluator's rules name
 * (struct ev_link): what each resolves to on the host, taken once when the
 * evaluator is built, so that the decisions and the plans of the
 * lowerings follow the same symlinks. */
#include "config.h"

#include "base/canon.h"
#include "eval.h"

#include <stdlib.h>
#include <string.h>

const struct ev_link *ev_link_find(const cordon_evaluator *ev, const char *path)
{
	const struct strmap_entry *e = strmap_get(&ev->link_index, path, strlen(path));
	return e ? &ev->links[e->items[0]] : NULL;
}

bool ev_kernel_path(const char *path)
{
	return strcmp(path, "/dev") == 0 || strncmp(path, "/dev/", 5) == 0 ||
	       strcmp(path, "/proc") == 0 || strncmp(path, "/proc/", 6) == 0;
}

const struct ev_link *ev_record_link(cordon_evaluator *ev, const char *path, const char *origin)
{
	const struct ev_link *known = ev_link_find(ev, path);
	if (known)
		return known;
	char *why = NULL;
	struct ev_link l = { xstrdup(path), NULL, origin };
	/* /dev and /proc are the sandbox's own: /dev/stdout resolves per process. */
	l.real = ev_kernel_path(path) ? xstrdup(path)
				      : host_resolve_listed(ev->host, ev->listed, ev->nlisted, path,
							    strlen(path), &why);
	free(why);
	VEC_PUSH(ev->links, ev->nlinks, ev->links_cap, l);
	strmap_add(&ev->link_index, l.path, strlen(l.path), (uint32_t)(ev->nlinks - 1));
	return &ev->links[ev->nlinks - 1];
}

/* The workspace and the home directory, each read once while the rules
 * are added: ev_record_link resolves the literal path of every deny and
 * protection, and most name a file that is not there, which the listing
 * answers without a failed openat2 each (a hook call made 117).
 * CORDON_FAST_LOAD=0 resolves each path on its own. */
void ev_list_roots(cordon_evaluator *ev, struct canon_listing *out)
{
	const char *dirs[2] = { ev->ctx.value[CTX_WORKSPACE], ev->ctx.value[CTX_HOME] };
	ev->listed = out;
	ev->nlisted = 0;
	if (!ev->host->live || !fast_load())
		return;
	for (size_t i = 0; i < ARRAY_SIZE(dirs); i++)
		if (dirs[i] && (i == 0 || !dirs[0] || strcmp(dirs[0], dirs[i]) != 0) &&
		    canon_listing_read(&out[ev->nlisted], dirs[i]))
			ev->nlisted++;
}

void ev_unlist_roots(cordon_evaluator *ev, struct canon_listing *out)
{
	for (size_t i = 0; i < ev->nlisted; i++)
		canon_listing_free(&out[i]);
	ev->listed = NULL;
	ev->nlisted = 0;
}
