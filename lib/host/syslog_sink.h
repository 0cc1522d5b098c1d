/* The system log as a second sink of the audit records (syslog_sink.c):
 * the journal's native protocol on its socket, or a classic syslog line on
 * a syslog socket.  audit.c builds the fields, redacted; this file only
 * speaks the two protocols. */
#ifndef CORDON_SYSLOG_SINK_H
#define CORDON_SYSLOG_SINK_H

#include <stddef.h>

struct syslog_sink;

/* One field of an entry: a lowercase name (decision, rule, ...) and its
 * text.  The journal gets it as CORDON_NAME=text, syslog as name="text";
 * both get the message of all fields as name="text" pairs. */
struct syslog_field {
	const char *name;
	const char *value;
};

/* WHERE: auto (the journal when its socket exists, else /dev/log), journal,
 * syslog, or the absolute path of a syslog socket.  NULL with *err for
 * another word.  Nothing is opened yet: the first entry connects. */
struct syslog_sink *syslog_sink_new(const char *where, char **err);
void syslog_sink_free(struct syslog_sink *s);

/* Send one entry of a syslog severity (LOG_INFO ...), facility authpriv,
 * identifier "cordon".  0, or -1 with *err (nothing listening, a queue
 * that stayed full, no system log here at all).  Never blocks for long:
 * a receiver that does not drain its queue within a quarter of a second
 * loses the entry. */
int syslog_sink_send(struct syslog_sink *s, int severity, const struct syslog_field *fields,
		     size_t n, char **err);

#endif
