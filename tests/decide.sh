#!/bin/sh
# Decision tests: every tests/decide/NAME.cases is run against the policy
# tests/decide/NAME.cordon with `cordon eval --json`, one TAP line a case.
#
# A .cases file is read line by line; blank lines and lines starting with
# `#` are comments.  Each file gets a fresh directory $T (canonical, no
# symlinks in it), and `$T` in setup commands, context values, targets and
# expected targets stands for it.
#
#   setup SHELL-COMMAND     run by sh in $T (with T exported), in order, when
#                           reached; builds trees, links, hard links, ...
#   preset NAME             the preset of the following cases
#   context K=V ...         the --context of the following cases (replaces
#                           the previous context; `context` alone clears it)
#   sandboxed yes|no        whether the following requests will run under
#                           cordon's sandbox (--sandboxed); no at the start
#
# A case:
#
#   [todo ["WHY"]] [escalate "WHY"] EFFECT OP TARGET [@ RULE] [=> CANONICAL]
#
#   EFFECT     allow, ask or deny: the expected "decision"; or error: the
#              request must be refused with exit status 2 (a usage error,
#              such as an escalation without justification, or a context the
#              evaluator cannot use)
#   OP         read, write, exec, net or tool
#   TARGET     the rest of the line up to ` @ ` or ` => ` (spaces allowed, for
#              exec); '' is the empty target
#   RULE       the deciding rule, by its text: the one line of NAME.cordon
#              that holds that text (runs of blanks count as one), such as
#              `write "/ok"`; where two rules read alike, the line ends in
#              a comment with a label, `# [NAME]`, and RULE is `[NAME]`.
#              `-` when no rule decides (no match, an unresolvable path); for
#              error, a text the message on stderr must contain.  A line
#              number is refused: any edit above the rule would break it
#   CANONICAL  the target the evaluator judged (the first operation's
#              "target": the canonical path for read and write)
#   escalate   ask to run outside the sandbox, with that justification
#              ("" is an empty one)
#   todo       a known failure: the case is reported as TAP `# TODO`
#
# Run by hand: CORDON=$PWD/cordon srcdir=$PWD builddir=$PWD sh tests/decide.sh
. "$srcdir/tests/lib.sh"

# Cases run in their own directory: make the paths absolute.
case $CORDON in
/*) ;;
*/*) CORDON=$PWD/$CORDON ;;
esac
decide_dir=$(cd "$srcdir/tests/decide" && pwd) || exit 2

nl='
'

# result STATUS DESCRIPTION TODO-REASON: a TAP line, a TODO one when the
# reason is not empty (a failing TODO does not fail the run).
result() {
	if [ -z "$3" ]; then
		ok "$1" "$2"
		return
	fi
	tap_n=$((tap_n + 1))
	if [ "$1" -eq 0 ]; then
		echo "ok $tap_n - $2 # TODO $3"
	else
		echo "not ok $tap_n - $2 # TODO $3"
	fi
}

# subst TEXT: TEXT with every `$T` replaced by the value of $T.
subst() {
	s=$1 out=
	while :; do
		case $s in
		*'$T'*)
			out=$out${s%%\$T*}$T
			s=${s#*\$T}
			;;
		*)
			out=$out$s
			break
			;;
		esac
	done
	printf '%s' "$out"
}

# quoted TEXT: split a leading "..." off TEXT into $q_word and $q_rest;
# status 1 when TEXT does not start with a quoted word.
quoted() {
	case $1 in
	'"'*'"'*) ;;
	*) return 1 ;;
	esac
	q_rest=${1#\"}
	q_word=${q_rest%%\"*}
	q_rest=${q_rest#*\"}
	q_rest=${q_rest# }
	return 0
}

# rule_line TEXT POLICY: the number of the one line of POLICY that holds
# TEXT, runs of blanks squeezed in both; status 1 (and nothing) when no line
# or more than one does.
rule_line() {
	want=$1 awk '
	function squeeze(s) { gsub(/[ \t]+/, " ", s); sub(/^ /, "", s); sub(/ $/, "", s); return s }
	BEGIN { want = squeeze(ENVIRON["want"]) }
	index(squeeze($0), want) && squeeze($0) !~ /^#/ { hits++; at = NR }
	END { if (hits != 1) exit 1; print at }' "$2"
}

# json_field NAME FILE: the decision's top-level "decision" or "rule"
# ("null" for a null rule), or the first operation's "target".
json_field() {
	case $1 in
	decision) sed -n 's/^{"decision":"\([a-z]*\)".*/\1/p' "$2" ;;
	rule)
		if grep -q '"rule":null,"preset":"' "$2"; then
			echo null
		else
			sed -n 's/^.*"rule":"\([^"]*\)","preset":".*$/\1/p' "$2"
		fi
		;;
	target) sed -n 's/^.*"operations":\[{"op":"[a-z]*","target":"\([^"]*\)".*$/\1/p' "$2" ;;
	esac
}

