# kavctl and kav-av-fill: included by the top-level Makefile (paths are
# relative to it).
#
#   make tools        tools/kavctl/kavctl and tools/instant/kav-av-fill
#                     (objects under $(BUILD)/tools)
#   make tools-clean
#
# kavctl administers kav.ko over generic netlink with libnl-3
# (libnl-genl-3: Debian's libnl-3-dev and libnl-genl-3-dev) and prints
# its listings with libsmartcols (libsmartcols-dev).

KAVCTL        := tools/kavctl/kavctl
KAVCTL_SRCS   := $(wildcard tools/kavctl/*.c)
KAVCTL_HDRS   := $(wildcard tools/kavctl/*.h) uapi/linux/kav.h VERSION
KAVCTL_OBJS   := $(patsubst tools/kavctl/%.c,$(BUILD)/tools/kavctl/%.o,\
		 $(KAVCTL_SRCS))
KAVCTL_NL_CFLAGS := $(shell pkg-config --cflags libnl-genl-3.0 2>/dev/null \
		      || echo -I/usr/include/libnl3)
KAVCTL_NL_LIBS   := $(shell pkg-config --libs libnl-genl-3.0 2>/dev/null \
		      || echo -lnl-genl-3 -lnl-3)
KAVCTL_SCOLS_CFLAGS := $(shell pkg-config --cflags smartcols 2>/dev/null \
			 || echo -I/usr/include/libsmartcols)
KAVCTL_SCOLS_LIBS   := $(shell pkg-config --libs smartcols 2>/dev/null \
			 || echo -lsmartcols)

.PHONY: tools tools-clean

tools: $(KAVCTL) ## kavctl and kav-av-fill

$(BUILD)/tools/kavctl/%.o: tools/kavctl/%.c $(KAVCTL_HDRS) mk/tools.mk
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(KAV_CFLAGS) $(KAVCTL_NL_CFLAGS) $(KAVCTL_SCOLS_CFLAGS) \
		-DKAVCTL_VERSION='"$(KAV_VERSION)"' -c -o $@ $<

$(KAVCTL): $(KAVCTL_OBJS)
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $(KAVCTL_OBJS) $(KAVCTL_NL_LIBS) \
		$(KAVCTL_SCOLS_LIBS)

tools-clean:
	rm -rf $(BUILD)/tools $(KAVCTL) $(KAV_AV_FILL)

# kav-av-fill (tools/instant, kav-av-fill(1)): MPI instant-on across nodes.
# It links libkav statically (lib/libkav.a), as the hooking provider links
# libkav's objects: kav-tools then needs no libkav0, and the test VM runs
# it from /tests without libkav.so. Its parsers (fill_args.c) are unit
# tested on their own (tests/unit/test_av_fill_args.c).
KAV_AV_FILL      := tools/instant/kav-av-fill
KAV_AV_FILL_SRCS := tools/instant/kav-av-fill.c tools/instant/fill_args.c
KAV_AV_FILL_OBJS := $(patsubst tools/instant/%.c,$(BUILD)/tools/instant/%.o,\
		    $(KAV_AV_FILL_SRCS))
KAV_AV_FILL_HDRS := tools/instant/fill_args.h $(LIB_HDRS) VERSION

tools: $(KAV_AV_FILL)

$(BUILD)/tools/instant/%.o: tools/instant/%.c $(KAV_AV_FILL_HDRS) mk/tools.mk
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(KAV_CFLAGS) -DKAV_AV_FILL_VERSION='"$(KAV_VERSION)"' \
		-c -o $@ $<

$(KAV_AV_FILL): $(KAV_AV_FILL_OBJS) lib/libkav.a
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $(KAV_AV_FILL_OBJS) lib/libkav.a

# What `make install` adds for these tools (prerequisites of the top-level
# install target, so that its recipe needs no change): kav-av-fill, a
# user's command, in $(USERBINDIR) with kav-av-fill(1) (the Debian
# package's BINDIR is /usr/sbin, for kavctl); kav-cdi-generate, the
# administrator's CDI spec generator (admin-guide.rst, "Containers
# (CDI)"), in $(SBINDIR); its page kav-cdi-generate(8) goes with the
# install recipe's section 8 pages; kav-wire-sa, esp mode's SAs
# (kav-wire-sa(8)), in $(SBINDIR) with its parsers in lib/kav/wire (the
# path the script falls back to).
USERBINDIR ?= $(PREFIX)/bin
SBINDIR    ?= $(PREFIX)/sbin

.PHONY: install-tools-extra
install: install-tools-extra
install-tools-extra: $(KAV_AV_FILL)
	install -D -m 0755 $(KAV_AV_FILL) $(DESTDIR)$(USERBINDIR)/kav-av-fill
	install -D -m 0644 Documentation/man/kav-av-fill.1 \
		$(DESTDIR)$(MANDIR)/man1/kav-av-fill.1
	install -D -m 0755 tools/node/kav-cdi-generate \
		$(DESTDIR)$(SBINDIR)/kav-cdi-generate
	install -D -m 0755 tools/wire/kav-wire-sa $(DESTDIR)$(SBINDIR)/kav-wire-sa
	install -D -m 0644 tools/wire/kav-wire-sa.awk \
		$(DESTDIR)$(PREFIX)/lib/kav/wire/kav-wire-sa.awk
