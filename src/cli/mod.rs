//! The `perftlab` command line (clap derive; the only place clap is used). Each subcommand lives in its own
//! module; this one parses, dispatches and maps errors to exit codes (0 success, 1 mismatch or failed check,
//! 2 bad input or usage). Helpers shared by several subcommands (choosing and building a backend, progress
//! bars, summaries) are in `common`.

mod analyze;
mod bench;
mod common;
mod compare;
mod dead;
mod deep;
mod devices;
mod perft;
mod perftree;
mod pictures;
mod proofgame;
mod reachable;
mod signals;
mod stress;
mod suite;
mod table;
mod verify;

use crate::backend::Backend;
use crate::error::{Error, Result};
use crate::limits;
use crate::position::Setup;
use crate::validate::Checked;
use clap::{Args, Parser, Subcommand};
use common::BackendKind;

/// The exit codes, shown after the `--help` of perftlab and of every subcommand.
pub(crate) const EXIT_CODES: &str = "Exit codes: 0 success; 1 a count mismatch or failed check; 2 bad input or \
                                     usage (also an engine or GPU that cannot run); 130 / 143 interrupted by \
                                     SIGINT / SIGTERM (what was finished is printed); 141 standard output \
                                     closed by its reader.";

/// Count chess move trees (perft) on the GPU and CPU, check move generators, analyse positions.
#[derive(Parser, Debug)]
#[command(
    name = "perftlab",
    version,
    about,
    after_help = EXIT_CODES
)]
pub(crate) struct Cli {
    /// What to do.
    #[command(subcommand)]
    pub command: Command,
}

/// Subcommands, each one's arguments [`Lazy`].
#[derive(Subcommand, Debug)]
pub(crate) enum Command {
    /// Count the leaves of the legal move tree (with divide and detail statistics).
    #[command(after_help = EXIT_CODES)]
    Perft(Lazy<perft::PerftArgs>),
    /// Run a perft suite file (EPD `;D1 n` lines or `id`/`epd`/`perft` blocks).
    #[command(after_help = EXIT_CODES)]
    Suite(Lazy<suite::SuiteArgs>),
    /// Compare the legal move sets of two generators at every node of a tree.
    #[command(after_help = EXIT_CODES)]
    Verify(Lazy<verify::VerifyArgs>),
    /// Compare an external engine's divide (UCI `go perft` or a perftree script) and drill down to the
    /// minimal failing position.
    #[command(after_help = EXIT_CODES)]
    Compare(Lazy<compare::CompareArgs>),
    /// Compare an external engine on rule-directed positions (e.p., castling, Chess960, promotions, checks,
    /// pins, mates, clocks, dead material, suites), then random playouts; group failures by move kind.
    #[command(after_help = EXIT_CODES)]
    Stress(Lazy<stress::StressArgs>),
    /// Behave as a perftree script: `perftlab perftree DEPTH FEN [MOVES]`.
    #[command(after_help = EXIT_CODES)]
    Perftree(Lazy<perftree::PerftreeArgs>),
    /// Analyse a position: validity, check, pins, legal moves (UCI and SAN), game state.
    #[command(after_help = EXIT_CODES)]
    Analyze(Lazy<analyze::AnalyzeArgs>),
    /// Print a CPW-style perft table (nodes, captures, e.p., castles, promotions, checks, mates per depth).
    #[command(after_help = EXIT_CODES)]
    Table(Lazy<table::TableArgs>),
    /// Time the six CPW perft positions (counts checked), optionally against Stockfish.
    #[command(after_help = EXIT_CODES)]
    Bench(Lazy<bench::BenchArgs>),
    /// List the GPU adapters (name, backend, type, limits) that `--adapter` can choose.
    #[command(after_help = EXIT_CODES)]
    Devices(Lazy<devices::DevicesArgs>),
    /// Split a deep perft into work units for Slurm, Kubernetes or GNU parallel (plan.json, units/, launchers).
    #[command(after_help = EXIT_CODES)]
    Plan(Lazy<deep::PlanArgs>),
    /// Count one shard of a plan (idempotent, resumable; atomic result file).
    #[command(after_help = EXIT_CODES)]
    RunUnit(Lazy<deep::RunUnitArgs>),
    /// Which shards of a plan are done, partial or missing (exit 0 when complete, 1 otherwise).
    #[command(after_help = EXIT_CODES)]
    Status(Lazy<deep::StatusArgs>),
    /// Check every shard's result and sum multiplicity × result (printed like `perft`).
    #[command(after_help = EXIT_CODES)]
    Merge(Lazy<deep::MergeArgs>),
    /// Is a position reachable by a legal game (FIDE 3.10.3)? A proof game, a proof of impossibility, or
    /// undetermined; one --fen or a file of FENs.
    #[command(after_help = EXIT_CODES)]
    Reachable(Lazy<reachable::ReachableArgs>),
    /// Decide whether each side can still checkmate (FIDE 1.5 dead positions, 6.9 flag-fall), with proofs.
    #[command(after_help = EXIT_CODES)]
    Dead(Lazy<dead::DeadArgs>),
    /// Proof-game problems: every game of exactly N plies reaching a diagram; unique, cooked, no solution.
    #[command(after_help = EXIT_CODES)]
    Proofgame(Lazy<proofgame::ProofgameArgs>),
}

