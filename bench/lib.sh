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
