# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# cpu-lib.sh: sourced. child_cpu prints the CPU seconds (user and system)
# of the sourcing shell's reaped children and their reaped descendants,
# from /proc/PID/stat's cutime and cstime. On the 2-core build host make
# check's budget is CPU, not wall time: timed.sh, run-vm.sh and
# cluster.sh report it beside the seconds.
child_cpu() {
	local -a f
	read -r -a f <"/proc/$$/stat"
	echo $(((f[15] + f[16]) / $(getconf CLK_TCK)))
}
