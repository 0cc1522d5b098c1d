#include "config.h"

#include "once.h"

#include <pthread.h>

static pthread_mutex_t building = PTHREAD_MUTEX_INITIALIZER;

void once_build_slow(atomic_bool *done, void (*build)(void *), void *arg)
{
	pthread_mutex_lock(&building);
	if (!atomic_load_explicit(done, memory_order_relaxed)) {
		build(arg);
		atomic_store_explicit(done, true, memory_order_release);
	}
	pthread_mutex_unlock(&building);
}
