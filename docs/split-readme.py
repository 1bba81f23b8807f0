#!/usr/bin/env python3
"""MERGE AID, to be deleted after the merge (not part of the documentation): splits the old long README.md
into the docs/*.md pages by verbatim moves, so that edits other branches made to the old README's sections can
be carried into docs/ by re-running it. Usage, from the repository root, with docs/*.md of the `docs` branch
in place (their hand-written heads are kept): `python3 docs/split-readme.py OLD_README.md docs`. Sections are
found by their heading text. Changes to the moved text: heading levels shifted (a page's top section becomes
its `#` title), relative links rewritten for docs/, the heading "Not done (issue 9)" named by area. It exits 1
and lists the lines of the old README that went into no page (a section another branch added: put it into a
page, or its short form into the new README.md, by hand)."""
import re
import sys

src, out = sys.argv[1], sys.argv[2]
lines = open(src, encoding="utf-8").read().split("\n")

heads = []  # (index, level, text) outside code fences
fence = False
for i, l in enumerate(lines):
    if l.startswith("```"):
        fence = not fence
        continue
    m = re.match(r"^(#+) (.*)$", l)
    if m and not fence:
        heads.append((i, len(m.group(1)), l))


def find(text):
    hits = [h for h in heads if h[2] == text]
    assert len(hits) == 1, (text, hits)
    return hits[0]


used = set()  # line indices of the old README that went into a page


def section(text, stop_at_sub=None):
    """Lines of the section headed `text`, up to the next heading of the same or a higher level (or up to the
    heading `stop_at_sub`)."""
    i, lvl, _ = find(text)
    end = len(lines)
    for j, l2, t in heads:
        if j > i and (l2 <= lvl or t == stop_at_sub):
            end = j
            break
    used.update(range(i, end))
    body = lines[i:end]
    while body and body[-1] == "":
        body.pop()
    return body


def shift(body, n):
    res, fence = [], False
    for l in body:
        if l.startswith("```"):
            fence = not fence
        if not fence and re.match(r"^#+ ", l):
            l = l[n:]
        res.append(l)
    return res


def relink(body, pairs):
    text = "\n".join(body)
    for a, b in pairs:
        text = text.replace(a, b)
    return text.split("\n")


# links in the moved text, relative to docs/
COMMON = [("](docs/", "]("), ("(#detail-statistics)", "(statistics.md#detail-statistics)"),
          ("(#gpu-backend)", "(gpu-backend.md#gpu-backend)"), ("(#bench)", "(measurements.md#bench)"),
          ("(#pictures-reports-and-plots)", "(pictures.md#pictures-reports-and-plots)"),
          ("(#fast-cpu-backend)", "(cpu-backend.md#fast-cpu-backend)")]


def page(name, parts, extra=(), head_until=None):
    """Write docs/NAME from `parts`; with `head_until`, the page's current lines before that line (its
    hand-written head) come first."""
    head = []
    if head_until is not None:
        cur = open(f"{out}/{name}", encoding="utf-8").read().split("\n")
        head = cur[:cur.index(head_until)]
        while head and head[-1] == "":
            head.pop()
    body = []
    for p in parts:
        if body:
            body.append("")
        body += p
    body = relink(body, list(extra) + COMMON)
    if head:
        body = head + [""] + body
    open(f"{out}/{name}", "w", encoding="utf-8").write("\n".join(body) + "\n")


NAV = "[README](../README.md) · [all pages](README.md)"

# limits.md
page("limits.md", [shift(section("### Limits, write errors and pipes"), 2),
                   ["", "The exit codes of every command are in the [README](../README.md#exit-codes); signals "
                    "(130, 143) in", "[Deep runs](deep-runs.md#signals-and-exit-codes)."], [NAV]])

# commands.md: the subcommands of "Command line", then engines that print only a total
i0 = find("### `perftlab perft`")[0]
i1 = find("## Pictures, reports and plots")[0]
cmds = lines[i0:i1]
used.update(range(i0, i1))
while cmds[-1] == "":
    cmds.pop()
page("commands.md", [shift(cmds, 1), section("## Engines that print only a total: `--perft-command`"),
                     [NAV]], head_until="## `perftlab perft`")

# pictures.md
page("pictures.md", [shift(section("## Pictures, reports and plots"), 1), [NAV]])

# library.md
page("library.md", [section("## Rust API: `perftlab::crosscheck`"), [NAV]],
     head_until="## Rust API: `perftlab::crosscheck`")

# deep-runs.md
page("deep-runs.md", [shift(section("## Deep runs"), 1), [NAV]])

# cpu-backend.md: Fast CPU backend without Bench (-> measurements.md) but with its Tests paragraph, then SIMD
cpu = section("## Fast CPU backend", stop_at_sub="### Bench")
bench = section("### Bench")
t = [k for k, l in enumerate(bench) if l.startswith("Tests (`tests/fast.rs`")]
assert len(t) == 1
bench_tests = bench[t[0]:]
bench = bench[:t[0]]
while bench[-1] == "":
    bench.pop()
simd = section("### SIMD (vector lanes)")
page("cpu-backend.md", [shift(cpu, 1),
                        ["## Tests", ""] + bench_tests,
                        ["Speed figures (`bench` against Stockfish, other runs): [Measurements](measurements.md#bench)."],
                        shift(simd, 1), [NAV]],
     extra=[("(#simd-vector-lanes)", "(#simd-vector-lanes)")])

# statistics.md: Detail statistics without SIMD
page("statistics.md", [shift(section("## Detail statistics", stop_at_sub="### SIMD (vector lanes)"), 1),
                       [NAV]])

# gpu-backend.md
gpu = shift(section("## GPU backend"), 1)
gpu = [("## Not done (real-GPU targets and open limits)" if l == "## Not done (issue 9)" else l) for l in gpu]
page("gpu-backend.md", [gpu, [NAV]])

# measurements.md: the Bench section (the index above it is written by hand)
page("measurements.md", [shift(bench, 1), [NAV]],
     extra=[("(#simd-vector-lanes)", "(cpu-backend.md#simd-vector-lanes)")], head_until="## Bench")

# contributing.md: test data and layout (the intro is written by hand)
lay = section("## Layout")
row = "| `docs/gpu-notes.md` | measured wgpu/WGSL facts the GPU backend relies on |"
k = lay.index(row)
lay[k:k] = ["| `docs/*.md` | the full documentation, one page per topic (index: [docs/README.md](README.md)) |"]
page("contributing.md", [section("## Test data"), lay, [NAV]], head_until="## Test data")

# What the new README.md says itself (written by hand): the intro, "Set up", "Command line"'s exit codes, "Backends".
for h in ["## Set up", "## Backends"]:
    section(h)
used.update(range(0, find("## Set up")[0]))
used.update(range(find("## Command line")[0], find("### Limits, write errors and pipes")[0]))
left = [(k + 1, l) for k, l in enumerate(lines) if k not in used and l.strip()]
if left:
    print("lines of the old README in no page (new sections? add them to a page or to README.md):")
    for k, l in left:
        print(f"{k}: {l}")
    sys.exit(1)
