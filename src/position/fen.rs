//! FEN and EPD text: parse (syntax only) and write.
//!
//! Accepted: standard 6-field FEN; EPD-style 4-field FEN (clocks default to `0 1`); Shredder-FEN castling
//! (`HAha`, the rooks' files) and X-FEN (`KQkq` resolved to the outermost rook on that side of the king) for
//! Chess960. Every error names the field and the offending text.
//!
//! Strict where other tools disagree (as python-chess): two digits in a row in a rank (`44`, `17`), five
//! fields, signed clocks (`+5`) and castling letters out of order (white's before black's, each colour's king
//! side before its queen side: `KQkq`, `HAha`) are errors.

use super::{Pieces, Setup};
use crate::types::{CastlingSide, Color, Piece, Role, Square};
use std::fmt;

/// The six fields of a FEN, in order (EPD-style FEN has the first four).
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum FenField {
    /// The piece placement, eight ranks from the 8th.
    Board,
    /// `w` or `b`.
    SideToMove,
    /// `-`, `KQkq` (X-FEN) or rook files (Shredder-FEN).
    Castling,
    /// `-` or the square passed over by a double step.
    EnPassant,
    /// Plies since the last capture or pawn move (FIDE 9.3).
    HalfmoveClock,
    /// The number of the next move.
    FullmoveNumber,
}

impl FenField {
    /// The fields in FEN order.
    pub const ALL: [FenField; 6] = [
        FenField::Board,
        FenField::SideToMove,
        FenField::Castling,
        FenField::EnPassant,
        FenField::HalfmoveClock,
        FenField::FullmoveNumber,
    ];

    /// The name error messages use: `board`, `side to move`, `castling`, `en passant`, `halfmove clock`,
    /// `fullmove number`.
    pub fn name(self) -> &'static str {
        match self {
            FenField::Board => "board",
            FenField::SideToMove => "side to move",
            FenField::Castling => "castling",
            FenField::EnPassant => "en passant",
            FenField::HalfmoveClock => "halfmove clock",
            FenField::FullmoveNumber => "fullmove number",
        }
    }
}

impl fmt::Display for FenField {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A FEN syntax error: which field, and the text that is wrong.
#[derive(Clone, PartialEq, Eq, Debug)]
pub enum FenError {
    /// The text is empty or blank.
    Empty,
    /// Fewer than 4 fields.
    MissingField {
        /// The first missing field.
        field: FenField,
    },
    /// More than 6 fields.
    TooManyFields {
        /// The first extra field.
        text: String,
    },
    /// A field's text is wrong.
    Invalid {
        /// The field.
        field: FenField,
        /// The offending text.
        text: String,
        /// Why.
        reason: String,
    },
}

impl fmt::Display for FenError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            FenError::Empty => write!(f, "invalid FEN: empty text"),
            FenError::MissingField { field } => write!(f, "invalid FEN: missing field '{field}'"),
            FenError::TooManyFields { text } => {
                write!(f, "invalid FEN: unexpected extra field '{text}'")
            }
            FenError::Invalid {
                field,
                text,
                reason,
            } => {
                write!(f, "invalid FEN: field '{field}' is '{text}': {reason}")
            }
        }
    }
}

impl std::error::Error for FenError {}

fn invalid(field: FenField, text: &str, reason: impl Into<String>) -> FenError {
    FenError::Invalid {
        field,
        text: text.to_string(),
        reason: reason.into(),
    }
}

impl Setup {
    /// Parse FEN (6 fields) or EPD-style FEN (4 fields). Only syntax is checked here.
    ///
    /// # Errors
    /// A [`FenError`] naming the field and its text.
    pub fn from_fen(text: &str) -> Result<Setup, FenError> {
        // At most seven fields are looked at (the seventh only to name it), so no vector is allocated.
        let mut all = [""; 7];
        let mut n = 0;
        for w in text.split_whitespace().take(7) {
            all[n] = w;
            n += 1;
        }
        let fields = &all[..n];
        if fields.is_empty() {
            return Err(FenError::Empty);
        }
        // Four fields (EPD) or all six: with five, the one clock could be either.
        if fields.len() < 4 || fields.len() == 5 {
            // Text that is no FEN at all ("not a fen") is named by its first field, not by a missing one.
            parse_board(fields[0], &mut Setup::empty())?;
            return Err(FenError::MissingField {
                field: FenField::ALL[fields.len()],
            });
        }
        if fields.len() > 6 {
            return Err(FenError::TooManyFields {
                text: fields[6].to_string(),
            });
        }
        Setup::from_fields(fields)
    }

