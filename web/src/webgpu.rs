//! The WebGPU path: `perftlab::gpu::GpuBackend` (the WGSL kernels and the driver of the `gpu` backend, run
//! asynchronously) on the browser's WebGPU adapter. The page opens it once ([`GpuCounter::open`]) and
//! divides with it; the driver reports progress after each unit of work, where the page may cancel.
//!
//! In the browser the library builds a kernel's pipeline at its first use, and the browser compiles it
//! before the first dispatch that needs it (on SwiftShader 0.01–3 s per kernel, docs/web.md): the page
//! opens the counter when it loads and starts the compilations a count of its position will need
//! ([`GpuCounter::prepare`]) while the user types.

use crate::{checked, chess960_for, js_error};
use perftlab::gpu::kernels::Kernel;
use perftlab::gpu::{GpuBackend, GpuOptions, GpuProgress};
use std::ops::ControlFlow;
use std::rc::Rc;
use wasm_bindgen::prelude::*;

/// The GPU backend on the page's WebGPU adapter.
#[wasm_bindgen]
pub struct GpuCounter {
    backend: Rc<GpuBackend>,
}

#[wasm_bindgen]
impl GpuCounter {
    /// Open WebGPU's adapter and device and build the kernels (a promise of the counter; rejected with the
    /// library's message when there is no adapter or it lacks a needed limit).
    pub fn open() -> js_sys::Promise {
        wasm_bindgen_futures::future_to_promise(async move {
            let opts = GpuOptions {
                merge: true,
                ..Default::default()
            };
            let backend = GpuBackend::open(&opts).await.map_err(js_error)?;
            Ok(GpuCounter {
                backend: Rc::new(backend),
            }
            .into())
        })
    }

    /// Start building the pipelines a divide of `fen` at `depth` ([`GpuCounter::divide`]) uses, in the order
    /// of their first use (the browser compiles them in its GPU process while the page goes on; kernels
    /// already built are skipped), so a count started later does not wait for them. The kernels follow the
    /// driver's plan ([`kernels_for_divide`]); a wrong guess costs only time.
    pub fn prepare(&self, fen: String, depth: u32) -> Result<(), JsError> {
        let pos = checked(&fen)?;
        self.backend
            .prepare_kernels(&kernels_for_divide(pos.setup(), depth));
        Ok(())
    }

    /// The divide of `fen` at `depth` (a promise of `[[move, count], …]`, moves in UCI order, counts as
    /// decimal text; empty at depth 0). `progress(done, total, nodes)` is called after each unit of work
    /// (`nodes` as decimal text); a truthy return cancels, and the promise rejects with "interrupted".
    pub fn divide(
        &self,
        fen: String,
        depth: u32,
        chess960: bool,
        progress: js_sys::Function,
    ) -> js_sys::Promise {
        let backend = Rc::clone(&self.backend);
        wasm_bindgen_futures::future_to_promise(async move {
            perftlab::limits::check_depth("depth", depth).map_err(js_error)?;
            let pos = checked(&fen)?;
            let chess960 = chess960_for(&pos, chess960);
            let rows = js_sys::Array::new();
            if depth == 0 {
                return Ok(rows.into());
            }
            let mut report = |p: GpuProgress| {
                let stop = progress.call3(
                    &JsValue::NULL,
                    &JsValue::from(p.done as f64),
                    &JsValue::from(p.total as f64),
                    &JsValue::from(p.nodes.to_string()),
                );
                if stop.is_ok_and(|v| v.is_truthy()) {
                    ControlFlow::Break(())
                } else {
                    ControlFlow::Continue(())
                }
            };
            let mut counts: Vec<(String, u128)> = backend
                .divide_async(&pos, depth, &mut report)
                .await
                .map_err(js_error)?
                .into_iter()
                .map(|(m, n)| (m.to_uci(chess960), n))
                .collect();
            counts.sort();
            for (m, n) in counts {
                let row = js_sys::Array::of2(&JsValue::from(m), &JsValue::from(n.to_string()));
                rows.push(&row);
            }
            Ok(rows.into())
        })
    }
}

/// The kernels a GPU divide of `root` at `depth` runs, in the order of their first use, as the driver does
/// it (`perftlab::gpu`): the root moves from the GPU (`legal_moves`: merge, count, moves), then the root
/// moves' subtrees to `depth - 1` in one planned run. The planner expands host plies below the root moves
/// until a level has at least `PROGRESS_UNITS` (32) distinct positions (or one ply is left); the GPU counts
/// the rest, `remaining` plies: its fused leaf kernel (`leaf2`, specialised for the side to move two plies
/// above the leaves) at remaining 2, and above that the count, expand and backprop kernels.
pub fn kernels_for_divide(root: &perftlab::Setup, depth: u32) -> Vec<Kernel> {
    use perftlab::reference::{legal_moves, play};
    let mut kernels = vec![Kernel::Merge, Kernel::Count, Kernel::Moves];
    if depth < 2 {
        return kernels;
    }
    // Host plies below the root moves: distinct positions (FEN without the move clocks, as the planner
    // merges them) until a level reaches the planner's units of work.
    let d = depth - 1;
    let key = |s: &perftlab::Setup| {
        let fen = s.to_fen();
        fen.rsplitn(3, ' ').nth(2).unwrap_or(&fen).to_string()
    };
    let mut level: Vec<perftlab::Setup> =
        legal_moves(root).iter().map(|&m| play(root, m)).collect();
    let mut plies = 0;
    while level.len() < perftlab::gpu::planner::PROGRESS_UNITS && plies + 1 < d && !level.is_empty()
    {
        let mut seen = std::collections::HashSet::new();
        level = level
            .iter()
            .flat_map(|s| legal_moves(s).into_iter().map(move |m| play(s, m)))
            .filter(|c| seen.insert(key(c)))
            .collect();
        plies += 1;
    }
    let remaining = d - plies;
    let leaf2 = Kernel::leaf2_for(Some(root.turn as u32 ^ (depth & 1)));
    let leaves = [
        Kernel::Scan,
        Kernel::ScanAdd,
        Kernel::Compact,
        leaf2,
        Kernel::CacheStore,
    ];
    kernels.push(Kernel::CacheProbe);
    if remaining >= 3 {
        kernels.extend([Kernel::Scan, Kernel::ScanAdd, Kernel::Expand]);
    }
    if remaining >= 2 {
        kernels.extend(leaves);
    }
    if remaining >= 3 {
        kernels.push(Kernel::Backprop);
    }
    kernels
}

/// Every kernel's WGSL module, as JSON `[{"label", "wgsl", "constants": {name: value}}]`, for the pipeline
/// compile probe of `web/browser_test.py probe` (each kernel's pipeline built on its own, timed).
#[wasm_bindgen]
pub fn kernel_sources() -> String {
    let list: Vec<serde_json::Value> = Kernel::ALL
        .iter()
        .map(|k| {
            let constants: serde_json::Map<String, serde_json::Value> = k
                .constants()
                .iter()
                .map(|&(n, v)| (n.to_string(), serde_json::json!(v)))
                .collect();
            serde_json::json!({"label": k.label(), "wgsl": k.wgsl(), "constants": constants})
        })
        .collect();
    serde_json::Value::Array(list).to_string()
}
