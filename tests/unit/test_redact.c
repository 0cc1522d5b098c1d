/* Redaction: every shipped pattern on a real secret of its kind and on a
 * near miss that must stay, then the language's rules for patterns
 * (replacement by name, the secret group, overlaps, bad regexes). */
#include "config.h"

#include "cordon.h"
#include "tap.h"

#include <stdlib.h>
#include <string.h>

struct redact_case {
	const char *kind, *input, *want;
};

static const struct redact_case cases[] = {
	{ "aws-access-key", "id=AKIAIOSFODNN7EXAMPLE;", "id=[REDACTED:aws-access-key];" },
	{ "aws-access-key", "temp ASIAY34FZKBOKMUTVV7A done", "temp [REDACTED:aws-access-key] done" },
	{ "aws-access-key", "AKIAIOSFODNN7EXAMPL is 19 long", NULL },
	{ "aws-access-key", "AKIAIOSFODNN7EXAMPLEX runs on", NULL },
	{ "aws-secret-key", "aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY\n",
	  "aws_secret_access_key = [REDACTED:aws-secret-key]\n" },
	{ "aws-secret-key", "\"AWS_SECRET_ACCESS_KEY\": \"wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY\"",
	  "\"AWS_SECRET_ACCESS_KEY\": \"[REDACTED:aws-secret-key]\"" },
	{ "aws-secret-key", "aws_secret_access_key = tooshort/K7MDENG", NULL },
	{ "github-token", "GITHUB_TOKEN ghp_1234567890abcdefghijABCDEFGHIJ123456 set",
	  "GITHUB_TOKEN [REDACTED:github-token] set" },
	{ "github-token", "gho_1234567890abcdefghijABCDEFGHIJ123456", "[REDACTED:github-token]" },
	{ "github-token", "ghu_1234567890abcdefghijABCDEFGHIJ123456", "[REDACTED:github-token]" },
	{ "github-token", "ghs_1234567890abcdefghijABCDEFGHIJ123456", "[REDACTED:github-token]" },
	{ "github-token", "ghr_1234567890abcdefghijABCDEFGHIJ123456", "[REDACTED:github-token]" },
	{ "github-token",
	  "github_pat_11ABCDEFG0123456789abc_abcdefghijklmnopqrstuvwxyz0123456789ABCDEFGHIJKLMNOPQRSTUVW",
	  "[REDACTED:github-token]" },
	{ "github-token", "ghp_short and ghx_1234567890abcdefghijABCDEFGHIJ123456", NULL },
	{ "gitlab-token", "PRIVATE-TOKEN: glpat-xxxxxxxxxxxxxxxxxxxx",
	  "PRIVATE-TOKEN: [REDACTED:gitlab-token]" },
	{ "gitlab-token", "glpat-tooshort", NULL },
	{ "bearer-token", "curl -H 'Authorization: Bearer eyJhbGciOiJIUzI1NiJ9.e30.sig' url",
	  "curl -H 'Authorization: Bearer [REDACTED:bearer-token]' url" },
	{ "bearer-token", "authorization=bearer abcdefgh12345678", "authorization=bearer [REDACTED:bearer-token]" },
	{ "bearer-token", "the Authorization: header carries a Bearer scheme", NULL },
	{ "password", "mysql --password=hunter22 db", "mysql --password=[REDACTED:password] db" },
	{ "password", "passwd: s3cr3t\nuser: me", "passwd: [REDACTED:password]\nuser: me" },
	{ "password", "PASSWORD=\"two words\"", "PASSWORD=[REDACTED:password]" },
	{ "password", "enter your password:\nnext line", NULL },
	{ "password", "a password reset", NULL },
	{ "private-key",
	  "before\n-----BEGIN RSA PRIVATE KEY-----\nMIIEpAIBAAKCAQEA\nabcd\n-----END RSA PRIVATE KEY-----\nafter",
	  "before\n[REDACTED:private-key]\nafter" },
	{ "private-key",
	  "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjE=\n-----END OPENSSH PRIVATE KEY-----",
	  "[REDACTED:private-key]" },
	{ "private-key", "-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG9w0B (cut off)",
	  "[REDACTED:private-key]" },
	{ "private-key", "-----BEGIN PUBLIC KEY-----\nMIIBIjANBgkq\n-----END PUBLIC KEY-----", NULL },
	{ "private-key", "-----BEGIN CERTIFICATE-----\nMIIBIjANBgkq\n-----END CERTIFICATE-----", NULL },
	{ "slack-token", "SLACK_BOT_TOKEN=xoxb-1234567890-abcdefghijkl",
	  "SLACK_BOT_TOKEN=[REDACTED:slack-token]" },
	{ "slack-token", "xoxp-0987654321-abcdef", "[REDACTED:slack-token]" },
	{ "slack-token", "xoxz-1234567890-abcdefghijkl and xoxb-short", NULL },
	{ "slack-webhook", "post to https://hooks.slack.com/services/T000/B000/XXXXXXXX now",
	  "post to [REDACTED:slack-webhook] now" },
	{ "slack-webhook", "see https://hooks.slack.com/ for docs", NULL },
	{ "api-key", "https://api.example.com/v1?api_key=abcd1234efgh5678&x=1",
	  "https://api.example.com/v1?api_key=[REDACTED:api-key]&x=1" },
	{ "api-key", "{\"api-key\": \"0123456789abcdef\"}", "{\"api-key\": \"[REDACTED:api-key]\"}" },
	{ "api-key", "api_key=short, and the apikey docs", NULL },
};

static char *redact(const cordon_redactor *r, const char *s, size_t *count)
{
	return cordon_redact(r, s, strlen(s), NULL, count);
}

