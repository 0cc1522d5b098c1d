#include "config.h"

#include "cleanup.h"
#include "util.h"

#include <dirent.h>
#include <errno.h>
#include <ftw.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>
#if __has_include(<valgrind/memcheck.h>)
#include <valgrind/memcheck.h>
#define VALGRIND_SAYS() RUNNING_ON_VALGRIND
#else
#define VALGRIND_MAKE_MEM_UNDEFINED(p, n) ((void)(p), (void)(n))
#define VALGRIND_MAKE_MEM_NOACCESS(p, n) ((void)(p), (void)(n))
#define VALGRIND_SAYS() 0
#endif
#if __has_include(<sanitizer/asan_interface.h>)
#include <sanitizer/asan_interface.h>
#else
#define ASAN_POISON_MEMORY_REGION(p, n) ((void)(p), (void)(n))
#define ASAN_UNPOISON_MEMORY_REGION(p, n) ((void)(p), (void)(n))
#endif

static void oom(void)
{
	fputs("cordon: out of memory\n", stderr);
	abort();
}

void *xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);
	if (!p)
		oom();
	return p;
}

void *xcalloc(size_t count, size_t size)
{
	void *p = calloc(count ? count : 1, size ? size : 1);
	if (!p)
		oom();
	return p;
}

void *xrealloc(void *p, size_t n)
{
	p = realloc(p, n ? n : 1);
	if (!p)
		oom();
	return p;
}

char *xstrdup(const char *s)
{
	return xstrndup(s, strlen(s));
}

char *xstrndup(const char *s, size_t n)
{
	char *p = xmalloc(n + 1);
	memcpy(p, s, n);
	p[n] = '\0';
	return p;
}

char *xasprintf(const char *fmt, ...)
{
	/* Formatted on the stack, then one allocation of the size it has:
	 * most of these are reasons and details of a few dozen bytes. */
	char buf[256];
	va_list ap, cp;
	va_start(ap, fmt);
	va_copy(cp, ap);
	int n = vsnprintf(buf, sizeof(buf), fmt, cp);
	va_end(cp);
	char *p;
	if (n < 0) {
		p = xstrdup("");
	} else if ((size_t)n < sizeof(buf)) {
		p = xstrndup(buf, (size_t)n);
	} else {
		p = xmalloc((size_t)n + 1);
		vsnprintf(p, (size_t)n + 1, fmt, ap);
	}
	va_end(ap);
	return p;
}

char *xstrcat(const char *s, ...)
{
	va_list ap;
	size_t n = 0;
	va_start(ap, s);
	for (const char *p = s; p; p = va_arg(ap, const char *))
		n += strlen(p);
	va_end(ap);
	char *out = xmalloc(n + 1), *at = out;
	va_start(ap, s);
	for (const char *p = s; p; p = va_arg(ap, const char *)) {
		size_t k = strlen(p);
		memcpy(at, p, k);
		at += k;
	}
	va_end(ap);
	*at = '\0';
	return out;
}

void sort_items(void *base, size_t n, size_t size, int (*cmp)(const void *, const void *))
{
	if (n > 1)
		qsort(base, n, size, cmp);
}

void grow_array(void **items, size_t *cap, size_t need, size_t size)
{
	size_t n;
	if (need <= *cap)
		return;
	/* Bytes (a strbuf) start at 64: most strings built are longer than
	 * 8, and each doubling on the way is a realloc. */
	n = *cap ? *cap : size == 1 ? 64 : 8;
	while (n < need) {
		if (n > SIZE_MAX / 2 / size)
			oom();
		n *= 2;
	}
	*items = xrealloc(*items, n * size);
	*cap = n;
}

void sb_init(struct strbuf *sb)
{
	sb->buf = NULL;
	sb->len = sb->cap = 0;
	grow_array((void **)&sb->buf, &sb->cap, 1, 1);
	sb->buf[0] = '\0';
}

void sb_add(struct strbuf *sb, const char *s, size_t n)
{
	grow_array((void **)&sb->buf, &sb->cap, sb->len + n + 1, 1);
	memcpy(sb->buf + sb->len, s, n);
	sb->len += n;
	sb->buf[sb->len] = '\0';
}

void sb_adds(struct strbuf *sb, const char *s)
{
	sb_add(sb, s, strlen(s));
}

void sb_addc(struct strbuf *sb, char c)
{
	/* a byte at a time is how scanners and builders add most text */
	if (sb->len + 2 > sb->cap)
		grow_array((void **)&sb->buf, &sb->cap, sb->len + 2, 1);
	sb->buf[sb->len++] = c;
	sb->buf[sb->len] = '\0';
}

