//! Entry points of the fuzz targets (`fuzz/`, cargo-fuzz on nightly) and of the test that replays their
//! committed corpus (`tests/fuzz_corpus.rs`): each takes arbitrary bytes, must never panic, and checks the
//! invariant its reader promises. Bad input is an `Err`, never a panic (the project's rule for every reader
//! of user input).
//!
//! - [`fen`]: FEN/EPD-style FEN parsing (`Setup::from_fen`): what parses writes back to text that parses to
//!   the same position; validity (`Checked::new`, FIDE 3.10.3) decides without panicking; on a valid
//!   position every legal move's UCI and SAN text (FIDE Appendix C) reads back as that move.
//! - [`suite`]: perft suite files (`suite::parse`), EPD operations included.
//! - [`moves`]: a move line (UCI or SAN, as `--moves` takes it) played from a FEN given on the first line.
//! - [`positions`]: the one position-file reader ([`crate::position_file`]): the bounded line reader gives back
//!   exactly what it accepts and refuses a text over its limit; every line is read or refused with its number,
//!   and a read line's FEN, alone, reads as the same position.
//! - [`checked`]: validity (`Checked::new`, FIDE 3.10.3) on positions built square by square from the bytes
//!   (not through FEN, so boards FEN text would not give are reached too): never a panic; a valid position's
//!   FEN reads back valid and the same, and its moves round-trip.

use crate::position::Setup;
use crate::san::{parse_san, to_san};
use crate::types::Move;
use crate::types::{CastlingSide, Color, Piece, Role, Square};
use crate::validate::Checked;

/// At most this many legal moves of one position are written and read back (enough for every kind).
const MOVES_CHECKED: usize = 64;

/// The bytes as text (invalid UTF-8 replaced, as a reader of user text sees it after its own check).
fn text(data: &[u8]) -> std::borrow::Cow<'_, str> {
    String::from_utf8_lossy(data)
}

/// FEN text: parse, write back, parse again (same position), validate, and round-trip the legal moves.
///
/// # Panics
/// When an invariant fails: that is the finding the fuzzer reports.
pub fn fen(data: &[u8]) {
    let text = text(data);
    let Ok(setup) = Setup::from_fen(&text) else {
        return;
    };
    let written = setup.to_fen();
    let again = Setup::from_fen(&written)
        .unwrap_or_else(|e| panic!("{written:?}, written from {text:?}, does not parse: {e}"));
    assert_eq!(again.to_fen(), written, "FEN round trip of {text:?}");
    let Ok(pos) = Checked::new(setup) else {
        return;
    };
    moves_round_trip(&pos);
}

/// Every legal move's UCI and SAN text names that move again.
fn moves_round_trip(pos: &Checked) {
    let legal = pos.legal_moves();
    let chess960 = pos.setup().needs_chess960_notation();
    for &m in legal.iter().take(MOVES_CHECKED) {
        let uci = m.to_uci(chess960);
        assert_eq!(
            Move::find_uci(&legal, &uci),
            Some(m),
            "UCI {uci} in {}",
            pos.to_fen()
        );
        let san = to_san(pos.setup(), &legal, m);
        assert_eq!(
            parse_san(pos.setup(), &legal, &san),
            Some(m),
            "SAN {san} in {}",
            pos.to_fen()
        );
    }
}

/// A suite file's text: parsed or refused, never a panic.
pub fn suite(data: &[u8]) {
    let _ = crate::suite::parse("fuzz.epd", &text(data));
}

/// A FEN on the first line, a move line (UCI or SAN, move numbers and all) on the rest: played or refused.
/// A line that plays ends on a valid position whose moves round-trip.
pub fn moves(data: &[u8]) {
    let text = text(data);
    let (first, rest) = text.split_once('\n').unwrap_or((&text, ""));
    let root = match Checked::from_fen(first) {
        Ok(p) => p,
        Err(_) => Checked::startpos(),
    };
    let values: Vec<String> = rest.split_whitespace().map(str::to_string).collect();
    if let Ok(line) = crate::line::play_moves(&root, &values) {
        moves_round_trip(line.end());
    }
}

/// A position file's bytes: through the bounded line reader, then every line through the grammar.
pub fn positions(data: &[u8]) {
    use crate::position_file::{numbered_lines, parse_line, read_lines};
    if let Ok(text) = read_lines(data, 1 << 20) {
        assert_eq!(
            text.as_bytes(),
            data,
            "the reader gives back what it accepts"
        );
    }
    if !data.is_empty() {
        assert!(
            read_lines(data, data.len() as u64 - 1).is_err(),
            "a text one byte over the limit is refused"
        );
    }
    let text = text(data);
    for (n, line) in numbered_lines(&text) {
        match parse_line(n, line) {
            None => assert!(line.trim().is_empty() || line.trim().starts_with('#')),
            Some(Err(e)) => assert_eq!(e.line, n),
            Some(Ok(r)) => {
                assert_eq!(r.line, n);
                let Some(Ok(alone)) = parse_line(1, &r.fen) else {
                    panic!("the FEN {:?} of line {line:?} does not read alone", r.fen);
                };
                assert_eq!(alone.setup, r.setup, "{line:?}");
            }
        }
    }
}

/// A position built from the bytes: a side to move, castling rooks, an e.p. square, then (square, piece)
/// pairs. `Checked::new` decides it without panicking; a valid one survives its FEN.
pub fn checked(data: &[u8]) {
    let Some((head, pieces)) = data.split_first_chunk::<6>() else {
        return;
    };
    let square = |b: u8| (b < 64).then(|| Square::new(b));
    let mut setup = Setup::empty();
    setup.turn = if head[0] & 1 == 0 {
        Color::White
    } else {
        Color::Black
    };
    for (i, (color, side)) in [Color::White, Color::Black]
        .into_iter()
        .flat_map(|c| CastlingSide::ALL.map(|s| (c, s)))
        .enumerate()
    {
        setup.castling.set(color, side, square(head[1 + i]));
    }
    setup.ep_square = square(head[5]);
    for pair in pieces.chunks_exact(2) {
        let sq = Square::new(pair[0] & 63);
        let color = if pair[1] & 8 == 0 {
            Color::White
        } else {
            Color::Black
        };
        setup.board[sq.index()] = Role::ALL
            .get(usize::from(pair[1] & 7))
            .map(|&role| Piece::new(color, role));
    }
    let Ok(pos) = Checked::new(setup) else {
        return;
    };
    let fen = pos.to_fen();
    let again = Checked::from_fen(&fen)
        .unwrap_or_else(|e| panic!("{fen}, written from a valid position, is refused: {e}"));
    assert_eq!(again.to_fen(), fen, "FEN round trip of a valid position");
    moves_round_trip(&pos);
}
