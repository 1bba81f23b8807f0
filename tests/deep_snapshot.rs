//! Hash table snapshots of deep runs (`src/deep/snapshot.rs`, `src/deep/build.rs`) from the outside: a run
//! stopped by SIGTERM writes its snapshot as it stops and the resumed run loads it and stays exact; a shared
//! table whose cached build hash is stale (the executable was rewritten in place) is refused by the unit that
//! reads it, and the count is still exact; the shared table keeps only the subtrees one ply below the split,
//! and the last unit of a plan does not write it back; a snapshot's deltas (segments appended after its base)
//! are loaded when whole, a last one cut off by a kill is dropped keeping the rest, and an edited one is
//! refused. Also the order of a deep run's positions (session 55): a journal resumes at its own split ply, and
//! a plan for the GPU groups its shards and stays exact.
//!
//! Expected counts come from `tests/data/cpw-detail.csv` (Chess Programming Wiki "Perft Results").

mod common;

use common::{cpw_rows, finish, perftlab, send_signal, spawn};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

fn temp_dir(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!(
        "perftlab-deep-snapshot-{}-{name}",
        std::process::id()
    ));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn nodes(position: &str, depth: u32) -> u128 {
    cpw_rows()
        .into_iter()
        .find(|r| r.position == position && r.depth == depth)
        .unwrap_or_else(|| panic!("CPW row {position} {depth}"))
        .nodes
}

fn out(o: std::process::Output) -> (i32, String, String) {
    (
        o.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&o.stdout).into_owned(),
        String::from_utf8_lossy(&o.stderr).into_owned(),
    )
}

fn lines(path: &Path) -> usize {
    std::fs::read_to_string(path).map_or(0, |t| t.lines().count())
}

/// Before, a run stopped by SIGINT or SIGTERM kept only its last periodic snapshot (the first one about a
/// second after the start), so a run stopped earlier resumed with an empty table. The signal is sent once
/// the first batch is journaled and before any periodic snapshot exists: the snapshot found afterwards was
/// written by the stop.
/// The arguments of `plan` for start perft 6 split at ply 3 into `shards` units, written to `plan`.
fn plan_args<'a>(plan: &'a str, shards: &'a str) -> [&'a str; 10] {
    [
        "plan",
        "--startpos",
        "--depth",
        "6",
        "--split-depth",
        "3",
        "--shards",
        shards,
        "--out",
        plan,
    ]
}

/// The arguments of `run-unit` for unit `k` of `plan`: one thread, a 16 MiB table, quiet.
fn unit_args<'a>(plan: &'a str, k: &'a str) -> [&'a str; 9] {
    [
        "run-unit",
        plan,
        "--shard",
        k,
        "--threads",
        "1",
        "--hash",
        "16",
        "--quiet",
    ]
}

#[test]
fn a_run_stopped_by_sigterm_writes_its_snapshot_and_resumes_exact() {
    let dir = temp_dir("sigterm");
    let (journal, table) = (dir.join("s.jsonl"), dir.join("s.jsonl.table"));
    let j = journal.to_str().unwrap();
    let args = [
        "perft",
        "--startpos",
        "--depth",
        "7",
        "--split-depth",
        "4",
        "--checkpoint",
        j,
        "--threads",
        "1",
        "--hash",
        "16",
        "--quiet",
    ];
    let child = spawn(&args);
    let t = Instant::now();
    while lines(&journal) < 2 {
        assert!(t.elapsed() < Duration::from_secs(120), "no batch journaled");
        std::thread::sleep(Duration::from_millis(2));
    }
    let early = !table.exists();
    send_signal(child.id(), "TERM");
    let (code, _, stderr) = finish(child, 60);
    assert_eq!(code, 143, "{stderr}");
    assert!(table.exists(), "no snapshot after SIGTERM: {stderr}");
    let kept = lines(&journal) - 1;
    assert!(kept < 72_078, "{kept}");
    let (code, stdout, stderr) = out(perftlab().args(args).output().unwrap());
    assert_eq!(
        (code, stdout.trim()),
        (0, format!("Nodes searched: {}", nodes("start", 7)).as_str()),
        "{stderr}"
    );
    let loaded = stderr
        .lines()
        .find(|l| l.starts_with("loaded "))
        .unwrap_or_else(|| panic!("the snapshot was not loaded: {stderr}"));
    assert!(!loaded.starts_with("loaded 0 "), "{loaded}");
    assert!(!table.exists(), "a finished run removes its snapshot");
    if !early {
        eprintln!("note: a periodic snapshot came before the signal (a slow machine)");
    }
}