    /// [`Setup::from_fen`] of a FEN already split into its fields: 4 (EPD) or 6 (a position file's reader
    /// splits each line once and passes its words here).
    ///
    /// # Errors
    /// As [`Setup::from_fen`]; also [`FenError::MissingField`] or [`FenError::TooManyFields`] when `fields`
    /// has neither 4 nor 6 entries.
    pub fn from_fields(fields: &[&str]) -> Result<Setup, FenError> {
        Setup::from_fields_with_pieces(fields).map(|(setup, _)| setup)
    }

    /// [`Setup::from_fields`], and the position's pieces ([`Setup::pieces`]) gathered as the placement was read.
    ///
    /// # Errors
    /// As [`Setup::from_fields`].
    pub fn from_fields_with_pieces(fields: &[&str]) -> Result<(Setup, Pieces), FenError> {
        match fields.len() {
            4 | 6 => {}
            n if n > 6 => {
                return Err(FenError::TooManyFields {
                    text: fields[6].to_string(),
                })
            }
            0 => return Err(FenError::Empty),
            n => {
                return Err(FenError::MissingField {
                    field: FenField::ALL[n],
                })
            }
        }
        let mut setup = Setup::empty();
        let pieces = parse_board(fields[0], &mut setup)?;
        setup.turn = match fields[1] {
            "w" => Color::White,
            "b" => Color::Black,
            other => return Err(invalid(FenField::SideToMove, other, "expected 'w' or 'b'")),
        };
        parse_castling(fields[2], &mut setup)?;
        setup.ep_square = match fields[3] {
            "-" => None,
            t => match Square::parse(t) {
                Some(sq) if sq.rank() == 2 || sq.rank() == 5 => Some(sq),
                Some(_) => {
                    return Err(invalid(
                        FenField::EnPassant,
                        t,
                        "the square must be on rank 3 or 6",
                    ))
                }
                None => {
                    return Err(invalid(
                        FenField::EnPassant,
                        t,
                        "expected '-' or a square such as 'e3'",
                    ))
                }
            },
        };
        let digits = |t: &str| t.bytes().all(|b| b.is_ascii_digit());
        if let Some(t) = fields.get(4) {
            setup.halfmoves = match t.parse::<u32>() {
                Ok(n) if digits(t) => n,
                _ => {
                    return Err(invalid(
                        FenField::HalfmoveClock,
                        t,
                        "expected a non-negative integer (digits only, below 2^32)",
                    ))
                }
            };
        }
        if let Some(t) = fields.get(5) {
            setup.fullmoves = match t.parse::<u32>() {
                Ok(n) if n >= 1 && digits(t) => n,
                _ => {
                    return Err(invalid(
                        FenField::FullmoveNumber,
                        t,
                        "expected a positive integer (digits only, below 2^32)",
                    ))
                }
            };
        }
        Ok((setup, pieces))
    }

