/* Signed policy bundles (docs/fleet.md, "Signed bundles"): a directory of
 * policy sources with a manifest that lists each one's SHA-256, the
 * bundle's version and its expiry, signed with `ssh-keygen -Y sign`.  The
 * manifest's signature is checked first (bundle_keys.c says which keys are
 * trusted), then its lines, then each source against its digest; the
 * policy is loaded from the bundle and every file the load read is checked
 * again against the manifest, so that nothing read after the check can
 * differ from what was signed.  Installing is in bundle_install.c. */
#include "config.h"

#include "bundle.h"
#include "check/policy.h"
#include "lang/load.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define MANIFEST_HEADER "cordon-bundle 1"
#define TIME_FORMAT "%Y-%m-%dT%H:%M:%SZ"

int bundle_read(const char *path, size_t max, char **text, size_t *len)
{
	int err = load_read_path(path, text, len, NULL);
	if (err)
		return err;
	if (*len > max) {
		free(*text);
		*text = NULL;
		return EFBIG;
	}
	return 0;
}

/* ---- time ----------------------------------------------------------------- */

/* Exactly YYYY-MM-DDTHH:MM:SSZ, or YYYY-MM-DD (midnight UTC) when
 * date_alone, that names a real instant. */
static int parse_time(const char *s, size_t n, bool date_alone, long long *t)
{
	struct tm tm = { 0 }, back;
	int y, mo, d, h = 0, mi = 0, sec = 0, used = 0;
	char buf[32];
	time_t v;
	if (n >= sizeof(buf))
		return -1;
	memcpy(buf, s, n);
	buf[n] = '\0';
	if (date_alone && n == 10 && sscanf(buf, "%4d-%2d-%2d%n", &y, &mo, &d, &used) == 3 &&
	    used == 10)
		;
	else if (n != 20 || sscanf(buf, "%4d-%2d-%2dT%2d:%2d:%2dZ%n", &y, &mo, &d, &h, &mi, &sec,
				   &used) != 6 ||
		 used != 20)
		return -1;
	for (size_t i = 0; i < n; i++)
		if (!strchr("0123456789-:TZ", buf[i]))
			return -1;
	tm.tm_year = y - 1900, tm.tm_mon = mo - 1, tm.tm_mday = d;
	tm.tm_hour = h, tm.tm_min = mi, tm.tm_sec = sec;
	v = timegm(&tm);
	if (v <= 0 || !gmtime_r(&v, &back) || back.tm_year != y - 1900 || back.tm_mon != mo - 1 ||
	    back.tm_mday != d || back.tm_hour != h || back.tm_min != mi || back.tm_sec != sec)
		return -1;
	*t = (long long)v;
	return 0;
}

int cordon_bundle_parse_time(const char *s, long long *t)
{
	return parse_time(s, strlen(s), true, t);
}

static char *format_time(long long t)
{
	char buf[32];
	time_t v = (time_t)t;
	struct tm tm;
	if (!gmtime_r(&v, &tm) || !strftime(buf, sizeof(buf), TIME_FORMAT, &tm))
		return xstrdup("?");
	return xstrdup(buf);
}

/* ---- the manifest --------------------------------------------------------- */

/* A source's name: a plain file name the loader finds beside the policy. */
static bool name_ok(const char *s, size_t n)
{
	if (n == 0 || n > 128 || s[0] == '.')
		return false;
	for (size_t i = 0; i < n; i++)
		if (!((s[i] >= 'a' && s[i] <= 'z') || (s[i] >= 'A' && s[i] <= 'Z') ||
		      (s[i] >= '0' && s[i] <= '9') || s[i] == '.' || s[i] == '_' || s[i] == '-'))
			return false;
	return !(n == strlen(BUNDLE_MANIFEST) && memcmp(s, BUNDLE_MANIFEST, n) == 0) &&
	       !(n == strlen(BUNDLE_SIGNATURE) && memcmp(s, BUNDLE_SIGNATURE, n) == 0);
}

static bool hex_ok(const char *s, size_t n)
{
	if (n != DIGEST_HEX_LEN)
		return false;
	for (size_t i = 0; i < n; i++)
		if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f')))
			return false;
	return true;
}

