/* Look-alikes of program names: a word that is not ASCII but reads as an
 * ASCII name once fullwidth forms, common Cyrillic and Greek homoglyphs and
 * invisible characters are folded.  Used only to say in the preview what a
 * name looks like; rules and program specs always match the bytes as
 * written. */
#include "config.h"

#include "confusable.h"
#include "base/util.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* Code points that render like an ASCII letter, and that letter; 0 for
 * one that renders as nothing. */
static const struct {
	uint32_t cp;
	char ascii;
} look_alikes[] = {
	{ 0x00ad, 0 },	 { 0x034f, 0 },	  { 0x180e, 0 },   { 0x200b, 0 },   { 0x200c, 0 },
	{ 0x200d, 0 },	 { 0x2060, 0 },	  { 0x2061, 0 },   { 0x2062, 0 },   { 0x2063, 0 },
	{ 0x2064, 0 },	 { 0xfeff, 0 },	  { 0x0391, 'A' }, { 0x0392, 'B' }, { 0x0395, 'E' },
	{ 0x0396, 'Z' }, { 0x0397, 'H' }, { 0x0399, 'I' }, { 0x039a, 'K' }, { 0x039c, 'M' },
	{ 0x039d, 'N' }, { 0x039f, 'O' }, { 0x03a1, 'P' }, { 0x03a4, 'T' }, { 0x03a5, 'Y' },
	{ 0x03a7, 'X' }, { 0x03b1, 'a' }, { 0x03b9, 'i' }, { 0x03bd, 'v' }, { 0x03bf, 'o' },
	{ 0x03c1, 'p' }, { 0x03c5, 'u' }, { 0x0405, 'S' }, { 0x0406, 'I' }, { 0x0408, 'J' },
	{ 0x0410, 'A' }, { 0x0412, 'B' }, { 0x0415, 'E' }, { 0x041a, 'K' }, { 0x041c, 'M' },
	{ 0x041d, 'H' }, { 0x041e, 'O' }, { 0x0420, 'P' }, { 0x0421, 'C' }, { 0x0422, 'T' },
	{ 0x0425, 'X' }, { 0x0430, 'a' }, { 0x0435, 'e' }, { 0x043e, 'o' }, { 0x0440, 'p' },
	{ 0x0441, 'c' }, { 0x0443, 'y' }, { 0x0445, 'x' }, { 0x0455, 's' }, { 0x0456, 'i' },
	{ 0x0458, 'j' }, { 0x04bb, 'h' }, { 0x0501, 'd' }, { 0x051b, 'q' }, { 0x051d, 'w' },
	{ 0x0261, 'g' }, { 0x0269, 'i' }, { 0x1d00, 'a' }, { 0x2010, '-' }, { 0x2011, '-' },
	{ 0x2012, '-' }, { 0x2013, '-' }, { 0x2212, '-' }, { 0x2024, '.' }, { 0x2215, '/' },
	{ 0x2044, '/' },
};

/* The code point at s (valid UTF-8 of n bytes), its length in *len. */
static uint32_t decode(const unsigned char *s, size_t n, size_t *len)
{
	if (s[0] < 0x80 || n < 2) {
		*len = 1;
		return s[0];
	}
	if (s[0] < 0xe0) {
		*len = 2;
		return (uint32_t)(s[0] & 0x1f) << 6 | (s[1] & 0x3f);
	}
	if (s[0] < 0xf0 || n < 4) {
		*len = n < 3 ? n : 3;
		return n < 3 ? 0xfffd
			     : (uint32_t)(s[0] & 0x0f) << 12 | (uint32_t)(s[1] & 0x3f) << 6 |
				       (s[2] & 0x3f);
	}
	*len = 4;
	return (uint32_t)(s[0] & 0x07) << 18 | (uint32_t)(s[1] & 0x3f) << 12 |
	       (uint32_t)(s[2] & 0x3f) << 6 | (s[3] & 0x3f);
}

char *confusable_fold(const char *name)
{
	const unsigned char *s = (const unsigned char *)name;
	size_t n = strlen(name);
	bool folded = false;
	if (utf8_invalid_at(s, n) != n)
		return NULL;
	struct strbuf sb;
	sb_init(&sb);
	for (size_t i = 0; i < n;) {
		size_t len;
		uint32_t cp = decode(s + i, n - i, &len);
		i += len;
		if (cp < 0x80) {
			sb_addc(&sb, (char)cp);
			continue;
		}
		if (cp >= 0xff01 && cp <= 0xff5e) { /* fullwidth ASCII */
			sb_addc(&sb, (char)(cp - 0xff01 + 0x21));
			folded = true;
			continue;
		}
		size_t k = 0, count = sizeof(look_alikes) / sizeof(*look_alikes);
		while (k < count && look_alikes[k].cp != cp)
			k++;
		if (k == count) {
			sb_free(&sb);
			return NULL; /* a character that reads as no ASCII one */
		}
		if (look_alikes[k].ascii)
			sb_addc(&sb, look_alikes[k].ascii);
		folded = true;
	}
	if (!folded || sb.len == 0) {
		sb_free(&sb);
		return NULL;
	}
	return sb_steal(&sb);
}
