//! What a run leaves in files and pipes (issues 11 and 23): output files (`--report`, `--svg`) written
//! atomically and never truncated by a failed run, a full disk and closed pipes or standard output reported as
//! failures, and interrupted runs (SIGINT/SIGTERM) that keep their finished work and never say "agree" for
//! half a run. Every check is of a process exit code, its output and the files; no check is timed.

mod common;

use common::{
    finish, hung_engine, perftlab, python_uci_engine, run, scratch, send_signal, spawn, temp_file,
    wait_for_file, START,
};
use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};

/// The first line `child` writes to its piped standard output; the pipe is closed when this returns.
fn first_line(child: &mut std::process::Child) -> String {
    let mut first = String::new();
    BufReader::new(child.stdout.take().expect("stdout piped"))
        .read_line(&mut first)
        .expect("a line");
    first
}

// Defect 4: a full disk panicked (101).
#[test]
fn full_disk_is_an_error_not_a_panic() {
    let Ok(full) = std::fs::OpenOptions::new().write(true).open("/dev/full") else {
        eprintln!("skipped: no /dev/full on this system");
        return;
    };
    let out = perftlab()
        .args(["perft", "--depth", "2", "--divide"])
        .stdout(full)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("cannot write to standard output"), "{err}");
    assert!(!err.contains("panicked"), "{err}");
}

// Defect 5: `suite FILE | head -1` exited 0 although every line failed; `perft >&-` exited 0 printing nothing.
#[test]
fn closed_pipe_never_reports_success() {
    // 4000 failing lines: far more output than a pipe buffers.
    let text = format!("{START} ;D1 21\n").repeat(4000);
    let suite = temp_file("failing.epd", &text);
    let mut child = perftlab()
        .args(["suite", suite.to_str().unwrap(), "--backend", "reference"])
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let first = first_line(&mut child);
    assert!(first.starts_with("FAIL"), "{first}");
    // The reader is gone now (the pipe was dropped with the BufReader).
    let status = child.wait().unwrap();
    assert_eq!(status.code(), Some(141), "{status:?}");
    // Without the pipe the same run exits 1.
    let (code, out, _) = run(&["suite", suite.to_str().unwrap(), "--backend", "reference"]);
    assert_eq!(code, 1);
    assert!(out.ends_with("0 passed, 4000 failed, 0 skipped\n"), "{out}");
}

// `dead FILE | head -1` exited 2 with "cannot write the answers: Broken pipe" (bad input) once `dead` streamed
// its answers; a closed pipe is 141, silent, as for `suite` above and `reachable`.
#[test]
fn dead_into_a_closed_pipe_exits_141() {
    let one = std::fs::read_to_string(common::data("dead-positions.txt")).unwrap();
    let file = temp_file("dead-pipe.txt", &one.repeat(100)); // 7,400 queries: far more than a pipe buffers
    let mut child = perftlab()
        .args(["dead", file.to_str().unwrap(), "--threads", "1"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let first = first_line(&mut child);
    assert!(first.contains(" unwinnable: "), "{first}");
    let out = child.wait_with_output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(141), "{err}");
    assert!(!err.contains("error"), "{err}");
    // A full disk is still an error naming standard output, exit 2.
    let Ok(full) = std::fs::OpenOptions::new().write(true).open("/dev/full") else {
        return;
    };
    let out = perftlab()
        .args(["dead", file.to_str().unwrap(), "--threads", "1"])
        .stdout(full)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("cannot write to standard output"), "{err}");
}

#[test]
fn closed_stdout_is_refused() {
    let bin = env!("CARGO_BIN_EXE_perftlab");
    let out = Command::new("sh")
        .args(["-c", "exec \"$0\" perft --depth 3 >&-", bin])
        .output()
        .expect("sh");
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("standard output is not open"), "{err}");
    // A redirection to /dev/null is the user's choice and still works.
    let out = Command::new("sh")
        .args(["-c", "exec \"$0\" perft --depth 3 >/dev/null", bin])
        .output()
        .expect("sh");
    assert_eq!(out.status.code(), Some(0));
    // So is /dev/null opened read-write, as Python's `subprocess.DEVNULL` does (on Linux the binary looks
    // at the descriptor before the standard library's set-up, so this is not taken for a closed one).
    if cfg!(target_os = "linux") {
        let null = std::fs::OpenOptions::new()
            .read(true)
            .write(true)
            .open("/dev/null")
            .expect("/dev/null");
        let out = Command::new(bin)
            .args(["perft", "--depth", "3"])
            .stdout(null)
            .output()
            .expect("perftlab");
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(0), "{err}");
    }
}

