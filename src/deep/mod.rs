//! Deep runs: splitting a perft into the distinct positions of a shallow ply (with multiplicities), counting
//! them with a checkpoint journal so that a killed run resumes, and work units for clusters.
//!
//! - [`split`]: the split frontier (distinct positions, multiplicity, multiplicity per root move);
//! - [`group`]: the frontier's positions grouped so that transpositions of the next ply fall in one shard or
//!   GPU batch;
//! - [`seal`]: SHA-256 checksums on JSON records, exact u128 JSON numbers, atomic file writes;
//! - [`journal`]: the append-only checkpoint journal (one sealed record per finished position);
//! - [`snapshot`]: the backend's hash table saved beside a journal, so that a resumed run keeps it;
//! - [`work`]: counting positions in batches of one backend call each, one journal write per batch, progress
//!   reported to the caller ([`work::Progress`]) and the time outside the backend measured, summing
//!   multiplicity × result in u128;
//! - [`plan`]: `plan` (plan.json, units/, Slurm / Kubernetes / GNU parallel launchers, estimate);
//! - [`units`]: a loaded plan, `run-unit`, `status` and `merge`.
//!
//! Nothing here prints: what a run has to tell its user on the way (a resumed journal, a cut-off journal
//! line, a shard already done) goes to a `note` callback, which the command line prints on stderr.
//!
//! Statistics columns are leaf counts of the last ply, so the subtree statistics of a frontier position depend
//! on that position only and combine exactly like node counts.

pub mod build;
pub mod group;
pub mod journal;
pub mod plan;
pub mod seal;
pub mod snapshot;
pub mod split;
pub mod units;
pub mod work;

use crate::backend::{Backend, Detail};
use crate::bitboard::board::{Board, CastlingData};
use crate::error::{Error, Part, Result, Setting, SettingError};
use crate::validate::Checked;
use journal::Journal;
use serde_json::json;
use std::path::Path;
use work::Totals;

/// Fewest frontier positions a checkpointed `perft` splits into when the split ply is chosen automatically:
/// enough that a killed run loses little, and deep enough that transpositions are merged at the split rather
/// than found again through the hash table (start position: ply 3, 5,362 positions; measured in the README).
pub const AUTO_SPLIT_POSITIONS: usize = 2000;

/// Deepest automatically chosen split ply.
pub const AUTO_SPLIT_MAX_PLY: u32 = 3;

/// With `--checkpoint`, runs of at least this depth split at ply 4 (when below the depth): the positions below
/// the split are then shallow enough that a resumed run, which starts with an empty hash table, redoes little
/// (start position perft 8: a resumed run cost 3 % more CPU time than an uninterrupted one at ply 4, 27 % more
/// at ply 3; see the README).
pub const CHECKPOINT_PLY4_DEPTH: u32 = 8;

/// [`CHECKPOINT_PLY4_DEPTH`] on the GPU, from which a checkpointed run chooses its split ply by
/// [`checkpoint_split`]: a GPU batch merges transpositions only within itself, and in the [`group`] order a
/// batch of positions holds together those of the ply below, so the split is 3 plies above the leaves (start
/// position perft 7 on lavapipe, `--checkpoint`: split at ply 3 the batches counted about 1.3× the plain
/// count's CPU time, at ply 4 about 1.0×; Kiwipete perft 6, three rounds: at ply 2, the first with 2,000
/// positions, 1.08× by the medians, at ply 3 1.02×; docs/deep-runs.md, "GPU units" and "GPU killed and
/// resumed at perft 8, Kiwipete 6 (session 65)").
pub const GPU_CHECKPOINT_CHOSEN_DEPTH: u32 = 6;

/// Shallowest split ply a checkpointed GPU run chooses by itself ([`checkpoint_split`]).
pub const GPU_CHECKPOINT_MIN_PLY: u32 = 3;

/// Deepest split ply a checkpointed GPU run chooses by itself ([`checkpoint_split`]): at ply 5 the start
/// position has 822,518 distinct positions (a journal of about 200 MB when finished), at ply 6 9,417,681.
pub const GPU_CHECKPOINT_MAX_PLY: u32 = 5;