/// A subcommand's arguments, added to its [`clap::Command`] only when that subcommand is parsed or its help is
/// shown (`clap::Command::defer`). Building every subcommand's arguments took 570,000 instructions of every
/// start, a third of a one-line `dead --scan`. The subcommand keeps the description its variant gives
/// (`perftlab --help` lists it), not the one its arguments' type would set when they are added.
#[derive(Debug)]
pub(crate) struct Lazy<T>(pub T);

impl<T: clap::Args> clap::Args for Lazy<T> {
    fn augment_args(cmd: clap::Command) -> clap::Command {
        cmd.defer(|c| keep_about(c, T::augment_args))
    }
    fn augment_args_for_update(cmd: clap::Command) -> clap::Command {
        cmd.defer(|c| keep_about(c, T::augment_args_for_update))
    }
    fn group_id() -> Option<clap::Id> {
        T::group_id()
    }
}

/// `add` the arguments to `c`, then give back `c`'s own descriptions.
fn keep_about(c: clap::Command, add: fn(clap::Command) -> clap::Command) -> clap::Command {
    use clap::builder::Resettable;
    let keep = |text: Option<&clap::builder::StyledStr>| {
        text.cloned().map_or(Resettable::Reset, Resettable::Value)
    };
    let (about, long) = (keep(c.get_about()), keep(c.get_long_about()));
    add(c).about(about).long_about(long)
}

impl<T: clap::FromArgMatches> clap::FromArgMatches for Lazy<T> {
    fn from_arg_matches(m: &clap::ArgMatches) -> std::result::Result<Self, clap::Error> {
        T::from_arg_matches(m).map(Lazy)
    }
    fn from_arg_matches_mut(m: &mut clap::ArgMatches) -> std::result::Result<Self, clap::Error> {
        T::from_arg_matches_mut(m).map(Lazy)
    }
    fn update_from_arg_matches(
        &mut self,
        m: &clap::ArgMatches,
    ) -> std::result::Result<(), clap::Error> {
        self.0.update_from_arg_matches(m)
    }
    fn update_from_arg_matches_mut(
        &mut self,
        m: &mut clap::ArgMatches,
    ) -> std::result::Result<(), clap::Error> {
        self.0.update_from_arg_matches_mut(m)
    }
}

/// Where the position comes from.
#[derive(Args, Debug, Clone)]
pub(crate) struct PositionArgs {
    /// Position in FEN (6 fields) or EPD-style FEN (4 fields); Shredder-FEN and X-FEN castling accepted.
    #[arg(long, conflicts_with = "startpos")]
    pub fen: Option<String>,
    /// The initial position (the default).
    #[arg(long)]
    pub startpos: bool,
    /// Show castling as king takes rook (Chess960 UCI notation). Turned on automatically when the castling
    /// rights are not the standard ones.
    #[arg(long)]
    pub chess960: bool,
}

impl PositionArgs {
    /// The parsed position.
    ///
    /// # Errors
    /// [`Error::Usage`] naming the FEN field and text.
    pub fn setup(&self) -> Result<Setup> {
        match &self.fen {
            Some(fen) => Setup::from_fen(fen).map_err(|e| Error::Usage(format!("--fen: {e}"))),
            None => Ok(Setup::startpos()),
        }
    }

