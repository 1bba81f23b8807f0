//! The WebGPU path: `perftlab::gpu::GpuBackend` (the WGSL kernels and the driver of the `gpu` backend, run
//! asynchronously) on the browser's WebGPU adapter. The page opens it once ([`GpuCounter::open`]) and
//! divides with it; the driver reports progress after each unit of work, where the page may cancel.
//!
//! In the browser the library builds a kernel's pipeline at its first use, and WebGPU's synchronous
//! `createComputePipeline` (the one wgpu has) compiles it in the browser's GPU process, which does nothing
//! else meanwhile (on SwiftShader 0.01–3 s per kernel, docs/web.md). So the page compiles the kernels itself
//! with `createComputePipelineAsync` (off that thread), in the order [`GpuCounter::kernel_order`] gives,
//! and hands each finished one to the library ([`GpuCounter::adopt`]: wgpu's `createComputePipeline` of it
//! is answered with the compiled pipeline, see web/app.js); the driver plans around the kernels not built
//! yet (a small tree is counted by `count` alone at remaining depth 1).

use crate::{checked, chess960_for, js_error};
use perftlab::gpu::{GpuBackend, GpuOptions, GpuProgress, Kernel, RootMoves};
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

    /// The kernels to compile first and next, as indices into [`kernel_sources`]'s list: `[[first…],
    /// [next…]]`. The first are what a count runs while the others are not built (`merge` and `count`); the
    /// next are those of the deeper runs (the fused leaves, expand, …), for later, larger counts.
    pub fn kernel_order(&self) -> js_sys::Array {
        let (first, next) = self.backend.kernel_order();
        let list = |ks: Vec<Kernel>| -> js_sys::Array {
            ks.into_iter()
                .map(|k| JsValue::from(k.index() as u32))
                .collect()
        };
        js_sys::Array::of2(&list(first), &list(next))
    }

    /// Build the pipeline of kernel `index` (of [`kernel_sources`]'s list) in the library now, once the page
    /// has compiled it: wgpu's synchronous creation is then answered with the page's pipeline, and the driver
    /// counts it as built. Skipped while a count is running (the page adopts again before the next).
    pub fn adopt(&self, index: usize) -> Result<(), JsError> {
        let kernel = Kernel::ALL
            .get(index)
            .copied()
            .ok_or_else(|| JsError::new(&format!("adopt: no kernel {index}")))?;
        self.backend.prepare_kernels(&[kernel]);
        Ok(())
    }

    /// The labels of the kernels built in the library so far (for scripts and tests).
    pub fn built(&self) -> js_sys::Array {
        self.backend
            .built_kernels()
            .into_iter()
            .map(|k| JsValue::from(k.label()))
            .collect()
    }

    /// The work report of the counts so far (the `gpu` object of `perftlab perft --json`: runs, submits,
    /// read-backs, GPU milliseconds per level where the adapter has timestamps), as JSON text (a promise).
    pub fn report(&self) -> js_sys::Promise {
        let backend = Rc::clone(&self.backend);
        wasm_bindgen_futures::future_to_promise(async move {
            let r = backend.work_report_async().await.map_err(js_error)?;
            let text = serde_json::to_string(&r).map_err(|e| JsError::new(&e.to_string()))?;
            Ok(JsValue::from(text))
        })
    }

    /// The divide of `fen` at `depth` (a promise of `[[move, count], …]`, moves in UCI order, counts as
    /// decimal text; empty at depth 0; the root moves from the host generator, so no `moves` kernel is
    /// compiled). `progress(done, total, nodes)` is called after each unit of work
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
                .divide_with_async(&pos, depth, RootMoves::Host, &mut report)
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
