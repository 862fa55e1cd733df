#!/usr/bin/env python3
"""Import cycles between the top-level modules of each library crate.

Reads every `.rs` file under `<crate>/src`, maps it to its top-level module (the first path
segment under `src/`), collects the `crate::<module>` paths it names (outside `#[cfg(test)]`
test files: `tests.rs` and `*_tests.rs`), and prints each strongly connected component of more
than one module (a cycle) per crate. Exits 1 when any crate has one, so CI can run it.

Usage: scripts/module_cycles.py [crate_dir ...]   (default: every crate with a src/lib.rs)
"""
import os
import re
import sys

USE = re.compile(r"\bcrate::(?:\{([^}]*)\}|([a-z_][a-z0-9_]*))")


def top_module(src, path):
    rel = os.path.relpath(path, src)
    first = rel.split(os.sep)[0]
    return first[:-3] if first.endswith(".rs") else first


def strip_comments(text):
    text = re.sub(r"/\*.*?\*/", "", text, flags=re.S)
    return "\n".join(l.split("//")[0] for l in text.splitlines())


def graph(crate):
    src = os.path.join(crate, "src")
    edges = {}
    for root, _, files in os.walk(src):
        for f in files:
            if not f.endswith(".rs") or f == "tests.rs" or f.endswith("_tests.rs"):
                continue
            path = os.path.join(root, f)
            module = top_module(src, path)
            if module in ("lib", "main"):
                continue
            text = strip_comments(open(path, encoding="utf-8").read())
            # An inline unit-test module (`#[cfg(test)] mod tests {`, by convention last in
            # its file): drop it and everything after it.
            m = re.search(r"#\[cfg\(test\)\]\s*(?:pub\s+)?mod\s+\w+\s*\{", text)
            if m:
                text = text[: m.start()]
            for group, single in USE.findall(text):
                names = [single] if single else [n.strip().split("::")[0] for n in group.split(",")]
                for n in names:
                    n = n.strip()
                    if n and n != module and n not in ("self", "super"):
                        edges.setdefault(module, set()).add(n)
            edges.setdefault(module, set())
    return edges


def sccs(edges):
    index, low, stack, on, out, counter = {}, {}, [], set(), [], [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in edges.get(v, ()):
            if w not in edges:
                continue
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
            out.append(sorted(comp))

    for v in sorted(edges):
        if v not in index:
            visit(v)
    return [c for c in out if len(c) > 1]


def main():
    crates = sys.argv[1:] or sorted(
        d for d in os.listdir(".") if os.path.isfile(os.path.join(d, "src", "lib.rs"))
    )
    found = False
    for crate in crates:
        edges = graph(crate)
        for comp in sccs(edges):
            found = True
            links = [f"{a}->{b}" for a in comp for b in sorted(edges[a]) if b in comp]
            print(f"{crate}: cycle among {', '.join(comp)} ({'; '.join(links)})")
    if not found:
        print("no import cycles between top-level modules in: " + ", ".join(crates))
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
