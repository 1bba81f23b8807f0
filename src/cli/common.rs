//! Helpers shared by several subcommands: the `--backend` and `--protocol` choices (clap `ValueEnum`s that
//! convert to library types), building a backend, printing validity warnings, `--timeout` parsing, progress
//! bars, printing a move path, one comparison and the summary of many; the flag of each library
//! [`Setting`], which error messages name ([`flag`]).

use super::BackendArgs;
use crate::backend::{Backend, ReferenceBackend};
use crate::compare::{Comparison, FailureKind};
use crate::engines::Protocol;
use crate::error::{Result, Setting};
use crate::fast::CpuBackend;
use crate::gpu::{GpuBackend, GpuOptions};
use crate::validate::Checked;
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use serde_json::json;
use std::collections::BTreeMap;
use std::io::IsTerminal;
use std::time::Duration;

/// The flag that sets a library [`Setting`]: the command line's name for it in every error message (the
/// library's kinds keep the values and name no flag; `cli::main` installs this with
/// [`crate::error::name_settings`]).
pub fn flag(s: Setting) -> &'static str {
    match s {
        Setting::Hash => "--hash",
        Setting::GpuMem => "--gpu-mem",
        Setting::Adapter => "--adapter",
        Setting::SplitMem => "--split-mem",
        Setting::SplitDepth => "--split-depth",
        Setting::Depth => "--depth",
        Setting::Checkpoint => "--checkpoint",
        Setting::Stats => "--stats",
        Setting::StatsFull => "--stats full",
        Setting::CpuBackend => "--backend cpu",
        Setting::Shards => "--shards",
        Setting::Shard => "--shard",
        Setting::Tag => "--tag",
        Setting::Out => "--out",
        Setting::Backend => "--backend",
        Setting::ZobristSeed => "--zobrist-seed",
        Setting::MaxPlies => "--max-plies",
        Setting::Moves => "--moves",
        Setting::Plot => "--plot",
        Setting::Depths => "--depths",
        Setting::Engine => "--engine",
        Setting::PerftCommand => "--perft-command",
        Setting::Timeout => "--timeout",
        Setting::UciProtocol => "--protocol uci",
    }
}

/// Which of our backends counts (`--backend`, `--against`).
#[derive(Clone, Copy, PartialEq, Eq, Debug, clap::ValueEnum)]
pub enum BackendKind {
    /// The simple mailbox oracle (slow, obviously correct).
    Reference,
    /// The fast bitboard generator on all cores, with hash table and transposition merging.
    Cpu,
    /// WGSL compute kernels on wgpu (Vulkan, Metal, DX12, GL).
    Gpu,
}

impl BackendKind {
    /// The default backend of every command.
    pub const DEFAULT: BackendKind = BackendKind::Cpu;
}

/// Build backend `kind` from the flags (already validated by [`BackendArgs::create_kind`]); the cpu backend
/// hashes with the Zobrist keys of `zobrist_seed` when one is given.
///
/// # Errors
/// [`crate::Error::Backend`] when the backend cannot start (e.g. no GPU adapter).
pub(super) fn create_backend(
    kind: BackendKind,
    a: &BackendArgs,
    zobrist_seed: Option<u64>,
) -> Result<Box<dyn Backend>> {
    Ok(match kind {
        BackendKind::Reference => Box::new(ReferenceBackend),
        BackendKind::Cpu => {
            let cpu = CpuBackend::new(a.hash_mb(), a.threads, !a.no_merge)?;
            Box::new(match zobrist_seed {
                Some(seed) => cpu.with_zobrist_seed(seed),
                None => cpu,
            })
        }
        BackendKind::Gpu => {
            let gpu = GpuBackend::new(&GpuOptions {
                hash_mb: a.hash,
                merge: !a.no_merge,
                gpu_mem_mb: a.gpu_mem,
                adapter: a.adapter.clone(),
                table_buffer_bytes: None,
                checked_shaders: a.checked_shaders,
            })?;
            if a.verbose {
                for line in gpu.setup_lines() {
                    eprintln!("gpu: {line}");
                }
            }
            Box::new(gpu)
        }
    })
}

/// What an external engine speaks (`--protocol`).
#[derive(Clone, Copy, PartialEq, Eq, Debug, clap::ValueEnum)]
pub enum ProtocolArg {
    /// UCI: `position fen … moves …`, `go perft N`, `move: count` lines and `Nodes searched: N`.
    Uci,
    /// perftree's script protocol: `CMD "$depth" "$fen" "$moves"`, `move count` lines, a blank line, the total.
    Script,
}

