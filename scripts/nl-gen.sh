#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# kmod/nl_gen.c and kmod/nl_gen.h, the policies of the family's requests,
# generated from Documentation/netlink/specs/ars.yaml by the kernel's YNL
# C generator (tools/net/ynl/ynl-gen-c.py of Debian's linux-source-6.12),
# which also validates the spec against its genetlink-legacy schema.
#
#   nl-gen.sh           write the two files
#   nl-gen.sh --check   one KTAP line per file, exit 1 when it differs
#                       from what the spec generates (make check's stage
#                       nl-gen), 2 when the generator cannot run
#
# The generator is $LINUX_SRC/tools/net/ynl, by default
# /usr/src/linux-source-6.12's (make deps unpacks it there), else it is
# unpacked from /usr/src/linux-source-6.12.tar.xz.
#
# What this script does beyond running the generator, deterministically:
#
# - The requests of NOT_GENERATED below are taken out of the spec the
#   generator reads, as its --exclude-op would (which 6.12's generator
#   ignores for a family of unified message ids): their policies stay in
#   kmod/nl_flows.c and kmod/nl_binds.c, because each has an attribute
#   whose check 6.12's generator cannot render as the policy has it.
#   flows-get: src and dst, binary of 4 to 16 bytes (min-len with
#   max-len), and flowlabel, whose policy is a mask (NLA_POLICY_MASK, a
#   reserved bit is EINVAL, not ERANGE) where the generator writes a range;
#   bind-new, bind-del, alternate-new and alternate-del: prefix and
#   gateway, binary of at most 16 bytes (max-len: only exact-len and
#   min-len are rendered).
# - The family keeps its own op table (kmod/genl.c: full genl_ops, which
#   6.1 needs and which carry the handlers' lock flag), so the generated
#   one is cut, with the multicast groups after it, and the policies lose
#   their "static"; nl_gen.h declares them, after the generated header's
#   banner and includes, in place of the generated split ops' prototypes.
set -eu

NOT_GENERATED='flows-get bind-new bind-del alternate-new alternate-del'

top=$(cd "$(dirname "$0")/.." && pwd)
check=
case ${1:-} in
--check) check=1 ;;
'') ;;
*) echo "usage: nl-gen.sh [--check]" >&2; exit 2 ;;
esac

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

src=${LINUX_SRC:-/usr/src/linux-source-6.12}
if [ ! -r "$src/tools/net/ynl/ynl-gen-c.py" ] ||
   [ ! -r "$src/Documentation/netlink/genetlink-legacy.yaml" ]; then
	tarball=/usr/src/linux-source-6.12.tar.xz
	[ -r "$tarball" ] || {
		echo "nl-gen.sh: no $tarball (make deps installs linux-source-6.12)" >&2
		exit 2
	}
	tar -C "$work" -xf "$tarball" linux-source-6.12/tools/net/ynl \
		linux-source-6.12/Documentation/netlink || exit 2
	src=$work/linux-source-6.12
fi

# The generator names the spec by its path under the directory that holds
# a MAINTAINERS file, and finds the schema two levels above the spec.
root=$work/root
mkdir -p "$root/Documentation/netlink/specs"
: >"$root/MAINTAINERS"
cp "$src/Documentation/netlink/genetlink-legacy.yaml" \
	"$root/Documentation/netlink/"
spec=$root/Documentation/netlink/specs/ars.yaml
python3 - "$top/Documentation/netlink/specs/ars.yaml" "$spec" \
	"$NOT_GENERATED" <<'EOF' || exit 2
import sys
import yaml

src, dst, skip = sys.argv[1], sys.argv[2], sys.argv[3].split()
with open(src) as f:
    first = f.readline()
    f.seek(0)
    spec = yaml.safe_load(f)
for op in spec['operations']['list']:
    if op['name'] in skip:
        op.get('do', {}).pop('request', None)
with open(dst, 'w') as f:
    f.write(first)
    yaml.safe_dump(spec, f, sort_keys=False)
EOF

gen=$src/tools/net/ynl/ynl-gen-c.py
raw=$work/raw
out=$work/out
mkdir -p "$raw" "$out"
python3 "$gen" --mode kernel --source --spec "$spec" -o "$raw/nl_gen.c" ||
	exit 2
python3 "$gen" --mode kernel --header --spec "$spec" -o "$raw/nl_gen.h" ||
	exit 2

note='/* By scripts/nl-gen.sh: the policies alone, see there. */'
sed -e "/^\/\* YNL-GEN /a $note" \
	-e 's/^static \(const struct nla_policy \)/\1/' \
	-e '/^\/\* Ops table for /,$d' "$raw/nl_gen.c" |
	sed -e ':a' -e '/^\n*$/{$d;N;ba' -e '}' >"$out/nl_gen.c"
{
	sed -e "/^\/\* YNL-GEN /a $note" \
		-e '/^\/\* Ops table for /,$d' "$raw/nl_gen.h"
	sed -n 's/^\(const struct nla_policy .*\) = {$/extern \1;/p' \
		"$out/nl_gen.c"
	echo
	sed -n '/^#endif/p' "$raw/nl_gen.h"
} >"$out/nl_gen.h"

if [ -n "$check" ]; then
	status=0
	for f in nl_gen.c nl_gen.h; do
		if cmp -s "$top/kmod/$f" "$out/$f"; then
			echo "ok - kmod/$f is what the spec generates"
		else
			diff -u "$top/kmod/$f" "$out/$f" | sed 's/^/# /'
			echo "not ok - kmod/$f is what the spec generates (run scripts/nl-gen.sh)"
			status=1
		fi
	done
	exit $status
fi
cp "$out/nl_gen.c" "$out/nl_gen.h" "$top/kmod/"
