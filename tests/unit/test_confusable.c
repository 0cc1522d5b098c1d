/* Look-alike program names folded for the preview: fullwidth forms,
 * Cyrillic and Greek homoglyphs and invisible characters read as the ASCII
 * name they imitate; ASCII names, other scripts and invalid UTF-8 fold to
 * nothing. */
#include "config.h"

#include "shell/confusable.h"
#include "tap.h"

#include <stdlib.h>

static void fold(const char *name, const char *want, const char *what)
{
	char *got = confusable_fold(name);
	is_str(got, want, "%s", what);
	free(got);
}

int main(void)
{
	fold("r\xef\xbd\x8d", "rm", "a fullwidth m: rm");
	fold("\xef\xbd\x92\xef\xbd\x8d", "rm", "fullwidth rm");
	fold("\xd1\x81url", "curl", "a Cyrillic es: curl");
	fold("r\xe2\x80\x8bm", "rm", "a zero-width space inside rm");
	fold("\xef\xbb\xbfls", "ls", "a byte-order mark before ls");
	fold("\xce\xbfpenssl", "openssl", "a Greek omicron: openssl");
	fold("rm", NULL, "an ASCII name folds to nothing");
	fold("\xe6\x97\xa5\xe6\x9c\xac", NULL, "a name in another script folds to nothing");
	fold("r\xffm", NULL, "invalid UTF-8 folds to nothing");
	fold("\xe2\x80\x8b", NULL, "only an invisible character folds to nothing");
	return tap_done();
}
