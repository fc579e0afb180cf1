# Unit tests: cmocka on the host, no kernel needed. Included by the
# top-level Makefile.
#
#   make unit        build and run every test under ASan + UBSan
#   make unit-clean
#
# The library sources are compiled again here with KAV_TESTING, which adds
# two test seams (kav_sys_ioctl_hook for a fake kernel, kav_table_read_hook
# for the seq protocol) that the production build does not have.

UNIT_DIR      := $(BUILD)/unit
UNIT_TESTS    := test_addr test_expand test_table test_domain test_av test_av_job \
		 test_av_attr test_av_named test_auth test_grants \
		 test_eq test_av_set test_peer test_diag \
		 test_kavctl_args test_kavctl_json test_kavctl_attrs test_kavctl_conf \
		 test_kavctl_wire \
		 test_fuzz_prog test_hook_vec test_hook test_av_fill_args \
		 test_fake_index
UNIT_BINS     := $(addprefix $(UNIT_DIR)/,$(UNIT_TESTS)) \
		 $(UNIT_DIR)/test_kavctl_completion $(UNIT_DIR)/test_cdi_generate \
		 $(UNIT_DIR)/test_slurm_prolog $(UNIT_DIR)/test_slurm_wire
UNIT_SAN      := -fsanitize=address,undefined -fno-sanitize-recover=all \
		 -fno-omit-frame-pointer
UNIT_CFLAGS   := -O1 -g $(UNIT_SAN) -DKAV_TESTING -Ilib -Itests/unit \
		 -Itests/doubles/kernel
UNIT_LIB_OBJS := $(patsubst lib/%.c,$(UNIT_DIR)/lib/%.o,$(LIB_SRCS))
UNIT_HELPERS  := $(UNIT_DIR)/fake_kav.o $(UNIT_DIR)/fake_table.o \
		 $(UNIT_DIR)/fake_index.o \
		 $(UNIT_DIR)/test_fixture.o
UNIT_HDRS     := $(LIB_HDRS) tests/doubles/kernel/fake_kav.h tests/doubles/kernel/fake_table.h \
		 tests/doubles/kernel/fake_index.h \
		 tests/unit/test_common.h tests/selftests/include/kav_fi_compat.h \
		 tests/unit/test_fixture.h
UNIT_LIBS     := $(shell pkg-config --libs cmocka 2>/dev/null || echo -lcmocka)
# Sanitizer findings are fatal; leaks count as findings.
UNIT_ENV      := ASAN_OPTIONS=detect_leaks=1:abort_on_error=1:strict_string_checks=1 \
		 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1

.PHONY: unit unit-build unit-clean
# Keep objects between runs (they are intermediates of the test rules).
.SECONDARY: $(UNIT_LIB_OBJS) $(UNIT_HELPERS) \
	    $(patsubst %,$(UNIT_DIR)/%.o,$(UNIT_TESTS))

unit: unit-build ## cmocka unit tests under ASan and UBSan
	@fail=0; for t in $(UNIT_BINS); do \
		echo "== $$(basename $$t)"; \
		$(UNIT_ENV) $$t || { echo "FAILED: $$t" >&2; fail=1; }; \
	done; \
	if [ $$fail -ne 0 ]; then echo "unit: FAILED" >&2; exit 1; fi; \
	echo "unit: all $(words $(UNIT_BINS)) test programs passed"

unit-build: $(UNIT_BINS)

$(UNIT_DIR)/lib/%.o: lib/%.c $(UNIT_HDRS) mk/unit.mk
	@mkdir -p $(@D)
	$(CC) $(KAV_CFLAGS) $(UNIT_CFLAGS) -c -o $@ $<

$(UNIT_DIR)/%.o: tests/unit/%.c $(UNIT_HDRS) mk/unit.mk
	@mkdir -p $(@D)
	$(CC) $(KAV_CFLAGS) $(UNIT_CFLAGS) -c -o $@ $<

# The fake kernel behind libkav's ioctls (tests/doubles/kernel).
$(UNIT_DIR)/fake_%.o: tests/doubles/kernel/fake_%.c $(UNIT_HDRS) mk/unit.mk
	@mkdir -p $(@D)
	$(CC) $(KAV_CFLAGS) $(UNIT_CFLAGS) -c -o $@ $<

$(UNIT_DIR)/test_%: $(UNIT_DIR)/test_%.o $(UNIT_HELPERS) $(UNIT_LIB_OBJS)
	$(CC) $(UNIT_SAN) -o $@ $^ $(UNIT_LIBS)

