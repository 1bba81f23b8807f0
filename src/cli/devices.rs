//! `perftlab devices`: list the GPU adapters wgpu finds, with the limits that matter to perftlab; the index
//! or a name substring is what `--adapter` (or `PERFTLAB_ADAPTER`) takes.

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
    }
    println!(
        "choose one with --adapter INDEX|NAME or the environment variable {}",
        gpu::ADAPTER_ENV
    );
    Ok(0)
}
