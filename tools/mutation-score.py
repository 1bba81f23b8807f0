#!/usr/bin/env python3
"""Mutation score of `perftlab stress`: how many move-generation bugs it finds, and how fast.

The generator under test is the fake engine's own (tests/fixtures/fake_engine.py: a 0x88 generator written
apart from perftlab, standard chess and Chess960). This script makes its mutants deterministically with
Python's `ast` module, one change each, in the move-generation functions only (attacks, pseudo-legal moves,
castling, playing a move, the legality filter; never the planted `--bug` code):

  cmp    a comparison operator swapped (== !=, < <=, > >=, in / not in, is / is not)
  bool   `and` <-> `or`
  not    a `not` removed
  int    an integer constant +1 or -1
  arith  `+` <-> `-`
  dir    one step removed from a direction table (KNIGHT, KING, DIAG, ORTHO)
  str    one letter removed from a string of piece letters ("qrbn", "BQ", "NK", ...)
  skip   a `continue` removed

Each mutant runs under `perftlab stress --engine "python3 MUTANT" --positions P --depth D --seed S
--fail-fast --json --quiet` with a cap of CAP seconds; a mutant is *detected* when stress exits non-zero
(a failure, or the engine crashed or hung: exit 2) within the cap. Before anything, the unmutated engine must
come out clean with the same flags. The report says `detected K/N (median, p90 time)` (the time from the
stress run's own `time_to_first_failure`, or the wall time for crashes), and lists the survivors with their
change, for a reader to judge which are equivalent (no position tells them apart).

  tools/mutation-score.py --list                       # the mutants, numbered
  tools/mutation-score.py                              # every mutant, default kinds
  tools/mutation-score.py --kinds random               # the same with random playouts only
  tools/mutation-score.py --sample 40 --sample-seed 1  # a deterministic sample
  tools/mutation-score.py --ids 3,17,52 --json         # chosen mutants, JSON (the CI test uses this)

Environment: PERFTLAB (default target/release/perftlab).
"""
import argparse
import ast
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
ENGINE = os.path.join(ROOT, "tests", "fixtures", "fake_engine.py")
FUNCTIONS = {"attacked", "king_square", "pseudo_moves", "castle_targets", "play", "legal_moves"}
TABLES = {"KNIGHT", "KING", "DIAG", "ORTHO"}
CMP_SWAP = {
    ast.Eq: ast.NotEq,
    ast.NotEq: ast.Eq,
    ast.Lt: ast.LtE,
    ast.LtE: ast.Lt,
    ast.Gt: ast.GtE,
    ast.GtE: ast.Gt,
    ast.In: ast.NotIn,
    ast.NotIn: ast.In,
    ast.Is: ast.IsNot,
    ast.IsNot: ast.Is,
}


def mentions_bugs(node):
    return any(isinstance(n, ast.Name) and n.id == "BUGS" for n in ast.walk(node))


def sites(tree):
    """Every mutation site as (node path, operator, detail), in a fixed order."""
    found = []

    def visit(node, path, inside):
        if isinstance(node, ast.If) and mentions_bugs(node.test):
            return  # planted-bug code: off in the mutants, mutating it changes nothing
        if isinstance(node, ast.BoolOp) and mentions_bugs(node):
            return
        if isinstance(node, ast.Assign) and len(node.targets) == 1:
            t = node.targets[0]
            if isinstance(t, ast.Name) and t.id in TABLES and isinstance(node.value, ast.Tuple):
                for i in range(len(node.value.elts)):
                    found.append((path, "dir", i))
        if inside:
            if isinstance(node, ast.Compare):
                for i, op in enumerate(node.ops):
                    if type(op) in CMP_SWAP:
                        found.append((path, "cmp", i))
            elif isinstance(node, ast.BoolOp):
                found.append((path, "bool", 0))
            elif isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
                found.append((path, "not", 0))
            elif isinstance(node, ast.Constant) and type(node.value) is int:
                found.append((path, "int", 1))
                found.append((path, "int", -1))
            elif isinstance(node, ast.Constant) and isinstance(node.value, str):
                v = node.value
                if 2 <= len(v) <= 4 and v.isalpha() and set(v.upper()) <= set("KQRBNP"):
                    for i in range(len(v)):
                        found.append((path, "str", i))
            elif isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Add, ast.Sub)):
                found.append((path, "arith", 0))
            elif isinstance(node, ast.Continue):
                found.append((path, "skip", 0))
        for field, value in ast.iter_fields(node):
            inner = inside or (isinstance(node, ast.FunctionDef) and node.name in FUNCTIONS)
            if isinstance(node, ast.FunctionDef) and node.name not in FUNCTIONS:
                inner = False
            if isinstance(value, list):
                for i, child in enumerate(value):
                    if isinstance(child, ast.AST):
                        visit(child, path + [(field, i)], inner)
            elif isinstance(value, ast.AST):
                visit(value, path + [(field, None)], inner)

    visit(tree, [], False)
    return found


def locate(tree, path):
    node, parent, key = tree, None, None
    for field, i in path:
        parent, key = node, (field, i)
        node = getattr(node, field) if i is None else getattr(node, field)[i]
    return node, parent, key


