/* The small helpers the runners are written with: allocation that aborts
 * on exhaustion, growable strings and vectors, descriptors and cleanup
 * attributes.  They are libcordon's own (lib/base/util.c, linked into
 * cordon and cordon-exec) but not its API, so they are declared here, each
 * line as lib/base/util.h and lib/base/cleanup.h have it: tests/rooms.sh
 * fails when one of them differs. */
#ifndef CORDON_RUN_UTIL_H
#define CORDON_RUN_UTIL_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <unistd.h>

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#define PRINTF_LIKE(f, a) __attribute__((format(printf, f, a)))

void *xmalloc(size_t n);
void *xcalloc(size_t count, size_t size);
char *xstrdup(const char *s);
char *xstrndup(const char *s, size_t n);
char *xasprintf(const char *fmt, ...) PRINTF_LIKE(1, 2);

bool path_under(const char *path, const char *dir);
void sort_items(void *base, size_t n, size_t size, int (*cmp)(const void *, const void *));

void grow_array(void **items, size_t *cap, size_t need, size_t size);
#define VEC_PUSH(arr, len, cap, val)                                          \
	do {                                                                  \
		grow_array((void **)&(arr), &(cap), (len) + 1, sizeof(*(arr))); \
		(arr)[(len)++] = (val);                                       \
	} while (0)

struct strbuf {
	char *buf;
	size_t len, cap;
};
int write_all(int fd, const void *data, size_t n);
int close_fds_from(int lowfd);

void sb_init(struct strbuf *sb);
void sb_add(struct strbuf *sb, const char *s, size_t n);
void sb_adds(struct strbuf *sb, const char *s);
void sb_addc(struct strbuf *sb, char c);
void sb_addf(struct strbuf *sb, const char *fmt, ...) PRINTF_LIKE(2, 3);
void sb_add_shell_word(struct strbuf *sb, const char *s);
char *sb_steal(struct strbuf *sb);
void sb_free(struct strbuf *sb);

/* ---- cleanup attributes (lib/base/cleanup.h) ---- */

static inline void cleanup_free(void *p)
{
	free(*(void **)p);
}

static inline void cleanup_close(const int *fd)
{
	if (*fd >= 0)
		close(*fd);
}

void remove_tree(const char *dir);

static inline void cleanup_pipe(int (*p)[2])
{
	cleanup_close(&(*p)[0]);
	cleanup_close(&(*p)[1]);
}

static inline void cleanup_tmpdir(char **dir)
{
	if (*dir) {
		remove_tree(*dir);
		free(*dir);
	}
}

#define AUTO_FREE __attribute__((cleanup(cleanup_free)))
#define AUTO_FD __attribute__((cleanup(cleanup_close)))
#define AUTO_PIPE __attribute__((cleanup(cleanup_pipe)))
#define AUTO_TMPDIR __attribute__((cleanup(cleanup_tmpdir)))

static inline void *steal_pointer(void *pp)
{
	void **p = pp, *v = *p;
	*p = NULL;
	return v;
}

static inline int steal_fd(int *fd)
{
	int v = *fd;
	*fd = -1;
	return v;
}

#endif
