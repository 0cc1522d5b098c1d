/* libcordon's tools: the canonical layout of a policy file (cordon fmt), a
 * unified line diff, the lint checks (cordon lint), the semantic diff of two
 * policies (cordon diff) and the coverage of a policy's tests (cordon test
 * --coverage).
 *
 * Ownership is cordon.h's rule: an object from a cordon_*_new, *_file,
 * *_fd or *_string call is yours and is released with the matching *_free
 * (which accepts NULL); a pointer a getter returns is owned by the object it
 * came from and stays valid until that object is freed; a function that
 * returns `char *` hands you a malloc'd string: free() it.  A function that
 * takes `char **err` sets *err to a malloc'd message (which you free) when
 * it fails, and leaves it alone otherwise.  The tools read policies and
 * never change them. */
#ifndef CORDON_TOOLS_H
#define CORDON_TOOLS_H

#include "cordon.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- the canonical layout (docs/fmt.md) --------------------------------------- */

/* One policy text and its canonical layout.  The text is formatted on its
 * own: its includes are not read.  Only the space between tokens changes,
 * so the layout compiles to the same IR. */
typedef struct cordon_formatted cordon_formatted;

/* Format text[0..len), shown as `name` in diagnostics.  NULL with *err only
 * for a NULL name, or a NULL text with a nonzero len; a text that does not
 * parse gives an object with errors (cordon_formatted_error_count). */
cordon_formatted *cordon_format_string(const char *name, const char *text, size_t len,
				       char **err);
/* Read and format the file at path (bounded in size as cordon_policy_load_file
 * bounds it).  NULL with *err ("cannot read 'PATH': REASON") when it cannot
 * be read, a directory included. */
cordon_formatted *cordon_format_file(const char *path, char **err);
/* The same for what fd holds up to its end (fd is read, not closed), shown
 * as `name`, e.g. "<stdin>". */
cordon_formatted *cordon_format_fd(const char *name, int fd, char **err);
void cordon_formatted_free(cordon_formatted *f);

const char *cordon_formatted_name(const cordon_formatted *f);
/* The errors that kept the text from being formatted (0 when it was). */
size_t cordon_formatted_error_count(const cordon_formatted *f);
/* Those errors, as cordon_policy_print_diagnostics prints a policy's. */
void cordon_formatted_print_diagnostics(const cordon_formatted *f, FILE *out);
/* The text as read, its length in *len (may be NULL). */
const char *cordon_formatted_source(const cordon_formatted *f, size_t *len);
/* The canonical layout, NUL-terminated, its length in *len (may be NULL);
 * NULL when the text has errors. */
const char *cordon_formatted_text(const cordon_formatted *f, size_t *len);
/* True when the layout differs from the source; false when the text is
 * formatted already or has errors. */
bool cordon_formatted_changed(const cordon_formatted *f);

/* The unified diff (as `diff -u` prints it, with three lines of context)
 * that turns old_text[0..old_len) into new_text[0..new_len), headed by
 * old_name and new_name; "" when the texts are equal.  Malloc'd and
 * NUL-terminated, its length in *len (may be NULL).  NULL with *err for a
 * NULL name, or a NULL text with a nonzero length. */
char *cordon_line_diff(const char *old_name, const char *old_text, size_t old_len,
		       const char *new_name, const char *new_text, size_t new_len, size_t *len,
		       char **err);

/* ---- lint (docs/lint.md) ------------------------------------------------------ */

enum cordon_lint_level { CORDON_LINT_ERROR, CORDON_LINT_WARNING, CORDON_LINT_INFO };
/* TEXT: each result's findings, GCC style with the source line and a caret;
 * SUMMARY: one line counting the findings of every result by level ("2
 * errors, 1 warning"; nothing when there are none); JSON: one array of the
 * findings of every result; SARIF: one SARIF 2.1.0 log of them. */
enum cordon_lint_format { CORDON_LINT_TEXT, CORDON_LINT_SUMMARY, CORDON_LINT_JSON,
			  CORDON_LINT_SARIF };

/* "error", "warning", "info"; NULL for a value outside the enum. */
const char *cordon_lint_level_name(enum cordon_lint_level level);

/* The lint checks, a fixed table. */
size_t cordon_lint_check_count(void);
/* The i-th check: its stable id, level, one-line summary and description;
 * any out-parameter may be NULL.  False (nothing set) past the end. */
bool cordon_lint_check(size_t i, const char **id, enum cordon_lint_level *level,
		       const char **summary, const char **description);
/* The index of the check with that id, or -1 (also for NULL). */
int cordon_lint_check_find(const char *id);
/* The id of the check closest to a misspelt one, or NULL when none is close. */
const char *cordon_lint_check_closest(const char *id);

