// perftlab's page: the glue between index.html and the WebAssembly module (web/src/, docs/web.md).
// State lives in the URL (?fen=&depth=&backend=webgpu|wasm&chess960=1&run=1); results go to #nodes (digits
// only) and #status (ready, running, done, cancelled, error: …) for scripts and tests.
import init, * as wasm from './perftlab_web.js';

const START = 'rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1';
// Geometry of perftlab::render::board (src/render/board.rs): left margin, top margin, square side.
const LEFT = 22, TOP = 8, SQ = 50;
const HASH_MB = 64;
// The deepest count the page starts, per path (docs/web.md, "Depth"): the WebAssembly path counts on one thread
// at about a billion nodes a second (start position perft 7 in 3.6 s), so perft 10 of the start position runs
// about a day, and its Cancel answers only between root moves; deeper counts would not end in a tab's life.
// On WebGPU a count is cut into units of at most about 4 million leaves (Cancel within a second), but into at
// most 65,536 units (planner::MAX_UNITS): beyond about 2.7 × 10^11 leaves (start position perft 9) the units,
// and Cancel's delay, grow; SwiftShader counts about 8 million leaves a second, so perft 8 is hours already.
const MAX_DEPTH = { wasm: 10, webgpu: 8 };
const $ = (id) => document.getElementById(id);

const state = { fen: START, depth: 4, backend: 'webgpu', chess960: false, lastMove: null };
let analysis = null;      // the current position's analysis (JSON of `perftlab analyze --json`)
let divide = new Map();   // move → count (BigInt) of the last run
let marks = {};           // compare marks drawn on the board
let job = null;           // the run in progress: { cancelled }
let selected = null;      // the square clicked first
let gpu = null;           // the promise of the WebGPU counter, opened once (at load when WebGPU is chosen)
let firstResult = true;

function setStatus(s) { $('status').textContent = s; }

// A depth typed in the field or the URL: a whole number from 1 to the chosen path's MAX_DEPTH, written in
// digits only (83, -2, 2.5, 1e1 and an empty field are refused). { depth } or { error }.
function parseDepth(text, backend) {
  const max = MAX_DEPTH[backend];
  const t = String(text).trim();
  const why = backend === 'webgpu' ? 'on WebGPU' : 'in WebAssembly';
  if (t === '') return { error: `depth: the field is empty (or not a number): give a whole number from 1 to ${max}` };
  if (!/^\d+$/.test(t) || Number(t) < 1 || Number(t) > max) {
    return { error: `depth: '${t}' is not a whole number from 1 to ${max} (the deepest count the page runs ${why})` };
  }
  return { depth: Number(t) };
}

// The depth field read again (as run and compare do): a bad one is shown under it and in #status.
function depthFromField() {
  const r = parseDepth($('depth').value, state.backend);
  $('depth-error').textContent = r.error || '';
  if (r.error) setStatus('error: ' + r.error);
  else state.depth = r.depth;
  return !r.error;
}

function writeUrl() {
  const p = new URLSearchParams();
  p.set('fen', state.fen);
  p.set('depth', String(state.depth));
  p.set('backend', state.backend);
  if (state.chess960) p.set('chess960', '1');
  history.replaceState(null, '', '?' + p.toString());
}

let badDepth = null; // a refused ?depth=, shown in the field (so Run refuses it too)

function readUrl() {
  const p = new URLSearchParams(location.search);
  const errors = [];
  if (p.has('fen')) {
    try { state.fen = wasm.normalize_fen(p.get('fen')); } catch (e) { errors.push('fen: ' + e.message); }
  }
  if (p.has('backend')) {
    const b = p.get('backend');
    if (b === 'webgpu' || b === 'wasm') state.backend = b;
    else errors.push(`backend: '${b}' is not webgpu or wasm`);
  }
  if (p.has('depth')) {
    const r = parseDepth(p.get('depth'), state.backend);
    if (r.error) { errors.push(r.error); badDepth = p.get('depth'); } else state.depth = r.depth;
  }
  state.chess960 = p.get('chess960') === '1';
  return { errors, run: p.get('run') === '1' };
}

