/* Landlock: the kernel's unprivileged access control, used as a second
 * fence behind bwrap's mounts.  A ruleset handles every write right the
 * running kernel knows and grants them beneath the write roots only, so a
 * write elsewhere fails with EACCES even if a mount were to allow it.
 *
 * Landlock is an allow-list: a right granted on a directory holds for
 * everything below it and cannot be taken back deeper down.  Read-only
 * paths inside a write root (protections) are therefore left to bwrap's
 * read-only binds.
 *
 * Public: the runner applies the ruleset of a lowering (cordon/lowering.h:
 * cordon_lowering_landlock_roots and _flags) inside the sandbox, and
 * libcordon shows the same ruleset in `cordon compile --emit landlock`. */
#ifndef CORDON_LANDLOCK_H
#define CORDON_LANDLOCK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#ifdef __cplusplus
}
#endif

#endif

/* The newest ABI this build knows about; a newer kernel is treated as this. */
#define CORDON_LANDLOCK_ABI_KNOWN 7

/* Flags for cordon_landlock_apply(). */
#define CORDON_LANDLOCK_DENY_TCP (1u << 0)   /* handle TCP bind and connect, grant none (ABI >= 4) */
#define CORDON_LANDLOCK_SCOPE_UNIX (1u << 1) /* no abstract unix socket outside the domain (ABI >= 6) */
/* With DENY_TCP: TCP connect to CORDON_EGRESS_PORT stays allowed, the
 * egress proxy's port on the sandbox's own loopback (and, through
 * cordon_landlock_apply_ports, the transparent relay's ports there). */
#define CORDON_LANDLOCK_EGRESS (1u << 2)

/* Where cordon-exec listens for the egress proxy inside the sandbox (its own
 * network namespace, so the number is the same for every call). */
#define CORDON_EGRESS_PORT 3128

/* The running kernel's Landlock ABI version: >= 1, or 0 when the kernel has
 * no Landlock (errno ENOSYS) or it is disabled (errno EOPNOTSUPP). */
int cordon_landlock_abi(void);

/* The write rights an ABI version knows (handled_access_fs), and the part of
 * them that a rule on a file rather than a directory may grant. */
uint64_t cordon_landlock_fs_writes(int abi);
uint64_t cordon_landlock_fs_file_writes(int abi);

/* The names of the rights in mask, space-separated ("WRITE_FILE REMOVE_DIR
 * ..."), into buf. */
void cordon_landlock_fs_names(uint64_t mask, char *buf, size_t size);

/* Restrict the calling process, and everything it later runs, to writing
 * beneath roots[0..nroots-1] (directories or single files; the ones that do
 * not exist are skipped, which grants less, never more).  Sets
 * PR_SET_NO_NEW_PRIVS first.  Whatever the kernel's ABI lacks is left out
 * (a kernel before ABI 4 cannot deny TCP).  Threads started before the call
 * are not restricted: call it in a single-threaded process before exec.
 *
 * Returns 0 when the ruleset is in force; 1 when the kernel has no Landlock
 * (nothing was applied, *err says why); -1 with *err on any other failure. */
int cordon_landlock_apply(const char *const *roots, size_t nroots, unsigned flags, char **err);
/* The same, and with CORDON_LANDLOCK_EGRESS TCP connect to each of
 * ports[0..nports-1] as well: the ports cordon-exec's transparent relay
 * listens on, on the sandbox's own loopback (its network namespace has no
 * route out, so these reach the relay and nothing else). */
int cordon_landlock_apply_ports(const char *const *roots, size_t nroots, unsigned flags,
				const int *ports, size_t nports, char **err);

#ifdef __cplusplus
}
#endif

#endif
