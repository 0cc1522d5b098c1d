#include "config.h"

#include "lower.h"

char *lower_k8s(const struct lower_input *in, size_t *len, char **err)
{
	(void)in;
	(void)len;
	*err = xstrdup("not yet");
	return NULL;
}
