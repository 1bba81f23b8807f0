#!/usr/bin/env python3
"""Drive web/dist/ in headless Chromium (selenium + chromedriver), for tests/web.rs and the WebGPU bench.

The page is served from a local static server (http.server on 127.0.0.1); every expected value comes from the
caller (tests/web.rs reads the CPW counts from tests/data/cpw-detail.csv and Stockfish's divide), so this script
only drives the page and compares. Exit 0: every check passed; 1: a check failed (the message says which);
2: usage or a missing tool.

  browser_test.py test --dist web/dist --cpw start=FEN:4:197281 --cpw kiwipete=FEN:4:4085603 \\
      --divide FEN:3:stockfish-output.txt --screenshot PNG [--webgpu]
  browser_test.py bench --dist web/dist --depth 5 --runs 3 --native target/release/perftlab
  browser_test.py probe --dist web/dist --runs 3     # each kernel's WebGPU pipeline build, timed
  browser_test.py wasm-ab --dist web/dist --baseline OTHER_DIST --depth 5 --runs 3   # two builds' CPU path
  browser_test.py latency --dist web/dist --runs 3   # WebGPU round trips of a trivial kernel (no perftlab code)
  browser_test.py cancel --dist web/dist --depth 8 --runs 5   # Cancel's delay on WebGPU (ms), median
  browser_test.py depth --dist web/dist              # only the checks of bad depths (the test runs them too)
"""
import argparse
import functools
import http.server
import json
import os
import re
import statistics
import subprocess
import sys
import threading
import time
import urllib.parse

try:
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service
    from selenium.webdriver.common.action_chains import ActionChains
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys
except ImportError as e:
    print(f"browser_test.py: selenium is missing ({e}): pip install selenium", file=sys.stderr)
    sys.exit(2)

CHROMIUM_FLAGS = os.environ.get("EXTRA_CHROMIUM_FLAGS", "").split() + ["--headless=new", "--no-sandbox", "--enable-unsafe-webgpu",
                  "--use-webgpu-adapter=swiftshader", "--window-size=1300,1400"]
START = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"
KIWIPETE = "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1"
# The test's bound on Cancel's delay on WebGPU (docs/web.md gives the measured medians, under 1 s): slack for
# the shared, loaded machines the test runs on.
CANCEL_BOUND_MS = 3000
# src/render/board.rs geometry (the page uses the same): left margin, top margin, square side.
LEFT, TOP, SQ = 22, 8, 50


class Failed(Exception):
    pass


def check(cond, what):
    if not cond:
        raise Failed(what)
    print(f"ok: {what}", flush=True)


def serve(dist):
    class Quiet(http.server.SimpleHTTPRequestHandler):
        extensions_map = {**http.server.SimpleHTTPRequestHandler.extensions_map,
                          ".wasm": "application/wasm", ".js": "text/javascript"}

        def log_message(self, *args):
            pass

    handler = functools.partial(Quiet, directory=dist)
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, f"http://127.0.0.1:{server.server_address[1]}/"


def browser():
    chromium = os.environ.get("CHROMIUM", "/usr/bin/chromium")
    driver = os.environ.get("CHROMEDRIVER", "/usr/bin/chromedriver")
    for path in (chromium, driver):
        if not os.access(path, os.X_OK):
            print(f"browser_test.py: {path} is missing (apt-get install chromium chromium-driver)", file=sys.stderr)
            sys.exit(2)
    opts = webdriver.ChromeOptions()
    opts.binary_location = chromium
    for f in CHROMIUM_FLAGS:
        opts.add_argument(f)
    return webdriver.Chrome(service=Service(executable_path=driver), options=opts)


