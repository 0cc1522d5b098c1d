/* canon_lexical_into (lib/base/canon.c) against canon_lexical: the same
 * text for every path of up to eight bytes over '/', '.' and 'a' (roots,
 * "//", ".", "..", trailing slashes, relative paths, names with dots),
 * with the buffer reused from one path to the next. */
#include "config.h"

#include "base/canon.h"
#include "base/util.h"
#include "tap.h"

#include <stdlib.h>
#include <string.h>

int main(void)
{
	static const char alphabet[] = "/.a";
	struct strbuf sb;
	sb_init(&sb);
	size_t paths = 0, wrong = 0;
	char first[16] = "";
	for (size_t len = 0; len <= 8; len++) {
		size_t count = 1;
		for (size_t k = 0; k < len; k++)
			count *= 3;
		for (size_t i = 0; i < count; i++) {
			char path[16];
			size_t x = i;
			for (size_t k = 0; k < len; k++, x /= 3)
				path[k] = alphabet[x % 3];
			path[len] = '\0';
			char *want = canon_lexical(path);
			canon_lexical_into(&sb, path);
			paths++;
			if (strcmp(sb.buf, want) != 0 || sb.len != strlen(want)) {
				if (!wrong++)
					strcpy(first, path);
			}
			free(want);
		}
	}
	ok(wrong == 0, "canon_lexical_into agrees with canon_lexical on %zu paths%s%s", paths,
	   wrong ? "; first disagreement: " : "", first);
	canon_lexical_into(&sb, "/a/b/../c/");
	is_str(sb.buf, "/a/c", "a buffer that held a longer path holds the new one only");
	canon_lexical_into(&sb, "/srv/ws/src");
	is_str(sb.buf, "/srv/ws/src", "a path already normal is itself");
	sb_free(&sb);
	return tap_done();
}
