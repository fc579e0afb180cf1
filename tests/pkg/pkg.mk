# The packaging tests again in the Debian trixie root (tests/trixie/root.sh):
# make deb and lintian of trixie, DKMS 3.2 building kav.ko for the root's
# 6.12 and trixie-backports' 7.3, the packages installed, used and purged
# there (tests/pkg/trixie-check.sh). From a copy of the tree in
# $(BUILD)/trixie-pkg/src, under an overlay of the root: neither the host's
# build/deb nor the cached root changes. Included by the top-level
# Makefile; part of pkgcheck.

.PHONY: pkgcheck-trixie
pkgcheck-trixie:
	tests/pkg/trixie-check.sh $(BUILD)/trixie-pkg