    /// The parsed and checked position; its validity warnings are printed on stderr.
    ///
    /// # Errors
    /// [`Error::Usage`] for a malformed FEN or an invalid position.
    pub fn checked(&self) -> Result<Checked> {
        let pos = Checked::new(self.setup()?).map_err(|e| match (e, &self.fen) {
            // Quote the FEN as typed, not as written back (`KQ` with no rook on a1 would read `KA`).
            (Error::InvalidPosition(p), Some(typed)) => Error::Usage(format!(
                "--fen: invalid position '{}': {}",
                typed.trim(),
                p.errors
                    .iter()
                    .map(ToString::to_string)
                    .collect::<Vec<_>>()
                    .join("; ")
            )),
            (e, _) => e,
        })?;
        common::print_warnings(&pos);
        // Shredder-FEN rook files (`HFhf`) are Chess960 notation already: nothing was read any other way.
        let shredder = self.fen.as_deref().is_some_and(|f| {
            f.split_whitespace()
                .nth(2)
                .is_some_and(|c| c.chars().all(|ch| matches!(ch, 'A'..='H' | 'a'..='h')))
        });
        if !self.chess960 && !shredder && pos.needs_chess960_notation() {
            eprintln!(
                "warning: castling rights read as Chess960 castling (a king or a castling rook is not on its \
                 standard square); moves are shown as king takes rook (--chess960 silences this)"
            );
        }
        Ok(pos)
    }

    /// The checked position after `moves` (UCI or SAN, each value may hold several moves separated by
    /// spaces), played by the one move-line player ([`crate::line::play_moves`]).
    ///
    /// # Errors
    /// As [`PositionArgs::checked`]; [`Error::Usage`] naming `--moves` for a move that is not legal.
    pub fn checked_after(&self, moves: &[String]) -> Result<Checked> {
        let root = self.checked()?;
        Ok(play_moves(&root, moves)?.end().clone())
    }

    /// Whether moves are shown in Chess960 notation for this position.
    pub fn chess960_for(&self, setup: &Setup) -> bool {
        self.chess960 || setup.needs_chess960_notation()
    }
}

/// Options choosing and tuning the backend (ours; an external program is an "engine").
#[derive(Args, Debug, Clone)]
pub(crate) struct BackendArgs {
    /// Which move generator counts.
    #[arg(long, value_enum, default_value_t = BackendKind::DEFAULT)]
    pub backend: BackendKind,
    /// Worker threads (default: all cores).
    #[arg(long)]
    pub threads: Option<usize>,
    /// Hash table size in MiB for subtree counts (0 turns it off) [default: 64; GPU backend on a discrete GPU
    /// whose driver reports its memory: most of that memory, see the README's "GPU backend"]; the table
    /// snapshots of `--checkpoint` and `run-unit` keep one byte per entry beside it (1/16 of it more).
    #[arg(long)]
    pub hash: Option<usize>,
    /// GPU memory budget in MiB (default: a safe share of the adapter's limits).
    #[arg(long)]
    pub gpu_mem: Option<u64>,
    /// Do not merge transpositions (to measure or test merging).
    #[arg(long)]
    pub no_merge: bool,
    /// GPU adapter: a name substring or an index from `perftlab devices`; several: `all` or a list (`0,1`),
    /// one thread each; `env:VAR`: the GPU index in $VAR (e.g. CUDA_VISIBLE_DEVICES) (or env PERFTLAB_ADAPTER).
    #[arg(long)]
    pub adapter: Option<String>,
    /// Print backend details on stderr.
    #[arg(long)]
    pub verbose: bool,
    /// GPU: keep naga's runtime bounds checks in every kernel (for debugging; slower).
    #[arg(long)]
    pub checked_shaders: bool,
}

impl BackendArgs {
    /// `--hash` in MiB, or its default (64).
    pub fn hash_mb(&self) -> usize {
        self.hash.unwrap_or(64)
    }

    /// The backend `--backend` names, built from these flags (the thread count installed for rayon).
    ///
    /// # Errors
    /// [`Error::Usage`] for a bad flag value; [`Error::Backend`] when the backend cannot start.
    pub fn create(&self) -> Result<Box<dyn Backend>> {
        self.create_kind(self.backend)
    }

    /// The backend `kind`, built from these flags.
    ///
    /// # Errors
    /// As [`BackendArgs::create`].
    pub fn create_kind(&self, kind: BackendKind) -> Result<Box<dyn Backend>> {
        self.check(kind)?;
        init_threads(self.threads);
        common::create_backend(kind, self, None)
    }

    /// [`BackendArgs::create`] with the Zobrist keys of `seed` (`--zobrist-seed`, for the cpu backend).
    ///
    /// # Errors
    /// As [`BackendArgs::create`].
    pub fn create_seeded(&self, seed: Option<u64>) -> Result<Box<dyn Backend>> {
        self.check(self.backend)?;
        init_threads(self.threads);
        common::create_backend(self.backend, self, seed)
    }

