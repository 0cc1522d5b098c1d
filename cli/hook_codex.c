/* Codex's hook trust.  Codex (0.171) runs a hooks.json entry only when
 * its config.toml records the entry's hash as trusted:
 *
 *   [hooks.state."/home/u/.codex/hooks.json:pre_tool_use:0:0"]
 *   trusted_hash = "sha256:..."
 *
 * The key is the hooks.json path, the event's label, the matcher group's
 * index in that event and the handler's index in the group (codex-rs
 * hooks/src/lib.rs, hook_key).  The hash is SHA-256 over the entry's
 * normalized identity as canonical JSON: object keys sorted, no blanks,
 * serde_json's string escapes (hooks/src/engine/discovery.rs,
 * command_hook_hash, and config's version_for_toml):
 *
 *   {"event_name":"pre_tool_use","hooks":[{"async":false,"command":"...",
 *    "timeout":30,"type":"command"}],"matcher":"..."}
 *
 * with "matcher" only when the group has one.  Without the record,
 * `codex exec` skips the hook without a word, which lets every call
 * through; install records it as Codex's own /hooks screen does, and
 * doctor compares it. */
#include "config.h"

#include "cli.h"
#include "hook.h"

#include <errno.h>
#include <limits.h>
#include <nettle/sha2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

char *codex_home(void)
{
	const char *env = getenv("CODEX_HOME"), *home = getenv("HOME");
	char real[PATH_MAX], *out;
	/* Codex resolves $CODEX_HOME; its default is $HOME/.codex as written. */
	if (env && *env)
		return realpath(env, real) ? strdup(real) : NULL;
	if (!home || home[0] != '/' || asprintf(&out, "%s/.codex", home) < 0)
		return NULL;
	return out;
}

static const char *event_label(const char *event)
{
	return !strcmp(event, "PreToolUse")	     ? "pre_tool_use"
	       : !strcmp(event, "PermissionRequest") ? "permission_request"
						     : NULL;
}

char *codex_trust_key(const char *hooks_path, const char *event, size_t group)
{
	char *key;
	const char *label = event_label(event);
	if (!label || asprintf(&key, "%s:%s:%zu:0", hooks_path, label, group) < 0)
		return NULL;
	return key;
}

/* ---- the identity's canonical JSON ------------------------------------------- */

struct buf {
	char *s;
	size_t len, cap;
};

static void put(struct buf *b, const char *s, size_t n)
{
	if (b->len + n + 1 > b->cap) {
		b->cap = (b->len + n + 1) * 2;
		b->s = realloc(b->s, b->cap);
		if (!b->s)
			abort();
	}
	memcpy(b->s + b->len, s, n);
	b->len += n;
	b->s[b->len] = '\0';
}

static void puts_(struct buf *b, const char *s)
{
	put(b, s, strlen(s));
}

/* A JSON string as serde_json writes it: '"' and '\' escaped, the short
 * escapes for \b \t \n \f \r, \u00xx (lower-case hex) for the other
 * control characters, everything else as it is (UTF-8 included). */
static void put_json_string(struct buf *b, const char *s)
{
	static const char hex[] = "0123456789abcdef";
	put(b, "\"", 1);
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		char esc[7] = { '\\', 0 };
		switch (*p) {
		case '"': esc[1] = '"'; break;
		case '\\': esc[1] = '\\'; break;
		case '\b': esc[1] = 'b'; break;
		case '\t': esc[1] = 't'; break;
		case '\n': esc[1] = 'n'; break;
		case '\f': esc[1] = 'f'; break;
		case '\r': esc[1] = 'r'; break;
		default:
			if (*p >= 0x20) {
				put(b, (const char *)p, 1);
				continue;
			}
			memcpy(esc + 1, "u00", 3);
			esc[4] = hex[*p >> 4];
			esc[5] = hex[*p & 15];
		}
		put(b, esc, strlen(esc));
	}
	put(b, "\"", 1);
}

char *codex_trust_hash(const char *event, const char *matcher, const char *command, long timeout)
{
	const char *label = event_label(event);
	struct buf b = { 0 };
	char num[32];
	if (!label)
		return NULL;
	puts_(&b, "{\"event_name\":");
	put_json_string(&b, label);
	puts_(&b, ",\"hooks\":[{\"async\":false,\"command\":");
	put_json_string(&b, command);
	/* Codex gives an entry without a timeout 600 s, and at least 1. */
	snprintf(num, sizeof(num), "%ld", timeout > 0 ? timeout : timeout == 0 ? 1 : 600);
	puts_(&b, ",\"timeout\":");
	puts_(&b, num);
	puts_(&b, ",\"type\":\"command\"}]");
	if (matcher) {
		puts_(&b, ",\"matcher\":");
		put_json_string(&b, matcher);
	}
	puts_(&b, "}");

	struct sha256_ctx c;
	uint8_t d[SHA256_DIGEST_SIZE];
	sha256_init(&c);
	sha256_update(&c, b.len, (const uint8_t *)b.s);
	sha256_digest(&c, sizeof(d), d);
	free(b.s);
	char *out = malloc(7 + 2 * sizeof(d) + 1);
	if (!out)
		abort();
	strcpy(out, "sha256:");
	for (size_t i = 0; i < sizeof(d); i++)
		sprintf(out + 7 + 2 * i, "%02x", d[i]);
	return out;
}

