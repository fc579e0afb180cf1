# kav_bench: kav against libfabric's own AVs (bench/). Included by the
# top-level Makefile.
#
#   make bench   the full run in the 6.12 VM (bench/run.sh): the report is
#                printed, written to build/bench/report.md and copied to
#                Documentation/bench-results.md
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

.PHONY: bench bench-clean

$(BENCH_BIN): $(BENCH_SRCS) $(BENCH_DEPS)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(KAV_CFLAGS) -I$(CURDIR)/tests/selftests \
		$(BENCH_SRCS) -o $@ lib/libkav.a -lfabric

bench: deps $(BENCH_BIN)
	bench/run.sh $(BENCH_BIN)

bench-clean:
	rm -rf $(BENCH_DIR)
