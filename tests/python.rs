//! The Python package (`python/`, docs/python.md) end to end: builds the wheel with maturin (release, with
//! parallel code generation) into `target/python/wheels`, makes a virtual environment `target/python/venv`
//! (with the system's site packages, where `.ci/run` installs pytest, python-chess, Dask and pyarrow),
//! installs the wheel there and runs the pytest suite `python/tests/` with it (exact counts from CPW and
//! tests/data, python-chess boards in and out, the cross-check of a python-chess generator with and without a
//! planted bug, bad input, Ctrl-C, threads, and the Dask recipe on a two-process LocalCluster).
//!
//! The interpreter is `$PERFTLAB_PYTHON` or `python3`. With `CI=true` a missing interpreter, maturin, pytest
//! or venv module fails the test (`.ci/run` installs them); elsewhere the test skips, saying what is missing.

use std::path::{Path, PathBuf};
use std::process::Command;

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn ci() -> bool {
    std::env::var("CI").is_ok_and(|v| v == "true")
}

/// Whether `python -c code` succeeds.
fn python_ok(python: &str, code: &str) -> bool {
    Command::new(python)
        .args(["-c", code])
        .output()
        .is_ok_and(|o| o.status.success())
}

/// The first missing tool, if any.
fn missing(python: &str) -> Option<String> {
    if !python_ok(python, "import sys; assert sys.version_info >= (3, 9)") {
        return Some(format!("a Python 3.9+ interpreter ('{python}')"));
    }
    for (module, what) in [
        ("maturin", "maturin (pip install maturin)"),
        ("pytest", "pytest (pip install pytest)"),
        ("venv, ensurepip", "the venv module (Debian: python3-venv)"),
    ] {
        let probe = if module == "maturin" {
            "import subprocess, sys; subprocess.run([sys.executable, '-m', 'maturin', '--version'], check=True, capture_output=True)".to_string()
        } else {
            format!("import {module}")
        };
        if !python_ok(python, &probe) {
            return Some(what.to_string());
        }
    }
    None
}

/// Python code printing the interpreter's site-packages folders, one a line.
const SITE_DIRS: &str = "import site, sysconfig\n\
paths = sysconfig.get_paths()\n\
dirs = [paths['purelib'], paths['platlib']] + site.getsitepackages() + [site.getusersitepackages()]\n\
print('\\n'.join(dict.fromkeys(dirs)))";

/// The standard output of `cmd`, which must succeed.
fn output(cmd: &mut Command, what: &str) -> String {
    let out = cmd
        .output()
        .unwrap_or_else(|e| panic!("{what}: cannot start: {e}"));
    assert!(
        out.status.success(),
        "{what} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).expect("UTF-8 paths")
}

fn run(cmd: &mut Command, what: &str) {
    let status = cmd
        .status()
        .unwrap_or_else(|e| panic!("{what}: cannot start: {e}"));
    assert!(status.success(), "{what} failed: {status}");
}

#[test]
fn python_package_builds_installs_and_passes_pytest() {
    let python = std::env::var("PERFTLAB_PYTHON").unwrap_or_else(|_| "python3".into());
    if let Some(what) = missing(&python) {
        assert!(!ci(), "CI=true but {what} is missing (.ci/run installs it)");
        eprintln!("skipping the Python package test: {what} is missing");
        return;
    }
    let work: PathBuf = root().join("target").join("python");
    let wheels = work.join("wheels");
    let _ = std::fs::remove_dir_all(&wheels);
    run(
        Command::new(&python)
            .args([
                "-m",
                "maturin",
                "build",
                "--release",
                "--quiet",
                "--manifest-path",
            ])
            .arg(root().join("python/Cargo.toml"))
            .arg("--out")
            .arg(&wheels)
            .arg("--interpreter")
            .arg(&python)
            .env("CARGO_TARGET_DIR", work.join("build"))
            // The wheel's code with parallel code generation and no debug lines: the same program, built in
            // about half the time on CI's two cores (python/Cargo.toml's one code-generation unit is for the
            // speed of the wheels users build; this test checks that the package builds and behaves).
            .env("CARGO_PROFILE_RELEASE_CODEGEN_UNITS", "16")
            .env("CARGO_PROFILE_RELEASE_DEBUG", "false"),
        "maturin build",
    );
    let wheel = std::fs::read_dir(&wheels)
        .expect("the wheel folder")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .find(|p| p.extension().is_some_and(|x| x == "whl"))
        .expect("maturin wrote a wheel");
    let venv = work.join("venv");
    run(
        Command::new(&python)
            .args(["-m", "venv", "--clear", "--system-site-packages"])
            .arg(&venv),
        "python -m venv",
    );
    let vpython = venv.join("bin").join("python");
    // The interpreter's own packages (pytest, python-chess, …), also when it is itself a venv, whose
    // packages `--system-site-packages` would not see: a .pth file in the new venv names its folders.
    let dirs = output(
        Command::new(&python).args(["-c", SITE_DIRS]),
        "listing the interpreter's site folders",
    );
    let site = output(
        Command::new(&vpython).args([
            "-c",
            "import sysconfig; print(sysconfig.get_paths()['purelib'])",
        ]),
        "the venv's site folder",
    );
    std::fs::write(
        Path::new(site.trim()).join("perftlab-test-parent.pth"),
        dirs,
    )
    .expect("the .pth file");
    run(
        Command::new(&vpython)
            .args([
                "-m",
                "pip",
                "install",
                "--quiet",
                "--no-deps",
                "--no-index",
                "--force-reinstall",
            ])
            .arg(&wheel),
        "pip install of the wheel",
    );
    // Run from the work folder, so that `import perftlab` finds the installed package, not python/perftlab.
    run(
        Command::new(&vpython)
            .args(["-m", "pytest", "-q", "-p", "no:cacheprovider"])
            .arg(root().join("python/tests"))
            .current_dir(&work),
        "pytest python/tests",
    );
}