# run_case FILE LINENO LINE
run_case() {
	where=$1:$2 line=$3 todo='' why='' escalating=''
	case $line in
	todo\ *)
		line=${line#todo }
		todo="known failure"
		if quoted "$line"; then
			todo=$q_word line=$q_rest
		fi
		;;
	esac
	case $line in
	escalate\ *)
		if ! quoted "${line#escalate }"; then
			ok 1 "$where: escalate needs a \"justification\""
			return
		fi
		escalating=1 why=$q_word line=$q_rest
		;;
	esac
	want=${line%% *}
	line=${line#* }
	line=${line#"${line%%[! ]*}"}
	op=${line%% *}
	rest=${line#* }
	rest=${rest#"${rest%%[! ]*}"}
	case $want in
	allow | ask | deny | error) ;;
	*)
		ok 1 "$where: unknown effect '$want'"
		return
		;;
	esac
	case $op in
	read | write | exec | net | tool) ;;
	*)
		ok 1 "$where: unknown operation '$op'"
		return
		;;
	esac
	want_rule='' want_target='' shown_target=''
	case $rest in
	*' => '*)
		shown_target=${rest##* => }
		want_target=$(subst "$shown_target")
		rest=${rest% => *}
		;;
	esac
	case $rest in
	*' @ '*)
		want_rule=${rest##* @ }
		rest=${rest% @ *}
		;;
	esac
	target=$rest
	[ "$target" = "''" ] && target=
	target=$(subst "$target")
	desc="$where: $want $op $rest${want_rule:+ @ $want_rule}${shown_target:+ => $shown_target}"

	# The options: context words are newline-separated, so a $T with
	# blanks stays one argument.
	set -f
	save_ifs=$IFS
	IFS=$nl
	# shellcheck disable=SC2086
	set -- $ctx_args
	IFS=$save_ifs
	set +f
	if [ -n "$preset" ]; then
		set -- --preset "$preset" "$@"
	fi
	if [ -n "$escalating" ]; then
		set -- "$@" --escalate "$why"
	fi
	if [ "$sandboxed" = yes ]; then
		set -- "$@" --sandboxed
	fi
	(cd "$T" && HOME=$T/.home exec "$CORDON" eval -p "$policy" "$@" --json "$op" "$target") \
		< /dev/null > "$tmpdir/out" 2> "$tmpdir/err"
	rc=$?

	fail=
	if [ "$want" = error ]; then
		[ "$rc" -eq 2 ] || fail="exit status $rc, wanted 2"
		if [ -n "$want_rule" ] && ! grep -F -q -e "$want_rule" "$tmpdir/err"; then
			fail="${fail:+$fail; }the message does not say '$want_rule'"
		fi
	elif [ "$rc" -ne 0 ]; then
		fail="exit status $rc"
	else
		got=$(json_field decision "$tmpdir/out")
		if [ "$got" != "$want" ]; then
			fail="decision '$got', wanted '$want'"
		fi
		if [ -n "$want_rule" ]; then
			got_rule=$(json_field rule "$tmpdir/out")
			case $want_rule in
			-) [ "$got_rule" = null ] || fail="${fail:+$fail; }rule '$got_rule', wanted none" ;;
			*[!0-9]*)
				if ! at=$(rule_line "$want_rule" "$policy"); then
					fail="${fail:+$fail; }not one line of $name.cordon holds '$want_rule'"
				else
					case $got_rule in
					"$name.cordon:$at":* | */"$name.cordon:$at":*) ;;
					*) fail="${fail:+$fail; }rule '$got_rule', wanted '$want_rule' ($name.cordon:$at)" ;;
					esac
				fi
				;;
			*) fail="${fail:+$fail; }a rule named by its line ($want_rule): name it by its text" ;;
			esac
		fi
		if [ -n "$want_target" ]; then
			got_target=$(json_field target "$tmpdir/out")
			[ "$got_target" = "$want_target" ] ||
				fail="${fail:+$fail; }target '$got_target', wanted '$want_target'"
		fi
	fi
	if [ -z "$fail" ]; then
		result 0 "$desc" "$todo"
		return
	fi
	result 1 "$desc" "$todo"
	{
		echo "$fail"
		echo "cordon eval -p $policy $* --json $op '$target'"
		[ -s "$tmpdir/out" ] && cat "$tmpdir/out"
		[ -s "$tmpdir/err" ] && sed 's/^/stderr: /' "$tmpdir/err"
	} | diag
}

for cases in "$decide_dir"/*.cases; do
	name=$(basename "$cases" .cases)
	policy=$decide_dir/$name.cordon
	file=decide/$name.cases
	if [ ! -f "$policy" ]; then
		ok 1 "$file: no $name.cordon beside it"
		continue
	fi
	mkdir "$tmpdir/$name" || exit 2
	T=$(cd "$tmpdir/$name" && pwd -P)
	preset='' ctx_args='' sandboxed=no
	lineno=0
	while IFS= read -r line || [ -n "$line" ]; do
		lineno=$((lineno + 1))
		# Leading blanks are ignored.
		line=${line#"${line%%[! 	]*}"}
		case $line in
		'' | '#'*) continue ;;
		setup\ *)
			cmd=${line#setup }
			if ! (cd "$T" && export T && sh -c "$cmd") < /dev/null > "$tmpdir/err" 2>&1; then
				ok 1 "$file:$lineno: setup $cmd"
				diag < "$tmpdir/err"
			fi
			;;
		preset\ *) preset=${line#preset } ;;
		'sandboxed yes' | 'sandboxed no') sandboxed=${line#sandboxed } ;;
		context | context\ *)
			ctx_args=
			set -f
			for kv in ${line#context}; do
				ctx_args=$ctx_args--context$nl$(subst "$kv")$nl
			done
			set +f
			;;
		*) run_case "$file" "$lineno" "$line" ;;
		esac
	done < "$cases"
done

done_testing
