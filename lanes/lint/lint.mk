# The lint lane (lanes/lint/lint.sh): static analysis of the whole tree,
# no finding allowed: checkpatch --strict, sparse and kernel-doc on the
# module; cppcheck and clang-tidy on the userland; ShellCheck; the man
# pages; the documents' examples; the YNL spec; the layering and naming
# checks; and the memory-model proofs. Included by the top-level Makefile.
#
#   make lint          every step (the litmus proofs need root: a chroot)
#   make lint-fast     every step but the litmus proofs: no root, no
#                      chroot (make check-fast)

.PHONY: lint lint-fast litmus litmus-herd litmus-codegen

lint: ## static analysis of the whole tree (lanes/lint/lint.sh)
	lanes/lint/lint.sh

lint-fast:
	KAV_LINT_SKIP="litmus" lanes/lint/lint.sh

# The read protocol, proven (Documentation/memory-model.rst): herd7's
# verdicts on the litmus tests of tests/litmus/lkmm and tests/litmus/c11
# (herd7 from a cached sid root, lanes/lint/herd-root.sh; needs root),
# and the aarch64 codegen check of every reader. make lint runs both
# (lanes/lint/lint.sh).


litmus: litmus-herd litmus-codegen ## the memory-model proofs (herd7, aarch64 codegen)

litmus-herd:
	BUILD=$(BUILD) $(CURDIR)/lanes/lint/litmus.sh

litmus-codegen:
	BUILD=$(BUILD) $(CURDIR)/lanes/lint/aarch64-codegen.sh