/* A version: 1 to 19 digits, no leading zero. */
static bool version_ok(const char *s, size_t n, unsigned long long *v)
{
	if (n == 0 || n > 19 || s[0] == '0')
		return false;
	*v = 0;
	for (size_t i = 0; i < n; i++) {
		if (s[i] < '0' || s[i] > '9')
			return false;
		*v = *v * 10 + (unsigned)(s[i] - '0');
	}
	return true;
}

static bool starts(const char *line, size_t n, const char *word)
{
	size_t k = strlen(word);
	return n > k && memcmp(line, word, k) == 0 && line[k] == ' ';
}

/* One "source HEX NAME" line. */
static int source_line(struct cordon_bundle *b, const char *s, size_t n)
{
	const char *name;
	struct bundle_source src = { 0 };
	if (n < DIGEST_HEX_LEN + 2 || !hex_ok(s, DIGEST_HEX_LEN) || s[DIGEST_HEX_LEN] != ' ')
		return -1;
	name = s + DIGEST_HEX_LEN + 1;
	n -= DIGEST_HEX_LEN + 1;
	if (!name_ok(name, n) || b->nsrc >= BUNDLE_MAX_SOURCES)
		return -1;
	for (size_t i = 0; i < b->nsrc; i++)
		if (strlen(b->src[i].name) == n && memcmp(b->src[i].name, name, n) == 0)
			return -1;
	memcpy(src.digest, s, DIGEST_HEX_LEN);
	src.digest[DIGEST_HEX_LEN] = '\0';
	src.name = xstrndup(name, n);
	b->src = xrealloc(b->src, (b->nsrc + 1) * sizeof(*b->src));
	b->src[b->nsrc++] = src;
	return 0;
}

/* What the manifest's line may be in each state, for the error. */
enum manifest_state { M_HEADER, M_VERSION, M_EXPIRES, M_SOURCES };
static const char *const manifest_expected[] = {
	[M_HEADER] = "'" MANIFEST_HEADER "'",
	[M_VERSION] = "'version N' (N from 1, no leading zero)",
	[M_EXPIRES] = "'expires YYYY-MM-DDTHH:MM:SSZ' or 'source SHA256 NAME'",
	[M_SOURCES] = "'source SHA256 NAME' (lowercase hex; a plain file name, once)",
};

/* One line in state *st: 0, the state moved on, or -1. */
static int manifest_line(struct cordon_bundle *b, const char *p, size_t n,
			 enum manifest_state *st)
{
	switch (*st) {
	case M_HEADER:
		*st = M_VERSION;
		return n == strlen(MANIFEST_HEADER) && memcmp(p, MANIFEST_HEADER, n) == 0 ? 0 : -1;
	case M_VERSION:
		*st = M_EXPIRES;
		return starts(p, n, "version") && version_ok(p + 8, n - 8, &b->version) ? 0 : -1;
	case M_EXPIRES:
		*st = M_SOURCES;
		if (starts(p, n, "expires"))
			return parse_time(p + 8, n - 8, false, &b->expires);
		return starts(p, n, "source") && source_line(b, p + 7, n - 7) == 0 ? 0 : -1;
	case M_SOURCES:
		*st = M_SOURCES;
		return starts(p, n, "source") && source_line(b, p + 7, n - 7) == 0 ? 0 : -1;
	}
	return -1;
}

/* The manifest's lines, in order: the header, the version, an optional
 * expiry, one or more sources; each ends with a newline, nothing else. */
int bundle_manifest_parse(struct cordon_bundle *b, char **err)
{
	const char *p = b->manifest, *end = p + b->manifest_len;
	unsigned lineno = 0;
	enum manifest_state st = M_HEADER;
	if (memchr(p, '\0', b->manifest_len) || memchr(p, '\r', b->manifest_len)) {
		*err = xasprintf("%s/%s: the manifest holds a NUL or a carriage return", b->dir,
				 BUNDLE_MANIFEST);
		return -1;
	}
	for (; p < end; lineno++) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		enum manifest_state was = st;
		if (!nl) {
			*err = xasprintf("%s/%s:%u: the last line does not end with a newline",
					 b->dir, BUNDLE_MANIFEST, lineno + 1);
			return -1;
		}
		if (manifest_line(b, p, (size_t)(nl - p), &st) != 0) {
			*err = xasprintf("%s/%s:%u: expected %s", b->dir, BUNDLE_MANIFEST, lineno + 1,
					 manifest_expected[was]);
			return -1;
		}
		p = nl + 1;
	}
	if (b->nsrc == 0) {
		*err = xasprintf("%s/%s: no source: a bundle holds a policy", b->dir, BUNDLE_MANIFEST);
		return -1;
	}
	return 0;
}