// Item 1: `--report`/`--svg` files were truncated before the run; a suite could be overwritten by its report.
#[test]
fn failed_runs_leave_output_files_as_they_were() {
    let old = "<html>an old report, kept byte for byte</html>\n";
    let report = temp_file("old.html", old);
    let svg = temp_file("old.svg", "<svg>old</svg>");
    let r = report.to_str().unwrap();
    let s = svg.to_str().unwrap();
    for args in [
        vec!["compare", "--engine", "/nonexistent", "--depth", "2"],
        vec!["compare", "--engine", "/nonexistent", "--depth", "0"],
        vec![
            "compare",
            "--engine",
            "/nonexistent",
            "--depth",
            "2",
            "--fen",
            "8/8 w - -",
        ],
        vec!["stress", "--engine", "/nonexistent"],
    ] {
        let mut all = args.clone();
        all.extend(["--report", r, "--svg", s]);
        let (code, _, err) = run(&all);
        assert_eq!(code, 2, "{all:?}: {err}");
        assert_eq!(std::fs::read_to_string(&report).unwrap(), old, "{all:?}");
        assert_eq!(
            std::fs::read_to_string(&svg).unwrap(),
            "<svg>old</svg>",
            "{all:?}"
        );
    }
    // A file that is an input of the run is refused before any work, and stays as it was.
    let text = format!("{START} ;D1 20 ;D2 400\n");
    let suite = temp_file("r2.epd", &text);
    let p = suite.to_str().unwrap();
    for args in [
        vec!["suite", p, "--report", p],
        vec!["suite", p, "--svg", p],
        vec![
            "compare",
            "--engine",
            "/nonexistent",
            "--depth",
            "1",
            "--suite",
            p,
            "--report",
            p,
        ],
    ] {
        let (code, _, err) = run(&args);
        assert_eq!(code, 2, "{args:?}: {err}");
        assert!(err.contains("which this run reads"), "{args:?}: {err}");
        assert_eq!(std::fs::read_to_string(&suite).unwrap(), text, "{args:?}");
    }
    // The same file through a symbolic link (same device and inode).
    let link = scratch("link.epd");
    std::os::unix::fs::symlink(&suite, &link).unwrap();
    let (code, _, err) = run(&["suite", p, "--report", link.to_str().unwrap()]);
    assert_eq!(code, 2, "{err}");
    assert_eq!(std::fs::read_to_string(&suite).unwrap(), text);
    // A successful run replaces the file whole, and leaves no temporary file beside it.
    let (code, _, err) = run(&["suite", p, "--report", r]);
    assert_eq!(code, 0, "{err}");
    let page = std::fs::read_to_string(&report).unwrap();
    assert!(
        page.starts_with("<!DOCTYPE html>") && page.contains("2 passed"),
        "{page}"
    );
    let dir = report.parent().unwrap();
    let left: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with(".old.html.perftlab-"))
        .collect();
    assert!(left.is_empty(), "{left:?}");
}

