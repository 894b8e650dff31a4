#!/bin/bash
# SPDX-License-Identifier: MIT
# Bash completion: installed as share/bash-completion/completions/gnio; sourced
# in bash it completes verbs (gnio r -> run, rollback), flags (gnio run --wi ->
# --wire), wire kinds and interfaces, apps; every flag a verb's --help lists
# is offered; and bash-completion's loader finds the installed file by name.
. "$(dirname "$0")/lib.sh"
: "${GNIO_BUILD:?}"

cmake --install "$GNIO_BUILD" --prefix "$TMP/prefix" > "$TMP/install.log" 2>&1 ||
	{ cat "$TMP/install.log"; echo "FAIL: cmake --install"; exit 1; }
comp="$TMP/prefix/share/bash-completion/completions/gnio"
[ -f "$comp" ] || { echo "FAIL: $comp not installed"; exit 1; }
ok "installed as share/bash-completion/completions/gnio"

# complete LINE -> the candidates bash would be handed, sorted, space-separated.
# Runs in a fresh bash, as an interactive shell would call the function.
complete_line() {
	GNIO_BIN="$GNIO" bash --norc --noprofile -c '
		. "$1" || exit 1
		COMP_LINE=$2; COMP_POINT=${#COMP_LINE}
		read -ra COMP_WORDS <<< "$COMP_LINE"
		COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
		[[ $COMP_LINE =~ [[:space:]]$ ]] && COMP_CWORD=${#COMP_WORDS[@]}
		_gnio gnio || exit 1
		printf "%s\n" "${COMPREPLY[@]}" | sort | tr "\n" " " | sed "s/ $//"' _ "$comp" "$1"
}
expect() { # expect LINE WANTED
	local got
	got=$(complete_line "$1")
	check "'$1<TAB>' offers '$2' (got '$got')" [ "$got" = "$2" ]
}
expect_has() { # expect_has LINE WORD
	local got
	got=$(complete_line "$1")
	check "'$1<TAB>' offers $2" grep -qw -- "$2" <<< "$got"
}

expect "gnio r" "rollback run"
expect "gnio ru" "run"
expect "gnio version-" "version-matrix"
expect "gnio run --w" "--watchers --wire"
expect "gnio run --wi" "--wire"
expect "gnio run --qu" "--queues --quiet"
expect "gnio run --wire " "afpacket: afxdp: null: pcap: sw:"
expect "gnio run --wire af" "afpacket: afxdp:"
expect "gnio gen --wire af" "afpacket: afxdp:"
# ':' breaks words for readline: only the part after it is handed back.
expect "gnio run --wire afxdp:l" "lo"
expect "gnio run --wire=nu" "null:"
expect "gnio run --app c" "classify count"
expect "gnio run --app f" "fwd"
expect "gnio gen --proto tcp-" "tcp-ack tcp-fin tcp-syn"
expect "gnio run --flow-control " "auto off on"
expect "gnio run --gpu c" "cpu"
expect "gnio debug --gpu cu" "cuda"
expect "gnio run --size " ""
expect_has "gnio --" "--version"
# Capability names come from the matrix of the gnio being completed.
expect "$GNIO version-matrix gpu_visible_r" "gpu_visible_rx"
mkdir -p "$TMP/capA" "$TMP/capB"
expect "gnio debug --compare $TMP/capA $TMP/capB" "$TMP/capB"
expect_has "gnio test --peer " "lo"
expect "gnio sample " "list new"
# Sample names come from the samples of the gnio being completed.
expect "$GNIO sample new l2" "l2fwd"
expect_has "$GNIO sample new " "packet_processing"
for f in --config --metrics --poll --flow --cpus --user; do
	expect_has "gnio run --" "$f"
done

# Every flag each verb's --help lists is offered after "gnio VERB --".
verbs=$("$GNIO" --help | awk '/^verbs:/ {on = 1; next} on && /^  [a-z]/ {print $1}' | grep -vx version)
for v in $verbs; do
	got=" $(complete_line "gnio $v --") "
	missing=""
	for opt in $("$GNIO" "$v" --help | grep -oE -- '--[a-z][a-z-]+' | sort -u); do
		[[ $got == *" $opt "* ]] || missing="$missing $opt"
	done
	check "gnio $v --<TAB> offers every flag of its --help${missing:+ (missing:$missing)}" [ -z "$missing" ]
done

# bash-completion finds the installed file by the command's name.
bc=/usr/share/bash-completion/bash_completion
if [ -r "$bc" ]; then
	got=$(XDG_DATA_DIRS="$TMP/prefix/share" bash --norc --noprofile -c '
		. "$1" 2> /dev/null
		_completion_loader gnio 2> /dev/null || __load_completion gnio
		complete -p gnio' _ "$bc" 2>&1)
	check "bash-completion loads it for gnio (got '$got')" grep -q -- '-F _gnio gnio' <<< "$got"
else
	bad "bash-completion not installed ($bc; scripts/bootstrap installs it)"
fi
finish
