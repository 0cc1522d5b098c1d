/* Each call's private temp dir (DIR/call-XXXXXX) is held by an exclusive
 * flock on a file beside it (DIR/call-XXXXXX.lock) for as long as the call
 * runs; the kernel drops the lock when the call's last descriptor of it
 * closes, however the call ends.  A call that was killed leaves its temp
 * dir, its mask file and its lock file behind: the next call of the user
 * removes them, and only those whose lock it can take, so never the temp
 * dir of a call that still runs.  Both steps happen under an exclusive
 * flock on DIR itself, so no call can take a lock that another has just
 * made and not yet locked.  A temp dir without a lock file (made by an
 * older cordon) is left alone. */
#ifndef CORDON_CALL_LOCK_H
#define CORDON_CALL_LOCK_H

/* A name for a call's temp dir in the runner dir dir, DIR/call-XXXXXX
 * (random), that nothing has there now; malloc'd, or NULL with errno. */
char *call_lock_name(const char *dir);

/* In the runner dir dir (this user's, private): remove what dead calls
 * left, then make this call's temp dir tmp (a name from call_lock_name;
 * one that exists by now is not taken) and its held lock.  The lock's
 * descriptor, to keep open until the temp dir is gone; -1 with errno and
 * *what (a static string naming the step) when a step fails. */
int call_lock_make(const char *dir, const char *tmp, const char **what);

/* Remove the call's temp dir, then its lock file, then let the lock go
 * (in that order, so that what a crash in between leaves is swept). */
void call_lock_release(const char *tmp, int fd);

#endif
