//! The page (`web/`, docs/web.md) in a real browser: builds `web/dist` with `web/build.sh` (or takes
//! `PERFTLAB_WEB_DIST`), serves it from a local static server and drives headless Chromium through selenium
//! and chromedriver (`web/browser_test.py`): perft 4 of the six CPW positions on the WebAssembly
//! CPU path and, when the library has the async GPU API, on WebGPU (SwiftShader), read off `#nodes` (and
//! that a WebGPU page opens the GPU as it loads, before any Run); one
//! divide against Stockfish's `go perft`, the compare of a pasted divide (agreeing, then with a missing and
//! an extra move highlighted), one analysis, a move played by clicking the board, and a bad FEN that changes
//! nothing but the error text. Saves a screenshot under cargo's test temporary folder
//! (`target/tmp/web-screenshot.png`; the tracked `docs/web-screenshot.png` is refreshed by hand, docs/web.md).
//!
//! Also runs the page crate's own unit tests (`web/src/*.rs`, e.g. the pasted-divide reader) natively:
//! the crate is standalone, so the root's `cargo test` would never build them otherwise.
//!
//! Expected counts: the Chess Programming Wiki's "Perft Results" (src/cpw.rs, tests/data/cpw-detail.csv); the divide:
//! Stockfish's. With `CI=true` a missing chromium, chromedriver, selenium, wasm-bindgen or Stockfish fails the
//! test (`.ci/run` installs them); elsewhere the test skips, saying what is missing.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn ci() -> bool {
    std::env::var("CI").is_ok_and(|v| v == "true")
}

/// The first of `candidates` (or `name` on PATH) that exists.
fn find(name: &str, candidates: &[&str]) -> Option<PathBuf> {
    std::env::var_os("PATH")
        .into_iter()
        .flat_map(|p| std::env::split_paths(&p).collect::<Vec<_>>())
        .map(|d| d.join(name))
        .chain(candidates.iter().map(PathBuf::from))
        .find(|p| p.is_file())
}

/// The CPW count of `position` at `depth` (tests/data/cpw-detail.csv) and the position's FEN.
fn cpw(position: &str, depth: u32) -> (String, String) {
    let text = std::fs::read_to_string(root().join("tests/data/cpw-detail.csv")).unwrap();
    text.lines()
        .filter(|l| !l.starts_with('#'))
        .map(|l| l.split(',').collect::<Vec<_>>())
        .find(|f| f[0] == position && f[2] == depth.to_string())
        .map(|f| (f[1].to_string(), f[3].to_string()))
        .unwrap_or_else(|| panic!("{position} depth {depth} is not in cpw-detail.csv"))
}

/// Stockfish's `go perft` output for `fen` at `depth`.
fn stockfish_divide(stockfish: &Path, fen: &str, depth: u32) -> String {
    use std::io::Write;
    let mut child = Command::new(stockfish)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("stockfish starts");
    write!(
        child.stdin.take().unwrap(),
        "position fen {fen}\ngo perft {depth}\nquit\n"
    )
    .unwrap();
    let out = child.wait_with_output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(text.contains("Nodes searched:"), "stockfish said: {text}");
    text
}

