/* The approval console's HTTP side (console_http.c), for cmd_serve.c. */
#ifndef CORDON_CLI_CONSOLE_HTTP_H
#define CORDON_CLI_CONSOLE_HTTP_H

#define CONSOLE_TOKEN_LEN 64 /* 32 random bytes in hex */

struct console_server;

/* Listen on 127.0.0.1:port (0: the system picks one) for the asks of
 * agent_dir, every request checked against token.  NULL with *err. */
struct console_server *console_http_start(const char *agent_dir, unsigned port,
					  const char token[CONSOLE_TOKEN_LEN + 1], char **err);
/* The port it listens on. */
unsigned console_http_port(const struct console_server *s);
void console_http_stop(struct console_server *s);

/* n random bytes as 2n hex digits and a NUL into out; 0, or -1 with *err. */
int console_random_hex(char *out, size_t n, char **err);

#endif
