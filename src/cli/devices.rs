//! `perftlab devices`: list the GPU adapters wgpu finds, with the limits that matter to perftlab; the index
//! or a name substring is what `--adapter` (or `PERFTLAB_ADAPTER`) takes, and each adapter says whether
//! `--adapter all` uses it (and as which GPU index, the one `--adapter env:VAR` counts).

use crate::error::Result;
use crate::gpu;
use clap::Args;
use serde_json::json;

/// Arguments of `perftlab devices`.
#[derive(Args, Debug)]
pub struct DevicesArgs {
    /// Print one JSON array instead of text.
    #[arg(long)]
    json: bool,
}

pub fn run(a: DevicesArgs) -> Result<i32> {
    let list = gpu::list_adapters();
    if a.json {
        let items: Vec<_> = list
            .iter()
            .map(|d| {
                json!({
                    "index": d.index,
                    "name": d.name,
                    "backend": d.backend,
                    "type": d.device_type,
                    "driver": d.driver,
                    "compute": d.compute,
                    "max_storage_buffer_binding_size": d.max_storage_binding,
                    "max_buffer_size": d.max_buffer,
                    "max_storage_buffers_per_shader_stage": d.max_storage_buffers,
                    "max_compute_workgroups_per_dimension": d.max_workgroups_per_dim,
                    "max_compute_invocations_per_workgroup": d.max_invocations,
                    "pci_bus": d.pci_bus,
                    "all_index": d.all_index,
                })
            })
            .collect();
        println!("{}", serde_json::Value::Array(items));
        return Ok(0);
    }
    if list.is_empty() {
        println!("no GPU adapter found");
        return Ok(0);
    }
    for d in &list {
        println!("{}: {} ({}, {})", d.index, d.name, d.backend, d.device_type);
        println!("   driver: {}", d.driver);
        println!(
            "   compute shaders: {}; max storage binding {} MiB; max buffer {} MiB; {} storage buffers per stage; \
             {} workgroups per dimension; {} invocations per workgroup",
            if d.compute { "yes" } else { "no" },
            d.max_storage_binding >> 20,
            d.max_buffer >> 20,
            d.max_storage_buffers,
            d.max_workgroups_per_dim,
            d.max_invocations
        );
        match d.all_index {
            Some(k) => {
                println!("   --adapter all: used, as GPU {k} (--adapter env:VAR with VAR={k})")
            }
            None => println!(
                "   --adapter all: not used (another kind of adapter is preferred, or unusable)"
            ),
        }
    }
    let all: Vec<String> = list
        .iter()
        .filter(|d| d.all_index.is_some())
        .map(|d| d.index.to_string())
        .collect();
    println!(
        "choose one with --adapter INDEX|NAME or the environment variable {}; several with --adapter all \
         (here: {}) or a list such as --adapter 0,1",
        gpu::ADAPTER_ENV,
        if all.is_empty() { "none".to_string() } else { all.join(",") }
    );
    Ok(0)
}
