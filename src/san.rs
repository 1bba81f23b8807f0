//! Standard Algebraic Notation (FIDE Appendix C): writing a legal move as SAN and reading SAN back.
//!
//! Reading is lenient where it cannot be ambiguous: `0-0` for `O-O`, a missing `x`, a missing `=` before the
//! promoted piece, more disambiguation than needed, and trailing `+`, `#`, `!`, `?` are all accepted.

use crate::position::Setup;
use crate::reference;
use crate::types::{Move, MoveKind, Role, Square};

/// The SAN text of `m`, a legal move of `setup` (`legal` is the full list of legal moves there).
pub fn to_san(setup: &Setup, legal: &[Move], m: Move) -> String {
    let mut out = san_without_suffix(setup, legal, m);
    let next = reference::Mailbox::from_setup(&reference::play(setup, m));
    if next.in_check() {
        out.push(if next.legal_moves().is_empty() {
            '#'
        } else {
            '+'
        });
    }
    out
}

fn san_without_suffix(setup: &Setup, legal: &[Move], m: Move) -> String {
    if m.kind() == MoveKind::Castling {
        return if m.to().file() > m.from().file() {
            "O-O".into()
        } else {
            "O-O-O".into()
        };
    }
    let Some(piece) = setup.piece_at(m.from()) else {
        return m.to_uci(false);
    };
    let capture = m.kind() == MoveKind::EnPassant || setup.piece_at(m.to()).is_some();
    let mut out = String::new();
    if piece.role == Role::Pawn {
        if capture {
            out.push((b'a' + m.from().file()) as char);
            out.push('x');
        }
        out.push_str(&m.to().to_string());
        if let Some(role) = m.promotion_role() {
            out.push('=');
            out.push(role.char().to_ascii_uppercase());
        }
        return out;
    }
    out.push(piece.role.char().to_ascii_uppercase());
    // Disambiguation: file if that suffices, else rank, else both.
    let rivals: Vec<Square> = legal
        .iter()
        .filter(|o| {
            o.kind() != MoveKind::Castling
                && o.to() == m.to()
                && o.from() != m.from()
                && setup.piece_at(o.from()).map(|p| p.role) == Some(piece.role)
        })
        .map(|o| o.from())
        .collect();
    if !rivals.is_empty() {
        let from = m.from().to_string();
        if rivals.iter().all(|r| r.file() != m.from().file()) {
            out.push_str(&from[..1]);
        } else if rivals.iter().all(|r| r.rank() != m.from().rank()) {
            out.push_str(&from[1..]);
        } else {
            out.push_str(&from);
        }
    }
    if capture {
        out.push('x');
    }
    out.push_str(&m.to().to_string());
    out
}

