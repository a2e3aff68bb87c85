#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Tests of arsctl's bash completion (packaging/arsctl.bash-completion),
# with the bash-completion it is written for: each case sets COMP_WORDS
# and COMP_CWORD as bash does for a command line, runs the completion
# function and compares what it offers, sorted, with what it must offer.
# The names it asks the system for come from stubs of ip and arsctl, so
# that no device, namespace or module of this machine matters.
#
#   test-completion.sh [path/to/arsctl.bash-completion]
#
# Prints KTAP and "N passed, M failed"; exits 1 if anything failed.

here=$(cd "$(dirname "$0")" && pwd)
COMPLETION=${1:-$here/../../packaging/arsctl.bash-completion}
BASH_COMPLETION=${BASH_COMPLETION:-/usr/share/bash-completion/bash_completion}
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT

. "$here/../testing/ktap.sh"

# The stubs: two devices and a VRF in the initial namespace, a device of
# its own in namespace r1; objects default and fab, r1's default and
# spine. Each call is logged, to tell which namespace was asked.
ip() {
	echo "ip $*" >>"$tmp/calls"
	case "$*" in
	"netns list") echo "r1 (id: 0)"; echo "r2" ;;
	"-n r1 -o link show") echo "1: lo: <LOOPBACK,UP>"; echo "5: p9@if6: <UP>" ;;
	"-o link show type vrf") echo "7: blue: <MASTER,UP> mtu 65575" ;;
	"-o link show")
		echo "1: lo: <LOOPBACK,UP> mtu 65536"
		echo "2: eth0@if3: <BROADCAST,UP> mtu 1500"
		echo "7: blue: <MASTER,UP> mtu 65575" ;;
	esac
}

arsctl() {
	echo "arsctl $*" >>"$tmp/calls"
	case "$*" in
	"-j object show") echo '[{"name":"default","mode":"flowlet-quality"},{"name":"fab","mode":"fixed"}]' ;;
	"-n r1 -j object show") echo '[{"name":"default"},{"name":"spine"}]' ;;
	*) return 1 ;;
	esac
}