function showControls() {
  $('fen').value = state.fen;
  $('depth').value = state.depth;
  $('depth').max = MAX_DEPTH[state.backend];
  $('backend').value = state.backend;
  $('chess960').checked = state.chess960;
}

// ---- the board ----
function drawBoard() {
  const m = { ...marks, last_move: state.lastMove || undefined, caption: state.fen };
  $('board').innerHTML = wasm.board(state.fen, JSON.stringify(m));
  if (selected) {
    const svg = $('board').querySelector('svg');
    const f = selected.charCodeAt(0) - 97, r = Number(selected[1]) - 1;
    const rect = document.createElementNS('http://www.w3.org/2000/svg', 'rect');
    Object.entries({ x: LEFT + f * SQ, y: TOP + (7 - r) * SQ, width: SQ, height: SQ, fill: 'none',
      stroke: '#2563eb', 'stroke-width': 4, class: 'selected', 'data-square': selected })
      .forEach(([k, v]) => rect.setAttribute(k, v));
    svg.appendChild(rect);
  }
}

function squareAt(evt) {
  const svg = $('board').querySelector('svg');
  const pt = svg.createSVGPoint();
  pt.x = evt.clientX; pt.y = evt.clientY;
  const p = pt.matrixTransform(svg.getScreenCTM().inverse());
  const f = Math.floor((p.x - LEFT) / SQ), r = 7 - Math.floor((p.y - TOP) / SQ);
  if (f < 0 || f > 7 || r < 0 || r > 7) return null;
  return String.fromCharCode(97 + f) + (r + 1);
}

function onBoardClick(evt) {
  if (job || !analysis || !analysis.valid) return;
  const sq = squareAt(evt);
  if (!sq) return;
  const moves = analysis.legal_moves;
  if (selected) {
    // A promotion is made to a queen (type the move in the FEN box's position otherwise).
    const cands = moves.filter((m) => m.startsWith(selected + sq));
    const mv = cands.find((m) => m.length === 4 || m.endsWith('q'));
    selected = null;
    if (mv) { playMove(mv); return; }
  }
  if (moves.some((m) => m.startsWith(sq))) selected = sq;
  drawBoard();
}

function playMove(mv) {
  try {
    const fen = wasm.play(state.fen, mv);
    setPosition(fen, mv);
  } catch (e) {
    setStatus('error: ' + e.message);
  }
}

// ---- position, analysis ----
function setPosition(fen, lastMove = null) {
  state.fen = fen;
  state.lastMove = lastMove;
  selected = null;
  marks = {};
  divide = new Map();
  $('fen').value = fen;
  $('fen-error').textContent = '';
  $('nodes').textContent = '';
  $('nps').textContent = '';
  $('progress').value = 0;
  $('compare-result').textContent = '';
  renderDivide();
  analyze();
  drawBoard();
  writeUrl();
  setStatus('ready');
  prepareGpu();
}

function add(dl, term, text) {
  const dt = document.createElement('dt'); dt.textContent = term;
  const dd = document.createElement('dd'); dd.textContent = text;
  dl.append(dt, dd);
  return dd;
}

function sideText(r) {
  if (r.helpmate && r.helpmate.length === 0) return `${r.result} (the other side is checkmated)`;
  if (r.helpmate) return `${r.result}: helpmate ${r.helpmate.join(' ')}`;
  return `${r.result}${r.reason ? ' (' + r.reason + ')' : ''}`;
}