/* Which checks run, and whether findings inside the shipped policies a file
 * includes are reported.  New options enable every check and leave the
 * shipped files' findings out.  Never NULL. */
typedef struct cordon_lint_options cordon_lint_options;
cordon_lint_options *cordon_lint_options_new(void);
void cordon_lint_options_free(cordon_lint_options *opts);
/* Turn the check `id` on or off; "all" names every check.  0, or -1 with
 * *err for an id that is no check's (the nearest id suggested). */
int cordon_lint_options_enable(cordon_lint_options *opts, const char *id, bool enabled,
			       char **err);
void cordon_lint_options_include_shipped(cordon_lint_options *opts, bool include);

/* The findings of one policy file: the errors of `cordon check` and those
 * of the enabled checks, less what `# cordon: ignore[ID]` comments silence,
 * sorted by file and offset. */
typedef struct cordon_lint cordon_lint;
/* Load, check and lint the file at path; opts NULL: cordon_lint_options_new's.
 * A file that cannot be read or does not compile is a result whose
 * findings say why.  NULL with *err only for a NULL path. */
cordon_lint *cordon_lint_file(const char *path, const cordon_lint_options *opts, char **err);
void cordon_lint_free(cordon_lint *l);

/* The file could not be read at all (an I/O error, exit status 2 in the
 * command line tool). */
bool cordon_lint_io_failed(const cordon_lint *l);
/* How many findings have that level (0 for a level outside the enum). */
size_t cordon_lint_count(const cordon_lint *l, enum cordon_lint_level level);
/* How many findings `# cordon: ignore[ID]` comments silenced. */
size_t cordon_lint_suppressed(const cordon_lint *l);
size_t cordon_lint_finding_count(const cordon_lint *l);
/* The i-th finding: its check's id (or a `cordon check` error id), level
 * and message; any out-parameter may be NULL.  False past the end. */
bool cordon_lint_finding(const cordon_lint *l, size_t i, const char **id,
			 enum cordon_lint_level *level, const char **message);
/* Write results[0..n) to out in one of the forms above.  0, or -1 with
 * *err for a NULL out or result, or a format outside the enum. */
int cordon_lint_print(cordon_lint *const *results, size_t n,
		      enum cordon_lint_format format, FILE *out, char **err);

/* ---- the semantic diff of two policies (cordon diff in cordon(1)) ------------- */

/* For each preset, the requests whose decision changed (both versions are
 * evaluated over one set of probe requests), the settings, protections and
 * environment that changed and the lines of the bubblewrap plan that
 * differ, each classified as widening (less severe, more reach), narrowing
 * or neither.  The policies need not outlive the diff. */
typedef struct cordon_diff cordon_diff;

enum cordon_diff_class { CORDON_DIFF_WIDENED, CORDON_DIFF_NARROWED, CORDON_DIFF_CHANGED };
enum cordon_change_kind {
	CORDON_CHANGE_PRESET,   /* a preset added or removed */
	CORDON_CHANGE_DECISION, /* a request decides differently */
	CORDON_CHANGE_SETTING,  /* description, extends, approval, sandbox, limits, default */
	CORDON_CHANGE_PROTECT,  /* a protected path added or removed */
	CORDON_CHANGE_ENV,      /* keep, set, drop, secret or code */
	CORDON_CHANGE_PLAN,     /* a line of the bubblewrap plan added or removed */
};
enum cordon_preset_status { CORDON_PRESET_UNCHANGED, CORDON_PRESET_CHANGED, CORDON_PRESET_ADDED,
			    CORDON_PRESET_REMOVED };
enum cordon_diff_format { CORDON_DIFF_TEXT, CORDON_DIFF_JSON };

/* One change; the strings are owned by the diff. */
struct cordon_diff_change {
	enum cordon_change_kind kind;
	enum cordon_diff_class cls;
	enum cordon_op op;     /* CORDON_CHANGE_DECISION only */
	const char *subject;   /* target, setting, path, variable or plan line */
	const char *old_value; /* as shown; NULL when absent on that side */
	const char *new_value;
	const char *old_rule;  /* CORDON_CHANGE_DECISION: the deciding rules
				* ("file:line:col"), or NULL */
	const char *new_rule;
};

/* The index of the policy's own settings (its default preset) for
 * cordon_diff_change_count and cordon_diff_change. */
#define CORDON_DIFF_POLICY ((size_t)-1)

/* Diff one preset (or, when preset is NULL, every preset of either policy
 * and the policy's default) under ctx (may be NULL).  A context variable
 * ctx leaves unset takes a fixed value (workspace and cwd /ws, home
 * /home/u, tmp /tmp/t, agent_dir /home/u/.cordon, session_dir
 * /home/u/.cordon/s, user u), so a diff reads the same on every machine.
 * NULL with *err for a NULL or invalid policy (one with errors), a preset
 * neither policy has, or an evaluator that cannot be built. */
