# kselftest programs, run inside the VM (lanes/vm/vm.sh). The harness
# headers come from Debian's linux-source-6.12 at build time.

SELFTEST_DIR  := $(BUILD)/selftests
KSFT_HDR_DIR  := $(BUILD)/kselftest
# The programs, their groups, order and kernels: tests/selftests/ORDER
# (its header says why each is where it is). A program's source is
# tests/selftests/<group>/<name>.c.
SELFTEST_ORDER := tests/selftests/ORDER
selftest_list = $(shell awk '!/^\#/ && NF && ($(1)) { print $$1 }' $(SELFTEST_ORDER))
SELFTEST_PATHS := $(call selftest_list,1)
SELFTEST_EARLY := $(notdir $(call selftest_list,$$2 == "early"))
SELFTEST_LATE  := $(notdir $(call selftest_list,$$2 == "late"))
SELFTEST_NAMES := $(SELFTEST_EARLY) $(SELFTEST_LATE)
# The race-sensitive programs: the only ones run on the KCSAN kernel
# (lanes/vm/vm.sh --race-tests; kernel "kcsan"), and with the "rt" ones
# on PREEMPT_RT (--rt-tests).
SELFTEST_RACE := $(notdir $(call selftest_list,$$3 == "race"))
SELFTEST_RT   := $(SELFTEST_RACE) $(notdir $(call selftest_list,$$3 == "rt"))
vpath kav_%_test.c $(sort $(dir $(addprefix tests/selftests/,$(SELFTEST_PATHS))))
SELFTEST_EARLY_BINS := $(addprefix $(SELFTEST_DIR)/,$(SELFTEST_EARLY))
SELFTEST_LATE_BINS  := $(addprefix $(SELFTEST_DIR)/,$(SELFTEST_LATE))
SELFTEST_BINS := $(addprefix $(SELFTEST_DIR)/,$(SELFTEST_NAMES))
DEMO_BINS     := $(SELFTEST_DIR)/kav_demo

# kselftest_harness.h's own macros trip these -Wextra warnings.
SELFTEST_CFLAGS := $(KAV_CFLAGS) -Wno-unused-parameter -Wno-sign-compare \
		   -Wno-clobbered \
		   -I$(KSFT_HDR_DIR) -I$(CURDIR)/tests/selftests/include \
		   -I$(CURDIR)/tests/doubles/nic
SELFTEST_DEPS := tests/selftests/include/kav_test_util.h uapi/linux/kav.h \
		 tests/selftests/include/kav_fi_compat.h \
		 tests/selftests/include/kav_nl_util.h tests/selftests/include/kav_test_seccomp.h \
		 tests/selftests/include/kav_attack_util.h tests/selftests/include/kav_proc_mem.h \
		 tests/selftests/include/kav_collide.h tests/selftests/include/kav_wire_util.h \
		 tests/selftests/include/kav_wire_tools.h \
		 tests/doubles/nic/kav_nic.h \
		 lib/libkav.a $(KSFT_HDR_DIR)/kselftest_harness.h

.PHONY: selftests selftests-clean
selftests: $(SELFTEST_BINS) $(DEMO_BINS) ## the kselftest programs (tests/selftests/ORDER)

$(KSFT_HDR_DIR)/kselftest_harness.h:
	lanes/vm/harness-headers.sh $(KSFT_HDR_DIR)

$(SELFTEST_DIR)/%: %.c $(SELFTEST_DEPS)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(SELFTEST_CFLAGS) $< -o $@ lib/libkav.a $(SELFTEST_LIBS)

# Runs kavctl in the guest: built with it (order-only, no relink).
$(SELFTEST_DIR)/kav_slurm_test: | $(KAVCTL)
# Runs tools/instant/kav-av-fill from /tests (KAV_EXTRA_FILES: hook.mk's
# HOOK_GUEST_FILES carries it).
$(SELFTEST_DIR)/kav_av_fill_test: | $(KAV_AV_FILL)
$(SELFTEST_DIR)/kav_kavctl_test: | $(KAVCTL)
# kavctl apply; it reloads kav.ko too (from /kav.ko, as guest-init.sh).
$(SELFTEST_DIR)/kav_apply_test: | $(KAVCTL)
# kav-wire-sa (tools/wire) with kavctl and openssl from the guest's /tests.
$(SELFTEST_DIR)/kav_wire_sa_test: | $(KAVCTL)

# The conformance suite imports kav's peer AV into a mock offload provider.
$(SELFTEST_DIR)/kav_conformance_test: tests/selftests/lib/kav_conformance_test.c \
		tests/doubles/peer/mock_peer.c tests/doubles/peer/mock_peer.h $(SELFTEST_DEPS)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(SELFTEST_CFLAGS) -I$(CURDIR)/tests/doubles/peer $< \
		tests/doubles/peer/mock_peer.c -o $@ lib/libkav.a

# kav_layout_test builds the fake kernel's table (tests/doubles/kernel/fake_table.c)
# beside the module's and compares the two byte for byte.
$(SELFTEST_DIR)/kav_layout_test: tests/selftests/device/kav_layout_test.c \
		tests/doubles/kernel/fake_table.c tests/doubles/kernel/fake_table.h \
		tests/doubles/kernel/fake_index.c tests/doubles/kernel/fake_index.h $(SELFTEST_DEPS)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(SELFTEST_CFLAGS) -I$(CURDIR)/tests/doubles/kernel $< \
		tests/doubles/kernel/fake_table.c tests/doubles/kernel/fake_index.c -o $@ lib/libkav.a

# kav_job_test races threads of several processes.
$(SELFTEST_DIR)/kav_job_test: SELFTEST_LIBS := -lpthread
# The wire's programs race threads on one netlink socket and traffic.
$(SELFTEST_DIR)/kav_wire_test: SELFTEST_LIBS := -lpthread
$(SELFTEST_DIR)/kav_wire_unload_test: SELFTEST_LIBS := -lpthread

# kav_hook_test drives libfabric with FI_HOOK=kav: it needs libfabric.so
# and the provider, which the guest gets in /tests beside it.
$(SELFTEST_DIR)/kav_hook_test: tests/selftests/lib/kav_hook_test.c $(SELFTEST_DEPS) \
		| prov/libkav-fi.so
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(SELFTEST_CFLAGS) $< -o $@ lib/libkav.a -lfabric

$(SELFTEST_DIR)/kav_demo: tests/demo/kav_demo.c uapi/linux/kav.h lib/libkav.a
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(KAV_CFLAGS) $< -o $@ lib/libkav.a

selftests-clean:
	rm -rf $(SELFTEST_DIR)
