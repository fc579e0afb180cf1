# kavctl: included by the top-level Makefile (paths are relative to it).
#
#   make tools        tools/kavctl/kavctl (objects under $(BUILD)/tools)
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

tools: $(KAVCTL)

$(BUILD)/tools/kavctl/%.o: tools/kavctl/%.c $(KAVCTL_HDRS) tools/tools.mk
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(KAV_CFLAGS) $(KAVCTL_NL_CFLAGS) $(KAVCTL_SCOLS_CFLAGS) \
		-DKAVCTL_VERSION='"$(KAV_VERSION)"' -c -o $@ $<

$(KAVCTL): $(KAVCTL_OBJS)
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $(KAVCTL_OBJS) $(KAVCTL_NL_LIBS) \
		$(KAVCTL_SCOLS_LIBS)

tools-clean:
	rm -rf $(BUILD)/tools $(KAVCTL)
