/* The keys a bundle may be signed with: an allowed-signers file in
 * OpenSSH's format (ssh-keygen(1), ALLOWED SIGNERS): one key a line,
 *
 *     PRINCIPALS [OPTIONS] KEYTYPE BASE64 [COMMENT]
 *
 * with blank lines and '#' comments.  A key is trusted when the signature's
 * public key is the line's, byte for byte, and the line's options allow it:
 * namespaces="..." must match cordon-policy, valid-after and valid-before
 * must hold now.  A cert-authority line trusts certificates, which cordon
 * does not verify, so it trusts nothing here; an option cordon does not
 * know makes its line trust nothing.  A malformed line is an error: the
 * file is what decides who may change every machine's policy, and a
 * mistake in it should be seen, not skipped. */
#include "config.h"

#include "bundle.h"

#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

/* The key types of OpenSSH: a field that is one of them is the key type,
 * otherwise it is the options. */
static const char *const key_types[] = {
	"ssh-ed25519", "ssh-rsa", "ssh-dss", "ecdsa-sha2-nistp256", "ecdsa-sha2-nistp384",
	"ecdsa-sha2-nistp521", "sk-ssh-ed25519@openssh.com", "sk-ecdsa-sha2-nistp256@openssh.com",
	"ssh-ed25519-cert-v01@openssh.com", "ssh-rsa-cert-v01@openssh.com",
};

struct field {
	const char *p;
	size_t n;
};

/* The next blank-separated field of [*s, end), where "..." may hold
 * blanks; false at the end of the line or on an unclosed quote. */
static bool next_field(const char **s, const char *end, struct field *f)
{
	const char *p = *s;
	bool quoted = false;
	while (p < end && (*p == ' ' || *p == '\t'))
		p++;
	f->p = p;
	for (; p < end && (quoted || (*p != ' ' && *p != '\t')); p++)
		if (*p == '"')
			quoted = !quoted;
	f->n = (size_t)(p - f->p);
	*s = p;
	return f->n > 0 && !quoted;
}

static bool field_is(const struct field *f, const char *s)
{
	return f->n == strlen(s) && memcmp(f->p, s, f->n) == 0;
}

static bool is_key_type(const struct field *f)
{
	for (size_t i = 0; i < ARRAY_SIZE(key_types); i++)
		if (field_is(f, key_types[i]))
			return true;
	return false;
}

/* Does the pattern list (a,b*,!c) match the namespace? */
static bool namespace_allowed(const char *list)
{
	bool yes = false;
	char *copy = xstrdup(list), *save = NULL;
	for (char *pat = strtok_r(copy, ",", &save); pat; pat = strtok_r(NULL, ",", &save)) {
		bool neg = pat[0] == '!';
		if (fnmatch(pat + neg, CORDON_BUNDLE_NAMESPACE, 0) == 0) {
			if (neg) {
				yes = false;
				break;
			}
			yes = true;
		}
	}
	free(copy);
	return yes;
}

/* YYYYMMDD[Z] or YYYYMMDDHHMM[SS][Z], local time unless Z. */
static bool parse_stamp(const char *s, time_t *t)
{
	struct tm tm = { 0 };
	size_t n = strlen(s), digits = n;
	bool utc = n && s[n - 1] == 'Z';
	int v[6] = { 0 };
	static const int width[6] = { 4, 2, 2, 2, 2, 2 };
	digits -= utc;
	if (digits != 8 && digits != 12 && digits != 14)
		return false;
	for (size_t i = 0, at = 0; at < digits; at += (size_t)width[i++])
		for (int k = 0; k < width[i]; k++) {
			if (s[at + (size_t)k] < '0' || s[at + (size_t)k] > '9')
				return false;
			v[i] = v[i] * 10 + (s[at + (size_t)k] - '0');
		}
	tm.tm_year = v[0] - 1900, tm.tm_mon = v[1] - 1, tm.tm_mday = v[2];
	tm.tm_hour = v[3], tm.tm_min = v[4], tm.tm_sec = v[5];
	tm.tm_isdst = -1;
	*t = utc ? timegm(&tm) : mktime(&tm);
	return *t != (time_t)-1;
}

/* Why the options stop the line from trusting its key for a bundle now,
 * or NULL when they do not (malloc'd). */