#[test]
fn the_page_counts_divides_analyses_and_refuses_a_bad_fen_in_headless_chromium() {
    let chromium = std::env::var_os("CHROMIUM")
        .map(PathBuf::from)
        .or_else(|| find("chromium", &["/usr/bin/chromium"]));
    let driver = std::env::var_os("CHROMEDRIVER")
        .map(PathBuf::from)
        .or_else(|| find("chromedriver", &["/usr/bin/chromedriver"]));
    let selenium = Command::new("python3")
        .args(["-c", "import selenium"])
        .output()
        .is_ok_and(|o| o.status.success());
    let prebuilt = std::env::var_os("PERFTLAB_WEB_DIST").map(PathBuf::from);
    let bindgen = prebuilt.is_some() || find("wasm-bindgen", &[]).is_some();
    let stockfish = find("stockfish", &["/usr/games/stockfish"]);
    let mut missing = Vec::new();
    for (ok, what) in [
        (chromium.is_some(), "chromium (apt-get install chromium)"),
        (
            driver.is_some(),
            "chromedriver (apt-get install chromium-driver)",
        ),
        (selenium, "python3's selenium (pip install selenium)"),
        (
            bindgen,
            "wasm-bindgen (cargo install wasm-bindgen-cli --version 0.2.130)",
        ),
        (stockfish.is_some(), "stockfish (apt-get install stockfish)"),
    ] {
        if !ok {
            missing.push(what);
        }
    }
    if !missing.is_empty() {
        assert!(
            !ci(),
            "CI=true and the browser test cannot run, missing: {missing:?} (.ci/run installs them)"
        );
        eprintln!("skipped: the browser test needs {missing:?}");
        return;
    }
    // The WebGPU path exists once the library's GPU driver is async (issue 22, part 1); from then on it is
    // required to count on WebGPU in the browser, not to fall back.
    let webgpu = std::fs::read_dir(root().join("src/gpu"))
        .map(|dir| {
            dir.flatten().any(|e| {
                std::fs::read_to_string(e.path())
                    .is_ok_and(|t| t.contains("pub async fn perft_async"))
            })
        })
        .unwrap_or(false);
    let dist = match prebuilt {
        Some(d) => d,
        None => {
            // A target folder of its own: the wasm build has other RUSTFLAGS (simd128) than the tests.
            let target = std::env::var_os("CARGO_TARGET_DIR")
                .map(PathBuf::from)
                .unwrap_or_else(|| root().join("target"))
                .join("web");
            let out = Command::new(root().join("web/build.sh"))
                .env("CARGO_TARGET_DIR", &target)
                .env_remove("RUSTFLAGS")
                .output()
                .expect("web/build.sh runs");
            assert!(
                out.status.success(),
                "web/build.sh failed:\n{}",
                String::from_utf8_lossy(&out.stderr)
            );
            eprintln!("{}", String::from_utf8_lossy(&out.stdout).trim());
            root().join("web/dist")
        }
    };
    let (kiwipete, _) = cpw("kiwipete", 4);
    let sf = stockfish_divide(stockfish.as_deref().unwrap(), &kiwipete, 3);
    let sf_file = std::env::temp_dir().join(format!("perftlab-web-sf-{}.txt", std::process::id()));
    std::fs::write(&sf_file, &sf).unwrap();
    let mut cmd = Command::new("python3");
    cmd.arg(root().join("web/browser_test.py"))
        .arg("test")
        .arg("--dist")
        .arg(&dist);
    // The six CPW positions to depth 4 (src/cpw.rs, checked against tests/data/cpw-detail.csv by tests/cpw.rs).
    for p in perftlab::cpw::POSITIONS {
        cmd.arg("--cpw")
            .arg(format!("{}={}:4:{}", p.name, p.fen, p.nodes_by_depth[3]));
    }
    cmd.arg("--divide")
        .arg(format!("{kiwipete}:3:{}", sf_file.display()))
        .arg("--screenshot")
        .arg(std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("web-screenshot.png"))
        .env("CHROMIUM", chromium.unwrap())
        .env("CHROMEDRIVER", driver.unwrap());
    if webgpu {
        cmd.arg("--webgpu");
    }
    let out = cmd.output().expect("python3 runs");
    let _ = std::fs::remove_file(&sf_file);
    let stdout = String::from_utf8_lossy(&out.stdout);
    eprintln!("{stdout}");
    assert!(
        out.status.success(),
        "the browser test failed (exit {:?}):\n{stdout}\n{}",
        out.status.code(),
        String::from_utf8_lossy(&out.stderr)
    );
}

/// The page crate's unit tests (`cargo test --lib` of `web/Cargo.toml`, built for the host: its
/// wasm-bindgen exports compile to stubs there, and the tests call only the pure Rust beneath them). Needs
/// nothing but cargo, so it never skips; a failing unit test fails it.
#[test]
fn the_page_crates_unit_tests_pass() {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    // A target folder of its own: another workspace (web/Cargo.lock), so another build lock.
    let target = std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| root().join("target"))
        .join("web-host");
    let out = Command::new(cargo)
        .args(["test", "--locked", "--lib", "--manifest-path"])
        .arg(root().join("web/Cargo.toml"))
        .arg("--target-dir")
        .arg(&target)
        .env_remove("RUSTFLAGS")
        .output()
        .expect("cargo runs");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "the page crate's unit tests failed:\n{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // They ran (a filter or a cfg that hid them all would pass with 0 tests).
    let passed: u32 = stdout
        .lines()
        .filter_map(|l| l.strip_prefix("test result: ok. "))
        .filter_map(|l| l.split(' ').next()?.parse::<u32>().ok())
        .sum();
    assert!(
        passed >= 2,
        "expected the page crate's unit tests to run:\n{stdout}"
    );
}