/// Read SAN text as one of the `legal` moves of `setup`; `None` when it names no legal move or more than one.
pub fn parse_san(setup: &Setup, legal: &[Move], text: &str) -> Option<Move> {
    let s = text.trim().trim_end_matches(['+', '#', '!', '?']);
    let castle_side = match s {
        "O-O" | "0-0" => Some(true),
        "O-O-O" | "0-0-0" => Some(false),
        _ => None,
    };
    if let Some(king_side) = castle_side {
        let found: Vec<Move> = legal
            .iter()
            .copied()
            .filter(|m| {
                m.kind() == MoveKind::Castling && (m.to().file() > m.from().file()) == king_side
            })
            .collect();
        return (found.len() == 1).then(|| found[0]);
    }
    let mut chars: Vec<char> = s.chars().filter(|&c| c != 'x' && c != '=').collect();
    let role = match chars.first() {
        Some(&c) if "NBRQK".contains(c) => {
            chars.remove(0);
            Role::from_char(c)?
        }
        _ => Role::Pawn,
    };
    let promotion = match chars.last() {
        Some(&c) if "NBRQnbrq".contains(c) && role == Role::Pawn => {
            chars.pop();
            Some(Role::from_char(c)?)
        }
        _ => None,
    };
    if chars.len() < 2 {
        return None;
    }
    let dest: String = chars[chars.len() - 2..].iter().collect();
    let to = Square::parse(&dest)?;
    let hint = &chars[..chars.len() - 2];
    let mut from_file = None;
    let mut from_rank = None;
    for &c in hint {
        match c {
            'a'..='h' => from_file = Some(c as u8 - b'a'),
            '1'..='8' => from_rank = Some(c as u8 - b'1'),
            _ => return None,
        }
    }
    let found: Vec<Move> = legal
        .iter()
        .copied()
        .filter(|m| {
            m.kind() != MoveKind::Castling
                && m.to() == to
                && setup.piece_at(m.from()).map(|p| p.role) == Some(role)
                && m.promotion_role() == promotion
                && from_file.is_none_or(|f| m.from().file() == f)
                && from_rank.is_none_or(|r| m.from().rank() == r)
        })
        .collect();
    (found.len() == 1).then(|| found[0])
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sans(fen: &str) -> Vec<String> {
        let s = Setup::from_fen(fen).unwrap();
        let legal = reference::legal_moves(&s);
        let mut v: Vec<String> = legal.iter().map(|&m| to_san(&s, &legal, m)).collect();
        v.sort();
        v
    }

    #[test]
    fn writes_and_reads_every_legal_move() {
        for fen in [
            Setup::STARTPOS_FEN,
            "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
            "n1n5/PPPk4/8/8/8/8/4Kppp/5N1N b - - 0 1",
            "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
        ] {
            let s = Setup::from_fen(fen).unwrap();
            let legal = reference::legal_moves(&s);
            for &m in &legal {
                let san = to_san(&s, &legal, m);
                assert_eq!(parse_san(&s, &legal, &san), Some(m), "{fen}: {san}");
            }
        }
    }

    #[test]
    fn disambiguates_captures_promotions_and_castles() {
        let v = sans("r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1");
        for expected in ["O-O", "O-O-O", "Nxf7", "Qxf6", "dxe6", "Bxa6", "Nd1"] {
            assert!(v.contains(&expected.to_string()), "{expected} in {v:?}");
        }
        // File, rank, and both.
        let v = sans("4k3/8/8/8/8/Q1Q5/4K3/Q7 w - - 0 1");
        for expected in ["Qcb2", "Q1b2", "Qa3b2", "Qab3"] {
            assert!(v.contains(&expected.to_string()), "{expected} in {v:?}");
        }
        let v = sans("n1n5/PPPk4/8/8/8/8/4Kppp/5N1N b - - 0 1");
        for expected in ["gxf1=Q+", "g1=N+", "gxh1=R", "Nab6", "Kc6"] {
            assert!(v.contains(&expected.to_string()), "{expected} in {v:?}");
        }
        // Mate sign.
        let v = sans("6k1/5ppp/8/8/8/8/8/R5K1 w - - 0 1");
        assert!(v.contains(&"Ra8#".to_string()));
    }

    #[test]
    fn reads_lenient_forms_and_refuses_ambiguity() {
        let s =
            Setup::from_fen("r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1")
                .unwrap();
        let legal = reference::legal_moves(&s);
        assert!(parse_san(&s, &legal, "0-0").is_some());
        assert_eq!(
            parse_san(&s, &legal, "Nf7").map(|m| m.to_uci(false)),
            Some("e5f7".into())
        );
        assert_eq!(
            parse_san(&s, &legal, "Nc3b1").map(|m| m.to_uci(false)),
            Some("c3b1".into())
        );
        let s = Setup::from_fen("4k3/8/8/8/8/8/8/R3K2R w - - 0 1").unwrap();
        let legal = reference::legal_moves(&s);
        assert_eq!(
            parse_san(&s, &legal, "Rd1"),
            Some(Move::normal(sq("a1"), sq("d1")))
        );
        assert_eq!(
            parse_san(&s, &legal, "Rf1"),
            Some(Move::normal(sq("h1"), sq("f1")))
        );
        let s = Setup::from_fen("4k3/8/8/8/8/8/8/R6R w - - 0 1").unwrap();
        let legal = reference::legal_moves(&s);
        assert_eq!(parse_san(&s, &legal, "Rd1"), None);
        assert!(parse_san(&s, &legal, "Rad1").is_some());
        assert_eq!(parse_san(&s, &legal, "Zz9"), None);
    }

    fn sq(s: &str) -> Square {
        Square::parse(s).unwrap()
    }
}
