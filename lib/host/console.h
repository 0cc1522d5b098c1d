/* The approval console's spool, shared by the side that asks
 * (console_ask.c) and the side that answers (console_spool.c). */
#ifndef CORDON_CONSOLE_H
#define CORDON_CONSOLE_H

#include <stdbool.h>
#include <stddef.h>

/* An ask's file is at most this large; a larger one is not an ask. */
#define CONSOLE_FILE_MAX (1024 * 1024)

/* AGENT_DIR/console opened (with create: made, and its pending/ and
 * answers/ too), checked to be a directory of this user that no one else
 * may enter; -1 with *err. */
int console_open(const char *agent_dir, bool create, char **err);
/* A private subdirectory ("pending", "answers") of the spool dfd. */
int console_subdir(int dfd, const char *name, char **err);
/* True while a console holds the spool's lock. */
bool console_alive(int dfd);
/* name in dfd: a regular 0600 file of this user, read whole (malloc'd,
 * NUL-terminated); NULL with errno (ENOENT: no such file). */
char *console_read(int dfd, const char *name);
/* text as name in dfd, all or nothing: replace an existing name, or with
 * exclusive fail (EEXIST) when it exists.  0, or -1 with errno. */
int console_write(int dfd, const char *name, const char *text, bool exclusive);
/* Whether id is an ask id: 32 lowercase hex digits. */
bool console_id_valid(const char *id);

#endif