/// The split ply of a checkpointed run of `depth` ≥ [`CHECKPOINT_PLY4_DEPTH`] (on a backend that merges only
/// within a batch, `grouped`: ≥ [`GPU_CHECKPOINT_CHOSEN_DEPTH`]) that names none: ply 4 on the CPU; on the GPU
/// [`plan::GROUPED_SPLIT_REST`] plies above the leaves, between [`GPU_CHECKPOINT_MIN_PLY`] and
/// [`GPU_CHECKPOINT_MAX_PLY`], so that a batch's fused level is the one below its positions, as for the GPU's
/// units (start perft 8 on lavapipe,
/// `--threads 2`, one round on a loaded machine: split at ply 4 1.41× the plain count's CPU seconds, at ply 5
/// 0.97×; docs/deep-runs.md, "GPU checkpoint at perft 8 (session 64)").
pub fn checkpoint_split(depth: u32, grouped: bool) -> u32 {
    match grouped {
        true => depth
            .saturating_sub(plan::GROUPED_SPLIT_REST)
            .clamp(GPU_CHECKPOINT_MIN_PLY, GPU_CHECKPOINT_MAX_PLY),
        false => 4,
    }
}

/// The ply whose positions a split run without a journal counts, the user having named `split`: on a backend
/// that merges transpositions only within a batch (`grouped`) and from depth [`GPU_CHECKPOINT_CHOSEN_DEPTH`],
/// [`checkpoint_split`]'s ply when it is deeper, else `split`. No position's count is shown or kept, so the
/// split ply only sets the batches and the progress bar; a GPU batch of positions four plies above the leaves
/// merged its fused level two plies down only by 1 % (the grouped order keeps the next ply's transpositions
/// together, not those of the ply after: docs/deep-runs.md, "GPU units (session 63)"). A run with a journal
/// keeps the ply it names: the journal lists those positions.
pub fn batch_split(split: u32, depth: u32, grouped: bool) -> u32 {
    if grouped && depth >= GPU_CHECKPOINT_CHOSEN_DEPTH {
        split.max(checkpoint_split(depth, true))
    } else {
        split
    }
}

/// The split ply in the header of the `perft` journal at `path`, if it is a readable one (anything else is
/// left to [`Journal::open`] to refuse).
fn journal_split(path: &Path) -> Option<u32> {
    use std::io::{BufRead, Read};
    let file = std::fs::File::open(path).ok()?;
    if !file.metadata().ok()?.is_file() {
        return None;
    }
    let mut line = String::new();
    std::io::BufReader::new(file.take(1 << 16))
        .read_line(&mut line)
        .ok()?;
    let v: serde_json::Value = serde_json::from_str(&line).ok()?;
    let id = &v["identity"];
    if id["command"] != "perft" {
        return None;
    }
    u32::try_from(id["split_depth"].as_u64()?).ok()
}

/// SHA-256 of a frontier's position list (FEN and multiplicity per line), naming it in journals and plans.
pub fn frontier_sha(f: &split::Frontier) -> String {
    let mut text = String::new();
    for p in f.pieces() {
        use std::fmt::Write;
        let _ = writeln!(text, "{} {}", p.fen, p.mult);
    }
    seal::sha256_hex(text.as_bytes())
}

