//! The WebGPU path: `perftlab::gpu::GpuBackend` (the WGSL kernels and the driver of the `gpu` backend, run
//! asynchronously) on the browser's WebGPU adapter. The page opens it once ([`GpuCounter::open`]) and
//! divides with it; the driver reports progress after each unit of work, where the page may cancel.

use crate::{checked, chess960_for, js_error};
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