class Page:
    def __init__(self, drv, base):
        self.d, self.base = drv, base

    def open(self, **params):
        self.d.get(self.base + "index.html" + ("?" + urllib.parse.urlencode(params) if params else ""))
        self.wait(lambda: self.text("status") not in ("", "loading"), 30, "the page to load")

    def el(self, id_):
        return self.d.find_element(By.ID, id_)

    def text(self, id_):
        return self.el(id_).text

    def wait(self, cond, timeout, what):
        end = time.time() + timeout
        while time.time() < end:
            if cond():
                return
            time.sleep(0.05)
        raise Failed(f"timed out after {timeout} s waiting for {what} (status '{self.text('status')}')")

    def finish(self, timeout):
        self.wait(lambda: self.text("status") != "running", timeout, "the run to finish")
        return self.text("status"), self.text("nodes")

    def run(self, timeout=300):
        self.el("run").click()
        return self.finish(timeout)

    def divide(self):
        rows = self.d.find_elements(By.CSS_SELECTOR, "#divide tbody tr")
        return {r.get_attribute("data-move"): r.find_elements(By.TAG_NAME, "td")[1].text for r in rows}

    def click_square(self, sq):
        svg = self.d.find_element(By.CSS_SELECTOR, "#board svg")
        w, h = float(svg.get_attribute("width")), float(svg.get_attribute("height"))
        f, r = ord(sq[0]) - 97, int(sq[1]) - 1
        x, y = LEFT + f * SQ + SQ / 2 - w / 2, TOP + (7 - r) * SQ + SQ / 2 - h / 2
        ActionChains(self.d).move_to_element_with_offset(svg, int(x), int(y)).click().perform()

    def set_fen(self, fen):
        box = self.el("fen")
        box.clear()
        box.send_keys(fen)
        self.el("set-fen").click()


def parse_stockfish(text):
    moves = {}
    for line in text.splitlines():
        m = re.match(r"^([a-h][1-8][a-h][1-8][nbrq]?): (\d+)$", line.strip())
        if m:
            moves[m.group(1)] = m.group(2)
    return moves


def page_state(page):
    """What a bad FEN must leave alone: the board, divide and analysis HTML, the node count and the URL."""
    return {k: page.d.execute_script(f"return {v}") for k, v in {
        "board": "document.getElementById('board').innerHTML",
        "divide": "document.getElementById('divide').innerHTML",
        "analysis": "document.getElementById('analysis').innerHTML",
        "nodes": "document.getElementById('nodes').textContent",
        "url": "location.href"}.items()}


