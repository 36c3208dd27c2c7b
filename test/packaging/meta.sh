#!/usr/bin/env bash
# TAP: META.json (built from META.json.in by make) is a valid PGXN
# distribution document (PGXN Meta Spec 1.0.0, https://pgxn.org/spec/):
# required keys and their forms, semantic versions, known license, prereqs
# phases and relations, no unknown keys but x_ ones; its versions are
# EXTVERSION (default_version of mrfdp.control) and the file it names is
# built.  prove --exec bash test/packaging/*.sh
set -uo pipefail
cd "$(dirname "$0")/../.."
make -s PG_CONFIG="${PG_CONFIG:-/usr/lib/postgresql/15/bin/pg_config}" META.json >/dev/null || { echo "1..1"; echo "not ok 1 - make META.json"; exit 0; }
exec python3 - <<'EOF'
import json, re

tests = []
def ok(cond, name, diag=None):
    tests.append((bool(cond), name, diag))

control = open('mrfdp.control').read()
extversion = re.search(r"^default_version\s*=\s*'([^']*)'", control, re.M).group(1)
try:
    meta = json.load(open('META.json'))
    ok(True, 'META.json is JSON')
except Exception as e:
    meta = {}
    ok(False, 'META.json is JSON', str(e))

# Semantic Versioning 1.0.0, as the spec requires for every version.
semver = re.compile(r'^(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)([a-zA-Z][0-9a-zA-Z-]*)?$')
# A version range: "0" (any), a version, or comma-separated comparisons.
rng_item = re.compile(r'^(?:(?:==|!=|>=|<=|>|<)\s*)?(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)([a-zA-Z][0-9a-zA-Z-]*)?$')
def version_range(v):
    return v == '0' or (isinstance(v, str) and all(rng_item.match(x.strip()) for x in v.split(',')))
licenses = {'agpl_3', 'apache_1_1', 'apache_2_0', 'artistic_1', 'artistic_2', 'bsd', 'freebsd',
            'gfdl_1_2', 'gfdl_1_3', 'gpl_1', 'gpl_2', 'gpl_3', 'lgpl_2_1', 'lgpl_3_0', 'mit',
            'mozilla_1_0', 'mozilla_1_1', 'openssl', 'perl_5', 'postgresql', 'qpl_1_0', 'ssleay',
            'sun', 'zlib', 'open_source', 'restricted', 'unrestricted', 'unknown'}
known = {'name', 'abstract', 'maintainer', 'license', 'provides', 'version', 'meta-spec',
         'description', 'generated_by', 'tags', 'no_index', 'prereqs', 'release_status', 'resources'}
custom = lambda k: k.lower().startswith('x_')

for k in ['name', 'abstract', 'maintainer', 'license', 'provides', 'version', 'meta-spec']:
    ok(k in meta, 'required key %s' % k)
ok(all(k in known or custom(k) for k in meta), 'no unknown top-level keys',
   [k for k in meta if not (k in known or custom(k))])
ok(meta.get('meta-spec', {}).get('version') == '1.0.0', 'meta-spec version 1.0.0')
name = meta.get('name', '')
ok(isinstance(name, str) and len(name) >= 2 and not re.search(r'[/\\:\s]', name) and name == 'mrfdp',
   'name is mrfdp and a valid distribution name')
ok(isinstance(meta.get('abstract'), str) and meta['abstract'].strip(), 'abstract is a non-empty string')
m = meta.get('maintainer')
ok(isinstance(m, str) or (isinstance(m, list) and m and all(isinstance(x, str) and x for x in m)),
   'maintainer is a string or a list of strings')
lic = meta.get('license')
ok(lic == 'postgresql', 'license is postgresql (LICENSE)')
ok(semver.match(str(meta.get('version'))), 'version is a semantic version', meta.get('version'))
ok(meta.get('version') == extversion, 'version is EXTVERSION (%s)' % extversion, meta.get('version'))
prov = meta.get('provides', {})
ok(isinstance(prov, dict) and 'mrfdp' in prov, 'provides the extension mrfdp')
good = True
for ext, p in (prov.items() if isinstance(prov, dict) else []):
    good &= bool(isinstance(p, dict) and isinstance(p.get('file'), str) and semver.match(str(p.get('version'))))
    good &= all(k in ('file', 'version', 'abstract', 'docfile') or custom(k) for k in p)
ok(good, 'every provides entry has file and a semantic version, and no unknown keys')
p = prov.get('mrfdp', {}) if isinstance(prov, dict) else {}
ok(p.get('version') == extversion, 'provides mrfdp at EXTVERSION', p.get('version'))
import os
ok(os.path.isfile(p.get('file', '')), 'the provided file %s is built' % p.get('file'))
ok(os.path.isfile(p.get('docfile', 'README.md')), 'the docfile exists')
pre = meta.get('prereqs', {})
good = isinstance(pre, dict)
for phase, rels in (pre.items() if good else []):
    good &= phase in ('configure', 'build', 'test', 'runtime', 'develop') and isinstance(rels, dict)
    for rel, reqs in (rels.items() if isinstance(rels, dict) else []):
        good &= rel in ('requires', 'recommends', 'suggests', 'conflicts') and isinstance(reqs, dict)
        good &= all(version_range(v) for v in (reqs.values() if isinstance(reqs, dict) else []))
ok(good, 'prereqs: known phases and relations, version ranges')
ok(meta.get('release_status', 'stable') in ('stable', 'testing', 'unstable'), 'release_status is known')
tags = meta.get('tags', [])
ok(isinstance(tags, list) and all(isinstance(t, str) and 0 < len(t) <= 255 for t in tags), 'tags are strings of 1..255 characters')
ni = meta.get('no_index', {})
ok(isinstance(ni, dict) and all(k in ('file', 'directory') and isinstance(v, list) for k, v in ni.items()),
   'no_index lists files and directories')

lic = open('LICENSE').read() if os.path.isfile('LICENSE') else ''
ok('PostgreSQL License' in lic and 'Copyright (c) 2026, mrfdp developers' in lic and 'IN NO EVENT SHALL' in lic,
   'LICENSE is the PostgreSQL licence of the mrfdp developers')

print('1..%d' % len(tests))
for i, (good, name, diag) in enumerate(tests, 1):
    print('%sok %d - %s' % ('' if good else 'not ', i, name))
    if not good and diag is not None:
        print('#   %s' % (diag,))
EOF
