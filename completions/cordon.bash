# bash completion for cordon                                  -*- shell-script -*-
#
# Verbs and each verb's options come from the help of the cordon being
# completed, so a new verb or option completes without an edit here; the
# values of options are known here: preset names from the policy given with
# -p/--policy (or the installed or embedded one), lint check ids from
# `cordon lint --list-checks`, emit kinds, context names.  Needs nothing from
# the bash-completion package.
#
# compgen prints one word a line; file names are split at newlines only.
# shellcheck disable=SC2207

# The verbs of `cordon --help`, one a line.
_cordon_verbs()
{
	"$1" --help 2> /dev/null | sed -n '/^Verbs:$/,/^$/s/^  \([a-z][a-z-]*\) .*/\1/p'
}

# The options of `cordon VERB --help`: those in its usage lines and those
# that start an option line ("  -p, --policy FILE   ...").
_cordon_options()
{
	"$1" "$2" --help 2> /dev/null |
		sed -n -e '/^ *\(usage:\|cordon \|\[\)/p' \
			-e 's/^ *\(-[-a-z]*\(, --[a-z][-a-z]*\)\{0,1\}\).*/\1/p' |
		grep -oE -- '(^|[[ ])--?[a-z][a-z-]*' | sed 's/^[[ ]//' | sort -u
}

# The preset names of the policy on the command line, one a line.
_cordon_presets()
{
	local cordon=$1 policy=$2
	if [[ -n $policy ]]; then
		"$cordon" compile -p "$policy" --all --emit ir 2> /dev/null
	else
		"$cordon" compile --all --emit ir 2> /dev/null
	fi | sed -n 's/^preset "\(.*\)"$/\1/p'
}

# Complete files: policies (*.cordon) when $2 is "policy", any file
# otherwise; directories always, to descend into.
_cordon_files()
{
	local cur=$1 kind=$2 IFS=$'\n'
	compopt -o filenames 2> /dev/null
	if [[ $kind == policy ]]; then
		COMPREPLY=($(compgen -d -- "$cur") $(compgen -f -X '!*.cordon' -- "$cur"))
	else
		COMPREPLY=($(compgen -f -- "$cur"))
	fi
}