/* ---- config.toml: the one table cordon reads and writes ------------------------ */

/* The table header for a key: [hooks.state."KEY"], KEY a TOML basic string. */
static char *state_header(const char *key)
{
	struct buf b = { 0 };
	puts_(&b, "[hooks.state.\"");
	for (const char *p = key; *p; p++) {
		if (*p == '"' || *p == '\\')
			put(&b, "\\", 1);
		put(&b, p, 1);
	}
	puts_(&b, "\"]");
	return b.s;
}

/* The line's text without leading and trailing blanks. */
static size_t trimmed(const char *line, size_t len, const char **start)
{
	while (len && (*line == ' ' || *line == '\t'))
		line++, len--;
	while (len && (line[len - 1] == ' ' || line[len - 1] == '\t' || line[len - 1] == '\r'))
		len--;
	*start = line;
	return len;
}

/* Where the table for key starts (the header line) and where its body ends
 * (the next table header or the end), in text; false when it is not there. */
static bool find_state_table(const char *text, const char *key, size_t *head, size_t *body,
			     size_t *end)
{
	char *want = state_header(key);
	size_t wl = strlen(want);
	bool found = false;
	for (size_t at = 0; text[at];) {
		size_t len = strcspn(text + at, "\n");
		const char *t;
		size_t tl = trimmed(text + at, len, &t);
		if (found && tl && t[0] == '[') {
			*end = at;
			break;
		}
		if (!found && tl == wl && !memcmp(t, want, wl)) {
			found = true;
			*head = at;
			*body = at + len + (text[at + len] == '\n');
			*end = strlen(text);
		}
		at += len + (text[at + len] == '\n');
	}
	free(want);
	return found;
}

/* The trusted_hash line in [body, end), or false. */
static bool find_hash_line(const char *text, size_t body, size_t end, size_t *line, size_t *len)
{
	for (size_t at = body; at < end;) {
		size_t l = strcspn(text + at, "\n");
		const char *t;
		size_t tl = trimmed(text + at, l, &t);
		if (tl > 12 && !strncmp(t, "trusted_hash", 12) && strchr(" \t=", t[12])) {
			*line = at;
			*len = l;
			return true;
		}
		at += l + (text[at + l] == '\n');
	}
	return false;
}

char *codex_trust_read(const char *text, const char *key)
{
	size_t head, body, end, line, len;
	if (!text || !find_state_table(text, key, &head, &body, &end) ||
	    !find_hash_line(text, body, end, &line, &len))
		return NULL;
	const char *q = memchr(text + line, '"', len);
	const char *q2 = q ? memchr(q + 1, '"', len - (size_t)(q + 1 - (text + line))) : NULL;
	return q2 ? strndup(q + 1, (size_t)(q2 - q - 1)) : NULL;
}

/* Does the line (blanks trimmed) assign the name: `name =` or `name.`? */
static bool assigns(const char *t, size_t tl, const char *name)
{
	size_t n = strlen(name);
	if (tl <= n || strncmp(t, name, n) != 0)
		return false;
	for (t += n, tl -= n; tl && (*t == ' ' || *t == '\t'); t++, tl--)
		;
	return tl && (*t == '=' || *t == '.');
}

/* Is the key written anywhere but in its own table header, or hooks.state
 * made a value (an inline table) that a [hooks.state."KEY"] table would
 * redefine?  Then it is spelled in a way cordon does not edit. */
static bool key_elsewhere(const char *text, const char *key)
{
	size_t head, body, end, kl = strlen(key);
	bool own = find_state_table(text, key, &head, &body, &end);
	for (const char *p = text; (p = strstr(p, key)) != NULL; p += kl)
		if (!own || (size_t)(p - text) < head || (size_t)(p - text) >= body)
			return true;
	for (size_t at = 0; text[at];) {
		size_t len = strcspn(text + at, "\n");
		const char *t;
		size_t tl = trimmed(text + at, len, &t);
		if (assigns(t, tl, "hooks") || assigns(t, tl, "state") ||
		    assigns(t, tl, "hooks.state"))
			return true;
		at += len + (text[at + len] == '\n');
	}
	return false;
}

char *codex_trust_record(const char *text, const char *key, const char *hash, char **err)
{
	struct buf b = { 0 };
	size_t head, body, end, line, len;
	char *value;
	*err = NULL;
	if (!text)
		text = "";
	if (key_elsewhere(text, key)) {
		if (asprintf(err, "it sets hooks.state, or names the hook %s, in a form cordon "
				  "does not edit",
			     key) < 0)
			abort();
		return NULL;
	}
	if (asprintf(&value, "trusted_hash = \"%s\"\n", hash) < 0)
		abort();
	if (find_state_table(text, key, &head, &body, &end)) {
		bool has = find_hash_line(text, body, end, &line, &len);
		size_t cut = has ? line : body;
		put(&b, text, cut);
		puts_(&b, value);
		if (has)
			cut = line + len + (text[line + len] == '\n');
		puts_(&b, text + cut);
	} else {
		char *h = state_header(key);
		puts_(&b, text);
		if (b.len && b.s[b.len - 1] != '\n')
			puts_(&b, "\n");
		puts_(&b, b.len ? "\n" : "");
		puts_(&b, h);
		puts_(&b, "\n");
		puts_(&b, value);
		free(h);
	}
	free(value);
	return b.s ? b.s : strdup("");
}
