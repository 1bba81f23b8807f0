//! Adapter choice: `--adapter NAME|INDEX` (or the environment variable `PERFTLAB_ADAPTER`) names an adapter by
//! its index in `perftlab devices` or by a case-insensitive substring of its name or backend (`vulkan`, `gl`);
//! without one, the first discrete GPU, then integrated, virtual, CPU (software) adapter is taken, preferring
//! Vulkan/Metal/DX12 over GL. wgpu's own `WGPU_BACKEND` (e.g. `vulkan`, `gl`; read because wgpu is built with
//! its `std` feature) narrows the search.
//!
//! Several adapters at once ([`pick_adapters`]): `all` takes every usable adapter of the best kind present
//! ([`all_set`]: hardware GPUs before software ones, Vulkan/Metal/DX12 before GL, so one GPU is not used twice
//! through two APIs), in PCI bus order where every adapter reports its bus; a comma-separated list takes
//! exactly the adapters it names; `env:VAR` takes one adapter by the index in the first entry of the
//! environment variable `VAR` (`CUDA_VISIBLE_DEVICES`, set by Slurm's `--gpus-per-task`), counted in the
//! `all` list.

use crate::error::{AdapterError, Error, Result};

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
    /// PCI bus of the device, where the driver reports it.
    pub pci_bus: String,
    /// Position in the `--adapter all` list (the index `env:VAR` counts), `None` when `all` leaves it out.
    pub all_index: Option<usize>,
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
        pci_bus: info.device_pci_bus_id,
        all_index: None,
    }
}

/// Every adapter wgpu finds, in the order `--adapter INDEX` uses, each with its place in the `all` list.
pub fn list_adapters() -> Vec<AdapterSummary> {
    let adapters = all_adapters(&instance());
    let mut list: Vec<AdapterSummary> = adapters
        .iter()
        .enumerate()
        .map(|(i, a)| summary(i, a))
        .collect();
    for (k, i) in all_set(&adapters).into_iter().enumerate() {
        list[i].all_index = Some(k);
    }
    list
}

/// Whether an adapter can run perftlab's kernels at all (compute shaders, 8 storage buffers per stage; the
/// full check of the limits is made when its device is opened).
fn usable(a: &wgpu::Adapter) -> bool {
    a.get_downlevel_capabilities()
        .flags
        .contains(wgpu::DownlevelFlags::COMPUTE_SHADERS)
        && a.limits().max_storage_buffers_per_shader_stage >= 8
}

/// The indices `--adapter all` takes: the usable adapters of the best kind present, hardware GPUs
/// (discrete, integrated, virtual) before software or unknown ones, and of those the Vulkan/Metal/DX12 ones
/// before GL ones (the same GPU often appears through both); ordered by PCI bus when every one reports it
/// (the order Slurm and `CUDA_DEVICE_ORDER=PCI_BUS_ID` number GPUs in), else in enumeration order.
pub fn all_set(adapters: &[wgpu::Adapter]) -> Vec<usize> {
    let class = |a: &wgpu::Adapter| {
        let info = a.get_info();
        let hardware = matches!(
            info.device_type,
            wgpu::DeviceType::DiscreteGpu
                | wgpu::DeviceType::IntegratedGpu
                | wgpu::DeviceType::VirtualGpu
        );
        (!hardware as u8, (info.backend == wgpu::Backend::Gl) as u8)
    };
    let usable: Vec<usize> = (0..adapters.len())
        .filter(|&i| usable(&adapters[i]))
        .collect();
    let Some(best) = usable.iter().map(|&i| class(&adapters[i])).min() else {
        return Vec::new();
    };
    let mut set: Vec<usize> = usable
        .into_iter()
        .filter(|&i| class(&adapters[i]) == best)
        .collect();
    if set
        .iter()
        .all(|&i| !adapters[i].get_info().device_pci_bus_id.is_empty())
    {
        set.sort_by_key(|&i| adapters[i].get_info().device_pci_bus_id);
    }
    set
}