/* ---- accessors ------------------------------------------------------------ */

void cordon_bundle_free(cordon_bundle *b)
{
	if (!b)
		return;
	for (size_t i = 0; i < b->nsrc; i++) {
		free(b->src[i].name);
		free(b->src[i].text);
	}
	free(b->src);
	free(b->dir);
	free(b->manifest);
	free(b->sig);
	free(b->signer);
	free(b->key);
	free(b);
}

unsigned long long cordon_bundle_version(const cordon_bundle *b)
{
	return b->version;
}

long long cordon_bundle_expires(const cordon_bundle *b)
{
	return b->expires;
}

const char *cordon_bundle_signer(const cordon_bundle *b)
{
	return b->signer;
}

const char *cordon_bundle_key(const cordon_bundle *b)
{
	return b->key;
}

size_t cordon_bundle_source_count(const cordon_bundle *b)
{
	return b->nsrc;
}

const char *cordon_bundle_source_name(const cordon_bundle *b, size_t i)
{
	return i < b->nsrc ? b->src[i].name : NULL;
}

/* ---- verifying ------------------------------------------------------------ */

static int read_in(const char *dir, const char *name, size_t max, char **text, size_t *len,
		   char **err)
{
	char *path = xasprintf("%s/%s", dir, name);
	int e = bundle_read(path, max, text, len);
	if (e)
		*err = xasprintf("cannot read %s: %s", path, strerror(e));
	free(path);
	return e ? -1 : 0;
}

/* The manifest's signature: made in the bundle namespace by a trusted key. */
static int check_signature(struct cordon_bundle *b, const char *keys_name, const char *keys,
			   size_t keys_len, char **err)
{
	char *path = xasprintf("%s/%s", b->dir, BUNDLE_SIGNATURE), *why = NULL, *type;
	uint8_t *blob = NULL;
	size_t blob_len;
	struct sshsig sig;
	int e = bundle_read(path, SSHSIG_MAX_ARMORED, &b->sig, &b->sig_len), rc = -1;

	if (e == ENOENT)
		*err = xasprintf("the bundle is not signed: %s does not exist (ssh-keygen -Y sign "
				 "-n %s -f KEY %s/%s)",
				 path, CORDON_BUNDLE_NAMESPACE, b->dir, BUNDLE_MANIFEST);
	else if (e)
		*err = xasprintf("cannot read %s: %s", path, strerror(e));
	else if (sshsig_dearmor(b->sig, b->sig_len, &blob, &blob_len, &why) != 0 ||
		 sshsig_parse(blob, blob_len, &sig, &why) != 0)
		*err = xasprintf("%s: %s", path, why);
	else if (bundle_keys_trust(keys_name, keys, keys_len, &sig, &b->signer, &why) != 0)
		*err = xasprintf("%s: %s", path, why);
	else if ((e = sshsig_verify(&sig, CORDON_BUNDLE_NAMESPACE, b->manifest, b->manifest_len,
				    &why)) != 0)
		*err = e == SSHSIG_BAD_SIGNATURE
			       ? xasprintf("%s: %s: %s/%s is not what was signed (changed after "
					   "signing?)",
					   path, why, b->dir, BUNDLE_MANIFEST)
			       : xasprintf("%s: %s", path, why);
	else {
		char *fp = sshsig_fingerprint(sig.pubkey, sig.pubkey_len);
		type = sshsig_key_type(sig.pubkey, sig.pubkey_len);
		b->key = xasprintf("%s %s", type ? type : "?", fp);
		free(type);
		free(fp);
		rc = 0;
	}
	free(why);
	free(blob);
	free(path);
	return rc;
}