function analyze() {
  const dl = $('analysis');
  dl.textContent = '';
  try {
    analysis = JSON.parse(wasm.analyze(state.fen, state.chess960));
  } catch (e) {
    analysis = null;
    add(dl, 'error', e.message);
    return;
  }
  const a = analysis;
  add(dl, 'valid', a.valid ? 'yes' : 'no').id = 'an-valid';
  a.errors.forEach((e) => add(dl, 'error', e).classList.add('an-error'));
  a.warnings.forEach((w) => add(dl, 'warning', w).classList.add('an-warning'));
  add(dl, 'side to move', a.side_to_move);
  if (!a.valid) return;
  add(dl, 'in check', a.in_check ? 'yes, by ' + a.checkers.join(' ') : 'no').id = 'an-check';
  add(dl, 'pinned', a.pinned.join(' ') || 'none').id = 'an-pinned';
  add(dl, 'legal moves', `${a.legal_moves.length}: ${a.san.join(' ')}`).id = 'an-moves';
  add(dl, 'outcome', a.outcome || 'none (game goes on)').id = 'an-outcome';
  if (a.claimable.length) add(dl, 'claimable', a.claimable.join(' '));
  if (a.reachability) {
    const r = a.reachability;
    // As the CLI's analyze words it: the initial position needs no game, a proof follows a colon (it may hold
    // parentheses of its own).
    const detail = r.game
      ? (r.game.length ? ' by ' + r.game.join(' ') : " (the game's initial position itself)")
      : r.proof ? ': ' + r.proof : '';
    add(dl, 'reachability', r.result + detail).id = 'an-reach';
  }
  if (a.winnable) {
    add(dl, 'white can mate', sideText(a.winnable.white)).id = 'an-white';
    add(dl, 'black can mate', sideText(a.winnable.black)).id = 'an-black';
    const dead = a.dead === true ? `yes (${a.dead_reason || ''})` : a.dead === false ? 'no' : 'undetermined';
    add(dl, 'dead position', dead).id = 'an-dead';
  }
}

// ---- divide table ----
function renderDivide(comparison = null) {
  const tbody = $('divide').querySelector('tbody');
  tbody.textContent = '';
  const theirs = comparison ? comparison.pasted : null;
  $('pasted-head').textContent = theirs ? 'pasted' : '';
  const rows = new Map(divide);
  if (theirs) for (const m of Object.keys(theirs)) if (!rows.has(m)) rows.set(m, null);
  for (const [m, n] of [...rows.entries()].sort((a, b) => a[0].localeCompare(b[0]))) {
    const tr = document.createElement('tr');
    tr.dataset.move = m;
    const cells = [m, n === null ? '' : String(n)];
    if (theirs) cells.push(theirs[m] === undefined ? '' : theirs[m]);
    for (const c of cells) { const td = document.createElement('td'); td.textContent = c; tr.append(td); }
    if (comparison) {
      if (comparison.missing.includes(m)) tr.className = 'missing';
      else if (comparison.extra.includes(m)) tr.className = 'extra';
      else if (comparison.wrong_counts.some((w) => w.move === m)) tr.className = 'wrong';
    }
    tbody.append(tr);
  }
}

// ---- counting ----
function yieldToBrowser() { return new Promise((r) => setTimeout(r, 0)); }

function progress(done, total, nodes, t0) {
  $('progress').max = Math.max(total, 1);
  $('progress').value = done;
  const s = (performance.now() - t0) / 1000;
  if (s > 0) $('nps').textContent = `${(Number(nodes) / s / 1e6).toFixed(2)} M nodes/s, ${s.toFixed(2)} s`;
}

// Times in ms since the navigation started, for scripts and the bench (web/browser_test.py): module (the
// wasm module initialised), gpu_open (the WebGPU counter opened), first_kernels (the kernels of the first
// count compiled), first_result (the first count done), all_kernels (every kernel compiled).
window.__timings = {};

// ---- pipelines compiled off the GPU process's thread ----
// wgpu (the library's GPU layer) has only WebGPU's synchronous createComputePipeline, which Chromium runs
// in its GPU process: nothing else runs there while SwiftShader compiles a kernel (0.01–3 s each). So the page
// compiles the kernels itself with createComputePipelineAsync, on the device wgpu opened, and answers wgpu's
// createComputePipeline of a compiled kernel (same label and WGSL) with that pipeline. A kernel not
// compiled yet is created as before. The library plans around the kernels not built (docs/web.md).
let gpuDevice = null;             // the GPUDevice wgpu opened
const shaderCode = new WeakMap(); // GPUShaderModule → its WGSL
const compiled = new Map();       // label + WGSL → compiled GPUComputePipeline
const compiling = new Map();      // kernel index → promise of its compilation
let kernelList = null;            // [{label, wgsl, constants}] by kernel index (wasm.kernel_sources())
const pipelineKey = (label, code) => label + '\n' + code;