    /// Write FEN with all six fields. Castling is written as `KQkq` when each right's rook is the outermost on
    /// its side of the king (X-FEN), else as the rook's file letter (Shredder-FEN).
    pub fn to_fen(&self) -> String {
        use std::fmt::Write;
        // 64 squares' worth of placement text, the side, castling, e.p. square and clocks: one allocation.
        let mut out = String::with_capacity(96);
        for rank in (0..8).rev() {
            let mut empty = 0;
            for file in 0..8 {
                match self.board[rank * 8 + file] {
                    None => empty += 1,
                    Some(p) => {
                        if empty > 0 {
                            out.push(char::from(b'0' + empty));
                            empty = 0;
                        }
                        out.push(p.char());
                    }
                }
            }
            if empty > 0 {
                out.push(char::from(b'0' + empty));
            }
            if rank > 0 {
                out.push('/');
            }
        }
        out.push(' ');
        out.push(if self.turn == Color::White { 'w' } else { 'b' });
        out.push(' ');
        let rights_at = out.len();
        for color in Color::ALL {
            for side in CastlingSide::ALL {
                if let Some(rook) = self.castling.rook(color, side) {
                    // K/Q name the outermost rook on that side, or, where there is none, the corner (as the
                    // reader takes them): either way the letter reads back as this right.
                    let corner = Square::new(
                        color.back_rank() * 8 + if side == CastlingSide::KingSide { 7 } else { 0 },
                    );
                    let named = resolve_xfen(self, color, side);
                    let c = if named == Some(rook) || (named.is_none() && rook == corner) {
                        if side == CastlingSide::KingSide {
                            'k'
                        } else {
                            'q'
                        }
                    } else {
                        (b'a' + rook.file()) as char
                    };
                    out.push(if color == Color::White {
                        c.to_ascii_uppercase()
                    } else {
                        c
                    });
                }
            }
        }
        if out.len() == rights_at {
            out.push('-');
        }
        out.push(' ');
        match self.ep_square {
            Some(sq) => {
                out.push(char::from(b'a' + sq.file()));
                out.push(char::from(b'1' + sq.rank()));
            }
            None => out.push('-'),
        }
        // Writing to a String cannot fail.
        let _ = write!(out, " {} {}", self.halfmoves, self.fullmoves);
        out
    }
}

/// The piece each byte names in a placement (FIDE 2.2's letters, upper case White), `None` for any other byte:
/// [`Piece::from_char`] as a table, built at compile time.
static PIECE_OF_BYTE: [Option<Piece>; 256] = {
    let mut t = [None; 256];
    let mut c = 0usize;
    while c < 256 {
        let b = c as u8;
        let role = match b.to_ascii_lowercase() {
            b'p' => Some(Role::Pawn),
            b'n' => Some(Role::Knight),
            b'b' => Some(Role::Bishop),
            b'r' => Some(Role::Rook),
            b'q' => Some(Role::Queen),
            b'k' => Some(Role::King),
            _ => None,
        };
        if let Some(role) = role {
            let color = if b.is_ascii_uppercase() {
                Color::White
            } else {
                Color::Black
            };
            t[c] = Some(Piece { color, role });
        }
        c += 1;
    }
    t
};

/// The placement field read byte by byte: its pieces when it is well formed (and `setup.board` filled). A
/// placement that is not is left to [`parse_board`], which names the fault (so both read the same grammar:
/// eight ranks of piece letters and single digits 1–8, eight squares each). The pieces come from
/// [`PIECE_OF_BYTE`] (a match per byte was most of reading a FEN in a `dead --scan`), and are gathered by role
/// and colour as they are read.
fn fast_board(text: &[u8], setup: &mut Setup) -> Option<Pieces> {
    let (mut rank, mut file, mut after_digit) = (7usize, 0usize, false);
    let mut pieces = Pieces::default();
    for &c in text {
        if let Some(p) = PIECE_OF_BYTE[usize::from(c)] {
            if file >= 8 {
                return None;
            }
            let sq = Square::new((rank * 8 + file) as u8);
            setup.board[sq.index()] = Some(p);
            pieces.add(p, sq);
            file += 1;
            after_digit = false;
            continue;
        }
        match c {
            b'/' => {
                if file != 8 || rank == 0 {
                    return None;
                }
                rank -= 1;
                file = 0;
                after_digit = false;
            }
            b'1'..=b'8' if !after_digit => {
                file += usize::from(c - b'0');
                if file > 8 {
                    return None;
                }
                after_digit = true;
            }
            _ => return None,
        }
    }
    (rank == 0 && file == 8).then_some(pieces)
}

/// The placement `text` read into `setup.board` (which is empty), and its pieces.
fn parse_board(text: &str, setup: &mut Setup) -> Result<Pieces, FenError> {
    if let Some(pieces) = fast_board(text.as_bytes(), setup) {
        return Ok(pieces);
    }
    setup.board = [None; 64];
    parse_board_checked(text, setup)?;
    Ok(setup.pieces())
}

