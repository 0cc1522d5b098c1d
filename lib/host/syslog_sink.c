/* Audit records in the system log.
 *
 * The journal: its native protocol (systemd.io/JOURNAL_NATIVE_PROTOCOL),
 * one datagram an entry on /run/systemd/journal/socket, each field
 * KEY=value and a newline, or, for a value with a newline in it, KEY, a
 * newline, the value's length as 64 bits little-endian, the value and a
 * newline.  An entry too big for a datagram goes in a sealed memfd passed
 * with SCM_RIGHTS in an empty datagram.  Written here rather than through
 * libsystemd: the protocol is these few lines, and the build keeps one
 * dependency less.
 *
 * Syslog: the line syslog(3) writes, "<PRI>Mmm dd hh:mm:ss cordon[PID]:
 * MSG", as one datagram on the socket, which every syslog daemon (and the
 * journal's own /dev/log) reads.  syslog(3) itself is not used: it always
 * writes to /dev/log, says nothing when the message is lost, and its
 * openlog() is the whole process's.
 *
 * MSG, and the journal's MESSAGE, is every field as name="value" ('"' and
 * '\' escaped with a backslash, control characters written \n, \r, \t or
 * \xHH), each value cut at 1024 bytes: a pipeline that keeps only the text
 * keeps the fields. */
#include "config.h"

#include "syslog_sink.h"

#include "base/cleanup.h"
#include "base/util.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <syslog.h>
#include <time.h>
#include <unistd.h>
#ifdef __linux__
#include <sys/mman.h>
#endif

#ifndef MSG_NOSIGNAL
#define MSG_NOSIGNAL 0 /* macOS: SO_NOSIGPIPE on the socket instead */
#endif
#ifndef SOCK_CLOEXEC
#define SOCK_CLOEXEC 0 /* macOS: FD_CLOEXEC is set after socket() */
#endif

#define JOURNAL_SOCKET "/run/systemd/journal/socket"
#ifdef _PATH_LOG
#define DEV_LOG _PATH_LOG /* /dev/log; /var/run/syslog on macOS */
#else
#define DEV_LOG "/dev/log"
#endif
#define FACILITY_AUTHPRIV 10
#define VALUE_MAX 1024
#define SEND_WAIT_MS 250

enum sink_proto { PROTO_JOURNAL, PROTO_SYSLOG };

struct syslog_sink {
	bool automatic; /* auto: the protocol and path are found at the first entry */
	enum sink_proto proto;
	char *path;
	int fd;
};

struct syslog_sink *syslog_sink_new(const char *where, char **err)
{
	struct syslog_sink *s;
	enum sink_proto proto = PROTO_SYSLOG;
	const char *path = NULL;

	if (!where)
		where = "";
	if (strcmp(where, "journal") == 0) {
		proto = PROTO_JOURNAL;
		path = JOURNAL_SOCKET;
	} else if (strcmp(where, "syslog") == 0) {
		path = DEV_LOG;
	} else if (where[0] == '/') {
		if (strlen(where) >= sizeof(((struct sockaddr_un *)0)->sun_path)) {
			*err = xasprintf("the syslog socket path %s is too long", where);
			return NULL;
		}
		path = where;
	} else if (strcmp(where, "auto") != 0) {
		*err = xasprintf("unknown system log '%s': use auto, journal, syslog or the "
				 "absolute path of a syslog socket",
				 where);
		return NULL;
	}
	s = xcalloc(1, sizeof(*s));
	s->fd = -1;
	s->automatic = !path;
	s->proto = proto;
	s->path = path ? xstrdup(path) : NULL;
	return s;
}

void syslog_sink_free(struct syslog_sink *s)
{
	if (!s)
		return;
	if (s->fd >= 0)
		close(s->fd);
	free(s->path);
	free(s);
}

static bool is_socket(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0 && S_ISSOCK(st.st_mode);
}

static const char *proto_name(const struct syslog_sink *s)
{
	return s->proto == PROTO_JOURNAL ? "the journal" : "syslog";
}

