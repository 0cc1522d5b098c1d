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

/* A pcre2 regex as an extended regex with the same matches, or NULL with
 * *why when it uses syntax Seatbelt's matcher lacks. */
char *sbpl_pcre_to_ere(const char *re, const char **why)
{
	struct strbuf sb;
	sb_init(&sb);
	for (const char *p = re; *p; p++) {
		char c = *p;
		if (c == '\\') {
			char e = p[1];
			if (e == 'd') {
				sb_adds(&sb, "[0-9]");
			} else if (e == 'w') {
				sb_adds(&sb, "[A-Za-z0-9_]");
			} else if (e && !(e >= 'a' && e <= 'z') && !(e >= 'A' && e <= 'Z') &&
				   !(e >= '0' && e <= '9') && (unsigned char)e < 0x80) {
				sbpl_ere_char(&sb, e);
			} else {
				*why = "an escape other than \\d, \\w or an escaped punctuation character";
				goto fail;
			}
			p++;
		} else if (c == '[') {
			const char *q = p + 1;
			sb_addc(&sb, '[');
			if (*q == '^')
				sb_addc(&sb, *q++);
			if (*q == ']')
				sb_addc(&sb, *q++);
			for (; *q && *q != ']'; q++) {
				if (*q == '\\') {
					char e = q[1];
					if (e == 'd') {
						sb_adds(&sb, "0-9");
					} else if (e == 'w') {
						sb_adds(&sb, "A-Za-z0-9_");
					} else if (e && (unsigned char)e < 0x80 && !strchr("]\\[^-", e) &&
						   !(e >= 'a' && e <= 'z') && !(e >= 'A' && e <= 'Z') &&
						   !(e >= '0' && e <= '9')) {
						sb_addc(&sb, e);
					} else {
						*why = "an escape inside a bracket class other than \\d, \\w or "
						       "punctuation";
						goto fail;
					}
					q++;
					continue;
				}
				if (q[0] == '[' && (q[1] == ':' || q[1] == '.' || q[1] == '=')) {
					const char *end = strstr(q + 2, (char[]){ q[1], ']', '\0' });
					if (!end) {
						*why = "an unterminated bracket class";
						goto fail;
					}
					sb_add(&sb, q, (size_t)(end + 2 - q));
					q = end + 1;
					continue;
				}
				sb_addc(&sb, *q);
			}
			if (!*q) {
				*why = "an unterminated bracket class";
				goto fail;
			}
			sb_addc(&sb, ']');
			p = q;
		} else if (c == '(') {
			if (p[1] == '?') {
				if (p[2] != ':') {
					*why = "a group other than (...) and (?:...)";
					goto fail;
				}
				p += 2;
			}
			sb_addc(&sb, '(');
		} else if (c == '{') {
			*why = "a counted repetition {m,n}";
			goto fail;
		} else if (c == '*' || c == '+' || c == '?') {
			sb_addc(&sb, c);
			if (p[1] == '+') {
				*why = "a possessive quantifier";
				goto fail;
			}
			if (p[1] == '?')
				p++; /* lazy: the same paths match */
		} else {
			sb_addc(&sb, c);
		}
	}
	return sb_steal(&sb);
fail:
	sb_free(&sb);
	return NULL;
}
