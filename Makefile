# SPDX-License-Identifier: GPL-2.0
#
# ars: build the module for every supported Debian kernel that is installed,
# the userspace tools, and run the tests.
#
# Building and installing need only a C compiler, make, the kernel headers
# (/lib/modules/<version>/build) and libmnl-dev; they say what
# is missing and install nothing. The tests, the demo and the simulation
# need the test bench that make deps installs (kernel images, QEMU, ns-3,
# the linters), and run it first.
#
#   make                 build the module and the tools
#   make KVER=<version>  build the module for one kernel only
#   make install         install ars.ko, arsctl, q_ars.so, the man pages,
#                        ars.service and /etc/ars (DESTDIR, PREFIX)
#   make install-dkms    the module's sources for DKMS, in /usr/src
#   make uninstall       remove them
#   make deb             Debian packages ars-dkms and ars-tools in build/deb
#                        (needs dpkg-dev, debhelper, dh-dkms, lintian):
#                        build them anywhere, dpkg -i them on the router
#   make deps            install the build and test dependencies, the test
#                        bench (root, apt-get)
#   make check           lint, host unit tests, selftests in QEMU per kernel
#   make selftests       the selftests of one kernel in QEMU (KVER, TESTS)
#   make demo, make sim  the fabric demo in QEMU, ars's core in ns-3
#   make mutants         a mutation run of the core and the estimator
#                        against the host's unit tests and fuzzers
#   make bench           the forwarding cost in QEMU
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
SBINDIR		?= $(PREFIX)/sbin
MANDIR		?= $(PREFIX)/share/man
BASHCOMPDIR	?= $(PREFIX)/share/bash-completion/completions
UNITDIR		?= $(PREFIX)/lib/systemd/system
SYSCONFDIR	?= /etc
LIBEXECDIR	?= $(PREFIX)/libexec/ars
# udev reads rules from /lib/udev (the packages') and /etc/udev only.
UDEVRULESDIR	?= $(if $(filter /usr,$(PREFIX)),/lib/udev/rules.d,$(SYSCONFDIR)/udev/rules.d)
# Where Debian's tc looks for plugins: iproute2's TC_LIB_DIR.
TC_LIB_DIR	?= /usr/lib/x86_64-linux-gnu/tc
VERSION		:= $(shell sed -n 's/^PACKAGE_VERSION="\(.*\)"/\1/p' $(SRC)/dkms.conf)
# DKMS finds sources in /usr/src only.
DKMS_DEST	= $(DESTDIR)/usr/src/ars-$(VERSION)
# packaging/<file>:<where under SYSCONFDIR>
ETC_FILES	:= ars.conf:ars/ars.conf tc.conf:ars/tc.conf \
		   modules-load.conf:modules-load.d/ars.conf \
		   sysctl.conf:sysctl.d/60-ars.conf

export SRC BUILD ARS_KCACHE

.PHONY: all deps modules tools check lint unit selftests bench demo sim clean \
	install install-modules install-tools install-dkms uninstall deb FORCE

all:
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
	@$(SRC)/scripts/check-build-deps.sh modules $(KVERS)
	@set -e; for k in $(KVERS); do \
		$(MAKE) --no-print-directory module-one KVER=$$k; \
	done