# complete_line LINE: COMPREPLY for LINE, the cursor at its end (a line
# ending in a space completes a new, empty word).
complete_line() {
	local line=$1

	read -r -a COMP_WORDS <<<"$line"
	[[ $line != *" " ]] || COMP_WORDS+=("")
	COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
	COMP_LINE=$line
	COMP_POINT=${#line}
	COMPREPLY=()
	_arsctl arsctl "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD - 1]}"
	printf '%s\n' "${COMPREPLY[@]}" | sort | tr '\n' ' ' | sed 's/ $//'
}

# expect LINE WANT: the completion of LINE offers exactly WANT's words.
expect() {
	local got want

	got=$(complete_line "$1")
	want=$(printf '%s\n' $2 | sort | tr '\n' ' ' | sed 's/ $//')
	if [ "$got" = "$want" ]; then
		ok "complete '$1': $want"
	else
		not_ok "complete '$1'" "want: $want" "got: $got"
	fi
}

if [ -r "$BASH_COMPLETION" ]; then
	# bash_completion reads the system's completions as it loads: off.
	BASH_COMPLETION_COMPAT_DIR=/nonexistent . "$BASH_COMPLETION"
else
	not_ok "bash-completion is installed" "no $BASH_COMPLETION"
	ktap_finish
	exit
fi
. "$COMPLETION"
if [ "$(complete -p arsctl 2>/dev/null)" = "complete -F _arsctl arsctl" ]; then
	ok "the completion registers _arsctl for arsctl"
else
	not_ok "the completion registers _arsctl for arsctl" \
		"$(complete -p arsctl 2>&1)"
fi

commands="show set stats flows ports routes monitor object bind interface
	version help"
expect "arsctl " "$commands"
expect "arsctl s" "show set stats"
expect "arsctl -j " "$commands"
expect "arsctl --" "--json --pretty --stats --timestamp --netns --batch
	--check --reconcile --version --help"
expect "arsctl -js" "-json"
expect "arsctl -r" "-r"
expect "arsctl -j -p -s " "$commands"
expect "arsctl show " "profile help"
expect "arsctl show profile " ""
expect "arsctl set " "state mode idle-time table-size ipv4 ipv6
	sampling-interval rate-weight ewma-shift default-object flowlabel
	flowlet-window fabric-rtt remote remote-half-life"
expect "arsctl set d" "default-object"
expect "arsctl set mode flowlet-" "flowlet-random flowlet-quality"
expect "arsctl set state " "on off"
expect "arsctl set flowlabel o" "on off"
expect "arsctl set flowlet-window " "auto off"
expect "arsctl set flowlet-" "flowlet-window"
expect "arsctl set idle-time " "auto"
expect "arsctl set sampling-interval " "auto"
expect "arsctl set fabric-rtt " "off"
expect "arsctl set f" "flowlabel flowlet-window fabric-rtt"
expect "arsctl set remote " "on off"
expect "arsctl set remote-half-life " ""
expect "arsctl set default-object " "default fab none"
expect "arsctl stats " "reset help"
expect "arsctl st " "reset help"
expect "arsctl v" "version"
expect "arsctl flows " "dev get"
expect "arsctl flows get " "from to proto sport dport mark iif tos flowlabel"
expect "arsctl fl g from 10.1.0.1 " "from to proto sport dport mark iif tos
	flowlabel"
expect "arsctl flows get from 10.1.0.1 to 10.3.0.1 proto " "tcp udp sctp
	udplite icmp ipv6-icmp"
expect "arsctl flows get iif " "lo eth0 blue"
expect "arsctl flows get sport " ""
expect "arsctl flows dev lo " "dev"
expect "arsctl ports dev " "lo eth0 blue"
expect "arsctl paths dev " "lo eth0 blue"
expect "arsctl pa d" "dev"
expect "arsctl -n r1 routes dev " "lo p9"
expect "arsctl monitor " "-t moves dev"
expect "arsctl object " "add replace set del show alternate help"
expect "arsctl object replace new " "mode idle-time table-size
	primary-threshold alternate-cost alternate-bias"
expect "arsctl object show " "default fab"
expect "arsctl -n r1 object del " "default spine"
expect "arsctl object set fab " "mode idle-time table-size primary-threshold
	alternate-cost alternate-bias"
expect "arsctl object add new " "mode idle-time table-size primary-threshold
	alternate-cost alternate-bias"
expect "arsctl object set fab table-size " ""
expect "arsctl object set fab max-flows " ""
expect "arsctl object add new mode " "ecmp fixed packet-random
	packet-roundrobin packet-quality flowlet-random flowlet-quality"
expect "arsctl object add " ""
expect "arsctl ob al " "add replace del"
expect "arsctl object alternate replace " "default fab"
expect "arsctl object alternate add " "default fab"
expect "arsctl object alternate del fab " "via dev"
expect "arsctl object alternate add fab dev " "lo eth0 blue"
expect "arsctl object alternate add fab via " ""
expect "arsctl bind " "add replace del show help"
expect "arsctl bind replace " "nhid prefix mark table vrf object exempt"
expect "arsctl bind add " "nhid prefix mark table vrf object exempt"
expect "arsctl bind add prefix 10.1.0.0/16 " "nhid prefix mark table vrf
	object exempt"
expect "arsctl bind add prefix 10.1.0.0/16 vrf " "blue"
expect "arsctl bind add prefix 10.1.0.0/16 table " "main local default"
expect "arsctl bind add nhid 10 object " "default fab"
expect "arsctl -n r1 bind add nhid 10 object " "default spine"
expect "arsctl bind del " "nhid prefix mark table vrf"
expect "arsctl bind add mark " ""
expect "arsctl interface " "enable disable show help"
expect "arsctl i d " "dev"
expect "arsctl interface enable dev " "lo eth0 blue"
expect "arsctl interface show " ""
# port, interface's old name, completes as interface, but is not offered;
# paths, ports' old name, likewise.
expect "arsctl p" "ports"
expect "arsctl pa" "paths"
expect "arsctl port " "enable disable show help"
expect "arsctl port enable dev " "lo eth0 blue"
expect "arsctl help " ""
expect "arsctl -n " "r1 r2"
expect "arsctl -j --netns r" "r1 r2"
: >"$tmp/calls"
expect "arsctl --netns r1 interface enable dev " "lo p9"
if grep -qx 'ip -n r1 -o link show' "$tmp/calls"; then
	ok "--netns NETNS: the devices of NETNS"
else
	not_ok "--netns NETNS: the devices of NETNS" "$(cat "$tmp/calls")"
fi
mkdir -p "$tmp/batch" && : >"$tmp/batch/ars.conf" && cd "$tmp/batch" &&
	expect "arsctl -b a" "ars.conf"
ktap_finish
