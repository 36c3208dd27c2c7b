#!/usr/bin/env bash
# TAP: every link and image between the project's Markdown files resolves: a relative
# link names a file of the tree, and a #fragment names a heading of the file
# it points to (GitHub's anchors: lower case, punctuation dropped, spaces to
# hyphens, -1, -2 .. for repeats).  Links to the web are not followed.
# prove --exec bash test/packaging/*.sh
set -uo pipefail
cd "$(dirname "$0")/../.."
exec python3 - <<'PY'
import os, re, subprocess

files = [f for f in subprocess.check_output(['git', 'ls-files', '*.md'], text=True).split()
         if os.path.exists(f)]

def anchors(path):
    seen, out = {}, set()
    fence = False
    for line in open(path, encoding='utf-8'):
        if line.startswith('```'):
            fence = not fence
            continue
        m = None if fence else re.match(r'^(#{1,6})\s+(.*?)\s*#*\s*$', line)
        if not m:
            continue
        text = re.sub(r'`([^`]*)`', r'\1', m.group(2))
        text = re.sub(r'\[([^\]]*)\]\([^)]*\)', r'\1', text)
        slug = re.sub(r'[^\w\- ]', '', text.lower()).replace(' ', '-')
        n = seen.get(slug, 0)
        seen[slug] = n + 1
        out.add(slug if n == 0 else f'{slug}-{n}')
    return out

link = re.compile(r'\[[^\]]*\]\(([^)\s]+)(?:\s+"[^"]*")?\)')
bad = []
checked = 0
cache = {}
for f in files:
    fence = False
    for no, line in enumerate(open(f, encoding='utf-8'), 1):
        if line.startswith('```'):
            fence = not fence
            continue
        if fence:
            continue
        for target in link.findall(re.sub(r'`[^`]*`', '', line)):
            if re.match(r'^[a-z]+:', target):
                continue
            path, _, frag = target.partition('#')
            dest = os.path.normpath(os.path.join(os.path.dirname(f), path)) if path else f
            checked += 1
            if not os.path.exists(dest):
                bad.append(f'{f}:{no}: {target} (no file {dest})')
                continue
            if frag and dest.endswith('.md'):
                if dest not in cache:
                    cache[dest] = anchors(dest)
                if frag not in cache[dest]:
                    bad.append(f'{f}:{no}: {target} (no heading #{frag} in {dest})')

print('1..2')
print(('ok' if checked > 0 else 'not ok') + f' 1 - the Markdown files have links to check ({checked} in {len(files)} files)')
print(('ok' if not bad else 'not ok') + ' 2 - every relative link and anchor resolves')
for b in bad:
    print('#  ' + b)
PY