def test(args, page):
    webgpu_built = page.d.execute_script("return document.getElementById('version').textContent.includes('webgpu')")
    has_gpu = page.d.execute_script("return !!navigator.gpu")
    check(has_gpu, "headless Chromium exposes navigator.gpu (WebGPU on SwiftShader)")
    if args.webgpu:
        check(webgpu_built, "the module is built with the WebGPU path")
    backends = ["wasm"] + (["webgpu"] if args.webgpu else [])
    if args.webgpu:
        # With WebGPU chosen the page opens the GPU as it loads (and queues the kernels' compilations), before
        # any Run: docs/web.md, "First result".
        page.open(fen=START, depth="4", backend="webgpu")
        page.wait(lambda: page.d.execute_script("return !!(window.__timings && window.__timings.gpu_open)"), 30,
                  "the page to open WebGPU at load")
        check(page.text("status") == "ready" and page.text("nodes") == "",
              f"the page opened WebGPU as it loaded, without counting "
              f"({page.d.execute_script('return Math.round(window.__timings.gpu_open)')} ms after navigation)")
        # Count there, which also waits for those compilations: the browser's GPU process finishes them even
        # after the page is left, and the next page would wait behind them.
        status, got = page.run(300)
        want = next((c.rsplit(":", 1)[1] for c in args.cpw if c.startswith(f"start={START}:4:")), None)
        check(status == "done" and (want is None or got == want),
              f"webgpu perft 4 of the start position, pressed after the page opened WebGPU: {got} ({status}),"
              f" CPW says {want}")
    # Perft of the CPW positions on each path, started by the URL (?run=1) and read off #nodes.
    for spec in args.cpw:
        name, rest = spec.split("=", 1)
        fen, depth, nodes = rest.rsplit(":", 2)
        for backend in backends:
            page.open(fen=fen, depth=depth, backend=backend, run="1")
            status, got = page.finish(300)
            note = page.text("backend-note")
            check(status == "done" and got == nodes,
                  f"{backend} perft {depth} of {name}: {got} ({status}), CPW says {nodes} [{note}]")
            if backend == "webgpu":
                check(note == "counting on WebGPU", f"the webgpu run counted on WebGPU, not a fallback ('{note}')")
                used = page.el("nps").get_attribute("data-kernels")
                check(sorted((used or "").split(",")) == ["count", "merge"],
                      f"a fresh page counted {name} to depth {depth} with the cheap kernels only: {used}")
                all_kernels(page)
            secs = page.el("nps").get_attribute("data-seconds")
            print(f"  {backend} {name} depth {depth}: {secs} s, first result "
                  f"{page.el('timing').get_attribute('data-ms')} ms after navigation", flush=True)
    # One divide against Stockfish's, then the compare: the same paste agrees, a paste without one move and
    # with one illegal move is highlighted on the board and in the table.
    fen, depth, path = args.divide.rsplit(":", 2)
    sf_text = open(path).read()
    sf = parse_stockfish(sf_text)
    page.open(fen=fen, depth=depth, backend="wasm", run="1")
    status, nodes = page.finish(120)
    check(status == "done" and page.divide() == sf,
          f"the divide of depth {depth} equals Stockfish's ({len(sf)} moves, {nodes} nodes)")
    page.el("paste").send_keys(sf_text)
    page.el("compare").click()
    check(page.el("compare-result").get_attribute("data-agree") == "true",
          f"compare with Stockfish's own divide agrees: {page.text('compare-result')!r}")
    dropped = sorted(sf)[0]
    buggy = "\n".join(f"{m}: {n}" for m, n in sf.items() if m != dropped) + "\ne2e5: 7\n"
    page.el("paste").clear()
    page.el("paste").send_keys(buggy)
    page.el("compare").click()
    result = page.text("compare-result")
    check(page.el("compare-result").get_attribute("data-agree") == "false" and dropped in result,
          f"compare with a paste missing {dropped} and holding e2e5 differs: {result!r}")
    check(page.d.find_elements(By.CSS_SELECTOR, f"#divide tr.missing[data-move='{dropped}']") and
          page.d.find_elements(By.CSS_SELECTOR, "#divide tr.extra[data-move='e2e5']"),
          "the missing and the extra move are highlighted in the divide table")
    check(page.d.find_elements(By.CSS_SELECTOR, f"#board polygon.arrow.missing[data-move='{dropped}']") and
          page.d.find_elements(By.CSS_SELECTOR, "#board polygon.arrow.extra[data-move='e2e5']"),
          "the missing and the extra move are drawn as arrows on the board")
    os.makedirs(os.path.dirname(os.path.abspath(args.screenshot)), exist_ok=True)
    page.d.execute_script("window.scrollTo(0, 0)")
    page.d.save_screenshot(args.screenshot)
    print(f"screenshot: {args.screenshot}", flush=True)
    # One analysis: Fool's mate (White is checkmated by the queen on h4: no legal move, in check).
    page.open(fen="rnb1kbnr/pppp1ppp/8/4p3/6Pq/5P2/PPPPP2P/RNBQKBNR w KQkq - 1 3", depth="1", backend="wasm")
    check(page.text("an-outcome") == "checkmate" and page.text("an-check") == "yes, by h4"
          and page.text("an-moves").startswith("0"),
          f"analysis of Fool's mate: outcome {page.text('an-outcome')!r}, check {page.text('an-check')!r}")
    check(page.text("an-dead").startswith("no"), f"Fool's mate is not a dead position: {page.text('an-dead')!r}")
    # Moves played on the board (click-click), and a bad FEN that changes nothing but the error text.
    page.open(fen=START, depth="2", backend="wasm")
    # The initial position is reachable without a game: it said "reachable by " with nothing after it.
    reach = page.text("an-reach")
    check(reach == "reachable (the game's initial position itself)",
          f"the initial position's reachability names no empty game: {reach!r}")
    page.click_square("e2")
    page.click_square("e4")
    after = "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e3 0 1"
    check(page.el("fen").get_attribute("value") == after and after in urllib.parse.unquote_plus(page.d.current_url),
          "e2 then e4 clicked on the board plays 1.e4 (FEN box and URL)")
    status, nodes = page.run()
    check(status == "done" and nodes == "600", f"perft 2 after 1.e4: {nodes} ({status}), 20 replies × 30 = 600")
    before = page_state(page)
    page.set_fen("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNX w KQkq - 0 1")
    err = page.text("fen-error")
    check("X" in err and page.text("status").startswith("error: "),
          f"a bad FEN shows the parser's error: {err!r}, status {page.text('status')!r}")
    after_bad = page_state(page)
    check(before == after_bad, "the bad FEN changed nothing else (board, divide, analysis, nodes, URL)")
    depth_checks(page)
    if args.webgpu:
        # Cancel at depth 7 answers within CANCEL_BOUND_MS every time (it took 28.7 s at depth 8 when a
        # unit of work could hold billions of leaves; now at most about 4 million: docs/web.md).
        ms = [cancel_once(page, 7) for _ in range(3)]
        check(max(ms) <= CANCEL_BOUND_MS,
              f"Cancel at depth 7 took {ms} ms (median {statistics.median(ms)}), bound {CANCEL_BOUND_MS} ms")


