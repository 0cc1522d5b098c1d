/* Regexes for Seatbelt (lower_sbpl.c): its matcher takes POSIX extended
 * regexes, so a pcre2 regex is translated where it stays within what that
 * syntax has. */
#include "config.h"

#include "lower.h"

#include <string.h>

/* Characters that a POSIX extended regex treats specially. */
static bool ere_special(char c)
{
	return c && strchr(".[]()*+?{}|^$\\", c) != NULL;
}

void sbpl_ere_char(struct strbuf *sb, char c)
{
	if (ere_special(c))
		sb_addc(sb, '\\');
	sb_addc(sb, c);
}

/* Is e an ASCII character that is neither a letter nor a digit, one
 * pcre2 escapes to mean itself? */
static bool ascii_punct(char e)
{
	return e && (unsigned char)e < 0x80 && !(e >= 'a' && e <= 'z') &&
	       !(e >= 'A' && e <= 'Z') && !(e >= '0' && e <= '9');
}

/* Each step below translates the construct that starts at p, and
 * returns its last character (the loop goes on after it), or NULL with
 * *why when the construct has no ERE of the same matches. */

/* \d, \w and an escaped punctuation character; no other escape. */
static const char *ere_escape(struct strbuf *sb, const char *p, const char **why)
{
	char e = p[1];
	if (e == 'd') {
		sb_adds(sb, "[0-9]");
	} else if (e == 'w') {
		sb_adds(sb, "[A-Za-z0-9_]");
	} else if (ascii_punct(e)) {
		sbpl_ere_char(sb, e);
	} else {
		*why = "an escape other than \\d, \\w or an escaped punctuation character";
		return NULL;
	}
	return p + 1;
}

/* An escape inside a bracket class: \d and \w as ranges, punctuation
 * that means itself there; not ] \ [ ^ -, whose meaning would change. */
static const char *ere_class_escape(struct strbuf *sb, const char *q, const char **why)
{
	char e = q[1];
	if (e == 'd') {
		sb_adds(sb, "0-9");
	} else if (e == 'w') {
		sb_adds(sb, "A-Za-z0-9_");
	} else if (ascii_punct(e) && !strchr("]\\[^-", e)) {
		sb_addc(sb, e);
	} else {
		*why = "an escape inside a bracket class other than \\d, \\w or punctuation";
		return NULL;
	}
	return q + 1;
}

/* A bracket class [...], with [:name:], [.x.] and [=x=] inside it as
 * they are. */
static const char *ere_class(struct strbuf *sb, const char *p, const char **why)
{
	const char *q = p + 1;
	sb_addc(sb, '[');
	if (*q == '^')
		sb_addc(sb, *q++);
	if (*q == ']')
		sb_addc(sb, *q++);
	for (; *q && *q != ']'; q++) {
		if (*q == '\\') {
			q = ere_class_escape(sb, q, why);
			if (!q)
				return NULL;
		} else if (q[0] == '[' && (q[1] == ':' || q[1] == '.' || q[1] == '=')) {
			const char *end = strstr(q + 2, (char[]){ q[1], ']', '\0' });
			if (!end)
				break;
			sb_add(sb, q, (size_t)(end + 2 - q));
			q = end + 1;
		} else {
			sb_addc(sb, *q);
		}
	}
	if (*q != ']') {
		*why = "an unterminated bracket class";
		return NULL;
	}
	sb_addc(sb, ']');
	return q;
}

/* (...) and (?:...), both a plain group in an ERE. */
static const char *ere_group(struct strbuf *sb, const char *p, const char **why)
{
	if (p[1] == '?') {
		if (p[2] != ':') {
			*why = "a group other than (...) and (?:...)";
			return NULL;
		}
		p += 2;
	}
	sb_addc(sb, '(');
	return p;
}

/* *, + and ?, lazy or not (the same paths match); not possessive. */
static const char *ere_quantifier(struct strbuf *sb, const char *p, const char **why)
{
	sb_addc(sb, *p);
	if (p[1] == '+') {
		*why = "a possessive quantifier";
		return NULL;
	}
	return p[1] == '?' ? p + 1 : p;
}

/* A pcre2 regex as an extended regex with the same matches, or NULL with
 * *why when it uses syntax Seatbelt's matcher lacks. */
char *sbpl_pcre_to_ere(const char *re, const char **why)
{
	struct strbuf sb;
	sb_init(&sb);
	for (const char *p = re; *p; p++) {
		if (*p == '\\') {
			p = ere_escape(&sb, p, why);
		} else if (*p == '[') {
			p = ere_class(&sb, p, why);
		} else if (*p == '(') {
			p = ere_group(&sb, p, why);
		} else if (*p == '{') {
			*why = "a counted repetition {m,n}";
			p = NULL;
		} else if (*p == '*' || *p == '+' || *p == '?') {
			p = ere_quantifier(&sb, p, why);
		} else {
			sb_addc(&sb, *p);
		}
		if (!p) {
			sb_free(&sb);
			return NULL;
		}
	}
	return sb_steal(&sb);
}
