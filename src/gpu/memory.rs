//! The memory policy of the GPU backend, in one place: what one run may hold (the level budget, `--gpu-mem`,
//! and its default), how large a level may be (one storage binding, the merge table's index bits, the
//! reserve for the levels below), how `--hash` is shared (the host table's eighth, the GPU tables' split over
//! the remaining depths and into buffers), and which budgets an adapter refuses. Plain functions of the
//! adapter's limits, type and memory ([`AdapterFacts`]); the context ([`super::context`]) and the executor
//! ([`super::executor`]) apply them.

use super::buffers::{GpuCacheEntry, GpuPos};
use super::options::GpuOptions;
use crate::error::{MemoryError, MemoryLimit, MemoryRequest, Result, Setting};

/// Deepest tree one run counts: its per-root counts are u64 on the GPU, and perft 11 of any realistic position
/// is far below 2^64 (startpos: 2.1e15). Deeper trees are split on the host, with u128 sums.
pub const MAX_RUN_DEPTH: u32 = 11;

/// Positions per prefix-sum chunk of a level: each position has fewer than 512 children, so a chunk's children
/// offsets fit u32 (2^23 × 511 < 2^32); a larger level (on adapters whose bindings hold more than 2^23
/// positions) is scanned and planned chunk by chunk, its slices never crossing a chunk.
pub const SCAN_CHUNK: u64 = 1 << 23;

/// Most positions of a merged level: `merge.wgsl` keeps index + 1 in the low 24 bits of a slot.
pub const MERGE_MAX: u64 = (1 << 24) - 1;

/// Slots kept free for each written level below a slice, so that any one position's children fit there (a
/// legal position has at most 218 moves; artificial ones allowed with a warning stay far below 512).
pub const RESERVE: u64 = 512;

/// Bytes per position slot of a level, all its buffers together, plus its share of the merge table.
pub const SLOT_BYTES: u64 = 64 + 4 * 6 + 8 + 8;

/// Remaining depths with a transposition table of their own: 2 (the fused level) up to [`MAX_RUN_DEPTH`] (the
/// root of the deepest run).
pub const CACHE_DEPTHS: std::ops::RangeInclusive<u32> = 2..=MAX_RUN_DEPTH;

/// Share of the `--hash` budget of each remaining depth in [`CACHE_DEPTHS`], in parts of the sum: remaining 2
/// gets half, each deeper depth half of the one above it, and the deepest as much as the one above it (so the
/// parts add up to the whole). Measured on lavapipe (docs/gpu-backend.md, "Transposition tables"): a level at
/// remaining `r` holds several times the distinct positions of the level at `r + 1`, while a hit there saves
/// a whole subtree of `r` plies; halving keeps the shallow tables from evicting the deep, valuable entries
/// and gave the most hits per byte of the splits tried ([`split_cache`]).
pub const CACHE_WEIGHTS: [u64; 10] = [256, 128, 64, 32, 16, 8, 4, 2, 1, 1];

/// Entries of each depth's table for a budget of `total` entries: shares by [`CACHE_WEIGHTS`] (halving from
/// remaining depth 2 down). The sum never exceeds `total`.
pub fn split_cache(total: u64) -> Vec<u64> {
    let weight: u64 = CACHE_WEIGHTS.iter().sum();
    CACHE_WEIGHTS
        .iter()
        .map(|&w| (u128::from(total) * u128::from(w) / u128::from(weight)) as u64)
        .collect()
}

/// The buffers of one table of `share` entries, each at most `buffer` entries: `(parts, len)`, `parts`
/// buffers of `len` entries each (`parts * len <= share`): the fewest that hold the share (at least 1), of
/// equal size.
pub fn cache_parts(share: u64, buffer: u64) -> (u64, u64) {
    let parts = share.div_ceil(buffer.max(1)).max(1);
    (parts, (share / parts).min(buffer))
}

/// Bytes of one transposition-table entry.
pub const CACHE_ENTRY_BYTES: u64 = std::mem::size_of::<GpuCacheEntry>() as u64;

