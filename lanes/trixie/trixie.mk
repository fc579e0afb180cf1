# libkav, the hook, kavctl, the examples, the selftest programs and the
# unit tests built against libfabric 2.1, in the trixie root
# (lanes/trixie/root.sh, run.sh), beside the host's 1.17 build. Included
# by the top-level Makefile.
#
#   make trixie-lib    the tree (tracked and untracked files, no build
#                      products) copied into $(BUILD)/trixie/src and built
#                      there in the root, warnings as errors: lib/libkav.so.0,
#                      lib/libkav.a, prov/libkav-fi.so, tools/kavctl/kavctl,
#                      build/examples/*, build/selftests/* (all under
#                      $(BUILD)/trixie/src)
#   make unit-trixie   make unit (cmocka, ASan + UBSan) there against 2.1,
#                      then fi-info-check.sh: fi_info -l of 2.1 lists
#                      ofi_hook_kav from the 2.1 build and from the
#                      host's (1.17) prov/libkav-fi.so
#
# The copy keeps the files' times, so a second build is incremental.

TRIXIE_DIR  := $(BUILD)/trixie
TRIXIE_SRC  := $(TRIXIE_DIR)/src
TRIXIE_RUN  := lanes/trixie/run.sh --bind $(CURDIR) --bind $(TRIXIE_DIR) --
# -Wall -Wextra come with KAV_CFLAGS; any warning fails the 2.1 build.
TRIXIE_MAKE := make --no-print-directory -C $(TRIXIE_SRC) CFLAGS='-O2 -g -Werror'

.PHONY: trixie-src trixie-lib unit-trixie

# The kselftest headers come from the host's linux-source tarball, which
# the root does not have: copied in with the tree.
trixie-src: $(KSFT_HDR_DIR)/kselftest_harness.h
	@mkdir -p $(TRIXIE_SRC)/build/kselftest
	git ls-files -z --cached --others --exclude-standard | \
		tar --null --files-from=- --ignore-failed-read -cf - | \
		tar -C $(TRIXIE_SRC) -xf -
	cp -p $(KSFT_HDR_DIR)/kselftest*.h $(TRIXIE_SRC)/build/kselftest/

trixie-lib: trixie-src
	$(TRIXIE_RUN) $(TRIXIE_MAKE) lib prov tools examples selftests

unit-trixie: trixie-lib prov ## the trixie lane: unit tests against libfabric 2.1
	$(TRIXIE_RUN) $(TRIXIE_MAKE) unit
	$(TRIXIE_RUN) lanes/trixie/fi-info-check.sh \
		$(TRIXIE_SRC)/prov/libkav-fi.so $(CURDIR)/prov/libkav-fi.so
