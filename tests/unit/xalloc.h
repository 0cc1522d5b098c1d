/* Allocation helpers for the unit tests and benchmarks, which link only
 * the public library: out of memory ends the program (99, a hard error
 * for the TAP driver). */
#ifndef CORDON_TEST_XALLOC_H
#define CORDON_TEST_XALLOC_H

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static inline void xalloc_die(void)
{
	perror(program_invocation_short_name);
	exit(99);
}

static inline void *xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);
	if (!p)
		xalloc_die();
	return p;
}

static inline void *xrealloc(void *p, size_t n)
{
	p = realloc(p, n ? n : 1);
	if (!p)
		xalloc_die();
	return p;
}

static inline char *xstrdup(const char *s)
{
	size_t n = strlen(s) + 1;
	return memcpy(xmalloc(n), s, n);
}

static inline char *xvfmt(const char *f, va_list ap) __attribute__((format(printf, 1, 0)));
static inline char *xvfmt(const char *f, va_list ap)
{
	char *s;
	if (vasprintf(&s, f, ap) < 0)
		xalloc_die();
	return s;
}

static inline char *xfmt(const char *f, ...) __attribute__((format(printf, 1, 2)));
static inline char *xfmt(const char *f, ...)
{
	va_list ap;
	va_start(ap, f);
	char *s = xvfmt(f, ap);
	va_end(ap);
	return s;
}

#endif