/// The plans of a fresh page, natively on the GPU backend's adapter (lavapipe in CI): with every pipeline
/// dropped (as a page starts: built at first use, [`perftlab::gpu::GpuBackend::forget_pipelines`]), a small
/// count runs only the kernels the page compiles first (`merge`, `count`: the host expands down to remaining
/// depth 1), a larger one also builds deeper kernels but none outside the page's list, and the counts are
/// exact (CPW, src/cpw.rs; the divide against the reference generator). With `CI=true` a missing adapter
/// fails it; elsewhere it skips, saying so.
/// A GPU backend with a 16 MiB table, merging and 256 MiB of device memory; `None` (the test skips, saying so)
/// without an adapter, which fails the test under `CI=true`.
#[cfg(feature = "gpu")]
fn small_gpu() -> Option<perftlab::gpu::GpuBackend> {
    use perftlab::gpu::{GpuBackend, GpuOptions};
    let opts = GpuOptions {
        hash_mb: Some(16),
        merge: true,
        gpu_mem_mb: Some(256),
        ..Default::default()
    };
    match GpuBackend::new(&opts) {
        Ok(g) => Some(g),
        Err(e) => {
            assert!(!ci(), "CI=true and no usable GPU adapter: {e}");
            eprintln!("skipped: no GPU adapter ({e})");
            None
        }
    }
}

#[cfg(feature = "gpu")]
#[test]
fn a_fresh_device_counts_small_trees_with_the_cheap_kernels_only() {
    use perftlab::backend::{Backend, ReferenceBackend};
    use perftlab::gpu::RootMoves;
    use std::ops::ControlFlow;
    let Some(g) = small_gpu() else { return };
    let (first, next) = g.kernel_order();
    assert_eq!(
        first,
        [perftlab::gpu::Kernel::Merge, perftlab::gpu::Kernel::Count]
    );
    g.forget_pipelines();
    assert!(g.built_kernels().is_empty());
    let cpw = |name: &str, depth: usize| {
        let p = perftlab::cpw::POSITIONS
            .iter()
            .find(|p| p.name == name)
            .unwrap();
        (
            perftlab::Checked::from_fen(p.fen).unwrap(),
            p.nodes_by_depth[depth - 1],
        )
    };
    let go = |pos: &perftlab::Checked, depth| {
        g.wait(g.perft_async(pos, depth, &mut |_| ControlFlow::Continue(())))
            .unwrap()
    };
    // Small trees: perft 4 and 5 of the start position, Kiwipete's divide at depth 4 (root moves from the
    // host, as the page takes them).
    for depth in [4, 5] {
        let (start, nodes) = cpw("start", depth);
        assert_eq!(
            go(&start, depth as u32),
            nodes,
            "start position perft {depth}"
        );
    }
    let (kiwipete, nodes) = cpw("kiwipete", 4);
    let divide = g
        .wait(
            g.divide_with_async(&kiwipete, 4, RootMoves::Host, &mut |_| {
                ControlFlow::Continue(())
            }),
        )
        .unwrap();
    let mut want = ReferenceBackend.divide(&kiwipete, 4).unwrap();
    let mut got = divide.clone();
    want.sort();
    got.sort();
    assert_eq!(
        got, want,
        "Kiwipete divide 4 against the reference generator"
    );
    assert_eq!(divide.iter().map(|d| d.1).sum::<u128>(), nodes);
    let mut cheap = first.clone();
    cheap.sort_by_key(|k| k.index());
    assert_eq!(
        g.built_kernels(),
        cheap,
        "small counts build only the first kernels"
    );
    // With the fused leaf kernels built too (the page compiles them next), the host stops at remaining 2:
    // perft 5 of CPW position 3 (not counted before, so no table answers) builds no other kernel (no expand).
    let leaves = perftlab::gpu::Kernel::leaf2_for(Some(0));
    let depth2: Vec<_> = next
        .iter()
        .copied()
        .take_while(|&k| k != perftlab::gpu::Kernel::Expand)
        .collect();
    assert!(depth2.contains(&leaves), "{next:?}");
    g.prepare_kernels(&depth2);
    let before = g.built_kernels();
    // Positions the runs counted at remaining depth 2 (the work report), before and after.
    let at_two = || {
        g.work_report()
            .unwrap()
            .levels
            .iter()
            .find(|l| l.remaining == 2)
            .map_or(0, |l| l.positions)
    };
    let two = at_two();
    let (pos3, nodes) = cpw("pos3", 5);
    assert_eq!(
        go(&pos3, 5),
        nodes,
        "position 3 perft 5, the fused leaves built"
    );
    assert_eq!(g.built_kernels(), before, "perft 5 built no other kernel");
    assert!(
        at_two() > two,
        "perft 5 ran the fused leaves at remaining 2"
    );
    g.forget_pipelines();
    // A larger tree (the host stops expanding at 16,384 positions left): deeper kernels, all on the list.
    let (start, nodes) = cpw("start", 6);
    assert_eq!(go(&start, 6), nodes, "start position perft 6");
    let built = g.built_kernels();
    assert!(
        built.len() > first.len() && built.iter().all(|k| first.contains(k) || next.contains(k)),
        "perft 6 built {built:?}, the page's lists are {first:?} then {next:?}"
    );
    // Every kernel built: the plans of a native count again.
    g.prepare_kernels(&next);
    let (kiwipete, nodes) = cpw("kiwipete", 4);
    assert_eq!(
        go(&kiwipete, 4),
        nodes,
        "Kiwipete perft 4, every kernel built"
    );
}

