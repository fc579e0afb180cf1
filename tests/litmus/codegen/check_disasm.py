#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""check_disasm.py ARCH DISASM SPEC...

Check the readers in DISASM (objdump -d -l --no-show-raw-insn output of
objects built with -g) against SPEC entries "function:rule:count".

Every load is classified by the source line DWARF gives it (the innermost
inlined line, read from the file objdump names):
  seq   a load of a sequence word: an __atomic_load_n() of ...->seq, or
        of key_gen (the words a reader checks again); a plain load on a
        line that loads the word with __ATOMIC_ACQUIRE is the reader's
        own copy of it (view->key_gen), not the word;
  data  a load of the shared copy: a line reading e->/k-> fields, or a
        byte copy (memcpy, __builtin_memcpy, *d++ = *s++); a call (bl)
        counts as data too (its loads are unknown);
  other anything else (the reader's own structures: t->, view->, ent->).

Rules (aarch64):
  reread:N  every plain (not acquire) seq load is a re-read and must be
            preceded, going back through the code, by a barrier (dmb
            ish, ishld, sy or ld) before any data load, call,
            unconditional branch or the function's start; and there must
            be at least N such re-reads. An acquire seq load (ldar,
            ldapr) opens a read; a re-read written as one (the reader
            before issue 27) is therefore no re-read, and the count
            fails.
  acqfirst:N
            the function has at least N acquire loads, and every data
            load comes after an acquire load (a check-then-read reader:
            the hook's translation, which re-reads nothing).
Rules (x86-64):
  nofence   no mfence/lfence/sfence/locked instruction: acquire loads
            and the acquire fence are plain loads and compiler barriers.
Exit status 1 when any rule fails; one line per function.
"""
import re
import sys

SEQ = re.compile(r'__atomic_load_n\([^;]*(->seq\b|key_gen)')
DATA = re.compile(r'(?<![A-Za-z0-9_])(e|k)->|memcpy|\*d\+\+ = \*s\+\+')
BARRIER = re.compile(r'^dmb\s+(ish|ishld|sy|ld)$')
LOAD = re.compile(r'^(ldr|ldrb|ldrh|ldrsb|ldrsh|ldrsw|ldur|ldurb|ldurh|ldp|'
                  r'ldar|ldarb|ldarh|ldapr|ldaprb|ldaprh|ldxr|ldaxr)\b')
ACQ = re.compile(r'^(ldar|ldarb|ldarh|ldapr|ldaprb|ldaprh|ldaxr)\b')
UNCOND = re.compile(r'^(b|br|ret)\b(?!\.)')
X86_FENCE = re.compile(r'^(mfence|lfence|sfence|lock\b|xchg\S* .*\()')

_lines = {}


def source_line(path, num):
    """Line @num of @path, and the next one (a call's arguments may wrap)."""
    if path not in _lines:
        try:
            with open(path, encoding='utf-8', errors='replace') as f:
                _lines[path] = f.read().split('\n')
        except OSError:
            _lines[path] = []
    text = _lines[path]
    if not 0 < num <= len(text):
        return ('', '')
    return (text[num - 1], text[num] if num < len(text) else '')


def parse(path):
    """{function: [(mnemonic+operands, source line text)]}"""
    funcs, cur, src = {}, None, ('', '')
    fn_re = re.compile(r'^[0-9a-f]+ <([^>]+)>:$')
    line_re = re.compile(r'^(/[^:]+):(\d+)')
    insn_re = re.compile(r'^\s*[0-9a-f]+:\s+(.*)$')
    with open(path, encoding='utf-8', errors='replace') as f:
        for raw in f:
            raw = raw.rstrip('\n')
            m = fn_re.match(raw)
            if m:
                cur = funcs.setdefault(m.group(1), [])
                src = ('', '')
                continue
            m = line_re.match(raw)
            if m:
                src = source_line(m.group(1), int(m.group(2)))
                continue
            m = insn_re.match(raw)
            if m and cur is not None:
                insn = re.sub(r'\s*//.*$', '', m.group(1)).strip()
                insn = re.sub(r'\s+', ' ', insn)
                cur.append((insn, src))
    return funcs


def kind(insn, src):
    line, after = src
    if insn.startswith('bl '):
        return 'data'
    if not LOAD.match(insn):
        return None
    if SEQ.search(line):
        # A load of the word with acquire opens a read (its memory order
        # may be on the next line): a plain load there is of the reader's
        # own copy (view->key_gen, t->entries), not of the word.
        order = line if '__ATOMIC_' in line else line + after
        if '__ATOMIC_ACQUIRE' in order and not ACQ.match(insn):
            return 'other'
        return 'seq'
    if DATA.search(line):
        return 'data'
    return 'other'


def rule_reread(code, want):
    rereads, errors = 0, []
    for i, (insn, src) in enumerate(code):
        if kind(insn, src) != 'seq' or ACQ.match(insn):
            continue
        ok = False
        for j in range(i - 1, -1, -1):
            prev, psrc = code[j]
            if BARRIER.match(prev):
                ok = True
                break
            k = kind(prev, psrc)
            if k == 'data' or UNCOND.match(prev):
                break
        if ok:
            rereads += 1
        else:
            errors.append("'%s' (%s) re-reads with no barrier after the "
                          "data loads" % (insn, src[0].strip()))
    if rereads < want:
        errors.append('%d re-read(s) after a barrier, want %d' %
                      (rereads, want))
    return rereads, errors


def rule_acqfirst(code, want):
    acq, errors = 0, []
    for insn, src in code:
        k = kind(insn, src)
        if k and ACQ.match(insn):
            acq += 1
        elif k == 'data' and not acq:
            errors.append("'%s' (%s) before any acquire load" %
                          (insn, src[0].strip()))
    if acq < want:
        errors.append('%d acquire load(s), want %d' % (acq, want))
    return acq, errors


def rule_nofence(code):
    return 0, ["'%s' (%s)" % (i, s[0].strip()) for i, s in code
               if X86_FENCE.match(i)]


def main():
    arch, path, specs = sys.argv[1], sys.argv[2], sys.argv[3:]
    funcs = parse(path)
    failed = 0
    for spec in specs:
        name, rule, want = (spec.split(':') + ['0'])[:3]
        code = funcs.get(name)
        if code is None:
            errors, n = ['not in the disassembly'], 0
        elif rule == 'reread':
            n, errors = rule_reread(code, int(want))
        elif rule == 'acqfirst':
            n, errors = rule_acqfirst(code, int(want))
        elif rule == 'nofence':
            n, errors = rule_nofence(code)
        else:
            errors, n = ['unknown rule %s' % rule], 0
        if errors:
            failed += 1
            print('FAIL  %-7s %-28s %s: %s' % (arch, name, rule,
                                               '; '.join(errors)))
        else:
            what = {'reread': '%d re-read(s) after dmb' % n,
                    'acqfirst': '%d acquire load(s) before the data' % n,
                    'nofence': 'no fence instruction'}[rule]
            print('ok    %-7s %-28s %s: %s' % (arch, name, rule, what))
    return 1 if failed else 0


if __name__ == '__main__':
    sys.exit(main())