    /// Check the flags against [`crate::limits`] before anything is allocated; warnings (too many threads,
    /// options backend `kind` ignores) go to stderr, once per process.
    fn check(&self, kind: BackendKind) -> Result<()> {
        static WARNED: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);
        let mut warnings = Vec::new();
        if let Some(n) = self.threads {
            warnings.extend(limits::check_threads("--threads", n)?);
        }
        if self.gpu_mem == Some(0) {
            return Err(Error::Usage(
                "--gpu-mem: '0' MiB cannot hold anything (use 1 or more)".into(),
            ));
        }
        if self.adapter.as_deref().is_some_and(|a| a.trim().is_empty()) {
            return Err(Error::Usage(
                "--adapter: '' names no adapter (use an index or a part of a name from `perftlab devices`)"
                    .into(),
            ));
        }
        if kind == BackendKind::Cpu {
            limits::check_host_memory(crate::error::Setting::Hash, self.hash_mb() as u64)?;
        }
        if self.backend != BackendKind::Gpu {
            for (flag, given) in [
                ("--gpu-mem", self.gpu_mem.is_some()),
                ("--adapter", self.adapter.is_some()),
            ] {
                if given {
                    warnings.push(format!(
                        "{flag} does nothing on the {} backend (it is for --backend gpu)",
                        format!("{:?}", self.backend).to_lowercase()
                    ));
                }
            }
        }
        if !WARNED.swap(true, std::sync::atomic::Ordering::Relaxed) {
            for w in warnings {
                eprintln!("warning: {w}");
            }
        }
        Ok(())
    }
}

/// Parse the process arguments and run; returns the exit code.
pub fn main() -> i32 {
    // Messages of the library name each setting by its flag here.
    crate::error::name_settings(common::flag);
    // Mesa prints an `XDG_RUNTIME_DIR` message on every GPU device selection unless told not to.
    if std::env::var_os("NODEVICE_SELECT").is_none() {
        std::env::set_var("NODEVICE_SELECT", "1");
    }
    // A closed standard output (`perftlab perft >&-`) would make every result vanish while the exit code
    // says success (the standard library ignores writes to a closed descriptor): refuse to run, before any
    // file is opened that could take its descriptor number.
    if let Err(e) = stdout_is_open() {
        eprintln!("error: standard output is not open ({e}): nothing could be printed");
        return 2;
    }
    exit_on_write_errors();
    signals::install();
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => {
            if e.use_stderr() {
                eprint!("{}", visible(&e.render().to_string()));
                return 2;
            }
            let _ = e.print();
            return 0;
        }
    };
    let code = match run(cli) {
        Ok(code) => code,
        Err(e) => {
            // An interruption that killed the engine ends the process itself (exit 130/143).
            crate::interrupt::park_if_stopping();
            eprintln!("error: {}", visible(&e.to_string()));
            e.exit_code()
        }
    };
    crate::interrupt::park_if_stopping();
    // Output still buffered (text without a final newline) must reach its file too, or fail loudly.
    match std::io::Write::flush(&mut std::io::stdout()) {
        Ok(()) => code,
        Err(e) => write_error_exit(&e.to_string()),
    }
}

/// What the binary saw of file descriptor 1 before the Rust runtime started: 0 unknown, 1 open, 2 closed.
static STDOUT_AT_START: std::sync::atomic::AtomicU8 = std::sync::atomic::AtomicU8::new(0);

/// Tell [`main`] whether standard output was open when the process started, as seen before the standard
/// library's set-up reopens a closed descriptor on `/dev/null` (the `perftlab` binary probes it from
/// `.init_array` on Linux).
pub fn record_stdout_at_start(open: bool) {
    STDOUT_AT_START.store(
        if open { 1 } else { 2 },
        std::sync::atomic::Ordering::Relaxed,
    );
}

