#!/usr/bin/env python3
"""Check that a wasm-bindgen module's `__wbindgen_externrefs` export is an externref table (web/build.sh runs it
after wasm-opt: binaryen 108 re-points that export at the function table, which breaks the page).

  externref_check.py MODULE.wasm     exit 0: the export is an externref table (or there is no such export);
                                     1: it is not (the message says what it is); 2: not a wasm module.
"""
import sys


def leb(b, i):
    r = s = 0
    while True:
        x = b[i]
        i += 1
        r |= (x & 0x7F) << s
        s += 7
        if x < 0x80:
            return r, i


def limits(b, i):
    flags = b[i]
    _, i = leb(b, i + 1)
    if flags & 1:
        _, i = leb(b, i)
    return i


def main(path):
    b = open(path, "rb").read()
    if b[:4] != b"\0asm":
        print(f"externref_check.py: {path} is not a wasm module", file=sys.stderr)
        return 2
    tables, export = [], None  # element type of each table (imported ones first), the export's table index
    i = 8
    while i < len(b):
        sid, (n, j) = b[i], leb(b, i + 1)
        k = j
        if sid == 2:  # imports: tables count first
            cnt, k = leb(b, k)
            for _ in range(cnt):
                for _ in range(2):
                    ln, k = leb(b, k)
                    k += ln
                kind = b[k]
                k += 1
                if kind == 0:
                    _, k = leb(b, k)
                elif kind == 1:
                    tables.append(b[k])
                    k = limits(b, k + 1)
                elif kind == 2:
                    k = limits(b, k)
                elif kind == 3:
                    k += 2
                else:
                    _, k = leb(b, k + 1)
        elif sid == 4:
            cnt, k = leb(b, k)
            for _ in range(cnt):
                tables.append(b[k])
                k = limits(b, k + 1)
        elif sid == 7:
            cnt, k = leb(b, k)
            for _ in range(cnt):
                ln, k = leb(b, k)
                name = b[k:k + ln].decode("utf-8", "replace")
                k += ln
                kind = b[k]
                idx, k = leb(b, k + 1)
                if kind == 1 and name == "__wbindgen_externrefs":
                    export = idx
        i = j + n
    if export is None:
        return 0
    if export >= len(tables) or tables[export] != 0x6F:
        what = f"element type 0x{tables[export]:02x}" if export < len(tables) else "missing"
        print(f"externref_check.py: {path}: export __wbindgen_externrefs is table {export} ({what}), "
              "not an externref table (0x6f)", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    if len(sys.argv) != 2:
        print(__doc__, file=sys.stderr)
        sys.exit(2)
    sys.exit(main(sys.argv[1]))
