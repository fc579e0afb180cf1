# The VM lane (lanes/vm/vm.sh): the kselftest programs and the lanes'
# guest programs in QEMU guests on every kernel of the matrix, the demo,
# and one program on one kernel. Included by the top-level Makefile,
# after every fragment whose programs it runs.
#
#   make vmtest                        the whole matrix (part of make check)
#   make vm K=<kernel> T=<prog>[:<case>]  one program, or one of its cases
#                                      (kselftest's -t), on one kernel
#                                      (6.12, 6.1, trixie:7.3, debug, ...)
#   make demo                          the demo on 6.12

.PHONY: vmtest vm demo

# kav_bench's smoke run keeps the benchmark harness working; it goes
# before the programs that reload kav.ko. kav_fuzzer's short campaign (40 s
# per kernel, tests/fuzz) goes last, on the module kav_module_test
# reloaded: run before kav_fail_nth_test, its netlink sweeps failed on the
# two-CPU debug kernel (not understood yet; see hardening.rst).
#
# kav_hook_test (the hook over bookworm's libfabric 1.17) and
# kav_kavctl_test (kavctl over libnl) test the host's userland: they run
# on the host's 6.12 alone (--userland-only; on the KASAN kernel they
# took 74 and 87 s, a fifth of its guest, most of it fork and exec).
# What they ask of each kernel is its uAPI and its netlink family, which
# kav_lib_test, kav_conformance_test, kav_netlink_test, kav_apply_test
# (kavctl apply) and the fuzzer check on every kernel, the debug kernels
# with kmemleak included; MPICH over the hook still runs on the debug
# kernels; libfabric 2.1's hook runs on the trixie kernels (lanes/ompi).
#
# The hook's guests (fabtests, MPICH) go after the early programs, with
# their files in /tests (on the debug kernels too: KASAN under MPICH).
# The real-Slurm test (lanes/slurm) mounts the host's / over 9p
# (KAV_VM_VIRTFS=1); it skips itself on the debug kernels. These three
# test bookworm's userland (libfabric 1.17, Slurm 22.05): they run on the
# host's 6.12 and the debug kernels (--host-only, KAV_USERLAND_KERNEL;
# the other kernels do not change what they test).
# kav_bench's smoke run, which keeps a harness working, not the kernel,
# kav_slurm_test, which tests tools/slurm's scripts over kavctl, and
# kav_wire_sa_test, which tests kav-wire-sa's SAs, run on the host's
# 6.12 alone (--userland-only): the last two were the slowest programs on the
# kernels they ran on (kav_slurm_test 1-3.5 min, most of it fork and
# exec; kav_wire_sa_test 3 min on the KASAN kernel, shell, openssl and
# ip xfrm), and kav_apply_test, kav_netlink_test and kav_wire_test (its
# esp cases) cover what they ask of each kernel, the debug kernels
# included. The Open MPI
# test (lanes/ompi) tests trixie's (libfabric 2.1, Open MPI 5, over 9p):
# it runs on the trixie root's kernels (--trixie-only). The PREEMPT_RT
# kernel runs SELFTEST_RT and the fuzzer (--rt-tests). Every other
# program runs on every kernel.
VMTEST_BINS := $(SELFTEST_EARLY_BINS) $(EXAMPLE_TEST) $(HOOK_GUEST_BINS) $(SLURM_VM_BIN) \
	       $(OMPI_VM_BIN) $(BENCH_BIN) \
	       $(SELFTEST_LATE_BINS) $(FUZZ_BIN)

vmtest: selftests tools hook-deps slurm-deps ompi-deps examples $(BENCH_BIN) $(FUZZ_BIN) ## the VM lane: every program on every kernel
	KAV_VM_VIRTFS=1 KAV_VM_TRIXIE_ROOT="$$(lanes/trixie/root.sh)" \
	KAV_USERLAND_KERNEL=$${KAV_USERLAND_KERNEL-6.12} \
	KAV_KERNELS="$${KAV_KERNELS:-$(VM_KERNELS) debug kcsan}" \
	KAV_EXTRA_FILES="$(HOOK_GUEST_FILES) $(EXAMPLE_BINS) $(SLURM_GUEST_FILES) $(OMPI_GUEST_FILES)" lanes/vm/vm.sh \
		--selftests "$(VMTEST_BINS)" \
		--race-tests "$(SELFTEST_RACE) $(notdir $(FUZZ_BIN))" \
		--rt-tests "$(SELFTEST_RT) $(notdir $(FUZZ_BIN))" \
		--host-only "$(notdir $(HOOK_GUEST_BINS) $(SLURM_VM_BIN))" \
		--userland-only "kav_hook_test kav_kavctl_test kav_slurm_test kav_wire_sa_test $(notdir $(BENCH_BIN))" \
		--trixie-only "$(notdir $(OMPI_VM_BIN))"

# The demo runs kavctl in the guest (vm.sh puts it in /tests).
demo: deps selftests tools ## run the demo in a 6.12 guest
	lanes/vm/vm.sh --demo --kernels 6.12 --selftests "$(DEMO_BINS)"

# One program (any of VMTEST_BINS, by name), or one case of it, on one
# kernel, with what vmtest gives it: the guest's /tests files that exist
# (fabtests and MPICH only once make hook-deps has built them).
VM_PROG := $(firstword $(subst :, ,$(T)))
VM_CASE := $(word 2,$(subst :, ,$(T)))
VM_BIN  := $(firstword $(filter %/$(VM_PROG),$(VMTEST_BINS)))
vm: selftests tools examples ## one program on one kernel: make vm K=6.12 T=kav_job_test[:case]
	@test -n "$(K)" -a -n "$(VM_BIN)" || { \
		echo "usage: make vm K=<kernel> T=<program>[:<case>]; programs: $(notdir $(VMTEST_BINS))" >&2; \
		exit 2; }
	KAV_VM_VIRTFS=1 KAV_USERLAND_KERNEL= \
	$(if $(filter trixie:%,$(K)),KAV_VM_TRIXIE_ROOT="$$(lanes/trixie/root.sh)") \
	KAV_EXTRA_FILES="$(wildcard $(HOOK_GUEST_FILES) $(EXAMPLE_BINS) $(SLURM_GUEST_FILES) $(OMPI_GUEST_FILES))" \
	lanes/vm/vm.sh --kernels "$(K)" --selftests "$(VM_BIN)" \
		$(if $(VM_CASE),--args "-t $(VM_CASE)")
