//! The error kinds about a caller's settings (issue 31 item 4): a memory request the host or an adapter
//! cannot meet ([`MemoryError`]), an adapter choice that names none ([`AdapterError`]), and a setting's value
//! the library cannot use ([`SettingError`]). Each keeps the offending values for a caller to match, and
//! each message calls the settings it mentions by a name the caller chooses ([`crate::Error::message`]):
//! `Display` uses [`Setting::name`] (`hash size`), the command line its flags (`--hash`), so the library
//! names no flag of the CLI.

/// A setting a caller gives the library, as messages mention it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Setting {
    /// The transposition tables' size in MiB (the GPU options' `hash_mb`).
    Hash,
    /// The GPU backend's level budget in MiB (the GPU options' `gpu_mem_mb`).
    GpuMem,
    /// Which GPU adapter (the GPU options' `adapter`).
    Adapter,
    /// The split frontier's memory in MiB (`deep::split::budget_mib`).
    SplitMem,
    /// The ply of the split frontier.
    SplitDepth,
    /// The depth of a count.
    Depth,
    /// The checkpoint journal of a count.
    Checkpoint,
    /// The statistics of the CPW columns.
    Stats,
    /// The statistics of every column.
    StatsFull,
    /// The CPU backend, as the way to a computation another backend lacks.
    CpuBackend,
    /// The shards of a deep run's plan.
    Shards,
    /// One shard of a plan.
    Shard,
    /// The tag of a shard's run.
    Tag,
    /// The directory a plan is written to.
    Out,
    /// Which backend counts.
    Backend,
    /// The seed of the Zobrist keys.
    ZobristSeed,
    /// The longest random playout, in plies.
    MaxPlies,
    /// The moves played before a count.
    Moves,
    /// The chart file of a depth sweep.
    Plot,
    /// The depths of a sweep.
    Depths,
    /// The command line that starts an external engine.
    Engine,
    /// A UCI engine's own perft command, `{depth}` where the depth goes.
    PerftCommand,
    /// How long an external engine may take for one answer.
    Timeout,
    /// The UCI protocol, as the choice another setting needs.
    UciProtocol,
}

impl Setting {
    /// The name `Display` calls it by.
    pub fn name(self) -> &'static str {
        match self {
            Setting::Hash => "hash size",
            Setting::GpuMem => "GPU level budget",
            Setting::Adapter => "adapter",
            Setting::SplitMem => "split memory",
            Setting::SplitDepth => "split depth",
            Setting::Depth => "depth",
            Setting::Checkpoint => "checkpoint",
            Setting::Stats => "CPW statistics",
            Setting::StatsFull => "full statistics",
            Setting::CpuBackend => "the cpu backend",
            Setting::Shards => "shards",
            Setting::Shard => "shard",
            Setting::Tag => "tag",
            Setting::Out => "plan directory",
            Setting::Backend => "backend",
            Setting::ZobristSeed => "Zobrist seed",
            Setting::MaxPlies => "playout length",
            Setting::Moves => "moves",
            Setting::Plot => "chart",
            Setting::Depths => "depths",
            Setting::Engine => "engine command",
            Setting::PerftCommand => "perft command",
            Setting::Timeout => "engine timeout",
            Setting::UciProtocol => "the UCI protocol",
        }
    }
}

/// What asked for memory: the setting, its MiB, and whether that was its default.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MemoryRequest {
    /// Which setting.
    pub setting: Setting,
    /// How much, in MiB.
    pub mib: u64,
    /// Whether the caller left it at its default.
    pub default: bool,
}

/// What a memory request was checked against.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum MemoryLimit {
    /// More bytes than 64 bits hold; the host's available MiB where known.
    Impossible {
        /// `MemAvailable` in MiB, if known.
        available_mib: Option<u64>,
    },
    /// The memory the host has available (`MemAvailable` of `/proc/meminfo`).
    Host {
        /// In MiB.
        available_mib: u64,
    },
    /// A discrete GPU's device memory, as its driver reports it.
    Device {
        /// The adapter's name.
        adapter: String,
        /// Its device memory in MiB.
        device_mib: u64,
    },
    /// What the levels of the GPU backend's deepest run can use on the adapter: `levels` levels, each at
    /// most one storage binding of `binding_mib` MiB.
    Levels {
        /// The adapter's name.
        adapter: String,
        /// The most, in MiB.
        max_mib: u64,
        /// Levels of the deepest run.
        levels: u64,
        /// The adapter's largest storage binding in MiB.
        binding_mib: u64,
    },
}