/// A copy of the test binary in `dir`, with 16 bytes of padding at its end (which the loader ignores), so that
/// the test can rewrite the file in place without breaking it.
fn padded_copy(dir: &Path) -> PathBuf {
    let bin = dir.join("perftlab");
    let mut bytes = std::fs::read(env!("CARGO_BIN_EXE_perftlab")).unwrap();
    bytes.extend_from_slice(&[0u8; 16]);
    std::fs::write(&bin, bytes).unwrap();
    let mut perm = std::fs::metadata(&bin).unwrap().permissions();
    std::os::unix::fs::PermissionsExt::set_mode(&mut perm, 0o755);
    std::fs::set_permissions(&bin, perm).unwrap();
    bin
}

fn run_with(bin: &Path, args: &[&str]) -> (i32, String, String) {
    out(Command::new(bin).args(args).output().unwrap())
}

/// A unit takes the build hash from the shared table's header when the header was written by the very same
/// executable file (same device, inode, length, modification and status-change times), instead of hashing
/// its 60 MB again; the same file rewritten in place (same inode and length, other contents and times) must
/// hash itself and refuse the table as another build's.
#[test]
fn a_unit_refuses_a_shared_table_whose_cached_build_hash_is_stale() {
    let dir = temp_dir("stale");
    let bin = padded_copy(&dir);
    let plan = dir.join("plan");
    let p = plan.to_str().unwrap();
    let (code, _, stderr) = run_with(&bin, &plan_args(p, "3"));
    assert_eq!(code, 0, "{stderr}");
    let unit = |k: &str| run_with(&bin, &unit_args(p, k));
    let shared = plan.join("tables").join("shared.table");
    let (code, _, stderr) = unit("0");
    assert_eq!(code, 0, "{stderr}");
    let bytes = std::fs::read(&shared).unwrap();
    let line = bytes.split(|&b| b == b'\n').next().unwrap_or_default();
    let header: serde_json::Value = serde_json::from_slice(line).unwrap();
    assert!(header["exe"]["ino"].is_u64(), "{header}");
    // The same file: the table is loaded.
    let (code, _, stderr) = unit("1");
    assert_eq!(code, 0, "{stderr}");
    assert!(
        stderr.contains("loaded ") && stderr.contains("shared.table"),
        "{stderr}"
    );
    // Rewritten in place: one byte of the padding changes (inode and length stay).
    let ino = std::os::unix::fs::MetadataExt::ino(&std::fs::metadata(&bin).unwrap());
    std::thread::sleep(Duration::from_millis(20));
    {
        use std::io::{Seek, SeekFrom, Write};
        let mut f = std::fs::OpenOptions::new().write(true).open(&bin).unwrap();
        f.seek(SeekFrom::End(-1)).unwrap();
        f.write_all(&[1]).unwrap();
    }
    assert_eq!(
        std::os::unix::fs::MetadataExt::ino(&std::fs::metadata(&bin).unwrap()),
        ino
    );
    let (code, _, stderr) = unit("2");
    assert_eq!(code, 0, "{stderr}");
    assert!(
        stderr.contains("ignoring the hash table snapshot") && stderr.contains("another build"),
        "{stderr}"
    );
    let (code, stdout, stderr) = run_with(&bin, &["merge", p]);
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(
        stdout.trim(),
        format!("Nodes searched: {}", nodes("start", 6)),
        "{stderr}"
    );
}

/// The shared table (like the periodic snapshots) holds the entries one ply below the split, not those of the
/// frontier's own positions (each counted by one shard only); the last unit to run (every other shard done)
/// loads it but does not write it back, as no unit would read it.
#[test]
fn the_shared_table_keeps_the_ply_below_the_split_and_the_last_unit_leaves_it() {
    let dir = temp_dir("shared");
    let plan = dir.join("plan");
    let p = plan.to_str().unwrap();
    let (code, _, stderr) = out(perftlab().args(plan_args(p, "2")).output().unwrap());
    assert_eq!(code, 0, "{stderr}");
    let unit = |k: &str| out(perftlab().args(unit_args(p, k)).output().unwrap());
    let shared = plan.join("tables").join("shared.table");
    let (code, _, stderr) = unit("0");
    assert_eq!(code, 0, "{stderr}");
    let bytes = std::fs::read(&shared).unwrap();
    let header = bytes.iter().position(|&b| b == b'\n').unwrap() + 1;
    // One segment: its record count, the records, the SHA-256.
    let records = &bytes[header + 8..bytes.len() - 32];
    assert!(!records.is_empty() && records.len().is_multiple_of(24));
    // Counted to depth 3 below the split: the entries kept are of depth 2 (byte 16: the data word's low byte).
    let depths: std::collections::BTreeSet<u8> = records.chunks_exact(24).map(|r| r[16]).collect();
    assert_eq!(
        depths,
        [2].into_iter().collect(),
        "depths of the shared table's entries"
    );
    let (code, _, stderr) = unit("1");
    assert_eq!(code, 0, "{stderr}");
    assert!(
        stderr.contains("loaded ") && stderr.contains("shared.table"),
        "{stderr}"
    );
    assert_eq!(
        std::fs::read(&shared).unwrap(),
        bytes,
        "the last unit rewrote the shared table"
    );
    let (code, stdout, stderr) = out(perftlab().args(["merge", p]).output().unwrap());
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(
        stdout.trim(),
        format!("Nodes searched: {}", nodes("start", 6))
    );
}