# Depths the page must refuse (docs/web.md, "Depth"): out of range, negative, fractional, exponent, empty, and
# one past the WebAssembly path's cap (10).
BAD_DEPTHS = ["83", "-2", "2.5", "1e1", "", "11", "0"]


def depth_checks(page):
    """A bad depth typed in the field or given in the URL shows an error and counts nothing (the status never
    says done); a good one typed afterwards counts (start position perft 2 = 400, 20 × 20)."""
    page.open(fen=START, depth="2", backend="wasm")
    box = page.el("depth")
    for bad in BAD_DEPTHS:
        box.clear()
        if bad:
            box.send_keys(bad)
        page.el("run").click()
        time.sleep(0.3)
        status, err = page.text("status"), page.text("depth-error")
        check(status.startswith("error: depth") and "from 1 to 10" in err and page.text("nodes") == ""
              and page.divide() == {},
              f"depth {bad!r} typed: refused ({status!r}, shown: {err!r}), nothing counted")
    box.clear()
    box.send_keys("2")
    status, nodes = page.run(60)
    check(status == "done" and nodes == "400" and page.text("depth-error") == "",
          f"depth '2' typed after them counts: {nodes} ({status})")
    for bad in BAD_DEPTHS:
        page.open(fen=START, depth=bad, backend="wasm", run="1")
        time.sleep(0.5)
        status = page.text("status")
        check(status.startswith("error: depth") and page.text("nodes") == "" and page.text("depth-error") != "",
              f"?depth={bad}&run=1 is refused ({status!r}), nothing counted")
    # WebGPU's cap is 8: depth 9 is refused there.
    page.open(fen=START, depth="9", backend="webgpu")
    check(page.text("status").startswith("error: depth") and "from 1 to 8" in page.text("depth-error"),
          f"?depth=9 on WebGPU is refused: {page.text('depth-error')!r}")


def cancel_once(page, depth, wait_s=3.0, timeout=60):
    """Open a page on WebGPU, let it compile every kernel, start perft `depth` of the start position, press
    Cancel after `wait_s` s and return Cancel's delay in ms (the page's own measure, press to 'cancelled')."""
    page.open(fen=START, depth=str(depth), backend="webgpu")
    all_kernels(page)
    page.el("run").click()
    page.wait(lambda: page.text("status") == "running", 30, "the count to start")
    time.sleep(wait_s)
    check(page.text("status") == "running", f"perft {depth} still running after {wait_s} s")
    t0 = time.time()
    page.el("cancel").click()
    status, nodes = page.finish(timeout)
    seen = time.time() - t0
    ms = page.el("nps").get_attribute("data-cancel-ms")
    check(status == "cancelled" and nodes == "" and ms is not None,
          f"Cancel stopped WebGPU perft {depth}: {status}, {ms} ms by the page, {seen:.2f} s seen by selenium")
    return int(ms)


def cancel(args, page):
    """Cancel's delay on WebGPU at --depth, --runs times (a fresh page each): every delay and the median."""
    ms = [cancel_once(page, args.depth) for _ in range(args.runs)]
    print(json.dumps({"depth": args.depth, "cancel_ms": ms, "median_ms": statistics.median(ms)}))


def all_kernels(page, timeout=300):
    """Wait until a WebGPU page has compiled every kernel (it compiles the others after its first count): a
    page left earlier would leave the browser compiling while the next one loads."""
    page.wait(lambda: page.d.execute_script("return !!window.__timings.all_kernels"), timeout,
              "the page to compile every kernel")


