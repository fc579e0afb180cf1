#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# lint.sh: static analysis, "make lint". Every tool must report nothing:
#
#   checkpatch --strict   kmod/*.[ch] and uapi/linux/kav.h (checkpatch.pl
#                         from linux-source-6.12, via harness-headers.sh)
#   sparse (C=2, W=1)     the module, built against each Debian kernel
#                         build tree tested (6.1, 6.12) in build/lint/
#   cppcheck              lib/, prov/, tools/ and bench/ (suppressions: cppcheck.suppress)
#   clang-tidy            lib/, prov/, tools/ and bench/ (checks: clang-tidy.yaml)
#   ShellCheck            tools/slurm, scripts, every lane's scripts (lanes/),
#                         tests/{unit,fuzz}, bench/run.sh,
#                         Documentation/examples, kavctl's bash completion
#   man --warnings=w      every man page, Documentation/man/*.[1-8], as man(1)
#                         renders it at 80 columns; an alias page (".so
#                         manN/X.N" alone) must name a page there that
#                         lists it under NAME
#   check-sync.sh         README.md's and the man pages' examples are the
#                         programs in Documentation/examples, verbatim
#   ynl-check.sh          Documentation/netlink/specs/kav.yaml rendered by
#                         the kernel's ynl-gen-c.py is uapi/linux/kav.h's
#                         family and kav_genl.c's policy and ops
#   archive hosts         no file of the tree (tracked, or new and not
#                         ignored) names a package archive's host or URL:
#                         archives come from the machine's apt
#                         configuration (scripts/debian-archive.sh)
#   kernel-doc -Wall      kmod/*.[ch], uapi/linux/kav.h, tests/doubles/nic/*.h
#                         (scripts/kernel-doc from linux-source-6.12), and
#                         every EXPORT_SYMBOL*() of kmod/ has a kernel-doc
#                         comment ("/**" then " * name() - ...")
#   litmus, codegen       lanes/lint/litmus.sh: herd7's verdicts on the
#                         read protocol's litmus tests (LKMM, RC11);
#                         lanes/lint/aarch64-codegen.sh: every reader's
#                         seq re-read after a dmb ishld on aarch64
#   layering.sh           kmod/'s, lib/'s and prov/'s files call each
#                         other without a cycle (from nm of the objects:
#                         kav.ko's as the sparse step built them for each
#                         kernel, lib's and prov's from "make lib prov"),
#                         and lib/ does not use prov/
#   ioctl-sides.sh        no function (static too) or struct tag is
#                         defined both in kmod/ and in lib/ (universal-ctags)
#   ioctl-table.sh        every KAV_IOC_* of uapi/linux/kav.h is in the
#                         SIZE_CASE() table of the size-contract selftest
#                         (tests/selftests/device/kav_ioctl_size_test.c), with
#                         the struct and version-1 field of kmod's
#                         KAV_IOCTL_OP() row
#   readme-layout.sh      every top-level folder, every folder directly
#                         under tests/ (and lanes/) is in README.md's
#                         "Layout" section (the rule: the script's header)
#
# Each of those four runs its self-test first (a small bad tree the
# check must fail on, a good one it must pass): a failed self-test is a
# finding, and the check is not run.
#
# Each finding is printed; the last line is "lint: clean" or
# "lint: N tool(s) with findings", and the exit status says the same.
#
# Env: KAV_BUILD      build directory (<repo>/build)
#      KAV_LINT_SKIP  steps to skip, by name (make lint-fast: "litmus")
set -uo pipefail
export LC_ALL=C

HERE=$(cd "$(dirname "$0")" && pwd)
REPO=$(cd "$HERE/../.." && pwd)
BUILD=${KAV_BUILD:-$REPO/build}
OUT=$BUILD/lint
FAILED=0

note() { echo "lint: $*" >&2; }

# report TOOL OUTPUT: print a tool's findings and count it as failed.
report() {
	local tool=$1 out=$2
	if [[ -n $out ]]; then
		echo "lint: $tool:"
		printf '%s\n' "$out" | sed 's/^/  /'
		FAILED=$((FAILED + 1))
	else
		echo "lint: $tool: clean"
	fi
}