/// The host table's key: the whole position and the remaining depth.
pub type HostKey = (GpuPos, u32);

/// Most MiB of the host table (its share of `--hash` is [`host_table_mb`]): 2^18 buckets, 229,376 entries; the
/// top levels of the deepest runs hold far fewer distinct positions.
pub const HOST_TABLE_MAX_MB: u64 = 32;

/// Bytes of one bucket of the host table: the entry (key and u128 count, 96 bytes) and hashbrown's control byte.
pub const HOST_BUCKET_BYTES: u64 = std::mem::size_of::<(HostKey, u128)>() as u64 + 1;

/// The host table's share of a `--hash` of `hash_mb` MiB: an eighth, at most [`HOST_TABLE_MAX_MB`]; the GPU
/// tables get the rest.
pub fn host_table_mb(hash_mb: u64) -> u64 {
    (hash_mb / 8).min(HOST_TABLE_MAX_MB)
}

/// Most entries of a host table within `mb` MiB: hashbrown keeps a power-of-two number of buckets, at most
/// 7/8 of them full, so the largest power of two whose buckets fit, times 7/8 (0 below 16 buckets: no table).
pub fn host_table_entries(mb: u64) -> usize {
    let fit = (mb << 20) / HOST_BUCKET_BYTES;
    if fit < 16 {
        return 0;
    }
    let buckets = 1u64 << (63 - fit.leading_zeros());
    (buckets / 8 * 7) as usize
}

/// Largest level an adapter with `limits` allows, in 64-byte positions, below 2^31 (so `2 * i` indexes its
/// u32 pairs). Its children's u32 offsets are prefix sums over chunks small enough not to overflow
/// ([`SCAN_CHUNK`]), and a merged level is further capped by the merge table's slots ([`level_cap`]).
pub fn level_positions(limits: &wgpu::Limits) -> u64 {
    (limits
        .max_storage_buffer_binding_size
        .min(limits.max_buffer_size)
        / 64)
        .min(u64::from(u32::MAX) / 2)
}

/// Most positions of a level: one binding ([`level_positions`]), and [`MERGE_MAX`] when the level is merged.
pub fn level_cap(limits: &wgpu::Limits, merge: bool) -> u64 {
    let cap = level_positions(limits);
    if merge {
        cap.min(MERGE_MAX)
    } else {
        cap
    }
}

/// Level slots of a budget of `budget_bytes` ([`SLOT_BYTES`] each, at least 1024).
pub fn budget_slots(budget_bytes: u64) -> u64 {
    (budget_bytes / SLOT_BYTES).max(1024)
}

/// Most roots one run of `depth` takes: one level within the budget (less the reserve for the levels below)
/// and one binding.
pub fn room_for_roots(limits: &wgpu::Limits, budget_bytes: u64, depth: u32) -> u64 {
    let below = RESERVE * u64::from(depth);
    level_positions(limits)
        .min(budget_slots(budget_bytes).saturating_sub(below))
        .max(1)
}

/// Slots a level's children may take: the level cap, and what the budget leaves after the `used` slots of
/// the levels above and the reserve of the `below` written levels under the children.
pub fn room_for_children(
    limits: &wgpu::Limits,
    budget_bytes: u64,
    merge: bool,
    used: u64,
    below: u32,
) -> u64 {
    level_cap(limits, merge)
        .min(budget_slots(budget_bytes).saturating_sub(used + RESERVE * u64::from(below)))
}

/// What the policy needs to know of an adapter: its name, type, limits and device memory.
#[derive(Clone, Copy, Debug)]
pub struct AdapterFacts<'a> {
    /// The adapter's name (in messages).
    pub name: &'a str,
    /// Discrete, integrated, CPU, …
    pub kind: wgpu::DeviceType,
    /// The device's limits.
    pub limits: &'a wgpu::Limits,
    /// The largest device-local memory heap in bytes, where the driver reports it (Vulkan).
    pub memory: Option<u64>,
}