static char *options_refuse(const struct field *opts)
{
	char *copy = xstrndup(opts->p, opts->n), *why = NULL, *p = copy;
	while (p && *p && !why) {
		char *end = p, *value;
		bool quoted = false;
		for (; *end && (quoted || *end != ','); end++)
			if (*end == '"')
				quoted = !quoted;
		char *next = *end ? end + 1 : NULL;
		*end = '\0';
		value = strchr(p, '=');
		if (value) {
			*value++ = '\0';
			size_t vn = strlen(value);
			if (vn < 2 || value[0] != '"' || value[vn - 1] != '"')
				why = xasprintf("option %s has no quoted value", p);
			else
				value[vn - 1] = '\0', value++;
		}
		time_t t, now = time(NULL);
		if (why)
			;
		else if (strcasecmp(p, "cert-authority") == 0 && !value)
			why = xstrdup("it is a certificate authority (cordon verifies plain keys)");
		else if (strcasecmp(p, "namespaces") == 0 && value) {
			if (!namespace_allowed(value))
				why = xasprintf("its namespaces=\"%s\" leave out %s", value,
						CORDON_BUNDLE_NAMESPACE);
		} else if (strcasecmp(p, "valid-after") == 0 && value) {
			if (!parse_stamp(value, &t) || now < t)
				why = xasprintf("it is valid after %s only", value);
		} else if (strcasecmp(p, "valid-before") == 0 && value) {
			if (!parse_stamp(value, &t) || now > t)
				why = xasprintf("it was valid before %s only", value);
		} else
			why = xasprintf("option '%s' is not one cordon knows", p);
		p = next;
	}
	free(copy);
	return why;
}

/* One line: -1 when malformed (*err), 1 when it trusts the key
 * (*principals), 2 when the key is the line's and its options refuse it
 * (*why, replaced), 0 when the key is not the line's. */
static int trust_line(const char *line, const char *end, const struct sshsig *sig,
		      char **principals, char **why, char **err)
{
	struct field who, opts = { NULL, 0 }, type, b64;
	uint8_t *key = NULL;
	size_t key_len;
	char *key_type, *refusal;
	int rc = 0;
	if (!next_field(&line, end, &who) || !next_field(&line, end, &type))
		return *err = xstrdup("expected PRINCIPALS [OPTIONS] KEYTYPE BASE64"), -1;
	if (!is_key_type(&type)) {
		opts = type;
		if (!next_field(&line, end, &type))
			return *err = xstrdup("expected a key type after the options"), -1;
	}
	if (!next_field(&line, end, &b64) ||
	    sshsig_base64_decode(b64.p, b64.n, &key, &key_len) != 0)
		return *err = xstrdup("expected the key in base64 after its type"), -1;
	key_type = sshsig_key_type(key, key_len);
	if (!key_type || !field_is(&type, key_type)) {
		*err = xasprintf("the key is a %s key, not %.*s", key_type ? key_type : "malformed",
				 (int)type.n, type.p);
		rc = -1;
	} else if (key_len == sig->pubkey_len && memcmp(key, sig->pubkey, key_len) == 0) {
		refusal = opts.n ? options_refuse(&opts) : NULL;
		if (refusal) {
			free(*why);
			*why = refusal;
			rc = 2;
		} else {
			*principals = xstrndup(who.p, who.n);
			rc = 1;
		}
	}
	free(key_type);
	free(key);
	return rc;
}

int bundle_keys_trust(const char *name, const char *text, size_t len, const struct sshsig *sig,
		      char **principals, char **err)
{
	const char *p = text, *end = text + len;
	char *why = NULL, *bad = NULL, *fp, *type;
	unsigned lineno = 0, why_line = 0;
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p)), *eol = nl ? nl : end;
		const char *s = p;
		lineno++;
		p = nl ? nl + 1 : end;
		while (s < eol && (*s == ' ' || *s == '\t'))
			s++;
		if (eol > s && eol[-1] == '\r')
			eol--;
		if (s == eol || *s == '#')
			continue;
		int rc = trust_line(s, eol, sig, principals, &why, &bad);
		if (rc == 2)
			why_line = lineno;
		if (rc < 0) {
			*err = xasprintf("%s:%u: %s", name, lineno, bad);
			free(bad);
			free(why);
			return -1;
		}
		if (rc == 1) {
			free(why);
			return 0;
		}
	}
	type = sshsig_key_type(sig->pubkey, sig->pubkey_len);
	fp = sshsig_fingerprint(sig->pubkey, sig->pubkey_len);
	if (why)
		*err = xasprintf("the key that signed it (%s %s) is not trusted for bundles: %s:%u: "
				 "%s",
				 type ? type : "?", fp, name, why_line, why);
	else
		*err = xasprintf("the key that signed it (%s %s) is not one of the trusted keys in %s",
				 type ? type : "?", fp, name);
	free(type);
	free(fp);
	free(why);
	return -1;
}