/// A memory request that cannot be met.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum MemoryError {
    /// The requests (one, or the GPU level budget and the tables together) exceed `limit`.
    TooMuch {
        /// What asked, in order.
        wanted: Vec<MemoryRequest>,
        /// What it exceeds.
        limit: MemoryLimit,
    },
    /// The GPU level budget leaves room for `room` positions at a level, fewer than one position's `moves`.
    LevelRoom {
        /// Positions a level can hold.
        room: u64,
        /// Moves of the position that did not fit.
        moves: u64,
    },
    /// The split frontier at `plies` outgrew its budget of `budget_mib` MiB.
    SplitFrontier {
        /// The budget in MiB.
        budget_mib: u64,
        /// The frontier's ply.
        plies: u32,
        /// About what it needs, in MiB.
        needed_mib: u64,
        /// Distinct positions found before it stopped.
        positions: usize,
        /// MiB they took.
        taken_mib: u64,
    },
}

impl MemoryError {
    /// The message, settings called by `name`.
    pub fn message(&self, name: &dyn Fn(Setting) -> &'static str) -> String {
        match self {
            MemoryError::TooMuch { wanted, limit } => too_much(wanted, limit, name),
            MemoryError::LevelRoom { room, moves } => {
                let n = name(Setting::GpuMem);
                format!(
                    "{n}: the GPU memory budget leaves room for {room} positions at a level, but a position \
                     has {moves} moves; give a larger {n}"
                )
            }
            MemoryError::SplitFrontier {
                budget_mib,
                plies,
                needed_mib,
                positions,
                taken_mib,
            } => {
                let n = name(Setting::SplitMem);
                format!(
                    "{n}: the split frontier at ply {plies} needs about {needed_mib} MiB, more than the \
                     {budget_mib} MiB allowed ({positions} distinct positions already took {taken_mib} MiB); \
                     use {n} {needed_mib} or more, or a smaller {}",
                    name(Setting::SplitDepth)
                )
            }
        }
    }
}

/// The message of [`MemoryError::TooMuch`]: `NAME: 'MB' MiB is more than …` for one request, `A + B (MB MiB
/// + MB MiB (default)) …` for two.
fn too_much(
    wanted: &[MemoryRequest],
    limit: &MemoryLimit,
    name: &dyn Fn(Setting) -> &'static str,
) -> String {
    let total = wanted.iter().fold(0u64, |t, r| t.saturating_add(r.mib));
    let subject = match wanted {
        [one] => name(one.setting).to_string(),
        _ => {
            let names: Vec<&str> = wanted.iter().map(|r| name(r.setting)).collect();
            let sizes: Vec<String> = wanted
                .iter()
                .map(|r| format!("{} MiB{}", r.mib, if r.default { " (default)" } else { "" }))
                .collect();
            format!("{} ({})", names.join(" + "), sizes.join(" + "))
        }
    };
    match limit {
        MemoryLimit::Impossible { available_mib } => format!(
            "{subject}: '{total}' MiB is more memory than can exist{}",
            available_mib
                .map(|a| format!(" ({a} MiB available)"))
                .unwrap_or_default()
        ),
        MemoryLimit::Host { available_mib } => format!(
            "{subject}: '{total}' MiB is more than the {available_mib} MiB of memory available on this machine"
        ),
        MemoryLimit::Device {
            adapter,
            device_mib,
        } if wanted.len() == 1 => format!(
            "{subject}: '{total}' MiB is more than adapter '{adapter}' can give the GPU transposition tables \
             (its device memory is {device_mib} MiB)"
        ),
        MemoryLimit::Device {
            adapter,
            device_mib,
        } => format!(
            "{subject} is more than adapter '{adapter}' has ({device_mib} MiB of device memory)"
        ),
        MemoryLimit::Levels {
            adapter,
            max_mib,
            levels,
            binding_mib,
        } => format!(
            "{subject}: '{total}' MiB is more than adapter '{adapter}' can use (at most {max_mib} MiB: the \
             {levels} levels of the deepest run, each limited by its {binding_mib} MiB largest storage binding)"
        ),
    }
}