/// Whether file descriptor 1 is open. The standard library reopens a closed descriptor 0–2 on `/dev/null`,
/// read-write, before `main` (so output would silently vanish). When the binary probed the descriptor
/// before that ([`record_stdout_at_start`]) its answer is exact, so a `/dev/null` the caller opened on
/// purpose, even read-write (Python's `subprocess.DEVNULL`), is accepted. Without the probe a read-write
/// `/dev/null` is taken for a closed descriptor (a shell's `> /dev/null` opens it write-only).
fn stdout_is_open() -> std::io::Result<()> {
    match STDOUT_AT_START.load(std::sync::atomic::Ordering::Relaxed) {
        2 => return Err(std::io::Error::other("it was closed")),
        1 => return Ok(()),
        _ => {}
    }
    #[cfg(target_os = "linux")]
    {
        let is_null = std::fs::read_link("/proc/self/fd/1")
            .is_ok_and(|p| p == std::path::Path::new("/dev/null"));
        let read_write = std::fs::read_to_string("/proc/self/fdinfo/1")
            .ok()
            .and_then(|info| {
                info.lines()
                    .find_map(|l| l.strip_prefix("flags:"))
                    .and_then(|f| u32::from_str_radix(f.trim(), 8).ok())
            })
            .is_some_and(|flags| flags & 3 == 2);
        if is_null && read_write {
            return Err(std::io::Error::other("it was closed"));
        }
    }
    #[cfg(unix)]
    {
        use std::os::fd::AsFd;
        std::io::stdout().as_fd().try_clone_to_owned().map(drop)
    }
    #[cfg(not(unix))]
    {
        Ok(())
    }
}

/// The exit for a failed write to standard output: 141 (128 + SIGPIPE, what a shell reports for a process
/// killed by a closed pipe) when the reader went away (`perftlab suite FILE | head -1`), so that a
/// `pipefail` script never sees success for a run whose result it did not read; otherwise (a full disk,
/// `> /dev/full`) a message and exit 2.
fn write_error_exit(msg: &str) -> i32 {
    if msg.contains("Broken pipe") || msg.contains("os error 32") {
        return 141;
    }
    eprintln!("error: cannot write to standard output: {msg}");
    2
}

/// `println!` panics when standard output cannot be written; turn that panic into [`write_error_exit`]
/// instead of a panic report. Every other panic keeps the default report.
fn exit_on_write_errors() {
    let default_hook = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        let msg = info
            .payload()
            .downcast_ref::<String>()
            .map(String::as_str)
            .or_else(|| info.payload().downcast_ref::<&str>().copied())
            .unwrap_or("");
        if let Some(err) = msg.strip_prefix("failed printing to stdout: ") {
            std::process::exit(write_error_exit(err));
        }
        if msg.starts_with("failed printing to stderr") {
            // Nowhere left to say anything.
            std::process::exit(2);
        }
        default_hook(info);
    }));
}

/// Run a parsed command line; returns the exit code for success or a soft failure.
///
/// # Errors
/// Any [`Error`]; the caller maps it to its exit code.
pub(crate) fn run(cli: Cli) -> Result<i32> {
    match cli.command {
        Command::Perft(Lazy(a)) => perft::run(a),
        Command::Suite(Lazy(a)) => suite::run(a),
        Command::Verify(Lazy(a)) => verify::run(a),
        Command::Compare(Lazy(a)) => compare::run(a),
        Command::Stress(Lazy(a)) => stress::run(a),
        Command::Perftree(Lazy(a)) => perftree::run(a),
        Command::Analyze(Lazy(a)) => analyze::run(a),
        Command::Table(Lazy(a)) => table::run(a),
        Command::Bench(Lazy(a)) => bench::run(a),
        Command::Devices(Lazy(a)) => devices::run(a),
        Command::Plan(Lazy(a)) => deep::plan(a),
        Command::RunUnit(Lazy(a)) => deep::run_unit(a),
        Command::Status(Lazy(a)) => deep::status(a),
        Command::Merge(Lazy(a)) => deep::merge(a),
        Command::Reachable(Lazy(a)) => reachable::run(a),
        Command::Proofgame(Lazy(a)) => proofgame::run(a),
        Command::Dead(Lazy(a)) => dead::run(a),
    }
}

/// Write a picture or report to `path` atomically (a failed run leaves an old file as it was); the error
/// names the flag and the file.
///
/// # Errors
/// [`Error::Usage`] when the file cannot be written.
pub(crate) fn write_file(flag: &str, path: &std::path::Path, text: &str) -> Result<()> {
    crate::files::write_atomic(path, text.as_bytes())
        .map_err(|e| Error::Usage(format!("{flag}: cannot write '{}': {e}", path.display())))
}

/// Check an output flag's path before any work (see [`crate::files::check_outputs`]).
///
/// # Errors
/// [`Error::Usage`] naming the flag.
pub(crate) fn check_output(flag: &str, path: Option<&std::path::Path>) -> Result<()> {
    match path {
        Some(p) => crate::files::check_outputs(&[(flag, p)], &[]),
        None => Ok(()),
    }
}

