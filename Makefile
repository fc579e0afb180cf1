# kav: one entry point. `make` builds; `make check` tests; `make demo` shows it.
# See README.md.

PREFIX   ?= /usr/local
LIBDIR   ?= $(PREFIX)/lib
INCDIR   ?= $(PREFIX)/include
BINDIR   ?= $(PREFIX)/bin
MANDIR   ?= $(PREFIX)/share/man
SYSCONFDIR ?= /etc
UDEVDIR  ?= $(PREFIX)/lib/udev
# kav-grants.service: where systemd (and bookworm's dh_installsystemd) look.
SYSTEMDUNITDIR ?= $(shell pkg-config --variable=systemdsystemunitdir systemd 2>/dev/null || echo /lib/systemd/system)
SLURMDIR ?= $(PREFIX)/lib/kav/slurm
DKMSDIR  ?= $(PREFIX)/src/kav-$(KAV_VERSION)
DESTDIR  ?=
# Newest kernel build tree on the machine (the running kernel may have none).
KDIR     ?= $(shell ls -d /lib/modules/*/build 2>/dev/null | grep -v -- -rt- | sort -V | tail -n 1)
BUILD    ?= $(CURDIR)/build
# The Debian kernels make vmtest boots besides the debug kernels: the
# host's 6.12 and 6.1, trixie's 6.12 and trixie-backports' 7.3 from the
# trixie root (tests/vm/kernels.sh, tests/trixie/root.sh), and bookworm's
# 6.12 PREEMPT_RT (SELFTEST_RT only). Longest guest first: 6.12 also runs
# the userland programs; the debug kernel's guest starts second.
VM_KERNELS ?= 6.12 6.1 trixie:6.12 trixie:7.3 6.12-rt
# The release: libkav's pkg-config file, kavctl -V, kav.ko's modinfo, DKMS.
KAV_VERSION := $(shell cat $(CURDIR)/VERSION)

CC       ?= cc
CFLAGS   ?= -O2 -g
KAV_CFLAGS := -std=gnu11 -Wall -Wextra -D_GNU_SOURCE -I$(CURDIR)/uapi \
	      -I$(CURDIR)/lib/include

.PHONY: all kmod modules_install check deps lint unit vmtest demo install clean \
	install-node install-slurm dkms-src deb pkgcheck
all: kmod lib prov tools

kmod:
	@test -n "$(KDIR)" || { echo "no kernel build tree: run 'make deps' or set KDIR=" >&2; exit 1; }
	$(MAKE) -C $(KDIR) M=$(CURDIR)/kmod W=1 modules

# Installs kav.ko for the kernel KDIR belongs to (updates/), then depmod.
modules_install: kmod
	$(MAKE) -C $(KDIR) M=$(CURDIR)/kmod INSTALL_MOD_DIR=updates modules_install
	depmod -a $(notdir $(patsubst %/build,%,$(KDIR)))

include lib/lib.mk
include prov/prov.mk
include tools/tools.mk
include tests/unit/unit.mk
include tests/selftests/selftests.mk
include bench/bench.mk
include tests/fuzz/fuzz.mk
include tests/hook/hook.mk
include tests/slurm/slurm.mk
include tests/ompi/ompi.mk
include Documentation/examples/examples.mk
include tests/trixie/trixie.mk
include tests/pkg/pkg.mk
include tests/cluster/cluster.mk
include tests/litmus/litmus.mk
# After lib, prov, tools and the selftests: its variables are theirs.
include tests/arm64/arm64.mk

deps:
	scripts/deps.sh

# The README's test command: static analysis, unit tests (against
# libfabric 1.17 on the host, then 2.1 in the trixie root), the native
# read benchmark's smoke run (wrong reads fail it, timings never) and
# packaging on the host, then the kselftest suite in a VM on each kernel
# of VM_KERNELS and on the debug kernel, and the race-sensitive programs
# on the KCSAN kernel (KAV_DEBUG_KERNEL=0 skips both debug kernels); then
# the arm64 lane (tests/arm64: Debian's arm64 6.12 under
# qemu-system-aarch64, a subset of the selftests); last the cluster test
# (two trixie nodes under systemd and Slurm, tests/cluster). lint
# includes the memory-model proofs (tests/litmus: herd7 from a cached sid
# root, and the aarch64 codegen check of every reader). On a machine that has not built the debug kernels
# yet, they build in the background (niced) from the start, on what lint,
# the packages and the first guests leave of the CPUs; vmtest's own call
# of debug-kernel.sh waits on its lock for them. So do the trixie root and
# then the cluster nodes' image (MPICH for trixie, kav's packages), which
# cluster-check waits for the same way, and fabtests and MPICH for the
# hook's guests (cached, locked: vmtest's hook-deps waits for them).
check:
	@scripts/timed.sh deps $(MAKE) --no-print-directory deps
	@mkdir -p $(BUILD)
	@( tests/trixie/root.sh && nice tests/cluster/image.sh $(BUILD)/cluster ) \
		>$(BUILD)/trixie-root.log 2>&1 &
	@( nice tests/hook/build-fabtests.sh && nice tests/hook/build-mpich.sh ) \
		>$(BUILD)/hook-deps.log 2>&1 &
	@if [ "$${KAV_DEBUG_KERNEL:-1}" != 0 ]; then \
		( tests/vm/debug-kernel.sh --flavour kasan && \
		  tests/vm/debug-kernel.sh --flavour kcsan ) \
			>$(BUILD)/debug-kernels.log 2>&1 & \
	fi
	@for t in lint unit unit-trixie bench-native-smoke pkgcheck vmtest \
		arm64-check cluster-check; do \
		scripts/timed.sh $$t $(MAKE) --no-print-directory $$t || exit 1; \
	done

# Packaging, on the host: lintian on the source and every package (no E:,
# W: or I:) and debian/copyright against the SPDX tags; DKMS builds kav.ko
# for 6.1 and 6.12 in a private tree and refuses older kernels; then the
# Debian packages are installed, used and purged, and version N is
# upgraded to N+1 (rebuilt by make-deb.sh --version) and purged. Then the
# same in the trixie root (pkgcheck-trixie, tests/pkg/pkg.mk): trixie's
# lintian, DKMS 3.2 for its 6.12 and 7.3, its apt.
pkgcheck: deb
	tests/pkg/lintian-check.sh $(BUILD)/deb
	tests/pkg/dkms-check.sh
	tests/pkg/deb-check.sh $(BUILD)/deb
	tests/pkg/upgrade-check.sh $(BUILD)/deb
	$(MAKE) --no-print-directory pkgcheck-trixie

# checkpatch --strict and sparse on the module, cppcheck and clang-tidy on
# lib/ and tools/: no findings allowed.
lint:
	tests/lint/lint.sh

# kav_bench's smoke run keeps the benchmark harness working; it goes
# before the programs that reload kav.ko. kav_fuzzer's short campaign (40 s
# per kernel, tests/fuzz) goes last, on the module kav_module_test
# reloaded: run before kav_fail_nth_test, its netlink sweeps failed on the
# two-CPU debug kernel (not understood yet; see hardening.rst).
#
# The hook's guests (fabtests, MPICH) go after the early programs, with
# their files in /tests (on the debug kernels too: KASAN under MPICH).
# The real-Slurm test (tests/slurm) mounts the host's / over 9p
# (KAV_VM_VIRTFS=1); it skips itself on the debug kernels. These three
# test bookworm's userland (libfabric 1.17, Slurm 22.05): they run on the
# host's 6.12 and the debug kernels (--host-only, KAV_USERLAND_KERNEL;
# the other kernels do not change what they test). So does kav_bench's
# smoke run, which keeps a harness working, not the kernel. The Open MPI
# test (tests/ompi) tests trixie's (libfabric 2.1, Open MPI 5, over 9p):
# it runs on the trixie root's kernels (--trixie-only). The PREEMPT_RT
# kernel runs SELFTEST_RT and the fuzzer (--rt-tests). Every other
# program runs on every kernel.
VMTEST_BINS := $(SELFTEST_EARLY_BINS) $(EXAMPLE_TEST) $(HOOK_GUEST_BINS) $(SLURM_VM_BIN) \
	       $(OMPI_VM_BIN) $(BENCH_BIN) \
	       $(SELFTEST_LATE_BINS) $(FUZZ_BIN)

vmtest: selftests tools hook-deps slurm-deps ompi-deps examples $(BENCH_BIN) $(FUZZ_BIN)
	KAV_VM_VIRTFS=1 KAV_VM_TRIXIE_ROOT="$$(tests/trixie/root.sh)" \
	KAV_USERLAND_KERNEL=$${KAV_USERLAND_KERNEL-6.12} \
	KAV_KERNELS="$${KAV_KERNELS:-$(VM_KERNELS) debug kcsan}" \
	KAV_EXTRA_FILES="$(HOOK_GUEST_FILES) $(EXAMPLE_BINS) $(SLURM_GUEST_FILES) $(OMPI_GUEST_FILES)" tests/vm/check.sh \
		--selftests "$(VMTEST_BINS)" \
		--race-tests "$(SELFTEST_RACE) $(notdir $(FUZZ_BIN))" \
		--rt-tests "$(SELFTEST_RT) $(notdir $(FUZZ_BIN))" \
		--host-only "$(notdir $(HOOK_GUEST_BINS) $(SLURM_VM_BIN) $(BENCH_BIN))" \
		--trixie-only "$(notdir $(OMPI_VM_BIN))"

# The demo runs kavctl in the guest (check.sh puts it in /tests).
demo: deps selftests tools
	tests/vm/check.sh --demo --kernels 6.12 --selftests "$(DEMO_BINS)"

# libkav (shared, static, headers, pkg-config), the hooking provider in
# libfabric's provider directory (LIBDIR/libfabric: Debian's libfabric
# looks there; elsewhere set FI_PROVIDER_PATH), kavctl and the man pages.
FI_PROVDIR ?= $(LIBDIR)/libfabric
install: lib prov tools
	install -d $(DESTDIR)$(LIBDIR)/pkgconfig $(DESTDIR)$(INCDIR)/kav $(DESTDIR)$(INCDIR)/linux
	install -m 0644 lib/include/kav/*.h $(DESTDIR)$(INCDIR)/kav/
	install -m 0644 uapi/linux/kav.h $(DESTDIR)$(INCDIR)/linux/kav.h
	install -m 0755 lib/libkav.so.0 $(DESTDIR)$(LIBDIR)/libkav.so.0
	ln -sf libkav.so.0 $(DESTDIR)$(LIBDIR)/libkav.so
	install -m 0644 lib/libkav.a $(DESTDIR)$(LIBDIR)/libkav.a
	install -d $(DESTDIR)$(FI_PROVDIR)
	install -m 0644 prov/libkav-fi.so $(DESTDIR)$(FI_PROVDIR)/libkav-fi.so
	sed -e 's|@VERSION@|$(KAV_VERSION)|' -e 's|@PREFIX@|$(PREFIX)|' -e 's|@LIBDIR@|$(LIBDIR)|' -e 's|@INCDIR@|$(INCDIR)|' \
		lib/kav.pc.in > $(DESTDIR)$(LIBDIR)/pkgconfig/kav.pc
	install -d $(DESTDIR)$(BINDIR)
	install -m 0755 tools/kavctl/kavctl $(DESTDIR)$(BINDIR)/kavctl
	install -d $(DESTDIR)$(PREFIX)/share/bash-completion/completions
	install -m 0644 tools/kavctl/kavctl.bash-completion \
		$(DESTDIR)$(PREFIX)/share/bash-completion/completions/kavctl
	for s in 3 7 8; do \
		install -d $(DESTDIR)$(MANDIR)/man$$s && \
		install -m 0644 Documentation/*.$$s $(DESTDIR)$(MANDIR)/man$$s/ || exit 1; \
	done

# A node's configuration of kav.ko: udev rule for /dev/kav, modprobe.d
# (parameters, all commented out), modules-load.d (load at boot); the
# grants of /etc/kav/grants.d (its README: the format, all commented
# out), kav-grants.service and the udev rule that applies them whenever
# kav.ko is loaded (kavctl apply).
install-node:
	install -D -m 0644 tools/node/60-kav.rules $(DESTDIR)$(UDEVDIR)/rules.d/60-kav.rules
	install -D -m 0644 tools/node/kav-modprobe.conf $(DESTDIR)$(SYSCONFDIR)/modprobe.d/kav.conf
	install -D -m 0644 tools/node/kav-modules-load.conf $(DESTDIR)$(SYSCONFDIR)/modules-load.d/kav.conf
	install -D -m 0644 tools/node/61-kav-grants.rules $(DESTDIR)$(UDEVDIR)/rules.d/61-kav-grants.rules
	install -d $(DESTDIR)$(SYSTEMDUNITDIR)
	sed 's|@BINDIR@|$(BINDIR)|' tools/node/kav-grants.service > $(DESTDIR)$(SYSTEMDUNITDIR)/kav-grants.service
	install -D -m 0644 tools/node/grants.d-example.conf $(DESTDIR)$(SYSCONFDIR)/kav/grants.d/README

# The Slurm prolog and epilog (Documentation/slurm.rst).
# kav-slurm-lib.sh is sourced, not run: 0644 (lintian: executable-not-elf-or-script).
install-slurm:
	install -d $(DESTDIR)$(SLURMDIR)
	install -m 0755 $(filter-out %.sh,$(wildcard tools/slurm/kav-slurm-*)) $(DESTDIR)$(SLURMDIR)/
	install -m 0644 tools/slurm/kav-slurm-lib.sh $(DESTDIR)$(SLURMDIR)/

# The DKMS source tree, /usr/src/kav-<version> for PREFIX=/usr: the layout
# of this repository (kmod/dkms.conf), then `dkms install kav/<version>`.
DKMS_FILES := VERSION uapi/linux/kav.h kmod/Kbuild kmod/Makefile \
	      $(filter-out %.mod.c,$(wildcard kmod/*.c kmod/*.h))
dkms-src:
	install -d $(DESTDIR)$(DKMSDIR)/kmod $(DESTDIR)$(DKMSDIR)/uapi/linux
	for f in $(DKMS_FILES); do \
		install -m 0644 $$f $(DESTDIR)$(DKMSDIR)/$$f || exit 1; \
	done
	sed 's|#MODULE_VERSION#|$(KAV_VERSION)|' kmod/dkms.conf > $(DESTDIR)$(DKMSDIR)/dkms.conf

# kav-dkms, libkav0, libkav-dev and kav-tools in build/deb (unsigned).
deb:
	scripts/make-deb.sh $(BUILD)/deb

clean: lib-clean tools-clean unit-clean selftests-clean bench-clean fuzz-clean
	-$(MAKE) -C $(KDIR) M=$(CURDIR)/kmod clean
	rm -rf $(BUILD)
