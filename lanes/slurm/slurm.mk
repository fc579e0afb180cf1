# The real-Slurm test (Documentation/slurm.rst, "How it is tested"): a
# program for lanes/vm/vm.sh, run in the guests of make vmtest, which
# mounts the host's root file system over 9p (run-vm.sh KAV_VM_VIRTFS=1)
# and runs Debian's slurmctld and slurmd in it. Its files in the guest's
# /tests: the chrooted test script, the job's program and, per kernel,
# the 9p modules (lanes/slurm/kmods.sh).

SLURM_TEST_DIR  := $(BUILD)/slurm
SLURM_VM_BIN    := $(CURDIR)/lanes/slurm/kav_slurm_vm
SLURM_JOB_BIN   := $(SLURM_TEST_DIR)/kav_slurm_job
# What every guest program that chroots into a 9p root needs in /tests
# (lanes/vm/guest-9p.sh and the 9p modules), listed once: the Slurm test
# and lanes/ompi share it. Recursively expanded: the tars exist once
# slurm-deps has run.
GUEST_9P_FILES = $(CURDIR)/lanes/vm/guest-9p.sh \
		 $(wildcard $(SLURM_TEST_DIR)/kav-slurm-kmods-*.tar)
SLURM_GUEST_FILES = $(CURDIR)/lanes/slurm/kav-slurm-vm-guest.sh $(SLURM_JOB_BIN) \
		    $(GUEST_9P_FILES)

.PHONY: slurm-deps slurm-vmtest
$(SLURM_JOB_BIN): tests/apps/kav_slurm_job.c lib/libkav.a
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(KAV_CFLAGS) $< -o $@ lib/libkav.a

# The modules of the kernels make vmtest boots (cheap: modinfo, xz -d),
# the trixie root's too (lanes/ompi mounts that root over 9p).
slurm-deps: $(SLURM_JOB_BIN)
	@list=$$(lanes/vm/kernels.sh --kernels "$${KAV_KERNELS:-$(VM_KERNELS)}") || exit 1; \
	echo "$$list" | while read -r kver root; do \
		lanes/slurm/kmods.sh $${root:+--root "$$root"} $(SLURM_TEST_DIR) "$$kver" || exit 1; \
	done

# Just this test, on Debian's kernels (make vmtest runs it too).
slurm-vmtest: slurm-deps tools
	KAV_VM_VIRTFS=1 KAV_EXTRA_FILES="$(SLURM_GUEST_FILES)" lanes/vm/vm.sh \
		--kernels "$${KAV_KERNELS:-6.1 6.12}" --selftests "$(SLURM_VM_BIN)"
