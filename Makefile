# SPDX-License-Identifier: GPL-2.0
#
# ars: build the module for every supported Debian kernel that is installed,
# the userspace tools, and run the tests.
#
#   make                 build everything (installs what is missing first)
#   make KVER=<version>  build the module for one kernel only
#   make check           lint, host unit tests, selftests in QEMU per kernel
#   make deps            install build and test dependencies (root, apt-get)
#   make sim             ars's core in an ns-3 fabric of the seed's scale
#   make install         install ars.ko, arsctl, q_ars.so and the man pages
#
# The machine's own kernel is not a target: kernels are found under
# /lib/modules/*/build, never with uname -r. Each kernel's objects live in
# build/<version>/, so builds for several kernels coexist.

SRC		:= $(CURDIR)
BUILD		:= $(SRC)/build
DEPS_STAMP	:= $(BUILD)/.deps-stamp
SUPPORTED	:= 6.1.% 6.12.%

# The debug kernel that tools/testing/vm/debug-kernel.sh builds lives in
# $(ARS_KCACHE)/<release>/, with its build tree as build/.
ARS_KCACHE	?= /var/cache/ars/kernel

# Evaluated when used, so that a fresh machine sees the kernels that
# `make deps` or debug-kernel.sh has just installed.
find_kvers = $(filter $(SUPPORTED),$(notdir $(patsubst %/build,%,\
	$(wildcard /lib/modules/*/build $(ARS_KCACHE)/*/build))))
KVERS = $(if $(KVER),$(KVER),$(call find_kvers))
kbuild_dir = $(or $(wildcard /lib/modules/$(1)/build),$(ARS_KCACHE)/$(1)/build)

PREFIX		?= /usr/local
TC_LIB_DIR	?= /usr/lib/x86_64-linux-gnu/tc

export SRC BUILD ARS_KCACHE

.PHONY: all deps modules tools check lint unit selftests bench demo sim clean \
	install FORCE

all: $(DEPS_STAMP)
	@$(MAKE) --no-print-directory modules tools

$(DEPS_STAMP): scripts/install-deps.sh
	$(SRC)/scripts/install-deps.sh
	@mkdir -p $(BUILD) && touch $@

deps:
	$(SRC)/scripts/install-deps.sh
	@mkdir -p $(BUILD) && touch $(DEPS_STAMP)

# Kbuild of an external module writes its objects next to the sources, so
# every kernel gets a tree of symlinks to the sources in build/<version>/.
modules:
	@test -n "$(strip $(KVERS))" || \
		{ echo "no supported kernel headers under /lib/modules" >&2; \
		  exit 1; }
	@set -e; for k in $(KVERS); do \
		$(MAKE) --no-print-directory module-one KVER=$$k; \
	done

module-one:
	@mkdir -p $(BUILD)/$(KVER)/kmod
	@find $(BUILD)/$(KVER) -xtype l -delete
	@ln -sfn $(SRC)/include $(BUILD)/$(KVER)/include
	@ln -sf $(SRC)/Kbuild $(BUILD)/$(KVER)/Kbuild
	@for f in $(SRC)/kmod/*.[ch] $(SRC)/kmod/Kbuild; do \
		ln -sf $$f $(BUILD)/$(KVER)/kmod/; done
	$(MAKE) -C $(call kbuild_dir,$(KVER)) M=$(BUILD)/$(KVER) \
		W=$(or $(W),1) $(if $(C),C=$(C)) modules

tools:
	$(MAKE) -C tools/arsctl
	$(MAKE) -C tools/testing/traffic
	$(MAKE) -C tools/testing/fuzz/netlink
	$(if $(wildcard tc-ext/Makefile),$(MAKE) -C tc-ext)

check: $(DEPS_STAMP)
	@$(SRC)/tools/testing/check.sh $(KVERS)

lint: $(DEPS_STAMP)
	@$(SRC)/tools/testing/lint.sh $(KVERS)

unit:
	$(MAKE) -C tools/testing/unit run

# Run the selftests of one kernel: make selftests KVER=<version> [TESTS=...]
selftests: all
	@$(SRC)/tools/testing/selftests/net/ars/vm-selftests.sh $(KVERS)

# The fabric demo in QEMU: results in build/demo/<timestamp>/.
demo: all
	@$(SRC)/tools/testing/demo/demo.sh $(if $(KVER),-k $(KVER)) -- $(DEMO_ARGS)

# The seed's fabric in ns-3, every mode: results in build/sim/<timestamp>/.
# SIM_ARGS go to tools/testing/sim/run.py (-h lists them).
sim: $(DEPS_STAMP)
	@nice -n 19 $(MAKE) --no-print-directory -C tools/testing/sim run \
		SIM_ARGS="$(SIM_ARGS)"

bench: all
	$(MAKE) -C tools/testing/bench

install: all
	@set -e; for k in $(KVERS); do \
		install -D -m 0644 $(BUILD)/$$k/kmod/ars.ko \
			$(DESTDIR)/lib/modules/$$k/extra/ars.ko; \
		[ -n "$(DESTDIR)" ] || depmod -a $$k; \
	done
	install -D -m 0755 tools/arsctl/arsctl $(DESTDIR)$(PREFIX)/sbin/arsctl
	install -D -m 0644 tools/arsctl/arsctl.8 \
		$(DESTDIR)$(PREFIX)/share/man/man8/arsctl.8
	$(if $(wildcard tc-ext/Makefile),install -D -m 0644 tc-ext/q_ars.so \
		$(DESTDIR)$(TC_LIB_DIR)/q_ars.so)
	$(if $(wildcard tc-ext/tc-ars.8),install -D -m 0644 tc-ext/tc-ars.8 \
		$(DESTDIR)$(PREFIX)/share/man/man8/tc-ars.8)

clean:
	rm -rf $(BUILD)/[0-9]*
	-$(MAKE) -C tools/arsctl clean
	-$(MAKE) -C tools/testing/traffic clean
	-$(MAKE) -C tools/testing/fuzz/netlink clean
	-$(MAKE) -C tools/testing/unit clean
	-$(MAKE) -C tools/testing/sim clean
	$(if $(wildcard tc-ext/Makefile),-$(MAKE) -C tc-ext clean)
