# kav.ko: built against KDIR (the top Makefile's default: the newest
# kernel build tree on the machine) and installed for that kernel.
# Included by the top-level Makefile.

.PHONY: kmod modules_install

kmod: ## build kav.ko against KDIR
	@test -n "$(KDIR)" || { echo "no kernel build tree: run 'make deps' or set KDIR=" >&2; exit 1; }
	$(MAKE) -C $(KDIR) M=$(CURDIR)/kmod W=1 modules

# Installs kav.ko for the kernel KDIR belongs to (updates/), then depmod.
modules_install: kmod ## install kav.ko for KDIR's kernel (updates/), depmod
	$(MAKE) -C $(KDIR) M=$(CURDIR)/kmod INSTALL_MOD_DIR=updates modules_install
	depmod -a $(notdir $(patsubst %/build,%,$(KDIR)))
