# kav: one entry point. `make` builds; `make check-fast` is a
# contributor's loop (no root, no VM); `make check` tests everything;
# `make demo` shows it; `make help` lists the rest. See README.md.
#
# The build fragments are in mk/, each lane's in lanes/<lane>/<lane>.mk.

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
# trixie root (lanes/vm/kernels.sh, lanes/trixie/root.sh), and bookworm's
# 6.12 PREEMPT_RT (SELFTEST_RT only). Longest guest first: 6.12 also runs
# the userland programs; the debug kernel's guest starts second. Two
# lanes take the rest in this order as each frees (the KCSAN guest last):
# the KASAN lane takes 7.3, 6.12-rt and KCSAN, the 6.12 lane trixie's
# 6.12 and 6.1; measured, the two ended 6 s apart (1816 and 1822 s; with
# 6.1 third, 205 s apart: results/timings.md).
VM_KERNELS ?= 6.12 trixie:7.3 trixie:6.12 6.12-rt 6.1
# The release: libkav's pkg-config file, kavctl -V, kav.ko's modinfo, DKMS.
KAV_VERSION := $(shell cat $(CURDIR)/VERSION)

CC       ?= cc
CFLAGS   ?= -O2 -g
KAV_CFLAGS := -std=gnu11 -Wall -Wextra -D_GNU_SOURCE -I$(CURDIR)/uapi \
	      -I$(CURDIR)/lib/include

.PHONY: all deps help check-fast check clean
all: kmod lib prov tools ## build kav.ko, libkav, the hook provider and kavctl

include mk/kmod.mk
include mk/lib.mk
include mk/prov.mk
include mk/tools.mk
include mk/unit.mk
include mk/selftests.mk
include mk/bench.mk
include mk/fuzz.mk
include lanes/hook/hook.mk
include lanes/slurm/slurm.mk
include lanes/ompi/ompi.mk
include mk/examples.mk
include lanes/trixie/trixie.mk
include lanes/pkg/pkg.mk
include lanes/cluster/cluster.mk
include lanes/lint/lint.mk
# After lib, prov, tools and the selftests: its variables are theirs.
include lanes/arm64/arm64.mk
include lanes/vm/vm.mk
include mk/install.mk

deps: ## install the Debian packages the build and the tests need
	scripts/deps.sh

# Every target that carries a "## what it does" comment on its rule line.
help: ## this list
	@grep -h -E '^[a-zA-Z0-9_-]+:[^=]*## ' $(MAKEFILE_LIST) | \
		sed 's/^\([^:]*\):.*## /\1\t/' | sort | \
		awk -F'\t' '{ printf "  %-18s %s\n", $$1, $$2 }'

# A contributor's loop, minutes, no root and no VM: static analysis but
# the litmus proofs (which need a chroot), the unit tests under ASan and
# UBSan against the host's libfabric, and the documents' examples built.
check-fast: ## lint (no litmus), unit tests, examples: no root, no VM
	@for t in lint-fast unit examples; do \
		lanes/lib/timed.sh $$t $(MAKE) --no-print-directory $$t || exit 1; \
	done

# The README's test command: static analysis, unit tests (against
# libfabric 1.17 on the host, then 2.1 in the trixie root), the native
# read benchmark's smoke run (wrong reads fail it, timings never) and
# packaging on the host, then the kselftest suite in a VM on each kernel
# of VM_KERNELS and on the debug kernel, and the race-sensitive programs
# on the KCSAN kernel (KAV_DEBUG_KERNEL=0 skips both debug kernels); then
# the arm64 lane (lanes/arm64: Debian's arm64 6.12 under
# qemu-system-aarch64, a subset of the selftests); last the cluster test
# (two trixie nodes under systemd and Slurm, lanes/cluster). lint
# includes the memory-model proofs (tests/litmus: herd7 from a cached sid
# root, and the aarch64 codegen check of every reader). On a machine
# that has not built the debug kernels yet, they build in the background (niced) from the start, on what lint,
# the packages and the first guests leave of the CPUs; vmtest's own call
# of debug-kernel.sh waits on its lock for them. So do the trixie root and
# then the cluster nodes' image (MPICH for trixie, kav's packages), which
# cluster-check waits for the same way, and fabtests and MPICH for the
# hook's guests (cached, locked: vmtest's hook-deps waits for them).
check: ## the README's test command: every lane (about 65 min on 2 cores)
	@lanes/lib/timed.sh deps $(MAKE) --no-print-directory deps
	@mkdir -p $(BUILD)
	@( lanes/trixie/root.sh && nice lanes/cluster/image.sh $(BUILD)/cluster ) \
		>$(BUILD)/trixie-root.log 2>&1 &
	@( nice lanes/hook/build-fabtests.sh && nice lanes/hook/build-mpich.sh ) \
		>$(BUILD)/hook-deps.log 2>&1 &
	@if [ "$${KAV_DEBUG_KERNEL:-1}" != 0 ]; then \
		( lanes/vm/debug-kernel.sh --flavour kasan && \
		  lanes/vm/debug-kernel.sh --flavour kcsan ) \
			>$(BUILD)/debug-kernels.log 2>&1 & \
	fi
	@lanes/lib/timed.sh lint $(MAKE) --no-print-directory lint
	@$(MAKE) --no-print-directory prov
	@MAKE="$(MAKE)" lanes/lib/beside.sh $(BUILD)/unit-trixie.log unit unit-trixie
	@for t in bench-native-smoke pkgcheck vmtest arm64-check cluster-check; do \
		lanes/lib/timed.sh $$t $(MAKE) --no-print-directory $$t || exit 1; \
	done

clean: lib-clean tools-clean unit-clean selftests-clean bench-clean fuzz-clean ## remove every build product
	-$(MAKE) -C $(KDIR) M=$(CURDIR)/kmod clean
	rm -rf $(BUILD)
