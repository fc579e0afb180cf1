# kselftest programs, run inside the VM (tests/vm/check.sh). The harness
# headers come from Debian's linux-source-6.12 at build time.

SELFTEST_DIR  := $(BUILD)/selftests
KSFT_HDR_DIR  := $(BUILD)/kselftest
# kav_module_test unloads and reloads kav.ko, so it runs last, and
# kav_chaos_test (which does too) right before it. kav_netlink_test,
# kav_attack_test, kav_trust_test and kav_flood_test load the test NIC
# module (tests/nic) and unload it before they end, so that kav can be
# unloaded after them. kav_flood_test is race-sensitive (victims against a
# flood call in flight, a kill during one), so it is in SELFTEST_RACE and
# with it SELFTEST_RT.
# kav_consumer_test (late) unloads kav_nic and kav.ko, and reloads kav.ko.
# kav_slurm_test runs tools/slurm/* with tools/kavctl/kavctl, which
# tests/vm/check.sh installs in the guest's /tests next to it (make tools);
# kav_av_fill_test runs tools/instant/kav-av-fill there.
SELFTEST_EARLY := kav_uapi_test kav_kcov_test kav_keys_test kav_whoami_test kav_lib_test \
		  kav_quota_test kav_ioctl_size_test \
		  kav_conformance_test \
		  kav_diag_test \
		  kav_netlink_test kav_attack_test kav_trust_test kav_named_test \
		  kav_uffd_test kav_kavctl_test kav_slurm_test kav_av_fill_test \
		  kav_apply_test \
		  kav_instant_on_test kav_layout_test kav_job_test kav_flood_test \
		  kav_concurrency_test kav_race_test kav_view_test \
		  kav_scale_test kav_memory_test kav_hook_test kav_share_test
SELFTEST_LATE  := kav_fail_nth_test kav_fuzz_test kav_consumer_test kav_chaos_test \
		  kav_module_test
SELFTEST_NAMES := $(SELFTEST_EARLY) $(SELFTEST_LATE)
# The race-sensitive programs: the only ones run on the KCSAN kernel
# (tests/vm/check.sh --race-tests; kernel "kcsan").
SELFTEST_RACE := kav_concurrency_test kav_race_test kav_attack_test kav_trust_test \
		 kav_uffd_test kav_fuzz_test kav_view_test kav_job_test \
		 kav_flood_test kav_consumer_test
# The programs run on the PREEMPT_RT kernel (check.sh --rt-tests): the
# race-sensitive ones and those whose outcome preemption, sleeping
# spinlocks or threaded irq_work can change: bounded windows, limits
# checked before they are charged, module load and unload.
SELFTEST_RT := $(SELFTEST_RACE) kav_uapi_test kav_layout_test kav_quota_test \
	       kav_chaos_test kav_memory_test kav_named_test kav_module_test
SELFTEST_EARLY_BINS := $(addprefix $(SELFTEST_DIR)/,$(SELFTEST_EARLY))
SELFTEST_LATE_BINS  := $(addprefix $(SELFTEST_DIR)/,$(SELFTEST_LATE))
SELFTEST_BINS := $(addprefix $(SELFTEST_DIR)/,$(SELFTEST_NAMES))
DEMO_BINS     := $(SELFTEST_DIR)/kav_demo

# kselftest_harness.h's own macros trip these -Wextra warnings.
SELFTEST_CFLAGS := $(KAV_CFLAGS) -Wno-unused-parameter -Wno-sign-compare \
		   -Wno-clobbered \
		   -I$(KSFT_HDR_DIR) -I$(CURDIR)/tests/selftests \
		   -I$(CURDIR)/tests/nic
SELFTEST_DEPS := tests/selftests/kav_test_util.h uapi/linux/kav.h \
		 tests/selftests/kav_fi_compat.h \
		 tests/selftests/kav_nl_util.h tests/selftests/kav_test_seccomp.h \
		 tests/selftests/kav_attack_util.h tests/selftests/kav_proc_mem.h \
		 tests/selftests/kav_collide.h \
		 tests/nic/kav_nic.h \
		 lib/libkav.a $(KSFT_HDR_DIR)/kselftest_harness.h

.PHONY: selftests selftests-clean
selftests: $(SELFTEST_BINS) $(DEMO_BINS)

$(KSFT_HDR_DIR)/kselftest_harness.h:
	tests/vm/harness-headers.sh $(KSFT_HDR_DIR)

$(SELFTEST_DIR)/%: tests/selftests/%.c $(SELFTEST_DEPS)
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

# The conformance suite imports kav's peer AV into a mock offload provider.
$(SELFTEST_DIR)/kav_conformance_test: tests/selftests/kav_conformance_test.c \
		tests/peer/mock_peer.c tests/peer/mock_peer.h $(SELFTEST_DEPS)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(SELFTEST_CFLAGS) -I$(CURDIR)/tests/peer $< \
		tests/peer/mock_peer.c -o $@ lib/libkav.a

# kav_layout_test builds the fake kernel's table (tests/unit/fake_table.c)
# beside the module's and compares the two byte for byte.
$(SELFTEST_DIR)/kav_layout_test: tests/selftests/kav_layout_test.c \
		tests/unit/fake_table.c tests/unit/fake_table.h \
		tests/unit/fake_index.c tests/unit/fake_index.h $(SELFTEST_DEPS)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(SELFTEST_CFLAGS) -I$(CURDIR)/tests/unit $< \
		tests/unit/fake_table.c tests/unit/fake_index.c -o $@ lib/libkav.a

# kav_job_test races threads of several processes.
$(SELFTEST_DIR)/kav_job_test: SELFTEST_LIBS := -lpthread

# kav_hook_test drives libfabric with FI_HOOK=kav: it needs libfabric.so
# and the provider, which the guest gets in /tests beside it.
$(SELFTEST_DIR)/kav_hook_test: tests/selftests/kav_hook_test.c $(SELFTEST_DEPS) \
		| prov/libkav-fi.so
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(SELFTEST_CFLAGS) $< -o $@ lib/libkav.a -lfabric

$(SELFTEST_DIR)/kav_demo: tests/demo/kav_demo.c uapi/linux/kav.h lib/libkav.a
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(KAV_CFLAGS) $< -o $@ lib/libkav.a

selftests-clean:
	rm -rf $(SELFTEST_DIR)