run_checkpatch() {
	local cp=$BUILD/checkpatch/checkpatch.pl out
	if [[ ! -x $cp ]]; then
		"$REPO/lanes/vm/harness-headers.sh" "$BUILD/kselftest" || {
			report checkpatch "cannot extract checkpatch.pl"
			return
		}
	fi
	local -a files
	# Sources only: an in-tree build leaves kbuild's kav.mod.c there.
	local f
	for f in "$REPO"/kmod/*.c "$REPO"/kmod/*.h "$REPO"/uapi/linux/kav.h; do
		[[ $f == *.mod.c ]] || files+=("${f#"$REPO"/}")
	done
	out=$(cd "$REPO" && "$cp" --no-tree --strict --terse --show-types \
		-f "${files[@]}" 2>&1 |
		grep -v '^total: 0 errors, 0 warnings' || true)
	report "checkpatch --strict" "$out"
}

# sparse through kbuild (C=2 checks every file), on a copy of the sources.
run_sparse() {
	local kver kdir dir log out all=''
	command -v sparse >/dev/null || { report sparse "sparse not installed (scripts/deps.sh)"; return; }
	while read -r kver; do
		[[ -n $kver ]] || continue
		kdir=/lib/modules/$kver/build
		dir=$OUT/sparse-$kver
		rm -rf "$dir"
		mkdir -p "$dir"
		cp -r "$REPO/kmod" "$REPO/uapi" "$dir/"
		find "$dir" \( -name '*.o' -o -name '*.ko' -o -name '*.mod*' -o \
			-name '.*.cmd' -o -name Module.symvers -o \
			-name modules.order \) -delete
		log=$dir/sparse.log
		if ! make -j"$(nproc)" -C "$kdir" M="$dir/kmod" C=2 W=1 modules >"$log" 2>&1; then
			all+="$kver: build failed:"$'\n'"$(tail -n 20 "$log")"$'\n'
			continue
		fi
		out=$(grep -E 'warning:|error:' "$log" | sed "s|$dir/||" || true)
		[[ -z $out ]] || all+="$kver:"$'\n'"$out"$'\n'
	done < <("$REPO/lanes/vm/kernels.sh" 2>/dev/null)
	report "sparse C=2" "${all%$'\n'}"
}

userspace_sources() {
	(cd "$REPO" && find lib prov tools bench -name '*.c' 2>/dev/null | sort)
}

run_cppcheck() {
	local out
	command -v cppcheck >/dev/null || { report cppcheck "cppcheck not installed (scripts/deps.sh)"; return; }
	out=$(cd "$REPO" && cppcheck --quiet --std=c11 \
		--enable=warning,style,performance,portability \
		--inline-suppr --suppressions-list="$HERE/cppcheck.suppress" \
		-D_GNU_SOURCE -Iuapi -Ilib/include -Ilib -Itests/selftests/include -Itests/doubles/nic \
		-Ibench -Itests/unit -Itests/doubles/kernel \
		--template='{file}:{line}: {severity}: {message} [{id}]' \
		lib prov tools bench 2>&1)
	report cppcheck "$out"
}

run_clang_tidy() {
	local -a srcs nl
	local out
	command -v clang-tidy >/dev/null || { report clang-tidy "clang-tidy not installed (scripts/deps.sh)"; return; }
	mapfile -t srcs < <(userspace_sources)
	[[ ${#srcs[@]} -gt 0 ]] || { report clang-tidy ""; return; }
	read -r -a nl <<<"$(pkg-config --cflags libnl-genl-3.0 smartcols 2>/dev/null)"
	local -a flags=(-std=gnu11 -D_GNU_SOURCE -Iuapi -Ilib/include -Ilib
		-Itools -Itests/selftests/include -Itests/doubles/nic -Ibench -Itests/unit
		-Itests/doubles/kernel "${nl[@]}")
	# A process per 8 files, one per CPU: it was lint's slowest step.
	# Each runs clang-tidy FILES... -- FLAGS... (n: how many flags).
	out=$(cd "$REPO" && printf '%s\0' "${srcs[@]}" |
		xargs -0 -n 8 -P "$(nproc)" bash -c '
			n=$1; shift
			clang-tidy --quiet --config-file="$0" "${@:n+1}" -- "${@:1:n}"' \
			"$HERE/clang-tidy.yaml" "${#flags[@]}" "${flags[@]}" 2>&1 |
		grep -E -A3 'warning:|error:' || true)
	report clang-tidy "$out"
}

# The words of a page's NAME section (from ".SH NAME" to the next ".SH").
man_names() {
	sed -n '/^\.SH NAME/,/^\.SH/{/^\.SH/d;p}' "$1" | tr -s ', \t' '\n\n\n'
}

# Man pages: man(1) itself must say nothing about any page, and an alias
# page must point at a page that exists in Documentation/ and lists the
# alias under NAME. groff's warning "w" is every warning; "all" would leave
# out undefined macros ("mac"). Alias pages are not rendered: man -l
# resolves ".so" through the manpath (installed pages), not Documentation/.
run_man() {
	local f out all='' so target name
	command -v man >/dev/null || { report man "man not installed (scripts/deps.sh)"; return; }
	for f in "$REPO"/Documentation/man/*.[1-8]; do
		[[ -e $f ]] || continue
		name=${f##*/}
		if grep -q '^\.so' "$f"; then
			so=$(cat "$f")
			if [[ $so != *$'\n'* && $so =~ ^\.so\ man([1-8])/([^/[:space:]]+\.([1-8]))$ &&
			      ${BASH_REMATCH[1]} == "${BASH_REMATCH[3]}" &&
			      ${BASH_REMATCH[1]} == "${name##*.}" ]]; then
				target=$REPO/Documentation/man/${BASH_REMATCH[2]}
			else
				all+="$name: an alias page is one line, .so manN/X.N"$'\n'
				continue
			fi
			if [[ ! -f $target ]] || grep -q '^\.so' "$target"; then
				all+="$name: .so target Documentation/man/${target##*/} is missing or an alias"$'\n'
			elif ! man_names "$target" | grep -qx -- "${name%.*}"; then
				all+="$name: ${target##*/} does not list ${name%.*} under NAME"$'\n'
			fi
			continue
		fi
		out=$(LC_ALL=C.UTF-8 MANROFFSEQ='' MANWIDTH=80 \
		      man --warnings=w -E UTF-8 -l "$f" 2>&1 >/dev/null)
		[[ -z $out ]] || all+="$name:"$'\n'"$out"$'\n'
	done
	report "man --warnings=w" "${all%$'\n'}"
}