static int sink_connect(struct syslog_sink *s, char **err)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	if (s->automatic && !s->path) {
		if (is_socket(JOURNAL_SOCKET)) {
			s->proto = PROTO_JOURNAL;
			s->path = xstrdup(JOURNAL_SOCKET);
		} else if (is_socket(DEV_LOG)) {
			s->proto = PROTO_SYSLOG;
			s->path = xstrdup(DEV_LOG);
		} else {
			*err = xstrdup("no system log here (neither " JOURNAL_SOCKET " nor " DEV_LOG
				       " is a socket)");
			return -1;
		}
	}
	AUTO_FD int fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd >= 0 && !SOCK_CLOEXEC)
		fcntl(fd, F_SETFD, FD_CLOEXEC);
#ifdef SO_NOSIGPIPE
	if (fd >= 0)
		setsockopt(fd, SOL_SOCKET, SO_NOSIGPIPE, &(int){ 1 }, sizeof(int));
#endif
	if (fd < 0) {
		*err = xasprintf("cannot make a socket for %s: %s", proto_name(s), strerror(errno));
		return -1;
	}
	memcpy(sa.sun_path, s->path, strlen(s->path) + 1);
	if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) != 0) {
		*err = xasprintf("cannot reach %s at %s: %s", proto_name(s), s->path,
				 strerror(errno));
		return -1;
	}
	s->fd = steal_fd(&fd);
	return 0;
}

/* One datagram, or -1 with errno.  A full queue is waited on for a
 * quarter of a second, once. */
static int send_once(int fd, struct msghdr *mh)
{
	bool waited = false;
	for (;;) {
		if (sendmsg(fd, mh, MSG_DONTWAIT | MSG_NOSIGNAL) >= 0)
			return 0;
		if (errno == EINTR)
			continue;
		if ((errno != EAGAIN && errno != EWOULDBLOCK) || waited)
			return -1;
		struct pollfd p = { .fd = fd, .events = POLLOUT };
		waited = true;
		if (poll(&p, 1, SEND_WAIT_MS) <= 0) {
			errno = EAGAIN;
			return -1;
		}
	}
}

static int send_bytes(int fd, const char *buf, size_t len)
{
	struct iovec iov = { .iov_base = (void *)buf, .iov_len = len };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1 };
	return send_once(fd, &mh);
}

/* The journal's way for an entry bigger than a datagram. */
static int send_memfd(int fd, const char *buf, size_t len)
{
#if defined(__linux__) && defined(MFD_ALLOW_SEALING) && defined(F_ADD_SEALS)
	AUTO_FD int mfd = memfd_create("cordon-journal-entry", MFD_CLOEXEC | MFD_ALLOW_SEALING);
	union {
		struct cmsghdr h;
		char buf[CMSG_SPACE(sizeof(int))];
	} control;
	struct msghdr mh = { .msg_control = &control, .msg_controllen = sizeof(control.buf) };
	struct cmsghdr *c;

	if (mfd < 0 || write_all(mfd, buf, len) != 0 ||
	    fcntl(mfd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_WRITE | F_SEAL_SEAL) != 0)
		return -1;
	memset(&control, 0, sizeof(control));
	c = CMSG_FIRSTHDR(&mh);
	c->cmsg_level = SOL_SOCKET;
	c->cmsg_type = SCM_RIGHTS;
	c->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(c), &mfd, sizeof(int));
	mh.msg_controllen = c->cmsg_len;
	return send_once(fd, &mh);
#else
	(void)fd;
	(void)buf;
	(void)len;
	errno = EMSGSIZE;
	return -1;
#endif
}

/* value as name="value" after a blank (none before the first). */
static void add_pair(struct strbuf *sb, const char *name, const char *value)
{
	size_t len = strlen(value), cut = len;
	if (len > VALUE_MAX) {
		cut = VALUE_MAX;
		/* not inside a UTF-8 sequence */
		while (cut > 0 && ((unsigned char)value[cut] & 0xC0) == 0x80)
			cut--;
	}
	if (sb->len)
		sb_addc(sb, ' ');
	sb_adds(sb, name);
	sb_adds(sb, "=\"");
	for (size_t i = 0; i < cut; i++) {
		unsigned char ch = (unsigned char)value[i];
		if (ch == '"' || ch == '\\') {
			sb_addc(sb, '\\');
			sb_addc(sb, (char)ch);
		} else if (ch == '\n') {
			sb_adds(sb, "\\n");
		} else if (ch == '\r') {
			sb_adds(sb, "\\r");
		} else if (ch == '\t') {
			sb_adds(sb, "\\t");
		} else if (ch < 0x20 || ch == 0x7f) {
			sb_addf(sb, "\\x%02x", ch);
		} else {
			sb_addc(sb, (char)ch);
		}
	}
	if (cut < len)
		sb_adds(sb, "...");
	sb_addc(sb, '"');
}

