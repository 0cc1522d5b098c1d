/* Bind sources as descriptors (bind_fds.h). */
#ifndef __APPLE__
#include "config.h"

#include "bind_fds.h"
#include "launch.h"
#include "mount_marks.h"
#include "run_util.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* The descriptor op's source is bound from: the approval's for a grant,
 * else opened now and checked against the host facts.  -1 with *err. */
static int source_fd(const struct cordon_plan_op *op, const cordon_lowering *in,
		     const struct run_approval *ra, char **err)
{
	int checked = run_approval_fd(ra, op->source);
	if (checked >= 0) {
		int fd = fcntl(checked, F_DUPFD_CLOEXEC, 0);
		if (fd < 0)
			*err = xasprintf("cannot keep '%s' open: %s", op->source, strerror(errno));
		return fd;
	}
	if (ra->active && op->origin && strcmp(op->origin, ra->origin) == 0) {
		/* The plan binds what the approval grants at a path it did not
		 * check: the grant resolved elsewhere since. */
		*err = xasprintf("%s is void: the plan would bind '%s', which it did not approve",
				 ra->origin, op->source);
		return -1;
	}
	int fd = cordon_open_nofollow(op->source);
	if (fd < 0) {
		*err = xasprintf("cannot open '%s' to bind it without following a symbolic link (it "
				 "changed since the plan was made?): %s",
				 op->source, strerror(errno));
		return -1;
	}
	struct stat st;
	/* The kind the plan was made for. */
	unsigned want = cordon_lowering_source_kind(in, op);
	if (fstat(fd, &st) != 0 || (st.st_mode & S_IFMT) != want) {
		*err = xasprintf("'%s' changed since the plan was made: it is not the %s it was",
				 op->source,
				 want == S_IFREG   ? "file"
				 : want == S_IFDIR ? "directory"
						   : "kind of file");
		close(fd);
		return -1;
	}
	return fd;
}

/* Is the mount at pl->ops[i] covered by a later mount at its path or above? */
static bool covered_later(const struct cordon_plan *pl, size_t i)
{
	for (size_t j = i + 1; j < pl->n; j++)
		if (cordon_plan_kind_mounts(pl->ops[j].kind) && pl->ops[j].path &&
		    path_under(pl->ops[i].path, pl->ops[j].path))
			return true;
	return false;
}

int bind_fds_take(struct bind_fds *b, struct cordon_plan *pl, const cordon_lowering *in,
		  const struct run_approval *ra, char **err)
{
	for (size_t i = 0; i < pl->n; i++) {
		struct cordon_plan_op *op = &pl->ops[i];
		if ((op->kind == CORDON_PLAN_TMPFS || op->kind == CORDON_PLAN_MASK_DIR) &&
		    op->path && !covered_later(pl, i)) {
			/* A tmpfs has no source to open: it must at least be
			 * mounted at its path, not where a link there pointed. */
			VEC_PUSH(b->marks, b->nmarks, b->marks_cap, mount_mark_any(op->path));
			continue;
		}
		if (!cordon_plan_binds_host(op))
			continue;
		if (b->n == LAUNCH_BIND_FDS_MAX) {
			*err = xasprintf("the plan binds more than %d host paths, more than one launch "
					 "can hand to bwrap",
					 LAUNCH_BIND_FDS_MAX);
			return -1;
		}
		int fd = source_fd(op, in, ra, err);
		if (fd < 0)
			return -1;
		VEC_PUSH(b->fds, b->n, b->cap, fd);
		if (!covered_later(pl, i)) {
			char *mark = mount_mark_of(fd, op->path);
			if (!mark) {
				*err = xasprintf("cannot inspect '%s': %s", op->source, strerror(errno));
				return -1;
			}
			VEC_PUSH(b->marks, b->nmarks, b->marks_cap, mark);
		}
		cordon_plan_bind_fd(op, LAUNCH_BIND_FD_FIRST + (int)(b->n - 1));
	}
	return 0;
}

void bind_fds_end(struct bind_fds *b)
{
	for (size_t i = 0; i < b->n; i++)
		close(b->fds[i]);
	for (size_t i = 0; i < b->nmarks; i++)
		free(b->marks[i]);
	free(b->marks);
	free(b->fds);
	memset(b, 0, sizeof(*b));
}
#endif
