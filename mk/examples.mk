# The documents' example programs (README.md's "Using it in a program",
# the EXAMPLES of kav_domain_open(3), kav_av(3) and kav_strerror(3)), kept
# here as complete
# programs. Included by the top-level Makefile, after selftests.mk.
#
#   make examples   $(BUILD)/examples/example-<name>, compiled as a user
#                   would (gnu11, -Wall -Wextra; warnings are errors here)
#                   against libkav, and kav_examples_test, the kselftest
#                   program that runs them in the VM as a tenant, with and
#                   without a grant (make vmtest; the examples go to the
#                   guest's /tests beside it)
#
# Documentation/examples/check-sync.sh (make lint) keeps the documents'
# copies identical to these files.

EXAMPLE_NAMES  := readme kav_domain_open kav_av kav_strerror
EXAMPLE_DIR    := $(BUILD)/examples
EXAMPLE_BINS   := $(addprefix $(EXAMPLE_DIR)/example-,$(EXAMPLE_NAMES))
EXAMPLE_TEST   := $(EXAMPLE_DIR)/kav_examples_test
EXAMPLE_CFLAGS := -std=gnu11 -Wall -Wextra -Werror -I$(CURDIR)/uapi \
		  -I$(CURDIR)/lib/include

.PHONY: examples

examples: $(EXAMPLE_BINS) $(EXAMPLE_TEST) ## the documents' example programs

$(EXAMPLE_DIR)/example-%: Documentation/examples/%.c lib/libkav.a \
		lib/include/kav/kav.h uapi/linux/kav.h
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(EXAMPLE_CFLAGS) $< -o $@ lib/libkav.a

$(EXAMPLE_TEST): tests/selftests/lib/kav_examples_test.c \
		tests/selftests/include/kav_nl_util.h uapi/linux/kav.h \
		$(KSFT_HDR_DIR)/kselftest_harness.h
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(SELFTEST_CFLAGS) $< -o $@
