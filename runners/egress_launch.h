/* The runner's part of the egress relay at the launch (egress_launch.c). */
#ifndef CORDON_EGRESS_LAUNCH_H
#define CORDON_EGRESS_LAUNCH_H

#include <stdbool.h>
#include <stddef.h>

#include "cordon/lowering.h"

/* The resolver file beside the private temp dir ("${tmp}.resolv"), for a
 * lowering with the egress proxy; NULL otherwise.  malloc'd. */
char *resolv_file(const cordon_lowering *in);
/* Make it (naming the sandbox's DNS stub); *made once it exists.  0, or
 * -1 with *err. */
int prepare_resolv(const cordon_lowering *in, bool *made, char **err);
/* Remove the file prepare_resolv made, after the call. */
void resolv_remove(const cordon_lowering *in);
/* bwrap's arguments for the relay: the capabilities cordon-exec drops
 * again, and the resolver file's bind. */
void egress_bwrap_args(const cordon_lowering *in, char ***v, size_t *n, size_t *cap);
/* cordon-exec's: a --relay-port for each port the relay listens on. */
void egress_helper_args(const cordon_lowering *in, char ***v, size_t *n, size_t *cap);

#endif