/// A GPU adapter choice that names no usable adapter, or cannot be read.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum AdapterError {
    /// `all`, but no adapter of the `found` is usable.
    NoneUsable {
        /// Adapters found.
        found: usize,
    },
    /// `env:VAR` with `var` not set.
    EnvUnset {
        /// The choice as given.
        choice: String,
        /// The variable.
        var: String,
    },
    /// `env:VAR` whose first entry is not an index.
    EnvNotIndex {
        /// The choice as given.
        choice: String,
        /// The variable.
        var: String,
        /// Its value.
        value: String,
        /// Its first entry.
        first: String,
    },
    /// `env:VAR` naming GPU `index` of only `count` usable adapters.
    EnvOutOfRange {
        /// The choice as given.
        choice: String,
        /// The variable.
        var: String,
        /// The index it names.
        index: usize,
        /// Usable adapters (those of `all`).
        count: usize,
    },
    /// A list with an empty entry.
    EmptyEntry {
        /// The choice as given.
        choice: String,
    },
    /// A list naming adapter `index` twice, the second time as `entry`.
    Twice {
        /// The choice as given.
        choice: String,
        /// The adapter's index.
        index: usize,
        /// The entry that named it again.
        entry: String,
    },
    /// An index with no adapter; `found` lists the adapters (`INDEX: NAME (BACKEND)`).
    NoIndex {
        /// The index.
        index: usize,
        /// The adapters found.
        found: Vec<String>,
    },
    /// A name that no adapter's name or backend contains; `found` lists the adapters.
    NoMatch {
        /// The text looked for.
        text: String,
        /// The adapters found.
        found: Vec<String>,
    },
    /// A choice in the browser, where WebGPU offers one adapter.
    Browser {
        /// The choice as given.
        choice: String,
    },
}

impl AdapterError {
    /// The message, settings called by `name`.
    pub fn message(&self, name: &dyn Fn(Setting) -> &'static str) -> String {
        let a = name(Setting::Adapter);
        match self {
            AdapterError::NoneUsable { found } => {
                format!("{a} all: no usable adapter among the {found} found")
            }
            AdapterError::EnvUnset { choice, var } => {
                format!("{a}: '{choice}': the environment variable '{var}' is not set")
            }
            AdapterError::EnvNotIndex {
                choice,
                var,
                value,
                first,
            } => format!(
                "{a}: '{choice}': '{var}' is '{value}', whose first entry '{first}' is not a GPU index (a GPU \
                 UUID cannot be matched to a wgpu adapter)"
            ),
            AdapterError::EnvOutOfRange {
                choice,
                var,
                index,
                count,
            } => format!(
                "{a}: '{choice}': '{var}' names GPU {index}, but `{a} all` has {count} adapters"
            ),
            AdapterError::EmptyEntry { choice } => format!("{a}: '{choice}' has an empty entry"),
            AdapterError::Twice {
                choice,
                index,
                entry,
            } => format!("{a}: '{choice}' names adapter {index} twice ('{entry}')"),
            AdapterError::NoIndex { index, found } => format!(
                "{a}: no adapter with index '{index}' ({} found: {})",
                found.len(),
                found.join(", ")
            ),
            AdapterError::NoMatch { text, found } => format!(
                "{a}: no adapter whose name or backend contains '{text}' (found: {})",
                found.join(", ")
            ),
            AdapterError::Browser { choice } => format!(
                "{a}: '{choice}': in the browser WebGPU offers one adapter, which cannot be chosen"
            ),
        }
    }
}

/// A piece of a [`SettingError`]'s reason: text, or a setting called by its name.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Part {
    /// Plain text.
    Text(String),
    /// A setting, called by the caller's name for it.
    Setting(Setting),
    /// The [`SettingError`]'s value, quoted, where the reason places it (then not before the reason).
    Value,
}

/// A setting's value the library cannot use: which setting, the value (if the message quotes it) and why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SettingError {
    /// Which setting.
    pub setting: Setting,
    /// The value as given, quoted in the message.
    pub value: Option<String>,
    /// Why, in pieces (other settings named as the caller names them).
    pub reason: Vec<Part>,
}

