# kav_bench: kav against libfabric's own AVs (bench/). Included by the
# top-level Makefile.
#
#   make bench   the full run in the 6.12 VM (bench/run.sh): the report is
#                printed, written to build/bench/report.md and copied to
#                Documentation/results/bench-results.md
#
#   make bench-ompi  only the MPI_Init table (bench/ompi): Open MPI 5 jobs
#                    of 2, 8 and 32 ranks with and without FI_HOOK=kav in
#                    a trixie-userland guest; make bench runs it after the
#                    kav_bench guest. Table in build/bench/mpi-init.md.
#
#   make bench-native        the read path natively on the host
#                            (bench/native: kav_read_bench), the table
#                            printed; make bench runs it first
#   make bench-native-smoke  its smoke run (make check): a few seconds,
#                            fails only on a wrong read, never on a time
#
# make check runs kav_bench without arguments, its smoke run, among the
# selftests (lanes/vm/vm.sh).
#
#   make bench-latency  kav_latency (bench/latency): a SCHED_FIFO reader's
#                       longest stall while a tenant hammers 16384-entry
#                       batches, in the 6.12 and 6.12-rt guests (the
#                       "Latency" table of Documentation/benchmarks.rst);
#                       never judged, not part of make check or make bench
#
#   make bench-revoke   kav_revoke_bench (bench/revoke): GRANT_DEL of an
#                       unrelated grant at rest and while a tenant floods
#                       a colliding chain of its job table, and the job
#                       table's insert cost, in one 6.12 guest (the
#                       "Revocation under a flood" section of
#                       Documentation/benchmarks.rst); never judged.
#                       KAV_SRC=DIR builds the guest's kav.ko from DIR's
#                       kmod/ and uapi/ (an older module, for the
#                       before), KAV_REVOKE_BUILD its build directory
#                       (build/bench/revoke-vm), KAV_REVOKE_ARGS the
#                       program's options
#
#   make bench-wire     kav_wire_bench (bench/wire): kav-wire off, in
#                       flowlabel and in esp mode, and ESP alone (the
#                       crypto floor), over the fabric NICs of one 6.12
#                       guest: 64-byte UDP datagrams, TCP request/response
#                       and TCP bulk, alternating, medians and ratios, and
#                       the hooks' own ns a packet (the "kav-wire" section
#                       of Documentation/benchmarks.rst); never judged.
#                       Table in build/bench/wire.md; KAV_WIRE_BENCH_ARGS
#                       the program's options (--seconds D --reps R)

BENCH_DIR  := $(BUILD)/bench
BENCH_BIN  := $(BENCH_DIR)/kav_bench
BENCH_SRCS := $(addprefix bench/,kav_bench.c domains.c figures.c join.c \
	      memory.c pattern.c util.c)
BENCH_DEPS := bench/bench.h tests/selftests/include/kav_nl_util.h \
	      tests/selftests/include/kav_test_grants.h tests/selftests/include/kav_proc_mem.h \
	      uapi/linux/kav.h lib/libkav.a

# kav_read_bench: the production libkav.so.0 (no KAV_TESTING) over the
# fake kernel's tables (tests/doubles/kernel/fake_kav.c, fake_table.c), libfabric's
# AVs beside it; the rpath keeps it on this tree's libkav.
NATIVE_BIN  := $(BENCH_DIR)/kav_read_bench
NATIVE_SRCS := $(addprefix bench/native/,kav_read_bench.c read_loops.c \
	       malloc_count.c insert_mallocs.c instr.c) bench/domains.c \
	       bench/util.c tests/doubles/kernel/fake_kav.c tests/doubles/kernel/fake_table.c \
	       tests/doubles/kernel/fake_index.c tests/doubles/kernel/fake_ioctl.c
NATIVE_DEPS := bench/native/native.h bench/bench.h tests/doubles/kernel/fake_kav.h \
	       tests/doubles/kernel/fake_table.h tests/doubles/kernel/fake_index.h uapi/linux/kav.h \
	       lib/include/kav/kav_view.h lib/libkav.so.0