module-one:
	@mkdir -p $(BUILD)/$(KVER)/kmod
	@find $(BUILD)/$(KVER) -xtype l -delete
	@ln -sfn $(SRC)/include $(BUILD)/$(KVER)/include
	@ln -sf $(SRC)/Kbuild $(BUILD)/$(KVER)/Kbuild
	@ln -sf $(SRC)/dkms.conf $(BUILD)/$(KVER)/dkms.conf
	@for f in $(SRC)/kmod/*.[ch] $(SRC)/kmod/Kbuild; do \
		ln -sf $$f $(BUILD)/$(KVER)/kmod/; done
	$(MAKE) -C $(call kbuild_dir,$(KVER)) M=$(BUILD)/$(KVER) \
		W=$(or $(W),1) $(if $(C),C=$(C)) modules

tools:
	@$(SRC)/scripts/check-build-deps.sh tools
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

# Each mutant of tools/testing/unit/mutants.txt against the unit tests and
# a fixed-seed fuzz run, on a copy of the sources; too long for make check
# (12 minutes at nice 19 on a 2-core machine at load 13).
.PHONY: mutants
mutants:
	@nice -n 19 $(SRC)/tools/testing/unit/mutants.sh

# Run the selftests of one kernel: make selftests KVER=<version> [TESTS=...]
selftests: $(DEPS_STAMP)
	@$(MAKE) --no-print-directory all
	@$(SRC)/tools/testing/selftests/net/ars/vm-selftests.sh $(KVERS)

# The fabric demo in QEMU: results in build/demo/<timestamp>/.
demo: $(DEPS_STAMP)
	@$(MAKE) --no-print-directory all
	@$(SRC)/tools/testing/demo/demo.sh $(if $(KVER),-k $(KVER)) -- $(DEMO_ARGS)

# The seed's fabric in ns-3, every mode: results in build/sim/<timestamp>/.
# SIM_ARGS go to tools/testing/sim/run.py (-h lists them).
sim: $(DEPS_STAMP)
	@nice -n 19 $(MAKE) --no-print-directory -C tools/testing/sim run \
		SIM_ARGS="$(SIM_ARGS)"

bench: $(DEPS_STAMP)
	@$(MAKE) --no-print-directory all
	$(MAKE) -C tools/testing/bench

# make install: the module for every kernel found (or KVER) and the tools;
# DESTDIR and PREFIX as usual. install-dkms puts the module's sources where
# DKMS takes them, for "dkms install ars/$(VERSION)" instead of the modules.
# The files of /etc are installed only where none is: they are the
# operator's; uninstall removes them only when they are still as shipped.
install: install-modules install-tools

install-modules:
	@$(MAKE) --no-print-directory modules
	@set -e; for k in $(KVERS); do \
		echo "install ars.ko $(DESTDIR)/lib/modules/$$k/extra"; \
		install -D -m 0644 $(BUILD)/$$k/kmod/ars.ko \
			$(DESTDIR)/lib/modules/$$k/extra/ars.ko; \
		[ -n "$(DESTDIR)" ] || depmod -a $$k; \
	done

install-tools:
	@$(SRC)/scripts/check-build-deps.sh tools
	$(MAKE) -C tools/arsctl
	$(MAKE) -C tc-ext
	install -D -m 0755 tools/arsctl/arsctl $(DESTDIR)$(SBINDIR)/arsctl
	install -D -m 0755 packaging/ars-mq-setup $(DESTDIR)$(SBINDIR)/ars-mq-setup
	install -D -m 0644 packaging/ars-mq-setup.8 \
		$(DESTDIR)$(MANDIR)/man8/ars-mq-setup.8
	install -d $(DESTDIR)$(LIBEXECDIR) $(DESTDIR)$(UDEVRULESDIR)
	sed -e 's|@SYSCONFDIR@|$(SYSCONFDIR)|g' packaging/ars-tc-dev \
		>$(DESTDIR)$(LIBEXECDIR)/ars-tc-dev
	chmod 0755 $(DESTDIR)$(LIBEXECDIR)/ars-tc-dev
	sed -e 's|@LIBEXECDIR@|$(LIBEXECDIR)|g' -e 's|@SYSCONFDIR@|$(SYSCONFDIR)|g' \
		packaging/60-ars.rules.in >$(DESTDIR)$(UDEVRULESDIR)/60-ars.rules
	chmod 0644 $(DESTDIR)$(UDEVRULESDIR)/60-ars.rules
	install -D -m 0644 tools/arsctl/arsctl.8 $(DESTDIR)$(MANDIR)/man8/arsctl.8
	install -D -m 0644 tc-ext/tc-ars.8 $(DESTDIR)$(MANDIR)/man8/tc-ars.8
	install -D -m 0644 packaging/ars.conf.5 $(DESTDIR)$(MANDIR)/man5/ars.conf.5
	install -D -m 0644 tc-ext/q_ars.so $(DESTDIR)$(TC_LIB_DIR)/q_ars.so
	install -D -m 0644 packaging/arsctl.bash-completion \
		$(DESTDIR)$(BASHCOMPDIR)/arsctl
	install -d $(DESTDIR)$(UNITDIR)
	sed -e 's|@SBINDIR@|$(SBINDIR)|g' -e 's|@SYSCONFDIR@|$(SYSCONFDIR)|g' \
		packaging/ars.service.in >$(DESTDIR)$(UNITDIR)/ars.service
	chmod 0644 $(DESTDIR)$(UNITDIR)/ars.service
	@set -e; $(foreach f,$(ETC_FILES), \
		dst=$(DESTDIR)$(SYSCONFDIR)/$(word 2,$(subst :, ,$(f))); \
		if [ -e $$dst ]; then echo "kept $$dst"; else \
		install -D -m 0644 packaging/$(word 1,$(subst :, ,$(f))) $$dst; \
		echo "install $$dst"; fi;)

install-dkms:
	install -d $(DKMS_DEST)/kmod $(DKMS_DEST)/include/uapi/linux
	install -m 0644 dkms.conf Kbuild $(DKMS_DEST)/
	install -m 0644 kmod/Kbuild kmod/*.[ch] $(DKMS_DEST)/kmod/
	install -m 0644 include/uapi/linux/*.h $(DKMS_DEST)/include/uapi/linux/
	@# The tree's git describe, for modinfo's build (kmod/Kbuild).
	git -C $(SRC) describe --always --dirty >$(DKMS_DEST)/build-id 2>/dev/null || \
		echo unknown >$(DKMS_DEST)/build-id

uninstall:
	rm -f $(DESTDIR)$(SBINDIR)/arsctl $(DESTDIR)$(MANDIR)/man8/arsctl.8 \
		$(DESTDIR)$(MANDIR)/man8/tc-ars.8 \
		$(DESTDIR)$(MANDIR)/man5/ars.conf.5 \
		$(DESTDIR)$(TC_LIB_DIR)/q_ars.so $(DESTDIR)$(BASHCOMPDIR)/arsctl \
		$(DESTDIR)$(UNITDIR)/ars.service \
		$(DESTDIR)$(SBINDIR)/ars-mq-setup \
		$(DESTDIR)$(MANDIR)/man8/ars-mq-setup.8 \
		$(DESTDIR)$(LIBEXECDIR)/ars-tc-dev \
		$(DESTDIR)$(UDEVRULESDIR)/60-ars.rules
	-rmdir $(DESTDIR)$(LIBEXECDIR) 2>/dev/null
	@set -e; for ko in $(wildcard $(DESTDIR)/lib/modules/*/extra/ars.ko); do \
		rm -f $$ko; echo "rm $$ko"; \
		k=$${ko#$(DESTDIR)/lib/modules/}; k=$${k%%/*}; \
		[ -n "$(DESTDIR)" ] || depmod -a $$k; \
	done
	@set -e; $(foreach f,$(ETC_FILES), \
		dst=$(DESTDIR)$(SYSCONFDIR)/$(word 2,$(subst :, ,$(f))); \
		if cmp -s packaging/$(word 1,$(subst :, ,$(f))) $$dst; then \
		rm -f $$dst; echo "rm $$dst"; \
		elif [ -e $$dst ]; then echo "kept $$dst (changed)"; fi;)
	-rmdir $(DESTDIR)$(SYSCONFDIR)/ars 2>/dev/null
	rm -rf $(DKMS_DEST)

# make deb: ars-dkms and ars-tools in build/deb/, built by dpkg-buildpackage
# from a copy of the sources that debian/rules needs, then lintian.
DEB_DIR		:= $(BUILD)/deb
DEB_SRCS	:= COPYING Kbuild Makefile README.md dkms.conf debian include \
		   kmod packaging scripts/check-build-deps.sh tc-ext tools/arsctl \
		   tools/testing/unit/harness.h

deb:
	@$(SRC)/scripts/check-build-deps.sh deb
	@test "$$(dpkg-parsechangelog -S Version)" = "$(VERSION)" || \
		{ echo "debian/changelog is not at version $(VERSION) of dkms.conf" >&2; \
		  exit 1; }
	rm -rf $(DEB_DIR)
	mkdir -p $(DEB_DIR)/ars-$(VERSION)
	tar -C $(SRC) --exclude='*.o' --exclude='*.d' --exclude='*.so' \
		--exclude=tools/arsctl/arsctl --exclude=tools/arsctl/test-arsctl \
		-cf - $(DEB_SRCS) | tar -C $(DEB_DIR)/ars-$(VERSION) -xf -
	cd $(DEB_DIR)/ars-$(VERSION) && \
		dpkg-buildpackage -b -us -uc >../build.log 2>&1 || \
		{ tail -n 40 ../build.log >&2; exit 1; }
	lintian --fail-on error --tag-display-limit 0 $(DEB_DIR)/*.changes
	@ls $(DEB_DIR)/*.deb

clean:
	rm -rf $(BUILD)/[0-9]* $(DEB_DIR)
	-$(MAKE) -C tools/arsctl clean
	-$(MAKE) -C tools/testing/traffic clean
	-$(MAKE) -C tools/testing/fuzz/netlink clean
	-$(MAKE) -C tools/testing/unit clean
	-$(MAKE) -C tools/testing/sim clean
	$(if $(wildcard tc-ext/Makefile),-$(MAKE) -C tc-ext clean)
