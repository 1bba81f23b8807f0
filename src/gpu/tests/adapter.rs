//! The adapter rule of the GPU tests, one copy for the unit tests (`src/gpu/tests/`) and the integration tests
//! (`tests/gpu.rs`, which includes this file with `#[path]`): with `CI=true` a missing adapter fails a test and
//! the adapter must be Vulkan on the CPU (Mesa's lavapipe); elsewhere the test prints that it skips. The
//! including module imports `GpuBackend` and `GpuOptions`.

use super::{GpuBackend, GpuOptions};

/// Whether the tests run in CI (`CI=true`).
pub fn in_ci() -> bool {
    std::env::var("CI").is_ok_and(|v| v == "true")
}

/// Options with merging, tables of `hash_mb` MiB and a level budget.
pub fn options(merge: bool, hash_mb: usize, gpu_mem_mb: Option<u64>) -> GpuOptions {
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
/// lavapipe (the rule of this module's header).
pub fn gpu_with(opts: GpuOptions, test: &str) -> Option<GpuBackend> {
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
pub fn gpu(test: &str) -> Option<GpuBackend> {
    gpu_with(options(true, 16, Some(256)), test)
}
