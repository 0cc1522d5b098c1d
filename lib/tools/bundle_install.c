/* The installed bundle (docs/fleet.md, "Signed bundles"), under confdir
 * (SYSCONFDIR/cordon):
 *
 *     allowed_signers    the trusted keys; that it exists requires bundles
 *     bundle             a link to bundles/VERSION, the installed bundle
 *     bundles/VERSION/   a bundle: manifest, manifest.sig, the sources
 *     bundle.version     the highest version installed, so that an older
 *                        bundle put back in its place is refused
 *
 * An install writes the new bundle into a directory of its own and syncs
 * it, then renames a new link over `bundle`: a load sees the old bundle or
 * the new one, never a mixture, and a failure at any step leaves the old
 * one installed.  The recorded version is raised after the link, so that a
 * crash between the two leaves a bundle that loads rather than none. */
#include "config.h"

#include "bundle.h"
#include "lang/load.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* A file only root may change, read whole: the trusted keys and the
 * recorded version decide what every user's cordon accepts.  0, -1 with
 * *err, or ENOENT (nothing in *err) when it does not exist. */
static int read_root_file(const char *path, size_t max, char **text, size_t *len, char **err)
{
	struct stat st;
	int e = 0, fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
	if (fd < 0 && errno == ENOENT)
		return ENOENT;
	if (fd < 0 || fstat(fd, &st) != 0)
		e = errno;
	else if (!S_ISREG(st.st_mode))
		e = EINVAL;
	else if (st.st_uid != 0 || (st.st_mode & 022)) {
		*err = xasprintf("%s must belong to root and be writable by no one else (it is uid "
				 "%u, mode %04o)",
				 path, (unsigned)st.st_uid, (unsigned)(st.st_mode & 07777));
		close(fd);
		return -1;
	} else if (!(e = load_read_fd(fd, text, len)) && *len > max) {
		free(*text);
		*text = NULL;
		e = EFBIG;
	}
	if (fd >= 0)
		close(fd);
	if (e) {
		*err = xasprintf("cannot read %s: %s", path, strerror(e));
		return -1;
	}
	return 0;
}

bool cordon_bundle_required(const char *confdir)
{
	char *keys = xasprintf("%s/%s", confdir, BUNDLE_KEYS);
	struct stat st;
	bool required = lstat(keys, &st) == 0 || errno != ENOENT;
	free(keys);
	return required;
}

int cordon_bundle_recorded_version(const char *confdir, unsigned long long *version, char **err)
{
	char *path = xasprintf("%s/%s", confdir, BUNDLE_STATE), *text = NULL, *end;
	size_t len;
	int rc = read_root_file(path, 64, &text, &len, err);
	*version = 0;
	if (rc == ENOENT)
		rc = 0;
	else if (rc == 0) {
		errno = 0;
		*version = strtoull(text, &end, 10);
		if (errno || end == text || text[0] < '1' || text[0] > '9' || strcmp(end, "\n") != 0) {
			*err = xasprintf("%s does not hold a version and a newline", path);
			rc = -1;
		}
	}
	free(text);
	free(path);
	return rc;
}

/* The installed bundle's directory, its link resolved once, so that a
 * load reads one bundle even while another is installed. */
static char *installed_dir(const char *confdir, char **err)
{
	char *link = xasprintf("%s/%s", confdir, BUNDLE_LINK), *dir = realpath(link, NULL);
	if (!dir && errno == ENOENT)
		*err = xasprintf("signed bundles are required here (%s/%s exists) and none is "
				 "installed at %s (cordon bundle install BUNDLE)",
				 confdir, BUNDLE_KEYS, link);
	else if (!dir)
		*err = xasprintf("cannot resolve %s: %s", link, strerror(errno));
	free(link);
	return dir;
}