_cordon()
{
	local cur=${COMP_WORDS[COMP_CWORD]} prev=
	local cordon=${COMP_WORDS[0]} verb='' policy='' i w operands=0
	((COMP_CWORD > 0)) && prev=${COMP_WORDS[COMP_CWORD - 1]}
	COMPREPLY=()
	# A cordon that is not on $PATH as typed (~/bin/cordon): use the one that is.
	[[ $cordon == */* && -x $cordon ]] || cordon=cordon

	local contexts="workspace= cwd= home= tmp= agent_dir= session_dir= user="
	local emits="ir json bwrap bwrap-args landlock seccomp seccomp-bpf sbpl sbpl-argv oci k8s k8s-seccomp facts"
	local ops="read write exec net tool"

	# The verb, the policy, and how many operands come before the cursor.
	for ((i = 1; i < COMP_CWORD; i++)); do
		w=${COMP_WORDS[i]}
		if [[ -z $verb ]]; then
			[[ $w == -* ]] || verb=$w
			continue
		fi
		case $w in
		--) # cordon run: the rest is the command
			if [[ $verb == run ]]; then
				compopt -o default -o bashdefault 2> /dev/null
				if ((i == COMP_CWORD - 1)); then
					COMPREPLY=($(compgen -c -- "$cur"))
				fi
				return 0
			fi
			;;
		-p | --policy) policy=${COMP_WORDS[i + 1]}; ((i++)) ;;
		--policy=*) policy=${w#--policy=} ;;
		--preset | --emit | --context | --format | --disable | --enable | --workspace | --cwd | \
			--timeout | --max-output | --output-file | --shell | --escalate | --approval | \
			--ttl | --old | --new | --threshold | --audit | --actor | --since | --decision | \
			--host | --preview | --egress-hosts | --status-fd | --scope | --dir | -o | --output | \
			--version | --expires | --keys | --listen) ((i++)) ;;
		-*) ;;
		*) ((operands++)) ;;
		esac
	done
	policy=${policy/#\~/$HOME}

	if [[ -z $verb ]]; then
		COMPREPLY=($(compgen -W "$(_cordon_verbs "$cordon") help --help --version" -- "$cur"))
		return 0
	fi

	# The value of an option.
	case $prev in
	-p | --policy)
		_cordon_files "$cur" policy
		return 0
		;;
	--output-file | --audit | --keys)
		_cordon_files "$cur" any
		return 0
		;;
	-o | --output)
		compopt -o filenames 2> /dev/null
		COMPREPLY=($(compgen -d -- "$cur"))
		return 0
		;;
	--decision)
		COMPREPLY=($(compgen -W "allow ask deny" -- "$cur"))
		return 0
		;;
	--host)
		COMPREPLY=($(compgen -W "linux macos" -- "$cur"))
		return 0
		;;
	--preset)
		local IFS=$'\n'
		COMPREPLY=($(compgen -W "$(_cordon_presets "$cordon" "$policy")" -- "$cur"))
		return 0
		;;
	--emit)
		COMPREPLY=($(compgen -W "$emits" -- "$cur"))
		return 0
		;;
	--context)
		compopt -o nospace 2> /dev/null
		COMPREPLY=($(compgen -W "$contexts" -- "$cur"))
		return 0
		;;
	--format)
		if [[ $verb == lint ]]; then
			COMPREPLY=($(compgen -W "text json sarif" -- "$cur"))
		else
			COMPREPLY=($(compgen -W "text json" -- "$cur"))
		fi
		return 0
		;;
	--disable | --enable)
		COMPREPLY=($(compgen -W "all $("$cordon" lint --list-checks 2> /dev/null | cut -d' ' -f1)" -- "$cur"))
		return 0
		;;
	--workspace | --cwd)
		compopt -o filenames 2> /dev/null
		COMPREPLY=($(compgen -d -- "$cur"))
		return 0
		;;
	--timeout | --max-output | --shell | --escalate | --approval | --ttl | --old | --new | \
		--threshold | --actor | --since | --version | --expires)
		return 0
		;;
	--listen)
		COMPREPLY=($(compgen -W "127.0.0.1:" -- "$cur"))
		compopt -o nospace 2> /dev/null
		return 0
		;;
	esac

	if [[ $verb == help ]]; then
		((operands == 0)) && COMPREPLY=($(compgen -W "$(_cordon_verbs "$cordon")" -- "$cur"))
		return 0
	fi
	if [[ $cur == -* ]]; then
		COMPREPLY=($(compgen -W "$({ _cordon_options "$cordon" "$verb"; echo --help; } | sort -u)" -- "$cur"))
		[[ $verb == run ]] && COMPREPLY+=($(compgen -W "--" -- "$cur"))
		return 0
	fi
	case $verb in
	eval | explain)
		if ((operands == 0)); then
			COMPREPLY=($(compgen -W "$ops" -- "$cur"))
		elif ((operands == 1)); then
			_cordon_files "$cur" any
		fi
		;;
	write | edit) ((operands == 0)) && _cordon_files "$cur" any ;;
	approve)
		if ((operands == 0)); then
			COMPREPLY=($(compgen -W "write edit tool" -- "$cur"))
		elif ((operands == 1)) && [[ ${COMP_WORDS[*]} != *" tool "* ]]; then
			_cordon_files "$cur" any
		fi
		;;
	revoke) ((operands == 0)) && COMPREPLY=($(compgen -W "tool" -- "$cur")) ;;
	audit) ((operands == 0)) && _cordon_files "$cur" any ;;
	hook)
		if ((operands == 0)); then
			COMPREPLY=($(compgen -W "claude codex gemini install uninstall doctor" -- "$cur"))
		elif ((operands == 1)) && [[ $prev == install || $prev == uninstall || $prev == doctor ]]; then
			COMPREPLY=($(compgen -W "claude codex gemini" -- "$cur"))
		fi
		;;
	bundle)
		if ((operands == 0)); then
			COMPREPLY=($(compgen -W "create verify install" -- "$cur"))
		elif [[ ${COMP_WORDS[*]} == *" create "* ]]; then
			_cordon_files "$cur" policy
		elif ((operands == 1)); then
			compopt -o filenames 2> /dev/null
			COMPREPLY=($(compgen -d -- "$cur"))
		fi
		;;
	run | probe) ;;
	*) _cordon_files "$cur" policy ;; # check, lint, test, diff: policy files
	esac
	return 0
}
complete -F _cordon cordon
