//! Adapter choice: `--adapter NAME|INDEX` (or the environment variable `PERFTLAB_ADAPTER`) names an adapter by
//! its index in `perftlab devices` or by a case-insensitive substring of its name or backend (`vulkan`, `gl`);
//! without one, the first discrete GPU, then integrated, virtual, CPU (software) adapter is taken, preferring
//! Vulkan/Metal/DX12 over GL. wgpu's own `WGPU_BACKEND` (e.g. `vulkan`, `gl`) narrows the search.

use crate::error::{Error, Result};

/// The environment variable that picks an adapter when `--adapter` is not given.
pub const ADAPTER_ENV: &str = "PERFTLAB_ADAPTER";

/// One adapter as `perftlab devices` lists it.
#[derive(Clone, Debug)]
pub struct AdapterSummary {
    /// Index for `--adapter`.
    pub index: usize,
    /// Adapter name.
    pub name: String,
    /// Graphics API.
    pub backend: String,
    /// Discrete, integrated, virtual, CPU or other.
    pub device_type: String,
    /// Driver name and version.
    pub driver: String,
    /// Largest storage buffer binding, bytes.
    pub max_storage_binding: u64,
    /// Largest buffer, bytes.
    pub max_buffer: u64,
    /// Storage buffers per shader stage.
    pub max_storage_buffers: u32,
    /// Workgroups per dispatch dimension.
    pub max_workgroups_per_dim: u32,
    /// Invocations per workgroup.
    pub max_invocations: u32,
    /// Whether compute shaders are supported.
    pub compute: bool,
}

/// The size of the largest device-local memory heap of a Vulkan adapter, in bytes (`None` on other backends).
/// wgpu 30 reports no memory size (wgpu issue 2447), so this asks Vulkan itself
/// (`vkGetPhysicalDeviceMemoryProperties`, Vulkan 1.0 core) through wgpu's hal.
#[cfg(any(target_os = "linux", target_os = "windows", target_os = "android"))]
#[allow(unsafe_code)]
pub fn device_local_memory(adapter: &wgpu::Adapter) -> Option<u64> {
    // Safety: the guard only borrows the live adapter for a read-only query; nothing is created or destroyed
    // through it, and it is dropped at the end of this function.
    let hal = unsafe { adapter.as_hal::<wgpu::hal::api::Vulkan>() }?;
    let physical = hal.raw_physical_device();
    let instance = hal.shared_instance().raw_instance();
    // Safety: `physical` is a physical device of `instance`, which the guard keeps alive during the call.
    let props = unsafe { instance.get_physical_device_memory_properties(physical) };
    const DEVICE_LOCAL: u32 = 1; // VK_MEMORY_HEAP_DEVICE_LOCAL_BIT
    props
        .memory_heaps_as_slice()
        .iter()
        .filter(|h| h.flags.as_raw() & DEVICE_LOCAL != 0)
        .map(|h| h.size)
        .max()
}

/// No device memory query outside Vulkan.
#[cfg(not(any(target_os = "linux", target_os = "windows", target_os = "android")))]
pub fn device_local_memory(_adapter: &wgpu::Adapter) -> Option<u64> {
    None
}

fn instance() -> wgpu::Instance {
    wgpu::Instance::new(wgpu::InstanceDescriptor::new_without_display_handle_from_env())
}

fn all_adapters(instance: &wgpu::Instance) -> Vec<wgpu::Adapter> {
    pollster::block_on(instance.enumerate_adapters(wgpu::Backends::all()))
}

fn summary(index: usize, a: &wgpu::Adapter) -> AdapterSummary {
    let info = a.get_info();
    let l = a.limits();
    AdapterSummary {
        index,
        name: info.name,
        backend: format!("{:?}", info.backend).to_lowercase(),
        device_type: format!("{:?}", info.device_type),
        driver: format!("{} {}", info.driver, info.driver_info)
            .trim()
            .to_string(),
        max_storage_binding: l.max_storage_buffer_binding_size,
        max_buffer: l.max_buffer_size,
        max_storage_buffers: l.max_storage_buffers_per_shader_stage,
        max_workgroups_per_dim: l.max_compute_workgroups_per_dimension,
        max_invocations: l.max_compute_invocations_per_workgroup,
        compute: a
            .get_downlevel_capabilities()
            .flags
            .contains(wgpu::DownlevelFlags::COMPUTE_SHADERS),
    }
}

/// Every adapter wgpu finds, in the order `--adapter INDEX` uses.
pub fn list_adapters() -> Vec<AdapterSummary> {
    all_adapters(&instance())
        .iter()
        .enumerate()
        .map(|(i, a)| summary(i, a))
        .collect()
}

fn preference(a: &wgpu::Adapter) -> (u8, u8) {
    let info = a.get_info();
    let kind = match info.device_type {
        wgpu::DeviceType::DiscreteGpu => 0,
        wgpu::DeviceType::IntegratedGpu => 1,
        wgpu::DeviceType::VirtualGpu => 2,
        wgpu::DeviceType::Cpu => 3,
        wgpu::DeviceType::Other => 4,
    };
    (kind, (info.backend == wgpu::Backend::Gl) as u8)
}

/// Pick the adapter named by `choice` (index or name substring), or the preferred one.
pub(super) fn pick_adapter(choice: Option<&str>) -> Result<wgpu::Adapter> {
    let adapters = all_adapters(&instance());
    if adapters.is_empty() {
        return Err(Error::Backend(
            "no GPU adapter found (install a Vulkan, Metal, DX12 or GL driver; on a machine without a GPU, \
             Mesa's lavapipe: apt-get install mesa-vulkan-drivers libvulkan1)"
                .into(),
        ));
    }
    let names = adapters
        .iter()
        .enumerate()
        .map(|(i, a)| format!("{i}: {} ({:?})", a.get_info().name, a.get_info().backend))
        .collect::<Vec<_>>()
        .join(", ");
    match choice.map(str::trim) {
        None | Some("") => adapters
            .into_iter()
            .min_by_key(preference)
            .ok_or_else(|| Error::Backend("no GPU adapter found".into())),
        Some(text) => {
            if let Ok(i) = text.parse::<usize>() {
                let n = adapters.len();
                return adapters.into_iter().nth(i).ok_or_else(|| {
                    Error::Backend(format!(
                        "--adapter: no adapter with index '{i}' ({n} found: {names})"
                    ))
                });
            }
            let want = text.to_lowercase();
            let found = adapters
                .iter()
                .filter(|a| {
                    let info = a.get_info();
                    format!("{} {:?}", info.name, info.backend)
                        .to_lowercase()
                        .contains(&want)
                })
                .min_by_key(|a| preference(a))
                .cloned();
            found.ok_or_else(|| {
                Error::Backend(format!(
                    "--adapter: no adapter whose name or backend contains '{text}' (found: {names})"
                ))
            })
        }
    }
}
