#!/usr/bin/env python3
"""Which files of a crate import each other: every `crate::…`, `super::…` and `self::…` path in
a file (in `use` items and in expressions) is resolved to the file that defines the longest
module prefix of it, and the file-to-file graph is searched for cycles. A `mod x;` declaration is
not an import; a `pub use` re-export is. Paths inside `#[cfg(test)]` modules count too.

Prints each cycle (a strongly connected set of files) and exits non-zero when there is one.
Usage: ci/import-cycles.py [SRC_DIR]   (default: src)
"""
import os
import re
import sys

src = sys.argv[1] if len(sys.argv) > 1 else "src"


def module_of(path):
    """`src/a/b.rs` -> ['a', 'b']; `src/a/mod.rs` -> ['a']; `src/lib.rs` -> []."""
    rel = os.path.relpath(path, src)[:-3].split(os.sep)
    if rel[-1] in ("mod", "lib"):
        rel = rel[:-1]
    return rel


files = {}
for root, _, names in os.walk(src):
    for n in names:
        if n.endswith(".rs"):
            p = os.path.join(root, n)
            files[tuple(module_of(p))] = p


def resolve(parts):
    """The file of the longest prefix of module path `parts`."""
    for k in range(len(parts), -1, -1):
        if tuple(parts[:k]) in files:
            return files[tuple(parts[:k])]
    return None


path_re = re.compile(r"(?<![A-Za-z0-9_:])([A-Za-z_][A-Za-z0-9_]*(?:::[A-Za-z_][A-Za-z0-9_]*)+)")
use_group_re = re.compile(r"\buse\s+([A-Za-z_][A-Za-z0-9_]*(?:::[A-Za-z_][A-Za-z0-9_]*)*)::\{([^;]*)\};", re.S)
# Modules `lib.rs` re-exports from other crates: `crate::model::…` is not a file of this crate.
lib = open(os.path.join(src, "lib.rs")).read()
external = set()
for m in re.finditer(r"pub use [A-Za-z0-9_]+::\{([^}]*)\};", lib):
    external |= {x.strip() for x in m.group(1).split(",")}
comment_re = re.compile(r"//[^\n]*")

edges = {p: set() for p in files.values()}
for mod, path in files.items():
    text = comment_re.sub("", open(path).read())
    here = list(mod)
    # A file `a/b.rs` declares module a::b; `super` is a.
    found = [m.group(1) for m in path_re.finditer(text)]
    for m in use_group_re.finditer(text):
        for item in re.split(r"[,\s]+", m.group(2)):
            item = item.split("::")[0].strip("{} ")
            if item and item not in ("self",):
                found.append(m.group(1) + "::" + item)
            elif item == "self":
                found.append(m.group(1))
    for f in found:
        parts = f.split("::")
        base = []
        if parts[0] == "crate":
            base, parts = [], parts[1:]
        elif parts[0] == "self":
            base, parts = list(here), parts[1:]
        elif parts[0] == "super":
            base = list(here)
            while parts and parts[0] == "super":
                base, parts = base[:-1], parts[1:]
        elif tuple(here + [parts[0]]) in files:
            base = list(here)  # a path relative to this module: one of its children
        else:
            continue  # std, another crate, a local item
        if not base and parts and parts[0] in external:
            continue
        if parts and parts[0].startswith("log_"):
            continue  # the crate's logging macros
        target = resolve(base + parts)
        if target and target != path:
            edges[path].add(target)

# Tarjan's strongly connected components.
index, low, on, stack, sccs, counter = {}, {}, set(), [], [], [0]


def strong(v):
    index[v] = low[v] = counter[0]
    counter[0] += 1
    stack.append(v)
    on.add(v)
    for w in edges[v]:
        if w not in index:
            strong(w)
            low[v] = min(low[v], low[w])
        elif w in on:
            low[v] = min(low[v], index[w])
    if low[v] == index[v]:
        comp = []
        while True:
            w = stack.pop()
            on.discard(w)
            comp.append(w)
            if w == v:
                break
        if len(comp) > 1:
            sccs.append(sorted(comp))


sys.setrecursionlimit(10000)
for v in edges:
    if v not in index:
        strong(v)
for comp in sccs:
    print(f"cycle of {len(comp)} files:")
    for f in comp:
        inside = sorted(os.path.relpath(t, src) for t in edges[f] if t in comp)
        print(f"  {os.path.relpath(f, src)} -> {', '.join(inside)}")
print(f"{sum(len(e) for e in edges.values())} imports between {len(files)} files; {len(sccs)} cycles")
sys.exit(1 if sccs else 0)
