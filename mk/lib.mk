# libkav: included by the top-level Makefile (paths are relative to it).
#
#   make lib        lib/libkav.so.0 (soname libkav.so.0) and lib/libkav.a
#   make lib-clean
#
# libkav needs libfabric's headers only: every fi_* call an application
# makes on a kav object is an inline that jumps into libkav's ops tables,
# so there is no link against libfabric.so (-z defs checks nothing else
# is left undefined). Only kav_* symbols are exported (libkav.map).

LIB_SRCS := $(addprefix lib/,addr.c addr_expand.c av.c av_auth.c \
	      av_insert.c av_job.c av_lookup.c av_named.c av_ops.c av_remove.c \
	      av_set.c diag.c domain.c domain_ops.c ep.c eq.c errno.c fid.c log.c peer.c \
	      sys.c table.c view.c)
LIB_OBJS := $(patsubst lib/%.c,$(BUILD)/lib/%.o,$(LIB_SRCS))
LIB_HDRS := lib/kav_priv.h lib/kav_base.h lib/av_job.h lib/table.h lib/kav_eq_priv.h lib/kav_set_priv.h \
	    lib/include/kav/kav.h lib/include/kav/kav_eq.h \
	    lib/include/kav/kav_peer.h lib/include/kav/kav_view.h \
	    uapi/linux/kav.h
LIB_OWN_CFLAGS := -fPIC -fvisibility=hidden

.PHONY: lib lib-clean

lib: lib/libkav.so.0 lib/libkav.a ## libkav, shared and static

$(BUILD)/lib/%.o: lib/%.c $(LIB_HDRS) mk/lib.mk
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(KAV_CFLAGS) $(LIB_OWN_CFLAGS) -c -o $@ $<

lib/libkav.so.0: $(LIB_OBJS) lib/libkav.map
	$(CC) $(CFLAGS) $(LDFLAGS) -shared -Wl,-soname,libkav.so.0 \
		-Wl,--version-script=lib/libkav.map -Wl,-z,defs \
		-Wl,-z,relro -Wl,-z,now -o $@ $(LIB_OBJS)

lib/libkav.a: $(LIB_OBJS)
	@rm -f $@
	$(AR) rcs $@ $(LIB_OBJS)

lib-clean:
	rm -rf $(BUILD)/lib lib/libkav.so.0 lib/libkav.a
