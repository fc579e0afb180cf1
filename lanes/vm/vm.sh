#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# vm.sh --selftests "path/to/bin1 path/to/bin2 ..."
#       [--kernels "6.1 6.12 trixie:6.12 trixie:7.3 debug kcsan"]
#       [--race-tests "NAME..."] [--host-only "NAME..."]
#       [--trixie-only "NAME..."] [--rt-tests "NAME..."] [--demo]
#       [--args "ARGS"]
#
# Run the kselftest programs inside a QEMU guest on each kernel, two
# guests at a time (KAV_VM_JOBS): build kav.ko for it (build-kmod.sh),
# pack an initramfs (mkinitramfs.sh), boot it (run-vm.sh), then read the
# results, kernel by kernel in the order given (the debug kernel second).
# "trixie:SERIES" is a kernel of the trixie root (lanes/trixie/root.sh,
# built once per machine; kernels.sh): Debian trixie's 6.12, or
# trixie-backports' 7.3; kav.ko is built chrooted in that root, with its
# compiler, and the kernel boots from the root's /boot. "debug" is
# the debug kernel (KASAN, lockdep, kmemleak, UBSAN, KFENCE, fault
# injection, KCOV) built once per machine by debug-kernel.sh; its run adds
# a "kmemleak" case (guest-init.sh). "kcsan" is the data-race detector's
# kernel (debug-kernel.sh --flavour kcsan), also built once per machine;
# it runs only the race-sensitive programs: those of --selftests named in
# --race-tests (make vmtest passes SELFTEST_RACE), or all of them when
# --race-tests is not given. Then:
#
# - each program's top-level TAP lines ("ok N", "not ok N", "# SKIP") are
#   the test cases; a program without a TAP plan is one case (rc 0 passes);
#   a program that ends with rc != 0 without reporting a failure, gives
#   fewer results than its plan, or never ends, adds one failure
#   "<prog>: crashed/timeout"; a program never started is "<prog>: not run";
# - each kernel report on the console (BUG:, WARNING:, Oops, KFENCE, ...;
#   on kcsan every "BUG: KCSAN: data-race") is a failure "<kver>: kernel
#   report", shown with its console excerpt;
# - a guest that never prints @@KAV-DONE is a failure.
#
# Every line a program prints is echoed prefixed with "[<kver>] ". The last
# line is "N passed, N failed" (", N skipped" if any), over all kernels;
# the exit status is 0 only if nothing failed.
#
# --host-only: programs (by file name) that test the host's userland
# rather than the kernel (fabtests and MPICH over bookworm's libfabric,
# Debian's Slurm over 9p): run on the host's and the debug kernels, not
# on the trixie root's; with KAV_USERLAND_KERNEL=SERIES (make vmtest:
# 6.12) only on the host's kernel of that series and the debug kernels,
# since what they test is the userland, which the other kernels do not
# change. --userland-only: programs (by file name) that test the host's
# userland and nothing a debug kernel checks better: with
# KAV_USERLAND_KERNEL, only on that kernel (without it, everywhere but
# the trixie root's kernels). --trixie-only: programs that test the trixie userland (Open
# MPI 5 over 9p): run on the trixie root's kernels only.
# --rt-tests: the programs (by file name) run on a PREEMPT_RT kernel (a
# kernel whose release has "-rt-", e.g. Debian's 6.12 -rt): those whose
# outcome a fully preemptible kernel with sleeping spinlocks can change
# (races, windows, limits, the consumer API from timers and irq_work,
# module load and unload). The rest test the uAPI and the userland
# above it, which 6.12 without -rt already runs (make vmtest passes
# SELFTEST_RT and the fuzzer). Without --rt-tests, every program.
#
# --demo: print the programs' output as-is, no prefixes and no totals;
# failures are reported on stderr and make the exit status 1.
#
# --args: command-line arguments for every program (make bench: --full).
#
# Artifacts, per kernel, in build/vm/<kver>/: build-kmod.log,
# initramfs.cpio.gz, console.log (ttyS0), results.log (ttyS1), dmesg.log,
# vmlinux (cached, see run-vm.sh).
#
# Env: KAV_TEST_TIMEOUT  per-program timeout in the guest, s (300;
#                        twice that on the debug kernels)
#      KAV_VM_TIMEOUT    whole-guest timeout on the host, s (1500;
#                        twice that on the debug kernels)
#      KAV_KERNELS       default for --kernels ("6.1 6.12 trixie:6.12
#                        trixie:7.3 debug kcsan")
#      KAV_DEBUG_KERNEL  0: skip both debug kernels ("debug" and "kcsan")
#      KAV_TRIXIE        0: skip the trixie root's kernels ("trixie:*")
#      KAV_VM_JOBS       guests at a time (2; 1: one after the other)
#      KAV_USERLAND_KERNEL  the host kernel series (6.12) that runs the
#                        --host-only programs (unset: every host kernel)
#      KAV_BUILD         build directory (<repo>/build)
#      KAV_EXTRA_FILES   more files for the guest's /tests (not run)
set -euo pipefail
export LC_ALL=C