# MPI_Init (bench/ompi): kav_mpi_init built with the trixie root's mpicc
# (Open MPI 5), with the guest script and trixie-lib's libfabric 2.1
# builds of the hook, libkav and kavctl in one tar, as lanes/ompi does.
MPI_INIT_DIR   := $(BENCH_DIR)/ompi
MPI_INIT_BIN   := $(MPI_INIT_DIR)/kav_mpi_init
MPI_INIT_TAR   := $(MPI_INIT_DIR)/kav-mpi-init.tar
MPI_INIT_FILES  = $(MPI_INIT_BIN) $(CURDIR)/bench/ompi/mpi-init-guest.sh \
		  $(TRIXIE_SRC)/prov/libkav-fi.so $(TRIXIE_SRC)/lib/libkav.so.0 \
		  $(TRIXIE_SRC)/tools/kavctl/kavctl

# kav_latency: raw uAPI (the selftests' helpers), no library.
LATENCY_BIN := $(BENCH_DIR)/kav_latency

$(LATENCY_BIN): bench/latency/kav_latency.c tests/selftests/include/kav_test_util.h \
		uapi/linux/kav.h
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(KAV_CFLAGS) -I$(CURDIR)/tests/selftests/include $< -o $@

# One guest per kernel, one at a time; KAV_VM_APPEND=preempt=full for the
# full-preemption row of 6.12.
bench-latency: $(LATENCY_BIN)
	KAV_VM_JOBS=1 KAV_VM_CHECKS=0 KAV_TRIXIE=0 KAV_DEBUG_KERNEL=0 lanes/vm/vm.sh \
		--kernels "$${KAV_KERNELS:-6.12 6.12-rt}" --selftests "$(LATENCY_BIN)"

# kav_revoke_bench: raw uAPI too; runs against any kav.ko with job
# tables (it reads the hash's seed only where the header has one).
REVOKE_BIN := $(BENCH_DIR)/kav_revoke_bench

$(REVOKE_BIN): bench/revoke/kav_revoke_bench.c tests/selftests/include/kav_test_util.h \
		tests/selftests/include/kav_attack_util.h tests/selftests/include/kav_collide.h \
		tests/selftests/include/kav_nl_util.h tests/selftests/include/kav_test_grants.h \
		tests/doubles/nic/kav_nic.h uapi/linux/kav.h lib/libkav.a
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(KAV_CFLAGS) -I$(CURDIR)/tests/selftests/include \
		-I$(CURDIR)/tests/doubles/nic $< -o $@ lib/libkav.a

# Its own build directory: a guest of make vmtest or make check keeps
# its build/vm/<kver>; the old module's run gets another one.
bench-revoke: $(REVOKE_BIN) ## revocation under a flood, this module against another (KAV_SRC=)
	KAV_BUILD=$${KAV_REVOKE_BUILD:-$(BENCH_DIR)/revoke-vm} KAV_VM_JOBS=1 \
	KAV_VM_CHECKS=0 KAV_TRIXIE=0 KAV_DEBUG_KERNEL=0 \
	KAV_TEST_TIMEOUT=$${KAV_TEST_TIMEOUT:-900} lanes/vm/vm.sh \
		--kernels "$${KAV_KERNELS:-6.12}" --selftests "$(REVOKE_BIN)" \
		--args "$${KAV_REVOKE_ARGS:-}"

# kav_wire_bench: sockets and the tools of the guest's /tests (kavctl,
# kav-wire-sa, openssl, which lanes/vm/vm.sh ships to every guest).
WIRE_BENCH_BIN := $(BENCH_DIR)/kav_wire_bench

$(WIRE_BENCH_BIN): bench/wire/kav_wire_bench.c tests/selftests/include/kav_wire_tools.h
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(KAV_CFLAGS) -Itests/selftests/include $< -o $@