static void test_shipped(void)
{
	cordon_policy *p = cordon_policy_load_embedded();
	char *err = NULL;
	cordon_redactor *r = cordon_redactor_new(p, &err);
	ok(r && cordon_redactor_count(r) >= 10, "the embedded policy ships its redaction patterns (%zu)",
	   cordon_redactor_count(r));
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const struct redact_case *c = &cases[i];
		size_t n = 0;
		char *got = redact(r, c->input, &n);
		if (c->want) {
			is_str(got, c->want, "%s: redacts case %zu", c->kind, i);
		} else {
			is_str(got, c->input, "%s: near miss %zu stays", c->kind, i);
			ok(n == 0, "%s: near miss %zu counts no secret", c->kind, i);
		}
		free(got);
	}
	/* Binary bytes and a NUL inside the text pass through. */
	static const char bin[] = "\xff\x00 ghp_1234567890abcdefghijABCDEFGHIJ123456 \xfe";
	size_t len = 0, n = 0;
	char *got = cordon_redact(r, bin, sizeof(bin) - 1, &len, &n);
	static const char want[] = "\xff\x00 [REDACTED:github-token] \xfe";
	ok(n == 1 && len == sizeof(want) - 1 && memcmp(got, want, len) == 0,
	   "bytes that are not UTF-8, and a NUL, pass through around a secret");
	free(got);
	cordon_redactor_free(r);
	cordon_policy_free(p);
}

static cordon_redactor *compile(const char *text, cordon_policy **pp)
{
	char *err = NULL;
	*pp = cordon_policy_load_string("mem.cordon", NULL, text, strlen(text));
	if (cordon_policy_error_count(*pp)) {
		cordon_policy_print_diagnostics(*pp, stdout);
		return NULL;
	}
	cordon_redactor *r = cordon_redactor_new(*pp, &err);
	free(err);
	return r;
}

static void test_language(void)
{
	cordon_policy *p;
	cordon_redactor *r;
	size_t n;
	char *got;

	r = compile("cordon 1;\n"
		    "redact \"num\" /[0-9]{4}/;\n"
		    "redact \"word\" /secret/;\n"
		    "redact \"num\" /[0-9]{6}/;\n",
		    &p);
	size_t shipped = 0;
	{
		cordon_policy *e = cordon_policy_load_embedded();
		char *err = NULL;
		cordon_redactor *er = cordon_redactor_new(e, &err);
		shipped = cordon_redactor_count(er);
		cordon_redactor_free(er);
		cordon_policy_free(e);
	}
	ok(r && cordon_redactor_count(r) == shipped + 2,
	   "a later redact of the same name replaces the earlier; the shipped ones stay");
	got = redact(r, "1234 and 123456 and secret", &n);
	is_str(got, "1234 and [REDACTED:num] and [REDACTED:word]", "the replacing pattern applies");
	ok(n == 2, "two secrets counted");
	free(got);
	cordon_redactor_free(r);
	cordon_policy_free(p);

	r = compile("cordon 1;\n"
		    "redact \"pin\" /pin=(?<secret>[0-9]+)/;\n"
		    "redact \"long\" /[0-9]{3}[a-z]+/;\n",
		    &p);
	got = redact(r, "pin=12345abc tail", &n);
	/* pin's secret 12345 and long's 345abc overlap: one replacement,
	 * named by the match that starts first. */
	is_str(got, "pin=[REDACTED:pin] tail", "overlapping matches merge into one");
	free(got);
	got = redact(r, "", &n);
	is_str(got, "", "empty text stays empty");
	free(got);
	cordon_redactor_free(r);
	cordon_policy_free(p);

	r = compile("cordon 1;\nredact \"maybe\" /x*/;\n", &p);
	got = redact(r, "abxxc", &n);
	is_str(got, "ab[REDACTED:maybe]c", "empty matches are skipped, not looped on");
	free(got);
	cordon_redactor_free(r);
	cordon_policy_free(p);

	/* A pattern that exhausts pcre2's match limit fails closed. */
	r = compile("cordon 1;\nredact \"slow\" /(*LIMIT_MATCH=10)^(a|aa)+$/;\n",
		    &p);
	got = redact(r, "aaaaaaaaaaaaaaaaaaaaaaaaaaaaab", &n);
	is_str(got, "[REDACTED:redaction-failed]", "a match that cannot finish hides the text");
	free(got);
	cordon_redactor_free(r);
	cordon_policy_free(p);

	/* The shipped patterns are the floor of every policy. */
	r = compile("cordon 1;\n", &p);
	ok(cordon_redactor_count(r) == shipped, "a policy without redact gets the shipped patterns");
	got = redact(r, "ghp_1234567890abcdefghijABCDEFGHIJ123456", &n);
	is_str(got, "[REDACTED:github-token]", "  ... and redacts with them");
	free(got);
	cordon_redactor_free(r);
	cordon_policy_free(p);

	r = compile("cordon 1;\n"
		    "redact \"github-token\" /ghp_[A-Za-z0-9]{36}|mytok_[0-9]+/;\n"
		    "redact \"password\" /(?!)/;\n",
		    &p);
	ok(cordon_redactor_count(r) == shipped, "a policy's redact replaces a shipped one by name");
	got = redact(r, "mytok_123 password=hunter22 AKIAIOSFODNN7EXAMPLE", &n);
	is_str(got, "[REDACTED:github-token] password=hunter22 [REDACTED:aws-access-key]",
	       "  ... a replaced pattern applies, /(?!)/ switches one off, the rest stay");
	free(got);
	cordon_redactor_free(r);
	cordon_policy_free(p);
}

int main(void)
{
	test_shipped();
	test_language();
	return tap_done();
}
