//! The `gpu` object of `perft --backend gpu --json` (and the `--verbose` table): what the GPU did since the
//! backend was made. Counters are kept by the context ([`super::device::Counters`]) and the driver; the
//! per-level distinct positions and cache hits are counted on the GPU (64-bit counters in the `tally` buffer:
//! cache hits at `[2 * remaining]`, distinct positions after merging at `[64 + 2 * remaining]`, as (lo, hi)
//! words) and read back only when the report is made.

use serde::Serialize;

/// Work of the GPU backend.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct GpuReport {
    /// The adapter: name (backend, device type); with several, their descriptions joined by " + ".
    pub adapter: String,
    /// What each adapter used did (one entry per adapter, in `--adapter` order).
    pub adapters: Vec<AdapterWork>,
    /// GPU runs executed (one batch of roots each).
    pub runs: u64,
    /// Runs abandoned and split: always 0, splits are planned (see `driver`).
    pub retries: u64,
    /// Command buffers submitted.
    pub submits: u64,
    /// Blocking read-backs.
    pub readbacks: u64,
    /// Bytes written to device memory (kernel writes as per-thread upper bounds times dispatched threads,
    /// plus clears and uploads).
    pub bytes_written: u64,
    /// Largest total of buffers held at once.
    pub peak_bytes: u64,
    /// Subtree counts found in the host table (roots of a batch, positions of the host levels).
    pub host_hits: u64,
    /// Distinct positions expanded on the host, above the GPU runs.
    pub host_positions: u64,
    /// Per written level (by remaining depth, deepest first in the tree order: highest remaining first).
    pub levels: Vec<LevelReport>,
}

/// The work of one adapter (`adapters` of the `gpu` object).
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct AdapterWork {
    /// Adapter name.
    pub name: String,
    /// Graphics API (`vulkan`, `gl`, …).
    pub backend: String,
    /// GPU runs it executed.
    pub runs: u64,
    /// Roots of those runs: the positions it counted (host-level positions, root moves, suite positions).
    pub positions: u64,
}

/// One written level, summed over runs and slices.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct LevelReport {
    /// Remaining depth of the level's positions.
    pub remaining: u32,
    /// Positions written (slots).
    pub positions: u64,
    /// Distinct positions after merging (= positions when merging is off).
    pub distinct: u64,
    /// Positions whose subtree count came from the cache.
    pub cache_hits: u64,
    /// Milliseconds of GPU time from timestamp queries around each compute pass (the passes that write the
    /// level, work on it and carry its counts up); `null` when the adapter has no timestamp queries.
    pub ms: Option<f64>,
}

impl GpuReport {
    /// The reports of several adapters as one: their work added up (levels by remaining depth; `peak_bytes`
    /// is the sum of each adapter's peak), `adapters` listing each.
    pub fn merged(reports: Vec<GpuReport>) -> GpuReport {
        let mut out = GpuReport::default();
        let mut levels: std::collections::BTreeMap<u32, LevelReport> = Default::default();
        let mut names = Vec::new();
        for r in reports {
            names.push(r.adapter);
            out.adapters.extend(r.adapters);
            out.runs += r.runs;
            out.retries += r.retries;
            out.submits += r.submits;
            out.readbacks += r.readbacks;
            out.bytes_written += r.bytes_written;
            out.peak_bytes += r.peak_bytes;
            out.host_hits += r.host_hits;
            out.host_positions += r.host_positions;
            for l in r.levels {
                let e = levels.entry(l.remaining).or_insert_with(|| LevelReport {
                    remaining: l.remaining,
                    ms: l.ms.map(|_| 0.0),
                    ..LevelReport::default()
                });
                e.positions += l.positions;
                e.distinct += l.distinct;
                e.cache_hits += l.cache_hits;
                e.ms = match (e.ms, l.ms) {
                    (Some(a), Some(b)) => Some(a + b),
                    (a, b) => a.or(b),
                };
            }
        }
        out.adapter = names.join(" + ");
        out.levels = levels.into_values().rev().collect();
        out
    }

    /// The report as the `--verbose` table.
    pub fn table(&self) -> String {
        let mut out = format!(
            "gpu: adapter {}\ngpu: runs {}, retries {}, submits {}, readbacks {}, bytes written {}, peak bytes {}\n\
             gpu: host positions {}, host table hits {}\n",
            self.adapter,
            self.runs,
            self.retries,
            self.submits,
            self.readbacks,
            self.bytes_written,
            self.peak_bytes,
            self.host_positions,
            self.host_hits
        );
        if self.adapters.len() > 1 {
            for a in &self.adapters {
                out.push_str(&format!(
                    "gpu: adapter {} ({}): {} runs, {} positions\n",
                    a.name, a.backend, a.runs, a.positions
                ));
            }
        }
        out.push_str(&format!(
            "gpu: {:>9} {:>14} {:>14} {:>12} {:>8}\n",
            "remaining", "positions", "distinct", "cache hits", "ms"
        ));
        for l in &self.levels {
            out.push_str(&format!(
                "gpu: {:>9} {:>14} {:>14} {:>12} {:>8}\n",
                l.remaining,
                l.positions,
                l.distinct,
                l.cache_hits,
                l.ms.map_or("-".to_string(), |m| format!("{m:.1}"))
            ));
        }
        out
    }
}