HERE=$(cd "$(dirname "$0")" && pwd)
REPO=$(cd "$HERE/../.." && pwd)
VMDIR=${KAV_BUILD:-$REPO/build}/vm
JOBS=$VMDIR/.jobs

# Console lines that mean the kernel complained. Besides the usual
# headlines: "kernel BUG at" (BUG_ON) and slub_debug's "BUG <cache>
# (Tainted|Not tainted): ..." have no "BUG:"; "Call Trace" alone (e.g. a
# hung-task or RCU-stall dump) counts too. Lines of one report are grouped
# below, except that each KCSAN report ("BUG: KCSAN: data-race in a / b",
# whose other lines match nothing) counts on its own even when the next
# one follows within 40 lines. Taint notices ("module verification
# failed", "loading out-of-tree module") match none of these.
REPORT_RE='BUG:|kernel BUG at|BUG [^ ]+ \((Not t|T)ainted|WARNING:|Oops|general protection|KFENCE|KASAN|UBSAN|possible recursive locking|circular locking|INFO: task .* blocked|detected stalls|Kernel panic|Call Trace'

DEMO=0
PROG_ARGS=''
PASSED=0 FAILED=0 SKIPPED=0
FAILURES=()

die() { echo "vm.sh: $*" >&2; exit 2; }
note() { echo "vm.sh: $*" >&2; }

fail() {
	FAILED=$((FAILED + 1))
	FAILURES+=("$1")
}

# show KVER LINE: one line of program output.
show() {
	if [[ $DEMO == 1 ]]; then
		printf '%s\n' "$2"
	else
		printf '[%s] %s\n' "$1" "$2"
	fi
}

# --- results.log parsing --------------------------------------------------

# Per-program state while reading its block.
prog_reset() {
	P_PLAN=0 P_PASS=0 P_FAIL=0 P_SKIP=0 P_WHY=()
}

# The program's last diagnostic lines ("# ..."), for the summary: a
# failure's reasons then show in the last lines a CI log keeps.
P_WHY=()
why() {
	local l
	for l in "${P_WHY[@]}"; do
		printf '\n    | %s' "$l"
	done
}

