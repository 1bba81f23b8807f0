//! The GPU backend's start: opening the device builds no pipeline, a count builds only the kernels it
//! dispatches (each at its first use: `src/gpu/device.rs`), and the count is exact. On lavapipe a pipeline
//! costs about 35 ms of CPU, so a process that counts pays only for the kernels of its runs (docs/deep-runs.md,
//! "GPU start"). Same adapter rule as `tests/gpu.rs` (`CI=true`: lavapipe or fail; elsewhere it skips).
//!
//! Expected counts: Chess Programming Wiki "Perft Results" (start position, perft 3: 8,902 and perft 5:
//! 4,865,609; Kiwipete, perft 3: 97,862), as in `tests/data/cpw-detail.csv`.
#![cfg(feature = "gpu")]

#[path = "../src/gpu/tests/adapter.rs"]
mod adapter;

use perftlab::backend::Backend;
use perftlab::cpw::KIWIPETE;
use perftlab::gpu::{GpuBackend, GpuOptions, Kernel};
use perftlab::Checked;

#[test]
fn a_count_builds_only_the_kernels_it_dispatches() {
    let Some(g) = adapter::gpu("a_count_builds_only_the_kernels_it_dispatches") else {
        return;
    };
    assert!(
        g.built_kernels().is_empty(),
        "no pipeline is built when the device opens"
    );
    assert_eq!(g.perft(&Checked::startpos(), 5).unwrap(), 4_865_609);
    let kiwi = Checked::from_fen(KIWIPETE.fen).unwrap();
    assert_eq!(g.perft(&kiwi, 3).unwrap(), 97_862);
    let built = g.built_kernels();
    let (first, next) = g.kernel_order();
    assert!(
        built.contains(&Kernel::Count) && built.contains(&Kernel::Merge),
        "the counts ran count and merge: {built:?}"
    );
    for k in &built {
        assert!(
            first.contains(k) || next.contains(k),
            "{k:?} is built but no perft run uses it ({built:?})"
        );
    }
    for k in [Kernel::Moves, Kernel::Stats, Kernel::Leaf2] {
        assert!(
            !built.contains(&k),
            "{k:?} was built for a perft: {built:?}"
        );
    }
}

#[test]
fn a_prepared_kernel_is_built_before_any_count() {
    let Some(g) = adapter::gpu("a_prepared_kernel_is_built_before_any_count") else {
        return;
    };
    g.prepare_kernels(&[Kernel::Moves]);
    assert_eq!(g.built_kernels(), [Kernel::Moves]);
    assert_eq!(g.perft(&Checked::startpos(), 3).unwrap(), 8_902);
}