/// The adapters `choice` names (see the module header): one for a name, an index or nothing (the preferred
/// one), every usable one of the best kind for `all`, the listed ones for a comma-separated list (each
/// named once), one for `env:VAR`.
///
/// # Errors
/// [`Error::Adapter`] when an adapter is not found, for a list naming one adapter twice or an `env:VAR` that
/// is unset or holds no index ([`AdapterError`]'s kinds); [`Error::Backend`] when no adapter exists.
#[cfg(not(target_arch = "wasm32"))]
pub(super) fn pick_adapters(choice: Option<&str>) -> Result<Vec<wgpu::Adapter>> {
    let text = choice.map(str::trim).unwrap_or("");
    if text.eq_ignore_ascii_case("all") {
        let adapters = all_adapters(&instance());
        let set = all_set(&adapters);
        if set.is_empty() {
            return Err(AdapterError::NoneUsable {
                found: adapters.len(),
            }
            .into());
        }
        return Ok(set.into_iter().map(|i| adapters[i].clone()).collect());
    }
    if let Some(var) = text.strip_prefix("env:") {
        let value = std::env::var(var).map_err(|_| AdapterError::EnvUnset {
            choice: text.to_string(),
            var: var.to_string(),
        })?;
        let first = value.split(',').next().unwrap_or("").trim();
        let k: usize = first.parse().map_err(|_| AdapterError::EnvNotIndex {
            choice: text.to_string(),
            var: var.to_string(),
            value: value.clone(),
            first: first.to_string(),
        })?;
        let adapters = all_adapters(&instance());
        let set = all_set(&adapters);
        let n = set.len();
        return set
            .get(k)
            .map(|&i| vec![adapters[i].clone()])
            .ok_or_else(|| {
                AdapterError::EnvOutOfRange {
                    choice: text.to_string(),
                    var: var.to_string(),
                    index: k,
                    count: n,
                }
                .into()
            });
    }
    if text.contains(',') {
        let mut picked: Vec<wgpu::Adapter> = Vec::new();
        let mut seen = Vec::new();
        for part in text.split(',').map(str::trim) {
            if part.is_empty() {
                return Err(AdapterError::EmptyEntry {
                    choice: text.to_string(),
                }
                .into());
            }
            let (i, a) = pick_indexed(Some(part))?;
            if seen.contains(&i) {
                return Err(AdapterError::Twice {
                    choice: text.to_string(),
                    index: i,
                    entry: part.to_string(),
                }
                .into());
            }
            seen.push(i);
            picked.push(a);
        }
        return Ok(picked);
    }
    Ok(vec![pick_adapter(choice)?])
}

#[cfg(not(target_arch = "wasm32"))]
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
#[cfg(not(target_arch = "wasm32"))]
pub(super) fn pick_adapter(choice: Option<&str>) -> Result<wgpu::Adapter> {
    pick_indexed(choice).map(|(_, a)| a)
}

/// [`pick_adapter`], with the adapter's index.
#[cfg(not(target_arch = "wasm32"))]
fn pick_indexed(choice: Option<&str>) -> Result<(usize, wgpu::Adapter)> {
    let adapters = all_adapters(&instance());
    if adapters.is_empty() {
        return Err(Error::Backend(
            "no GPU adapter found (install a Vulkan, Metal, DX12 or GL driver; on a machine without a GPU, \
             Mesa's lavapipe: apt-get install mesa-vulkan-drivers libvulkan1)"
                .into(),
        ));
    }
    let found = || {
        adapters
            .iter()
            .enumerate()
            .map(|(i, a)| format!("{i}: {} ({:?})", a.get_info().name, a.get_info().backend))
            .collect::<Vec<_>>()
    };
    let found = match choice.map(str::trim) {
        None | Some("") => adapters
            .iter()
            .enumerate()
            .min_by_key(|(_, a)| preference(a)),
        Some(text) => {
            if let Ok(i) = text.parse::<usize>() {
                return adapters.get(i).map(|a| (i, a.clone())).ok_or_else(|| {
                    AdapterError::NoIndex {
                        index: i,
                        found: found(),
                    }
                    .into()
                });
            }
            let want = text.to_lowercase();
            let matched = adapters
                .iter()
                .enumerate()
                .filter(|(_, a)| {
                    let info = a.get_info();
                    format!("{} {:?}", info.name, info.backend)
                        .to_lowercase()
                        .contains(&want)
                })
                .min_by_key(|(_, a)| preference(a));
            if matched.is_none() {
                return Err(AdapterError::NoMatch {
                    text: text.to_string(),
                    found: found(),
                }
                .into());
            }
            matched
        }
    };
    found
        .map(|(i, a)| (i, a.clone()))
        .ok_or_else(|| Error::Backend("no GPU adapter found".into()))
}

/// The adapter WebGPU offers the page (high-performance preference): the browser has one, and `choice`
/// (`--adapter`) must be empty.
///
/// # Errors
/// [`AdapterError::Browser`] for a `choice`; [`Error::Backend`] when the browser has no WebGPU adapter.
#[cfg(target_arch = "wasm32")]
pub(super) async fn request_adapter(choice: Option<&str>) -> Result<wgpu::Adapter> {
    if let Some(c) = choice.filter(|c| !c.trim().is_empty()) {
        return Err(AdapterError::Browser {
            choice: c.to_string(),
        }
        .into());
    }
    instance()
        .request_adapter(&wgpu::RequestAdapterOptions {
            power_preference: wgpu::PowerPreference::HighPerformance,
            ..Default::default()
        })
        .await
        .map_err(|e| Error::Backend(format!("no WebGPU adapter in this browser: {e}")))
}