/// The placement read character by character, naming the first fault.
fn parse_board_checked(text: &str, setup: &mut Setup) -> Result<(), FenError> {
    // A character predicate, not a `char` pattern: ranks are a few bytes, too short for a substring search.
    let slash = |c: char| c == '/';
    let count = text.split(slash).count();
    if count != 8 {
        return Err(invalid(
            FenField::Board,
            text,
            format!("expected 8 ranks separated by '/', found {count}"),
        ));
    }
    for (i, rank_text) in text.split(slash).enumerate() {
        let rank = 7 - i;
        let mut file = 0usize;
        let mut after_digit = false;
        for c in rank_text.chars() {
            if let Some(d) = c.to_digit(10) {
                if after_digit {
                    return Err(invalid(
                        FenField::Board,
                        rank_text,
                        "two digits in a row (write the run of empty squares as one digit)",
                    ));
                }
                after_digit = true;
                if d == 0 || d > 8 {
                    return Err(invalid(
                        FenField::Board,
                        rank_text,
                        format!("bad empty-square count '{c}'"),
                    ));
                }
                file += d as usize;
            } else if let Some(p) = Piece::from_char(c) {
                after_digit = false;
                if file < 8 {
                    setup.board[rank * 8 + file] = Some(p);
                }
                file += 1;
            } else {
                return Err(invalid(
                    FenField::Board,
                    rank_text,
                    format!("unexpected character '{c}'"),
                ));
            }
            if file > 8 {
                return Err(invalid(
                    FenField::Board,
                    rank_text,
                    format!("rank {} has more than 8 squares", rank + 1),
                ));
            }
        }
        if file != 8 {
            return Err(invalid(
                FenField::Board,
                rank_text,
                format!("rank {} has {} squares, expected 8", rank + 1, file),
            ));
        }
    }
    Ok(())
}

/// The outermost rook of `color` on `side` of its king on the back rank (X-FEN's meaning of `K`/`Q`).
fn resolve_xfen(setup: &Setup, color: Color, side: CastlingSide) -> Option<Square> {
    let rank = color.back_rank();
    let rook = Some(Piece::new(color, Role::Rook));
    let king_file = (0..8)
        .find(|&f| setup.board[(rank * 8 + f) as usize] == Some(Piece::new(color, Role::King)))?;
    let is_rook = |&f: &u8| setup.board[(rank * 8 + f) as usize] == rook;
    let file = match side {
        CastlingSide::KingSide => (king_file + 1..8).rev().find(is_rook),
        CastlingSide::QueenSide => (0..king_file).find(is_rook),
    };
    file.map(|f| Square::new(rank * 8 + f))
}