/// The page's Cancel on WebGPU answers between units of work, so a deep async count is cut into units of at
/// most about [`perftlab::gpu::MAX_UNIT_LEAVES`] leaves (the host expanding more plies), natively on
/// the GPU backend's adapter: the start position's perft 7 has 3,195,901,860 leaves (CPW, src/cpw.rs), so
/// more than 3,195,901,860 / (2 × 4,194,304) = 381 units even if the planner's estimate is off by 2× (there
/// were at most 32 before: 100 million leaves a unit, 28.7 s of Cancel on SwiftShader). A break after the
/// third report stops it with `Interrupted`, and no unit before it counted more than 4 × the cap. With
/// `CI=true` a missing adapter fails it; elsewhere it skips, saying so.
#[cfg(feature = "gpu")]
#[test]
fn a_deep_async_count_is_cut_into_small_units_and_stops_between_them() {
    use perftlab::gpu::MAX_UNIT_LEAVES;
    use perftlab::gpu::{GpuProgress, RootMoves};
    use std::ops::ControlFlow;
    let Some(g) = small_gpu() else { return };
    let start = perftlab::Checked::from_fen(perftlab::cpw::POSITIONS[0].fen).unwrap();
    let leaves = perftlab::cpw::POSITIONS[0].nodes_by_depth[6];
    assert_eq!(leaves, 3_195_901_860);
    let mut seen: Vec<GpuProgress> = Vec::new();
    let err = g
        .wait(g.divide_with_async(&start, 7, RootMoves::Host, &mut |p| {
            seen.push(p);
            if seen.len() > 3 {
                ControlFlow::Break(())
            } else {
                ControlFlow::Continue(())
            }
        }))
        .unwrap_err();
    assert!(matches!(err, perftlab::Error::Interrupted(_)), "{err:?}");
    assert_eq!(seen.len(), 4, "{seen:?}");
    let total = seen[0].total;
    assert!(
        total as f64 > leaves as f64 / (2.0 * MAX_UNIT_LEAVES),
        "perft 7 in {total} units: {seen:?}"
    );
    for w in seen.windows(2) {
        let unit = (w[1].nodes - w[0].nodes) as f64;
        assert!(
            unit <= 4.0 * MAX_UNIT_LEAVES,
            "a unit of {unit} leaves: {seen:?}"
        );
    }
}
