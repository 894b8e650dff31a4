# SPDX-License-Identifier: MIT
# bench/lib.sh - helpers the bench scripts share (sourced).

# thread_ticks PATTERN PID: utime + stime (clock ticks) summed over the
# threads of PID whose name matches the glob PATTERN (0 if none)
thread_ticks() {
	local t comm sum=0
	for t in /proc/"$2"/task/*; do
		comm=$(cat "$t/comm" 2>/dev/null) || continue
		# shellcheck disable=SC2053 # PATTERN is a glob on purpose
		[[ $comm == $1 ]] || continue
		# fields after the ")" of comm: utime is the 12th, stime the 13th
		sum=$((sum + $(awk '{sub(/.*\) /, ""); print $12 + $13}' "$t/stat" 2>/dev/null || echo 0)))
	done
	echo $sum
}

# veth_up NSA NSB VA VB: two network namespaces joined by a veth pair (VA in
# NSA, VB in NSB), up, IPv6 off so no autoconf frame adds to the counts, and
# both removed when the calling script exits. Needs root; exits 77 otherwise.
veth_up() {
	local a=$1 b=$2 va=$3 vb=$4
	[ "$(id -u)" = 0 ] || { echo "needs root"; exit 77; }
	ip netns add "$a" && ip netns add "$b" || exit 77
	# shellcheck disable=SC2064 # the names are fixed now
	trap "ip netns del $a 2>/dev/null; ip netns del $b 2>/dev/null" EXIT
	ip link add "$va" type veth peer name "$vb" && ip link set "$va" netns "$a" && ip link set "$vb" netns "$b" ||
		exit 77
	for n in "$a:$va" "$b:$vb"; do
		ip netns exec "${n%%:*}" sysctl -qw net.ipv6.conf.all.disable_ipv6=1
		ip -n "${n%%:*}" link set "${n##*:}" up
	done
}
