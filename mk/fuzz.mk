# kav_fuzzer (tests/fuzz): the concurrent, coverage-guided fuzzer that runs
# inside the test VM. `make fuzz` runs a campaign of FUZZ_TIME seconds on
# each of FUZZ_KERNELS; `make fuzz-canary` shows it finds the double erase
# of 15fc615's module by itself; `make fuzz-replay REPRO=file` replays a
# reproducer (KAV_SRC=dir: against the kmod/ in dir); FUZZ_ARGS adds
# options; make check runs a short campaign (VMTEST_BINS).

FUZZ_DIR     := $(BUILD)/fuzz
FUZZ_BIN     := $(FUZZ_DIR)/kav_fuzzer
FUZZ_TIME    ?= 300
FUZZ_KERNELS ?= debug 6.12
# More kav_fuzzer options, e.g. FUZZ_ARGS="--seed=N --ignore=TEXT".
FUZZ_ARGS    ?=
FUZZ_SRCS    := tests/fuzz/kav_fuzzer.c tests/fuzz/fz_prog.c
FUZZ_DEPS    := $(FUZZ_SRCS) tests/fuzz/kav_fuzzer.h uapi/linux/kav.h \
		tests/selftests/include/kav_test_util.h tests/selftests/include/kav_nl_util.h \
		tests/selftests/include/kav_collide.h

.PHONY: fuzz fuzz-canary fuzz-replay fuzz-clean

$(FUZZ_BIN): $(FUZZ_DEPS)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(KAV_CFLAGS) -I$(CURDIR)/tests/selftests/include \
		-I$(CURDIR)/tests/fuzz $(FUZZ_SRCS) -o $@ -lpthread

fuzz: $(FUZZ_BIN) ## a fuzzing campaign in the VM (FUZZ_TIME, FUZZ_KERNELS)
	tests/fuzz/run.sh --time $(FUZZ_TIME) --kernels "$(FUZZ_KERNELS)" \
		--args "$(FUZZ_ARGS)" $(FUZZ_BIN)

fuzz-canary: $(FUZZ_BIN)
	tests/fuzz/canary.sh $(FUZZ_BIN)

fuzz-replay: $(FUZZ_BIN)
	@test -n "$(REPRO)" || { echo "usage: make fuzz-replay REPRO=file" >&2; exit 2; }
	tests/fuzz/run.sh --replay $(REPRO) --kernels "$(FUZZ_KERNELS)" \
		--args "$(FUZZ_ARGS)" $(FUZZ_BIN)

fuzz-clean:
	rm -rf $(FUZZ_DIR)
