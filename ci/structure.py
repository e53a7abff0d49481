#!/usr/bin/env python3
"""The structure counts docs/architecture.md states, measured from the source as it is.

Usage: ci/structure.py [REPO_DIR]   (default: this checkout)

For each crate of the tool (src/ and core/src/, when present) it prints:
- the largest files (lines) and the longest functions (lines from `fn` to its closing brace,
  test modules left out);
- process-global statics (`static` items, thread-locals included), by file;
- `unsafe {` blocks outside the FFI edge (`sdk/`, `decode/`, `lib.rs`);
- circles of imports between files: file A uses a path `crate::x::y` that names file B, and B
  (directly or through others) names A. A module's `mod.rs` re-exporting its children is not an
  import of the children by their parent's users, so `mod.rs` files are not counted as users of
  their own submodules.

Text-level reading: a path in a string counts too (comments do not). Good enough for counts that
move by tens; read the code before trusting one arrow.
"""

import os
import re
import sys


def rust_files(root):
    for d, _, files in os.walk(root):
        for f in files:
            if f.endswith(".rs"):
                yield os.path.join(d, f)


def module_of(path, src):
    rel = os.path.relpath(path, src)[:-3]
    parts = rel.split(os.sep)
    if parts[-1] in ("mod", "lib"):
        parts = parts[:-1]
    return tuple(parts)


def strip_tests(text):
    """The text before the first inline `#[cfg(test)] mod … {` (tests sit at the end by convention;
    a `mod tests;` declaration is not one)."""
    m = re.search(r"^\s*#\[cfg\(test\)\]\s*\n\s*(pub(\([a-z]+\))? )?mod \w+\s*\{", text, re.M)
    return text[: m.start()] if m else text


def functions(text):
    """(name, lines) of every fn, by brace matching from its signature."""
    out = []
    for m in re.finditer(r"^\s*(pub(\([^)]*\))?\s+)?(const\s+)?(unsafe\s+)?(extern\s+\"C\"\s+)?fn\s+(\w+)", text, re.M):
        i = text.find("{", m.end())
        semi = text.find(";", m.end())
        if i < 0 or (0 <= semi < i):
            continue
        depth, j = 0, i
        while j < len(text):
            c = text[j]
            if c == "{":
                depth += 1
            elif c == "}":
                depth -= 1
                if depth == 0:
                    break
            j += 1
        out.append((m.group(6), text.count("\n", m.start(), j) + 1))
    return out


def crate_report(repo, src, label):
    files = sorted(rust_files(src))
    mods = {module_of(f, src): f for f in files}
    sizes, longest, statics, unsafe_out = [], [], {}, 0
    edges = {f: set() for f in files}
    for f in files:
        text = open(f, encoding="utf-8", errors="replace").read()
        rel = os.path.relpath(f, repo)
        sizes.append((text.count("\n"), rel))
        body = strip_tests(text)
        code = re.sub(r"//[^\n]*", "", body)
        for name, n in functions(body):
            longest.append((n, f"{rel}:{name}"))
        n_static = len(re.findall(r"^\s*(pub(\([a-z]+\))? )?static ", text, re.M))
        if n_static:
            statics[rel] = n_static
        sub = os.path.relpath(f, src)
        if not (sub.startswith("sdk/") or sub.startswith("decode/") or sub == "lib.rs"):
            unsafe_out += len(re.findall(r"unsafe\s*\{", body))
        me = module_of(f, src)
        parent = me if f.endswith("mod.rs") or f.endswith("lib.rs") else me[:-1]
        paths = [tuple(m.group(1).split("::")) for m in re.finditer(r"crate::((?:\w+::)*\w+)", code)]
        uses = [m.group(1) for m in re.finditer(r"^\s*(?:pub(?:\([a-z]+\))?\s+)?use\s+([^;]+);", code, re.M)]
        uses += [m.group(0) for m in re.finditer(r"(?<![\w:])super::(?:\w+::)*\w+", code)]
        for u in uses:
            for path in expand_use(u):
                if path[0] == "crate":
                    paths.append(path[1:])
                elif path[0] == "super":
                    paths.append(parent[:-1] + path[1:] if f.endswith("mod.rs") else parent + path[1:])
                elif path[0] == "self":
                    paths.append(me + path[1:])
        for path in paths:
            # the longest prefix that is a file of this crate
            for k in range(len(path), 0, -1):
                if path[:k] in mods:
                    target = mods[path[:k]]
                    if target != f and not (f.endswith("mod.rs") and path[:k][: len(me)] == me):
                        edges[f].add(target)
                    break
    circles = sccs(edges)
    sizes.sort(reverse=True)
    longest.sort(reverse=True)
    print(f"== {label} ({os.path.relpath(src, repo)}): {len(files)} files, {sum(s for s, _ in sizes)} lines")
    print("largest files:", ", ".join(f"{r} {n}" for n, r in sizes[:5]))
    print("longest functions:", ", ".join(f"{r} {n}" for n, r in longest[:5]))
    print(f"statics: {sum(statics.values())} in {len(statics)} files:",
          ", ".join(f"{k} {v}" for k, v in sorted(statics.items())))
    print(f"unsafe blocks outside sdk/, decode/, lib.rs: {unsafe_out}")
    print(f"circles across files: {len(circles)}")
    for c in circles:
        print("  ", " <-> ".join(os.path.relpath(x, repo) for x in sorted(c)))


def expand_use(tree):
    """`a::{b, c::{d, e}}` → [(a, b), (a, c, d), (a, c, e)] (renames and globs dropped)."""
    tree = re.sub(r"\s+", "", tree)

    def parse(t):
        i = t.find("{")
        if i < 0:
            t = t.split("as")[0] if "as" in t and "::" not in t.split("as")[-1] else t
            return [tuple(x for x in t.split("::") if x and x != "*")]
        prefix = tuple(x for x in t[:i].split("::") if x)
        inner, depth, parts, cur = t[i + 1 : t.rfind("}")], 0, [], ""
        for c in inner:
            if c == "{":
                depth += 1
            elif c == "}":
                depth -= 1
            if c == "," and depth == 0:
                parts.append(cur)
                cur = ""
            else:
                cur += c
        if cur:
            parts.append(cur)
        out = []
        for p in parts:
            for sub in parse(p):
                out.append(prefix + sub if sub != ("self",) else prefix)
        return out

    return [p for p in parse(tree) if p]


def sccs(edges):
    index, low, stack, on, out, counter = {}, {}, [], set(), [], [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in edges[v]:
            if w not in index:
                visit(w)
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
                out.append(comp)

    sys.setrecursionlimit(10000)
    for v in edges:
        if v not in index:
            visit(v)
    return out


def main():
    repo = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), ".."))
    for src, label in ((os.path.join(repo, "src"), "tool"), (os.path.join(repo, "core", "src"), "core")):
        if os.path.isdir(src):
            crate_report(repo, src, label)


if __name__ == "__main__":
    main()