/// A snapshot is its base and the deltas appended after it, each `count, records, SHA-256` with the SHA-256
/// chained over the header and every segment's records then count (`src/deep/snapshot.rs`). A delta is built
/// here from the base's own first records (valid entries of the table) with that chain: loaded whole; cut off
/// (what `kill -9` during its append leaves), dropped with a note while the base is kept; with a record's byte
/// flipped, the whole snapshot refused (`checksum does not match`). The shared table of a plan is the
/// snapshot read here: the second (last) unit loads it and does not write it back, and the count stays exact.
#[test]
fn a_snapshots_deltas_load_whole_a_cut_off_last_one_is_dropped_and_an_edited_one_refused() {
    use sha2::{Digest, Sha256};
    let dir = temp_dir("deltas");
    let plan = dir.join("plan");
    let p = plan.to_str().unwrap();
    let (code, _, stderr) = out(perftlab().args(plan_args(p, "2")).output().unwrap());
    assert_eq!(code, 0, "{stderr}");
    let unit = |k: &str| out(perftlab().args(unit_args(p, k)).output().unwrap());
    let shared = plan.join("tables").join("shared.table");
    let (code, _, stderr) = unit("0");
    assert_eq!(code, 0, "{stderr}");
    let base = std::fs::read(&shared).unwrap();
    let header = base.iter().position(|&b| b == b'\n').unwrap() + 1;
    let n = u64::from_le_bytes(base[header..header + 8].try_into().unwrap());
    assert_eq!(
        base.len() as u64,
        header as u64 + 8 + 24 * n + 32,
        "one segment"
    );
    assert!(n > 10, "{n} records");
    // The chain: header, the base's records, its count; then the delta's records and count.
    let mut sha = Sha256::new();
    sha.update(&base[..header]);
    sha.update(&base[header + 8..base.len() - 32]);
    sha.update(n.to_le_bytes());
    assert_eq!(
        sha.clone().finalize()[..],
        base[base.len() - 32..],
        "the base's checksum"
    );
    let delta_records = &base[header + 8..header + 8 + 3 * 24];
    sha.update(delta_records);
    sha.update(3u64.to_le_bytes());
    let mut delta = 3u64.to_le_bytes().to_vec();
    delta.extend_from_slice(delta_records);
    delta.extend_from_slice(&sha.finalize());
    let with = |tail: &[u8]| [base.as_slice(), tail].concat();
    let mut edited = delta.clone();
    edited[8 + 24 + 9] ^= 0x40; // a byte of the second record's check hash
    let cases: [(Vec<u8>, String); 3] = [
        (with(&delta), format!("loaded {} hash table entries", n + 3)),
        (
            with(&delta[..delta.len() - 20]),
            format!("loaded {n} hash table entries"),
        ),
        (with(&edited), "checksum does not match".to_string()),
    ];
    let result = plan.join("results").join("shard-00001.json");
    for (bytes, said) in cases {
        std::fs::write(&shared, &bytes).unwrap();
        let _ = std::fs::remove_file(&result);
        let _ = std::fs::remove_file(plan.join("journal").join("shard-00001.jsonl"));
        let (code, _, stderr) = unit("1");
        assert_eq!(code, 0, "{stderr}");
        assert!(stderr.contains(&said), "{said}: {stderr}");
        let cut = stderr.contains("cut off as the run was killed");
        assert_eq!(
            cut,
            said == format!("loaded {n} hash table entries"),
            "{stderr}"
        );
        let (code, stdout, stderr) = out(perftlab().args(["merge", p]).output().unwrap());
        assert_eq!(code, 0, "{stderr}");
        assert_eq!(
            stdout.trim(),
            format!("Nodes searched: {}", nodes("start", 6))
        );
    }
}

