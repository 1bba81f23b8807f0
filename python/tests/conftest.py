"""Shared helpers of the perftlab Python tests: the repository's data (the crate's suites in data/, the tests'
own files in tests/data/; sources in each folder's README.md) and python-chess as the independent second
opinion."""

import os
import pathlib

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
DATA = ROOT / "tests" / "data"
SUITES = ROOT / "data"
CI = os.environ.get("CI") == "true"


def need(module):
    """Import `module`, or skip (fail under CI=true) when it is not installed."""
    try:
        return __import__(module)
    except ImportError:
        if CI:
            raise
        pytest.skip(f"{module} is not installed")


def epd(name, max_nodes):
    """(fen, depth, count) of an EPD suite (`FEN ;D1 n ;D2 n ...`) with count <= max_nodes."""
    out = []
    for line in (SUITES / name).read_text().splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        fen, *depths = line.split(";")
        for d in depths:
            depth, count = d.split()
            if int(count) <= max_nodes:
                out.append((fen.strip(), int(depth[1:]), int(count)))
    return out


def labelled(name):
    """(label, fen) lines of a `LABEL FEN` file, comments skipped."""
    out = []
    for line in (DATA / name).read_text().splitlines():
        if line.strip() and not line.startswith("#"):
            label, fen = line.split(" ", 1)
            out.append((label, fen.strip()))
    return out