fn parse_castling(text: &str, setup: &mut Setup) -> Result<(), FenError> {
    if text == "-" {
        return Ok(());
    }
    // Canonical order: white before black, each colour's king side before its queen side.
    let mut last: Option<(Color, CastlingSide)> = None;
    let rank_of = |(color, side): (Color, CastlingSide)| {
        (color == Color::Black) as u8 * 2 + (side == CastlingSide::QueenSide) as u8
    };
    for c in text.chars() {
        let color = if c.is_ascii_uppercase() {
            Color::White
        } else {
            Color::Black
        };
        let rank = color.back_rank();
        let lower = c.to_ascii_lowercase();
        let (side, rook) = match lower {
            'k' | 'q' => {
                let side = if lower == 'k' {
                    CastlingSide::KingSide
                } else {
                    CastlingSide::QueenSide
                };
                // Without such a rook, name the standard corner; validation reports the missing rook.
                let corner = Square::new(rank * 8 + if lower == 'k' { 7 } else { 0 });
                (side, resolve_xfen(setup, color, side).unwrap_or(corner))
            }
            'a'..='h' => {
                let file = lower as u8 - b'a';
                let sq = Square::new(rank * 8 + file);
                let king_file = setup
                    .kings(color)
                    .iter()
                    .find(|k| k.rank() == rank)
                    .map(|k| k.file());
                let side = match king_file {
                    Some(kf) if file < kf => CastlingSide::QueenSide,
                    Some(_) => CastlingSide::KingSide,
                    None if file < 4 => CastlingSide::QueenSide,
                    None => CastlingSide::KingSide,
                };
                (side, sq)
            }
            _ => {
                return Err(invalid(
                    FenField::Castling,
                    text,
                    format!("unexpected character '{c}' (expected '-', KQkq or A-Ha-h)"),
                ))
            }
        };
        if setup.castling.rook(color, side).is_some() {
            return Err(invalid(
                FenField::Castling,
                text,
                format!("more than one {} right on the same side", color.name()),
            ));
        }
        if last.is_some_and(|l| rank_of(l) > rank_of((color, side))) {
            return Err(invalid(
                FenField::Castling,
                text,
                format!(
                    "'{c}' is out of order (white's rights come before black's, and each colour's king \
                     side before its queen side, as in 'KQkq' or 'HAha')"
                ),
            ));
        }
        last = Some((color, side));
        setup.castling.set(color, side, Some(rook));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip_standard_and_960() {
        for fen in [
            Setup::STARTPOS_FEN,
            "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
            "bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w KQkq - 2 9",
            "8/8/8/8/8/8/8/8 b - e3 12 40",
            "rk2r3/8/8/8/8/8/8/RK2R3 w KQkq - 0 1",
            "rk2r2r/8/8/8/8/8/8/RK2R2R w Ee - 0 1",
        ] {
            assert_eq!(Setup::from_fen(fen).unwrap().to_fen(), fen);
        }
    }

    #[test]
    fn shredder_and_xfen_name_the_same_rooks() {
        let a =
            Setup::from_fen("bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w HFhf - 2 9")
                .unwrap();
        let b =
            Setup::from_fen("bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w KQkq - 2 9")
                .unwrap();
        assert_eq!(a.castling, b.castling);
        assert_eq!(
            a.castling.rook(Color::White, CastlingSide::QueenSide),
            Square::parse("f1")
        );
    }

    #[test]
    fn a_right_without_its_rook_is_written_back_as_read() {
        // Found by the `fen` fuzz target: 'Q' with the king in the a1 corner names no rook; it was written
        // back as 'A', which reads as a king-side right, so the written FEN did not parse ("more than one
        // white right on the same side").
        let text = "rbknqbnr/pppppppp/8/8/8/8/1pQPPPPP/KNBRNBQR w KQkq - 0 1";
        let setup = Setup::from_fen(text).unwrap();
        let written = setup.to_fen();
        assert_eq!(written, text);
        let again = Setup::from_fen(&written).unwrap();
        assert_eq!(again.to_fen(), written);
    }

    #[test]
    fn epd_four_fields_default_clocks() {
        let s = Setup::from_fen("4k3/8/8/8/8/8/8/4K2R w K -").unwrap();
        assert_eq!((s.halfmoves, s.fullmoves), (0, 1));
    }

    #[test]
    fn errors_are_data_a_caller_can_match() {
        assert_eq!(
            Setup::from_fen("8/8/8/8/8/8/8/8 w"),
            Err(FenError::MissingField {
                field: FenField::Castling
            })
        );
        match Setup::from_fen("8/8/8/8/8/8/8/8 w - e4 0 1") {
            Err(FenError::Invalid { field, text, .. }) => {
                assert_eq!((field, text.as_str()), (FenField::EnPassant, "e4"))
            }
            other => panic!("{other:?}"),
        }
        let names: Vec<String> = FenField::ALL.iter().map(|f| f.to_string()).collect();
        assert_eq!(
            names,
            [
                "board",
                "side to move",
                "castling",
                "en passant",
                "halfmove clock",
                "fullmove number"
            ]
        );
    }

    #[test]
    fn errors_name_field_and_text() {
        let cases = [
            ("", "empty"),
            ("8/8/8/8/8/8/8/8 w", "castling"),
            ("8/8/8/8/8/8/8 w - -", "'8/8/8/8/8/8/8'"),
            ("8/8/8/8/8/8/8/9 w - -", "'9'"),
            ("8/8/8/8/8/8/8/7x w - -", "'x'"),
            ("8/8/8/8/8/8/8/8 x - -", "field 'side to move' is 'x'"),
            ("8/8/8/8/8/8/8/8 w KX -", "field 'castling' is 'KX'"),
            ("8/8/8/8/8/8/8/8 w - e4", "field 'en passant' is 'e4'"),
            (
                "8/8/8/8/8/8/8/8 w - - -1 1",
                "field 'halfmove clock' is '-1'",
            ),
            (
                "8/8/8/8/8/8/8/8 w - - 0 0",
                "field 'fullmove number' is '0'",
            ),
            ("8/8/8/8/8/8/8/8 w - - 0 1 extra", "'extra'"),
            ("8/8/8/8/8/8/8/44 w - -", "two digits in a row"),
            ("8/8/8/8/8/8/8/17 w - -", "two digits in a row"),
            ("8/8/8/8/8/8/8/11111111 w - -", "two digits in a row"),
            (
                "8/8/8/8/8/8/8/8 w KQkq - 7",
                "missing field 'fullmove number'",
            ),
            (
                "8/8/8/8/8/8/8/8 w - - +5 1",
                "field 'halfmove clock' is '+5'",
            ),
            (
                "8/8/8/8/8/8/8/8 w - - 0 +5",
                "field 'fullmove number' is '+5'",
            ),
            (
                "r3k2r/8/8/8/8/8/8/R3K2R w kqKQ - 0 1",
                "field 'castling' is 'kqKQ': 'K' is out of order",
            ),
            (
                "r3k2r/8/8/8/8/8/8/R3K2R w aA - 0 1",
                "field 'castling' is 'aA': 'A' is out of order",
            ),
            ("r3k2r/8/8/8/8/8/8/R3K2R w QK - 0 1", "'K' is out of order"),
        ];
        for (fen, needle) in cases {
            let err = Setup::from_fen(fen).unwrap_err().to_string();
            assert!(err.contains(needle), "{fen:?}: {err} lacks {needle}");
        }
    }

    /// The table of piece letters is [`Piece::from_char`] on every byte.
    #[test]
    fn piece_of_byte_is_from_char() {
        for b in 0..=255u8 {
            assert_eq!(
                PIECE_OF_BYTE[usize::from(b)],
                Piece::from_char(char::from(b)),
                "{b}"
            );
        }
    }

    /// The byte-wise reader of the placement ([`fast_board`]) against the character-wise one it falls back to
    /// for errors: on placements mutated a byte at a time (seeded), both accept the same ones with the same
    /// board.
    #[test]
    fn fast_board_agrees_with_the_checked_reader() {
        let seeds = [
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR",
            "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R",
            "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8",
        ];
        let alphabet = b"pnbrqkPNBRQK012345678/9x ";
        let mut state = 0x9E37_79B9_7F4A_7C15u64;
        let mut next = || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        let (mut accepted, mut refused) = (0, 0);
        for seed in seeds {
            for _ in 0..3_000 {
                let mut text = seed.as_bytes().to_vec();
                for _ in 0..1 + next() % 2 {
                    let at = (next() as usize) % text.len();
                    match next() % 3 {
                        0 => text[at] = alphabet[(next() as usize) % alphabet.len()],
                        1 => {
                            text.remove(at);
                        }
                        _ => text.insert(at, alphabet[(next() as usize) % alphabet.len()]),
                    }
                }
                let text = String::from_utf8(text).unwrap();
                let mut fast = Setup::empty();
                let gathered = fast_board(text.as_bytes(), &mut fast);
                let fast_ok = gathered.is_some();
                let mut slow = Setup::empty();
                let slow_ok = parse_board_checked(&text, &mut slow).is_ok();
                assert_eq!(fast_ok, slow_ok, "{text:?}");
                if fast_ok {
                    assert_eq!(fast.board, slow.board, "{text:?}");
                    assert_eq!(gathered, Some(slow.pieces()), "{text:?}");
                    accepted += 1;
                } else {
                    refused += 1;
                }
            }
        }
        assert!(accepted > 100 && refused > 1_000, "{accepted} {refused}");
    }
}
