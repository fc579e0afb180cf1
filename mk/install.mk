# Installing kav on a node, and its packages. Included by the top-level
# Makefile.

.PHONY: install install-node install-slurm dkms-src deb

# libkav (shared, static, headers, pkg-config), the hooking provider in
# libfabric's provider directory (LIBDIR/libfabric: Debian's libfabric
# looks there; elsewhere set FI_PROVIDER_PATH), kavctl and the man pages.
FI_PROVDIR ?= $(LIBDIR)/libfabric
install: lib prov tools ## libkav, the hook provider, kavctl, the man pages
	install -d $(DESTDIR)$(LIBDIR)/pkgconfig $(DESTDIR)$(INCDIR)/kav $(DESTDIR)$(INCDIR)/linux
	install -m 0644 lib/include/kav/*.h $(DESTDIR)$(INCDIR)/kav/
	install -m 0644 uapi/linux/kav.h $(DESTDIR)$(INCDIR)/linux/kav.h
	install -m 0755 lib/libkav.so.0 $(DESTDIR)$(LIBDIR)/libkav.so.0
	ln -sf libkav.so.0 $(DESTDIR)$(LIBDIR)/libkav.so
	install -m 0644 lib/libkav.a $(DESTDIR)$(LIBDIR)/libkav.a
	install -d $(DESTDIR)$(FI_PROVDIR)
	install -m 0644 prov/libkav-fi.so $(DESTDIR)$(FI_PROVDIR)/libkav-fi.so
	sed -e 's|@VERSION@|$(KAV_VERSION)|' -e 's|@PREFIX@|$(PREFIX)|' -e 's|@LIBDIR@|$(LIBDIR)|' -e 's|@INCDIR@|$(INCDIR)|' \
		lib/kav.pc.in > $(DESTDIR)$(LIBDIR)/pkgconfig/kav.pc
	install -d $(DESTDIR)$(BINDIR)
	install -m 0755 tools/kavctl/kavctl $(DESTDIR)$(BINDIR)/kavctl
	install -d $(DESTDIR)$(PREFIX)/share/bash-completion/completions
	install -m 0644 tools/kavctl/kavctl.bash-completion \
		$(DESTDIR)$(PREFIX)/share/bash-completion/completions/kavctl
	for s in 3 7 8; do \
		install -d $(DESTDIR)$(MANDIR)/man$$s && \
		install -m 0644 Documentation/man/*.$$s $(DESTDIR)$(MANDIR)/man$$s/ || exit 1; \
	done

# A node's configuration of kav.ko: udev rule for /dev/kav, modprobe.d
# (parameters, all commented out), modules-load.d (load at boot); the
# grants of /etc/kav/grants.d (its README: the format, all commented
# out), kav-grants.service and the udev rule that applies them whenever
# kav.ko is loaded (kavctl apply).
install-node: ## udev rules, modprobe.d, modules-load.d, kav-grants.service
	install -D -m 0644 tools/node/60-kav.rules $(DESTDIR)$(UDEVDIR)/rules.d/60-kav.rules
	install -D -m 0644 tools/node/kav-modprobe.conf $(DESTDIR)$(SYSCONFDIR)/modprobe.d/kav.conf
	install -D -m 0644 tools/node/kav-modules-load.conf $(DESTDIR)$(SYSCONFDIR)/modules-load.d/kav.conf
	install -D -m 0644 tools/node/61-kav-grants.rules $(DESTDIR)$(UDEVDIR)/rules.d/61-kav-grants.rules
	install -d $(DESTDIR)$(SYSTEMDUNITDIR)
	sed 's|@BINDIR@|$(BINDIR)|' tools/node/kav-grants.service > $(DESTDIR)$(SYSTEMDUNITDIR)/kav-grants.service
	install -D -m 0644 tools/node/grants.d-example.conf $(DESTDIR)$(SYSCONFDIR)/kav/grants.d/README

# The Slurm prolog and epilog (Documentation/slurm.rst).
# kav-slurm-lib.sh is sourced, not run: 0644 (lintian: executable-not-elf-or-script).
install-slurm: ## the Slurm prolog and epilog
	install -d $(DESTDIR)$(SLURMDIR)
	install -m 0755 $(filter-out %.sh,$(wildcard tools/slurm/kav-slurm-*)) $(DESTDIR)$(SLURMDIR)/
	install -m 0644 tools/slurm/kav-slurm-lib.sh $(DESTDIR)$(SLURMDIR)/

# The DKMS source tree, /usr/src/kav-<version> for PREFIX=/usr: the layout
# of this repository (kmod/dkms.conf), then `dkms install kav/<version>`.
DKMS_FILES := VERSION uapi/linux/kav.h kmod/Kbuild kmod/Makefile \
	      $(filter-out %.mod.c,$(wildcard kmod/*.c kmod/*.h))
dkms-src: ## the DKMS source tree (PREFIX=/usr: /usr/src/kav-VERSION)
	install -d $(DESTDIR)$(DKMSDIR)/kmod $(DESTDIR)$(DKMSDIR)/uapi/linux
	for f in $(DKMS_FILES); do \
		install -m 0644 $$f $(DESTDIR)$(DKMSDIR)/$$f || exit 1; \
	done
	sed 's|#MODULE_VERSION#|$(KAV_VERSION)|' kmod/dkms.conf > $(DESTDIR)$(DKMSDIR)/dkms.conf

# kav-dkms, libkav0, libkav-dev and kav-tools in build/deb (unsigned).
deb: ## the Debian packages in build/deb
	scripts/make-deb.sh $(BUILD)/deb

