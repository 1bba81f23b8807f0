//! Deep runs from the outside: a checkpointed `perft` and a `run-unit` killed with SIGKILL and resumed to the
//! exact totals, refused journals and results, SIGINT/SIGTERM exit codes and partial output, and work units on
//! a real single-node Slurm cluster and on GNU parallel merged into the CPW start-position row; a bounded
//! split frontier, work units that check their plan, GPU checkpoints in batches.
//!
//! Expected counts come from `tests/data/cpw-detail.csv` (Chess Programming Wiki "Perft Results").
//! The Slurm and GNU parallel tests need Debian's `slurmctld slurmd slurm-client munge parallel` (`.ci/run`
//! installs them): with CI=true a missing one is a failure, elsewhere the test is skipped, saying so on stderr.

mod common;

use common::{
    assert_usage, cpw_rows, finish, gpu_available, perftlab, scratch, send_signal, spawn, CpwRow,
    START,
};
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// The Slurm and GNU parallel tests each count perft 7 with statistics: one at a time on 2 cores.
static HEAVY: Mutex<()> = Mutex::new(());

fn temp_dir(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("perftlab-deep-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn run(args: &[&str]) -> (i32, String, String) {
    out(perftlab().args(args).output().expect("run perftlab"))
}

fn out(o: Output) -> (i32, String, String) {
    (
        o.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&o.stdout).into_owned(),
        String::from_utf8_lossy(&o.stderr).into_owned(),
    )
}

fn cpw(position: &str, depth: u32) -> CpwRow {
    cpw_rows()
        .into_iter()
        .find(|r| r.position == position && r.depth == depth)
        .unwrap_or_else(|| panic!("CPW row {position} {depth}"))
}

fn lines(path: &Path) -> usize {
    std::fs::read_to_string(path)
        .map(|t| t.lines().count())
        .unwrap_or(0)
}

/// Start `args`, wait until `file` has at least `lines_wanted` lines, then SIGKILL it (panics if it
/// finished first).
fn kill_when(args: &[&str], file: &Path, lines_wanted: usize) {
    let mut child = perftlab()
        .args(args)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let t = Instant::now();
    while lines(file) < lines_wanted {
        assert!(
            child.try_wait().unwrap().is_none(),
            "finished before it could be killed"
        );
        assert!(t.elapsed() < Duration::from_secs(300), "no progress");
        std::thread::sleep(Duration::from_millis(5));
    }
    child.kill().unwrap(); // SIGKILL
    let status = child.wait().unwrap();
    assert_eq!(
        std::os::unix::process::ExitStatusExt::signal(&status),
        Some(9)
    );
}

#[test]
fn checkpointed_perft_killed_with_sigkill_resumes_to_the_exact_total() {
    let dir = temp_dir("ckpt");
    let journal = dir.join("perft.jsonl");
    let j = journal.to_str().unwrap();
    // The reference generator is slow enough (≈ 10 s for perft 6) to be killed part way.
    let args = [
        "perft",
        "--depth",
        "6",
        "--backend",
        "reference",
        "--split-depth",
        "3",
        "--checkpoint",
        j,
        "--quiet",
    ];
    kill_when(&args, &journal, 400);
    let done_before = lines(&journal) - 1;
    assert!(done_before < 5362, "{done_before}");
    let (code, stdout, stderr) = run(&args);
    assert_eq!(code, 0, "{stderr}");
    assert!(stderr.contains(&format!("resuming from {j}: ")), "{stderr}");
    assert_eq!(
        stdout.trim(),
        format!("Nodes searched: {}", cpw("start", 6).nodes)
    );
    assert_eq!(lines(&journal), 5362 + 1);
}

#[test]
fn foreign_or_damaged_journals_are_refused() {
    let dir = temp_dir("refuse");
    let journal = dir.join("j.jsonl");
    let j = journal.to_str().unwrap();
    let (code, stdout, _) = run(&["perft", "--depth", "4", "--checkpoint", j, "--divide"]);
    assert_eq!(code, 0);
    assert!(stdout.ends_with(&format!("Nodes searched: {}\n", cpw("start", 4).nodes)));
    assert!(stdout.contains("e2e4: 13160\n"), "{stdout}");
    // Another depth: refused, exit 2, naming the file.
    let (code, _, stderr) = run(&["perft", "--depth", "5", "--checkpoint", j]);
    assert_eq!(code, 2);
    assert!(
        stderr.contains(j) && stderr.contains("other arguments"),
        "{stderr}"
    );
    // A changed count: refused as damaged.
    let text = std::fs::read_to_string(&journal).unwrap();
    let line: Vec<&str> = text.lines().collect();
    let edited = line[3].replacen("\"nodes\":", "\"nodes\":1", 1);
    std::fs::write(&journal, text.replacen(line[3], &edited, 1)).unwrap();
    let (code, _, stderr) = run(&["perft", "--depth", "4", "--checkpoint", j]);
    assert_eq!(code, 2);
    assert!(
        stderr.contains("damaged") && stderr.contains("line 4"),
        "{stderr}"
    );
    // A cut-off last line (killed while writing) is dropped and counted again.
    std::fs::write(&journal, &text[..text.len() - 20]).unwrap();
    let (code, stdout, stderr) = run(&["perft", "--depth", "4", "--checkpoint", j]);
    assert_eq!(code, 0, "{stderr}");
    assert!(stderr.contains("cut off"), "{stderr}");
    assert_eq!(
        stdout.trim(),
        format!("Nodes searched: {}", cpw("start", 4).nodes)
    );
}

fn plan(dir: &Path, extra: &[&str]) {
    let mut args = vec!["plan", "--out", dir.to_str().unwrap()];
    args.extend_from_slice(extra);
    let (code, stdout, stderr) = run(&args);
    assert_eq!(code, 0, "{stderr}");
    assert!(stdout.contains("estimate"), "{stdout}");
}

fn merge_json(dir: &Path) -> Value {
    let (code, stdout, stderr) = run(&["merge", dir.to_str().unwrap(), "--json"]);
    assert_eq!(code, 0, "{stderr}");
    serde_json::from_str(&stdout).unwrap()
}

#[test]
fn run_unit_killed_with_sigkill_resumes_and_merges_exactly() {
    let dir = temp_dir("unit");
    let d = dir.join("plan");
    let ds = d.to_str().unwrap();
    plan(&d, &["--depth", "6", "--split-depth", "3", "--shards", "4"]);
    let journal = d.join("journal/shard-00000.jsonl");
    let args = [
        "run-unit",
        ds,
        "--shard",
        "0",
        "--backend",
        "reference",
        "--quiet",
    ];
    kill_when(&args, &journal, 200);
    let (code, _, _) = run(&["status", ds]);
    assert_eq!(code, 1);
    let (_, json, _) = run(&["status", ds, "--json"]);
    let s: Value = serde_json::from_str(&json).unwrap();
    assert_eq!(s["partial"], serde_json::json!([0]));
    assert_eq!(s["missing_array"], "0-3");
    let (code, _, stderr) = run(&args);
    assert_eq!(code, 0, "{stderr}");
    assert!(stderr.contains("resuming"), "{stderr}");
    assert!(!journal.exists(), "journal left behind");
    // Idempotent: a second run of a finished shard does nothing.
    let (code, _, stderr) = run(&args);
    assert_eq!(code, 0);
    assert!(stderr.contains("already done"), "{stderr}");
    // The other shards from the environment variables the schedulers set.
    for (var, k) in [
        ("SLURM_ARRAY_TASK_ID", "1"),
        ("JOB_COMPLETION_INDEX", "2"),
        ("SLURM_ARRAY_TASK_ID", "3"),
    ] {
        let o = perftlab()
            .args(["run-unit", ds, "--quiet"])
            .env_remove("SLURM_ARRAY_TASK_ID")
            .env_remove("JOB_COMPLETION_INDEX")
            .env(var, k)
            .output()
            .unwrap();
        assert_eq!(o.status.code(), Some(0));
        // Shard 1 (the cpu backend) left the plan's shared table; the later shards load it.
        let stderr = String::from_utf8_lossy(&o.stderr);
        let shared = stderr.contains("hash table entries from") && stderr.contains("shared.table");
        assert_eq!(shared, k != "1", "shard {k}: {stderr}");
    }
    // A cross-check of shard 2 by another backend.
    let (code, _, stderr) = run(&[
        "run-unit",
        ds,
        "--shard",
        "2",
        "--tag",
        "ref",
        "--backend",
        "reference",
        "--quiet",
    ]);
    assert_eq!(code, 0, "{stderr}");
    assert!(d.join("results/shard-00002.tag-ref.json").exists());
    let (code, _, _) = run(&["status", ds]);
    assert_eq!(code, 0);
    let m = merge_json(&d);
    assert_eq!(
        m["nodes"].as_u64().map(u128::from),
        Some(cpw("start", 6).nodes)
    );
    assert_eq!(m["results"], 5);
}

