#!/bin/bash
# SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
#
# test_kavctl_completion REPO: tools/kavctl/kavctl.bash-completion, as
# bash completes "kavctl ..." with Debian's bash-completion: objects,
# prefixes, commands, keywords, user names, and -o's column names (asked
# from REPO/tools/kavctl/kavctl, which must be built: make tools). No
# kernel is needed. Prints one line per case; exit status 1 on a failure.
set -u
REPO=${1:?usage: test_kavctl_completion.sh REPO}
BC=/usr/share/bash-completion/bash_completion
[[ -r $BC ]] || { echo "FAIL: $BC missing (scripts/deps.sh: bash-completion)"; exit 1; }
[[ -x $REPO/tools/kavctl/kavctl ]] || { echo "FAIL: $REPO/tools/kavctl/kavctl not built (make tools)"; exit 1; }
# shellcheck source=/dev/null
source "$BC"
# shellcheck source=tools/kavctl/kavctl.bash-completion
source "$REPO/tools/kavctl/kavctl.bash-completion"
PATH=$REPO/tools/kavctl:$PATH

fails=0
# expect "WANT" WORD...: completing the words (the last one is being
# typed) gives exactly WANT (the candidates, space-separated, sorted).
expect() {
	local want=$1 got
	shift
	COMP_WORDS=("$@")
	COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
	COMP_LINE="$*"
	COMP_POINT=${#COMP_LINE}
	COMPREPLY=()
	_kavctl kavctl
	got=$(printf '%s\n' "${COMPREPLY[@]}" | sort | tr '\n' ' ')
	got=${got% }
	want=$(printf '%s\n' "$want" | tr ' ' '\n' | sort | tr '\n' ' ')
	want=${want% }
	if [[ $got == "$want" ]]; then
		echo "ok: [$*]"
	else
		echo "FAIL: [$*]: got '$got', want '$want'"
		fails=$((fails + 1))
	fi
}

expect "grant" kavctl g
expect "av apply" kavctl a
expect "whoami wire" kavctl w
expect "whoami" kavctl wh
expect "add set del show list" kavctl grant ""
expect "set show" kavctl gr s
expect "vni uid user gid group cgroup cgroup-id netns netns-pid max-entries max-avs tag wire" \
	kavctl grant add vni 5 ""
expect "max-entries max-avs" kavctl grant add vni 5 uid 1 max
expect "root" kavctl grant add vni 5 user roo
expect "vni tag" kavctl grant list ""
expect "max-entries max-avs tag" kavctl grant set 3 ""
expect "list show pin unpin" kavctl av ""
expect "tag" kavctl av pin 3 ""
expect "+TAG" kavctl grant list -o +T
expect "+WIRE +WIRE-DROPS" kavctl grant list -o +W
expect "WIRE-ABORTS" kavctl stats -o WIRE-A
expect "ID,SELECTOR ID,SEL-TYPE ID,SEL-ID ID,SEL-NAME" kavctl grant list -o ID,S
expect "DENY-MODE" kavctl stats -o DENY-M
expect "KEY" kavctl av show 3 -o K
expect "PID PINNED" kavctl av list -o PI
expect "PINNED" kavctl av list -o PIN
expect "show" kavctl grants sh
expect "vni tag" kavctl gr l ""
expect "SEL-TYPE SEL-ID SEL-NAME" kavctl whoami -o SEL-
expect "--output" kavctl --o
expect "--dry-run --dir" kavctl apply --d
expect "" kavctl grant add vni ""
# grant add's flag "wire", and kavctl wire.
expect "wire" kavctl grant add vni 5 uid 1 wi
expect "vni uid user gid group cgroup cgroup-id netns netns-pid max-entries max-avs tag wire" \
	kavctl grant add vni 5 uid 1 wire ""
expect "wire" kavctl wi
expect "show set scope exempt apply" kavctl wire ""
expect "show set scope" kavctl wire s
expect "set" kavctl wire se
expect "mode ports mark" kavctl wire set ""
expect "mode mark" kavctl wire set m
expect "off flowlabel esp" kavctl wire set mode ""
expect "flowlabel" kavctl wire set mode f
expect "none" kavctl wire set ports ""
expect "" kavctl wire set mark ""
expect "mode ports mark" kavctl wire set mode esp ""
expect "add del" kavctl wire scope ""
expect "add del" kavctl wi exempt ""
expect "" kavctl wire scope add ""
expect "port proto" kavctl wire exempt add 10.0.0.5 ""
expect "proto" kavctl wire exempt add 10.0.0.5 pr
expect "" kavctl wire exempt add 10.0.0.5 port ""
expect "proto" kavctl wire exempt add 10.0.0.5 port 6818 ""
expect "tcp udp" kavctl wire exempt add 10.0.0.5 port 6818 proto ""
expect "udp" kavctl wire exempt del 10.0.0.5 proto u
expect "port" kavctl wire exempt add fd00::5 proto tcp ""
expect "" kavctl wire exempt add 10.0.0.5 port 6818 proto tcp ""
expect "--dry-run" kavctl wire apply --d
expect "$REPO/VERSION" kavctl wire apply "$REPO/VERSIO"
expect "$REPO/VERSION" kavctl wire apply -n "$REPO/VERSIO"
expect "-n --dry-run --help" kavctl wire apply -
expect "--dry-run --prune --dir --help" kavctl apply --
expect "wire" kavctl list w
expect "wire" kavctl help wi

if ((fails)); then
	echo "test_kavctl_completion: $fails failed"
	exit 1
fi
echo "test_kavctl_completion: all passed"