/// Options of a split `perft` run.
pub struct SplitRun<'a> {
    /// Split ply (None: an existing journal's, else with a checkpoint and depth ≥
    /// [`CHECKPOINT_PLY4_DEPTH`] (on the GPU [`GPU_CHECKPOINT_CHOSEN_DEPTH`]) [`checkpoint_split`], else the
    /// first ply with at least [`AUTO_SPLIT_POSITIONS`] positions, at most [`AUTO_SPLIT_MAX_PLY`]). Without a
    /// journal, a backend that merges only within a batch may count a deeper ply ([`batch_split`]).
    pub split: Option<u32>,
    /// Statistics columns to count (None: only nodes).
    pub stats: Option<Detail>,
    /// Keep per-root-move counts.
    pub divide: bool,
    /// Root moves in Chess960 notation.
    pub chess960: bool,
    /// Journal file.
    pub checkpoint: Option<&'a Path>,
    /// Where progress is reported ([`work::NoProgress`] for none).
    pub progress: &'a dyn work::Progress,
    /// Memory budget of the split frontier, MiB (`--split-mem`; see [`split::budget_mib`]).
    pub split_mem: u64,
    /// The Zobrist seed when not the default one (part of the journal's identity, so that a resumed run
    /// does not mix two hashings).
    pub zobrist_seed: Option<u64>,
    /// The backend's hash table, saved beside the journal and loaded on resume ([`snapshot`]; None: not
    /// saved).
    pub table: Option<std::sync::Arc<dyn snapshot::TableStore>>,
}

/// What a split `perft` found, and where its time went.
#[derive(Clone, Debug)]
pub struct SplitOutcome {
    /// The totals (the journal's positions included).
    pub totals: Totals,
    /// Leaves counted by this run (less than the total when positions came from the journal).
    pub counted: u128,
    /// Seconds spent inside backend calls.
    pub backend_seconds: f64,
    /// Backend calls made.
    pub batches: usize,
    /// The ply whose positions were counted ([`batch_split`] may make it deeper than the one named).
    pub split_ply: u32,
}

/// Refuse a split depth `split` for a count of `depth`: it must be at least 1, below `depth`, and at most 6
/// plies (deeper frontiers do not fit in memory).
///
/// # Errors
/// [`Error::Setting`] of [`Setting::SplitDepth`] with the value.
pub fn check_split_depth(split: u32, depth: u32) -> Result<()> {
    if split == 0 || split >= depth {
        return Err(SettingError {
            setting: Setting::SplitDepth,
            value: Some(split.to_string()),
            reason: vec![
                Part::Text("must be at least 1 and below ".into()),
                Part::Setting(Setting::Depth),
                Part::Text(format!(" ({depth})")),
            ],
        }
        .into());
    }
    if split > 6 {
        return Err(SettingError::new(
            Setting::SplitDepth,
            Some(split.to_string()),
            "is deeper than 6 plies; the frontier would not fit in memory",
        )
        .into());
    }
    Ok(())
}

/// The frontier's positions in counting order, made from its boards when their batch is counted: the
/// expansion's order ([`split::Frontier::count_order`]), or on the GPU the [`group`] order.
struct FrontierPositions<'a> {
    /// `order[j]`: the index (FEN order) of the `j`-th board.
    order: Vec<usize>,
    /// `grouped[k]`: the board counted `k`-th (None: the `k`-th).
    grouped: Option<Vec<u32>>,
    f: &'a split::Frontier,
    boards: split::Boards,
}

impl FrontierPositions<'_> {
    /// The board counted `k`-th.
    fn board(&self, k: usize) -> usize {
        self.grouped.as_ref().map_or(k, |g| g[k] as usize)
    }
}

impl work::Positions for FrontierPositions<'_> {
    fn len(&self) -> usize {
        self.order.len()
    }
    fn index(&self, k: usize) -> usize {
        self.order[self.board(k)]
    }
    fn fen(&self, k: usize) -> &str {
        self.f.piece(self.index(k)).fen
    }
    fn position(&self, k: usize) -> Result<Checked> {
        self.boards.checked(self.board(k))
    }
    fn castling_data(&self) -> Option<&CastlingData> {
        Some(self.boards.shared_castling_data())
    }
    fn board(&self, k: usize) -> Result<Board> {
        self.boards.board(FrontierPositions::board(self, k))
    }
    fn board_run(&self, ks: std::ops::Range<usize>) -> Option<Result<&[Board]>> {
        // The `k`-th board is counted `k`-th unless grouped.
        self.grouped.is_none().then(|| self.boards.run(ks))
    }
}

