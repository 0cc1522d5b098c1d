/* git's config syntax (git_config.h), after git's config.c: the same
 * reading of characters, so that a file means here what it means to git. */
#include "config.h"

#include "git_config.h"
#include "util.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

struct cursor {
	const char *s, *end;
	bool eof;
};

/* The next character; CRLF reads as '\n', and the end as '\n' with eof. */
static int next_char(struct cursor *c)
{
	if (c->s >= c->end) {
		c->eof = true;
		return '\n';
	}
	int ch = (unsigned char)*c->s++;
	if (ch == '\r' && c->s < c->end && *c->s == '\n') {
		c->s++;
		ch = '\n';
	}
	return ch;
}

static bool is_space(int ch)
{
	return ch == ' ' || ch == '\t' || ch == '\n' || ch == '\r';
}

static bool is_alpha(int ch)
{
	return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z');
}

static bool is_key_char(int ch)
{
	return is_alpha(ch) || (ch >= '0' && ch <= '9') || ch == '-';
}

static int lower(int ch)
{
	return ch >= 'A' && ch <= 'Z' ? ch - 'A' + 'a' : ch;
}

/* [section "sub"]: from the blank after the section's name. */
static int extended_section(struct cursor *c, int ch, struct strbuf *sub)
{
	do {
		if (ch == '\n')
			return -1;
		ch = next_char(c);
	} while (is_space(ch));
	if (ch != '"')
		return -1;
	for (;;) {
		ch = next_char(c);
		if (ch == '\n')
			return -1;
		if (ch == '"')
			break;
		if (ch == '\\') {
			ch = next_char(c);
			if (ch == '\n')
				return -1;
		}
		sb_addc(sub, (char)ch);
	}
	return next_char(c) == ']' ? 0 : -1;
}

/* A section header, from past its '['. */
static int section_header(struct cursor *c, struct strbuf *sec, struct strbuf *sub, bool *has_sub)
{
	sec->len = sub->len = 0;
	sec->buf[0] = sub->buf[0] = '\0';
	*has_sub = false;
	for (;;) {
		int ch = next_char(c);
		if (c->eof)
			return -1;
		if (ch == ']')
			break;
		if (is_space(ch)) {
			/* A dotted name with a quoted subsection too is refused. */
			if (!sec->len || memchr(sec->buf, '.', sec->len))
				return -1;
			*has_sub = true;
			return extended_section(c, ch, sub);
		}
		if (!is_key_char(ch) && ch != '.')
			return -1;
		sb_addc(sec, (char)lower(ch));
	}
	if (!sec->len)
		return -1;
	/* The old form [section.sub]: the subsection in lower case. */
	char *dot = memchr(sec->buf, '.', sec->len);
	if (dot) {
		sb_adds(sub, dot + 1);
		sec->len = (size_t)(dot - sec->buf);
		*dot = '\0';
		*has_sub = true;
	}
	return 0;
}

/* A value, from past its '=' to the end of its line; NULL when git
 * refuses it (an open quote, an unknown escape). */
static char *parse_value(struct cursor *c)
{
	struct strbuf v;
	bool quote = false, comment = false;
	size_t space = 0;
	sb_init(&v);
	for (;;) {
		int ch = next_char(c);
		if (ch == '\n') {
			if (quote) {
				sb_free(&v);
				return NULL;
			}
			return sb_steal(&v);
		}
		if (comment)
			continue;
		if (is_space(ch) && !quote) {
			if (v.len)
				space++;
			continue;
		}
		if (!quote && (ch == ';' || ch == '#')) {
			comment = true;
			continue;
		}
		for (; space; space--)
			sb_addc(&v, ' ');
		if (ch == '\\') {
			ch = next_char(c);
			switch (ch) {
			case '\n':
				continue;
			case 't':
				ch = '\t';
				break;
			case 'b':
				ch = '\b';
				break;
			case 'n':
				ch = '\n';
				break;
			case '\\':
			case '"':
				break;
			default:
				sb_free(&v);
				return NULL;
			}
			sb_addc(&v, (char)ch);
			continue;
		}
		if (ch == '"') {
			quote = !quote;
			continue;
		}
		sb_addc(&v, (char)ch);
	}
}

int git_config_parse(const char *text, size_t len, git_config_fn each, void *arg)
{
	if (memchr(text, '\0', len))
		return -1;
	struct cursor c = { text, text + len, false };
	if (len >= 3 && memcmp(text, "\xef\xbb\xbf", 3) == 0)
		c.s += 3; /* a UTF-8 byte order mark */
	struct strbuf sec, sub, key;
	bool has_sub = false, have_section = false, comment = false;
	int rc = 0;
	sb_init(&sec);
	sb_init(&sub);
	sb_init(&key);
	for (;;) {
		int ch = next_char(&c);
		if (ch == '\n') {
			if (c.eof)
				break;
			comment = false;
			continue;
		}
		if (comment || is_space(ch))
			continue;
		if (ch == '#' || ch == ';') {
			comment = true;
			continue;
		}
		if (ch == '[') {
			if (section_header(&c, &sec, &sub, &has_sub) < 0) {
				rc = -1;
				break;
			}
			have_section = true;
			continue;
		}
		if (!is_alpha(ch) || !have_section) {
			rc = -1;
			break;
		}
		key.len = 0;
		key.buf[0] = '\0';
		sb_addc(&key, (char)lower(ch));
		for (;;) {
			ch = next_char(&c);
			if (c.eof || !is_key_char(ch))
				break;
			sb_addc(&key, (char)lower(ch));
		}
		while (ch == ' ' || ch == '\t')
			ch = next_char(&c);
		char *value = NULL;
		if (ch != '\n') {
			if (ch != '=' || !(value = parse_value(&c))) {
				rc = -1;
				break;
			}
		}
		rc = each(arg, sec.buf, has_sub ? sub.buf : NULL, key.buf, value);
		free(value);
		if (rc)
			break;
	}
	sb_free(&sec);
	sb_free(&sub);
	sb_free(&key);
	return rc;
}