cordon_policy *cordon_bundle_load_installed(const char *confdir, char **err)
{
	char *keys_path = xasprintf("%s/%s", confdir, BUNDLE_KEYS), *keys = NULL, *dir = NULL;
	size_t keys_len = 0;
	unsigned long long floor = 0;
	cordon_bundle *b = NULL;
	cordon_policy *p = NULL;
	int rc = read_root_file(keys_path, BUNDLE_MAX_MANIFEST, &keys, &keys_len, err);
	if (rc == ENOENT)
		*err = xasprintf("cannot read %s: %s", keys_path, strerror(ENOENT));
	if (rc == 0 && cordon_bundle_recorded_version(confdir, &floor, err) == 0 &&
	    (dir = installed_dir(confdir, err)) &&
	    (b = bundle_verify_keys(dir, keys_path, keys, keys_len, floor, err)))
		p = cordon_bundle_load(b, err);
	cordon_bundle_free(b);
	free(dir);
	free(keys);
	free(keys_path);
	return p;
}

/* ---- installing ----------------------------------------------------------- */

static int sync_dir(const char *dir)
{
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC), rc;
	if (fd < 0)
		return -1;
	rc = fsync(fd);
	close(fd);
	return rc;
}

/* Remove a bundle's directory: its files, then itself (it has no others). */
static void remove_tree(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	while (d && (e = readdir(d))) {
		if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
			continue;
		char *path = xasprintf("%s/%s", dir, e->d_name);
		unlink(path);
		free(path);
	}
	if (d)
		closedir(d);
	rmdir(dir);
}

/* The bundle's files in a new directory of store, synced: its path. */
static char *write_bundle(const cordon_bundle *b, const char *store, char **err)
{
	char *tmp = xasprintf("%s/.new-XXXXXX", store);
	int rc = 0;
	if (!mkdtemp(tmp) || chmod(tmp, 0755) != 0) {
		*err = xasprintf("cannot make a directory in %s: %s", store, strerror(errno));
		free(tmp);
		return NULL;
	}
	rc = bundle_write_file(tmp, BUNDLE_MANIFEST, b->manifest, b->manifest_len, err);
	if (rc == 0)
		rc = bundle_write_file(tmp, BUNDLE_SIGNATURE, b->sig, b->sig_len, err);
	for (size_t i = 0; rc == 0 && i < b->nsrc; i++)
		rc = bundle_write_file(tmp, b->src[i].name, b->src[i].text, b->src[i].len, err);
	if (rc == 0 && sync_dir(tmp) != 0) {
		*err = xasprintf("cannot sync %s: %s", tmp, strerror(errno));
		rc = -1;
	}
	if (rc != 0) {
		remove_tree(tmp);
		free(tmp);
		return NULL;
	}
	return tmp;
}

/* Point confdir/bundle at bundles/VERSION: a new link renamed over it. */
static int switch_link(const char *confdir, unsigned long long version, char **err)
{
	char *target = xasprintf("%s/%llu", BUNDLE_STORE, version);
	char *tmp = xasprintf("%s/.%s.new", confdir, BUNDLE_LINK);
	char *link = xasprintf("%s/%s", confdir, BUNDLE_LINK);
	int rc = 0;
	unlink(tmp);
	if (symlink(target, tmp) != 0 || rename(tmp, link) != 0 || sync_dir(confdir) != 0) {
		*err = xasprintf("cannot point %s at %s: %s", link, target, strerror(errno));
		unlink(tmp);
		rc = -1;
	}
	free(target);
	free(tmp);
	free(link);
	return rc;
}

static int record_version(const char *confdir, unsigned long long version, char **err)
{
	char *tmp = xasprintf(".%s.new", BUNDLE_STATE), *text = xasprintf("%llu\n", version);
	char *tmp_path = xasprintf("%s/%s", confdir, tmp), *path;
	int rc;
	unlink(tmp_path);
	rc = bundle_write_file(confdir, tmp, text, strlen(text), err);
	path = xasprintf("%s/%s", confdir, BUNDLE_STATE);
	if (rc == 0 && (rename(tmp_path, path) != 0 || sync_dir(confdir) != 0)) {
		*err = xasprintf("cannot write %s: %s", path, strerror(errno));
		rc = -1;
	}
	if (rc != 0)
		unlink(tmp_path);
	free(path);
	free(tmp_path);
	free(tmp);
	free(text);
	return rc;
}

/* Remove what no link names: every bundle but the installed one and the
 * one it replaced (kept), and what an interrupted install left. */
