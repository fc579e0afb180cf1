# ofi_hook_kav, libfabric's hooking provider for kav: included by the
# top-level Makefile (paths are relative to it).
#
#   make prov       prov/libkav-fi.so
#   make prov-clean
#
# libfabric loads lib<name>-fi.so from its provider directory (Debian:
# /usr/lib/<triplet>/libfabric, or $FI_PROVIDER_PATH) and calls
# fi_prov_ini(), the only symbol exported (prov/libkav-fi.map). libkav is
# linked in from its own objects, so the provider needs nothing but
# libfabric.so.1 and libc at run time. Built against the installed
# libfabric headers only (<rdma/...>, <rdma/providers/...>).

PROV_SRCS := $(addprefix prov/,hook_av.c hook_cq.c hook_data.c hook_domain.c hook_fabric.c \
	     hook_ep.c hook_eq.c hook_fid.c hook_prov.c hook_vec.c)
PROV_OBJS := $(patsubst prov/%.c,$(BUILD)/prov/%.o,$(PROV_SRCS))
PROV_HDRS := prov/kav_hook.h prov/hook_av.h $(LIB_HDRS)

.PHONY: prov prov-clean

prov: prov/libkav-fi.so ## the libfabric hook provider

$(BUILD)/prov/%.o: prov/%.c $(PROV_HDRS) mk/prov.mk
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(KAV_CFLAGS) -fPIC -fvisibility=hidden -c -o $@ $<

prov/libkav-fi.so: $(PROV_OBJS) $(LIB_OBJS) prov/libkav-fi.map
	$(CC) $(CFLAGS) $(LDFLAGS) -shared -Wl,-soname,libkav-fi.so \
		-Wl,--version-script=prov/libkav-fi.map -Wl,-z,defs \
		-Wl,-z,relro -Wl,-z,now -o $@ $(PROV_OBJS) $(LIB_OBJS) \
		-lfabric -lpthread

prov-clean:
	rm -rf $(BUILD)/prov prov/libkav-fi.so
