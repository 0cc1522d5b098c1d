/* Allocation, growable buffers, an arena and small string helpers.
 *
 * The x* allocators abort on exhaustion: a policy compiler that runs out of
 * memory has nothing safe to decide, and callers stay free of NULL checks. */
#ifndef CORDON_UTIL_H
#define CORDON_UTIL_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Under ASan the part of an arena chunk not handed out yet is poisoned. */
#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define ARENA_ASAN 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__)
#define ARENA_ASAN 1
#endif
#ifdef ARENA_ASAN
#include <sanitizer/asan_interface.h>
#define ARENA_UNPOISON(p, n) ASAN_UNPOISON_MEMORY_REGION(p, n)
#else
#define ARENA_UNPOISON(p, n) ((void)(p), (void)(n))
#endif

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#define PRINTF_LIKE(f, a) __attribute__((format(printf, f, a)))

void *xmalloc(size_t n);
void *xcalloc(size_t count, size_t size);
void *xrealloc(void *p, size_t n);
char *xstrdup(const char *s);
char *xstrndup(const char *s, size_t n);
char *xasprintf(const char *fmt, ...) PRINTF_LIKE(1, 2);
/* The strings up to a NULL, one after another, in one allocation: what
 * xasprintf("%s%s...") gives, without formatting. */
char *xstrcat(const char *s, ...) __attribute__((sentinel));

/* Is path dir itself or a path inside it?  Both are absolute and clean
 * ("/a/b", no trailing slash); the root "/" (or "") holds every path. */
bool path_under(const char *path, const char *dir);
/* The next component of the path at *p, past the slashes before it, with
 * its length in *n; *p moves past it.  NULL when no component is left. */
const char *path_next_component(const char **p, size_t *n);

/* qsort that accepts an empty (NULL) array. */
void sort_items(void *base, size_t n, size_t size, int (*cmp)(const void *, const void *));

/* Grow *items so that it holds at least need elements of size each. */
void grow_array(void **items, size_t *cap, size_t need, size_t size);
#define VEC_PUSH(arr, len, cap, val)                                          \
	do {                                                                  \
		grow_array((void **)&(arr), &(cap), (len) + 1, sizeof(*(arr))); \
		(arr)[(len)++] = (val);                                       \
	} while (0)

/* A NUL-terminated growable byte string. */
struct strbuf {
	char *buf;
	size_t len, cap;
};
/* write(2) all of data, again after EINTR and short writes; 0, or -1 with
 * errno set. */
int write_all(int fd, const void *data, size_t n);

/* Close every descriptor from lowfd up, so that none the caller leaked
 * crosses into what is exec'd next: close_range(2) (Linux 5.9), else each
 * one /proc/self/fd lists, else each below the hard descriptor limit.
 * 0, or -1 with errno when that cannot be done. */
int close_fds_from(int lowfd);

void sb_init(struct strbuf *sb);
void sb_add(struct strbuf *sb, const char *s, size_t n);
void sb_adds(struct strbuf *sb, const char *s);
void sb_addc(struct strbuf *sb, char c);
void sb_addf(struct strbuf *sb, const char *fmt, ...) PRINTF_LIKE(2, 3);
void sb_vaddf(struct strbuf *sb, const char *fmt, va_list ap) PRINTF_LIKE(2, 0);
/* Append s as one word for a POSIX shell: as it is when only letters,
 * digits and _-./,:=+@% are in it, else in single quotes. */
void sb_add_shell_word(struct strbuf *sb, const char *s);
/* Append the n words as a list for a message, "a, b and c": each
 * separated by ", " but the last, by last (" and ", " or ", or ", "). */
void sb_add_words(struct strbuf *sb, const char *const *words, size_t n, const char *last);
/* Append s as a double-quoted cordon string literal. */
void sb_add_quoted(struct strbuf *sb, const char *s);
char *sb_steal(struct strbuf *sb);
/* Drop the last component of the absolute path in sb ("/" stays "/"). */
void path_pop_component(struct strbuf *sb);
void sb_free(struct strbuf *sb);

/* A bump allocator: everything of one compile is freed at once. */
struct arena_chunk {
	struct arena_chunk *next;
	size_t used, size;
	max_align_t data[];
};
struct arena {
	struct arena_chunk *head;
};
void arena_init(struct arena *a);
/* A new chunk for n (aligned) bytes of which want are handed out. */
void *arena_alloc_chunk(struct arena *a, size_t n, size_t want);
/* Uninitialised memory, for callers that write all of it.  Inline: the
 * parse and the analysis make most of their allocations here. */
static inline void *arena_alloc(struct arena *a, size_t n)
{
	struct arena_chunk *c = a->head;
	size_t want = n;
	n = (n + _Alignof(max_align_t) - 1) & ~(_Alignof(max_align_t) - 1);
	if (!c || c->size - c->used < n)
		return arena_alloc_chunk(a, n, want);
	void *p = (char *)c->data + c->used;
	c->used += n;
	ARENA_UNPOISON(p, want);
	return p;
}
/* Zeroed memory, for structures whose unset fields must read as 0. */
void *arena_alloc0(struct arena *a, size_t n);
char *arena_strdup(struct arena *a, const char *s);
char *arena_strndup(struct arena *a, const char *s, size_t n);
void arena_free(struct arena *a);

/* Edit distance (optimal string alignment), for "did you mean"; SIZE_MAX
 * for words over 64 bytes. */
size_t edit_distance(const char *a, const char *b);
/* The candidate closest to word, or NULL when none is close enough. */
const char *closest_word(const char *word, const char *const *candidates, size_t n);

/* Offset of the first byte that breaks UTF-8, or len when s is valid. */
size_t utf8_invalid_at(const unsigned char *s, size_t len);

/* Whether this process runs under valgrind: its client request where the
 * header was there at build time, else its preload library, which it puts
 * in every client's LD_PRELOAD (a build made before valgrind was
 * installed).  valgrind 3.19 knows neither openat2 nor Landlock's calls:
 * it fails them with ENOSYS after a warning on stderr, so their callers
 * take the ENOSYS answer without asking. */
bool under_valgrind(void);

/* False when CORDON_FAST_LOAD=0 is in the environment: the built-in
 * policy is read whole at load and an evaluator relates all its rules
 * when it is built, instead of when a decision first needs them (the
 * same decisions either way; docs/architecture.md). */
bool fast_load(void);

#endif
