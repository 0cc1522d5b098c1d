# The steps of the GitHub Actions jobs in a Markdown file, for
# tests/ci-recipes.sh: every ```yaml block is read, each list item with a
# `run:` or `uses:` key is a step.  A step's shell script goes to
# OUT/B-S.sh (B: the block's number in the file, S: the step's); one index
# line a step is printed:  B TAB S TAB run|uses TAB FILE-or-ACTION TAB NAME
#
#   awk -v out=DIR -f workflow-steps.awk FILE.md
# Only the YAML the docs use is understood: `key: value` and `key: |`
# blocks; no anchors, no flow sequences of steps.

function indent_of(s) { match(s, /^ */); return RLENGTH }

function flush() {
	if (kind != "")
		printf "%d\t%d\t%s\t%s\t%s\n", block, step, kind, what, name
	if (file != "")
		close(file)
	kind = what = name = file = ""
	scripting = 0
}

function key(rest, at,    k, v) {
	k = rest; sub(/:.*/, "", k)
	v = rest; sub(/^[A-Za-z_-]+: */, "", v)
	if (k == "name") {
		name = v
	} else if (k == "uses") {
		kind = "uses"; what = v
	} else if (k == "run") {
		kind = "run"
		file = out "/" block "-" step ".sh"
		what = file
		if (v == "|") {
			scripting = 1; key_indent = at; script_indent = -1
			printf "" > file
		} else {
			print v > file
		}
	}
}

/^```yaml[ \t]*$/ { inyaml = 1; block++; step = 0; next }
inyaml && /^```/ { flush(); inyaml = 0; next }
!inyaml { next }

{
	line = $0
	if (scripting) {
		if (line ~ /^[ \t]*$/) { print "" > file; next }
		if (indent_of(line) > key_indent) {
			if (script_indent < 0)
				script_indent = indent_of(line)
			print substr(line, script_indent + 1) > file
			next
		}
		scripting = 0
	}
	if (line ~ /^ *- [A-Za-z_-]+:/) {
		flush()
		step++
		at = indent_of(line) + 2
		key(substr(line, at + 1), at)
		item_indent = at
	} else if (step && line ~ /^ +[A-Za-z_-]+:/ && indent_of(line) == item_indent) {
		key(substr(line, item_indent + 1), item_indent)
	}
}

END { flush() }