def fresh(page, backend, depth, fen=START, timeout=600):
    """Load a fresh page with ?run=1 and wait for its count; (status, nodes, first result ms, timings). A
    WebGPU page is left only once it has compiled every kernel."""
    page.open(fen=fen, depth=str(depth), backend=backend, run="1")
    status, nodes = page.finish(timeout)
    if status != "done":
        raise Failed(f"{backend} perft {depth}: {status} {nodes} {page.text('backend-note')}")
    if backend == "webgpu" and page.text("backend-note") != "counting on WebGPU":
        raise Failed(f"the webgpu run fell back: {page.text('backend-note')}")
    timings = page.d.execute_script("return window.__timings")
    if backend == "webgpu":
        all_kernels(page)
    return nodes, int(page.el("timing").get_attribute("data-ms")), timings


def native_run(native, depth):
    """`perftlab perft --backend gpu --depth N`: the process's wall time (device opening and pipeline builds
    included, like a fresh page) and the count's own time from its report."""
    t = time.time()
    out = subprocess.run([native, "perft", "--backend", "gpu", "--depth", str(depth)],
                         capture_output=True, text=True, check=True)
    wall = time.time() - t
    m = re.search(r"depth \d+: ([0-9.]+) s", out.stderr)
    return wall, float(m.group(1))


def bench(args, page):
    """Interleaved, --runs times, each in a freshly loaded page (so neither a compiled pipeline nor a table of
    an earlier count is kept): the first result of start position perft 4 on WebGPU and in WebAssembly (ms
    from navigation to `#status` = done), the native GPU backend's perft 4 process (--native, on lavapipe:
    wall time, opening and pipeline builds included), perft 4 on WebGPU pressed 5 s after the page loaded
    (its kernels compiled meanwhile: Run to done), and start position perft --depth on WebGPU (fresh page,
    count time with its kernels' compilation; then warm, in a page that has compiled every kernel and counted
    nothing, with the GPU time its timestamps give and its read-backs) against the native count. Medians."""
    r = {k: [] for k in ("web4_first_ms", "baseline_web4_first_ms", "wasm4_first_ms", "native4_wall_s",
                         "web4_after_wait_s", "web_s", "warm_s", "native_s", "gpu_open_ms", "module_ms",
                         "first_kernels_ms", "warm_gpu_ms", "warm_readbacks")}
    for i in range(args.runs):
        nodes, ms, t = fresh(page, "webgpu", 4)
        r["web4_first_ms"].append(ms)
        r["gpu_open_ms"].append(round(t.get("gpu_open", 0)))
        r["module_ms"].append(round(t.get("module", 0)))
        r["first_kernels_ms"].append(round(t.get("first_kernels", 0)))
        if args.baseline:
            # The same count on another build of the page (--baseline DIST), in the same run.
            other = Page(page.d, args.baseline_url)
            r["baseline_web4_first_ms"].append(fresh(other, "webgpu", 4)[1])
        nodes, ms, _ = fresh(page, "wasm", 4)
        r["wasm4_first_ms"].append(ms)
        if args.native:
            r["native4_wall_s"].append(native_run(args.native, 4)[0])
        # Pressed after 5 s on the page: the kernels of the position's count were compiled meanwhile.
        page.open(fen=START, depth="4", backend="webgpu")
        time.sleep(5)
        t = time.time()
        status, nodes4 = page.run(600)
        r["web4_after_wait_s"].append(time.time() - t)
        all_kernels(page)
        nodes, ms, _ = fresh(page, "webgpu", args.depth)
        r["web_s"].append(float(page.el("nps").get_attribute("data-seconds")))
        # Warm: a page that has compiled every kernel (and counted nothing, so no table answers).
        page.open(fen=START, depth=str(args.depth), backend="webgpu")
        all_kernels(page)
        status, nodes = page.run(600)
        if status != "done":
            raise Failed(f"warm webgpu run: {status} {nodes}")
        r["warm_s"].append(float(page.el("nps").get_attribute("data-seconds")))
        report = json.loads(page.d.execute_async_script(
            "const d = arguments[arguments.length - 1];"
            "window.__gpu().then((g) => g.report()).then(d).catch((e) => d(JSON.stringify({error: String(e)})))"))
        r["warm_gpu_ms"].append(round(sum(l.get("ms") or 0 for l in report.get("levels", [])), 1))
        r["warm_readbacks"].append(report.get("readbacks"))
        if args.native:
            r["native_s"].append(native_run(args.native, args.depth)[1])
        print(f"run {i}: " + ", ".join(f"{k} {v[-1]:.3f}" if isinstance(v[-1], float) else f"{k} {v[-1]}"
                                       for k, v in r.items() if v), flush=True)
    out = {"depth": args.depth, "nodes": nodes, "runs": r}
    out["medians"] = {k: statistics.median(v) for k, v in r.items() if v}
    print(json.dumps(out))