// Item 3: Ctrl-C threw away finished table rows and suite failures.
#[test]
fn interrupted_runs_keep_finished_work() {
    // table: rows are printed as they finish; an interruption keeps them.
    let mut child = spawn(&[
        "table",
        "--depth",
        "9",
        "--backend",
        "reference",
        "--format",
        "csv",
        "--quiet",
    ]);
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for l in lines.by_ref().map_while(Result::ok) {
            let _ = tx.send(l);
        }
    });
    let mut seen = Vec::new();
    while seen.len() < 4 {
        match rx.recv_timeout(std::time::Duration::from_secs(60)) {
            Ok(l) => seen.push(l),
            Err(_) => {
                let _ = child.kill();
                panic!("no table rows printed while it ran: {seen:?}");
            }
        }
    }
    send_signal(child.id(), "INT");
    let (code, _, err) = finish(child, 30);
    assert_eq!(code, 130, "{err}");
    // CPW "Perft Results", initial position.
    assert!(seen[1].starts_with("1,20,0,0,0,0,0,0,0,0,0"), "{seen:?}");
    assert!(seen[2].starts_with("2,400,0,"), "{seen:?}");
    assert!(seen[3].starts_with("3,8902,34,"), "{seen:?}");
    assert!(err.contains("rows 1 to"), "{err}");
    // suite: a failing first line is printed before the slow second one finishes; with --json the summary so
    // far is printed on interruption, never "agree"-like totals of a whole run.
    let suite = temp_file(
        "slow.epd",
        &format!("{START} ;D1 21\n{START} ;D1 20 ;D9 2439530234167\n"),
    );
    let p = suite.to_str().unwrap();
    let mut child = spawn(&["suite", p, "--backend", "reference", "--quiet"]);
    let first = first_line(&mut child);
    assert!(
        first.starts_with("FAIL") && first.contains(":1 "),
        "{first}"
    );
    send_signal(child.id(), "INT");
    let (code, _, err) = finish(child, 30);
    assert_eq!(code, 130, "{err}");
    assert!(err.contains("1 failed"), "{err}");
    let child = spawn(&["suite", p, "--backend", "reference", "--quiet", "--json"]);
    std::thread::sleep(std::time::Duration::from_secs(3));
    send_signal(child.id(), "INT");
    let (code, out, err) = finish(child, 30);
    assert_eq!(code, 130, "{err}");
    let v: serde_json::Value = serde_json::from_str(out.trim()).expect("a partial JSON summary");
    assert_eq!(v["interrupted"], true, "{out}");
    assert_eq!(v["failed"], 1, "{out}");
    assert_eq!(v["failures"][0]["line"], 1, "{out}");
}

// Item 4: an interrupted JSON run said `"agree": true`.
#[test]
fn interrupted_json_never_agrees() {
    let suite = temp_file(
        "agree.epd",
        &format!(
            "{START} ;D1 20\nr3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1 ;D1 48\n"
        ),
    );
    let pids = scratch("agree.pids");
    let engine = hung_engine("hang", Some(&pids));
    let child = spawn(&[
        "compare",
        "--engine",
        &engine,
        "--suite",
        suite.to_str().unwrap(),
        "--depth",
        "1",
        "--json",
    ]);
    assert!(wait_for_file(&pids, 60), "the engine never hung");
    send_signal(child.id(), "INT");
    let (code, out, err) = finish(child, 30);
    assert_eq!(code, 130, "{err}");
    let v: serde_json::Value = serde_json::from_str(out.trim()).unwrap();
    assert_eq!(
        (v["positions"].as_u64(), v["failed"].as_u64()),
        (Some(1), Some(0)),
        "{out}"
    );
    assert_eq!(v["agree"], false, "1 of 2 positions compared: {out}");
    // stress, nothing compared yet.
    let pids = scratch("agree-stress.pids");
    let engine = hung_engine("hang", Some(&pids));
    let child = spawn(&["stress", "--engine", &engine, "--positions", "3", "--json"]);
    assert!(wait_for_file(&pids, 60), "the engine never hung");
    send_signal(child.id(), "TERM");
    let (code, out, err) = finish(child, 30);
    assert_eq!(code, 143, "{err}");
    let v: serde_json::Value = serde_json::from_str(out.trim()).unwrap();
    assert_eq!(v["agree"], false, "{out}");
}

// Item 12: the HTML report said "no failures" when the engine failed on every position.
#[test]
fn html_report_shows_engine_errors() {
    let engine = python_uci_engine("crash-report.py", "sys.exit(3)");
    let suite = temp_file(
        "report-errors.epd",
        &format!("{START} ;D1 20\n4k3/8/8/8/8/8/8/4K2R w K - 0 1 ;D1 15\n"),
    );
    let report = scratch("errors.html");
    let (code, _, err) = run(&[
        "compare",
        "--engine",
        &engine,
        "--suite",
        suite.to_str().unwrap(),
        "--depth",
        "1",
        "--report",
        report.to_str().unwrap(),
    ]);
    assert_eq!(code, 2, "{err}");
    let page = std::fs::read_to_string(&report).unwrap();
    assert!(!page.contains("no failures"), "{page}");
    assert!(page.contains("the engine failed on 2 positions"), "{page}");
}