void sb_vaddf(struct strbuf *sb, const char *fmt, va_list ap)
{
	va_list cp;
	int n;
	/* Formatted straight into the room there is (made at least 128
	 * bytes); only text longer than that is formatted twice.  Measuring
	 * first with vsnprintf(NULL, 0) costs as much as formatting. */
	grow_array((void **)&sb->buf, &sb->cap, sb->len + 128, 1);
	va_copy(cp, ap);
	n = vsnprintf(sb->buf + sb->len, sb->cap - sb->len, fmt, cp);
	va_end(cp);
	if (n < 0) {
		sb->buf[sb->len] = '\0';
		return;
	}
	if ((size_t)n >= sb->cap - sb->len) {
		grow_array((void **)&sb->buf, &sb->cap, sb->len + (size_t)n + 1, 1);
		vsnprintf(sb->buf + sb->len, (size_t)n + 1, fmt, ap);
	}
	sb->len += (size_t)n;
}

void sb_addf(struct strbuf *sb, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	sb_vaddf(sb, fmt, ap);
	va_end(ap);
}

void sb_add_words(struct strbuf *sb, const char *const *words, size_t n, const char *last)
{
	for (size_t i = 0; i < n; i++)
		sb_addf(sb, "%s%s", i == 0 ? "" : i + 1 == n ? last : ", ", words[i]);
}

void sb_add_quoted(struct strbuf *sb, const char *s)
{
	sb_addc(sb, '"');
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;
		switch (c) {
		case '"': sb_adds(sb, "\\\""); break;
		case '\\': sb_adds(sb, "\\\\"); break;
		case '\n': sb_adds(sb, "\\n"); break;
		case '\t': sb_adds(sb, "\\t"); break;
		default:
			if (c < 0x20 || c == 0x7f)
				sb_addf(sb, "\\x%02x", c);
			else
				sb_addc(sb, (char)c);
		}
	}
	sb_addc(sb, '"');
}

char *sb_steal(struct strbuf *sb)
{
	char *p = sb->buf;
	sb->buf = NULL;
	sb->len = sb->cap = 0;
	return p;
}

void sb_free(struct strbuf *sb)
{
	free(sb->buf);
	sb->buf = NULL;
	sb->len = sb->cap = 0;
}

/* Chunks start small, since most arenas hold one short command line, and
 * double up to ARENA_CHUNK. */
#define ARENA_FIRST (2 * 1024)
#define ARENA_CHUNK (256 * 1024)

/* Each thread keeps a few freed small chunks for its next arenas: a
 * decision makes and drops two or three arenas of 2-4 KiB, too big for
 * malloc's per-thread cache, and freeing chunks that size makes malloc
 * consolidate its free lists every time.  Per thread, so no lock; a
 * thread's spares are freed when it exits. */
#define ARENA_SPARES 4
#define ARENA_SPARE_MAX (4 * 1024)
struct arena_spares {
	struct arena_chunk *chunk[ARENA_SPARES];
	size_t n;
};
static _Thread_local struct arena_spares spares;
static pthread_key_t spares_key;
static pthread_once_t spares_once = PTHREAD_ONCE_INIT;
static bool spares_keyed;

static void spares_free(void *p)
{
	struct arena_spares *sp = p;
	while (sp->n)
		free(sp->chunk[--sp->n]);
}

static void spares_key_create(void)
{
	spares_keyed = pthread_key_create(&spares_key, spares_free) == 0;
}

/* A spare chunk of at least size bytes, or NULL. */
static struct arena_chunk *spare_take(size_t size)
{
	for (size_t i = spares.n; i-- > 0;) {
		struct arena_chunk *c = spares.chunk[i];
		if (c->size >= size) {
			spares.chunk[i] = spares.chunk[--spares.n];
			/* Stale bytes: let memcheck still see unset ones. */
			ASAN_UNPOISON_MEMORY_REGION(c->data, c->size);
			VALGRIND_MAKE_MEM_UNDEFINED(c->data, c->size);
			return c;
		}
	}
	return NULL;
}

/* Keep c as a spare if it is small and there is room; else free it. */
static void spare_put(struct arena_chunk *c)
{
	if (c->size > ARENA_SPARE_MAX || spares.n == ARENA_SPARES) {
		free(c);
		return;
	}
	if (!spares.n) {
		/* The destructor runs only for a non-NULL value. */
		pthread_once(&spares_once, spares_key_create);
		if (!spares_keyed || pthread_setspecific(spares_key, &spares) != 0) {
			free(c);
			return;
		}
	}
	/* A pointer kept past its arena's free still reads as freed memory. */
	ASAN_POISON_MEMORY_REGION(c->data, c->size);
	VALGRIND_MAKE_MEM_NOACCESS(c->data, c->size);
	spares.chunk[spares.n++] = c;
}