impl From<ProtocolArg> for Protocol {
    fn from(p: ProtocolArg) -> Protocol {
        match p {
            ProtocolArg::Uci => Protocol::Uci,
            ProtocolArg::Script => Protocol::Script,
        }
    }
}

/// Print a position's validity warnings on stderr (perft still counts it).
pub(super) fn print_warnings(pos: &Checked) {
    for w in pos.warnings() {
        eprintln!("warning: {w}");
    }
}

/// Parse `--timeout`.
pub(super) fn timeout(secs: f64) -> Result<Duration> {
    crate::limits::timeout("--timeout", secs)
}

/// A progress bar on stderr, hidden when stderr is not a terminal or with `--quiet`.
pub(super) fn progress_bar(len: u64, quiet: bool, unit: &str) -> ProgressBar {
    if quiet || !std::io::stderr().is_terminal() {
        return ProgressBar::hidden();
    }
    let bar = ProgressBar::with_draw_target(Some(len), ProgressDrawTarget::stderr());
    if let Ok(style) = ProgressStyle::with_template(&format!(
        "{{bar:40}} {{pos}}/{{len}} {unit} {{elapsed}} ({{rate}}, ETA {{eta}})"
    )) {
        bar.set_style(style.with_key(
            "rate",
            |s: &indicatif::ProgressState, w: &mut dyn std::fmt::Write| {
                let _ = write!(w, "{}/s", short_number(s.per_sec()));
            },
        ));
    }
    bar
}

/// The deep runs' progress ([`crate::deep::work::Progress`]) drawn as a bar of positions with an ETA; hidden
/// when stderr is not a terminal or with `--quiet`. The library reports, the command line draws.
pub(super) struct PositionsBar(ProgressBar);

impl PositionsBar {
    pub(super) fn new(quiet: bool) -> PositionsBar {
        PositionsBar(progress_bar(0, quiet, "positions"))
    }
}

impl crate::deep::work::Progress for PositionsBar {
    fn start(&self, done: u64, total: u64) {
        self.0.set_length(total);
        self.0.set_position(done);
        self.0.reset_eta();
    }

    fn advance(&self, n: u64) {
        self.0.inc(n);
    }

    fn finish(&self) {
        self.0.finish_and_clear();
    }
}

/// A rate for people: `3.4`, `821.2 k`, `12.3 M`, `1.5 G`.
fn short_number(x: f64) -> String {
    match x {
        x if !x.is_finite() => "?".into(),
        x if x >= 1e9 => format!("{:.1} G", x / 1e9),
        x if x >= 1e6 => format!("{:.1} M", x / 1e6),
        x if x >= 1e4 => format!("{:.1} k", x / 1e3),
        x => format!("{x:.1}"),
    }
}

/// A spinner on stderr for one long step, hidden when stderr is not a terminal or with `--quiet`.
pub(super) fn spinner(quiet: bool) -> ProgressBar {
    if quiet || !std::io::stderr().is_terminal() {
        return ProgressBar::hidden();
    }
    let s = ProgressBar::new_spinner();
    s.enable_steady_tick(Duration::from_millis(120));
    s
}

/// A move path as printed after `path:` (`(root)` when empty).
pub(super) fn path_text(path: &[String]) -> String {
    if path.is_empty() {
        "(root)".to_string()
    } else {
        path.join(" ")
    }
}

/// Print one comparison as text.
pub(super) fn print_comparison(c: &Comparison, engine: &str) {
    let Some(f) = &c.failure else {
        println!(
            "agree: {} nodes at depth {} (engine '{engine}' and perftlab)",
            c.nodes, c.depth
        );
        return;
    };
    println!(
        "MISMATCH at depth {}: engine '{engine}' {} nodes, perftlab {}",
        c.depth, c.engine_nodes, c.nodes
    );
    println!("root:    {}", c.root);
    println!("path:    {}", path_text(&f.path));
    println!("fen:     {}", f.fen);
    println!("depth:   {}", f.depth);
    println!("missing: {}", f.missing.join(" "));
    println!("extra:   {}", f.extra.join(" "));
    if engine_listed_no_moves(f) {
        println!("note:    the engine listed no moves here, only a total (are its move lines in its format?)");
    }
    for w in &f.wrong_counts {
        println!(
            "count:   {} engine {} perftlab {}",
            w.mv, w.engine, w.perftlab
        );
    }
    let kinds: Vec<&str> = f.kinds.iter().map(|k| k.name()).collect();
    println!("kinds:   {}", kinds.join(" "));
    if let Some(e) = &c.engine_error {
        println!(
            "note:    the drill-down stopped here: the engine failed one ply deeper (see stderr)"
        );
        eprintln!("error: {e}");
    }
}