cordon_diff *cordon_diff_new(const cordon_policy *old_policy, const cordon_policy *new_policy,
			     const char *preset, const cordon_context *ctx, char **err);
void cordon_diff_free(cordon_diff *d);

/* How many changes have that class (0 for a class outside the enum). */
size_t cordon_diff_count(const cordon_diff *d, enum cordon_diff_class cls);
/* How many requests were evaluated on each side. */
size_t cordon_diff_requests(const cordon_diff *d);
/* The presets compared, by name. */
size_t cordon_diff_preset_count(const cordon_diff *d);
/* The i-th preset's name and status; either out-parameter may be NULL.
 * False past the end. */
bool cordon_diff_preset(const cordon_diff *d, size_t i, const char **name,
			enum cordon_preset_status *status);
/* The changes of the i-th preset (decisions by operation and target, then
 * the rest), or of CORDON_DIFF_POLICY; 0 past the end. */
size_t cordon_diff_change_count(const cordon_diff *d, size_t preset);
/* The j-th of them into *out.  False (out untouched) past the end. */
bool cordon_diff_change(const cordon_diff *d, size_t preset, size_t j,
			struct cordon_diff_change *out);
/* The value a context variable had in the diff (the fixed one where ctx
 * left it unset), or NULL for an unknown name. */
const char *cordon_diff_context(const cordon_diff *d, const char *name);
/* Write the diff to out as `cordon diff` does: text (decisions grouped by
 * region, a count line at the end) or JSON (the two policies' names, the
 * context, every change, the counts).  0, or -1 with *err for a NULL d or
 * out, or a format outside the enum. */
int cordon_diff_print(const cordon_diff *d, enum cordon_diff_format format, FILE *out,
		      char **err);
/* The first widening change in words ("preset \"NAME\": write /ws/x: deny
 * -> allow"), or NULL when nothing widened. */
char *cordon_diff_first_widening(const cordon_diff *d);

/* ---- policy tests with coverage (cordon test in cordon(1)) -------------------- */

/* The rules of one or more policies, each covered or not: a rule is covered
 * when it decided at least one expectation of a test that ran.  Rules are
 * told apart by where they were written, so a rule inherited by several
 * presets, or a file included by several policies, counts once. */
typedef struct cordon_coverage cordon_coverage;

/* include_shipped: count the rules of the shipped policies a policy
 * includes too.  Never NULL. */
cordon_coverage *cordon_coverage_new(bool include_shipped);
void cordon_coverage_free(cordon_coverage *cov);

struct cordon_test_options {
	bool include_shipped;      /* run the test blocks of included shipped files too
				    * (otherwise a comment counts those left out) */
	const char *host;          /* decide on that host's facts ("linux", "macos");
				    * NULL: this machine's */
	cordon_coverage *coverage; /* add the policy's rules, mark those that decide; or NULL */
};

/* Run the test blocks of a policy, writing TAP lines to out numbered from
 * *count + 1 (*count is advanced past them; the plan line is the caller's),
 * and add the expectations that failed to *failed (may be NULL).  opts NULL:
 * a zeroed struct.  0, or -1 with *err and nothing run for a NULL policy or
 * out, a policy with errors, or an unknown host. */
int cordon_test_run(const cordon_policy *policy, const struct cordon_test_options *opts,
		    FILE *out, size_t *count, size_t *failed, char **err);

/* Settle which rules are covered, once the tests have run; returns the
 * total percentage (100 for no rules).  What the getters and
 * cordon_coverage_print show is what the last call settled. */
double cordon_coverage_finish(cordon_coverage *cov);
size_t cordon_coverage_rule_count(const cordon_coverage *cov);
/* The i-th rule, by file and position: its origin ("file:line:col"), its
 * text as written (`write "/ws" allow`), its preset (NULL at the top level)
 * and whether it is covered; any out-parameter may be NULL.  False past
 * the end. */
bool cordon_coverage_rule(const cordon_coverage *cov, size_t i, const char **origin,
			  const char **text, const char **preset, bool *covered);
/* Per file, the total, then the uncovered rules, as TAP comment lines. */
void cordon_coverage_print(const cordon_coverage *cov, FILE *out);

/* ---- the managed layer (docs/fleet.md) ----------------------------------------- */

/* Put lower under managed, taking both: lower is returned, holding the
 * managed layer, with an error (id managed-layer, at the lower layer's
 * rule, with a note at the managed layer's) for each way it widens the
 * managed layer, found with the semantic diff (the managed layer as the
 * old policy): an allow over a deny or an ask, a removed protection, a
 * wider env keep list, a higher limit, approval ask where the managed
 * layer says never, sandbox none, a preset the managed layer does not
 * offer, another default than the one it sets; and one error when the
 * managed layer says `lower_layers deny;`.  Every evaluator of the result
 * decides with both layers and keeps the stricter decision.  A managed
 * layer with errors is returned as it is (lower is freed): it is used for
 * nothing.  lower may be NULL: managed is returned. */
