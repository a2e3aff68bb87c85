#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Check that a YNL netlink spec and its uAPI header agree.

The names the spec implies are derived as YNL's C generator derives them
(protocol genetlink): command "profile-get" is ARS_CMD_PROFILE_GET,
attribute "idle-time" of set "profile" is ARS_A_PROFILE_IDLE_TIME, entry
"flowlet-quality" of enum "mode" is ARS_MODE_FLOWLET_QUALITY, constant
"idle-time-min" is ARS_IDLE_TIME_MIN, group "monitor" is ARS_MCGRP_MONITOR;
values are numbered as YNL numbers them (attributes and commands from 1,
enum entries from value-start or 0, an explicit value restarting the
count).

The header's values come from the C compiler, not from reading the text:
a program generated from the spec prints every constant the spec names, so
expressions and implicit enum numbering count as C counts them. The
header's names are found in its preprocessed text. The check goes both
ways: every name of the spec is in the header with the same value, and
every constant of the header (except the __*_MAX / *_MAX / *_UNSPEC
members of enums, which YNL leaves implicit or renders itself) is in the
spec, but for aliases: "#define OLD NEW", NEW a name of the spec (or an
UNSPEC or MAX member of the header), keeps an old name for userspace
built before a rename.

Output: one KTAP line per group of checks, then "N passed, M failed";
the exit status is 1 when a check failed, 2 when the check could not run.

  spec-check.py [--spec ars.yaml] [--header ars.h] [--schema genetlink.yaml]