function hookDevice(device) {
  gpuDevice = device;
  const createModule = device.createShaderModule.bind(device);
  device.createShaderModule = (desc) => {
    const m = createModule(desc);
    shaderCode.set(m, desc.code);
    return m;
  };
  const createPipeline = device.createComputePipeline.bind(device);
  device.createComputePipeline = (desc) =>
    compiled.get(pipelineKey(desc.label, shaderCode.get(desc.compute.module))) || createPipeline(desc);
}

// Only the device requested while the library opens its counter is hooked (a script's own device is not).
let capturing = false;
if (globalThis.GPUAdapter) {
  const requestDevice = GPUAdapter.prototype.requestDevice;
  GPUAdapter.prototype.requestDevice = async function (...args) {
    const hook = capturing && !gpuDevice;
    const device = await requestDevice.apply(this, args);
    if (hook) hookDevice(device);
    return device;
  };
}

// Compile kernel `i` (an index of wasm.kernel_sources()) once; the promise settles when it is compiled and
// adopted by the library (or failed: the library then builds it itself at its first use).
function compileKernel(g, i) {
  if (!compiling.has(i)) {
    const k = kernelList[i];
    const module = gpuDevice.createShaderModule({ label: k.label, code: k.wgsl });
    compiling.set(i, gpuDevice.createComputePipelineAsync({
      label: k.label, layout: 'auto', compute: { module, entryPoint: 'main', constants: k.constants },
    }).then((p) => {
      compiled.set(pipelineKey(k.label, k.wgsl), p);
      if (!job) g.adopt(i);
    }).catch(() => {}));
  }
  return compiling.get(i);
}

// The kernels of the first counts, all at once; the promise settles when they are compiled.
function compileFirst(g) {
  return Promise.all(kernelOrder[0].map((i) => compileKernel(g, i))).then(() => {
    window.__timings.first_kernels ??= performance.now();
  });
}

// The other kernels, one after another (a core stays free for the page), from when this is first called.
let restStarted = false;
function compileRest(g) {
  if (restStarted) return;
  restStarted = true;
  kernelOrder[1].reduce((p, i) => p.then(() => compileKernel(g, i)), compileFirst(g))
    .then(() => { window.__timings.all_kernels = performance.now(); });
}

let kernelOrder = [[], []];

function gpuCounter() {
  if (!gpu) {
    gpu = (async () => {
      if (!wasm.has_webgpu()) throw new Error('this build of the page has no WebGPU path');
      if (!navigator.gpu) throw new Error('this browser has no WebGPU (navigator.gpu is missing)');
      capturing = true;
      let g;
      try { g = await wasm.GpuCounter.open(); } finally { capturing = false; }
      window.__timings.gpu_open = performance.now();
      if (gpuDevice) {
        kernelList = JSON.parse(wasm.kernel_sources());
        kernelOrder = g.kernel_order();
        compileFirst(g);
      }
      return g;
    })();
  }
  return gpu;
}

// WebGPU chosen and no count running: compile the kernels, the first ones, then the rest (docs/web.md,
// "First result").
let autorunPending = false; // a ?run=1 count is about to start: the other kernels wait until it is done
function prepareGpu() {
  if (state.backend !== 'webgpu' || !navigator.gpu || !wasm.has_webgpu() || job || autorunPending) return;
  gpuCounter().then((g) => { if (!job) compileRest(g); }).catch(() => {});
}

async function runWasm(j, t0) {
  const c = new wasm.Counter(state.fen, state.depth, state.chess960, HASH_MB);
  try {
    const total = c.moves();
    for (;;) {
      if (j.cancelled) return false;
      const r = c.step();
      if (!r) break;
      divide.set(r[0], BigInt(r[1]));
      renderDivide();
      progress(c.done(), total, c.total(), t0);
      await yieldToBrowser();
    }
    $('nodes').textContent = c.total();
    return true;
  } finally {
    c.free();
  }
}

