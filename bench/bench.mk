# kav_bench: kav against libfabric's own AVs (bench/). Included by the
# top-level Makefile.
#
#   make bench   the full run in the 6.12 VM (bench/run.sh): the report is
#                printed, written to build/bench/report.md and copied to
#                Documentation/bench-results.md
#
#   make bench-native        the read path natively on the host
#                            (bench/native: kav_read_bench), the table
#                            printed; make bench runs it first
#   make bench-native-smoke  its smoke run (make check): a few seconds,
#                            fails only on a wrong read, never on a time
#
# make check runs kav_bench without arguments, its smoke run, among the
# selftests (tests/vm/check.sh).

BENCH_DIR  := $(BUILD)/bench
BENCH_BIN  := $(BENCH_DIR)/kav_bench
BENCH_SRCS := $(addprefix bench/,kav_bench.c domains.c figures.c join.c \
	      memory.c util.c)
BENCH_DEPS := bench/bench.h tests/selftests/kav_nl_util.h \
	      tests/selftests/kav_test_grants.h tests/selftests/kav_proc_mem.h \
	      uapi/linux/kav.h lib/libkav.a

# kav_read_bench: the production libkav.so.0 (no KAV_TESTING) over the
# fake kernel's tables (tests/unit/fake_kav.c, fake_table.c), libfabric's
# AVs beside it; the rpath keeps it on this tree's libkav.
NATIVE_BIN  := $(BENCH_DIR)/kav_read_bench
NATIVE_SRCS := $(addprefix bench/native/,kav_read_bench.c read_loops.c \
	       malloc_count.c instr.c) bench/domains.c \
	       bench/util.c tests/unit/fake_kav.c tests/unit/fake_table.c \
	       tests/unit/fake_ioctl.c
NATIVE_DEPS := bench/native/native.h bench/bench.h tests/unit/fake_kav.h \
	       tests/unit/fake_table.h uapi/linux/kav.h \
	       lib/include/kav/kav_view.h lib/libkav.so.0

.PHONY: bench bench-clean bench-native bench-native-smoke

$(BENCH_BIN): $(BENCH_SRCS) $(BENCH_DEPS)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(KAV_CFLAGS) -I$(CURDIR)/tests/selftests \
		$(BENCH_SRCS) -o $@ lib/libkav.a -lfabric

bench: deps $(BENCH_BIN) $(NATIVE_BIN) hook-deps
	bench/run.sh $(BENCH_BIN) $(NATIVE_BIN)

$(NATIVE_BIN): $(NATIVE_SRCS) $(NATIVE_DEPS)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(KAV_CFLAGS) -I$(CURDIR)/bench -I$(CURDIR)/tests/unit \
		$(NATIVE_SRCS) -o $@ -Wl,-rpath,$(CURDIR)/lib lib/libkav.so.0 \
		-lfabric

bench-native: $(NATIVE_BIN)
	$(NATIVE_BIN)

bench-native-smoke: $(NATIVE_BIN)
	$(NATIVE_BIN) --smoke --out $(BENCH_DIR)/native-smoke.md
	@echo "bench-native-smoke: reads right (report: $(BENCH_DIR)/native-smoke.md)"

bench-clean:
	rm -rf $(BENCH_DIR)
