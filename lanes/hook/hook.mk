# The hooking provider's tests beyond kav_hook_test: libfabric's own
# fabtests and a real MPICH job, in the VM (lanes/hook/*-guest.sh), and
# the host test double. Included by the top-level Makefile.
#
# fabtests 1.13.1 and MPICH 4.0.2 (ch4:ofi) are built at test time from
# Debian's mpich_4.0.2.orig.tar.xz, over the system libfabric, into
# /var/cache/kav (build-fabtests.sh, build-mpich.sh; nothing committed).
#
#   make hook-deps   everything the guest scripts need, built or cached

HOOK_DIR      := $(BUILD)/hook
KAV_FABTESTS  ?= /var/cache/kav/fabtests-1.13.1
KAV_MPICH     ?= /var/cache/kav/mpich-4.0.2
HOOK_FABTESTS := fi_av_test fi_rdm fi_rdm_tagged_pingpong fi_rdm_shared_av \
		 fi_av_xfer fi_multi_ep fi_rma_bw
# What the guests run, and the files they need in /tests.
HOOK_GUEST_BINS  := $(CURDIR)/lanes/hook/fabtests-guest.sh \
		    $(CURDIR)/lanes/hook/mpich-guest.sh
# kav-av-fill (tools/instant) is mpich-guest.sh's filler, and
# kav_av_fill_test's program.
HOOK_GUEST_FILES := $(addprefix $(KAV_FABTESTS)/bin/,$(HOOK_FABTESTS)) \
		    /etc/services $(HOOK_DIR)/mpi_instant \
		    $(CURDIR)/$(KAV_AV_FILL) $(KAV_MPICH)/bin/mpiexec \
		    $(KAV_MPICH)/bin/hydra_pmi_proxy
HOOK_FAKE_KERNEL := $(HOOK_DIR)/libkav-fake-kernel.so

.PHONY: hook-deps hook-fabtests hook-mpich

hook-deps: prov hook-fabtests $(HOOK_DIR)/mpi_instant $(KAV_AV_FILL) \
	   $(HOOK_FAKE_KERNEL)

# The scripts are no-ops when their cache is current.
hook-fabtests:
	@lanes/hook/build-fabtests.sh >/dev/null

hook-mpich:
	@lanes/hook/build-mpich.sh >/dev/null

$(HOOK_DIR)/mpi_instant: tests/apps/mpi_instant.c | hook-mpich
	@mkdir -p $(@D)
	$(KAV_MPICH)/bin/mpicc -O2 -Wall -Wextra -o $@ $<

# The host test double: the fake kernel behind libkav's ioctls, preloaded.
$(HOOK_FAKE_KERNEL): tests/doubles/kernel/fake_kernel_preload.c tests/doubles/kernel/fake_kav.c \
		tests/doubles/kernel/fake_table.c tests/doubles/kernel/fake_ioctl.c \
		tests/doubles/kernel/fake_index.c tests/doubles/kernel/fake_index.h \
		tests/doubles/kernel/fake_kav.h tests/doubles/kernel/fake_table.h $(LIB_HDRS)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(KAV_CFLAGS) -I$(CURDIR)/lib -I$(CURDIR)/tests/doubles/kernel \
		-fPIC -shared -o $@ tests/doubles/kernel/fake_kernel_preload.c \
		tests/doubles/kernel/fake_kav.c tests/doubles/kernel/fake_table.c \
		tests/doubles/kernel/fake_index.c tests/doubles/kernel/fake_ioctl.c -ldl