/// A journal is resumed at the split ply it was written with, not refused as foreign when the automatic
/// choice would split elsewhere (the GPU's choice moved from ply 3 to ply 4 at depth 7 in session 55): start
/// perft 4 journaled at ply 2, then run again without `--split-depth` (whose automatic ply is 3).
#[test]
fn a_journal_is_resumed_at_its_own_split_ply() {
    let d = temp_dir("own-ply");
    let j = d.join("j.jsonl");
    let j = j.to_str().unwrap();
    let want = nodes("start", 4).to_string();
    let first = out(perftlab()
        .args([
            "perft",
            "--startpos",
            "--depth",
            "4",
            "--split-depth",
            "2",
            "--checkpoint",
            j,
        ])
        .output()
        .unwrap());
    assert_eq!(first.0, 0, "{}", first.2);
    assert!(
        first.1.contains(&format!("Nodes searched: {want}")),
        "{}",
        first.1
    );
    let again = out(perftlab()
        .args(["perft", "--startpos", "--depth", "4", "--checkpoint", j])
        .output()
        .unwrap());
    assert_eq!(again.0, 0, "{}", again.2);
    assert!(
        again
            .2
            .contains("400 of 400 positions of the split frontier (ply 2) already done"),
        "{}",
        again.2
    );
    assert!(
        again.1.contains(&format!("Nodes searched: {want}")),
        "{}",
        again.1
    );
    let _ = std::fs::remove_dir_all(&d);
}

/// A plan for the GPU (`plan --backend gpu`) deals its positions grouped for the GPU's batches
/// (`src/deep/group.rs`); its units, counted on the GPU, merge into the published count (CPW, start perft 5),
/// and a cpu plan of the same arguments keeps the expansion order, so the two plans' shards differ.
#[test]
fn a_gpu_plan_groups_its_shards_and_stays_exact() {
    if !common::gpu_available() {
        return;
    }
    let d = temp_dir("gpu-plan");
    let (gpu, cpu) = (d.join("gpu"), d.join("cpu"));
    let args = |dir: &Path, backend: &str| {
        out(perftlab()
            .args([
                "plan",
                "--startpos",
                "--depth",
                "5",
                "--split-depth",
                "3",
                "--shards",
                "3",
            ])
            .args(["--backend", backend, "--out", dir.to_str().unwrap()])
            .output()
            .unwrap())
    };
    for (dir, backend) in [(&gpu, "gpu"), (&cpu, "cpu")] {
        let o = args(dir, backend);
        assert_eq!(o.0, 0, "{}", o.2);
    }
    let shard = |dir: &Path| std::fs::read_to_string(dir.join("units/shard-00000.json")).unwrap();
    assert_ne!(shard(&gpu), shard(&cpu));
    for k in ["0", "1", "2"] {
        let o = out(perftlab()
            .args([
                "run-unit",
                gpu.to_str().unwrap(),
                "--shard",
                k,
                "--backend",
                "gpu",
                "--quiet",
            ])
            .output()
            .unwrap());
        assert_eq!(o.0, 0, "{}", o.2);
    }
    let m = out(perftlab()
        .args(["merge", gpu.to_str().unwrap()])
        .output()
        .unwrap());
    assert_eq!(m.0, 0, "{}", m.2);
    assert!(
        m.1.contains(&format!("Nodes searched: {}", nodes("start", 5))),
        "{}",
        m.1
    );
    let _ = std::fs::remove_dir_all(&d);
}

/// `plan --backend gpu` counts its check of perft S and its estimate on the CPU (`src/cli/deep.rs`) and takes
/// only the order of its shards from the GPU (`GpuBackend::MERGES_ONLY_WITHIN_BATCH`): it opens no GPU (here
/// none can open: `WGPU_BACKEND=dx12` offers no adapter off Windows; before, the plan stopped with exit 2,
/// "no GPU adapter found"), and its shards list the positions in the grouped order of
/// `deep::group::grouped_order`, dealt in runs, and not in the expansion order a cpu plan keeps.
#[test]
fn a_gpu_plan_counts_on_the_cpu_and_deals_the_grouped_order() {
    use perftlab::deep::{group, split};
    let d = temp_dir("gpu-plan-cpu");
    let plan = |backend: &str| {
        let dir = d.join(backend);
        let o = out(perftlab()
            .env("WGPU_BACKEND", "dx12")
            .args(["plan", "--startpos", "--depth", "5", "--split-depth", "3"])
            .args(["--shards", "3", "--backend", backend])
            .args(["--out", dir.to_str().unwrap()])
            .output()
            .unwrap());
        assert_eq!(o.0, 0, "{}", o.2);
        (0..3)
            .flat_map(|k| {
                let text = std::fs::read_to_string(dir.join(format!("units/shard-{k:05}.json")));
                let v: serde_json::Value = serde_json::from_str(&text.unwrap()).unwrap();
                let list = v["positions"].as_array().unwrap().clone();
                list.into_iter().map(|p| p["i"].as_u64().unwrap() as usize)
            })
            .collect::<Vec<usize>>()
    };
    let root = perftlab::validate::Checked::new(perftlab::position::Setup::startpos()).unwrap();
    let (f, boards) = split::frontier_with_boards(&root, 3, false, 1024, true).unwrap();
    let grouped = group::grouped_order(&f, &boards);
    assert_eq!(grouped.len(), 5362); // distinct positions at ply 3, OEIS A083276
    assert_eq!(plan("gpu"), grouped);
    assert_eq!(plan("cpu"), f.count_order());
    assert_ne!(grouped, f.count_order());
    let _ = std::fs::remove_dir_all(&d);
}