#[test]
fn merge_refuses_missing_foreign_edited_truncated_and_disagreeing_results() {
    let dir = temp_dir("merge");
    let d = dir.join("plan");
    let ds = d.to_str().unwrap();
    plan(&d, &["--depth", "4", "--split-depth", "2", "--shards", "3"]);
    let (code, _, stderr) = run(&["run-unit", ds, "--shard", "1", "--quiet"]);
    assert_eq!(code, 0, "{stderr}");
    // Missing shards: status names them as a Slurm array, merge refuses naming the first.
    let (code, stdout, _) = run(&["status", ds, "--array"]);
    assert_eq!((code, stdout.trim()), (1, "0,2"));
    let (code, _, stderr) = run(&["merge", ds]);
    assert_eq!(code, 1);
    assert!(stderr.contains("shard 0 is missing"), "{stderr}");
    for k in ["0", "2"] {
        assert_eq!(run(&["run-unit", ds, "--shard", k, "--quiet"]).0, 0);
    }
    let (code, stdout, _) = run(&["merge", ds, "--divide"]);
    assert_eq!(code, 0);
    assert!(stdout.contains("e2e4: 13160\n"), "{stdout}");
    assert!(stdout.ends_with(&format!("Nodes searched: {}\n", cpw("start", 4).nodes)));

    let r1 = d.join("results/shard-00001.json");
    let good = std::fs::read_to_string(&r1).unwrap();
    let refused = |why: &str| {
        let (code, _, stderr) = run(&["merge", ds]);
        assert_eq!(code, 1, "{why}: {stderr}");
        assert!(
            stderr.contains("shard 1") && stderr.contains(why),
            "{stderr}"
        );
    };
    // Edited: one count changed.
    let v: Value = serde_json::from_str(&good).unwrap();
    let n = v["positions"][0]["nodes"].to_string();
    let bumped = (n.parse::<u64>().unwrap() + 1).to_string();
    std::fs::write(
        &r1,
        good.replacen(&format!("\"nodes\":{n}"), &format!("\"nodes\":{bumped}"), 1),
    )
    .unwrap();
    refused("edited");
    // Truncated.
    std::fs::write(&r1, &good[..good.len() / 2]).unwrap();
    refused("truncated");
    // Another shard's result.
    std::fs::copy(d.join("results/shard-00000.json"), &r1).unwrap();
    refused("belongs to shard 0");
    // Another plan's result (same arguments, a new plan).
    let other = dir.join("other");
    plan(
        &other,
        &["--depth", "4", "--split-depth", "2", "--shards", "3"],
    );
    let os = other.to_str().unwrap();
    assert_eq!(run(&["run-unit", os, "--shard", "1", "--quiet"]).0, 0);
    std::fs::copy(other.join("results/shard-00001.json"), &r1).unwrap();
    refused("another plan");
    std::fs::write(&r1, &good).unwrap();
    assert_eq!(run(&["merge", ds]).0, 0);
    // Two runs that disagree: a tagged run whose first count is off by one (resealed, so that only the
    // comparison can catch it).
    assert_eq!(
        run(&["run-unit", ds, "--shard", "1", "--tag", "b", "--quiet"]).0,
        0
    );
    let tb = d.join("results/shard-00001.tag-b.json");
    let mut v: Value = serde_json::from_str(&std::fs::read_to_string(&tb).unwrap()).unwrap();
    let unit: Value =
        serde_json::from_str(&std::fs::read_to_string(d.join("units/shard-00001.json")).unwrap())
            .unwrap();
    let mult = unit["positions"][0]["mult"].as_u64().unwrap();
    let first = v["positions"][0]["nodes"].as_u64().unwrap();
    v["positions"][0]["nodes"] = (first + 1).into();
    let total = v["totals"]["nodes"].as_u64().unwrap();
    v["totals"]["nodes"] = (total + mult).into();
    let Value::Object(obj) = v else {
        panic!("object")
    };
    let resealed = perftlab::deep::seal::seal(obj);
    std::fs::write(&tb, resealed.to_string()).unwrap();
    refused("disagree");
}