# Shell: what ships (tools/slurm, scripts) and the test harness, at
# ShellCheck's warning level (style notes are not findings).
run_shellcheck() {
	local -a files=()
	local f out
	command -v shellcheck >/dev/null || { report shellcheck "shellcheck not installed (scripts/deps.sh)"; return; }
	for f in "$REPO"/tools/slurm/* "$REPO"/scripts/*.sh "$REPO"/lanes/*/*.sh \
		 "$REPO"/lanes/slurm/kav_slurm_vm "$REPO"/lanes/ompi/kav_ompi_vm \
		 "$REPO"/lanes/cluster/node/*.sh "$REPO"/bench/run.sh \
		 "$REPO"/Documentation/examples/*.sh "$REPO"/tests/unit/*.sh \
		 "$REPO"/tools/kavctl/kavctl.bash-completion \
		 "$REPO"/tools/node/kav-cdi-generate "$REPO"/tools/wire/kav-wire-sa \
		 "$REPO"/tests/fuzz/*.sh; do
		[[ -f $f ]] && files+=("${f#"$REPO"/}")
	done
	out=$(cd "$REPO" && shellcheck -x --severity=warning "${files[@]}" 2>&1 || true)
	report shellcheck "$out"
}

# The YNL spec and the family as built agree (lanes/lint/ynl-check.sh).
run_ynl() {
	report "YNL spec (lanes/lint/ynl-check.sh)" \
		"$(KAV_BUILD=$BUILD "$HERE/ynl-check.sh" 2>&1)"
}

# The documents' example programs are the files in Documentation/examples.
run_examples() {
	report "examples in sync (Documentation/examples/check-sync.sh)" \
		"$("$REPO/Documentation/examples/check-sync.sh" 2>&1)"
}

# Package archives' host names and URLs into an archive, as extended
# regexes (case-insensitive). Written with escaped dots, so that they do
# not match themselves. Debian's and Ubuntu's archive hosts (deb, ftp.<cc>,
# security, snapshot, ...), any host called mirror(s), a URL whose path is
# an archive root (/debian, /debian-security, /ubuntu, ...; an apt sources
# line too) and the language registries' download hosts.
ARCHIVE_HOST_RES=(
	'(^|[^a-z0-9.-])([a-z0-9-]+\.)*(deb|ftp[0-9]*|security|snapshot|archive|httpredir|incoming|ports|cdimage|mirrors?)\.(debian\.(org|net)|ubuntu\.com)'
	'(^|[^a-z0-9-])mirrors?[0-9]*\.[a-z0-9-]+\.[a-z]{2,}'
	'[a-z]+://[^/[:space:]]+/(debian|debian-security|debian-ports|debian-archive|ubuntu|ubuntu-ports)($|[^a-z0-9_.-])'
	'(^|[^a-z0-9.-])(pypi\.org|files\.pythonhosted\.org|registry\.npmjs\.org|(static|index)\.crates\.io|proxy\.golang\.org)'
)

# Does line @1 name an archive host?
names_archive_host() {
	local re
	for re in "${ARCHIVE_HOST_RES[@]}"; do
		grep -qiE -- "$re" <<<"$1" && return 0
	done
	return 1
}

# The check checks itself first: lines it must flag (put together at run
# time, so that this file names no host) and lines it must let through.
archive_host_selftest() {
	local d=debian u=ubuntu m=mirror py=pypi line bad=''
	local -a flag=(
		"MIRROR=\${M:-http://deb.$d.org/$d}"
		"URIs: https://ftp.de.$d.org/$d/"
		"deb http://security.$d.org/$d-security bookworm-security main"
		"curl -O https://snapshot.$d.org/archive/$d/20250101T000000Z/pool/x"
		"http://archive.$u.com/$u/ jammy main"
		"deb http://10.0.0.9:3142/$d trixie main"
		"see http://$m.example.net/pub/x"
		"pip index https://$py.org/simple"
	)
	local -a pass=(
		"Format: https://www.$d.org/doc/packaging-manuals/copyright-format/1.0/"
		"archive=\$(scripts/$d-archive.sh)"
		"kavh_mirror(av, index, &ent)"
		"mirrored into a private core AV"
		"/usr/share/$d/x and the $d/ directory"
	)
	for line in "${flag[@]}"; do
		names_archive_host "$line" || bad+="not flagged: $line"$'\n'
	done
	for line in "${pass[@]}"; do
		! names_archive_host "$line" || bad+="flagged: $line"$'\n'
	done
	printf '%s' "$bad"
}

# No file of the tree names a package archive (see ARCHIVE_HOST_RES).
run_archive_hosts() {
	local out re files
	local -a args=()
	out=$(archive_host_selftest)
	if [[ -n $out ]]; then
		report "archive hosts (the check's own samples)" "${out%$'\n'}"
		return
	fi
	for re in "${ARCHIVE_HOST_RES[@]}"; do
		args+=(-e "$re")
	done
	# The file list first: a failed git must not read as a clean tree.
	if ! files=$(cd "$REPO" && git ls-files -z --cached --others --exclude-standard |
		tr '\0' '\n'); then
		report "archive hosts" "git ls-files failed in $REPO"
		return
	fi
	out=$(cd "$REPO" && tr '\n' '\0' <<<"$files" |
		xargs -0 -r grep -n -I -i -E "${args[@]}" -- 2>/dev/null || true)
	report "archive hosts (use scripts/debian-archive.sh)" "$out"
}

# kernel-doc: the comments parse, and every exported symbol has one.
run_kernel_doc() {
	local kd=$BUILD/kernel-doc/kernel-doc tarball=/usr/src/linux-source-6.12.tar.xz
	local out f sym tmp
	if [[ ! -s $kd ]]; then
		tmp=$(mktemp -d) || return
		if ! tar -xJf "$tarball" -C "$tmp" --wildcards '*/scripts/kernel-doc' ||
		   ! mkdir -p "${kd%/*}" ||
		   ! cp "$tmp"/*/scripts/kernel-doc "$kd.tmp" ||
		   ! mv "$kd.tmp" "$kd"; then
			rm -rf "$tmp"
			report kernel-doc "cannot extract scripts/kernel-doc from $tarball"
			return
		fi
		rm -rf "$tmp"
	fi
	local -a files
	for f in "$REPO"/kmod/*.c "$REPO"/kmod/*.h "$REPO"/uapi/linux/kav.h \
		 "$REPO"/tests/doubles/nic/*.h; do
		[[ $f == *.mod.c ]] || files+=("${f#"$REPO"/}")
	done
	out=$(cd "$REPO" && perl "$kd" -none -Wall "${files[@]}" 2>&1)
	for sym in $(cd "$REPO" && sed -n -E \
		's/^EXPORT_SYMBOL(_GPL)?\(([a-z0-9_]+)\);$/\2/p' kmod/*.c); do
		grep -q -E "^ \* $sym\(\) - " "$REPO"/kmod/*.c "$REPO"/kmod/*.h ||
			out+=${out:+$'\n'}"$sym: exported without a kernel-doc comment"
	done
	report "kernel-doc -Wall" "$out"
}

# The read protocol (Documentation/memory-model.rst): herd7's verdict on
# every litmus test of tests/litmus (herd7 in the cached sid root of
# lanes/lint/herd-root.sh) and the aarch64 codegen check of every reader.
# herd7 runs on one CPU for about 90 s: main starts it first, in the
# background (start_litmus), and run_litmus, in its turn, waits for it.
LITMUS_PID=''
start_litmus() {
	(BUILD=$BUILD "$REPO/lanes/lint/litmus.sh" >"$OUT/litmus.out" 2>&1
	 echo $? >"$OUT/litmus.rc") &
	LITMUS_PID=$!
}
run_litmus() {
	local out
	[[ -n $LITMUS_PID ]] || start_litmus
	wait "$LITMUS_PID" || true
	LITMUS_PID=''
	out=$(cat "$OUT/litmus.out")
	if [[ $(cat "$OUT/litmus.rc" 2>/dev/null) != 0 ]]; then
		report "litmus (herd7)" "$out"
	else
		report "litmus (herd7, $(tail -n 1 <<<"$out" | sed 's/^litmus: //'))" ""
	fi
	if ! out=$(BUILD=$BUILD "$REPO/lanes/lint/aarch64-codegen.sh" 2>&1); then
		report "codegen (aarch64 readers)" "$out"
	else
		report "codegen (aarch64 readers, $(tail -n 1 <<<"$out" | sed 's/^codegen: //'))" ""
	fi
}

# A check of lanes/lint with a self-test (--selftest): the self-test,
# then, if it passed, the check on the tree.
run_selftested() {
	local name=$1 script=$HERE/$2 out
	if ! out=$(KAV_BUILD=$BUILD "$script" --selftest 2>&1); then
		report "$name self-test (lanes/lint/$2 --selftest)" "${out:-failed}"
		return
	fi
	report "$name self-test" ""
	report "$name (lanes/lint/$2)" "$(KAV_BUILD=$BUILD "$script" 2>&1)"
}

# The file graph of kmod, lib and prov, from the objects: kav.ko's are
# the sparse step's (build/lint/sparse-KVER), lib's and prov's are
# built here.
run_layering() {
	local log=$OUT/layering-make.log
	if ! make -C "$REPO" --no-print-directory BUILD="$BUILD" lib prov >"$log" 2>&1; then
		report "layering" "make lib prov failed:"$'\n'"$(tail -n 20 "$log")"
		return
	fi
	run_selftested "layering DAG" layering.sh
}

run_ioctl_sides() {
	run_selftested "one name, one side of the ioctl" ioctl-sides.sh
}

run_ioctl_table() {
	run_selftested "every ioctl in the size-contract test" ioctl-table.sh
}

run_readme_layout() {
	run_selftested "README.md's layout" readme-layout.sh
}

main() {
	local step start
	mkdir -p "$OUT"
	rm -f "$OUT/litmus.out" "$OUT/litmus.rc"
	[[ " ${KAV_LINT_SKIP:-} " == *" litmus "* ]] || start_litmus
	# Each step's time, so that make check's budget can be read per tool
	# (litmus's: the wait for it after the others).
	for step in checkpatch sparse layering ioctl_sides ioctl_table \
		readme_layout cppcheck clang_tidy man shellcheck \
		examples ynl archive_hosts litmus kernel_doc; do
		if [[ " ${KAV_LINT_SKIP:-} " == *" $step "* ]]; then
			note "$step skipped (KAV_LINT_SKIP)"
			continue
		fi
		start=$SECONDS
		"run_$step"
		note "$step took $((SECONDS - start)) s"
	done
	if [[ $FAILED -gt 0 ]]; then
		echo "lint: $FAILED tool(s) with findings"
		return 1
	fi
	echo "lint: clean"
}

main "$@"