# test_peer also links the mock offload provider of tests/doubles/peer.
$(UNIT_DIR)/mock_peer.o: tests/doubles/peer/mock_peer.c tests/doubles/peer/mock_peer.h \
			 $(UNIT_HDRS) mk/unit.mk
	@mkdir -p $(@D)
	$(CC) $(KAV_CFLAGS) $(UNIT_CFLAGS) -c -o $@ $<
$(UNIT_DIR)/test_peer: $(UNIT_DIR)/mock_peer.o

# kavctl's tests link its objects (tools/kavctl); test_kavctl_attrs also
# links libnl-3, to build the messages the kernel would send.
UNIT_KAVCTL_HDRS := $(wildcard tools/kavctl/*.h) uapi/linux/kav.h
UNIT_NL_CFLAGS   := $(shell pkg-config --cflags libnl-genl-3.0 2>/dev/null \
		      || echo -I/usr/include/libnl3)
UNIT_NL_LIBS     := $(shell pkg-config --libs libnl-genl-3.0 2>/dev/null \
		      || echo -lnl-genl-3 -lnl-3)
UNIT_SCOLS_CFLAGS := $(shell pkg-config --cflags smartcols 2>/dev/null \
		      || echo -I/usr/include/libsmartcols)
UNIT_SCOLS_LIBS   := $(shell pkg-config --libs smartcols 2>/dev/null \
		      || echo -lsmartcols)
$(UNIT_DIR)/kavctl/%.o: tools/kavctl/%.c $(UNIT_KAVCTL_HDRS) mk/unit.mk
	@mkdir -p $(@D)
	$(CC) $(KAV_CFLAGS) $(UNIT_CFLAGS) $(UNIT_NL_CFLAGS) $(UNIT_SCOLS_CFLAGS) \
		-c -o $@ $<
$(patsubst %,$(UNIT_DIR)/test_kavctl_%.o,args json attrs): $(UNIT_KAVCTL_HDRS)
$(UNIT_DIR)/test_kavctl_attrs.o: UNIT_CFLAGS += $(UNIT_NL_CFLAGS) $(UNIT_SCOLS_CFLAGS)
$(UNIT_DIR)/test_kavctl_args: $(UNIT_DIR)/kavctl/args.o
$(UNIT_DIR)/test_kavctl_json: \
	$(patsubst %,$(UNIT_DIR)/kavctl/%.o,json format)
$(UNIT_DIR)/test_kavctl_attrs: \
	$(patsubst %,$(UNIT_DIR)/kavctl/%.o,nl attrs args format json output)
$(UNIT_DIR)/test_kavctl_attrs: UNIT_LIBS += $(UNIT_NL_LIBS) $(UNIT_SCOLS_LIBS)

# test_kavctl_wire: kavctl wire's values, file and plan (wire_conf.c), and
# wire show and stats of replies built with libnl (wire.c, stats.c).
$(UNIT_DIR)/test_kavctl_wire.o: $(UNIT_KAVCTL_HDRS)
$(UNIT_DIR)/test_kavctl_wire.o: UNIT_CFLAGS += $(UNIT_NL_CFLAGS) $(UNIT_SCOLS_CFLAGS)
$(UNIT_DIR)/test_kavctl_wire: \
	$(patsubst %,$(UNIT_DIR)/kavctl/%.o,wire wire_conf conf stats nl attrs \
	args format json output)
$(UNIT_DIR)/test_kavctl_wire: UNIT_LIBS += $(UNIT_NL_LIBS) $(UNIT_SCOLS_LIBS)

# test_kavctl_conf: the grants.d files of kavctl apply (conf.c, args.c),
# and apply.c up to netlink (the test stands for nl.c and grant.c).
$(UNIT_DIR)/test_kavctl_conf.o: $(UNIT_KAVCTL_HDRS)
$(UNIT_DIR)/test_kavctl_conf.o: UNIT_CFLAGS += $(UNIT_NL_CFLAGS)
$(UNIT_DIR)/test_kavctl_conf: $(patsubst %,$(UNIT_DIR)/kavctl/%.o,conf args apply)

# kavctl's bash completion, with bash-completion and the kavctl of make
# tools (for -o's columns): a script run like the test programs.
$(UNIT_DIR)/test_kavctl_completion: tests/unit/test_kavctl_completion.sh \
		tools/kavctl/kavctl.bash-completion $(KAVCTL)
	@mkdir -p $(@D)
	printf '#!/bin/sh\nexec bash "%s/$<" "%s"\n' "$(CURDIR)" "$(CURDIR)" > $@
	chmod +x $@

# kav-av-fill's parsers (tools/instant/fill_args.c).
$(UNIT_DIR)/instant/fill_args.o: tools/instant/fill_args.c \
		tools/instant/fill_args.h mk/unit.mk
	@mkdir -p $(@D)
	$(CC) $(KAV_CFLAGS) $(UNIT_CFLAGS) -c -o $@ $<
$(UNIT_DIR)/test_av_fill_args.o: tools/instant/fill_args.h
$(UNIT_DIR)/test_av_fill_args: $(UNIT_DIR)/instant/fill_args.o

# kav-cdi-generate's CDI specs, parsed and checked (python3-yaml): a
# script run like the test programs.
$(UNIT_DIR)/test_cdi_generate: tests/unit/test_cdi_generate.sh \
		tools/node/kav-cdi-generate
	@mkdir -p $(@D)
	printf '#!/bin/sh\nexec sh "%s/$<" "%s"\n' "$(CURDIR)" "$(CURDIR)" > $@
	chmod +x $@

# The Slurm prolog fed shell metacharacters (fake squeue, kavctl and
# scancel; no Slurm, no kernel): a script run like the test programs.
$(UNIT_DIR)/test_slurm_prolog: tests/unit/test_slurm_prolog.sh \
		tools/slurm/kav-slurm-prolog tools/slurm/kav-slurm-lib.sh
	@mkdir -p $(@D)
	printf '#!/bin/sh\nexec sh "%s/$<" "%s"\n' "$(CURDIR)" "$(CURDIR)" > $@
	chmod +x $@

# The Slurm scripts' kav-wire part (fake kavctl, scontrol, scancel and
# kav-wire-sa; no Slurm, no kernel): a script run like the test programs.
$(UNIT_DIR)/test_slurm_wire: tests/unit/test_slurm_wire.sh \
		tools/slurm/kav-slurm-prolog tools/slurm/kav-slurm-epilog \
		tools/slurm/kav-slurm-taskprolog tools/slurm/kav-slurm-lib.sh
	@mkdir -p $(@D)
	printf '#!/bin/sh\nexec sh "%s/$<" "%s"\n' "$(CURDIR)" "$(CURDIR)" > $@
	chmod +x $@

# kav_fuzzer's program model (tests/fuzz): generation, mutation, files.
$(UNIT_DIR)/fuzz/fz_prog.o: tests/fuzz/fz_prog.c tests/fuzz/kav_fuzzer.h \
			    mk/unit.mk
	@mkdir -p $(@D)
	$(CC) $(KAV_CFLAGS) $(UNIT_CFLAGS) -c -o $@ $<
$(UNIT_DIR)/test_fuzz_prog.o: tests/fuzz/kav_fuzzer.h
$(UNIT_DIR)/test_fuzz_prog: $(UNIT_DIR)/fuzz/fz_prog.o

unit-clean:
	rm -rf $(UNIT_DIR)

# test_hook_vec: the hook's lock-free arrays (prov/hook_vec.c); test_hook:
# the whole hook over a mock core provider (libfabric.so for its logging).
UNIT_PROV_OBJS := $(patsubst prov/%.c,$(UNIT_DIR)/prov/%.o,$(PROV_SRCS))
$(UNIT_DIR)/prov/%.o: prov/%.c prov/kav_hook.h prov/hook_av.h $(UNIT_HDRS) \
		mk/unit.mk
	@mkdir -p $(@D)
	$(CC) $(KAV_CFLAGS) $(UNIT_CFLAGS) -c -o $@ $<
$(UNIT_DIR)/test_hook.o: prov/kav_hook.h prov/hook_av.h
$(UNIT_DIR)/test_hook: $(UNIT_DIR)/test_hook.o $(UNIT_PROV_OBJS) \
		$(UNIT_HELPERS) $(UNIT_LIB_OBJS)
	$(CC) $(UNIT_SAN) -o $@ $^ $(UNIT_LIBS) -lfabric -lpthread

$(UNIT_DIR)/test_hook_vec: $(UNIT_DIR)/test_hook_vec.o $(UNIT_DIR)/prov/hook_vec.o \
		$(UNIT_HELPERS) $(UNIT_LIB_OBJS)
	$(CC) $(UNIT_SAN) -o $@ $^ $(UNIT_LIBS)