void arena_init(struct arena *a)
{
	a->head = NULL;
}

void *arena_alloc_chunk(struct arena *a, size_t n, size_t want)
{
	struct arena_chunk *c = a->head;
	size_t size = c ? c->size * 2 : ARENA_FIRST;
	if (size > ARENA_CHUNK)
		size = ARENA_CHUNK;
	if (size < n)
		size = n;
	struct arena_chunk *s = size <= ARENA_SPARE_MAX ? spare_take(size) : NULL;
	if (s) {
		c = s;
	} else {
		c = xmalloc(sizeof(*c) + size);
		c->size = size;
	}
	c->used = n;
	c->next = a->head;
	a->head = c;
	/* What is not handed out yet reads as a red zone. */
	ASAN_POISON_MEMORY_REGION(c->data, c->size);
	ASAN_UNPOISON_MEMORY_REGION(c->data, want);
	return c->data;
}

void *arena_alloc0(struct arena *a, size_t n)
{
	return memset(arena_alloc(a, n), 0, n);
}

char *arena_strndup(struct arena *a, const char *s, size_t n)
{
	char *p = arena_alloc(a, n + 1);
	memcpy(p, s, n);
	p[n] = '\0';
	return p;
}

char *arena_strdup(struct arena *a, const char *s)
{
	return arena_strndup(a, s, strlen(s));
}

void arena_free(struct arena *a)
{
	struct arena_chunk *c = a->head;
	while (c) {
		struct arena_chunk *next = c->next;
		spare_put(c);
		c = next;
	}
	a->head = NULL;
}

bool path_under(const char *path, const char *dir)
{
	size_t n = strlen(dir);
	if (n == 0 || (n == 1 && dir[0] == '/'))
		return true;
	return strncmp(path, dir, n) == 0 && (path[n] == '/' || path[n] == '\0');
}

const char *path_next_component(const char **p, size_t *n)
{
	const char *s = *p, *seg;
	while (*s == '/')
		s++;
	if (!*s)
		return NULL;
	seg = s;
	while (*s && *s != '/')
		s++;
	*n = (size_t)(s - seg);
	*p = s;
	return seg;
}

void path_pop_component(struct strbuf *sb)
{
	while (sb->len > 1 && sb->buf[sb->len - 1] != '/')
		sb->len--;
	if (sb->len > 1)
		sb->len--;
	sb->buf[sb->len] = '\0';
}

size_t edit_distance(const char *a, const char *b)
{
	/* Optimal string alignment: a swap of neighbours ("wirte") counts once. */
	size_t la = strlen(a), lb = strlen(b);
	size_t d[65][65];
	if (la > 64 || lb > 64)
		return SIZE_MAX;
	for (size_t i = 0; i <= la; i++)
		d[i][0] = i;
	for (size_t j = 0; j <= lb; j++)
		d[0][j] = j;
	for (size_t i = 1; i <= la; i++) {
		for (size_t j = 1; j <= lb; j++) {
			size_t cost = a[i - 1] == b[j - 1] ? 0 : 1;
			size_t best = d[i - 1][j - 1] + cost;
			if (d[i - 1][j] + 1 < best)
				best = d[i - 1][j] + 1;
			if (d[i][j - 1] + 1 < best)
				best = d[i][j - 1] + 1;
			if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] &&
			    d[i - 2][j - 2] + 1 < best)
				best = d[i - 2][j - 2] + 1;
			d[i][j] = best;
		}
	}
	return d[la][lb];
}

const char *closest_word(const char *word, const char *const *candidates, size_t n)
{
	const char *best = NULL;
	size_t best_d = SIZE_MAX;
	size_t len = strlen(word);
	size_t limit = len / 3 > 1 ? len / 3 : 1;
	for (size_t i = 0; i < n; i++) {
		size_t d = edit_distance(word, candidates[i]);
		if (d < best_d) {
			best_d = d;
			best = candidates[i];
		}
	}
	return best_d <= limit && best_d > 0 && best_d < len ? best : NULL;
}

