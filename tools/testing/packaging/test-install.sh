#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make install, make uninstall and the DKMS sources, on the host, into
# scratch directories (DESTDIR): nothing is installed on this machine, no
# module is loaded. For each kernel given, DKMS builds the module from what
# make install-dkms installed, in a DKMS tree of its own.
#
#   test-install.sh KVER...
#
# Prints KTAP and "N passed, M failed"; exits 1 if anything failed.
set -u

top=$(cd "$(dirname "$0")/../../.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
. "$top/tools/testing/ktap.sh"

# mk DESTDIR TARGET [VAR=VALUE...]: make in the tree, output in $tmp/make.
mk() {
	local d=$1

	shift
	make -C "$top" --no-print-directory DESTDIR="$d" "$@" \
		>"$tmp/make" 2>&1
}

# The files under $1, relative, sorted.
files() {
	(cd "$1" && find . -type f | sort)
}

# Building and installing need no test bench: with install-deps.sh taken
# as just changed (-W), so that the deps stamp would be out of date, make
# -n lists what make all install would run, and that is not install-deps.sh.
if make -C "$top" --no-print-directory -n -W scripts/install-deps.sh \
	all install KVER="$*" \
	DESTDIR="$tmp/n" >"$tmp/make-n" 2>&1; then
	if grep -q 'install-deps' "$tmp/make-n"; then
		not_ok "make -n all install runs no install-deps.sh" \
			"$(grep install-deps "$tmp/make-n" | head -n 2 | tr '\n' '|')"
	else
		ok "make -n all install runs no install-deps.sh"
	fi
else
	not_ok "make -n all install" "$(tail -n 3 "$tmp/make-n" | tr '\n' '|')"
fi

# A router has no apt-get to spare: make install runs with an apt-get
# first in PATH that only notes it was called.
mkdir -p "$tmp/noapt"
printf '#!/bin/sh\ntouch %s/apt-called\nexit 1\n' "$tmp" >"$tmp/noapt/apt-get"
chmod +x "$tmp/noapt/apt-get"
d=$tmp/dest
if PATH=$tmp/noapt:$PATH mk "$d" install KVER="$*" &&
   [ ! -e "$tmp/apt-called" ]; then
	ok "make install DESTDIR=..., apt-get never called"
else
	not_ok "make install DESTDIR=..., apt-get never called" \
		"$(tail -n 5 "$tmp/make" | tr '\n' '|')" \
		"apt-get called: $([ -e "$tmp/apt-called" ] && echo yes || echo no)"
fi

# Without a kernel's headers, make says which package has them.
if PATH=$tmp/noapt:$PATH mk "$tmp/none" modules KVER=6.1.0-0-none; then
	not_ok "make modules without the kernel's headers fails"
elif grep -q 'linux-headers-6.1.0-0-none' "$tmp/make" &&
     [ ! -e "$tmp/apt-called" ]; then
	ok "make modules without the headers names linux-headers-<version>"
else
	not_ok "make modules without the headers names the package" \
		"$(tail -n 3 "$tmp/make" | tr '\n' '|')"
fi
want="./etc/ars/ars.conf ./etc/ars/tc.conf ./etc/modules-load.d/ars.conf
./etc/sysctl.d/60-ars.conf ./usr/lib/x86_64-linux-gnu/tc/q_ars.so
./usr/local/lib/systemd/system/ars.service ./usr/local/sbin/arsctl
./usr/local/share/bash-completion/completions/arsctl
./usr/local/share/man/man5/ars.conf.5 ./usr/local/share/man/man8/arsctl.8
./usr/local/share/man/man8/tc-ars.8 ./usr/local/sbin/ars-mq-setup
./usr/local/share/man/man8/ars-mq-setup.8 ./usr/local/libexec/ars/ars-tc-dev
./etc/udev/rules.d/60-ars.rules"
for k in "$@"; do
	want="$want ./lib/modules/$k/extra/ars.ko"
done
want=$(echo "$want" | tr ' ' '\n' | sort)
if [ "$(files "$d")" = "$want" ]; then
	ok "make install: the module of each kernel, the tools, the unit, /etc"
else
	not_ok "make install: the files expected" \
		"$(diff <(echo "$want") <(files "$d") | tr '\n' '|')"
fi
if grep -qx 'ExecStart=/usr/local/sbin/arsctl -r -b /etc/ars/ars.conf' \
	"$d/usr/local/lib/systemd/system/ars.service"; then
	ok "PREFIX=/usr/local: the unit runs /usr/local/sbin/arsctl"
else
	not_ok "the unit runs PREFIX's arsctl" \
		"$(grep Exec "$d/usr/local/lib/systemd/system/ars.service" | tr '\n' '|')"
fi
describe=$(git -C "$top" describe --always --dirty 2>/dev/null)
version=$(sed -n 's/^PACKAGE_VERSION="\(.*\)"/\1/p' "$top/dkms.conf")
for k in "$@"; do
	vm=$(modinfo -F vermagic "$d/lib/modules/$k/extra/ars.ko" 2>&1)
	if [ "${vm%% *}" = "$k" ]; then
		ok "make install: ars.ko for $k"
	else
		not_ok "make install: ars.ko for $k" "vermagic: $vm"
	fi
	mv=$(modinfo -F version "$d/lib/modules/$k/extra/ars.ko" 2>&1)
	mb=$(modinfo -F build "$d/lib/modules/$k/extra/ars.ko" 2>&1)
	if [ "$mv" = "$version" ] && [ -n "$describe" ] &&
	   [ "$mb" = "$describe" ]; then
		ok "modinfo ars.ko for $k: version $mv, build $mb"
	else
		not_ok "modinfo ars.ko for $k: version and build" \
			"version '$mv' (want $version), build '$mb' (want $describe)"
	fi
done

# The operator's changes to /etc survive a second install and uninstall.
echo "set mode ecmp" >>"$d/etc/ars/ars.conf"
cp "$d/etc/ars/ars.conf" "$tmp/mine.conf"
if mk "$d" install-tools && cmp -s "$d/etc/ars/ars.conf" "$tmp/mine.conf" &&
   grep -q "kept $d/etc/ars/ars.conf" "$tmp/make"; then
	ok "make install again keeps an edited /etc/ars/ars.conf"
else
	not_ok "make install again keeps an edited /etc/ars/ars.conf"
fi
if mk "$d" uninstall && [ "$(files "$d")" = "./etc/ars/ars.conf" ]; then
	ok "make uninstall removes all but the edited ars.conf"
else
	not_ok "make uninstall removes all but the edited ars.conf" \
		"left: $(files "$d" | tr '\n' ' ')"
fi

# PREFIX=/usr, the Debian layout.
d=$tmp/usr
if mk "$d" install-tools PREFIX=/usr UNITDIR=/lib/systemd/system &&
   grep -qx 'ExecStart=/usr/sbin/arsctl -r -b /etc/ars/ars.conf' \
	"$d/lib/systemd/system/ars.service" && [ -x "$d/usr/sbin/arsctl" ]; then
	ok "PREFIX=/usr UNITDIR=/lib/systemd/system: /usr/sbin/arsctl, its unit"
else
	not_ok "PREFIX=/usr: /usr/sbin/arsctl and its unit"
fi
if mk "$d" uninstall PREFIX=/usr UNITDIR=/lib/systemd/system &&
   [ -z "$(files "$d")" ]; then
	ok "make uninstall PREFIX=/usr: nothing left"
else
	not_ok "make uninstall PREFIX=/usr: nothing left" \
		"left: $(files "$d" | tr '\n' ' ')"
fi

# The DKMS sources build with DKMS, for each kernel, in a tree of their own.
d=$tmp/dkms-src
if mk "$d" install-dkms && [ -f "$d/usr/src/ars-0.1/dkms.conf" ]; then
	ok "make install-dkms: /usr/src/ars-0.1"
else
	not_ok "make install-dkms" "$(tail -n 3 "$tmp/make" | tr '\n' '|')"
fi
mkdir -p "$tmp/dkms"
for k in "$@"; do
	# Its signing key in the scratch directory, not /var/lib/dkms.
	if mok_signing_key=$tmp/mok.key mok_certificate=$tmp/mok.pub \
	   dkms build -m ars -v 0.1 -k "$k" --sourcetree "$d/usr/src" \
		--dkmstree "$tmp/dkms" >"$tmp/dkms.log" 2>&1; then
		ko=$(ls "$tmp"/dkms/ars/0.1/"$k"/*/module/ars.ko* 2>/dev/null)
		vm=$(modinfo -F vermagic "$ko" 2>&1)
		mb=$(modinfo -F build "$ko" 2>&1)
		if [ "${vm%% *}" = "$k" ] && [ "$mb" = "$describe" ]; then
			ok "dkms build ars/0.1 for $k, build $mb from build-id"
		else
			not_ok "dkms build ars/0.1 for $k" "module: $ko $vm" \
				"build '$mb', want '$describe'"
		fi
	else
		not_ok "dkms build ars/0.1 for $k" \
			"$(tail -n 5 "$tmp/dkms.log" | tr '\n' '|')"
	fi
done

# The bash completion, with bash-completion's helpers stubbed: COMPREPLY
# for the words of the line, the last being completed.
complete_words() {
	bash -c '
		_init_completion() {
			words=("${COMP_WORDS[@]}")
			cword=$COMP_CWORD
			cur=${words[cword]}
			prev=${words[cword - 1]}
		}
		_filedir() { COMPREPLY=(FILES); }
		complete() { :; }
		. "$1"
		shift
		COMP_WORDS=("$@")
		COMP_CWORD=$(($# - 1))
		_arsctl
		echo "${COMPREPLY[*]}"' sh "$top/packaging/arsctl.bash-completion" "$@"
}

# "_" stands for the empty word being completed after a blank.
bad=
for c in "arsctl s|show set stats" \
	"arsctl -j set mode flowlet|flowlet-random flowlet-quality" \
	"arsctl set state o|on off" "arsctl -b _|FILES" "arsctl -n x -j pa|paths" \
	"arsctl monitor m|moves" "arsctl stats _|reset help" "arsctl --b|--batch"; do
	read -r -a w <<<"${c%|*}"
	[ "${w[-1]}" != _ ] || w[-1]=
	got=$(complete_words "${w[@]}")
	[ "$got" = "${c#*|}" ] || bad="$bad [${c%|*}: $got]"
done
if [ -z "$bad" ]; then
	ok "bash completion of commands, options, keywords, modes"
else
	not_ok "bash completion" "$bad"
fi

# ars.conf(5) renders without a warning and fits 80 columns.
LC_ALL=C.UTF-8 MANWIDTH=80 man --warnings -l "$top/packaging/ars.conf.5" \
	>"$tmp/man" 2>"$tmp/man.err"
rc=$?
width=$(wc -L <"$tmp/man")
if [ $rc -eq 0 ] && [ ! -s "$tmp/man.err" ] && [ "$width" -le 80 ] &&
   grep -q '^SYNOPSIS' "$tmp/man"; then
	ok "man --warnings -l ars.conf.5: clean, $width columns"
else
	not_ok "man --warnings -l ars.conf.5: clean, 80 columns" \
		"exit $rc, widest $width, $(head -n 2 "$tmp/man.err" | tr '\n' '|')"
fi

ktap_finish
