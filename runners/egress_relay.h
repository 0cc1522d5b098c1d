/* The sandbox's side of the egress proxy (see proxy.h), in cordon-exec. */
#ifndef CORDON_EGRESS_RELAY_H
#define CORDON_EGRESS_RELAY_H

/* Listen on 127.0.0.1:CORDON_EGRESS_PORT and start the relay process that
 * passes each connection over ctl.  0, or -1 with *err. */
int egress_relay_start(int ctl, char **err);
/* Pass connection fd to the proxy over ctl (SCM_RIGHTS): 0, or -1 when
 * the proxy is gone.  `cordon proxy` passes its listener's the same way. */
int egress_send_fd(int ctl, int fd);
/* Set the proxy variables (HTTP_PROXY, ALL_PROXY, NO_PROXY, their lowercase
 * forms, GIT_SSH_COMMAND through `helper --connect`). */
void egress_relay_environ(const char *helper);
/* cordon-exec --connect HOST PORT: stdin and stdout to HOST:PORT through
 * the proxy (SOCKS5), for ssh's ProxyCommand. */
int egress_connect_main(const char *host, const char *port);

#endif
