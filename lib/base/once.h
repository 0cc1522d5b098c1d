/* Something built the first time it is needed, by whichever thread needs
 * it first, and read by every thread after: an evaluator is shared, and
 * builds for each pattern and program spec what only some decisions use.
 *
 *	once_build(&x->built, build_x, x);
 *
 * runs build_x(x) at most once; when it returns, the build is complete and
 * visible to the caller.  A build must not call once_build itself: all
 * builds share one lock. */
#ifndef CORDON_ONCE_H
#define CORDON_ONCE_H

#include <stdatomic.h>
#include <stdbool.h>

void once_build_slow(atomic_bool *done, void (*build)(void *), void *arg);

static inline void once_build(atomic_bool *done, void (*build)(void *), void *arg)
{
	if (!atomic_load_explicit(done, memory_order_acquire))
		once_build_slow(done, build, arg);
}

#endif
