# The packaging lane (lanes/pkg/pkg.sh): the Debian packages of make deb
# checked, installed, used, upgraded and purged on the host, then again
# in the trixie root (trixie's lintian, DKMS 3.2 for its 6.12 and 7.3, its
# apt) from a copy of the tree in $(BUILD)/trixie-pkg/src under an overlay
# of the root: neither the host's build/deb nor the cached root changes.
# Included by the top-level Makefile.

.PHONY: pkgcheck pkgcheck-trixie

pkgcheck: deb ## the packaging lane: lintian, DKMS, install, upgrade (host, trixie)
	lanes/pkg/pkg.sh $(BUILD)/deb $(BUILD)/trixie-pkg

# The trixie half alone.
pkgcheck-trixie:
	lanes/pkg/trixie-check.sh $(BUILD)/trixie-pkg
