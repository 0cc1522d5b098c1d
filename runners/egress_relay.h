/* The sandbox's side of the egress proxy (see proxy.h), in cordon-exec. */
#ifndef CORDON_EGRESS_RELAY_H
#define CORDON_EGRESS_RELAY_H

#include <stddef.h>

/* Give the sandbox a network namespace of its own, whose loopback is up
 * (the caller holds CAP_SYS_ADMIN and CAP_NET_ADMIN for it): bwrap's
 * namespace belongs to a user namespace above the sandbox's, where the
 * sandbox can bind no port below 1024, and the DNS stub needs port 53.
 * 0, or -1 with *err. */
int egress_netns(char **err);
/* Listen on 127.0.0.1:CORDON_EGRESS_PORT, on 127.0.0.1:53 (UDP, the DNS
 * stub, dns_stub.h) and on every address of the namespace at each of
 * ports[0..nports-1] (the transparent relay), and start the relay process
 * that passes each connection over ctl.  0, or -1 with *err. */
int egress_relay_start(int ctl, const int *ports, size_t nports, char **err);
/* Drop every capability: effective, permitted, inheritable, ambient and,
 * where CAP_SETPCAP is permitted (as bwrap --cap-add gives it, and root
 * has it), the bounding set; and check that none is left.  0, or -1 with
 * *err. */
int egress_drop_caps(char **err);
/* Pass connection fd to the proxy over ctl (SCM_RIGHTS, one message of a
 * SOCK_SEQPACKET pair): 0, or -1 when the proxy is gone.  `cordon proxy`
 * passes its listener's the same way.  With host (not NULL), the
 * connection was made to host:port itself, through the DNS stub's address
 * for the name: the proxy decides that target and relays the bytes as
 * they are (egress_msg below). */
int egress_send_fd(int ctl, int fd, const char *host, int port);

/* What goes with each descriptor: kind 'c', a client that names its
 * target (HTTP, SOCKS5); 't', a transparent connection to host:port. */
struct egress_msg {
	char kind;
	unsigned char port[2]; /* network order */
	char host[254];        /* NUL-terminated */
};
/* Set the proxy variables (HTTP_PROXY, ALL_PROXY, NO_PROXY, their lowercase
 * forms, GIT_SSH_COMMAND through `helper --connect`). */
void egress_relay_environ(const char *helper);
/* cordon-exec --connect HOST PORT: stdin and stdout to HOST:PORT through
 * the proxy (SOCKS5), for ssh's ProxyCommand. */
int egress_connect_main(const char *host, const char *port);

#endif
