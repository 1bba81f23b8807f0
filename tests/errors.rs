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
    assert_eq!(Error::Engine("engine died".into()).exit_code(), 2);
    assert_eq!(
        Error::Engine("engine died".into()).to_string(),
        "engine died"
    );
}