fn wait_exit(child: &mut Child, limit: Duration) -> Option<i32> {
    let t = Instant::now();
    while t.elapsed() < limit {
        if let Some(s) = child.try_wait().unwrap() {
            return s.code();
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    let _ = child.kill();
    None
}

fn signal(pid: u32, sig: &str) {
    let ok = Command::new("kill")
        .args([sig, &pid.to_string()])
        .status()
        .unwrap();
    assert!(ok.success());
}

#[test]
fn sigint_and_sigterm_stop_within_a_second_with_130_and_143() {
    for (sig, code) in [("-INT", 130), ("-TERM", 143)] {
        let mut child = perftlab()
            .args(["perft", "--depth", "10", "--threads", "1", "--quiet"])
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        // Time to start and install the handlers even on a loaded machine.
        std::thread::sleep(Duration::from_millis(1000));
        signal(child.id(), sig);
        let t = Instant::now();
        let got = wait_exit(&mut child, Duration::from_secs(1));
        assert_eq!(got, Some(code), "{sig} after {:?}", t.elapsed());
        let (_, _, stderr) = out(child.wait_with_output().unwrap());
        assert!(
            stderr.contains("interrupted by SIG") && stderr.contains("no result"),
            "{stderr}"
        );
    }
    // With --checkpoint the message says how to resume.
    let dir = temp_dir("sig");
    let j = dir.join("j.jsonl");
    let mut child = perftlab()
        .args(["perft", "--depth", "6", "--backend", "reference", "--quiet"])
        .args(["--split-depth", "2", "--checkpoint", j.to_str().unwrap()])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    while lines(&j) < 3 {
        std::thread::sleep(Duration::from_millis(10));
    }
    signal(child.id(), "-TERM");
    assert_eq!(wait_exit(&mut child, Duration::from_secs(1)), Some(143));
    let (_, _, stderr) = out(child.wait_with_output().unwrap());
    assert!(
        stderr.contains("positions of the split frontier finished")
            && stderr.contains("run the same command again to resume"),
        "{stderr}"
    );
}

#[test]
fn interrupted_stress_json_still_prints_its_summary() {
    // perftlab itself as the "external" engine (perftree script protocol): no outside program needed.
    let engine = format!("{} perftree", env!("CARGO_BIN_EXE_perftlab"));
    let mut child = perftlab()
        .args(["stress", "--engine", &engine, "--protocol", "script"])
        .args([
            "--positions",
            "1000000",
            "--depth",
            "2",
            "--json",
            "--quiet",
        ])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    std::thread::sleep(Duration::from_millis(1500));
    signal(child.id(), "-TERM");
    assert_eq!(wait_exit(&mut child, Duration::from_secs(2)), Some(143));
    let (_, stdout, stderr) = out(child.wait_with_output().unwrap());
    let v: Value = serde_json::from_str(stdout.trim()).unwrap_or_else(|e| panic!("{e}: {stdout}"));
    assert_eq!(v["interrupted"], true);
    // Issue 23: `agree` is true only when every position was compared; these agreed, but not all were.
    assert_eq!(v["agree"], false);
    assert_eq!(v["failed"], 0, "{stdout}");
    assert!(v["positions"].as_u64().unwrap() > 0, "{stdout}");
    assert!(stderr.contains("positions compared"), "{stderr}");
}

#[test]
fn k8s_job_is_an_indexed_job_reading_the_completion_index() {
    let dir = temp_dir("k8s");
    let d = dir.join("plan");
    plan(&d, &["--depth", "3", "--split-depth", "1", "--shards", "5"]);
    let text = std::fs::read_to_string(d.join("k8s-job.yaml")).unwrap();
    let docs = yaml_rust2::YamlLoader::load_from_str(&text).expect("valid YAML");
    let job = &docs[0];
    assert_eq!(job["kind"].as_str(), Some("Job"));
    assert_eq!(job["apiVersion"].as_str(), Some("batch/v1"));
    let spec = &job["spec"];
    assert_eq!(spec["completionMode"].as_str(), Some("Indexed"));
    assert_eq!(spec["completions"].as_i64(), Some(5));
    assert!(spec["backoffLimitPerIndex"].as_i64().unwrap() >= 1);
    let c = &spec["template"]["spec"]["containers"][0];
    let cmd: Vec<&str> = c["command"]
        .as_vec()
        .unwrap()
        .iter()
        .filter_map(|x| x.as_str())
        .collect();
    assert_eq!(&cmd[..3], ["perftlab", "run-unit", "/plan"]);
    let env = &c["env"][0];
    assert_eq!(env["name"].as_str(), Some("JOB_COMPLETION_INDEX"));
    assert_eq!(
        env["valueFrom"]["fieldRef"]["fieldPath"].as_str(),
        Some("metadata.annotations['batch.kubernetes.io/job-completion-index']")
    );
    // run-unit takes its shard from that variable.
    let o = perftlab()
        .args(["run-unit", d.to_str().unwrap(), "--quiet"])
        .env_remove("SLURM_ARRAY_TASK_ID")
        .env("JOB_COMPLETION_INDEX", "4")
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(0));
    assert!(d.join("results/shard-00004.json").exists());
    // Without any shard: a usage error naming the variables.
    let (code, _, stderr) = {
        let o = perftlab()
            .args(["run-unit", d.to_str().unwrap()])
            .env_remove("SLURM_ARRAY_TASK_ID")
            .env_remove("JOB_COMPLETION_INDEX")
            .output()
            .unwrap();
        out(o)
    };
    assert_eq!(code, 2);
    assert!(stderr.contains("JOB_COMPLETION_INDEX"), "{stderr}");
}

/// Whether the programs exist; with CI=true missing ones fail the test, elsewhere it is skipped.
fn have(programs: &[&str], test: &str) -> bool {
    let missing: Vec<&str> = programs
        .iter()
        .copied()
        .filter(|p| {
            !Command::new("sh")
                .args(["-c", &format!("command -v {p}")])
                .stdout(Stdio::null())
                .status()
                .is_ok_and(|s| s.success())
        })
        .collect();
    if missing.is_empty() {
        return true;
    }
    if std::env::var("CI").is_ok_and(|v| v == "true") {
        panic!(
            "{test}: missing {} (CI installs them in .ci/run)",
            missing.join(", ")
        );
    }
    eprintln!(
        "SKIPPED {test}: missing {} (apt-get install slurmctld slurmd slurm-client munge parallel)",
        missing.join(", ")
    );
    false
}

/// Check a merged start-position perft 7 with statistics against the CPW row.
fn assert_cpw_start_7(m: &Value) {
    let row = cpw("start", 7);
    let s = &m["stats"];
    assert_eq!(u128::from(m["nodes"].as_u64().unwrap()), row.nodes);
    assert!(!row.columns.is_empty());
    for (column, want) in &row.columns {
        let got = s[column.key()]
            .as_u64()
            .unwrap_or_else(|| panic!("merged stats lack {}: {s}", column.key()));
        assert_eq!(u128::from(got), *want, "{}", column.key());
    }
    assert_eq!(row.nodes, 3_195_901_860);
}

#[test]
fn gnu_parallel_runs_the_units_of_start_perft_7_with_stats() {
    if !have(&["parallel"], "gnu_parallel test") {
        return;
    }
    let _heavy = HEAVY.lock().unwrap_or_else(|e| e.into_inner());
    let dir = temp_dir("parallel");
    let d = dir.join("plan");
    plan(
        &d,
        &[
            "--depth",
            "7",
            "--split-depth",
            "3",
            "--shards",
            "6",
            "--stats",
        ],
    );
    let script = d.join("run-parallel.sh");
    let o = Command::new("bash")
        .arg(&script)
        .args(["-j", "2"])
        .output()
        .unwrap();
    let (code, stdout, stderr) = out(o);
    assert_eq!(code, 0, "{stdout}\n{stderr}");
    assert!(stdout.contains("6 of 6 shards done"), "{stdout}");
    let joblog = std::fs::read_to_string(d.join("parallel.joblog")).unwrap();
    assert_eq!(joblog.lines().count(), 1 + 6, "{joblog}");
    assert_cpw_start_7(&merge_json(&d));
    // Run again: --resume-failed finds nothing to rerun.
    let o = Command::new("bash").arg(&script).output().unwrap();
    assert_eq!(o.status.code(), Some(0));
}

/// A single-node Slurm cluster on localhost; Drop stops exactly the daemons it started.
struct Slurm {
    dir: PathBuf,
    conf: PathBuf,
    munged: Option<Child>,
    daemons: Vec<Child>,
}

impl Slurm {
    /// Start munged, slurmctld and slurmd (recipe for Slurm 22.05 on Debian 12: root, no systemd, cgroup-free
    /// plugins; see the README's "Deep runs" section).
    fn start(dir: &Path) -> Slurm {
        use std::os::unix::fs::PermissionsExt;
        use std::os::unix::process::CommandExt;
        for sub in ["munge", "state", "spool", "run", "log"] {
            std::fs::create_dir_all(dir.join(sub)).unwrap();
        }
        let munge = dir.join("munge");
        std::fs::set_permissions(&munge, std::fs::Permissions::from_mode(0o755)).unwrap();
        let key = munge.join("munge.key");
        let st = Command::new("mungekey")
            .arg("--create")
            .arg(format!("--keyfile={}", key.display()))
            .status()
            .unwrap();
        assert!(st.success(), "mungekey");
        let socket = munge.join("munge.socket.2");
        let munged = Command::new("munged")
            .arg("-F")
            .arg(format!("--socket={}", socket.display()))
            .arg(format!("--key-file={}", key.display()))
            .arg(format!("--pid-file={}", munge.join("munged.pid").display()))
            .arg(format!("--seed-file={}", munge.join("seed").display()))
            .arg(format!("--log-file={}", munge.join("munged.log").display()))
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .process_group(0)
            .spawn()
            .unwrap();
        let host = String::from_utf8(Command::new("hostname").arg("-s").output().unwrap().stdout)
            .unwrap()
            .trim()
            .to_string();
        let cpus = std::thread::available_parallelism().map_or(1, |n| n.get());
        let w = dir.display();
        let conf = dir.join("slurm.conf");
        std::fs::write(
            &conf,
            format!(
                "ClusterName=perftci\nSlurmctldHost={host}(127.0.0.1)\nSlurmUser=root\nSlurmdUser=root\n\
                 AuthType=auth/munge\nCredType=cred/munge\nAuthInfo=socket={w}/munge/munge.socket.2\n\
                 StateSaveLocation={w}/state\nSlurmdSpoolDir={w}/spool\n\
                 SlurmctldPidFile={w}/run/slurmctld.pid\nSlurmdPidFile={w}/run/slurmd.pid\n\
                 SlurmctldLogFile={w}/log/slurmctld.log\nSlurmdLogFile={w}/log/slurmd.log\n\
                 ProctrackType=proctrack/linuxproc\nTaskPlugin=task/none\nJobAcctGatherType=jobacct_gather/none\n\
                 AccountingStorageType=accounting_storage/none\nJobCompType=jobcomp/none\n\
                 SelectType=select/cons_tres\nSelectTypeParameters=CR_Core\n\
                 SchedulerParameters=sched_min_interval=0,batch_sched_delay=0,bf_interval=1\n\
                 MpiDefault=none\nMailProg=/bin/true\nReturnToService=2\nMaxArraySize=100001\n\
                 NodeName={host} NodeAddr=127.0.0.1 CPUs={cpus} RealMemory=1000 State=UNKNOWN\n\
                 PartitionName=debug Nodes=ALL Default=YES MaxTime=INFINITE State=UP\n"
            ),
        )
        .unwrap();
        let t = Instant::now();
        while !socket.exists() {
            assert!(
                t.elapsed() < Duration::from_secs(10),
                "munged did not start"
            );
            std::thread::sleep(Duration::from_millis(50));
        }
        let mut s = Slurm {
            dir: dir.to_path_buf(),
            conf: conf.clone(),
            munged: Some(munged),
            daemons: Vec::new(),
        };
        for args in [
            vec!["slurmctld", "-D", "-i", "-f"],
            vec!["slurmd", "-D", "-f"],
        ] {
            let child = Command::new(args[0])
                .args(&args[1..])
                .arg(&conf)
                .env("SLURM_CONF", &conf)
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .process_group(0)
                .spawn()
                .unwrap();
            s.daemons.push(child);
            if args[0] == "slurmctld" {
                std::thread::sleep(Duration::from_millis(500));
            }
        }
        let t = Instant::now();
        loop {
            let state = s.client("sinfo", &["-h", "-o", "%T"]);
            if state.trim() == "idle" {
                break;
            }
            assert!(
                t.elapsed() < Duration::from_secs(60),
                "node not idle: '{state}'; log: {}",
                std::fs::read_to_string(dir.join("log/slurmctld.log")).unwrap_or_default()
            );
            std::thread::sleep(Duration::from_millis(200));
        }
        s
    }

    fn client(&self, program: &str, args: &[&str]) -> String {
        let o = Command::new(program)
            .args(args)
            .env("SLURM_CONF", &self.conf)
            .output()
            .unwrap();
        String::from_utf8_lossy(&o.stdout).into_owned() + &String::from_utf8_lossy(&o.stderr)
    }
}

impl Drop for Slurm {
    fn drop(&mut self) {
        let _ = self.client("scontrol", &["shutdown"]);
        for mut d in self.daemons.drain(..) {
            if wait_exit(&mut d, Duration::from_secs(10)).is_none() {
                let _ = d.wait();
            }
        }
        if let Some(mut m) = self.munged.take() {
            let _ = Command::new("kill")
                .args(["-TERM", &m.id().to_string()])
                .status();
            if wait_exit(&mut m, Duration::from_secs(5)).is_none() {
                let _ = m.wait();
            }
        }
        let _ = &self.dir;
    }
}

#[test]
fn slurm_array_runs_the_units_of_start_perft_7_with_stats() {
    if !have(
        &[
            "munged",
            "mungekey",
            "slurmctld",
            "slurmd",
            "sbatch",
            "squeue",
            "sinfo",
            "scontrol",
        ],
        "slurm test",
    ) {
        return;
    }
    let _heavy = HEAVY.lock().unwrap_or_else(|e| e.into_inner());
    let dir = temp_dir("slurm");
    let d = dir.join("plan");
    plan(
        &d,
        &[
            "--depth",
            "7",
            "--split-depth",
            "3",
            "--shards",
            "4",
            "--stats",
        ],
    );
    let slurm = Slurm::start(&dir.join("cluster"));
    let submitted = slurm.client("sbatch", &[d.join("slurm.sbatch").to_str().unwrap()]);
    let job = submitted
        .split_whitespace()
        .last()
        .filter(|j| j.bytes().all(|b| b.is_ascii_digit()))
        .unwrap_or_else(|| panic!("sbatch: {submitted}"))
        .to_string();
    let t = Instant::now();
    loop {
        let q = slurm.client("squeue", &["-h", "-j", &job]);
        if q.trim().is_empty() || q.contains("Invalid job id") {
            break;
        }
        assert!(
            t.elapsed() < Duration::from_secs(1200),
            "jobs still queued: {q}"
        );
        std::thread::sleep(Duration::from_millis(500));
    }
    let (code, stdout, _) = run(&["status", d.to_str().unwrap()]);
    let logs: String = std::fs::read_dir(d.join("logs"))
        .unwrap()
        .flatten()
        .map(|e| std::fs::read_to_string(e.path()).unwrap_or_default())
        .collect();
    assert_eq!(code, 0, "{stdout}\nlogs:\n{logs}");
    assert_cpw_start_7(&merge_json(&d));
    drop(slurm);
}

const KIWIPETE: &str = "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1";

fn json_of(args: &[&str]) -> Value {
    let (code, stdout, stderr) = run(args);
    assert_eq!(code, 0, "{args:?}: {stderr}");
    serde_json::from_str(&stdout).unwrap_or_else(|e| panic!("{e}: {stdout}"))
}

/// The statistics lines of `perft`/`merge` text output (everything before `Nodes searched`).
fn stats_lines(text: &str) -> Vec<String> {
    text.lines()
        .filter(|l| !l.is_empty() && !l.contains(':'))
        .map(String::from)
        .collect()
}

#[test]
fn stats_full_plan_run_unit_and_merge_equal_perft_stats_full() {
    let dir = temp_dir("full");
    let d = dir.join("plan");
    let ds = d.to_str().unwrap();
    let depth = ["--depth", "4"];
    plan(
        &d,
        &[
            "--fen",
            KIWIPETE,
            depth[0],
            depth[1],
            "--split-depth",
            "2",
            "--shards",
            "3",
            "--stats",
            "full",
        ],
    );
    let p: Value =
        serde_json::from_str(&std::fs::read_to_string(d.join("plan.json")).unwrap()).unwrap();
    assert_eq!(p["stats"], "full");
    for k in ["0", "1", "2"] {
        let (code, _, stderr) = run(&["run-unit", ds, "--shard", k, "--quiet"]);
        assert_eq!(code, 0, "{stderr}");
    }
    let merged = merge_json(&d);
    // The reference: an independent, unsplit run of the same position.
    let direct = json_of(&[
        "perft", "--fen", KIWIPETE, depth[0], depth[1], "--stats", "full", "--json",
    ]);
    assert_eq!(merged["nodes"], direct["nodes"]);
    assert_eq!(
        merged["stats"], direct["stats"],
        "merged vs perft --stats full"
    );
    assert_eq!(merged["stats"].as_object().unwrap().len(), 17);
    // And the CPW row (an outside source) for the CPW columns.
    let row = cpw("kiwipete", 4);
    assert_eq!(merged["nodes"].as_u64().map(u128::from), Some(row.nodes));
    for (column, want) in &row.columns {
        assert_eq!(
            merged["stats"][column.key()].as_u64().map(u128::from),
            Some(*want),
            "{}",
            column.key()
        );
    }
    // The text output prints the same lines as perft's.
    let (_, merged_text, _) = run(&["merge", ds]);
    let (_, perft_text, _) = run(&[
        "perft", "--fen", KIWIPETE, depth[0], depth[1], "--stats", "full",
    ]);
    assert_eq!(stats_lines(&merged_text), stats_lines(&perft_text));
    assert_eq!(stats_lines(&perft_text).len(), 17, "{perft_text}");
    // A split perft with full columns (no journal) agrees too.
    let split = json_of(&[
        "perft",
        "--fen",
        KIWIPETE,
        depth[0],
        depth[1],
        "--stats",
        "full",
        "--split-depth",
        "2",
        "--json",
        "--quiet",
    ]);
    assert_eq!(split["stats"], direct["stats"]);

    // Mixing columns is refused: a result of shard 1 reduced to the CPW columns (resealed, so that only the
    // column check can catch it).
    let r1 = d.join("results/shard-00001.json");
    let good = std::fs::read_to_string(&r1).unwrap();
    let mut v: Value = serde_json::from_str(&good).unwrap();
    let cpw_keys: Vec<&str> = row.columns.iter().map(|(c, _)| c.key()).collect();
    let keep = |s: &mut Value| {
        s.as_object_mut()
            .unwrap()
            .retain(|k, _| cpw_keys.contains(&k.as_str()) || k == "stalemates");
    };
    for x in v["positions"].as_array_mut().unwrap() {
        keep(&mut x["stats"]);
    }
    keep(&mut v["totals"]["stats"]);
    let Value::Object(obj) = v else {
        panic!("object")
    };
    std::fs::write(&r1, perftlab::deep::seal::seal(obj).to_string()).unwrap();
    let (code, _, stderr) = run(&["merge", ds]);
    assert_eq!(code, 1, "{stderr}");
    assert!(
        stderr.contains("shard 1") && stderr.contains("statistics columns"),
        "{stderr}"
    );
    std::fs::write(&r1, &good).unwrap();
    assert_eq!(run(&["merge", ds]).0, 0);

    // A journal of the CPW columns is refused by a run of the full columns (and back).
    let j = dir.join("j.jsonl");
    let js = j.to_str().unwrap();
    let ck = |stats: &str| {
        run(&[
            "perft",
            "--depth",
            "3",
            "--stats",
            stats,
            "--checkpoint",
            js,
            "--split-depth",
            "1",
        ])
    };
    assert_eq!(ck("cpw").0, 0);
    let (code, _, stderr) = ck("full");
    assert_eq!(code, 2);
    assert!(
        stderr.contains(js) && stderr.contains("other arguments"),
        "{stderr}"
    );
    std::fs::remove_file(&j).unwrap();
    assert_eq!(ck("full").0, 0);
    let (code, _, stderr) = ck("cpw");
    assert_eq!(code, 2, "{stderr}");
}

#[test]
fn checkpointed_perft_with_full_stats_killed_with_sigkill_resumes_exactly() {
    let dir = temp_dir("ckpt-full");
    let journal = dir.join("perft.jsonl");
    let j = journal.to_str().unwrap();
    // The reference generator classifying every leaf is slow enough to be killed part way.
    let args = [
        "perft",
        "--depth",
        "5",
        "--backend",
        "reference",
        "--stats",
        "full",
        "--split-depth",
        "3",
        "--checkpoint",
        j,
        "--quiet",
        "--json",
    ];
    kill_when(&args, &journal, 300);
    let done_before = lines(&journal) - 1;
    assert!(done_before < 5362, "{done_before}");
    let (code, stdout, stderr) = run(&args);
    assert_eq!(code, 0, "{stderr}");
    assert!(stderr.contains(&format!("resuming from {j}: ")), "{stderr}");
    assert_eq!(lines(&journal), 5362 + 1);
    let resumed: Value = serde_json::from_str(&stdout).unwrap();
    let direct = json_of(&["perft", "--depth", "5", "--stats", "full", "--json"]);
    assert_eq!(resumed["nodes"], direct["nodes"]);
    assert_eq!(resumed["stats"], direct["stats"]);
    assert_eq!(resumed["stats"].as_object().unwrap().len(), 17);
    let row = cpw("start", 5);
    assert_eq!(resumed["nodes"].as_u64().map(u128::from), Some(row.nodes));
    assert_eq!(
        resumed["stats"]["captures"].as_u64().map(u128::from),
        row.columns
            .iter()
            .find(|(c, _)| c.key() == "captures")
            .map(|(_, v)| *v)
    );
}

#[test]
fn zobrist_seeds_change_nothing_but_the_keys() {
    // perft with three seeds (hash table and transposition merging both keyed by them), counts and statistics.
    let row = cpw("kiwipete", 4);
    for seed in ["1", "0xDEADBEEF", "18446744073709551615"] {
        let v = json_of(&[
            "perft",
            "--fen",
            KIWIPETE,
            "--depth",
            "4",
            "--zobrist-seed",
            seed,
            "--json",
        ]);
        assert_eq!(
            v["nodes"].as_u64().map(u128::from),
            Some(row.nodes),
            "{seed}"
        );
        assert!(v["zobrist_seed"].is_u64(), "{v}");
        let s = json_of(&[
            "perft",
            "--fen",
            KIWIPETE,
            "--depth",
            "4",
            "--stats",
            "--zobrist-seed",
            seed,
            "--json",
        ]);
        for (column, want) in &row.columns {
            assert_eq!(
                s["stats"][column.key()].as_u64().map(u128::from),
                Some(*want),
                "seed {seed}: {}",
                column.key()
            );
        }
    }
    // Bad seed text, or a seed for a backend without these keys: exit 2 naming the flag and the text.
    for bad in [
        "12x",
        "0x",
        "18446744073709551616",
        "0x1234567890abcdef0",
        "",
    ] {
        let (code, _, stderr) = run(&["perft", "--depth", "1", "--zobrist-seed", bad]);
        assert_eq!(code, 2, "{bad}: {stderr}");
        assert!(
            stderr.contains("--zobrist-seed") && stderr.contains(&format!("'{bad}'")),
            "{stderr}"
        );
    }
    let (code, _, stderr) = run(&[
        "perft",
        "--depth",
        "1",
        "--backend",
        "reference",
        "--zobrist-seed",
        "5",
    ]);
    assert_eq!(code, 2);
    assert!(stderr.contains("--zobrist-seed"), "{stderr}");

    // run-unit: a tagged second run with another seed cross-checks every shard; the results record the seeds.
    let dir = temp_dir("seed");
    let d = dir.join("plan");
    let ds = d.to_str().unwrap();
    plan(&d, &["--depth", "5", "--split-depth", "2", "--shards", "2"]);
    for k in ["0", "1"] {
        assert_eq!(run(&["run-unit", ds, "--shard", k, "--quiet"]).0, 0);
        let (code, _, stderr) = run(&[
            "run-unit",
            ds,
            "--shard",
            k,
            "--tag",
            "seed2",
            "--zobrist-seed",
            "12345",
            "--quiet",
        ]);
        assert_eq!(code, 0, "{stderr}");
    }
    let r: Value = serde_json::from_str(
        &std::fs::read_to_string(d.join("results/shard-00001.tag-seed2.json")).unwrap(),
    )
    .unwrap();
    assert_eq!(r["zobrist_seed"], 12345);
    let r: Value =
        serde_json::from_str(&std::fs::read_to_string(d.join("results/shard-00001.json")).unwrap())
            .unwrap();
    assert_eq!(r["zobrist_seed"], 0x5045_5246_544C_4142u64);
    // Another seed on a finished shard without a tag: nothing is counted, and the message says how to add it.
    let (code, _, stderr) = run(&[
        "run-unit",
        ds,
        "--shard",
        "1",
        "--zobrist-seed",
        "99",
        "--quiet",
    ]);
    assert_eq!(code, 0, "{stderr}");
    assert!(
        stderr.contains("already done") && stderr.contains("not 99") && stderr.contains("--tag"),
        "{stderr}"
    );
    let (code, stdout, stderr) = run(&["merge", ds, "--json"]);
    assert_eq!(code, 0, "{stderr}");
    assert!(!stderr.contains("not independent"), "{stderr}");
    let m: Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(
        m["nodes"].as_u64().map(u128::from),
        Some(cpw("start", 5).nodes)
    );
    assert_eq!(m["cross_checked_shards"], serde_json::json!([0, 1]));
    // A tagged run with the same keys agrees but is not an independent hashing: merge says so.
    assert_eq!(
        run(&["run-unit", ds, "--shard", "0", "--tag", "same", "--quiet"]).0,
        0
    );
    let (code, _, stderr) = run(&["merge", ds]);
    assert_eq!(code, 0, "{stderr}");
    assert!(
        stderr.contains("shard 0") && stderr.contains("not independent"),
        "{stderr}"
    );
}

#[test]
fn split_counts_are_exact_on_the_cpw_positions() {
    // Every CPW "Perft Results" position (src/cpw.rs, the page's published counts), split at plies 1 to 3 (the
    // frontier made by the core's frontier expansion, transpositions merged): the published total, and a
    // divide whose root moves add up to it; and the published total without the divide (the frontier made
    // without per-root-move records, each ply whole: `split::frontier_bare`).
    for p in perftlab::cpw::POSITIONS {
        // The deepest published depth of at most 5 million nodes (at least 4, so that ply 3 is below it).
        let (depth, want) = p
            .nodes_by_depth
            .iter()
            .enumerate()
            .map(|(i, &n)| (i as u32 + 1, n))
            .rfind(|&(d, n)| n <= 5_000_000 || d == 4)
            .unwrap();
        for split in ["1", "2", "3"] {
            let d = depth.to_string();
            let args = [
                "perft",
                "--fen",
                p.fen,
                "--depth",
                &d,
                "--split-depth",
                split,
                "--divide",
                "--json",
                "--quiet",
                "--threads",
                "2",
                "--hash",
                "16",
            ];
            let j = json_of(&args);
            let nodes: u128 = j["nodes"].to_string().parse().unwrap();
            assert_eq!(nodes, want, "{} depth {depth} split {split}", p.name);
            let by_move: u128 = j["divide"]
                .as_object()
                .unwrap()
                .values()
                .map(|v| v.to_string().parse::<u128>().unwrap())
                .sum();
            assert_eq!(by_move, want, "{} divide, split {split}", p.name);
            let bare: Vec<&str> = args.iter().copied().filter(|&a| a != "--divide").collect();
            let j = json_of(&bare);
            assert!(j["divide"].is_null(), "{j}");
            assert_eq!(
                j["nodes"].to_string(),
                want.to_string(),
                "{} split {split}",
                p.name
            );
        }
    }
}

#[test]
fn a_split_memory_budget_too_small_is_refused_naming_the_memory_needed() {
    // Ply 4 of the start position: 72,078 distinct positions (OEIS A083276), several MiB while being made.
    let (code, stdout, stderr) = run(&[
        "perft",
        "--depth",
        "6",
        "--split-depth",
        "4",
        "--split-mem",
        "1",
        "--quiet",
    ]);
    assert_eq!(code, 2, "{stderr}");
    assert!(stdout.is_empty(), "{stdout}");
    let needed: u64 = stderr
        .split("--split-mem: the split frontier at ply 4 needs about ")
        .nth(1)
        .and_then(|t| t.split(' ').next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("no needed size in: {stderr}"));
    assert!(stderr.contains("more than the 1 MiB allowed"), "{stderr}");
    assert!((2..=64).contains(&needed), "{stderr}");
    // With the memory it named, the run fits and counts the published perft 6 (CPW "Perft Results").
    let j = json_of(&[
        "perft",
        "--depth",
        "6",
        "--split-depth",
        "4",
        "--split-mem",
        &needed.to_string(),
        "--json",
        "--quiet",
    ]);
    assert_eq!(j["nodes"].to_string(), cpw("start", 6).nodes.to_string());
    // plan refuses the same way, before writing a plan; 0 MiB is refused by name.
    let d = temp_dir("split-mem");
    let out = d.join("p");
    let (code, _, stderr) = run(&[
        "plan",
        "--depth",
        "6",
        "--split-depth",
        "4",
        "--shards",
        "2",
        "--split-mem",
        "1",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert_eq!(code, 2, "{stderr}");
    assert!(
        stderr.contains("--split-mem: the split frontier at ply 4 needs about "),
        "{stderr}"
    );
    assert!(!out.join("plan.json").exists());
    let (code, _, stderr) = run(&[
        "perft",
        "--depth",
        "5",
        "--split-depth",
        "2",
        "--split-mem",
        "0",
    ]);
    assert_eq!(code, 2, "{stderr}");
    assert!(stderr.contains("--split-mem: '0' MiB"), "{stderr}");
    let _ = std::fs::remove_dir_all(&d);
}

/// The number in `v` as u128 (exact JSON integers).
fn u128_of(v: &Value) -> u128 {
    v.to_string()
        .parse()
        .unwrap_or_else(|_| panic!("not an integer: {v}"))
}

/// The time fields of a split `perft --json`: several batches, at most one per position, and the backend's
/// time plus the time outside it making up the run's time.
fn assert_time_fields(j: &Value, positions: u64) {
    let batches = j["batches"].as_u64().expect("batches");
    assert!(batches >= 2 && batches <= positions, "{j}");
    let backend = j["backend_seconds"].as_f64().expect("backend_seconds");
    let overhead = j["overhead_seconds"].as_f64().expect("overhead_seconds");
    let seconds = j["seconds"].as_f64().unwrap();
    assert!(backend > 0.0 && overhead >= 0.0, "{j}");
    assert!((backend + overhead - seconds).abs() < 1e-3, "{j}");
}

#[test]
fn batched_split_and_checkpoint_counts_are_exact_and_show_their_time() {
    // Start position perft 6 split at ply 4 (72,078 positions, OEIS A083276: many batches of the CPU
    // backend) and Kiwipete 4 with the CPW statistics checkpointed at ply 2: the CPW counts.
    let dir = temp_dir("batched");
    let start = cpw("start", 6);
    let j = json_of(&[
        "perft",
        "--depth",
        "6",
        "--split-depth",
        "4",
        "--json",
        "--quiet",
        "--threads",
        "2",
    ]);
    assert_eq!(u128_of(&j["nodes"]), start.nodes);
    assert_eq!(j["split_ply"], 4, "the CPU counts the ply named");
    assert_time_fields(&j, 72_078);
    let kiwi = cpw("kiwipete", 4);
    let journal = dir.join("kiwi.jsonl");
    let args = [
        "perft",
        "--fen",
        &kiwi.fen,
        "--depth",
        "4",
        "--stats",
        "--checkpoint",
        journal.to_str().unwrap(),
        "--split-depth",
        "2",
        "--json",
        "--quiet",
        "--threads",
        "2",
    ];
    let j = json_of(&args);
    assert_eq!(u128_of(&j["nodes"]), kiwi.nodes);
    assert_eq!(j["split_ply"], 2);
    for (column, want) in &kiwi.columns {
        assert_eq!(
            u128_of(&j["stats"][column.key()]),
            *want,
            "{}",
            column.key()
        );
    }
    // One journal line per position after the header, as before batches (old journals resume).
    let batches = j["batches"].as_u64().unwrap();
    let text = std::fs::read_to_string(&journal).unwrap();
    let records = text.lines().count() - 1;
    assert!(
        batches >= 1 && records as u64 > batches,
        "{records} records, {batches} batches"
    );
    // Resumed from the finished journal: the same counts, no batch counted.
    let again = json_of(&args);
    assert_eq!(again["nodes"], j["nodes"]);
    assert_eq!(again["stats"], j["stats"]);
    assert_eq!(again["batches"], 0);
}

#[test]
fn plan_without_a_split_depth_splits_four_plies_above_the_leaves() {
    // perft 6: ply 2 (400 move paths); the units merge to the CPW count, and their result files say how
    // their time was spent.
    let dir = temp_dir("default-split");
    let d = dir.join("plan");
    plan(&d, &["--depth", "6", "--shards", "2"]);
    let p: Value =
        serde_json::from_str(&std::fs::read_to_string(d.join("plan.json")).unwrap()).unwrap();
    assert_eq!(p["split_depth"], 2);
    assert_eq!(u128_of(&p["paths"]), cpw("start", 2).nodes);
    for k in ["0", "1"] {
        let (code, _, stderr) = run(&[
            "run-unit",
            d.to_str().unwrap(),
            "--shard",
            k,
            "--quiet",
            "--threads",
            "2",
        ]);
        assert_eq!(code, 0, "{stderr}");
    }
    let r: Value =
        serde_json::from_str(&std::fs::read_to_string(d.join("results/shard-00000.json")).unwrap())
            .unwrap();
    let backend = r["backend_seconds"].as_f64().unwrap();
    let overhead = r["overhead_seconds"].as_f64().unwrap();
    assert!(backend > 0.0 && overhead >= 0.0, "{r}");
    assert!((backend + overhead - r["seconds"].as_f64().unwrap()).abs() < 1e-3);
    assert!(r["batches"].as_u64().unwrap() >= 1);
    assert_eq!(u128_of(&merge_json(&d)["nodes"]), cpw("start", 6).nodes);
}

// ---------------------------------------------------------------------------------------------------------
// Deep runs checked (issue 23): a bounded split frontier, work units that check their plan, GPU
// checkpoints in batches.
// ---------------------------------------------------------------------------------------------------------

fn plan_dir(name: &str, fen: Option<&str>) -> std::path::PathBuf {
    let dir = scratch(name);
    let mut args = vec![
        "plan",
        "--depth",
        "3",
        "--split-depth",
        "1",
        "--shards",
        "2",
        "--out",
    ];
    let d = dir.to_str().unwrap().to_string();
    args.push(&d);
    if let Some(f) = fen {
        args.extend(["--fen", f]);
    }
    let (code, _, err) = run(&args);
    assert_eq!(code, 0, "{err}");
    dir
}

// Item 7: the split frontier held every child of a level at once (1.1 GB for `plan --split-depth 5`).
#[test]
fn split_frontier_memory_is_bounded() {
    let dir = scratch("split5");
    let out = Command::new("/usr/bin/time")
        .args(["-f", "maxrss_kib %M"])
        .arg(env!("CARGO_BIN_EXE_perftlab"))
        .args([
            "plan",
            "--depth",
            "6",
            "--split-depth",
            "5",
            "--shards",
            "2",
            "--hash",
            "1",
            "--threads",
            "2",
            "--out",
            dir.to_str().unwrap(),
        ])
        .output();
    let Ok(out) = out else {
        assert!(
            std::env::var("CI").as_deref() != Ok("true"),
            "CI=true but no /usr/bin/time"
        );
        eprintln!("skipped: no /usr/bin/time");
        return;
    };
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{err}");
    let kib: u64 = err
        .lines()
        .find_map(|l| l.strip_prefix("maxrss_kib "))
        .and_then(|k| k.trim().parse().ok())
        .expect("GNU time's report");
    // 822,518 distinct positions at ply 5 (OEIS A083276); the children of ply 4 (4,865,609 move paths,
    // CPW) are no longer all held at once.
    let plan: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("plan.json")).unwrap()).unwrap();
    assert_eq!(plan["positions"], 822_518);
    // Measured on the 2-core test machine: 1,868,524 KiB before (every child of ply 4 held at once, the units
    // built as one JSON value), 798,728 KiB after.
    assert!(kib < 1024 * 1024, "peak memory {kib} KiB");
}

// Item 10: `plan --out` took any directory; plan.json was trusted; status said done where merge refused.
#[test]
fn work_units_check_their_plan() {
    let busy = scratch("busy");
    std::fs::create_dir_all(busy.join("journal")).unwrap();
    std::fs::write(busy.join("notes.txt"), "mine").unwrap();
    assert_usage(
        &[
            "plan",
            "--depth",
            "3",
            "--split-depth",
            "1",
            "--shards",
            "2",
            "--out",
            busy.to_str().unwrap(),
        ],
        "--out",
    );
    assert_eq!(
        std::fs::read_to_string(busy.join("notes.txt")).unwrap(),
        "mine"
    );
    // plan.json edited: its `fen` now says Kiwipete; every command refuses it, naming the field.
    let d = plan_dir("sealed", None);
    let ds = d.to_str().unwrap();
    let path = d.join("plan.json");
    let text = std::fs::read_to_string(&path).unwrap();
    let edited = text.replacen(
        START,
        "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
        1,
    );
    assert_ne!(edited, text);
    std::fs::write(&path, &edited).unwrap();
    for args in [
        vec!["run-unit", ds, "--shard", "0", "--quiet"],
        vec!["status", ds],
        vec!["merge", ds],
    ] {
        let (code, _, err) = run(&args);
        assert_eq!(code, 2, "{args:?}: {err}");
        assert!(err.contains("field 'fen' was edited"), "{args:?}: {err}");
    }
    std::fs::write(&path, &text).unwrap();
    // A result of another plan beside a good one: status and merge both say the shard is not done.
    let other = plan_dir(
        "other",
        Some("r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1"),
    );
    for k in ["0", "1"] {
        for dir in [ds, other.to_str().unwrap()] {
            let (code, _, err) = run(&["run-unit", dir, "--shard", k, "--quiet"]);
            assert_eq!(code, 0, "{err}");
        }
    }
    std::fs::copy(
        other.join("results/shard-00001.json"),
        d.join("results/shard-00001.tag-foreign.json"),
    )
    .unwrap();
    let (status_code, out, _) = run(&["status", ds]);
    let (merge_code, _, err) = run(&["merge", ds]);
    assert_eq!(merge_code, 1, "{err}");
    assert_eq!(status_code, 1, "{out}");
    assert!(out.contains("1 of 2 shards done"), "{out}");
    assert!(out.contains("belongs to another plan"), "{out}");
}

// Item 13: `--checkpoint --backend gpu` counted one frontier position per GPU run (about 21 positions/s on
// lavapipe). The positions now go to the backend in batches (`Backend::perft_many`), each batch journalled
// when it finishes: the counts stay exact (CPW's), and a run stopped by SIGTERM after some batches resumes
// from its journal to the same count.
#[test]
fn gpu_checkpoint_counts_in_batches_and_resumes() {
    if !gpu_available() {
        return;
    }
    // Kiwipete perft 4 = 4,085,603 (CPW "Perft Results", position 2), split at ply 2.
    let kiwipete = "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1";
    let journal = scratch("gpu-kiwipete.jsonl");
    let j = journal.to_str().unwrap();
    let args = [
        "perft",
        "--fen",
        kiwipete,
        "--depth",
        "4",
        "--split-depth",
        "2",
        "--backend",
        "gpu",
        "--checkpoint",
        j,
        "--quiet",
    ];
    let (code, out, err) = run(&args);
    assert_eq!(code, 0, "{err}");
    assert_eq!(out, "Nodes searched: 4085603\n", "{err}");
    // Every distinct position of ply 2 is in the journal, once (a header line and one record each).
    let text = std::fs::read_to_string(&journal).unwrap();
    let header: serde_json::Value = serde_json::from_str(text.lines().next().unwrap()).unwrap();
    let positions = header["identity"]["positions"].as_u64().unwrap() as usize;
    assert_eq!(text.lines().count(), positions + 1, "{text}");
    let mut seen: Vec<u64> = text
        .lines()
        .skip(1)
        .map(|l| {
            serde_json::from_str::<serde_json::Value>(l).unwrap()["i"]
                .as_u64()
                .unwrap()
        })
        .collect();
    seen.sort_unstable();
    seen.dedup();
    assert_eq!(seen.len(), positions);
    // The same run again reads everything from the journal.
    let (code, out, err) = run(&args);
    assert_eq!(
        (code, out.as_str()),
        (0, "Nodes searched: 4085603\n"),
        "{err}"
    );
    assert!(
        err.contains(&format!("{positions} of {positions} positions")),
        "{err}"
    );

    // Interrupted after its first batches, then resumed: perft 6 of the initial position, 119,060,324 (CPW),
    // split at ply 3 (5,362 distinct positions).
    let journal = scratch("gpu-start.jsonl");
    let j = journal.to_str().unwrap();
    let args = [
        "perft",
        "--depth",
        "6",
        "--split-depth",
        "3",
        "--backend",
        "gpu",
        "--checkpoint",
        j,
        "--quiet",
    ];
    let child = spawn(&args);
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(300);
    // Wait for the header and two batches (positions 1 and 2–3).
    while std::fs::read_to_string(&journal).map_or(0, |t| t.lines().count()) < 4 {
        assert!(std::time::Instant::now() < deadline, "no batch journalled");
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    send_signal(child.id(), "TERM");
    let (code, _, err) = finish(child, 120);
    assert_eq!(code, 143, "{err}");
    let kept = std::fs::read_to_string(&journal).unwrap().lines().count() - 1;
    assert!((3..5362).contains(&kept), "{kept} positions journalled");
    let (code, out, err) = run(&args);
    assert_eq!(code, 0, "{err}");
    assert_eq!(out, "Nodes searched: 119060324\n", "{err}");
    assert!(
        err.contains(&format!("resuming from {j}: {kept} of 5362 positions")),
        "{err}"
    );
}

// Issue 31 item 3: a depth-7 count went through the split frontier when standard error was a terminal, and
// directly otherwise (2ef71b3 did, drawing the split's "N/M positions" bar). Now the route is chosen by the
// flags and the depth alone: under a terminal (`script` from util-linux gives the command one) a count
// without split flags is the direct one (no split bar, no `batches` in its JSON, which only a split run
// reports) and the same as without a terminal; with `--split-depth` it is split either way.
#[test]
fn a_count_takes_the_same_route_whether_or_not_a_terminal_watches() {
    if Command::new("script").arg("--version").output().is_err() {
        assert!(
            std::env::var("CI").as_deref() != Ok("true"),
            "CI must provide util-linux's script"
        );
        eprintln!("skipped: no `script` (util-linux) to give the command a terminal");
        return;
    }
    let bin = env!("CARGO_BIN_EXE_perftlab");
    // Two kings and a rook: depth 7 is a small tree.
    let fen = "8/8/8/4k3/8/8/8/R3K3 w - - 0 1";
    let nodes_of = |text: &str| -> String {
        let at = text
            .rfind("Nodes searched: ")
            .unwrap_or_else(|| panic!("no count in {text:?}"));
        text[at..].lines().next().unwrap().trim().to_string()
    };
    for extra in ["", " --split-depth 2"] {
        let split = !extra.is_empty();
        let args = format!("perft --fen '{fen}' --depth 7{extra}");
        let plain = Command::new("sh")
            .arg("-c")
            .arg(format!("'{bin}' {args}"))
            .output()
            .unwrap();
        assert_eq!(plain.status.code(), Some(0), "{plain:?}");
        let watched = Command::new("script")
            .args(["-qec", &format!("'{bin}' {args}"), "/dev/null"])
            .stdin(Stdio::null())
            .output()
            .unwrap();
        assert_eq!(watched.status.code(), Some(0), "{watched:?}");
        let (plain, watched) = (
            String::from_utf8_lossy(&plain.stdout).into_owned(),
            String::from_utf8_lossy(&watched.stdout).into_owned(),
        );
        assert_eq!(nodes_of(&plain), nodes_of(&watched), "{args}");
        assert_eq!(
            watched.contains(" positions"),
            split,
            "{args}: the split bar shows {}: {watched:?}",
            if split {
                "only on a split run"
            } else {
                "a split"
            }
        );
        // The JSON says the same: `batches` only on a split run, terminal or not.
        let json = Command::new("sh")
            .arg("-c")
            .arg(format!("'{bin}' {args} --json"))
            .output()
            .unwrap();
        let v: Value = serde_json::from_slice(&json.stdout).unwrap();
        assert_eq!(v.get("batches").is_some(), split, "{args}: {v}");
    }
}

/// Flip one byte of `path` at `at` bytes from its end.
fn flip_byte(path: &Path, from_end: usize) {
    let mut b = std::fs::read(path).unwrap();
    let i = b.len() - from_end;
    b[i] ^= 0x40;
    std::fs::write(path, b).unwrap();
}

#[test]
fn a_resumed_count_loads_its_table_snapshot_only_when_sealed_for_it_and_stays_exact() {
    let _heavy = HEAVY.lock().unwrap_or_else(|e| e.into_inner());
    let dir = temp_dir("snapshot");
    let (journal, table) = (dir.join("k.jsonl"), dir.join("k.jsonl.table"));
    let j = journal.to_str().unwrap();
    let k6 = cpw("kiwipete", 6);
    let want = format!("Nodes searched: {}", k6.nodes);
    let args = |hash: &'static str| -> Vec<String> {
        let fen = k6.fen.clone();
        [
            "perft",
            "--fen",
            &fen,
            "--depth",
            "6",
            "--split-depth",
            "3",
            "--checkpoint",
            j,
            "--threads",
            "1",
            "--hash",
            hash,
            "--quiet",
        ]
        .map(String::from)
        .to_vec()
    };
    let a16 = args("16");
    let a16: Vec<&str> = a16.iter().map(String::as_str).collect();
    // Killed (SIGKILL) once a snapshot has been written (the first about a second after the start).
    let mut child = perftlab()
        .args(&a16)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let t = Instant::now();
    while !table.exists() {
        assert!(
            child.try_wait().unwrap().is_none(),
            "finished before a snapshot was written"
        );
        assert!(t.elapsed() < Duration::from_secs(300), "no snapshot");
        std::thread::sleep(Duration::from_millis(5));
    }
    std::thread::sleep(Duration::from_millis(100));
    child.kill().unwrap();
    child.wait().unwrap();
    let (saved_journal, saved_table) = (
        std::fs::read(&journal).unwrap(),
        std::fs::read(&table).unwrap(),
    );
    let restore = |t: &[u8]| {
        std::fs::write(&journal, &saved_journal).unwrap();
        std::fs::write(&table, t).unwrap();
    };
    // The snapshot as written: loaded, the count exact, the snapshot removed once finished.
    let (code, stdout, stderr) = run(&a16);
    assert_eq!((code, stdout.trim()), (0, want.as_str()), "{stderr}");
    let loaded = stderr
        .lines()
        .find(|l| l.starts_with("loaded "))
        .unwrap_or_else(|| panic!("{stderr}"));
    assert!(!loaded.starts_with("loaded 0 "), "{loaded}");
    assert!(!table.exists());
    // A torn tail, a flipped byte in a record, a header edited without its seal, a table of another size
    // (--hash may change between runs, the journal is kept): ignored, saying why; the count still exact.
    let mut header_edited = saved_table.clone();
    let at = String::from_utf8_lossy(&saved_table[..saved_table.len().min(4096)])
        .find("\"min_depth\":")
        .unwrap()
        + 12;
    header_edited[at] = if header_edited[at] == b'5' {
        b'4'
    } else {
        b'5'
    };
    // Cut inside the base (the first segment; the deltas a run appends after it are another test's,
    // tests/deep_snapshot.rs), and a byte flipped in its records.
    let header = saved_table.iter().position(|&b| b == b'\n').unwrap() + 1;
    let n = u64::from_le_bytes(saved_table[header..header + 8].try_into().unwrap()) as usize;
    let base_end = header + 8 + 24 * n + 32;
    assert!(n > 40 && base_end <= saved_table.len(), "{n} records");
    let cases: [(&[u8], &str, &str); 4] = [
        (&saved_table[..base_end - 100], "16", "cut off"),
        (&[], "16", "flip"),
        (&header_edited, "16", "header's checksum"),
        (&saved_table, "32", "another table_bytes"),
    ];
    for (bytes, hash, why) in cases {
        if why == "flip" {
            restore(&saved_table);
            // The low byte of the check hash of the base's 40th record from its end.
            flip_byte(&table, saved_table.len() - (base_end - 32 - 40 * 24 + 8));
        } else {
            restore(bytes);
        }
        let a = args(hash);
        let a: Vec<&str> = a.iter().map(String::as_str).collect();
        let (code, stdout, stderr) = run(&a);
        assert_eq!((code, stdout.trim()), (0, want.as_str()), "{why}: {stderr}");
        let why = if why == "flip" {
            "checksum does not match"
        } else {
            why
        };
        assert!(
            stderr.contains("ignoring the hash table snapshot") && stderr.contains(why),
            "{why}: {stderr}"
        );
    }
}