"""

import argparse
import glob
import os
import re
import subprocess
import sys
import tempfile

import yaml

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__),
                                    '..', '..', '..', '..'))
DEFAULT_SPEC = os.path.join(ROOT, 'Documentation/netlink/specs/ars.yaml')
DEFAULT_HEADER = os.path.join(ROOT, 'include/uapi/linux/ars.h')
# The schema of the spec's protocol (genetlink, genetlink-legacy, ...) is
# in the kernel sources, when they are around.
SCHEMA_GLOBS = [
    os.path.join(ROOT, 'Documentation/netlink/{proto}.yaml'),
    '/usr/src/linux-source-*/Documentation/netlink/{proto}.yaml',
    '/usr/src/*/linux-source-*/Documentation/netlink/{proto}.yaml',
]


def c_upper(name):
    return name.upper().replace('-', '_')


class Group:
    """One KTAP line: a named list of problems, ok when there are none."""

    def __init__(self, name):
        self.name = name
        self.problems = []
        self.skip = None

    def fail(self, msg):
        self.problems.append(msg)


class SpecNames:
    """The C names and values that a genetlink spec implies, per group."""

    def __init__(self, spec):
        self.spec = spec
        self.family = spec['name']
        self.fam = c_upper(self.family)
        # group name -> {C name: expected value}, in spec order
        self.groups = {}
        # group name -> prefix of the header names the group owns
        self.prefixes = {}
        self._operations()
        self._attr_sets()
        self._definitions()
        self._mcast_groups()

    def _operations(self):
        ops = self.spec.get('operations', {})
        pfx = c_upper(ops.get('name-prefix', f'{self.family}-cmd-'))
        names, val = {}, 1
        for op in ops.get('list', []):
            val = op.get('value', val)
            names[pfx + c_upper(op['name'])] = val
            val += 1
        if names:
            names['__' + pfx + 'MAX'] = val
            names[pfx + 'MAX'] = val - 1
        self.groups['commands'] = names
        self.prefixes['commands'] = pfx

    def _attr_sets(self):
        for aset in self.spec.get('attribute-sets', []):
            if 'subset-of' in aset:
                continue
            if 'name-prefix' in aset:
                pfx = aset['name-prefix']
            elif aset['name'] == self.family:
                pfx = f'{self.family}-a-'
            else:
                pfx = f"{self.family}-a-{aset['name']}-"
            pfx = c_upper(pfx)
            names, val = {}, 1
            for attr in aset['attributes']:
                val = attr.get('value', val)
                names[pfx + c_upper(attr['name'])] = val
                val += 1
            max_name = c_upper(aset.get('attr-max-name', pfx + 'max'))
            cnt_name = c_upper(aset.get('attr-cnt-name', '__' + pfx + 'max'))
            names[cnt_name] = val
            names[max_name] = val - 1
            group = f"attribute set {aset['name']}"
            self.groups[group] = names
            self.prefixes[group] = pfx

    def _enum(self, enum):
        pfx = c_upper(enum.get('name-prefix',
                               f"{self.family}-{enum['name']}-"))
        names, val = {}, enum.get('value-start', 0)
        flags = enum['type'] == 'flags'
        for entry in enum.get('entries', []):
            if isinstance(entry, str):
                entry = {'name': entry}
            val = entry.get('value', val)
            names[pfx + c_upper(entry['name'])] = 1 << val if flags else val
            val += 1
        if enum.get('render-max'):
            if flags:
                names[pfx + 'MASK'] = sum(v for v in names.values())
            else:
                names['__' + pfx + 'MAX'] = val
                names[pfx + 'MAX'] = val - 1
        group = f"{enum['type']} {enum['name']}"
        self.groups[group] = names
        self.prefixes[group] = pfx

    def _definitions(self):
        consts = {}
        for d in self.spec.get('definitions', []):
            if d.get('header') or d.get('scope', 'uapi') != 'uapi':
                continue        # defined elsewhere, or not in the uAPI
            if d['type'] == 'const':
                consts[c_upper(f"{self.family}-{d['name']}")] = d['value']
            else:
                self._enum(d)
        self.groups['constants'] = consts
        self.prefixes['constants'] = None

    def _mcast_groups(self):
        grps = self.spec.get('mcast-groups', {}).get('list', [])
        self.groups['mcast groups'] = {
            c_upper(f"{self.family}-mcgrp-{g['name']}"): g['name']
            for g in grps}
        self.prefixes['mcast groups'] = c_upper(f'{self.family}-mcgrp-')

    def family_defines(self):
        """Candidate names of the family name and version defines."""
        spec = self.spec
        name = [c_upper(spec['c-family-name'])] if 'c-family-name' in spec \
            else [self.fam + '_FAMILY_NAME', self.fam + '_GENL_NAME']
        ver = [c_upper(spec['c-version-name'])] if 'c-version-name' in spec \
            else [self.fam + '_FAMILY_VERSION', self.fam + '_GENL_VERSION']
        return name, ver


class Header:
    """The constants of a uAPI header: names from its text, values from C."""

    def __init__(self, path, prefix, cc):
        self.path = os.path.abspath(path)
        self.prefix = prefix
        self.cc = cc
        self.macros = {}        # name -> body
        self.enum_members = []  # names, in order
        self._scan()

    def _cpp(self, *args):
        return subprocess.run([self.cc, '-E', *args, self.path], check=True,
                              capture_output=True, text=True).stdout

    def _scan(self):
        for line in self._cpp('-dM').splitlines():
            m = re.match(r'#define\s+(\w+)\s*(.*)', line)
            if m and m.group(1).startswith(self.prefix):
                self.macros[m.group(1)] = m.group(2).strip()
        text = self._cpp('-P')
        for body in re.findall(r'\benum\b\s*\w*\s*\{([^}]*)\}', text):
            for member in body.split(','):
                m = re.match(r'\s*([A-Za-z_]\w*)', member)
                if m and m.group(1).lstrip('_').startswith(self.prefix):
                    self.enum_members.append(m.group(1))

    def names(self):
        return set(self.macros) | set(self.enum_members)

    def is_string(self, name):
        return self.macros.get(name, '').startswith('"')

    def values(self, names):
        """Compile and run a program printing each of names, all in here."""
        lines = [f'#include "{self.path}"', '#include <stdio.h>', '',
                 'int main(void)', '{']
        for n in names:
            if self.is_string(n):
                lines.append(f'\tprintf("%s s %s\\n", "{n}", {n});')
            else:
                lines.append(f'\tprintf("%s i %lld\\n", "{n}", '
                             f'(long long)({n}));')
        lines += ['\treturn 0;', '}', '']
        with tempfile.TemporaryDirectory() as tmp:
            src, exe = os.path.join(tmp, 'values.c'), os.path.join(tmp, 'v')
            with open(src, 'w') as f:
                f.write('\n'.join(lines))
            subprocess.run([self.cc, '-Wall', '-o', exe, src], check=True,
                           capture_output=True, text=True)
            out = subprocess.run([exe], check=True, capture_output=True,
                                 text=True).stdout
        vals = {}
        for line in out.splitlines():
            name, kind, val = line.split(' ', 2)
            vals[name] = val if kind == 's' else int(val)
        return vals


def check_schema(spec, schema_path):
    proto = spec.get('protocol', 'genetlink')
    g = Group('spec is valid against the %s schema' % proto)
    try:
        import jsonschema
    except ImportError:
        g.skip = 'python3 jsonschema not installed'
        return g
    if not schema_path:
        for pattern in SCHEMA_GLOBS:
            found = sorted(glob.glob(pattern.format(proto=proto)))
            if found:
                schema_path = found[-1]
                break
    if not schema_path:
        g.skip = 'no %s.yaml schema (kernel sources) found' % proto
        return g
    with open(schema_path) as f:
        schema = yaml.safe_load(f)
    try:
        jsonschema.validate(spec, schema)
    except jsonschema.ValidationError as e:
        g.fail(f'{"/".join(str(p) for p in e.absolute_path)}: {e.message}')
    return g


def check_consistency(spec):
    """References within the spec resolve; names are unique."""
    g = Group('spec is self-consistent')
    sets = {s['name']: s for s in spec.get('attribute-sets', [])}
    enums = {d['name'] for d in spec.get('definitions', [])
             if d['type'] in ('enum', 'flags')}
    consts = {d['name'] for d in spec.get('definitions', [])
              if d['type'] == 'const'}
    mcgrps = {m['name'] for m in spec.get('mcast-groups', {}).get('list', [])}

    for s in sets.values():
        seen = set()
        for a in s['attributes']:
            if a['name'] in seen:
                g.fail(f"set {s['name']}: attribute {a['name']} twice")
            seen.add(a['name'])
            if 'enum' in a and a['enum'] not in enums:
                g.fail(f"set {s['name']}: {a['name']}: no enum {a['enum']}")
            for k, v in a.get('checks', {}).items():
                if isinstance(v, str) and v not in consts and \
                   not re.match(r'[us](8|16|32|64)-(min|max)$', v):
                    g.fail(f"set {s['name']}: {a['name']}: {k}: "
                           f"no constant {v}")

    for op in spec.get('operations', {}).get('list', []):
        aset = sets.get(op.get('attribute-set'))
        if op.get('attribute-set') and not aset:
            g.fail(f"{op['name']}: no attribute set {op['attribute-set']}")
            continue
        lists = [op.get('event', {}).get('attributes', [])]
        for mode in ('do', 'dump'):
            for msg in ('request', 'reply'):
                lists.append(op.get(mode, {}).get(msg, {})
                             .get('attributes', []))
        names = {a['name'] for a in aset['attributes']} if aset else set()
        for attr in (a for lst in lists for a in lst):
            if attr not in names:
                g.fail(f"{op['name']}: attribute {attr} not in set "
                       f"{op.get('attribute-set')}")
        if 'mcgrp' in op and op['mcgrp'] not in mcgrps:
            g.fail(f"{op['name']}: no multicast group {op['mcgrp']}")
    return g


def excluded(name):
    """Enum members that YNL leaves implicit (UNSPEC) or renders (MAX)."""
    return name.startswith('__') or name.endswith('_MAX') or \
        name.endswith('_UNSPEC')


def compare(sn, hdr):
    """Both directions, one group per command list, set, enum, ..."""
    hnames = hdr.names()
    wanted = [n for names in sn.groups.values() for n in names
              if n in hnames]
    fam_name, fam_ver = sn.family_defines()
    fam_name = next((n for n in fam_name if n in hnames), fam_name[0])
    fam_ver = next((n for n in fam_ver if n in hnames), fam_ver[0])
    values = hdr.values(wanted + [n for n in (fam_name, fam_ver)
                                  if n in hnames])
    groups, claimed = [], {fam_name, fam_ver}

    g = Group('family name and version')
    if values.get(fam_name) != sn.family:
        g.fail(f'{fam_name} is {values.get(fam_name)!r}, '
               f'the spec says {sn.family!r}')
    if values.get(fam_ver) != 1:
        g.fail(f'{fam_ver} is {values.get(fam_ver)!r}, genetlink says 1')
    groups.append(g)

    for gname, names in sn.groups.items():
        g = Group(gname)
        for n, want in names.items():
            claimed.add(n)
            if n not in hnames:
                g.fail(f'{n} (= {want}) is not in the header')
            elif values[n] != want:
                g.fail(f'{n} is {values[n]} in the header, {want} in the '
                       f'spec')
        pfx = sn.prefixes[gname]
        for n in sorted(hnames - set(names)):
            if pfx and n.startswith(pfx) and not excluded(n) and \
               (n in hdr.enum_members or gname == 'mcast groups'):
                g.fail(f'{n} is in the header, not in the spec')
                claimed.add(n)
        groups.append(g)

    # An old name kept for userspace built before a rename is a define
    # whose body is the new name, one the spec has (or an enum member YNL
    # leaves implicit, such as a renamed set's UNSPEC).
    spec_names = {n for names in sn.groups.values() for n in names}
    implicit = {n for n in hdr.enum_members if excluded(n)}
    for n, body in hdr.macros.items():
        if (body in spec_names or body in implicit) and body != n:
            claimed.add(n)

    # Whatever no group owns: a new enum, set or define the spec lacks.
    g = Group('every constant of the header is in the spec')
    for n in hdr.enum_members + sorted(hdr.macros):
        if n not in claimed and not (n in hdr.enum_members and excluded(n)):
            g.fail(f'{n} is in the header, not in the spec')
            claimed.add(n)
    groups.append(g)
    return groups


def report(groups):
    print('KTAP version 1')
    print(f'1..{len(groups)}')
    failed = 0
    for i, g in enumerate(groups, 1):
        if g.skip:
            print(f'ok {i} - {g.name} # SKIP {g.skip}')
            continue
        if g.problems:
            failed += 1
        print(f"{'not ok' if g.problems else 'ok'} {i} - {g.name}")
        for p in g.problems:
            print(f'    # {p}')
    skipped = sum(1 for g in groups if g.skip)
    print(f'{len(groups) - failed - skipped} passed, {failed} failed'
          + (f', {skipped} skipped' if skipped else ''))
    return 1 if failed else 0


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument('--spec', default=DEFAULT_SPEC)
    ap.add_argument('--header', default=DEFAULT_HEADER)
    ap.add_argument('--schema', help='genetlink.yaml of the kernel sources')
    ap.add_argument('--cc', default=os.environ.get('CC', 'cc'))
    args = ap.parse_args()

    try:
        with open(args.spec) as f:
            spec = yaml.safe_load(f)
        sn = SpecNames(spec)
        hdr = Header(args.header, sn.fam + '_', args.cc)
        groups = [check_schema(spec, args.schema), check_consistency(spec)]
        groups += compare(sn, hdr)
    except subprocess.CalledProcessError as e:
        print(f'spec-check: {" ".join(e.cmd)} failed:\n{e.stderr}',
              file=sys.stderr)
        return 2
    except (OSError, yaml.YAMLError, KeyError, TypeError) as e:
        print(f'spec-check: {e!r}', file=sys.stderr)
        return 2
    return report(groups)


if __name__ == '__main__':
    sys.exit(main())