def wasm_ab(args, page):
    """The WebAssembly CPU path of two builds (--dist and --baseline, e.g. with and without SIMD128): start
    position perft --depth in a fresh page of each, interleaved, --runs times; the count's seconds, medians."""
    if not args.baseline:
        raise Failed("wasm-ab needs --baseline DIST")
    other = Page(page.d, args.baseline_url)
    a, b, counts = [], [], set()
    for i in range(args.runs):
        for pg, out in ((page, a), (other, b)):
            counts.add(fresh(pg, "wasm", args.depth)[0])
            out.append(float(pg.el("nps").get_attribute("data-seconds")))
        print(f"run {i}: dist {a[-1]:.3f} s, baseline {b[-1]:.3f} s", flush=True)
    if len(counts) != 1:
        raise Failed(f"the two builds counted differently: {sorted(counts)}")
    print(json.dumps({"depth": args.depth, "nodes": counts.pop(), "dist_s": a, "baseline_s": b,
                      "dist_median_s": statistics.median(a),
                      "baseline_median_s": statistics.median(b)}))


PROBE = """
const done = arguments[arguments.length - 1];
(async () => {
  const kernels = JSON.parse(window.__perftlab.kernel_sources());
  const adapter = await navigator.gpu.requestAdapter();
  const limits = {};
  for (const k in adapter.limits) if (typeof adapter.limits[k] === 'number') limits[k] = adapter.limits[k];
  let t = performance.now();
  const device = await adapter.requestDevice({ requiredLimits: limits });
  const out = [['device', performance.now() - t]];
  for (const k of kernels) {
    t = performance.now();
    const module = device.createShaderModule({ code: k.wgsl });
    await module.getCompilationInfo();
    out.push(['module ' + k.label, performance.now() - t]);
    t = performance.now();
    await device.createComputePipelineAsync({ layout: 'auto',
      compute: { module, entryPoint: 'main', constants: k.constants } });
    out.push(['pipeline ' + k.label, performance.now() - t]);
  }
  device.destroy();
  done(out);
})().catch((e) => done('error: ' + e));
"""


LATENCY = """
const done = arguments[arguments.length - 1];
(async () => {
  const adapter = await navigator.gpu.requestAdapter();
  const device = await adapter.requestDevice();
  const n = 40;
  const src = device.createBuffer({ size: 256, usage: GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_SRC });
  const module = device.createShaderModule({ code: `
    @group(0) @binding(0) var<storage, read_write> b: array<u32>;
    @compute @workgroup_size(64) fn main(@builtin(global_invocation_id) g: vec3<u32>) {
      if g.x < 64u { b[g.x] = b[g.x] + g.x; } }` });
  const pipeline = await device.createComputePipelineAsync({ layout: 'auto', compute: { module, entryPoint: 'main' } });
  const bind = device.createBindGroup({ layout: pipeline.getBindGroupLayout(0),
    entries: [{ binding: 0, resource: { buffer: src } }] });
  const out = {};
  const time = async (name, f) => {
    const v = [];
    for (let i = 0; i < n; i++) { const t = performance.now(); await f(); v.push(performance.now() - t); }
    v.sort((a, b) => a - b);
    out[name] = v[v.length >> 1];
  };
  await time('submit + onSubmittedWorkDone (empty)', async () => {
    device.queue.submit([device.createCommandEncoder().finish()]);
    await device.queue.onSubmittedWorkDone();
  });
  // Record `f(encoder)`, then a 16-byte copy into a mappable buffer; submit and await the map.
  const readBack = async (f) => {
    const st = device.createBuffer({ size: 16, usage: GPUBufferUsage.MAP_READ | GPUBufferUsage.COPY_DST });
    const e = device.createCommandEncoder();
    f(e);
    e.copyBufferToBuffer(src, 0, st, 0, 16);
    device.queue.submit([e.finish()]);
    await st.mapAsync(GPUMapMode.READ);
    st.unmap(); st.destroy();
  };
  const dispatch = (e) => {
    const p = e.beginComputePass(); p.setPipeline(pipeline); p.setBindGroup(0, bind); p.dispatchWorkgroups(1); p.end();
  };
  await time('copy 16 B + mapAsync + unmap', () => readBack(() => {}));
  await time('tiny dispatch + copy + mapAsync', () => readBack(dispatch));
  await time('10 tiny dispatches, one submit + mapAsync', () => readBack((e) => {
    for (let k = 0; k < 10; k++) dispatch(e);
  }));
  device.destroy();
  done(Object.entries(out));
})().catch((e) => done('error: ' + e));
"""


