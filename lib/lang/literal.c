/* Decoding string and regex literals. */
#include "config.h"

#include "literal.h"

#include <string.h>

#define ERR(d, locp, ...) ((d) ? diag_add((d), DIAG_ERROR, (locp), "syntax", __VA_ARGS__) : NULL)

struct loc lit_sub_loc(struct loc base, size_t from, size_t to)
{
	struct loc l = { base.file, base.start + (uint32_t)from, base.start + (uint32_t)to };
	return l;
}

/* The byte an escape stands for, or -1 for one the language does not have. */
static int escape_byte(char e)
{
	switch (e) {
	case '"': return '"';
	case '\\': return '\\';
	case 'n': return '\n';
	case 't': return '\t';
	case '$': return '$';
	default: return -1;
	}
}

/* A byte a string literal holds as it is: no escape, no control
 * character, no '$' that may start a variable. */
static bool plain_byte(unsigned char ch)
{
	return ch != '\\' && ch != '$' && (ch >= 0x20 || ch == '\t') && ch != 0x7f;
}

char *lit_string(struct diag_list *d, const struct ast *s, lit_var_fn var, void *arg)
{
	const char *raw = s->u.tok.text;
	size_t len = s->u.tok.len;
	struct loc base = lit_sub_loc(s->loc, 1, 1);
	struct strbuf sb;
	bool ok = true;

	/* Most strings are plain bytes: the copy the loop below would build,
	 * made at once (a policy of program specs holds thousands). */
	size_t plain = 0;
	while (plain < len && plain_byte((unsigned char)raw[plain]))
		plain++;
	if (plain == len)
		return xstrndup(raw, len);
	sb_init(&sb);
	for (size_t i = 0; i < len; i++) {
		unsigned char ch = (unsigned char)raw[i];
		if (ch == '\\') {
			int b = escape_byte(raw[i + 1]);
			if (b >= 0) {
				sb_addc(&sb, (char)b);
			} else {
				struct loc at = lit_sub_loc(base, i, i + 2);
				ERR(d, &at, "unknown escape sequence '\\%c' in string", raw[i + 1]);
				ok = false;
			}
			i++;
			continue;
		}
		if ((ch < 0x20 && ch != '\t') || ch == 0x7f) {
			struct loc at = lit_sub_loc(base, i, i + 1);
			ERR(d, &at, "control character 0x%02x in string", ch);
			ok = false;
			continue;
		}
		if (ch != '$' || !var || raw[i + 1] != '{') {
			/* The plain bytes from here on, at once. */
			size_t n = 1;
			while (i + n < len && plain_byte((unsigned char)raw[i + n]))
				n++;
			sb_add(&sb, raw + i, n);
			i += n - 1;
			continue;
		}
		const char *close = memchr(raw + i + 2, '}', len - i - 2);
		if (!close) {
			struct loc at = lit_sub_loc(base, i, len);
			ERR(d, &at, "unterminated '${' in string");
			ok = false;
			break;
		}
		const char *name = raw + i + 2;
		size_t nlen = (size_t)(close - name), end = (size_t)(close - raw) + 1;
		if (!var(arg, &sb, name, nlen, lit_sub_loc(base, i, end)))
			ok = false;
		i = end - 1;
	}
	if (!ok) {
		sb_free(&sb);
		return NULL;
	}
	return sb_steal(&sb);
}

char *lit_regex(const struct ast *r, size_t *map)
{
	const char *raw = r->u.tok.text;
	size_t len = r->u.tok.len;
	struct strbuf sb;
	sb_init(&sb);
	for (size_t i = 0; i < len; i++) {
		if (map)
			map[sb.len] = i;
		if (raw[i] == '\\' && raw[i + 1] == '/') {
			sb_addc(&sb, '/');
			i++;
		} else if (raw[i] == '\\' && i + 1 < len) {
			/* PCRE2's own escape, kept whole: its second byte is never
			 * the start of another one. */
			sb_addc(&sb, raw[i]);
			if (map)
				map[sb.len] = i + 1;
			sb_addc(&sb, raw[++i]);
		} else {
			sb_addc(&sb, raw[i]);
		}
	}
	if (map)
		map[sb.len] = len;
	return sb_steal(&sb);
}