async function runGpu(g, j, t0) {
  let rows;
  try {
    // The first kernels compiled (the library counts with them alone while the others are not built), and
    // every kernel compiled so far adopted (one finished during an earlier count was not).
    if (gpuDevice) {
      await compileFirst(g);
      for (const [i, k] of kernelList.entries()) if (compiled.has(pipelineKey(k.label, k.wgsl))) g.adopt(i);
    }
    rows = await g.divide(state.fen, state.depth, state.chess960, (done, total, nodes) => {
      progress(done, total, nodes, t0);
      return j.cancelled;
    });
  } catch (e) {
    if (j.cancelled) return false;
    throw e;
  }
  if (j.cancelled) return false;
  // The kernels built when the count ended (scripts check that a fresh page's small count used the cheap ones).
  $('nps').dataset.kernels = g.built().join(',');
  let sum = 0n;
  for (const [m, n] of rows) { divide.set(m, BigInt(n)); sum += BigInt(n); }
  if (state.depth === 0) sum = 1n;
  renderDivide();
  $('nodes').textContent = String(sum);
  return true;
}

async function run() {
  if (job || !depthFromField()) return;
  const j = { cancelled: false };
  job = j;
  divide = new Map(); marks = {};
  renderDivide(); drawBoard();
  $('nodes').textContent = ''; $('nps').textContent = ''; $('progress').value = 0;
  delete $('nps').dataset.cancelMs;
  $('compare-result').textContent = '';
  $('run').disabled = true; $('cancel').disabled = false;
  setStatus('running');
  let t0 = performance.now();
  try {
    let ok;
    let g = null;
    if (state.backend === 'webgpu') {
      try {
        // Opening the device and building the pipelines (first run only) is timed apart from the count.
        g = await gpuCounter();
        $('nps').dataset.openSeconds = String((performance.now() - t0) / 1000);
        t0 = performance.now();
        $('backend-note').textContent = 'counting on WebGPU';
      } catch (e) {
        $('backend-note').textContent = `WebGPU unavailable (${e.message}): counting in WebAssembly on the CPU instead`;
      }
    } else {
      $('backend-note').textContent = 'counting in WebAssembly on the CPU';
    }
    ok = g ? await runGpu(g, j, t0) : await runWasm(j, t0);
    const s = (performance.now() - t0) / 1000;
    if (ok) {
      const n = Number($('nodes').textContent);
      $('nps').textContent = `${(n / Math.max(s, 1e-6) / 1e6).toFixed(2)} M nodes/s, ${s.toFixed(3)} s`;
      $('progress').value = $('progress').max;
      $('nps').dataset.seconds = String(s);
      if (firstResult) {
        // performance.now() counts from the navigation's start: the time to the first result of a ?run=1 link.
        const ms = Math.round(performance.now());
        window.__timings.first_result = ms;
        $('timing').textContent = `first result ${ms} ms after the page started loading`;
        $('timing').dataset.ms = String(ms);
      }
      setStatus('done');
    } else {
      // How long Cancel took to stop the count (scripts and the browser test read it; docs/web.md).
      if (j.cancelAt !== undefined) $('nps').dataset.cancelMs = String(Math.round(performance.now() - j.cancelAt));
      setStatus('cancelled');
    }
    firstResult = false;
  } catch (e) {
    setStatus('error: ' + (e && e.message ? e.message : String(e)));
  } finally {
    job = null;
    autorunPending = false;
    $('run').disabled = false; $('cancel').disabled = true;
  }
  // After the first count the other kernels compile, for later, deeper counts.
  prepareGpu();
}