/// Whether every legal move of the failing position is missing and none extra: the engine printed no move
/// lines at all there.
fn engine_listed_no_moves(f: &crate::compare::Failure) -> bool {
    f.extra.is_empty()
        && !f.missing.is_empty()
        && Checked::from_fen(&f.fen).is_ok_and(|p| p.legal_moves().len() == f.missing.len())
}

/// Totals of a many-position comparison (`compare --suite`, `stress`).
#[derive(Default)]
pub(super) struct Summary {
    pub compared: u64,
    pub skipped: u64,
    /// Positions where the engine failed (died, hung, garbage), with the message (suites only).
    pub engine_errors: Vec<String>,
    pub nodes: u128,
    pub failures: Vec<Comparison>,
    /// Extra fields of each failure's JSON object, by failure (`stress`: its index, seed and position kind).
    pub failure_notes: Vec<serde_json::Map<String, serde_json::Value>>,
    /// Extra top-level JSON fields (`stress`: `time_to_first_failure`, `kinds`, ...).
    pub notes: serde_json::Map<String, serde_json::Value>,
}

impl Summary {
    pub fn add(&mut self, c: Comparison) {
        self.compared += 1;
        self.nodes += c.nodes;
        if c.failure.is_some() {
            self.failures.push(c);
        }
    }

    fn by_kind(&self) -> BTreeMap<&'static str, usize> {
        let mut m = BTreeMap::new();
        for f in self.failures.iter().filter_map(|c| c.failure.as_ref()) {
            for k in &f.kinds {
                *m.entry(k.name()).or_insert(0) += 1;
            }
            if f.kinds.is_empty() {
                *m.entry(FailureKind::Other.name()).or_insert(0) += 1;
            }
        }
        m
    }

    /// The summary as one JSON object.
    pub fn to_json(&self) -> serde_json::Value {
        let mut v = json!({
            // Only when every position was compared and agreed: not with engine errors or skips.
            "agree": self.failures.is_empty() && self.engine_errors.is_empty() && self.skipped == 0,
            "positions": self.compared,
            "skipped": self.skipped,
            "engine_errors": self.engine_errors,
            "failed": self.failures.len(),
            "nodes": self.nodes,
            "by_kind": self.by_kind(),
            "failures": self.failures,
        });
        if let Some(list) = v["failures"].as_array_mut() {
            for (f, notes) in list.iter_mut().zip(&self.failure_notes) {
                if let Some(obj) = f.as_object_mut() {
                    obj.extend(notes.clone());
                }
            }
        }
        if let Some(obj) = v.as_object_mut() {
            obj.extend(self.notes.clone());
        }
        v
    }

    /// After each position: what an interruption (SIGINT/SIGTERM) prints, the JSON summary so far with
    /// `--json`, and says on stderr.
    pub fn note_progress(&self, total: usize, as_json: bool) {
        crate::interrupt::set_status(format!(
            "{} of {total} positions compared ({} failed, {} skipped)",
            self.compared,
            self.failures.len(),
            self.skipped
        ));
        if as_json {
            let mut v = self.to_json();
            // Interrupted: `agree` only if every position had been compared (and agreed) already.
            let all = self.compared == total as u64;
            v["agree"] = json!(v["agree"] == json!(true) && all);
            v["interrupted"] = json!(true);
            crate::interrupt::set_partial_stdout(Some(v.to_string()));
        }
    }

    /// Print the summary (text or one JSON object).
    pub fn print(&self, as_json: bool) {
        if as_json {
            println!("{}", self.to_json());
            return;
        }
        let by_kind = self.by_kind();
        println!(
            "{} position{} compared ({} nodes), {} failed, {} skipped",
            self.compared,
            if self.compared == 1 { "" } else { "s" },
            self.nodes,
            self.failures.len(),
            self.skipped
        );
        if !self.engine_errors.is_empty() {
            println!(
                "{} positions where the engine failed (see stderr)",
                self.engine_errors.len()
            );
        }
        if !by_kind.is_empty() {
            let parts: Vec<String> = by_kind.iter().map(|(k, n)| format!("{k} {n}")).collect();
            println!("failures by kind: {}", parts.join(", "));
        }
    }
}
