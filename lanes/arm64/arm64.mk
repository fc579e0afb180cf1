# The arm64 lane: included by the top-level Makefile (paths are relative
# to it). See Documentation/testing.rst, "The arm64 lane".
#
#   make arm64-check   cross-build libkav, the hook, kavctl, kav-av-fill,
#                      every selftest and kav.ko (W=1) for Debian
#                      bookworm's arm64 6.12, boot that kernel under
#                      qemu-system-aarch64 (TCG) and run ARM64_TESTS in it
#                      (lanes/arm64/arm64.sh); last line "N passed, N failed"
#   make arm64-build   the userland part only (needs ARM64_SYSROOT:
#                      lanes/arm64/arm64.sh passes sysroot.sh's DIR/root)
#   make arm64-clean
#
# Everything lands in $(BUILD)/arm64: the host's build (lib/libkav.a,
# prov/libkav-fi.so, build/selftests, ...) is never touched. The compiler
# is aarch64-linux-gnu-gcc (bookworm's gcc-12 cross compiler) with
# --sysroot at the arm64 packages that lanes/arm64/sysroot.sh extracts
# (libc, libfabric 1.17, libnl-3, libsmartcols); the kselftest harness
# headers are the host build's ($(KSFT_HDR_DIR)). Userland objects build
# with -Werror: a warning on arm64 fails the lane, as build-kmod.sh fails
# kav.ko on one.

ARM64_BUILD   := $(BUILD)/arm64
ARM64_SYSROOT ?=
ARM64_CROSS   ?= aarch64-linux-gnu-
ARM64_CC      := $(ARM64_CROSS)gcc --sysroot=$(ARM64_SYSROOT)
ARM64_AR      := $(ARM64_CROSS)ar
ARM64_CFLAGS  := -O2 -g -Werror
# The programs run in the guest. The subset that matters most on a
# weakly ordered CPU and fits the lane's budget (testing.rst): the uAPI
# and the table layout as arm64 builds them, libkav end to end, the
# lock-free readers (the inline view, writers x readers), the kernel's
# unlocked readers against its writers, and job tables shared by
# threads of several processes. ARM64_TESTS="$(SELFTEST_NAMES)" runs
# them all (kavctl, kav-av-fill, the test NIC and the hook are in the
# guest's /tests for that).
ARM64_TESTS   ?= kav_uapi_test kav_lib_test kav_layout_test kav_job_test \
		 kav_concurrency_test kav_race_test kav_view_test

ARM64_LIB_OBJS  := $(patsubst lib/%.c,$(ARM64_BUILD)/lib/%.o,$(LIB_SRCS))
ARM64_PROV_OBJS := $(patsubst prov/%.c,$(ARM64_BUILD)/prov/%.o,$(PROV_SRCS))
ARM64_LIBKAV_A  := $(ARM64_BUILD)/lib/libkav.a
ARM64_LIBKAV_SO := $(ARM64_BUILD)/lib/libkav.so.0
ARM64_PROV      := $(ARM64_BUILD)/prov/libkav-fi.so
ARM64_KAVCTL_OBJS := $(patsubst tools/kavctl/%.c,$(ARM64_BUILD)/tools/kavctl/%.o,\
		     $(KAVCTL_SRCS))
ARM64_KAVCTL    := $(ARM64_BUILD)/tools/kavctl/kavctl
ARM64_FILL_OBJS := $(patsubst tools/instant/%.c,$(ARM64_BUILD)/tools/instant/%.o,\
		   $(KAV_AV_FILL_SRCS))
ARM64_FILL      := $(ARM64_BUILD)/tools/instant/kav-av-fill
ARM64_ST_DIR    := $(ARM64_BUILD)/selftests
ARM64_ST_BINS   := $(addprefix $(ARM64_ST_DIR)/,$(SELFTEST_NAMES))
ARM64_ST_DEPS   := $(filter-out lib/libkav.a,$(SELFTEST_DEPS)) $(ARM64_LIBKAV_A)

.PHONY: arm64-check arm64-build arm64-sysroot-check arm64-clean

# arm64.sh runs make arm64-build itself (-j as many CPUs), with none of
# this make's flags.
arm64-check: $(KSFT_HDR_DIR)/kselftest_harness.h ## the arm64 lane: selftests on arm64 6.12 under qemu-system-aarch64
	lanes/arm64/arm64.sh --selftests "$(ARM64_TESTS)"

arm64-build: arm64-sysroot-check $(ARM64_LIBKAV_SO) $(ARM64_LIBKAV_A) \
	$(ARM64_PROV) $(ARM64_KAVCTL) $(ARM64_FILL) $(ARM64_ST_BINS)

arm64-sysroot-check:
	@test -f "$(ARM64_SYSROOT)/usr/include/rdma/fabric.h" || { \
		echo "ARM64_SYSROOT=$(ARM64_SYSROOT): not the arm64 sysroot (lanes/arm64/sysroot.sh prints DIR; use DIR/root)" >&2; \
		exit 1; }

