//! Unit tests of the GPU backend's internals: the driver's runs (`runs`), the transposition and host tables
//! (`tables`), the memory policy (`memory`), the kernels' bindings (`kernels`) and the planner (`plans`). They
//! live here, inside the crate, so that the internals they reach need not be public; the tests of the public
//! surface (the backend, the CLI) are in `tests/gpu.rs`.
//!
//! Every count is checked against CPW's published perft counts (cited at each) or against the reference
//! generator. Tests that need an adapter follow `adapter.rs` (shared with `tests/gpu.rs`): with `CI=true` a missing adapter
//! fails them (and the adapter must be Vulkan on the CPU, i.e. lavapipe); elsewhere they print that they skip.

mod adapter;
mod kernels;
mod memory;
mod plans;
mod runs;
mod tables;

use super::memory::MAX_RUN_DEPTH;
use super::planner::Settings;
use super::{GpuBackend, GpuOptions};
use adapter::{gpu, gpu_with, options};

/// Driver settings with the full run depth and no host plies above the runs (tests change fields with `..`).
fn settings(merge: bool, cache: bool, budget_bytes: u64) -> Settings {
    Settings {
        merge,
        cache,
        budget_bytes,
        max_run_depth: MAX_RUN_DEPTH,
        host_plies: 0,
    }
}