// ---- compare ----
function compare() {
  if (job || !depthFromField()) return;
  try {
    const c = JSON.parse(wasm.compare_pasted(state.fen, state.depth, $('paste').value, state.chess960));
    const pasted = {};
    for (const line of $('paste').value.split('\n')) {
      const m = line.trim().match(/^([a-h][1-8][a-h][1-8][nbrq]?):\s*(\d+)$/);
      if (m) pasted[m[1]] = m[2];
    }
    if (divide.size === 0) {
      // Show perftlab's side of the comparison: the divide diff counted it on the CPU path.
      const cn = new wasm.Counter(state.fen, state.depth, state.chess960, HASH_MB);
      try { for (let r; (r = cn.step());) divide.set(r[0], BigInt(r[1])); $('nodes').textContent = cn.total(); }
      finally { cn.free(); }
    }
    const root = c.path.length === 0;
    marks = root ? { missing: c.missing, extra: c.extra } : {};
    renderDivide({ ...c, pasted, wrong_counts: root ? c.wrong_counts : [] });
    drawBoard();
    const lines = [c.agree ? `agree: ${c.nodes} nodes` : `differ: pasted ${c.engine_nodes}, perftlab ${c.nodes}`];
    if (c.missing.length) lines.push('missing (legal, not in the paste): ' + c.missing.join(' '));
    if (c.extra.length) lines.push('extra (in the paste, not legal): ' + c.extra.join(' '));
    for (const w of c.wrong_counts) lines.push(`wrong count ${w.move}: pasted ${w.engine}, perftlab ${w.perftlab}`);
    if (c.engine_error) lines.push(c.engine_error);
    $('compare-result').textContent = lines.join('\n');
    $('compare-result').dataset.agree = String(c.agree);
  } catch (e) {
    $('compare-result').textContent = 'error: ' + e.message;
  }
}

// ---- wiring ----
function setFenFromBox() {
  let fen;
  try {
    fen = wasm.normalize_fen($('fen').value);
  } catch (e) {
    // A bad FEN changes nothing but the error text.
    $('fen-error').textContent = e.message;
    setStatus('error: ' + e.message);
    return;
  }
  if (job) return;
  setPosition(fen);
}

async function main() {
  await init();
  window.__timings.module = performance.now();
  $('version').textContent = wasm.version();
  const { errors, run: autorun } = readUrl();
  autorunPending = autorun && !errors.length;
  // Open WebGPU first, so the first kernels compile while the page analyses and draws the position.
  if (state.backend === 'webgpu' && navigator.gpu && wasm.has_webgpu()) gpuCounter().catch(() => {});
  showControls();
  setPosition(state.fen);
  if (badDepth !== null) {
    $('depth').value = badDepth;
    depthFromField();
  }
  if (errors.length) {
    $('fen-error').textContent = errors.join('\n');
    setStatus('error: ' + errors.join('; '));
  }
  if (!navigator.gpu) {
    $('backend-note').textContent = 'this browser has no WebGPU: runs count in WebAssembly on the CPU';
  } else if (!wasm.has_webgpu()) {
    $('backend-note').textContent = 'this build of the page has no WebGPU path: runs count in WebAssembly on the CPU';
  }
  $('set-fen').onclick = setFenFromBox;
  $('fen').addEventListener('keydown', (e) => { if (e.key === 'Enter') setFenFromBox(); });
  $('start-pos').onclick = () => { if (!job) setPosition(START); };
  // A bad depth stays in the field, with its error: Run and Compare refuse it until it is fixed.
  const depthChanged = () => {
    $('depth').max = MAX_DEPTH[state.backend];
    if (depthFromField()) { writeUrl(); if (!job) setStatus('ready'); prepareGpu(); }
  };
  $('depth').onchange = depthChanged;
  $('backend').onchange = () => { state.backend = $('backend').value; depthChanged(); };
  $('chess960').onchange = () => { state.chess960 = $('chess960').checked; setPosition(state.fen); };
  $('run').onclick = run;
  $('cancel').onclick = () => { if (job && !job.cancelled) { job.cancelled = true; job.cancelAt = performance.now(); } };
  $('compare').onclick = compare;
  $('board').addEventListener('click', onBoardClick);
  // Scripts (the pipeline probe of web/browser_test.py) reach the module's exports here.
  window.__perftlab = wasm;
  if (autorun && !errors.length) run();
  else prepareGpu();
  // Scripts read the library's built kernels and GPU work report here.
  window.__gpu = () => gpu;
}

main().catch((e) => setStatus('error: ' + (e && e.message ? e.message : String(e))));
