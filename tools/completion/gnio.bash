# SPDX-License-Identifier: MIT
# bash completion for gnio: verbs, each verb's flags, and values where the
# set is known (wire kinds and interfaces, apps, protocols, devices, files).
# Installed as share/bash-completion/completions/gnio, which bash-completion
# loads the first time `gnio` is completed; `source` it to use it without.

# Flags per verb. Keep in step with each verb's --help (tests/cli/test_completion.sh
# checks that every flag --help lists is here).
_gnio_flags_run='--duration --wire --gpu --app --size --proto --rate --count --queues --ring
	--burst --batch --flow-control --poll --mem --recv-scope --send-scope --threads --json --quiet --help
	--config --check-config --metrics --metrics-hold --poll --flow --rss --cpus --user --hold-us
	--inline-header --watchers'
_gnio_flags_gen='--wire --count --proto --size --rate --queue --flows --first-seq --burst --json --help'
_gnio_flags_sink='--wire --duration --count --idle --verify --proto --size --flows --first-seq
	--max-frame --queue --flow --json --help'
_gnio_flags_flow='--wire --pcap --queue --json --help'
_gnio_flags_env='--json --help'
_gnio_flags_caps='--wire --gpu --json --help'
_gnio_flags_version_matrix='--json --help'
_gnio_flags_configure='--wire --gpu --save --snapshot --json --help'
_gnio_flags_test='--wire --gpu --peer --loop --evidence --break-peer --json --help'
_gnio_flags_debug='--gpu --capture --compare --json --help'
_gnio_flags_rollback='--wire --gpu --deadline --hang --json --help'
_gnio_flags_sample='--json --help'
_gnio_verbs='run gen sink flow env caps version-matrix configure test debug rollback sample version help'

_gnio_netdevs()
{
	local d
	for d in /sys/class/net/*; do
		[ -e "$d" ] && printf '%s\n' "${d##*/}"
	done
}

# "cpu", and the PCIe bus id of every NVIDIA display/3D controller.
_gnio_devices()
{
	local d
	printf 'cpu\n'
	for d in /sys/bus/pci/devices/*; do
		[ -r "$d/vendor" ] && [ -r "$d/class" ] || continue
		[ "$(cat "$d/vendor")" = 0x10de ] || continue
		case "$(cat "$d/class")" in 0x03*) printf '%s\n' "${d##*/}" ;; esac
	done
}

# Candidates for a wire spec being typed: the kinds, then for afxdp:/afpacket:
# the interfaces, for pcap: the files.
_gnio_wires()
{
	local cur=$1 f
	case "$cur" in
	afxdp:* | afpacket:*)
		for f in $(_gnio_netdevs); do printf '%s\n' "${cur%%:*}:$f"; done ;;
	pcap:*)
		compgen -f -- "${cur#pcap:}" | sed 's/^/pcap:/' ;;
	*:*) ;;
	*) printf '%s\n' sw: null: afxdp: afpacket: pcap: ;;
	esac
}