/// [`crate::line::play_moves`] for `--moves`, with a hint when a move lacks its promotion piece (`a7a8`: add
/// the piece, `a7a8q`).
///
/// # Errors
/// As [`crate::line::play_moves`].
pub(crate) fn play_moves(root: &Checked, values: &[String]) -> Result<crate::line::Line> {
    play_line(root, &crate::line::split_moves(values))
}

/// [`crate::line::play_line`] with the promotion hint of [`play_moves`].
///
/// # Errors
/// As [`crate::line::play_line`].
pub(crate) fn play_line(root: &Checked, moves: &[String]) -> Result<crate::line::Line> {
    crate::line::play_line(root, moves).map_err(|e| {
        let unplayable = match &e {
            Error::Setting(s) => s.setting == crate::error::Setting::Moves,
            Error::Usage(_) => true,
            _ => false,
        };
        match promotion_without_piece(root, moves) {
            Some(text) if unplayable => Error::Usage(format!(
                "{e}; a promotion names its piece: add it, as in '{text}q' (q, r, b or n)"
            )),
            _ => e,
        }
    })
}

/// The first move of `moves` from `root` that does not play, when it is a promotion without its piece
/// (`a7a8` where `a7a8q` is legal).
fn promotion_without_piece<'a>(root: &Checked, moves: &'a [String]) -> Option<&'a str> {
    let mut cur = root.clone();
    for text in moves {
        let legal = cur.legal_moves();
        let Some(m) = crate::types::Move::find_uci(&legal, text)
            .or_else(|| crate::san::parse_san(&cur, &legal, text))
        else {
            let promotion = legal
                .iter()
                .map(|m| m.to_uci(false))
                .any(|u| u.len() == 5 && u.starts_with(text.as_str()) && text.len() == 4);
            return promotion.then_some(text.as_str());
        };
        cur = cur.play(m).ok()?;
    }
    None
}

/// Show characters that print as nothing (U+200B and the other zero-width and direction marks, control
/// characters) as `\u{200b}` escapes, so that an error quoting the user's text shows what was typed.
pub(crate) fn visible(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        let invisible = (c.is_control() && c != '\n' && c != '\t')
            || matches!(
                c,
                '\u{00ad}'
                    | '\u{034f}'
                    | '\u{061c}'
                    | '\u{115f}'
                    | '\u{1160}'
                    | '\u{17b4}'
                    | '\u{17b5}'
                    | '\u{180b}'..='\u{180f}'
                    | '\u{200b}'..='\u{200f}'
                    | '\u{202a}'..='\u{202e}'
                    | '\u{2060}'..='\u{206f}'
                    | '\u{3164}'
                    | '\u{fe00}'..='\u{fe0f}'
                    | '\u{feff}'
                    | '\u{ffa0}'
                    | '\u{fff0}'..='\u{fff8}'
            );
        if invisible {
            out.push_str(&format!("\\u{{{:x}}}", c as u32));
        } else {
            out.push(c);
        }
    }
    out
}

/// Install the thread count for rayon's global pool (first call wins).
fn init_threads(threads: Option<usize>) {
    if let Some(n) = threads {
        let _ = rayon::ThreadPoolBuilder::new()
            .num_threads(n)
            .build_global();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::CommandFactory;

    /// The subcommands' arguments are added late ([`Lazy`]); once added, every subcommand passes clap's own
    /// checks, has its arguments, and still has the description its variant gives (the one `perftlab --help`
    /// lists), not its arguments' type's ("Arguments of ...").
    #[test]
    fn lazy_subcommands_keep_their_descriptions() {
        let mut cli = Cli::command();
        let listed: Vec<(String, String)> = cli
            .get_subcommands()
            .map(|s| (s.get_name().to_string(), s.get_about().unwrap().to_string()))
            .collect();
        assert!(listed.len() >= 17, "{listed:?}");
        assert!(cli
            .get_subcommands()
            .all(|s| s.get_arguments().next().is_none()));
        cli.build();
        cli.clone().debug_assert();
        for (name, about) in &listed {
            let sub = cli.find_subcommand(name).unwrap();
            assert_eq!(sub.get_about().unwrap().to_string(), *about, "{name}");
            assert!(!about.starts_with("Arguments of"), "{name}");
            assert!(
                sub.get_arguments().any(|a| a.get_long().is_some()),
                "{name}"
            );
        }
        let dead = cli.find_subcommand("dead").unwrap();
        assert!(dead.get_arguments().any(|a| a.get_long() == Some("scan")));
    }
}