/// `perft` split at a frontier, each position journaled when `checkpoint` is set (resuming from it when it
/// exists). `depth` must be at least 2. The positions are counted in batches ([`work::run_positions`]).
/// Returns the totals, the leaves counted by this run (less than the total when positions came from the
/// journal) and the time spent in the backend. `note` receives the lines to show the user (a resumed or
/// cut-off journal).
///
/// # Errors
/// [`Error::Setting`] for a bad split depth ([`Setting::SplitDepth`]) or checkpoint file, a foreign or damaged
/// journal ([`Setting::Checkpoint`]); [`Error::Memory`] for a frontier over its budget; backend failures.
pub fn perft_split(
    engine: &dyn Backend,
    root: &Checked,
    depth: u32,
    o: &SplitRun<'_>,
    note: &mut dyn FnMut(&str),
) -> Result<SplitOutcome> {
    if o.checkpoint.is_some_and(|p| p.as_os_str().is_empty()) {
        return Err(SettingError::new(
            Setting::Checkpoint,
            Some(String::new()),
            "is not a file name",
        )
        .into());
    }
    if let Some(s) = o.split {
        check_split_depth(s, depth)?;
    }
    // Only a journal names the positions (by FEN): a count without one skips their text.
    let named = o.checkpoint.is_some();
    // Without a journal or a divide, no per-root-move records either: each ply expanded whole.
    let make = |s| match named || o.divide {
        true => split::frontier_with_boards(root, s, o.chess960, o.split_mem, named),
        false => split::frontier_bare(root, s, o.chess960, o.split_mem),
    };
    let grouped = engine.merges_only_within_batch();
    let ply4_from = if grouped {
        GPU_CHECKPOINT_CHOSEN_DEPTH
    } else {
        CHECKPOINT_PLY4_DEPTH
    };
    // A journal is resumed at the split ply it was written with (an older version may have chosen another).
    let written = o
        .checkpoint
        .and_then(journal_split)
        .filter(|&s| check_split_depth(s, depth).is_ok());
    let (s, (f, boards)) = match o.split.or(written) {
        Some(s) => {
            let deeper = match o.checkpoint {
                None => batch_split(s, depth, grouped),
                Some(_) => s,
            };
            // A deeper frontier over the memory budget falls back to the ply named.
            match (deeper > s).then(|| make(deeper)) {
                Some(Ok(f)) => (deeper, f),
                _ => (s, make(s)?),
            }
        }
        None if o.checkpoint.is_some() && depth >= ply4_from => {
            let s = checkpoint_split(depth, grouped);
            (s, make(s)?)
        }
        None => {
            let mut s = 1;
            loop {
                let f = make(s)?;
                if f.0.len() >= AUTO_SPLIT_POSITIONS || s + 1 >= depth || s >= AUTO_SPLIT_MAX_PLY {
                    break (s, f);
                }
                s += 1;
            }
        }
    };
    // The journal names its positions by their FEN texts, which the frontier holds.
    let fens: Vec<&str> = if o.checkpoint.is_some() {
        f.pieces().map(|p| p.fen).collect()
    } else {
        Vec::new()
    };
    let mut journal = match o.checkpoint {
        Some(path) => {
            let mut identity = json!({
                "command": "perft",
                "fen": root.to_fen(),
                "depth": depth,
                "split_depth": s,
                // false / true as journals before `--stats full` wrote them (so they still resume), "full"
                // for the full columns: a journal of other columns is refused.
                "stats": match o.stats {
                    None => json!(false),
                    Some(Detail::Cpw) => json!(true),
                    Some(Detail::Full) => json!("full"),
                },
                "positions": f.len(),
                "frontier_sha256": frontier_sha(&f),
            });
            if let Some(seed) = o.zobrist_seed {
                identity["zobrist_seed"] = json!(seed);
            }
            let j = Journal::open(path, identity, &fens).map_err(|e| match e {
                Error::Usage(m) => SettingError::new(Setting::Checkpoint, None, m).into(),
                other => other,
            })?;
            if let Some(w) = &j.cut_off {
                note(w);
            }
            if !j.done.is_empty() {
                note(&format!(
                    "resuming from {}: {} of {} positions of the split frontier (ply {s}) already done",
                    path.display(),
                    j.done.len(),
                    f.len()
                ));
            }
            Some(j)
        }
        None => None,
    };
    drop(fens);
    // In the order the expansion found the positions (siblings together, as a plain count walks them), so
    // that the one hash table of the run still holds the transpositions they share
    // ([`split::Frontier::count_order`]); on the GPU, whose batches merge transpositions only within
    // themselves, grouped so that those of the next ply fall in one batch ([`group`]). Made from the boards
    // one batch at a time, not parsed back from their FEN text.
    let grouped = engine
        .merges_only_within_batch()
        .then(|| group::grouped_found(&boards));
    let todo = FrontierPositions {
        order: f.count_order(),
        grouped,
        f: &f,
        boards,
    };
    let resume = match o.checkpoint {
        Some(p) => format!(
            "; they are saved in {}: run the same command again to resume",
            p.display()
        ),
        None => format!(
            "; nothing was saved (use {} FILE to make a run resumable)",
            crate::error::named(Setting::Checkpoint)
        ),
    };
    let resumed: std::collections::BTreeSet<usize> = journal
        .as_ref()
        .map(|j| j.done.keys().copied().collect())
        .unwrap_or_default();
    let (what, rest) = (format!("perft depth {depth}"), depth - s);
    let run = match journal.as_mut() {
        Some(j) => snapshot::run_journaled(
            engine,
            &todo,
            rest,
            o.stats,
            j,
            o.table.clone(),
            None,
            o.progress,
            &what,
            &resume,
            note,
        )?,
        None => work::run_positions(
            engine, &todo, rest, o.stats, None, o.progress, &what, &resume,
        )?,
    };
    // The results by place in the counting order, each with its index in the frontier.
    let results = || {
        run.results
            .iter()
            .enumerate()
            .map(|(k, r)| (work::Positions::index(&todo, k), r))
    };
    let counted = results()
        .filter(|(i, _)| !resumed.contains(i))
        .map(|(i, r)| f.mult(i) * r.nodes)
        .sum();
    Ok(SplitOutcome {
        totals: work::frontier_totals(&f, results(), o.divide),
        counted,
        backend_seconds: run.backend_seconds,
        batches: run.batches,
        split_ply: s,
    })
}