_gnio()
{
	# Split the line up to the cursor on blanks ourselves: bash also breaks
	# words at ':' and '=', which would cut "afxdp:eth0" and "--wire=x" apart.
	local line=${COMP_LINE:0:COMP_POINT} cur prev verb cands="" i
	local -a toks
	read -ra toks <<< "$line"
	if [[ $line =~ [[:space:]]$ ]]; then
		cur=""
		toks+=("")
	fi
	cur=${toks[${#toks[@]}-1]}
	prev=""
	[ ${#toks[@]} -ge 2 ] && prev=${toks[${#toks[@]}-2]}
	if [[ $cur == --*=* ]]; then # --flag=value
		prev=${cur%%=*}
		cur=${cur#*=}
	fi

	verb=""
	if [ ${#toks[@]} -ge 3 ] && [[ ${toks[1]} != -* ]]; then
		verb=${toks[1]}
	fi
	if [ ${#toks[@]} -eq 2 ] && [[ $cur != -* ]]; then
		cands=$_gnio_verbs
	else
		case "$prev" in
		--wire) cands=$(_gnio_wires "$cur") ;;
		--gpu)
			cands=$(_gnio_devices)
			[ "$verb" = debug ] && cands="$cands cuda"
			[ "$verb" = run ] && cands="$cands auto" ;;
		--app) cands='count classify touch echo echo-copy fwd verify' ;;
		--proto)
			if [ "$verb" = gen ] || [ "$verb" = sink ]; then
				cands='udp dns tcp tcp-syn tcp-ack tcp-fin http icmp arp mix'
			else
				cands='udp dns tcp http icmp arp mix'
			fi ;;
		--flow-control) cands='on off auto' ;;
		--poll) cands='adaptive busy' ;;
		--mem) cands='cpu_gpu gpu' ;;
		--recv-scope|--send-scope) cands='thread warp block' ;;
		--peer) cands=$(_gnio_netdevs) ;;
		--user) cands=$(compgen -u) ;;
		--config | --save | --snapshot | --pcap) cands=$(compgen -f -- "$cur") ;;
		--evidence | --capture | --compare) cands=$(compgen -d -- "$cur") ;;
		--duration | --size | --rate | --count | --queues | --ring | --burst | --batch | \
			--threads | --watchers | --metrics | --metrics-hold | --poll | --cpus | --queue | --flows | --hold-us | \
			--first-seq | --idle | --max-frame | --loop | --deadline)
			return 0 ;; # a value gnio cannot guess
		*)
			local v=${verb:-run} var
			var="_gnio_flags_${v//-/_}"
			if [[ $cur == -* ]]; then
				cands=${!var-}
				[ -z "$verb" ] && cands="$cands --version"
			elif [ "$verb" = flow ] && [ ${#toks[@]} -eq 3 ]; then
				cands='check classify'
			elif [ "$verb" = sample ] && [ ${#toks[@]} -eq 3 ]; then
				cands='list new'
			elif [ "$verb" = sample ] && [ "${toks[2]}" = new ] && [ ${#toks[@]} -eq 4 ]; then
				cands=$("${toks[0]}" sample list 2> /dev/null | awk 'NR > 1 {print $1}')
			elif [ "$verb" = sample ] && [ "${toks[2]}" = new ] && [ ${#toks[@]} -eq 5 ]; then
				cands=$(compgen -d -- "$cur")
			elif [ "$verb" = flow ] || [ "$prev" = --flow ]; then
				cands=$(compgen -f -- "$cur")
			elif [ "$verb" = version-matrix ]; then
				cands=$("${toks[0]}" version-matrix 2> /dev/null | awk 'NR > 1 {print $2}')
			elif [ "$verb" = debug ] && [[ " ${toks[*]} " == *" --compare "* ]]; then
				cands=$(compgen -d -- "$cur")
			fi ;;
		esac
	fi

	COMPREPLY=()
	local c
	while IFS= read -r c; do
		[ -n "$c" ] && COMPREPLY+=("$c")
	done < <(compgen -W "$cands" -- "$cur")

	# Readline replaces only the text after the last word-break character
	# (':' and '=' among them): hand it candidates with that part cut off.
	local full=$cur n=0
	for ((i = ${#full} - 1; i >= 0; i--)); do
		if [[ $COMP_WORDBREAKS == *"${full:i:1}"* ]]; then
			n=$((i + 1))
			break
		fi
	done
	if [ $n -gt 0 ]; then
		for i in "${!COMPREPLY[@]}"; do
			COMPREPLY[i]=${COMPREPLY[i]:n}
		done
	fi
	# "afxdp:" and directories go on being typed.
	if [ ${#COMPREPLY[@]} -eq 1 ] && [[ ${COMPREPLY[0]} == *[:/] || ${COMPREPLY[0]} == "" ]]; then
		compopt -o nospace 2> /dev/null
	fi
	return 0
}
complete -F _gnio gnio