static char *message_of(const struct syslog_field *fields, size_t n)
{
	struct strbuf sb;
	sb_init(&sb);
	for (size_t i = 0; i < n; i++)
		add_pair(&sb, fields[i].name, fields[i].value);
	return sb_steal(&sb);
}

/* KEY=value, or the binary form for a value with a newline. */
static void journal_field(struct strbuf *sb, const char *key, const char *value)
{
	size_t len = strlen(value);
	sb_adds(sb, key);
	if (!memchr(value, '\n', len)) {
		sb_addc(sb, '=');
		sb_add(sb, value, len);
		sb_addc(sb, '\n');
		return;
	}
	unsigned char le[8];
	uint64_t v = len;
	for (int i = 0; i < 8; i++, v >>= 8)
		le[i] = (unsigned char)(v & 0xff);
	sb_addc(sb, '\n');
	sb_add(sb, (const char *)le, sizeof(le));
	sb_add(sb, value, len);
	sb_addc(sb, '\n');
}

static void journal_entry(struct strbuf *sb, int severity, const char *message,
			  const struct syslog_field *fields, size_t n)
{
	char num[32];
	journal_field(sb, "MESSAGE", message);
	snprintf(num, sizeof(num), "%d", severity);
	journal_field(sb, "PRIORITY", num);
	snprintf(num, sizeof(num), "%d", FACILITY_AUTHPRIV);
	journal_field(sb, "SYSLOG_FACILITY", num);
	journal_field(sb, "SYSLOG_IDENTIFIER", "cordon");
	snprintf(num, sizeof(num), "%ld", (long)getpid());
	journal_field(sb, "SYSLOG_PID", num);
	for (size_t i = 0; i < n; i++) {
		char key[64] = "CORDON_";
		size_t k = strlen(key);
		for (const char *p = fields[i].name; *p && k + 1 < sizeof(key); p++)
			key[k++] = *p >= 'a' && *p <= 'z' ? (char)(*p - 'a' + 'A')
				 : (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ? *p
											  : '_';
		key[k] = '\0';
		journal_field(sb, key, fields[i].value);
	}
}

static void syslog_line(struct strbuf *sb, int severity, const char *message)
{
	static const char months[12][4] = { "Jan", "Feb", "Mar", "Apr", "May", "Jun",
					    "Jul", "Aug", "Sep", "Oct", "Nov", "Dec" };
	time_t now = time(NULL);
	struct tm tm;
	localtime_r(&now, &tm);
	sb_addf(sb, "<%d>%s %2d %02d:%02d:%02d cordon[%ld]: %s", FACILITY_AUTHPRIV * 8 + severity,
		months[tm.tm_mon % 12], tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec,
		(long)getpid(), message);
}

int syslog_sink_send(struct syslog_sink *s, int severity, const struct syslog_field *fields,
		     size_t n, char **err)
{
	if (s->fd < 0 && sink_connect(s, err) != 0)
		return -1;
	AUTO_FREE char *message = message_of(fields, n);
	struct strbuf sb;
	int rc;
	sb_init(&sb);
	if (s->proto == PROTO_JOURNAL)
		journal_entry(&sb, severity, message, fields, n);
	else
		syslog_line(&sb, severity, message);
	rc = send_bytes(s->fd, sb.buf, sb.len);
	if (rc != 0 && (errno == ECONNREFUSED || errno == ENOTCONN)) {
		/* The daemon restarted: its socket is a new one. */
		close(s->fd);
		s->fd = -1;
		if (sink_connect(s, err) != 0) {
			sb_free(&sb);
			return -1;
		}
		rc = send_bytes(s->fd, sb.buf, sb.len);
	}
	if (rc != 0 && s->proto == PROTO_JOURNAL && (errno == EMSGSIZE || errno == ENOBUFS))
		rc = send_memfd(s->fd, sb.buf, sb.len);
	if (rc != 0)
		*err = xasprintf("cannot send to %s at %s: %s", proto_name(s), s->path,
				 errno == EAGAIN || errno == EWOULDBLOCK
					 ? "its queue stayed full; the entry is lost"
					 : strerror(errno));
	sb_free(&sb);
	return rc;
}
