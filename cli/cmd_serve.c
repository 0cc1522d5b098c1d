/* cordon serve: the approval console on 127.0.0.1 (console_http.c), for
 * the asks that hooks and runs post to the spool of the agent dir
 * (lib/host/console_*.c).  It claims the spool, makes a token, listens,
 * prints its URL first, and runs until SIGINT, SIGTERM or SIGHUP. */
#include "config.h"

#include "cli.h"
#include "console_http.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* --listen: 127.0.0.1:PORT and nothing else; the console is never
 * reachable from another machine. */
static int parse_listen(const char *arg, unsigned *port)
{
	static const char prefix[] = "127.0.0.1:";
	char *end;
	if (strncmp(arg, prefix, sizeof(prefix) - 1) != 0)
		return cli_usage_error("serve", "--listen takes 127.0.0.1:PORT, not '%s': the console "
						"listens on loopback only",
				       arg);
	const char *p = arg + sizeof(prefix) - 1;
	errno = 0;
	unsigned long v = strtoul(p, &end, 10);
	if (errno || end == p || *end || v > 65535 || *p == '-' || *p == '+')
		return cli_usage_error("serve", "--listen: '%s' is not a port (0 to 65535)", p);
	*port = (unsigned)v;
	return EXIT_OK;
}

/* Serve until a signal asks to stop; the signals are blocked before the
 * server's thread starts, so that only this thread takes them. */
static int serve(const char *agent_dir, unsigned port, sigset_t *stop)
{
	char token[CONSOLE_TOKEN_LEN + 1], *err = NULL, *url = NULL;
	int sig, status = EXIT_USAGE;
	if (console_random_hex(token, CONSOLE_TOKEN_LEN / 2, &err) != 0) {
		fprintf(stderr, "cordon: serve: %s\n", err);
		free(err);
		return EXIT_USAGE;
	}
	struct console_server *s = console_http_start(agent_dir, port, token, &err);
	if (!s) {
		fprintf(stderr, "cordon: serve: %s\n", err);
		free(err);
		return EXIT_USAGE;
	}
	if (asprintf(&url, "http://127.0.0.1:%u/?token=%s", console_http_port(s), token) < 0) {
		url = NULL;
		goto out;
	}
	if (cordon_console_publish(agent_dir, url, &err) != 0) {
		fprintf(stderr, "cordon: serve: %s\n", err);
		goto out;
	}
	if (printf("%s\n", url) < 0 || fflush(stdout) != 0)
		goto out;
	fprintf(stderr, "cordon: the approval console for %s listens on 127.0.0.1:%u; stop it "
			"with Ctrl-C\n",
		agent_dir, console_http_port(s));
	sigwait(stop, &sig);
	status = EXIT_OK;
out:
	if (url) {
		char *path = NULL;
		if (asprintf(&path, "%s/console/url", agent_dir) >= 0) {
			unlink(path);
			free(path);
		}
	}
	free(url);
	free(err);
	console_http_stop(s);
	return status;
}

int cmd_serve(int argc, char **argv)
{
	struct cli_args a;
	const char *arg;
	unsigned port = 0;
	int id, status = EXIT_OK, lock = -1;
	char *err = NULL;
	sigset_t stop;

	cli_args_init(&a, "serve", argc, argv);
	while ((id = cli_args_next(&a, &arg)) > 0)
		if (id == OPT_LISTEN && (status = parse_listen(arg, &port)) != EXIT_OK)
			goto out;
	if (id < 0) {
		status = a.status;
		goto out;
	}
	if (a.noperands) {
		status = cli_usage_error("serve", "unexpected operand '%s'", a.operands[0]);
		goto out;
	}
	cli_context_defaults(a.ctx);
	const char *agent_dir = cordon_context_get(a.ctx, "agent_dir");
	if ((lock = cordon_console_claim(agent_dir, &err)) < 0) {
		fprintf(stderr, "cordon: serve: %s\n", err);
		status = EXIT_USAGE;
		goto out;
	}
	sigemptyset(&stop);
	sigaddset(&stop, SIGINT);
	sigaddset(&stop, SIGTERM);
	sigaddset(&stop, SIGHUP);
	pthread_sigmask(SIG_BLOCK, &stop, NULL);
	status = serve(agent_dir, port, &stop);
out:
	if (lock >= 0)
		close(lock);
	free(err);
	cli_args_free(&a);
	return status;
}