/* Offset of the first byte that breaks UTF-8, or len when the text is valid. */
size_t utf8_invalid_at(const unsigned char *s, size_t len)
{
	size_t i = 0;
	while (i < len) {
		unsigned char c = s[i];
		size_t n;
		uint32_t cp;
		/* Eight ASCII bytes at a time: most text is all ASCII. */
		if (len - i >= 8) {
			uint64_t w;
			memcpy(&w, s + i, 8);
			if (!(w & 0x8080808080808080u)) {
				i += 8;
				continue;
			}
		}
		if (c < 0x80) {
			i++;
			continue;
		} else if (c >= 0xc2 && c <= 0xdf) {
			n = 1, cp = c & 0x1f;
		} else if (c >= 0xe0 && c <= 0xef) {
			n = 2, cp = c & 0x0f;
		} else if (c >= 0xf0 && c <= 0xf4) {
			n = 3, cp = c & 0x07;
		} else {
			return i;
		}
		if (len - i <= n)
			return i;
		for (size_t k = 1; k <= n; k++) {
			if ((s[i + k] & 0xc0) != 0x80)
				return i;
			cp = (cp << 6) | (s[i + k] & 0x3f);
		}
		if ((n == 2 && cp < 0x800) || (n == 3 && (cp < 0x10000 || cp > 0x10ffff)) ||
		    (cp >= 0xd800 && cp <= 0xdfff))
			return i;
		i += n + 1;
	}
	return len;
}

int write_all(int fd, const void *data, size_t n)
{
	const char *s = data;
	while (n) {
		ssize_t w = write(fd, s, n);
		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0)
			return -1;
		s += w;
		n -= (size_t)w;
	}
	return 0;
}

int close_fds_from(int lowfd)
{
#ifdef SYS_close_range
	if (syscall(SYS_close_range, (unsigned)lowfd, ~0U, 0U) == 0)
		return 0;
	if (errno != ENOSYS && errno != EPERM)
		return -1;
#endif
	/* Older kernels (and filters that refuse close_range). */
	DIR *d = opendir("/proc/self/fd");
	if (d) {
		struct dirent *e;
		int self = dirfd(d);
		while ((e = readdir(d))) {
			char *end;
			long fd = strtol(e->d_name, &end, 10);
			if (*end == '\0' && end != e->d_name && fd >= lowfd && fd != self)
				close((int)fd);
		}
		closedir(d);
		return 0;
	}
	struct rlimit rl;
	if (getrlimit(RLIMIT_NOFILE, &rl) != 0)
		return -1;
	rlim_t top = rl.rlim_max == RLIM_INFINITY || rl.rlim_max > (1U << 20) ? (1U << 20)
									       : rl.rlim_max;
	for (rlim_t fd = (rlim_t)lowfd; fd < top; fd++)
		close((int)fd);
	return 0;
}

void sb_add_shell_word(struct strbuf *sb, const char *s)
{
	size_t plain = strspn(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
				 "_-./,:=+@%");
	if (*s && !s[plain]) {
		sb_adds(sb, s);
		return;
	}
	sb_addc(sb, '\'');
	for (; *s; s++) {
		if (*s == '\'')
			sb_adds(sb, "'\\''");
		else
			sb_addc(sb, *s);
	}
	sb_addc(sb, '\'');
}

static int rm_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)ftw;
	/* What cannot be removed stays; the rest goes. */
	if (flag == FTW_DP)
		(void)rmdir(path);
	else
		(void)unlink(path);
	return 0;
}

/* Set by unlock_entry when a pass changed a mode. */
static _Thread_local bool unlocked;

static int unlock_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)ftw;
	/* A directory the owner cannot list, enter or unlink in; the tree is
	 * ours, so the owner may give the right back. */
	if ((flag == FTW_DNR || (flag == FTW_D && (st->st_mode & S_IRWXU) != S_IRWXU)) &&
	    chmod(path, S_IRWXU) == 0)
		unlocked = true;
	return 0;
}

void remove_tree(const char *dir)
{
	struct stat st;
	if (!dir)
		return;
	nftw(dir, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
	if (lstat(dir, &st) != 0 || !S_ISDIR(st.st_mode))
		return;
	/* Something stayed: a directory made unreadable or unwritable.  Each
	 * pass opens one more level of them (a mode-000 directory shows what
	 * is in it only once it is readable); then remove again. */
	for (int pass = 0; pass < 256; pass++) {
		unlocked = false;
		nftw(dir, unlock_entry, 16, FTW_PHYS);
		if (!unlocked)
			break;
	}
	nftw(dir, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
}

bool under_valgrind(void)
{
	const char *pre = getenv("LD_PRELOAD");
	return VALGRIND_SAYS() || (pre && strstr(pre, "/vgpreload_"));
}

bool fast_load(void)
{
	const char *v = getenv("CORDON_FAST_LOAD");
	return !v || strcmp(v, "0") != 0;
}