/* Each source, read and compared with its digest. */
static int check_sources(struct cordon_bundle *b, char **err)
{
	for (size_t i = 0; i < b->nsrc; i++) {
		struct bundle_source *s = &b->src[i];
		char got[DIGEST_HEX_LEN + 1];
		if (read_in(b->dir, s->name, LOAD_MAX_FILE_BYTES, &s->text, &s->len, err) != 0)
			return -1;
		digest_hex(s->text, s->len, got);
		if (strcmp(got, s->digest) != 0) {
			*err = xasprintf("%s/%s has SHA-256 %s, and the manifest says %s: the source "
					 "changed after the bundle was made",
					 b->dir, s->name, got, s->digest);
			return -1;
		}
	}
	return 0;
}

static int check_dates(const struct cordon_bundle *b, unsigned long long min_version,
		       char **err)
{
	if (b->version < min_version) {
		*err = xasprintf("%s is version %llu, older than version %llu, the highest installed "
				 "here: a bundle never goes back (rollback)",
				 b->dir, b->version, min_version);
		return -1;
	}
	if (b->expires && (long long)time(NULL) >= b->expires) {
		char *when = format_time(b->expires);
		*err = xasprintf("%s expired at %s", b->dir, when);
		free(when);
		return -1;
	}
	return 0;
}

cordon_bundle *bundle_verify_keys(const char *dir, const char *keys_name, const char *keys,
				  size_t keys_len, unsigned long long min_version, char **err)
{
	struct cordon_bundle *b = xcalloc(1, sizeof(*b));
	b->dir = xstrdup(dir);
	if (read_in(dir, BUNDLE_MANIFEST, BUNDLE_MAX_MANIFEST, &b->manifest, &b->manifest_len,
		    err) != 0 ||
	    (keys && check_signature(b, keys_name, keys, keys_len, err) != 0) ||
	    bundle_manifest_parse(b, err) != 0 || check_dates(b, min_version, err) != 0 ||
	    check_sources(b, err) != 0) {
		cordon_bundle_free(b);
		return NULL;
	}
	return b;
}

cordon_bundle *cordon_bundle_verify(const char *dir, const char *keys,
				    unsigned long long min_version, char **err)
{
	char *text = NULL;
	size_t len = 0;
	cordon_bundle *b;
	int e;
	if (keys && (e = bundle_read(keys, BUNDLE_MAX_MANIFEST, &text, &len)) != 0) {
		*err = xasprintf("cannot read the trusted keys %s: %s", keys, strerror(e));
		return NULL;
	}
	b = bundle_verify_keys(dir, keys, keys ? text : NULL, len, min_version, err);
	free(text);
	return b;
}

/* ---- loading -------------------------------------------------------------- */

/* Is the file the load read one of the bundle's sources, byte for byte? */
static int loaded_file_ok(const cordon_bundle *b, const struct src_file *f, char **err)
{
	char got[DIGEST_HEX_LEN + 1];
	if (!f->path)
		return 0; /* shipped in cordon */
	digest_hex(f->text, f->len, got);
	for (size_t i = 0; i < b->nsrc; i++) {
		char *path = xasprintf("%s/%s", b->dir, b->src[i].name);
		bool same = strcmp(path, f->path) == 0;
		free(path);
		if (same && strcmp(got, b->src[i].digest) == 0)
			return 0;
		if (same) {
			*err = xasprintf("%s changed while it was read (SHA-256 %s, the manifest "
					 "says %s)",
					 f->path, got, b->src[i].digest);
			return -1;
		}
	}
	*err = xasprintf("the bundle's policy reads %s, which is not one of its sources "
			 "(an include names a file the manifest does not list)",
			 f->path);
	return -1;
}

cordon_policy *cordon_bundle_load(const cordon_bundle *b, char **err)
{
	char *path = xasprintf("%s/%s", b->dir, b->src[0].name);
	cordon_policy *p = cordon_policy_load_file(path);
	free(path);
	for (size_t i = 0; i < p->sm.n; i++)
		if (loaded_file_ok(b, p->sm.files[i], err) != 0) {
			cordon_policy_free(p);
			return NULL;
		}
	return p;
}

/* ---- making one ----------------------------------------------------------- */

