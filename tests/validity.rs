//! Validity checks (FIDE 3.10.3): named errors where perft is ill-defined, named warnings where the position is
//! impossible but playable.

use perftlab::position::Setup;
use perftlab::validate::{self, ValidityError, ValidityWarning};

fn check(fen: &str) -> validate::Validity {
    validate::check(&Setup::from_fen(fen).unwrap())
}

fn has_error(fen: &str, pred: impl Fn(&ValidityError) -> bool) -> bool {
    check(fen).errors.iter().any(pred)
}

#[test]
fn valid_positions_have_no_errors() {
    assert_eq!(
        check("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"),
        Default::default()
    );
    assert!(check("rnbqkbnr/ppp1pppp/8/8/3pP3/8/PPPP1PPP/RNBQKBNR b KQkq e3 0 3").is_ok());
}

#[test]
fn king_count() {
    assert!(has_error("8/8/8/8/8/8/8/4K3 w - -", |e| matches!(
        e,
        ValidityError::MissingKing(_)
    )));
    assert!(has_error("4k3/8/8/8/8/8/8/3KK3 w - -", |e| matches!(
        e,
        ValidityError::TooManyKings(_)
    )));
}

#[test]
fn side_not_to_move_in_check() {
    assert!(!has_error("4k3/8/8/8/8/8/8/4KR2 w - -", |e| *e
        == ValidityError::OppositeCheck));
    assert!(has_error("4k3/8/8/8/8/8/8/4R1K1 w - -", |e| *e
        == ValidityError::OppositeCheck));
}

#[test]
fn pawns_on_back_ranks() {
    assert!(has_error("4k2P/8/8/8/8/8/8/4K3 w - -", |e| matches!(
        e,
        ValidityError::PawnOnBackRank(_)
    )));
    assert!(has_error("4k3/8/8/8/8/8/8/p3K3 w - -", |e| matches!(
        e,
        ValidityError::PawnOnBackRank(_)
    )));
}

#[test]
fn castling_rights_need_king_and_rook() {
    let bad = |fen| {
        has_error(fen, |e| {
            matches!(e, ValidityError::InvalidCastlingRight { .. })
        })
    };
    assert!(bad("4k3/8/8/8/8/8/8/4K3 w K -"));
    assert!(bad("4k3/8/8/8/8/8/4K3/7R w K -"));
    assert!(bad("4k3/8/8/8/8/8/8/4K2R w C -"));
    assert!(!bad("4k3/8/8/8/8/8/8/4K2R w K -"));
    assert!(!bad("4k3/8/8/8/8/8/8/1R2K3 w B -"));
}

#[test]
fn ep_square_must_be_explained_by_a_double_step() {
    let bad = |fen| has_error(fen, |e| matches!(e, ValidityError::InvalidEpSquare { .. }));
    assert!(!bad("4k3/8/8/8/4P3/8/8/4K3 b - e3"));
    assert!(bad("4k3/8/8/8/8/8/8/4K3 b - e3"));
    assert!(bad("4k3/8/8/8/4P3/8/8/4K3 w - e3"));
    assert!(bad("4k3/8/8/8/4P3/8/4B3/4K3 b - e3"));
}

#[test]
fn impossible_but_playable_positions_warn() {
    // From tricky.perft: three checkers, two knights checking, two pawns checking, too much material.
    let warns = |fen| check(fen).warnings;
    assert!(warns("2b5/1nbn4/n3n3/1kn5/n3n3/1n1n4/5RQ1/2KQ1R2 w K -")
        .iter()
        .any(|w| matches!(w, ValidityWarning::ImpossibleCheck { .. })));
    assert!(warns("1rrrrrk1/1PPPPPPP/8/8/8/8/8/6K1 b - -")
        .iter()
        .any(|w| matches!(w, ValidityWarning::ImpossibleCheck { .. })));
    assert!(warns("4k3/8/8/8/8/2r1r3/8/4K3 w - -").is_empty());
    assert!(warns("4k3/8/8/8/1b6/8/8/r3K3 w - -")
        .iter()
        .all(|w| !matches!(w, ValidityWarning::ImpossibleCheck { .. })));
    assert!(warns("kBQQQQQQ/BR5Q/Q6Q/Q6Q/Q6Q/Q6Q/Q6Q/KQQQQQQQ w - -")
        .iter()
        .any(|w| matches!(w, ValidityWarning::TooMuchMaterial(_))));
    // All tricky.perft positions stay perft-able (no errors).
    for fen in [
        "3R4/8/q4k2/2B5/1NK5/3b4/8/8 w - -",
        "5R2/2P5/8/4k3/8/3rK2r/8/8 w - -",
        "8/8/8/1k6/3Pp3/8/8/4KQ2 b - d3",
    ] {
        assert!(check(fen).is_ok(), "{fen}");
    }
}

/// python-chess's rule (issue 11): with a valid en-passant square the last move was that double step, so a
/// check it could not have given (two checkers, or a check that was already there before it) is impossible.
#[test]
fn check_the_double_step_could_not_have_given_warns() {
    let impossible = |fen| {
        check(fen)
            .warnings
            .iter()
            .any(|w| matches!(w, ValidityWarning::ImpossibleCheck { .. }))
    };
    // From the issue: c2c4 leaves the c8 bishop's check on e6 as it was.
    assert!(impossible(
        "2B3n1/r6r/1p2k3/pB1p2B1/P1Ppp3/N5P1/1P1K4/4R3 b - c3 0 28"
    ));
    // python-chess's test: the f1 queen checked b5 before d2d4 too.
    assert!(impossible("8/8/8/1k6/3Pp3/8/8/4KQ2 b - d3 0 1"));
    // The same positions without the e.p. square are fine (any last move could have given the check).
    assert!(!impossible(
        "2B3n1/r6r/1p2k3/pB1p2B1/P1Ppp3/N5P1/1P1K4/4R3 b - - 0 28"
    ));
    assert!(!impossible("8/8/8/1k6/3Pp3/8/8/4KQ2 b - - 0 1"));
    // Possible: the pawn's own check, and a check the double step uncovered (c1 bishop through d2).
    assert!(!impossible("8/8/8/4k3/3P4/8/8/4K3 b - d3 0 1"));
    assert!(!impossible("8/8/7k/8/3P4/8/8/2B1K3 b - d3 0 1"));
}