#[cfg(test)]
mod tests {
    /// A checkpointed run that names no split ply: ply 4 on the CPU; on the GPU three plies above the leaves,
    /// between ply 3 and 5 (start perft 8 at ply 5, Kiwipete 6 at ply 3: docs/deep-runs.md, "GPU checkpoint at
    /// perft 8" and "GPU killed and resumed at perft 8, Kiwipete 6").
    #[test]
    fn a_gpu_checkpoint_splits_three_plies_above_the_leaves_between_ply_3_and_5() {
        let cpu: Vec<u32> = (8..=12)
            .map(|d| super::checkpoint_split(d, false))
            .collect();
        assert_eq!(cpu, [4, 4, 4, 4, 4]);
        let gpu: Vec<u32> = (6..=12).map(|d| super::checkpoint_split(d, true)).collect();
        assert_eq!(gpu, [3, 4, 5, 5, 5, 5, 5]);
    }

    /// A split without a journal on the GPU counts by the positions three plies above the leaves where they are
    /// deeper than the ply named (at most ply 5, from depth 6); on the CPU, and where the named ply is as deep,
    /// by the named ply.
    #[test]
    fn a_gpu_split_without_a_journal_counts_three_plies_above_the_leaves() {
        use super::batch_split;
        assert_eq!(batch_split(4, 8, true), 5);
        assert_eq!(batch_split(3, 8, true), 5);
        assert_eq!(batch_split(4, 7, true), 4);
        assert_eq!(batch_split(2, 6, true), 3);
        assert_eq!(batch_split(6, 9, true), 6);
        assert_eq!(batch_split(2, 5, true), 2);
        assert_eq!(batch_split(4, 8, false), 4);
    }
}