cordon_policy *cordon_policy_layer(cordon_policy *managed, cordon_policy *lower);
/* Before a launch under a layered policy: 0 when the sandbox plan of ev's
 * preset (the lower layer's) has no operation that widens the managed
 * layer's plan under ev's context, else -1 with *err naming the first.
 * 0 for an evaluator without a managed layer. */
int cordon_evaluator_check_layers(const cordon_evaluator *ev, char **err);

/* ---- signed bundles (docs/fleet.md, "Signed bundles") --------------------------- */

/* The namespace a bundle's manifest is signed in:
 * ssh-keygen -Y sign -n cordon-policy -f KEY BUNDLE/manifest */
#define CORDON_BUNDLE_NAMESPACE "cordon-policy"

/* A bundle: a directory holding `manifest` (the format version, the
 * bundle's version, an optional expiry, and each source's SHA-256 and
 * name, the first source being the policy), `manifest.sig` (the SSH
 * signature of the manifest) and the sources. */
typedef struct cordon_bundle cordon_bundle;

/* Write a new, unsigned bundle into the directory out (which must not
 * exist): the files, by their base names, the first being the policy.
 * expires is a time in seconds since the epoch, or 0 for none.  Returns 0,
 * or -1 with *err (malloc'd). */
int cordon_bundle_create(const char *out, unsigned long long version, long long expires,
			 char *const *files, size_t nfiles, char **err);
/* Read the bundle in dir and verify it: the manifest signed in
 * CORDON_BUNDLE_NAMESPACE by a key the allowed-signers file keys trusts,
 * every source's digest, a version not below min_version, no expiry before
 * now.  With keys NULL the signature is not looked at (a bundle being
 * made).  Returns the bundle, or NULL with *err (malloc'd) naming the
 * reason. */
cordon_bundle *cordon_bundle_verify(const char *dir, const char *keys,
				    unsigned long long min_version, char **err);
void cordon_bundle_free(cordon_bundle *b);
/* An expiry as cordon bundle create takes it: YYYY-MM-DD (midnight UTC)
 * or YYYY-MM-DDTHH:MM:SSZ, into seconds since the epoch.  0, or -1. */
int cordon_bundle_parse_time(const char *s, long long *t);
unsigned long long cordon_bundle_version(const cordon_bundle *b);
/* The expiry in seconds since the epoch, or 0 for none. */
long long cordon_bundle_expires(const cordon_bundle *b);
/* Who signed it: the principals of the trusted key's line, and the key
 * ("ssh-ed25519 SHA256:..."); NULL for a bundle read without keys. */
const char *cordon_bundle_signer(const cordon_bundle *b);
const char *cordon_bundle_key(const cordon_bundle *b);
size_t cordon_bundle_source_count(const cordon_bundle *b);
const char *cordon_bundle_source_name(const cordon_bundle *b, size_t i);
/* Load the bundle's policy (its first source) and check that every file
 * the load read is a source of the bundle with the manifest's digest (the
 * files shipped in cordon excepted).  Returns the policy, which may have
 * errors, or NULL with *err when it read anything else. */
cordon_policy *cordon_bundle_load(const cordon_bundle *b, char **err);

/* The installed bundle of confdir (SYSCONFDIR/cordon): confdir/bundle, a
 * link to confdir/bundles/VERSION; its trusted keys confdir/allowed_signers;
 * the highest version installed, confdir/bundle.version. */
/* Are signed bundles required here: does confdir/allowed_signers exist,
 * or can its absence not be told? */
bool cordon_bundle_required(const char *confdir);
/* The highest version installed (0 when none was), read from
 * confdir/bundle.version, which must be root's and writable by no one
 * else.  Returns 0, or -1 with *err. */
int cordon_bundle_recorded_version(const char *confdir, unsigned long long *version, char **err);
/* The installed bundle, verified against the installed keys (root's,
 * writable by no one else) and the recorded version, and its policy
 * loaded as cordon_bundle_load does.  NULL with *err naming the reason. */
cordon_policy *cordon_bundle_load_installed(const char *confdir, char **err);
/* Install b (verified against the installed keys) into confdir: its files
 * are written and synced into a new directory, which replaces the
 * installed one by the rename of a link, and the recorded version is
 * raised.  Refuses a version below the recorded one, or equal to it with
 * another manifest.  Until the rename the installed bundle is untouched;
 * the one it replaces is kept.  Returns 0 (1 when this very bundle was
 * already installed), or -1 with *err. */
int cordon_bundle_install(const cordon_bundle *b, const char *confdir, char **err);

#ifdef __cplusplus
}
#endif

#endif