static const char *base_name(const char *path)
{
	const char *slash = strrchr(path, '/');
	return slash ? slash + 1 : path;
}

int bundle_write_file(const char *dir, const char *name, const char *text, size_t len,
		      char **err)
{
	char *path = xasprintf("%s/%s", dir, name);
	int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0644);
	size_t off = 0;
	/* Readable by every user whatever root's umask: every cordon of
	 * the machine reads and verifies the installed bundle. */
	if (fd >= 0 && fchmod(fd, 0644) != 0) {
		close(fd);
		fd = -1;
	}
	while (fd >= 0 && off < len) {
		ssize_t w = write(fd, text + off, len - off);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			break;
		off += (size_t)w;
	}
	if (fd < 0 || off < len || fsync(fd) != 0 || close(fd) != 0) {
		*err = xasprintf("cannot write %s: %s", path, strerror(errno ? errno : EIO));
		if (fd >= 0)
			close(fd);
		free(path);
		return -1;
	}
	free(path);
	return 0;
}

/* The sources named by files, read and checked for names. */
static int read_sources(struct cordon_bundle *b, char *const *files, size_t n, char **err)
{
	if (n == 0 || n > BUNDLE_MAX_SOURCES) {
		*err = xasprintf("a bundle holds from 1 to %d files", BUNDLE_MAX_SOURCES);
		return -1;
	}
	b->src = xcalloc(n, sizeof(*b->src));
	for (size_t i = 0; i < n; i++) {
		const char *name = base_name(files[i]);
		struct bundle_source *s = &b->src[b->nsrc++];
		int e;
		if (!name_ok(name, strlen(name))) {
			*err = xasprintf("%s: a source's name is a plain file name of letters, "
					 "digits, '.', '_' and '-', not starting with '.' and not "
					 "'%s' or '%s'",
					 files[i], BUNDLE_MANIFEST, BUNDLE_SIGNATURE);
			return -1;
		}
		for (size_t k = 0; k < i; k++)
			if (strcmp(b->src[k].name, name) == 0) {
				*err = xasprintf("%s: another file of the bundle is named '%s'",
						 files[i], name);
				return -1;
			}
		s->name = xstrdup(name);
		if ((e = bundle_read(files[i], LOAD_MAX_FILE_BYTES, &s->text, &s->len)) != 0) {
			*err = xasprintf("cannot read %s: %s", files[i], strerror(e));
			return -1;
		}
		digest_hex(s->text, s->len, s->digest);
	}
	return 0;
}

static char *manifest_text(const struct cordon_bundle *b)
{
	struct strbuf sb;
	sb_init(&sb);
	sb_addf(&sb, "%s\nversion %llu\n", MANIFEST_HEADER, b->version);
	if (b->expires) {
		char *when = format_time(b->expires);
		sb_addf(&sb, "expires %s\n", when);
		free(when);
	}
	for (size_t i = 0; i < b->nsrc; i++)
		sb_addf(&sb, "source %s %s\n", b->src[i].digest, b->src[i].name);
	return sb_steal(&sb);
}

int cordon_bundle_create(const char *out, unsigned long long version, long long expires,
			 char *const *files, size_t nfiles, char **err)
{
	struct cordon_bundle *b = xcalloc(1, sizeof(*b));
	char *manifest = NULL;
	int rc = -1;
	b->version = version;
	b->expires = expires;
	if (version == 0 || version > 9999999999999999999ULL)
		*err = xasprintf("the version is a number from 1 to 9999999999999999999");
	else if (expires && expires <= (long long)time(NULL))
		*err = xasprintf("the expiry is already past");
	else if (read_sources(b, files, nfiles, err) == 0) {
		manifest = manifest_text(b);
		if (mkdir(out, 0755) != 0)
			*err = xasprintf("cannot make %s: %s", out, strerror(errno));
		else
			rc = 0;
		for (size_t i = 0; rc == 0 && i < b->nsrc; i++)
			rc = bundle_write_file(out, b->src[i].name, b->src[i].text, b->src[i].len, err);
		if (rc == 0)
			rc = bundle_write_file(out, BUNDLE_MANIFEST, manifest, strlen(manifest), err);
	}
	free(manifest);
	cordon_bundle_free(b);
	return rc;
}
