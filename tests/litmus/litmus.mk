# The read protocol, proven (Documentation/memory-model.rst): herd7's
# verdicts on the litmus tests of tests/litmus/lkmm and tests/litmus/c11
# (herd7 from a cached sid root, tests/litmus/herd-root.sh; needs root),
# and the aarch64 codegen check of every reader. make lint runs both
# (tests/lint/lint.sh).

.PHONY: litmus litmus-herd litmus-codegen

litmus: litmus-herd litmus-codegen

litmus-herd:
	BUILD=$(BUILD) $(CURDIR)/tests/litmus/check.sh

litmus-codegen:
	BUILD=$(BUILD) $(CURDIR)/tests/litmus/aarch64-codegen.sh
