# kav: one entry point. `make` builds; `make check` tests; `make demo` shows it.
# See README.md.

PREFIX   ?= /usr/local
LIBDIR   ?= $(PREFIX)/lib
INCDIR   ?= $(PREFIX)/include
BINDIR   ?= $(PREFIX)/bin
MANDIR   ?= $(PREFIX)/share/man
DESTDIR  ?=
# Newest kernel build tree on the machine (the running kernel may have none).
KDIR     ?= $(shell ls -d /lib/modules/*/build 2>/dev/null | sort -V | tail -n 1)
BUILD    ?= $(CURDIR)/build

CC       ?= cc
CFLAGS   ?= -O2 -g
KAV_CFLAGS := -std=gnu11 -Wall -Wextra -D_GNU_SOURCE -I$(CURDIR)/uapi \
	      -I$(CURDIR)/lib/include

.PHONY: all kmod modules_install check deps lint unit vmtest demo install clean
all: kmod lib tools

kmod:
	@test -n "$(KDIR)" || { echo "no kernel build tree: run 'make deps' or set KDIR=" >&2; exit 1; }
	$(MAKE) -C $(KDIR) M=$(CURDIR)/kmod W=1 modules

# Installs kav.ko for the kernel KDIR belongs to (updates/), then depmod.
modules_install: kmod
	$(MAKE) -C $(KDIR) M=$(CURDIR)/kmod INSTALL_MOD_DIR=updates modules_install
	depmod -a $(notdir $(patsubst %/build,%,$(KDIR)))

include lib/lib.mk
include tools/tools.mk
include tests/unit/unit.mk
include tests/selftests/selftests.mk
include bench/bench.mk

deps:
	scripts/deps.sh

# The README's test command: static analysis, unit tests on the host, then
# the kselftest suite in a VM on each of Debian's 6.1 and 6.12 kernels and
# on the debug kernel (KAV_DEBUG_KERNEL=0 skips that one).
check: deps
	$(MAKE) --no-print-directory lint
	$(MAKE) --no-print-directory unit
	$(MAKE) --no-print-directory vmtest

# checkpatch --strict and sparse on the module, cppcheck and clang-tidy on
# lib/ and tools/: no findings allowed.
lint:
	tests/lint/lint.sh

# kav_bench's smoke run keeps the benchmark harness working; it goes
# before the programs that reload kav.ko.
VMTEST_BINS := $(SELFTEST_EARLY_BINS) $(BENCH_BIN) $(SELFTEST_LATE_BINS)

vmtest: selftests $(BENCH_BIN)
	tests/vm/check.sh --selftests "$(VMTEST_BINS)"

demo: deps selftests
	tests/vm/check.sh --demo --kernels 6.12 --selftests "$(DEMO_BINS)"

install: lib tools
	install -d $(DESTDIR)$(LIBDIR)/pkgconfig $(DESTDIR)$(INCDIR)/kav $(DESTDIR)$(INCDIR)/linux
	install -m 0644 lib/include/kav/*.h $(DESTDIR)$(INCDIR)/kav/
	install -m 0644 uapi/linux/kav.h $(DESTDIR)$(INCDIR)/linux/kav.h
	install -m 0755 lib/libkav.so.0 $(DESTDIR)$(LIBDIR)/libkav.so.0
	ln -sf libkav.so.0 $(DESTDIR)$(LIBDIR)/libkav.so
	install -m 0644 lib/libkav.a $(DESTDIR)$(LIBDIR)/libkav.a
	sed -e 's|@PREFIX@|$(PREFIX)|' -e 's|@LIBDIR@|$(LIBDIR)|' -e 's|@INCDIR@|$(INCDIR)|' \
		lib/kav.pc.in > $(DESTDIR)$(LIBDIR)/pkgconfig/kav.pc
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(MANDIR)/man8
	install -m 0755 tools/kavctl/kavctl $(DESTDIR)$(BINDIR)/kavctl
	install -m 0644 Documentation/kavctl.8 $(DESTDIR)$(MANDIR)/man8/kavctl.8

clean: lib-clean tools-clean unit-clean selftests-clean bench-clean
	-$(MAKE) -C $(KDIR) M=$(CURDIR)/kmod clean
	rm -rf $(BUILD)