bench-wire: $(WIRE_BENCH_BIN) tools ## kav-wire's cost: off, flowlabel, esp and ESP alone, in one 6.12 guest
	KAV_BUILD=$(BENCH_DIR)/wire-vm KAV_VM_JOBS=1 KAV_VM_CHECKS=0 KAV_TRIXIE=0 \
	KAV_DEBUG_KERNEL=0 KAV_TEST_TIMEOUT=$${KAV_TEST_TIMEOUT:-1800} \
	lanes/vm/vm.sh --kernels "$${KAV_KERNELS:-6.12}" \
		--selftests "$(WIRE_BENCH_BIN)" --args "$${KAV_WIRE_BENCH_ARGS:-}" | \
		tee $(BENCH_DIR)/wire-output.txt
	sed -n 's/^\[[^]]*\] //; /^@@KAV-WIRE-BENCH-BEGIN$$/,/^@@KAV-WIRE-BENCH-END$$/{//!p}' \
		$(BENCH_DIR)/wire-output.txt > $(BENCH_DIR)/wire.md
	@test -s $(BENCH_DIR)/wire.md || { echo "bench-wire: no table in $(BENCH_DIR)/wire-output.txt" >&2; exit 1; }
	@cat $(BENCH_DIR)/wire.md

.PHONY: bench bench-clean bench-latency bench-revoke bench-wire bench-native bench-native-smoke bench-ompi \
	bench-ompi-deps

$(BENCH_BIN): $(BENCH_SRCS) $(BENCH_DEPS)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(KAV_CFLAGS) -I$(CURDIR)/tests/selftests/include \
		$(BENCH_SRCS) -o $@ lib/libkav.a -lfabric

bench: deps $(BENCH_BIN) $(NATIVE_BIN) hook-deps bench-ompi-deps $(REVOKE_BIN) ## every benchmark, beside libfabric's own AVs
	KAV_MPI_INIT_TAR=$(MPI_INIT_TAR) KAV_GUEST_9P_FILES="$(GUEST_9P_FILES)" \
		bench/run.sh $(BENCH_BIN) $(NATIVE_BIN)
	$(MAKE) --no-print-directory bench-revoke

$(MPI_INIT_BIN): tests/apps/kav_mpi_init.c
	@mkdir -p $(@D)
	lanes/trixie/run.sh --bind $(CURDIR) --bind $(MPI_INIT_DIR) -- \
		mpicc -std=gnu11 -O2 -Wall -Wextra -o $@ $(CURDIR)/$<

# Remade every time: trixie-lib decides whether its outputs changed.
bench-ompi-deps: trixie-lib slurm-deps $(MPI_INIT_BIN)
	rm -rf $(MPI_INIT_DIR)/tar
	mkdir -p $(MPI_INIT_DIR)/tar
	cp $(MPI_INIT_FILES) $(MPI_INIT_DIR)/tar/
	tar -C $(MPI_INIT_DIR)/tar --owner=0 --group=0 -cf $(MPI_INIT_TAR).tmp .
	mv $(MPI_INIT_TAR).tmp $(MPI_INIT_TAR)

bench-ompi: bench-ompi-deps
	KAV_GUEST_9P_FILES="$(GUEST_9P_FILES)" bench/ompi/run.sh $(MPI_INIT_TAR)

$(NATIVE_BIN): $(NATIVE_SRCS) $(NATIVE_DEPS)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(KAV_CFLAGS) -I$(CURDIR)/bench -I$(CURDIR)/tests/doubles/kernel \
		$(NATIVE_SRCS) -o $@ -Wl,-rpath,$(CURDIR)/lib lib/libkav.so.0 \
		-lfabric

bench-native: $(NATIVE_BIN)
	$(NATIVE_BIN)

bench-native-smoke: $(NATIVE_BIN)
	$(NATIVE_BIN) --smoke --out $(BENCH_DIR)/native-smoke.md
	@echo "bench-native-smoke: reads right (report: $(BENCH_DIR)/native-smoke.md)"

bench-clean:
	rm -rf $(BENCH_DIR)