def page_runs(page, script, runs, line):
    """Run `script` (an async script that gives [[name, ms], …] or an error text) in a fresh page, `runs`
    times; the ms by name over the runs. `line(i, out)` is printed after each run."""
    page.d.set_script_timeout(600)
    times = {}
    for i in range(runs):
        page.open(backend="wasm")
        out = page.d.execute_async_script(script)
        if isinstance(out, str):
            raise Failed(out)
        for k, v in out:
            times.setdefault(k, []).append(v)
        print(line(i, out), flush=True)
    return times


def latency(args, page):
    """The browser's own WebGPU round trips on a trivial kernel (no perftlab code): an empty submit awaited,
    a 16-byte read-back (copy, submit, mapAsync), a one-workgroup dispatch read back, ten dispatches in one
    submit read back; each repeated 40 times in a fresh page, --runs pages; ms, medians of the per-page
    medians."""
    times = page_runs(page, LATENCY, args.runs,
                      lambda i, out: f"run {i}: " + ", ".join(f"{k} {v:.2f}" for k, v in out))
    print(json.dumps({k: statistics.median(v) for k, v in times.items()}))


def probe(args, page):
    """Where a WebGPU page's first count spends its time: each kernel's shader module and pipeline built on
    its own (createComputePipelineAsync, awaited), on a fresh device in a fresh page, --runs times; ms,
    medians."""
    times = page_runs(page, PROBE, args.runs, lambda i, out: f"run {i}: total {sum(v for _, v in out):.0f} ms")
    for k, v in times.items():
        print(f"{k:32} median {statistics.median(v):7.0f} ms  runs {' '.join(f'{x:.0f}' for x in v)}")
    print(json.dumps({k: statistics.median(v) for k, v in times.items()}))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("mode", choices=["test", "bench", "probe", "wasm-ab", "latency", "cancel", "depth"])
    ap.add_argument("--dist", required=True)
    ap.add_argument("--cpw", action="append", default=[])
    ap.add_argument("--divide")
    ap.add_argument("--screenshot", help="test: where to save the page's picture (required there)")
    ap.add_argument("--webgpu", action="store_true", help="also run the WebGPU path and require it")
    ap.add_argument("--depth", type=int, default=5)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--native")
    ap.add_argument("--baseline", help="bench: another web/dist whose WebGPU first result is measured too")
    args = ap.parse_args()
    if args.mode == "test" and not args.screenshot:
        print("browser_test.py: test needs --screenshot PNG (where to save the page's picture)", file=sys.stderr)
        sys.exit(2)
    if not os.path.isfile(os.path.join(args.dist, "index.html")):
        print(f"browser_test.py: {args.dist}/index.html is missing: run web/build.sh", file=sys.stderr)
        sys.exit(2)
    server, base = serve(args.dist)
    if args.baseline:
        baseline_server, args.baseline_url = serve(args.baseline)
    drv = browser()
    try:
        page = Page(drv, base)
        page.open(backend="wasm")  # (the default, WebGPU, would start compiling kernels at load)
        {"test": test, "bench": bench, "probe": probe, "wasm-ab": wasm_ab, "latency": latency, "cancel": cancel,
         "depth": lambda _args, pg: depth_checks(pg)}[args.mode](args, page)
    except Failed as e:
        print(f"FAILED: {e}", file=sys.stderr)
        sys.exit(1)
    finally:
        drv.quit()
        server.shutdown()


if __name__ == "__main__":
    main()
