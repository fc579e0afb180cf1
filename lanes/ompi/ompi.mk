# Open MPI 5 through the hook (Documentation/testing.rst, kav_ompi_vm): a
# program for lanes/vm/vm.sh that mounts the trixie root over 9p
# (run-vm.sh KAV_VM_TRIXIE_ROOT, lanes/trixie/root.sh) and runs Open MPI
# 5.0.7 jobs in it with FI_HOOK=kav and the real kav.ko. Included by the
# top-level Makefile.
#
# Its files reach the guest's /tests as one tar, kav-ompi.tar, unpacked
# inside the chroot: what is in it is linked against the trixie root's
# libraries (Open MPI, libfabric 2.1), which the initramfs (copying the
# host's with ldd) must not see. The tar holds
#
#   kav_ompi               tests/apps/kav_ompi.c, built with the root's mpicc
#   kav-ompi-guest.sh      the TAP script run chrooted in the root
#   libkav-fi.so, libkav.so.0, kavctl
#                          built against libfabric 2.1 in the root by
#                          trixie-lib (lanes/trixie/trixie.mk)
#
# The guest program also needs GUEST_9P_FILES (lanes/slurm/slurm.mk:
# lanes/vm/guest-9p.sh and the kernels' 9p modules).
#
#   make ompi-deps     the tar (and the 9p modules)
#   make ompi-vmtest   just this test, on 6.12 (KAV_KERNELS to change)

OMPI_DIR         := $(BUILD)/ompi
OMPI_VM_BIN      := $(CURDIR)/lanes/ompi/kav_ompi_vm
OMPI_MPI_BIN     := $(OMPI_DIR)/kav_ompi
OMPI_TAR         := $(OMPI_DIR)/kav-ompi.tar
OMPI_GUEST_FILES := $(OMPI_TAR)
# trixie-lib's outputs (libfabric 2.1 builds; TRIXIE_SRC: trixie.mk).
OMPI_TAR_FILES    = $(OMPI_MPI_BIN) $(CURDIR)/lanes/ompi/kav-ompi-guest.sh \
		    $(TRIXIE_SRC)/prov/libkav-fi.so \
		    $(TRIXIE_SRC)/lib/libkav.so.0 \
		    $(TRIXIE_SRC)/tools/kavctl/kavctl

.PHONY: ompi-deps ompi-vmtest

# The root's mpicc (Open MPI 5.0.7), in the root (lanes/trixie/run.sh
# binds the repository and the build directory at their own paths).
$(OMPI_MPI_BIN): tests/apps/kav_ompi.c lanes/ompi/ompi.mk
	@mkdir -p $(@D)
	lanes/trixie/run.sh --bind $(CURDIR) --bind $(OMPI_DIR) -- \
		mpicc -std=gnu11 -O2 -Wall -Wextra -o $@ $(CURDIR)/$<

# Remade every time: trixie-lib decides whether its outputs changed.
ompi-deps: trixie-lib slurm-deps $(OMPI_MPI_BIN)
	rm -rf $(OMPI_DIR)/tar
	mkdir -p $(OMPI_DIR)/tar
	cp $(OMPI_TAR_FILES) $(OMPI_DIR)/tar/
	tar -C $(OMPI_DIR)/tar --owner=0 --group=0 -cf $(OMPI_TAR).tmp .
	mv $(OMPI_TAR).tmp $(OMPI_TAR)

# Just this test (make vmtest runs it too, on every kernel).
ompi-vmtest: ompi-deps tools prov
	KAV_VM_TRIXIE_ROOT="$$(lanes/trixie/root.sh)" \
	KAV_EXTRA_FILES="$(OMPI_GUEST_FILES) $(GUEST_9P_FILES)" lanes/vm/vm.sh \
		--kernels "$${KAV_KERNELS:-6.12}" --selftests "$(OMPI_VM_BIN)"
