//! The error kinds a library caller can match (`perftlab::Error`), with the data behind each message: a FEN
//! error names its field and the offending text, an invalid position carries the position and every validity
//! error (FIDE 3.10.3), an I/O error its path. The messages are the command line's (tests/cli.rs and
//! tests/input.rs check them there, with the exit codes).

use perftlab::types::Color;
use perftlab::{Checked, Error, FenError, FenField, Setup, ValidityError};

#[test]
fn a_fen_error_names_its_field_and_text() {
    let e = Checked::from_fen("8/8/8/8/8/8/8/8 x - - 0 1").unwrap_err();
    match &e {
        Error::Fen(FenError::Invalid { field, text, .. }) => {
            assert_eq!((*field, text.as_str()), (FenField::SideToMove, "x"))
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(
        e.to_string(),
        "invalid FEN: field 'side to move' is 'x': expected 'w' or 'b'"
    );
    assert_eq!(e.exit_code(), 2);
    // The parser's own error is the source.
    let source = std::error::Error::source(&e).expect("a source");
    assert_eq!(source.to_string(), e.to_string());
    assert!(matches!(
        Checked::from_fen("8/8/8/8/8/8/8/8 w"),
        Err(Error::Fen(FenError::MissingField {
            field: FenField::Castling
        }))
    ));
}

#[test]
fn validity_errors_are_data() {
    // No black king, a pawn on the 8th rank and a castling right without its rook: every reason, in order.
    let fen = "P7/8/8/8/8/8/8/4K3 w K - 0 1";
    let e = Checked::from_fen(fen).unwrap_err();
    let Error::InvalidPosition(p) = &e else {
        panic!("{e:?}")
    };
    assert_eq!(p.setup, Setup::from_fen(fen).unwrap());
    assert_eq!(p.errors.len(), 3, "{:?}", p.errors);
    assert_eq!(p.errors[0], ValidityError::MissingKing(Color::Black));
    assert!(matches!(p.errors[1], ValidityError::PawnOnBackRank(sq) if sq.to_string() == "a8"));
    assert!(matches!(
        p.errors[2],
        ValidityError::InvalidCastlingRight {
            color: Color::White,
            ..
        }
    ));
    assert_eq!(
        e.to_string(),
        // The right is written back as typed ('K': the king-side corner, with no rook there).
        "invalid position 'P7/8/8/8/8/8/8/4K3 w K - 0 1': missing_king: black has no king; \
         pawn_on_back_rank: pawn on a8; invalid_castling_right: white right with rook h1: no rook of that \
         colour on that back-rank square"
    );
    // (The FEN is written back with the right's rook file, `H`: no rook stands where `K` would point.)
    assert_eq!(e.exit_code(), 2);
}

#[test]
fn io_errors_keep_the_path() {
    let missing =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/no-such-suite.epd");
    let e = perftlab::suite::load(&missing).unwrap_err();
    match &e {
        Error::Io { path, source, .. } => {
            assert_eq!(path, &missing);
            assert_eq!(source.kind(), std::io::ErrorKind::NotFound);
        }
        other => panic!("{other:?}"),
    }
    assert!(
        e.to_string()
            .starts_with(&format!("cannot read suite file '{}': ", missing.display())),
        "{e}"
    );
    assert_eq!(e.exit_code(), 2);
}

#[test]
fn exit_codes_by_kind() {
    assert_eq!(Error::Mismatch("counts differ".into()).exit_code(), 1);
    assert_eq!(Error::Usage("--depth".into()).exit_code(), 2);
    assert_eq!(Error::Backend("no adapter".into()).exit_code(), 2);
    assert_eq!(Error::Interrupted("stopped".into()).exit_code(), 130);
}

// Issue 31 item 4 for external engines: a command that cannot be used is a setting's error with the command as
// its value, an engine that does not answer in time a kind with its timeout; no message names a flag (the CLI's
// words, with `--engine`, `--perft-command`, `--timeout`: tests/cli.rs `engine_errors_keep_their_cli_messages`).
#[test]
fn engine_errors_keep_their_values_and_name_no_flag() {
    use perftlab::engines::{
        split_command, start_with_perft_command, Engine, Protocol, ScriptEngine,
    };
    use perftlab::error::{EngineFailure, Setting};
    use std::time::Duration;
    let e = split_command("sf 'a b").unwrap_err();
    match &e {
        Error::Setting(s) => assert_eq!(
            (s.setting, s.value.as_deref()),
            (Setting::Engine, Some("sf 'a b"))
        ),
        other => panic!("{other:?}"),
    }
    assert_eq!(e.to_string(), "engine command: unclosed quote in 'sf 'a b'");
    assert_eq!(
        e.message(&|s| if s == Setting::Engine { "E" } else { "?" }),
        "E: unclosed quote in 'sf 'a b'"
    );
    assert_eq!(e.exit_code(), 2);
    let e = split_command("  ").unwrap_err();
    assert_eq!(e.to_string(), "engine command: the command is empty");
    let missing = "/nonexistent/perftlab-engine";
    let Err(e) =
        start_with_perft_command(Protocol::Uci, missing, None, false, Duration::from_secs(5))
    else {
        panic!("started {missing}")
    };
    assert!(
        matches!(&e, Error::Setting(s) if s.value.as_deref() == Some(missing)),
        "{e:?}"
    );
    assert!(
        e.to_string()
            .starts_with("engine command: cannot start '/nonexistent/perftlab-engine': "),
        "{e}"
    );
    let refused = |protocol, perft| {
        let Err(e) = start_with_perft_command(
            protocol,
            missing,
            Some(perft),
            false,
            Duration::from_secs(5),
        ) else {
            panic!("started {missing}")
        };
        e.to_string()
    };
    assert_eq!(
        refused(Protocol::Script, "perft {depth}"),
        "perft command: only for UCI engines (the UCI protocol)"
    );
    assert_eq!(
        refused(Protocol::Uci, "perft"),
        "perft command: 'perft' must be one line holding {depth}, e.g. 'perft {depth}'"
    );
    // A script that outlives its timeout: the kind keeps the timeout and the request.
    let mut script =
        ScriptEngine::new("sh -c 'sleep 5' script", Duration::from_millis(200)).unwrap();
    let fen = "4k3/8/8/8/8/8/8/4K3 w - - 0 1";
    let e = script.divide(fen, &[], 1).unwrap_err();
    let Error::Engine(engine) = &e else {
        panic!("{e:?}")
    };
    let EngineFailure::ScriptTimeout { request, timeout } = &engine.failure else {
        panic!("{engine:?}")
    };
    assert_eq!(*timeout, Duration::from_millis(200));
    assert!(
        request.starts_with("sh -c 'sleep 5' script 1 '"),
        "{request}"
    );
    assert_eq!(
        e.to_string(),
        format!("script '{request}' did not finish within 0.2 s (engine timeout)")
    );
    assert_eq!(e.exit_code(), 2);
}

// Issue 31 item 4: an error about a setting is a kind with the offending values; its message names no flag of
// the command line (the CLI names them: tests/cli.rs `setting_errors_keep_their_cli_messages`), and a caller
// may name the settings its own way.
#[test]
fn setting_errors_keep_their_values_and_name_no_flag() {
    use perftlab::error::{MemoryError, MemoryLimit, Setting};
    let e = perftlab::limits::check_host_memory(Setting::Hash, u64::MAX).unwrap_err();
    let Error::Memory(m) = &e else {
        panic!("{e:?}")
    };
    let MemoryError::TooMuch { wanted, limit } = &**m else {
        panic!("{m:?}")
    };
    assert_eq!(
        (wanted[0].setting, wanted[0].mib),
        (Setting::Hash, u64::MAX)
    );
    assert!(matches!(limit, MemoryLimit::Impossible { .. }), "{limit:?}");
    assert_eq!(e.exit_code(), 2);
    let text = e.to_string();
    assert!(
        text.starts_with("hash size: '18446744073709551615' MiB is more memory than can exist"),
        "{text}"
    );
    // A caller's own names (a Python binding would say `hash_mb`).
    let named = e.message(&|s| match s {
        Setting::Hash => "hash_mb",
        _ => "other",
    });
    assert!(
        named.starts_with("hash_mb: '18446744073709551615' MiB"),
        "{named}"
    );
    assert!(perftlab::limits::check_host_memory(Setting::Hash, 1).is_ok());
}

#[cfg(feature = "deep")]
#[test]
fn split_settings_are_kinds_with_their_values() {
    use perftlab::error::{Part, Setting, SettingError};
    let e = perftlab::deep::split::budget_mib(Some(0)).unwrap_err();
    match &e {
        Error::Setting(s) => assert_eq!(
            (s.setting, s.value.as_deref()),
            (Setting::SplitMem, Some("0"))
        ),
        other => panic!("{other:?}"),
    }
    assert_eq!(
        e.to_string(),
        "split memory: '0' MiB cannot hold a split frontier (use 1 or more)"
    );
    // A reason that names another setting names it the caller's way.
    let s = SettingError {
        setting: Setting::SplitDepth,
        value: Some("3".into()),
        reason: vec![
            Part::Text("must be below ".into()),
            Part::Setting(Setting::Depth),
        ],
    };
    assert_eq!(
        s.message(&|s| s.name()),
        "split depth: '3' must be below depth"
    );
    assert_eq!(
        Error::from(s).message(&|s| if s == Setting::Depth { "D" } else { "S" }),
        "S: '3' must be below D"
    );
}
