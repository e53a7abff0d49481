#!/usr/bin/env python3
"""Compares a run written whole with its capture windows, event by event, from
`rocprof-xplane inspect --events` listings (runs of the SIMULATED runtime, test infrastructure).

Usage: ci/compare-windows.py WHOLE.txt WINDOW1.txt [WINDOW2.txt ...]
  where each .txt is `target/release/rocprof-xplane inspect --events FILE > X.txt`, for the
  run written whole and for each window in order.

Thread ids are numbered by first appearance; flow ids (salted with the pid) are left out; each
window's times are shifted by what its events unique on both sides agree on (every window has
its own origin). A roctx range a window shows open at its end (open_at_end) is left out but in
the last. Prints each window's shifts, the events only in the whole run and only in the
windows, by plane, line and name, with a few examples: what to read when a window's cut
splits something it should not. tests/e2e_windows.rs::compare_windows is the same
comparison as a test.
"""
import collections
import re
import sys


def parse(path):
    lines = collections.defaultdict(list)  # (plane, line) -> [(start, name, duration, stats)]
    plane = line = None
    text = open(path).read()
    tids = []
    for m in re.finditer(r'Host Threads/(\d+)', text):
        if m.group(1) not in tids:
            tids.append(m.group(1))
    names = {t: f'TID{i}' for i, t in enumerate(tids)}
    for l in text.split('\n'):
        if l.startswith('PLANE'):
            plane = l.split(' [')[0].split(' ', 2)[2]
            continue
        m = re.match(r' LINE (\d+) (.*?) "', l)
        if m:
            line = re.sub(r'Host Threads/(\d+)', lambda x: 'T/' + names[x.group(1)], m.group(2))
            continue
        m = re.match(r'  (.*) T(-?\d+) (\d+) \[(.*)\]$', l)
        if m and plane:
            stats = re.sub(r'flow=\d+', 'flow', m.group(4))
            lines[(plane, line)].append((int(m.group(2)), m.group(1), int(m.group(3)), stats))
    return lines


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    whole = parse(sys.argv[1])
    wins = [parse(p) for p in sys.argv[2:]]
    want = collections.Counter()
    start = {}
    for k, evs in whole.items():
        for e in evs:
            key = (k, e[1], e[2], e[3])
            want[key] += 1
            start[key] = e[0]
    got = collections.Counter()
    for i, w in enumerate(wins):
        shifts = collections.Counter()
        for k, evs in w.items():
            for e in evs:
                key = (k, e[1], e[2], e[3])
                if 'open_at_end' in e[3] and i < len(wins) - 1:
                    continue
                got[key] += 1
                if want.get(key) == 1:
                    shifts[start[key] - e[0]] += 1
        print('window', i + 1, 'shifts (ps, events):', shifts.most_common(3))
    missing, extra = want - got, got - want
    print('whole', sum(want.values()), 'windows', sum(got.values()),
          'only in the whole run', sum(missing.values()), 'only in the windows', sum(extra.values()))
    for what, c in (('only in the whole run', missing), ('only in the windows', extra)):
        print(what + ':')
        by = collections.Counter((k[0], k[1]) for k in c.elements())
        for (pl, ev), n in by.most_common(10):
            print('  ', pl, ev, n)
        for k in list(c)[:4]:
            print('   e.g.', k)


if __name__ == '__main__':
    main()
