/* One-call approvals: a single-use record, bound to one mutation, kept as
 * one 0600 JSON file in the session dir's 0700 approvals/ directory. */
#ifndef CORDON_APPROVAL_H
#define CORDON_APPROVAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>

#include "base/digest.h"

#define APPROVAL_ID_LEN 32

/* The identity of a file: what must not change between approval and use. */
struct file_id {
	bool present;
	uint64_t dev, ino, size;
	int64_t mtime_ns;
};
void file_id_from_stat(struct file_id *id, const struct stat *st);

struct approval {
	char id[APPROVAL_ID_LEN + 1];
	const char *op;  /* "write" or "edit" (static) */
	char *target;    /* canonical */
	char *preset;
	char preset_digest[DIGEST_HEX_LEN + 1];
	char content_digest[DIGEST_HEX_LEN + 1]; /* the bytes the target will hold */
	char old_digest[DIGEST_HEX_LEN + 1];     /* edit: the arguments */
	char new_digest[DIGEST_HEX_LEN + 1];
	bool all;
	struct file_id target_id, parent_id;
	int64_t expires;                         /* seconds since the epoch */
};
void approval_clear(struct approval *a);

/* A fresh random id: 0, or -1 with *err. */
int approval_new_id(char id[APPROVAL_ID_LEN + 1], char **err);

/* Create (0700) and check session_dir/approvals; its path (malloc'd), or
 * NULL with *err. */
char *approval_store_ready(const char *session_dir, char **err);

/* Store a new approval under session_dir/approvals, giving it a fresh
 * random id (a->id).  0, or -1 with *err. */
int approval_store(const char *session_dir, struct approval *a, char **err);

/* Consume the approval id: only one caller can take it (the file is
 * renamed away atomically, then read and removed).  0 with *a filled, or
 * -1 with *err for an id that is malformed, unknown or already used. */
int approval_take(const char *session_dir, const char *id, struct approval *a, char **err);

/* The same for any record (json.h's json_t): store assigns j's "id" and
 * writes it; take hands back the record it removed (the caller owns it). */
typedef struct json_t json_t;
int approval_store_json(const char *session_dir, json_t *j, char id[APPROVAL_ID_LEN + 1],
			char **err);
int approval_take_json(const char *session_dir, const char *id, json_t **j, char **err);

/* The first bound field in which `now` differs from the approval, as a
 * message; NULL when they agree.  Fields of `now` left empty (an empty
 * digest, a NULL op) are not compared. */
char *approval_mismatch(const struct approval *approved, const struct approval *now,
			int64_t now_seconds);

#endif