impl AdapterFacts<'_> {
    /// The default level budget (`--gpu-mem`) in MiB: a safe share of the adapter's limits (half the largest
    /// buffer, at most 8 maximal storage bindings, 512 MiB on software adapters, 4 GiB otherwise); on a
    /// discrete GPU whose driver reports its memory, levels come first: room for two maximal levels and a
    /// quarter more for the levels above them (2.25 × [`level_positions`] × [`SLOT_BYTES`]: the two deepest
    /// written levels of a sliced run are the large ones; ≈ 15 GB where a binding holds 4 GiB), if more than
    /// that share, and at most a quarter of the device memory. The transposition tables get what is left of
    /// three quarters of it ([`AdapterFacts::default_hash_mb`]).
    pub fn default_budget_mb(&self) -> u64 {
        default_level_budget_mb(self.limits, self.kind, self.memory)
    }

    /// The default `--hash` of the GPU backend in MiB: on a discrete GPU whose driver reports its memory,
    /// three quarters of it less the level budget `budget_mb` (not limited by bindings: a depth's table takes
    /// as many buffers as it needs); elsewhere 64, like the CPU backend (a software adapter's memory is the
    /// host's, and an integrated GPU shares it).
    pub fn default_hash_mb(&self, budget_mb: u64) -> usize {
        match (self.kind, self.memory) {
            (wgpu::DeviceType::DiscreteGpu, Some(bytes)) => {
                ((bytes >> 20) * 3 / 4).saturating_sub(budget_mb).max(64) as usize
            }
            _ => 64,
        }
    }

    /// Largest `--hash` the adapter can give, in MiB, where known: on a discrete GPU, its device memory (the
    /// largest device-local heap); `None` elsewhere: on a software adapter, whose memory is the host's,
    /// [`AdapterFacts::check_hash`] checks the host's available memory instead, and an integrated GPU's
    /// device-local heap may be a small carve-out of the memory it can use. The tables are not limited by
    /// bindings (a depth may have any number of buffers).
    pub fn max_hash_mb(&self) -> Option<u64> {
        if self.kind != wgpu::DeviceType::DiscreteGpu {
            return None;
        }
        self.memory.map(|b| b >> 20)
    }

    /// Largest buffer of a transposition table, in entries: one storage binding (and one buffer), or less
    /// where `buffer_bytes` says so ([`GpuOptions::table_buffer_bytes`]; at least 64 entries).
    pub fn max_cache_table_entries(&self, buffer_bytes: Option<u64>) -> u64 {
        let bytes = self
            .limits
            .max_storage_buffer_binding_size
            .min(self.limits.max_buffer_size)
            .min(buffer_bytes.unwrap_or(u64::MAX));
        (bytes / CACHE_ENTRY_BYTES).clamp(64, u64::from(u32::MAX))
    }

    /// Entries of GPU transposition tables of `mb` MiB, if the adapter can give that much.
    ///
    /// # Errors
    /// [`crate::Error::Memory`] for [`Setting::Hash`] when it cannot (more than a discrete GPU's device memory where
    /// the driver reports it, or, on a software adapter, more than the host's available memory).
    pub fn check_hash(&self, mb: usize) -> Result<u64> {
        let wanted = vec![MemoryRequest {
            setting: Setting::Hash,
            mib: mb as u64,
            default: false,
        }];
        if let Some(max) = self.max_hash_mb().filter(|&max| mb as u64 > max) {
            return Err(MemoryError::TooMuch {
                wanted,
                limit: MemoryLimit::Device {
                    adapter: self.name.to_string(),
                    device_mib: max,
                },
            }
            .into());
        }
        if self.kind == wgpu::DeviceType::Cpu {
            crate::limits::check_host_memory(Setting::Hash, mb as u64)?;
        }
        let Some(bytes) = (mb as u64).checked_mul(1 << 20) else {
            return Err(MemoryError::TooMuch {
                wanted,
                limit: MemoryLimit::Impossible {
                    available_mib: None,
                },
            }
            .into());
        };
        Ok(bytes / CACHE_ENTRY_BYTES)
    }

    /// Refuse a level budget (`--gpu-mem`) the adapter cannot use: above what the deepest run could ever allocate
    /// (every level at the largest size one storage binding allows), or, on a software adapter, above the
    /// host's available memory.
    ///
    /// # Errors
    /// [`crate::Error::Memory`] for [`Setting::GpuMem`].
    pub fn check_budget(&self, mb: u64) -> Result<()> {
        let levels = u64::from(MAX_RUN_DEPTH) + 1;
        let max_mb = levels
            .saturating_mul(level_positions(self.limits))
            .saturating_mul(SLOT_BYTES)
            >> 20;
        if mb > max_mb {
            return Err(MemoryError::TooMuch {
                wanted: vec![MemoryRequest {
                    setting: Setting::GpuMem,
                    mib: mb,
                    default: false,
                }],
                limit: MemoryLimit::Levels {
                    adapter: self.name.to_string(),
                    max_mib: max_mb,
                    levels,
                    binding_mib: self.limits.max_storage_buffer_binding_size >> 20,
                },
            }
            .into());
        }
        if self.kind == wgpu::DeviceType::Cpu {
            crate::limits::check_host_memory(Setting::GpuMem, mb)?;
        }
        Ok(())
    }

    /// Refuse a level budget and tables that together exceed what the adapter has: the device memory of a
    /// discrete GPU whose driver reports it, or the host's available memory (a software adapter). Levels come
    /// first: the default `--hash` on a discrete GPU is what the level budget leaves
    /// ([`AdapterFacts::default_hash_mb`]).
    ///
    /// # Errors
    /// [`crate::Error::Memory`] for both settings ([`Setting::GpuMem`], then [`Setting::Hash`]).
    pub fn check_together(&self, budget_mb: u64, hash_mb: u64, opts: &GpuOptions) -> Result<()> {
        let wanted = vec![
            MemoryRequest {
                setting: Setting::GpuMem,
                mib: budget_mb,
                default: opts.gpu_mem_mb.is_none(),
            },
            MemoryRequest {
                setting: Setting::Hash,
                mib: hash_mb,
                default: opts.hash_mb.is_none(),
            },
        ];
        if self.kind == wgpu::DeviceType::Cpu {
            return crate::limits::check_host_memory_of(wanted);
        }
        // Only a discrete GPU's device-local heap is its memory (an integrated GPU may report a small
        // carve-out).
        match self.memory {
            Some(bytes)
                if self.kind == wgpu::DeviceType::DiscreteGpu
                    && budget_mb.saturating_add(hash_mb) > bytes >> 20 =>
            {
                Err(MemoryError::TooMuch {
                    wanted,
                    limit: MemoryLimit::Device {
                        adapter: self.name.to_string(),
                        device_mib: bytes >> 20,
                    },
                }
                .into())
            }
            _ => Ok(()),
        }
    }
}

/// The default level budget in MiB of an adapter with `limits`, of type `kind`, with `memory` bytes of
/// device-local memory where known ([`AdapterFacts::default_budget_mb`]).
pub fn default_level_budget_mb(
    limits: &wgpu::Limits,
    kind: wgpu::DeviceType,
    memory: Option<u64>,
) -> u64 {
    let cap = if kind == wgpu::DeviceType::Cpu {
        512
    } else {
        4096
    };
    let by_limits = ((limits.max_buffer_size / 2).min(8 * limits.max_storage_buffer_binding_size)
        >> 20)
        .clamp(16, cap);
    match (kind, memory) {
        (wgpu::DeviceType::DiscreteGpu, Some(bytes)) => {
            let two_levels = (9 * level_positions(limits) * SLOT_BYTES / 4) >> 20;
            by_limits.max(two_levels).min((bytes >> 20) / 4).max(16)
        }
        _ => by_limits,
    }
}
