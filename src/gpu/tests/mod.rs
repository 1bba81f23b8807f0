//! Unit tests of the GPU backend's internals: the driver's runs (`runs`), the transposition and host tables
//! (`tables`), the memory policy (`memory`), the kernels' bindings (`kernels`) and the planner (`plans`). They
//! live here, inside the crate, so that the internals they reach need not be public; the tests of the public
//! surface (the backend, the CLI) are in `tests/gpu.rs`.
//!
//! Every count is checked against CPW's published perft counts (cited at each) or against the reference
//! generator. Tests that need an adapter keep the rule of `tests/gpu.rs`: with `CI=true` a missing adapter
//! fails them (and the adapter must be Vulkan on the CPU, i.e. lavapipe); elsewhere they print that they skip.

mod kernels;
mod memory;
mod plans;
mod runs;
mod tables;

use super::{GpuBackend, GpuOptions};

/// Whether the tests run in CI (`CI=true`).
fn in_ci() -> bool {
    std::env::var("CI").is_ok_and(|v| v == "true")
}

/// Options with merging, tables of `hash_mb` MiB and a level budget (as `tests/gpu.rs`'s `options`).
fn options(merge: bool, hash_mb: usize, gpu_mem_mb: Option<u64>) -> GpuOptions {
    GpuOptions {
        hash_mb: Some(hash_mb),
        merge,
        gpu_mem_mb,
        adapter: None,
        table_buffer_bytes: None,
        checked_shaders: false,
    }
}

/// A GPU backend, or `None` (with a message) when there is no adapter outside CI; in CI the adapter must be
/// lavapipe (the same rule as `tests/gpu.rs`'s `gpu_with`).
fn gpu_with(opts: GpuOptions, test: &str) -> Option<GpuBackend> {
    match GpuBackend::new(&opts) {
        Ok(b) => {
            if in_ci() {
                let info = b.adapter_info();
                assert_eq!(
                    (info.backend, info.device_type),
                    (wgpu::Backend::Vulkan, wgpu::DeviceType::Cpu),
                    "CI must run the GPU tests on lavapipe (software Vulkan), got {}",
                    b.adapter()
                );
            }
            Some(b)
        }
        Err(e) if in_ci() => panic!("CI=true and no usable GPU adapter: {e}"),
        Err(e) => {
            eprintln!("{test}: skipped, no GPU adapter ({e})");
            None
        }
    }
}

/// A GPU backend with merging, 16 MiB of tables and a 256 MiB budget, or `None` as [`gpu_with`].
fn gpu(test: &str) -> Option<GpuBackend> {
    gpu_with(options(true, 16, Some(256)), test)
}