static void prune(const char *store, const char *keep, const char *previous)
{
	DIR *d = opendir(store);
	struct dirent *e;
	while (d && (e = readdir(d))) {
		if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0 ||
		    strcmp(e->d_name, keep) == 0 || (previous && strcmp(e->d_name, previous) == 0))
			continue;
		char *path = xasprintf("%s/%s", store, e->d_name);
		remove_tree(path);
		free(path);
	}
	if (d)
		closedir(d);
}

/* The installed bundle in dir, when its version is b's: 1 when it is b
 * (nothing to do), -1 when it is another manifest (refused), else 0. */
static int same_version_installed(const cordon_bundle *b, const char *dir, char **err)
{
	cordon_bundle *probe = xcalloc(1, sizeof(*probe));
	char *path = xasprintf("%s/%s", dir, BUNDLE_MANIFEST), *ignored = NULL;
	int rc = 0;
	probe->dir = xstrdup(dir);
	if (bundle_read(path, BUNDLE_MAX_MANIFEST, &probe->manifest, &probe->manifest_len) == 0 &&
	    bundle_manifest_parse(probe, &ignored) == 0 && probe->version == b->version) {
		rc = probe->manifest_len == b->manifest_len &&
				     memcmp(probe->manifest, b->manifest, b->manifest_len) == 0
			     ? 1
			     : -1;
		if (rc < 0)
			*err = xasprintf("version %llu is installed with another manifest (%s): "
					 "give the new bundle a higher version",
					 b->version, dir);
	}
	free(ignored);
	free(path);
	cordon_bundle_free(probe);
	return rc;
}

static const char *base_of(const char *path)
{
	const char *s = strrchr(path, '/');
	return s ? s + 1 : path;
}

/* The written bundle tmp becomes store/VERSION, and the link points at
 * it; on a failure before the link, the bundle installed stays, and what
 * was written is removed.  Returns 0 or -1. */
static int put_in_place(const cordon_bundle *b, const char *confdir, const char *tmp,
			const char *final, unsigned long long floor, char **err)
{
	char *store = xasprintf("%s/%s", confdir, BUNDLE_STORE);
	int rc = -1;
	remove_tree(final); /* what an interrupted install of this version left */
	if (rename(tmp, final) != 0 || sync_dir(store) != 0) {
		*err = xasprintf("cannot move %s to %s: %s", tmp, final, strerror(errno));
		remove_tree(tmp);
		remove_tree(final);
	} else if (switch_link(confdir, b->version, err) != 0) {
		remove_tree(final);
	} else if (record_version(confdir, b->version > floor ? b->version : floor, err) != 0) {
		/* Installed, but not recorded: the bundle loads, and the next
		 * install records it. */
		char *why = *err;
		*err = xasprintf("version %llu is installed, but %s", b->version, why);
		free(why);
	} else {
		rc = 0;
	}
	free(store);
	return rc;
}

int cordon_bundle_install(const cordon_bundle *b, const char *confdir, char **err)
{
	unsigned long long floor = 0;
	char *store = xasprintf("%s/%s", confdir, BUNDLE_STORE), *ignored = NULL;
	char *old = installed_dir(confdir, &ignored), *tmp = NULL;
	char *final = xasprintf("%s/%llu", store, b->version);
	int rc = -1, same;
	free(ignored);
	if (!b->sig)
		*err = xstrdup("only a verified, signed bundle is installed");
	else if (cordon_bundle_recorded_version(confdir, &floor, err) != 0)
		;
	else if (b->version < floor)
		*err = xasprintf("%s is version %llu, older than version %llu, the highest installed "
				 "here: a bundle never goes back (rollback)",
				 b->dir, b->version, floor);
	else if (old && (same = same_version_installed(b, old, err)) != 0)
		rc = same;
	else if (old && strcmp(old, final) == 0)
		*err = xasprintf("%s is installed and its manifest cannot be read: remove %s/%s "
				 "first",
				 old, confdir, BUNDLE_LINK);
	else if ((mkdir(store, 0755) != 0 && errno != EEXIST) || chmod(store, 0755) != 0)
		*err = xasprintf("cannot make %s: %s", store, strerror(errno));
	else if (!(tmp = write_bundle(b, store, err)))
		;
	else if ((rc = put_in_place(b, confdir, tmp, final, floor, err)) == 0)
		prune(store, base_of(final), old ? base_of(old) : NULL);
	free(old);
	free(tmp);
	free(final);
	free(store);
	return rc;
}