/// Without `--split-depth`, a plan for the GPU splits 3 plies above the leaves and a cpu plan 4
/// (`plan::default_split`): start perft 6 at ply 3 (5,362 distinct positions, 8,902 paths: OEIS A083276 and
/// CPW perft 3) and at ply 2 (400 and 400); the merge gives CPW perft 6 either way.
#[test]
fn a_gpu_plan_splits_one_ply_deeper_by_default() {
    let d = temp_dir("gpu-plan-split");
    for (backend, split, positions, paths) in [("gpu", 3, 5362, 8902), ("cpu", 2, 400, 400)] {
        let dir = d.join(backend);
        let o = out(perftlab()
            .env("WGPU_BACKEND", "dx12")
            .args(["plan", "--startpos", "--depth", "6", "--shards", "2"])
            .args(["--backend", backend, "--out", dir.to_str().unwrap()])
            .output()
            .unwrap());
        assert_eq!(o.0, 0, "{}", o.2);
        let text = std::fs::read_to_string(dir.join("plan.json")).unwrap();
        let v: serde_json::Value = serde_json::from_str(&text).unwrap();
        assert_eq!(
            (&v["split_depth"], &v["positions"], &v["paths"]),
            (
                &serde_json::json!(split),
                &serde_json::json!(positions),
                &serde_json::json!(paths)
            ),
            "{backend}"
        );
        for k in ["0", "1"] {
            let o = out(perftlab()
                .args(["run-unit", dir.to_str().unwrap(), "--shard", k, "--quiet"])
                .output()
                .unwrap());
            assert_eq!(o.0, 0, "{}", o.2);
        }
        let o = out(perftlab()
            .args(["merge", dir.to_str().unwrap()])
            .output()
            .unwrap());
        assert!(o.1.contains("Nodes searched: 119060324"), "{}", o.1);
    }
    let _ = std::fs::remove_dir_all(&d);
}

#[test]
fn a_gpu_plan_warns_that_it_does_not_use_the_gpu_flags() {
    let d = temp_dir("gpu-plan-flags");
    let plan = |name: &str, backend: &str, flags: &[&str]| {
        let dir = d.join(name);
        out(perftlab()
            .env("WGPU_BACKEND", "dx12")
            .args(["plan", "--startpos", "--depth", "3", "--split-depth", "1"])
            .args(["--shards", "2", "--backend", backend])
            .args(["--out", dir.to_str().unwrap()])
            .args(flags)
            .output()
            .unwrap())
    };
    // The plan opens no GPU (the check and estimate count on the cpu), so these flags would change nothing.
    let (code, _, stderr) = plan("given", "gpu", &["--adapter", "0", "--gpu-mem", "64"]);
    assert_eq!(code, 0, "{stderr}");
    for flag in ["--adapter", "--gpu-mem"] {
        assert!(
            stderr.contains(&format!(
                "warning: {flag} does nothing for `plan --backend gpu`"
            )),
            "{flag}: {stderr}"
        );
    }
    // Without them, no warning; on the cpu backend the general warning names the backend instead.
    let (code, _, stderr) = plan("none", "gpu", &[]);
    assert_eq!((code, stderr.contains("warning")), (0, false), "{stderr}");
    let (code, _, stderr) = plan("cpu", "cpu", &["--adapter", "0"]);
    assert_eq!(code, 0, "{stderr}");
    assert!(
        stderr.contains("--adapter does nothing on the cpu backend"),
        "{stderr}"
    );
    let _ = std::fs::remove_dir_all(&d);
}