def mutate(source, site):
    """The mutant's source and a one-line description of the change."""
    tree = ast.parse(source)
    path, op, detail = site
    node, parent, key = locate(tree, path)
    line = getattr(node, "lineno", None) or getattr(parent, "lineno", 0)
    before = ast.unparse(node)
    if op == "cmp":
        node.ops[detail] = CMP_SWAP[type(node.ops[detail])]()
    elif op == "bool":
        node.op = ast.Or() if isinstance(node.op, ast.And) else ast.And()
    elif op == "not":
        field, i = key
        if i is None:
            setattr(parent, field, node.operand)
        else:
            getattr(parent, field)[i] = node.operand
    elif op == "int":
        node.value = node.value + detail
    elif op == "arith":
        node.op = ast.Sub() if isinstance(node.op, ast.Add) else ast.Add()
    elif op == "dir":
        node.value.elts.pop(detail)
    elif op == "str":
        node.value = node.value[:detail] + node.value[detail + 1:]
    elif op == "skip":
        field, i = key
        getattr(parent, field)[i] = ast.Pass()
    after = ast.unparse(node) if op not in ("not", "skip") else (
        ast.unparse(getattr(parent, key[0]) if key[1] is None else getattr(parent, key[0])[key[1]]))
    ast.fix_missing_locations(tree)
    return ast.unparse(tree), "line %d %s: %s -> %s" % (line, op, before[:70], after[:70])


def run_stress(perftlab, engine_file, args, cap):
    cmd = [perftlab, "stress", "--engine", "python3 " + engine_file, "--fail-fast", "--json", "--quiet",
           "--timeout", "20"] + args
    t0 = time.monotonic()
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=cap)
    except subprocess.TimeoutExpired:
        return {"detected": False, "why": "cap", "seconds": cap}
    wall = time.monotonic() - t0
    try:
        v = json.loads(p.stdout)
    except ValueError:
        v = {}
    if p.returncode == 0:
        return {"detected": False, "why": "clean", "seconds": wall}
    t = v.get("time_to_first_failure")
    failure = (v.get("failures") or [{}])[0]
    return {
        "detected": True,
        "exit": p.returncode,
        "seconds": t if t is not None else wall,
        "index": failure.get("index"),
        "position_kind": failure.get("position_kind"),
        "why": "failure" if p.returncode == 1 else "engine error",
    }


def percentile(xs, q):
    xs = sorted(xs)
    if not xs:
        return None
    k = max(0, min(len(xs) - 1, int(round(q * (len(xs) - 1)))))
    return xs[k]


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--positions", default="200")
    ap.add_argument("--depth", default="2")
    ap.add_argument("--seed", default="1")
    ap.add_argument("--kinds", default="all")
    ap.add_argument("--cap", type=float, default=90.0, help="seconds per mutant")
    ap.add_argument("--sample", type=int, help="a deterministic sample of this many mutants")
    ap.add_argument("--sample-seed", type=int, default=1)
    ap.add_argument("--ids", help="comma-separated mutant numbers")
    ap.add_argument("--list", action="store_true")
    ap.add_argument("--json", action="store_true")
    a = ap.parse_args()
    perftlab = os.environ.get("PERFTLAB", os.path.join(ROOT, "target", "release", "perftlab"))
    source = open(ENGINE).read()
    all_sites = sites(ast.parse(source))
    if a.list:
        for i, s in enumerate(all_sites):
            print(i, mutate(source, s)[1])
        return 0
    ids = list(range(len(all_sites)))
    if a.ids:
        ids = [int(x) for x in a.ids.split(",")]
    elif a.sample:
        ids = sorted(random.Random(a.sample_seed).sample(ids, min(a.sample, len(ids))))
    args = ["--positions", a.positions, "--depth", a.depth, "--seed", a.seed, "--kinds", a.kinds]
    tmp = tempfile.mkdtemp(prefix="perftlab-mutants-")
    clean = run_stress(perftlab, ENGINE, args, a.cap * 4)
    if clean["detected"] or clean["why"] == "cap":
        print("the unmutated engine is not clean: %s" % clean, file=sys.stderr)
        return 2
    results = []
    for i in ids:
        text, change = mutate(source, all_sites[i])
        path = os.path.join(tmp, "mutant_%03d.py" % i)
        with open(path, "w") as f:
            f.write(text)
        r = run_stress(perftlab, path, args, a.cap)
        r.update({"id": i, "change": change})
        results.append(r)
        if not a.json:
            print("%3d %-9s %6.2f s  %s" % (i, "found" if r["detected"] else "SURVIVED", r["seconds"], change),
                  flush=True)
    found = [r for r in results if r["detected"]]
    times = [r["seconds"] for r in found]
    summary = {
        "flags": " ".join(args),
        "cap_seconds": a.cap,
        "mutants": len(results),
        "detected": len(found),
        "median_seconds": statistics.median(times) if times else None,
        "p90_seconds": percentile(times, 0.9),
        "survivors": [r for r in results if not r["detected"]],
        "results": results,
    }
    if a.json:
        print(json.dumps(summary))
    else:
        print("detected %d/%d (median %.2f s, p90 %.2f s) with %s, cap %g s" % (
            len(found), len(results), summary["median_seconds"] or 0, summary["p90_seconds"] or 0,
            summary["flags"], a.cap))
        for r in summary["survivors"]:
            print("survivor %d (%s): %s" % (r["id"], r["why"], r["change"]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