impl SettingError {
    /// `setting` with `value`, refused for `reason` (plain text).
    pub fn new(setting: Setting, value: Option<String>, reason: impl Into<String>) -> SettingError {
        SettingError {
            setting,
            value,
            reason: vec![Part::Text(reason.into())],
        }
    }

    /// The message (`NAME: 'VALUE' REASON`, or `NAME: REASON` with the value where [`Part::Value`] places
    /// it), settings called by `name`.
    pub fn message(&self, name: &dyn Fn(Setting) -> &'static str) -> String {
        let mut m = format!("{}: ", name(self.setting));
        let quoted = self.value.as_ref().map(|v| format!("'{v}'"));
        if let (Some(q), false) = (&quoted, self.reason.contains(&Part::Value)) {
            m.push_str(q);
            m.push(' ');
        }
        for p in &self.reason {
            match p {
                Part::Text(t) => m.push_str(t),
                Part::Setting(s) => m.push_str(name(*s)),
                Part::Value => m.push_str(quoted.as_deref().unwrap_or_default()),
            }
        }
        m
    }
}

/// How an external engine failed to answer (an [`Error::Engine`](crate::Error::Engine)): the values behind
/// the message, which calls the engine's settings by the caller's names.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum EngineFailure {
    /// A UCI engine gave no line within its timeout.
    NoAnswer {
        /// The engine's command.
        engine: String,
        /// The request it did not answer.
        waiting_for: String,
        /// The timeout.
        timeout: std::time::Duration,
        /// Its last lines, quoted (`nothing` when it said none).
        said: String,
    },
    /// A script engine did not finish within its timeout.
    ScriptTimeout {
        /// The script's invocation (command, depth, FEN, moves).
        request: String,
        /// The timeout.
        timeout: std::time::Duration,
    },
    /// A UCI engine answered its perft command with `Unknown command`.
    UnknownPerftCommand {
        /// The engine's command.
        engine: String,
        /// The request.
        request: String,
        /// The line it answered.
        line: String,
        /// Its last lines, quoted.
        said: String,
    },
}

/// An external engine's failure, and what the caller must know about answers of its kind (the perft
/// command's contract), if anything.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EngineError {
    /// What happened.
    pub failure: EngineFailure,
    /// Added in parentheses after the message.
    pub note: Option<String>,
}

impl EngineError {
    /// `failure`, with no note.
    pub fn new(failure: EngineFailure) -> EngineError {
        EngineError {
            failure,
            note: None,
        }
    }

    /// The message, settings called by `name`.
    pub fn message(&self, name: &dyn Fn(Setting) -> &'static str) -> String {
        let mut m = match &self.failure {
            EngineFailure::NoAnswer {
                engine,
                waiting_for,
                timeout,
                said,
            } => format!(
                "engine '{engine}' gave no answer to '{waiting_for}' within {} s ({}); last it said: {said}",
                timeout.as_secs_f64(),
                name(Setting::Timeout)
            ),
            EngineFailure::ScriptTimeout { request, timeout } => format!(
                "script '{request}' did not finish within {} s ({})",
                timeout.as_secs_f64(),
                name(Setting::Timeout)
            ),
            EngineFailure::UnknownPerftCommand {
                engine,
                request,
                line,
                said,
            } => format!(
                "engine '{engine}' answered '{request}' with an unreadable line '{line}' (it does not know the \
                 command: {} must be the engine's own perft command); it said: {said}",
                name(Setting::PerftCommand)
            ),
        };
        if let Some(note) = &self.note {
            m.push_str(&format!(" ({note})"));
        }
        m
    }
}

impl From<EngineError> for crate::Error {
    fn from(e: EngineError) -> crate::Error {
        crate::Error::Engine(Box::new(e))
    }
}

impl From<SettingError> for crate::Error {
    fn from(e: SettingError) -> crate::Error {
        crate::Error::Setting(Box::new(e))
    }
}

impl From<MemoryError> for crate::Error {
    fn from(e: MemoryError) -> crate::Error {
        crate::Error::Memory(Box::new(e))
    }
}

impl From<AdapterError> for crate::Error {
    fn from(e: AdapterError) -> crate::Error {
        crate::Error::Adapter(Box::new(e))
    }
}