$(ARM64_BUILD)/lib/%.o: lib/%.c $(LIB_HDRS) lanes/arm64/arm64.mk | arm64-sysroot-check
	@mkdir -p $(@D)
	$(ARM64_CC) $(ARM64_CFLAGS) $(KAV_CFLAGS) $(LIB_OWN_CFLAGS) -c -o $@ $<

$(ARM64_LIBKAV_SO): $(ARM64_LIB_OBJS) lib/libkav.map
	$(ARM64_CC) $(ARM64_CFLAGS) -shared -Wl,-soname,libkav.so.0 \
		-Wl,--version-script=lib/libkav.map -Wl,-z,defs \
		-Wl,-z,relro -Wl,-z,now -o $@ $(ARM64_LIB_OBJS)

$(ARM64_LIBKAV_A): $(ARM64_LIB_OBJS)
	@rm -f $@
	$(ARM64_AR) rcs $@ $(ARM64_LIB_OBJS)

$(ARM64_BUILD)/prov/%.o: prov/%.c $(PROV_HDRS) lanes/arm64/arm64.mk | arm64-sysroot-check
	@mkdir -p $(@D)
	$(ARM64_CC) $(ARM64_CFLAGS) $(KAV_CFLAGS) -fPIC -fvisibility=hidden -c -o $@ $<

$(ARM64_PROV): $(ARM64_PROV_OBJS) $(ARM64_LIB_OBJS) prov/libkav-fi.map
	$(ARM64_CC) $(ARM64_CFLAGS) -shared -Wl,-soname,libkav-fi.so \
		-Wl,--version-script=prov/libkav-fi.map -Wl,-z,defs \
		-Wl,-z,relro -Wl,-z,now -o $@ $(ARM64_PROV_OBJS) $(ARM64_LIB_OBJS) \
		-lfabric -lpthread

# "-I=": inside the sysroot.
$(ARM64_BUILD)/tools/kavctl/%.o: tools/kavctl/%.c $(KAVCTL_HDRS) lanes/arm64/arm64.mk | arm64-sysroot-check
	@mkdir -p $(@D)
	$(ARM64_CC) $(ARM64_CFLAGS) $(KAV_CFLAGS) -I=/usr/include/libnl3 \
		-I=/usr/include/libsmartcols \
		-DKAVCTL_VERSION='"$(KAV_VERSION)"' -c -o $@ $<

$(ARM64_KAVCTL): $(ARM64_KAVCTL_OBJS)
	$(ARM64_CC) $(ARM64_CFLAGS) -o $@ $(ARM64_KAVCTL_OBJS) \
		-lnl-genl-3 -lnl-3 -lsmartcols

$(ARM64_BUILD)/tools/instant/%.o: tools/instant/%.c $(KAV_AV_FILL_HDRS) lanes/arm64/arm64.mk | arm64-sysroot-check
	@mkdir -p $(@D)
	$(ARM64_CC) $(ARM64_CFLAGS) $(KAV_CFLAGS) \
		-DKAV_AV_FILL_VERSION='"$(KAV_VERSION)"' -c -o $@ $<

$(ARM64_FILL): $(ARM64_FILL_OBJS) $(ARM64_LIBKAV_A)
	$(ARM64_CC) $(ARM64_CFLAGS) -o $@ $(ARM64_FILL_OBJS) $(ARM64_LIBKAV_A)

# The selftests, as selftests.mk builds them (its extra sources and
# libraries per program).
ARM64_ST_EXTRA = $(or $(ARM64_ST_EXTRA_$(notdir $@)),)
ARM64_ST_EXTRA_kav_conformance_test := -I$(CURDIR)/tests/doubles/peer tests/doubles/peer/mock_peer.c
ARM64_ST_EXTRA_kav_layout_test := -I$(CURDIR)/tests/doubles/kernel tests/doubles/kernel/fake_table.c \
				  tests/doubles/kernel/fake_index.c
ARM64_ST_LIBS = $(or $(ARM64_ST_LIBS_$(notdir $@)),)
ARM64_ST_LIBS_kav_job_test := -lpthread
ARM64_ST_LIBS_kav_hook_test := -lfabric

$(ARM64_ST_DIR)/%: %.c $(ARM64_ST_DEPS) lanes/arm64/arm64.mk | arm64-sysroot-check
	@mkdir -p $(@D)
	$(ARM64_CC) $(ARM64_CFLAGS) $(SELFTEST_CFLAGS) $< $(ARM64_ST_EXTRA) \
		-o $@ $(ARM64_LIBKAV_A) $(ARM64_ST_LIBS)

$(ARM64_ST_DIR)/kav_conformance_test: tests/doubles/peer/mock_peer.c tests/doubles/peer/mock_peer.h
$(ARM64_ST_DIR)/kav_layout_test: tests/doubles/kernel/fake_table.c tests/doubles/kernel/fake_table.h \
	tests/doubles/kernel/fake_index.c tests/doubles/kernel/fake_index.h

arm64-clean:
	rm -rf $(ARM64_BUILD)