# prog_line KVER PROG LINE: count one top-level TAP result line.
prog_line() {
	local kver=$1 prog=$2 line=$3
	if [[ $line =~ ^#\  ]]; then
		P_WHY+=("${line:0:300}")
		((${#P_WHY[@]} <= 8)) || P_WHY=("${P_WHY[@]:1}")
	elif [[ $line =~ ^1\.\.([0-9]+) ]]; then
		P_PLAN=${BASH_REMATCH[1]}
	elif [[ $line =~ ^not\ ok\ [0-9]+ ]]; then
		P_FAIL=$((P_FAIL + 1))
		fail "[$kver] $prog: $line$(why)"
		P_WHY=()
	elif [[ $line =~ ^ok\ [0-9]+ ]]; then
		P_WHY=()
		if [[ $line =~ \#\ *[Ss][Kk][Ii][Pp] ]]; then
			P_SKIP=$((P_SKIP + 1))
		else
			P_PASS=$((P_PASS + 1))
		fi
	fi
}

# How a program ended, from its rc ("none": it never did).
describe_rc() {
	if [[ $1 == none ]]; then
		echo "did not finish"
	elif [[ $1 -gt 128 ]]; then
		echo "killed by signal $(($1 - 128)), rc=$1"
	else
		echo "exit status $1"
	fi
}

# prog_end KVER PROG RC: fold a finished (or cut short: RC "none")
# program into the totals.
prog_end() {
	local kver=$1 prog=$2 rc=$3 results
	results=$((P_PASS + P_FAIL + P_SKIP))

	if [[ $prog == insmod ]]; then
		# Loading the module is a step, not a test: only failures count.
		[[ $rc == 0 ]] || fail "[$kver] insmod kav.ko: $(describe_rc "$rc")"
		return
	fi
	if [[ $prog == kmods ]]; then
		# So is loading the wire tests' modules (guest-init.sh).
		[[ $rc == 0 ]] || fail "[$kver] the guest's modules (kmods): $(describe_rc "$rc")"
		return
	fi
	if [[ $P_PLAN == 0 && $results == 0 ]]; then
		# Not a TAP program: one case, decided by its exit status.
		if [[ $rc == 0 ]]; then
			PASSED=$((PASSED + 1))
			[[ $DEMO == 1 ]] || show "$kver" "ok - $prog"
		else
			fail "[$kver] $prog: $(describe_rc "$rc")"
			[[ $DEMO == 1 ]] || show "$kver" "not ok - $prog ($(describe_rc "$rc"))"
		fi
		return
	fi
	PASSED=$((PASSED + P_PASS))
	SKIPPED=$((SKIPPED + P_SKIP))
	if [[ ($rc != 0 && $P_FAIL == 0) || $results -lt $P_PLAN ]]; then
		fail "[$kver] $prog: crashed/timeout ($(describe_rc "$rc"), $results of $P_PLAN results)$(why)"
		[[ $DEMO == 1 ]] || show "$kver" "not ok - $prog: crashed/timeout"
	fi
}

# parse_results KVER DIR PROGS...: walk results.log block by block.
parse_results() {
	local kver=$1 dir=$2 line cur='' rc name
	shift 2
	local -A started=()
	prog_reset
	while IFS= read -r line || [[ -n $line ]]; do
		if [[ -z $cur ]]; then
			# Anything outside a block is shown: it was not expected.
			if [[ ! $line =~ ^(.*)@@KAV-BEGIN\ (.+)$ ]]; then
				[[ -z $line || $line =~ ^@@KAV-(TIME|BOOT|DONE|LOCKDEP) ]] ||
					note "$kver: outside any program: $line"
				continue
			fi
			[[ -z ${BASH_REMATCH[1]} ]] ||
				note "$kver: outside any program: ${BASH_REMATCH[1]}"
			cur=${BASH_REMATCH[2]}
			started[$cur]=1
			prog_reset
			[[ $DEMO == 1 || $cur == insmod || $cur == kmods ]] ||
				show "$kver" "# program $cur"
			continue
		fi
		# The END marker may follow output that lacked a final newline.
		if [[ $line =~ ^(.*)@@KAV-END\ (.+)\ rc=([0-9]+)$ ]]; then
			line=${BASH_REMATCH[1]} name=${BASH_REMATCH[2]}
			rc=${BASH_REMATCH[3]}
			if [[ -n $line ]]; then
				show "$kver" "$line"
				prog_line "$kver" "$cur" "$line"
			fi
			[[ $name == "$cur" ]] || note "$kver: END $name inside $cur"
			prog_end "$kver" "$cur" "$rc"
			cur=''
			continue
		fi
		show "$kver" "$line"
		prog_line "$kver" "$cur" "$line"
	done < <(sed '/^@@KAV-DMESG-BEGIN$/,/^@@KAV-DMESG-END$/d' "$dir/results.log")
	[[ -z $cur ]] || prog_end "$kver" "$cur" none

	local prog
	for prog in "$@"; do
		[[ -n ${started[$prog]:-} ]] || fail "[$kver] $prog: not run"
	done
}

# --- console.log: kernel reports -------------------------------------------

# Print each report on the console as an excerpt headed "@@REPORT":
# matching lines less than 40 lines apart (and not separated by an
# "---[ end trace" line) are one report. A KCSAN report ("BUG: KCSAN:")
# always starts a new one and runs to its closing "=====" line (its
# stack lines match nothing).
console_reports() {
	# The regex goes through the environment: awk -v would eat its "\(".
	tr -d '\r' <"$1" | RE=$REPORT_RE awk '
		{ line[NR] = $0 }
		kcsan && /(^|\] )==========+$/ {
			kcsan = 0; ended = 1; lastof[n] = NR; next
		}
		kcsan { lastof[n] = NR; next }
		$0 ~ ENVIRON["RE"] {
			if (!n || NR - last >= 40 || ended || /BUG: KCSAN:/) {
				n++; first[n] = NR
			}
			kcsan = /BUG: KCSAN:/
			if (kcsan) kc[n] = 1
			last = NR; lastof[n] = NR; ended = 0
		}
		/---\[ end trace/ { ended = 1; if (n) lastof[n] = NR }
		END {
			for (i = 1; i <= n; i++) {
				print "@@REPORT"
				from = first[i] > 3 ? first[i] - 3 : 1
				to = lastof[i] + 3 > NR ? NR : lastof[i] + 3
				# A KCSAN report: exactly its "=====" lines.
				if (kc[i]) { from = first[i] - 1; to = lastof[i] }
				if (to - from > 80) to = from + 80
				for (j = from; j <= to; j++) print line[j]
			}
		}'
}

# KCSAN reports (the KCSAN kernel) count only when kav's code is one of
# the two racing accesses: the first frame of one access's stack is in
# [kav]. Races between two places of the core kernel (mm, xarray
# internals...; that kernel reports same-value and READ_ONCE-vs-plain
# races, which upstream's defaults hide) are shown, not counted. Nor are
# these benign ones, whose kav frame is an inlined core helper:
#   kav_identity_capture  get_cred(file->f_cred) stores cred->non_rcu = 0,
#                         as every get_cred() of that cred does
#                         (include/linux/cred.h): same value, core idiom.
#   kav_user_out_write    memcpy_to_page() -> kmap_local_page() ->
#                         page_to_section() reads the pinned page's
#                         page->flags plainly while another thread's
#                         pin_user_pages_fast() sets a flag bit in it
#                         atomically: the section bits it reads never
#                         change; every page_address() does the same.
KCSAN_BENIGN='kav_identity_capture kav_user_out_write'

# kcsan_verdict EXCERPT: "count", or why the report is not counted.
kcsan_verdict() {
	local frames f kav=0
	# The line after "read/write ... by task|interrupt ..." is the top
	# frame of that access.
	frames=$(awk '/(read|write).* by (task|interrupt)/ {
		getline; sub(/^\[[^]]*\] +/, ""); print }' <<<"$1")
	while read -r f; do
		[[ $f == *'[kav]'* ]] || continue
		kav=1
		f=${f%%+*}
		[[ " $KCSAN_BENIGN " == *" $f "* ]] || { echo count; return; }
	done <<<"$frames"
	if [[ $kav == 1 ]]; then
		echo "benign, see KCSAN_BENIGN in vm.sh"
	else
		echo "neither access is in kav"
	fi
}

# show_report KVER EXCERPT: print one report; count it unless it is a
# KCSAN report that kcsan_verdict clears.
show_report() {
	local kver=$1 r=$2 verdict=count line
	[[ $r != *'BUG: KCSAN:'* ]] || verdict=$(kcsan_verdict "$r")
	if [[ $verdict == count ]]; then
		echo "[$kver] ----" >&2
		fail "$kver: kernel report"
	else
		echo "[$kver] ---- not counted: KCSAN report, $verdict" >&2
	fi
	while IFS= read -r line; do
		printf '[%s] | %s\n' "$kver" "$line"
	done <<<"$r" >&2
}

check_console() {
	local kver=$1 dir=$2 excerpt line r=''
	excerpt=$(console_reports "$dir/console.log")
	[[ -n $excerpt ]] || return 0
	echo "[$kver] kernel report(s) on the console ($dir/console.log):" >&2
	while IFS= read -r line; do
		if [[ $line == @@REPORT ]]; then
			[[ -z $r ]] || show_report "$kver" "${r%$'\n'}"
			r=''
		else
			r+=$line$'\n'
		fi
	done <<<"$excerpt"
	[[ -z $r ]] || show_report "$kver" "${r%$'\n'}"
}

# --- one kernel -------------------------------------------------------------

# Name of a test program in the guest (its file name).
prog_names() {
	local f
	for f in "$@"; do
		echo "${f##*/}"
	done
}

# Guests run as jobs, KAV_VM_JOBS (2) at a time: most programs keep one
# of a guest's two vCPUs busy, so two guests share the host's two cores
# with little loss, and the matrix takes about half the time. A job only
# writes files, in $JOBS/<n>.*; the main shell reads each job's results
# (and counts them) in the jobs' order, as soon as it and every job
# before it have ended, so the output reads as if they ran one by one.
#
#   <n>.kver    the guest's kernel release
#   <n>.status  "kmod" or "initramfs" (that step failed), "tree FLAVOUR"
#               (the debug kernel's build failed), or "ran RC SECS"
#                (QEMU's exit status, the VM's wall time)
#   <n>.done    the job has ended

# boot_kernel N KVER ROOT TREE PROG...: job N, one guest. TREE is a debug
# kernel's build tree (kav.ko is built against it and its vmlinux is
# booted); ROOT is another root's (trixie) kernel (kav.ko is built
# chrooted in it, the kernel boots from its /boot); both empty for the
# host's kernels.
boot_kernel() {
	local n=$1 kver=$2 root=$3 tree=$4 dir=$VMDIR/$2 start vm_rc=0
	shift 4
	local -a kmod_args=("$kver" "$dir") vm_args=() kmods=(--kmods "$kver")
	local step_timeout=${KAV_TEST_TIMEOUT:-300}
	local guest_timeout=${KAV_VM_TIMEOUT:-1500}
	echo "$kver" >"$JOBS/$n.kver"
	if [[ -n $root ]]; then
		kmod_args=(--root "$root" "${kmod_args[@]}")
		vm_args=(--boot "$root/boot")
		kmods+=(--kmods-root "$root")
	elif [[ -n $tree ]]; then
		kmod_args+=("$tree")
		vm_args=(--image "$tree/vmlinux" --config "$tree/.config")
		# The debug kernels build them in (debug-common.config).
		kmods=()
		# KASAN, lockdep and kmemleak make fork and exec about four
		# times slower under TCG: kav_slurm_test's shell scripts took
		# longer than 300 s there. The timeout catches hangs only.
		step_timeout=$((step_timeout * 2))
		guest_timeout=$((guest_timeout * 2))
	fi

	if ! "$HERE/build-kmod.sh" "${kmod_args[@]}"; then
		echo kmod >"$JOBS/$n.status"
		return
	fi
	# The test NIC module goes to /tests/kav_nic.ko ($KAV_NIC_MODULE);
	# kavctl and the Slurm scripts to /tests too (EXTRAS, kav_slurm_test).
	if ! KAV_TEST_TIMEOUT=$step_timeout "$HERE/mkinitramfs.sh" "$dir/initramfs.cpio.gz" \
		--module "$dir/kmod/kav.ko" --bins "$*" --args "$PROG_ARGS" "${kmods[@]}" \
		--extra "$(ls "$dir/tests/doubles/nic/kav_nic.ko" 2>/dev/null) $EXTRAS"; then
		echo initramfs >"$JOBS/$n.status"
		return
	fi

	note "booting $kver (TCG; guest timeout ${guest_timeout}s)"
	start=$SECONDS
	"$HERE/run-vm.sh" --kernel "$kver" --initramfs "$dir/initramfs.cpio.gz" \
		--out "$dir" --timeout "$guest_timeout" "${vm_args[@]}" || vm_rc=$?
	echo "ran $vm_rc $((SECONDS - start))" >"$JOBS/$n.status"
}

# boot_debug_kernel N FLAVOUR PROG...: job N on a debug kernel (kasan:
# "debug"; kcsan): build it if this machine has none yet (cached; the
# flavours wait on one lock), then boot it.
boot_debug_kernel() {
	local n=$1 flavour=$2 start=$SECONDS tree
	shift 2
	echo "$flavour" >"$JOBS/$n.kver"
	if ! tree=$("$HERE/debug-kernel.sh" --flavour "$flavour"); then
		echo "tree $flavour" >"$JOBS/$n.status"
		return
	fi
	note "$flavour debug kernel ready in $((SECONDS - start))s: $tree"
	boot_kernel "$n" "$(cat "$tree/.kav-debug-built")" '' "$tree" "$@"
}

# collect_kernel N PROG...: count job N's results.
collect_kernel() {
	local n=$1 kver dir status vm_rc=none secs='?' boot lockdep
	shift
	local -a progs
	mapfile -t progs < <(prog_names "$@")
	kver=$(cat "$JOBS/$n.kver" 2>/dev/null || echo "job $n")
	dir=$VMDIR/$kver
	read -r status vm_rc secs <"$JOBS/$n.status" || status=none
	case $status in
	ran) ;;
	kmod) fail "$kver: kav.ko build failed"; return ;;
	initramfs) fail "$kver: initramfs build failed"; return ;;
	tree) fail "$vm_rc debug kernel: build failed"; return ;;
	*) fail "$kver: the guest's job ended without a status"; return ;;
	esac
	touch "$dir/results.log" "$dir/console.log"
	sed -n '/^@@KAV-DMESG-BEGIN$/,/^@@KAV-DMESG-END$/{//!p}' \
		"$dir/results.log" >"$dir/dmesg.log"

	parse_results "$kver" "$dir" "${progs[@]}"
	check_console "$kver" "$dir"
	lockdep=$(sed -n 's/.*@@KAV-LOCKDEP //p' "$dir/results.log" | tr -d '\r')
	if [[ -n $lockdep && $lockdep != 1 ]]; then
		fail "$kver: lockdep was off by the end of the run (debug_locks $lockdep): its checks did not hold throughout"
	fi
	if ! grep -q '@@KAV-DONE' "$dir/results.log"; then
		fail "$kver: guest did not finish (qemu rc=$vm_rc)"
		echo "[$kver] guest did not finish; end of $dir/console.log:" >&2
		tr -d '\r' <"$dir/console.log" | tail -n 30 | sed "s/^/[$kver] | /" >&2
	fi
	boot=$(sed -n 's/.*@@KAV-BOOT uptime=//p' "$dir/results.log")
	note "$kver: guest /init after ${boot:-?}s, VM ran ${secs}s; artifacts in $dir"
}

# The jobs: JOB_KIND[n] ("kernel KVER ROOT" or "debug FLAVOUR") and
# JOB_PROGS[n] (its programs, one string). NEXT: the first job not yet
# collected.
JOB_KIND=() JOB_PROGS=()
NEXT=0

add_job() {
	JOB_KIND+=("$1")
	JOB_PROGS+=("$2")
}

# collect_ready: collect, in order, every ended job not collected yet
# whose predecessors all are.
collect_ready() {
	local -a progs
	while [[ $NEXT -lt ${#JOB_KIND[@]} && -e $JOBS/$NEXT.done ]]; do
		read -r -a progs <<<"${JOB_PROGS[$NEXT]}"
		collect_kernel "$NEXT" "${progs[@]}"
		NEXT=$((NEXT + 1))
	done
}

# job_ready N: job N can boot now: it is no debug kernel's, or that
# kernel is built (make check builds them in the background: a fresh
# machine has neither for its first minutes of vmtest).
job_ready() {
	local kind flavour key
	read -r kind flavour _ <<<"${JOB_KIND[$1]}"
	[[ $kind == debug ]] || return 0
	key=$("$HERE/debug-kernel.sh" --flavour "$flavour" --print-key 2>/dev/null) ||
		return 0
	[[ -e ${KAV_DEBUG_CACHE:-/var/cache/kav}/debug-kernel/$key/.kav-debug-built ]]
}

# next_job: the first job not started whose kernel is ready, else the
# first not started (it waits for its kernel), so that a lane does not
# wait for a debug kernel while other kernels' jobs could run.
next_job() {
	local n first=''
	for n in "${!JOB_KIND[@]}"; do
		[[ ! -e $JOBS/$n.started ]] || continue
		[[ -n $first ]] || first=$n
		if job_ready "$n"; then
			echo "$n"
			return
		fi
	done
	echo "$first"
}

# run_jobs: start every job, at most KAV_VM_JOBS at a time (next_job
# picks which), collecting as they end (in the jobs' order).
run_jobs() {
	local max=${KAV_VM_JOBS:-2} n _job kind a b c
	local -a progs
	[[ $max =~ ^[1-9][0-9]*$ ]] || die "KAV_VM_JOBS=$max: not a positive number"
	rm -rf "$JOBS"
	mkdir -p "$JOBS"
	for _job in "${!JOB_KIND[@]}"; do
		while [[ $(jobs -rp | wc -l) -ge $max ]]; do
			wait -n || true
			collect_ready
		done
		n=$(next_job)
		touch "$JOBS/$n.started"
		read -r kind a b c <<<"${JOB_KIND[$n]}"
		read -r -a progs <<<"${JOB_PROGS[$n]}"
		if [[ $kind == debug ]]; then
			{ boot_debug_kernel "$n" "$a" "${progs[@]}"; touch "$JOBS/$n.done"; } &
		else
			{ boot_kernel "$n" "$a" "${b:-}" "${c:-}" "${progs[@]}"; touch "$JOBS/$n.done"; } &
		fi
	done
	while [[ -n $(jobs -rp) ]]; do
		wait -n || true
		collect_ready
	done
	wait || true
	# Every job has ended now, also one whose shell died before its
	# .done: collect_kernel reports a job that left no status.
	for n in "${!JOB_KIND[@]}"; do
		touch "$JOBS/$n.done"
	done
	collect_ready
}

summary() {
	local f line
	for f in "${FAILURES[@]}"; do
		echo "FAILED: $f"
	done
	line="$PASSED passed, $FAILED failed"
	[[ $SKIPPED == 0 ]] || line+=", $SKIPPED skipped"
	echo "$line"
}

# race_bins "NAME..." BIN...: the BINs whose file name is one of NAMEs, in
# the BINs' order (which keeps the module-reloading programs last); all of
# them if NAMEs is empty.
race_bins() {
	local names=" $1 " f
	shift
	for f in "$@"; do
		[[ $names == "  " || $names == *" ${f##*/} "* ]] && echo "$f"
	done
	return 0
}

# other_bins "NAME..." BIN...: the BINs whose file name is none of NAMEs.
other_bins() {
	local names=" $1 " f
	shift
	for f in "$@"; do
		[[ $names == *" ${f##*/} "* ]] || echo "$f"
	done
	return 0
}

main() {
	local selftests='' kernels=${KAV_KERNELS:-6.1 6.12 trixie:6.12 trixie:7.3 debug kcsan}
	local host_only='' userland_only='' trixie_only='' rt=''

	local kver k line
	local race=''
	while [[ $# -gt 0 ]]; do
		case $1 in
		--selftests) selftests=${2?}; shift 2 ;;
		--kernels) kernels=${2:?}; shift 2 ;;
		--race-tests) race=${2?}; shift 2 ;;
		--host-only) host_only=${2?}; shift 2 ;;
		--trixie-only) trixie_only=${2?}; shift 2 ;;
		--userland-only) userland_only=${2?}; shift 2 ;;
		--rt-tests) rt=${2?}; shift 2 ;;
		--demo) DEMO=1; shift ;;
		--args) PROG_ARGS=${2?}; shift 2 ;;
		*) die "usage: vm.sh --selftests \"bin...\" [--kernels \"6.1 6.12 trixie:6.12 trixie:7.3 debug kcsan\"] [--race-tests \"name...\"] [--host-only \"name...\"] [--userland-only \"name...\"] [--trixie-only \"name...\"] [--rt-tests \"name...\"] [--demo] [--args \"ARGS\"]" ;;
		esac
	done
	local -a kvers=() bins race_list=()
	local list debian='' debug=0 kcsan=0 f
	read -r -a bins <<<"$selftests"
	for k in $kernels; do
		if [[ $k == debug || $k == kcsan ]]; then
			[[ ${KAV_DEBUG_KERNEL:-1} == 0 ]] || printf -v "$k" 1
		else
			debian+=" $k"
		fi
	done
	if [[ -n $debian ]]; then
		list=$("$HERE/kernels.sh" --kernels "$debian") || exit 2
		mapfile -t kvers <<<"$list"
	fi

	# Files every guest gets in /tests besides the programs: kavctl (make
	# tools) and tools/slurm, which kav_slurm_test runs as slurmd would;
	# tools/wire/kav-wire-sa (and its .awk) and openssl, which
	# kav_wire_sa_test runs.
	EXTRAS=''
	for f in "$REPO"/tools/slurm/kav-slurm-* "$REPO"/tools/wire/kav-wire-sa*; do
		[[ ! -f $f ]] || EXTRAS+=" $f"
	done
	# (openssl kdf is kav-wire-sa's HKDF; its libraries come with it.)
	[[ ! -x /usr/bin/openssl ]] || EXTRAS+=" /usr/bin/openssl"
	# getent: the prolog resolves a job's peer nodes with it (busybox has
	# none).
	[[ ! -x /usr/bin/getent ]] || EXTRAS+=" /usr/bin/getent"
	EXTRAS+=" ${KAV_EXTRA_FILES:-}"
	# The hooking provider, for kav_hook_test (FI_PROVIDER_PATH=/tests).
	if [[ -f $REPO/prov/libkav-fi.so ]]; then
		EXTRAS+=" $REPO/prov/libkav-fi.so"
	else
		note "prov/libkav-fi.so is not built (make prov): kav_hook_test will fail"
	fi
	if [[ -x $REPO/tools/kavctl/kavctl ]]; then
		EXTRAS+=" $REPO/tools/kavctl/kavctl"
	else
		note "tools/kavctl/kavctl is not built (make tools): kav_slurm_test will fail"
	fi

	local root
	local -a host_bins trixie_bins kernel_bins rt_bins debug_bins
	mapfile -t host_bins < <(other_bins "$trixie_only" "${bins[@]}")
	mapfile -t trixie_bins < <(other_bins "$host_only $userland_only" "${bins[@]}")
	# The host's kernels other than KAV_USERLAND_KERNEL's: neither.
	mapfile -t kernel_bins < <(other_bins "$host_only $userland_only" "${host_bins[@]}")
	mapfile -t rt_bins < <(race_bins "$rt" "${kernel_bins[@]}")
	# The debug kernels: the host's userland, but for --userland-only
	# (when a KAV_USERLAND_KERNEL is named).
	if [[ -n ${KAV_USERLAND_KERNEL:-} ]]; then
		mapfile -t debug_bins < <(other_bins "$userland_only" "${host_bins[@]}")
	else
		debug_bins=("${host_bins[@]}")
	fi
	# The debug kernel's guest, the longest but for the first kernel's,
	# starts second, so that the two lanes end together rather than
	# leaving it alone at the end (the kcsan guest, short, goes last).
	local debug_job=$debug
	for line in "${kvers[@]}"; do
		# "KVER" (the host's) or "KVER ROOT" (kernels.sh)
		read -r kver root <<<"$line"
		[[ -n $kver ]] || continue
		if [[ ${#JOB_KIND[@]} == 1 && $debug_job == 1 ]]; then
			add_job "debug kasan" "${debug_bins[*]}"
			debug_job=0
		fi
		if [[ -n $root ]]; then
			add_job "kernel $kver $root" "${trixie_bins[*]}"
		elif [[ $kver == *-rt-* ]]; then
			add_job "kernel $kver" "${rt_bins[*]}"
		elif [[ -z ${KAV_USERLAND_KERNEL:-} || $kver == "$KAV_USERLAND_KERNEL".* ]]; then
			add_job "kernel $kver" "${host_bins[*]}"
		else
			add_job "kernel $kver" "${kernel_bins[*]}"
		fi
	done
	[[ $debug_job == 0 ]] || add_job "debug kasan" "${debug_bins[*]}"
	if [[ $kcsan == 1 ]]; then
		mapfile -t race_list < <(race_bins "$race" "${debug_bins[@]}")
		if [[ ${#race_list[@]} == 0 ]]; then
			note "kcsan: none of the programs is in --race-tests ($race)"
		else
			add_job "debug kcsan" "${race_list[*]}"
		fi
	fi
	run_jobs

	if [[ $DEMO == 1 ]]; then
		if [[ $FAILED -gt 0 ]]; then
			printf 'FAILED: %s\n' "${FAILURES[@]}" >&2
			exit 1
		fi
		exit 0
	fi
	summary
	[[ $FAILED == 0 ]]
}

# Sourced (lanes/arm64/arm64.sh), it only defines its functions.
[[ ${BASH_SOURCE[0]} != "$0" ]] || main "$@"
