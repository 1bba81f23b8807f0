//! The grammar of position lines, line by line.

use super::*;

const START: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";
const START4: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq -";

fn one(line: &str) -> std::result::Result<Record, LineError> {
    parse_line(7, line).expect("not blank")
}

#[test]
fn fen_epd_labels_and_trailing_words() {
    let r = one(START).unwrap();
    assert_eq!(
        (r.line, r.fen.as_str(), r.side, r.plies),
        (7, START, None, None)
    );
    let r = one(&format!("  {START4} ;D1 20 ;D2 400  ")).unwrap();
    assert_eq!(r.fen, START4);
    assert_eq!(r.ops.len(), 2);
    assert_eq!(r.op("D2"), Some(&["400".to_string()][..]));
    let r = one(&format!("{START} ;D1 20; WHITE")).unwrap();
    assert_eq!((r.side, r.ops.len()), (Some(Color::White), 1));
    let r = one(&format!("{START} Black")).unwrap();
    assert_eq!(r.side, Some(Color::Black));
    let r = one(&format!("{START4} 12")).unwrap();
    assert_eq!(r.plies, Some(12));
    let r = one(&format!("-B {START}")).unwrap();
    assert_eq!(r.label.as_deref(), Some("-B"));
    let r = one(&format!("{START4} id \"a; b\"; c0 \"x y\"")).unwrap();
    assert_eq!(r.op("id"), Some(&["a; b".to_string()][..]));
    // The fen keeps the castling field as typed.
    let r = one("4k3/8/8/8/8/8/8/R3K3 w Q - 0 1").unwrap();
    assert_eq!(r.fen, "4k3/8/8/8/8/8/8/R3K3 w Q - 0 1");
    assert!(parse_line(1, "  # comment").is_none());
    assert!(parse_line(1, "   ").is_none());
}

#[test]
fn garbage_is_named_with_its_line() {
    let e = one(&format!("{START} garbage words here")).unwrap_err();
    assert_eq!(e.line, 7);
    assert!(e.why.contains("garbage words here"), "{e}");
    assert!(e.to_string().starts_with("line 7 '"), "{e}");
    let e = one("not a fen").unwrap_err();
    assert!(e.why.contains("field 'board' is 'not'"), "{e}");
    let e = one(&format!("{START4} \"open")).unwrap_err();
    assert!(e.why.contains("not closed"), "{e}");
    let e = one(&format!("{START4} 1x; D1 20")).unwrap_err();
    assert!(e.why.contains("bad operation '1x'"), "{e}");
    let r = one(&format!("{START} white")).unwrap();
    assert!(r.refuse_extras(false, false).is_err());
    assert!(r.refuse_extras(true, false).is_ok());
}

#[test]
fn reading_is_bounded() {
    let text = read_lines(&b"a\nb\r\nc"[..], 100).unwrap();
    assert_eq!(text, "a\nb\r\nc");
    assert!(read_lines(&b"abcdef\nabcdef\n"[..], 10)
        .unwrap_err()
        .contains("at line 2"));
    let long = vec![b'x'; MAX_LINE_BYTES + 1];
    assert!(read_lines(&long[..], 1 << 30)
        .unwrap_err()
        .contains("line 1 is longer"));
    assert!(read_lines(&b"ok\n\xff\n"[..], 100)
        .unwrap_err()
        .contains("line 2 is not UTF-8"));
    // An endless reader stops at the first line over the limit.
    let zeros = std::io::BufReader::new(std::io::repeat(0));
    assert!(read_lines(zeros, MAX_POSITION_BYTES).is_err());
    assert!(read("positions file", Path::new("/dev/zero")).is_err());
    let all = parse_all("f", &format!("\u{feff}# c\n{START}\n\n{START4} black\n")).unwrap();
    assert_eq!(all.iter().map(|r| r.line).collect::<Vec<_>>(), [2, 4]);
    let e = parse_all("f", &format!("{START}\n{START} x y\n")).unwrap_err();
    assert!(e.to_string().starts_with("f:2: malformed line"), "{e}");
    assert!(parse_all("f", "# only\n").is_err());
}

#[test]
fn cha_labels_and_short_fens() {
    let r = one("-B? 8/8/8/4k3/8/8/3p4/4KN2 w - - 0 1").unwrap();
    assert_eq!(r.label.as_deref(), Some("-B?"));
    let r = one("W- 8/8/8/4k3/8/8/8/3NKN2 b").unwrap();
    assert_eq!(r.fen, "8/8/8/4k3/8/8/8/3NKN2 b - -");
    assert!(
        one("8/8/8/4k3/8/8/8/3NKN2 b").is_err(),
        "only after a label"
    );
}

#[test]
fn operations_after_the_clocks_need_a_separator() {
    let r = one(&format!("{START} id \"start\"; D1 21;")).unwrap();
    assert_eq!(r.ops.len(), 2);
    assert!(one(&format!("{START} bm e4")).is_err());
}

/// The byte reader of ASCII lines splits every line as the `char_indices` reader does; a line read after
/// another takes the other's position only when its FEN's fields are the same text, and reads as it reads
/// alone otherwise (errors included), with non-ASCII whitespace between the fields too.
#[test]
fn reading_after_a_line_is_reading_it_alone() {
    let lines = [
        START.to_string(),
        format!("{START} white"),
        format!("{START} black"),
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq -".to_string(),
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 2 BLACK".to_string(),
        "WB 8/8/8/4k3/8/8/3p4/4KN2 w".to_string(),
        "WB 8/8/8/4k3/8/8/3p4/4KN2 w - -".to_string(),
        "8/8/8/4k3/8/8/3p4/4KN2 w - - id \"a; b\"; D1 5;".to_string(),
        "8/8/8/4k3/8/8/3p4/4KN2\u{a0}w - - white".to_string(),
        "8/8/8/4k3/8/8/3p4/4KN2\u{3000}w\t-\u{b}- 0 1".to_string(),
        "8/8/8/4k3/8/8/3p4/4KN2 x - -".to_string(),
        "8/8/8/4k3/8/8/3p4/4KN2 w - - garbage \"open".to_string(),
    ];
    let mut split = 0;
    for l in &lines {
        if l.is_ascii() {
            let fast = words(l, true).map(|w| w.as_slice().to_vec());
            let slow = words_of(l, l.char_indices()).map(|w| w.as_slice().to_vec());
            assert_eq!(fast, slow, "{l}");
            split += 1;
        }
    }
    assert!(split >= 8, "{split}");
    for before in &lines {
        let Some(Ok(b)) = parse_borrowed(1, before) else {
            continue;
        };
        for l in &lines {
            let alone = format!("{:?}", parse_borrowed(2, l));
            let after = format!("{:?}", parse_borrowed_after(2, l, Some((&b.fen, &b.setup))));
            assert_eq!(after, alone, "{before} then {l}");
        }
    }
}

/// The byte-wise reading of an ASCII line ([`ascii_words`], [`trim_line`]) against the character-wise one
/// ([`words_of`] over `char_indices`, `str::trim`) on random lines of every byte that matters (each kind of
/// white space, `0x1c`, which `char::is_whitespace` does not count, quotes closed or not, `;`), more words than
/// are kept in place included: the same words, the same errors, the same trimmed text.
#[test]
fn ascii_words_are_the_characters_words() {
    let alphabet = b"ab8/ \t\n\x0b\x0c\r\x1c\";-";
    let mut state = 0x2545_F491_4F6C_DD1Du64;
    let (mut quoted, mut heap, mut errors) = (0, 0, 0);
    for _ in 0..20_000 {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        let len = (state % 60) as usize;
        let line: String = (0..len)
            .map(|k| {
                let x = state.rotate_left(k as u32 * 5) ^ (k as u64).wrapping_mul(0x9E37_79B9);
                alphabet[(x % alphabet.len() as u64) as usize] as char
            })
            .collect();
        assert_eq!(trim_line(&line, true), line.trim(), "{line:?}");
        let fast = ascii_words(&line).map(|w| w.as_slice().to_vec());
        let slow = words_of(&line, line.char_indices()).map(|w| w.as_slice().to_vec());
        assert_eq!(fast, slow, "{line:?}");
        match &fast {
            Ok(w) => {
                quoted += usize::from(w.iter().any(|x| matches!(x, Word::Quoted(_))));
                heap += usize::from(w.len() > INLINE_WORDS);
            }
            Err(_) => errors += 1,
        }
    }
    assert!(
        quoted > 100 && heap > 100 && errors > 100,
        "{quoted} {heap} {errors}"
    );
}

/// The one-pass reader of the common line shape ([`plain_line`]) against the general one ([`parse_words`]
/// after [`trim_line`]) on random lines of FEN fields, side words, numbers, labels (also before the FEN),
/// comments, operations and the bytes that end the shape (tabs, quotes, `;`, non-ASCII white space), alone and
/// after a line: where it takes a line, the same [`Parsed`]; it takes most lines of the common shape, labelled
/// ones too.
#[test]
fn the_plain_reader_is_the_general_one() {
    let pool = [
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR",
        "8/8/8/4k3/8/8/3p4/4KN2",
        "8/8/8/4k3/8/8/3p4/4KN22",
        "8/8/8/8/8/8/8/8",
        "w",
        "b",
        "w",
        "KQkq",
        "-",
        "-",
        "e3",
        "0",
        "1",
        "12",
        "white",
        "BLACK",
        "x",
        "#c",
        "WB",
        "id",
        "\"a b\"",
        ";",
        "D1",
        "\u{a0}",
    ];
    let seps = [" ", " ", " ", "  ", "\t"];
    let labels = ["WB", "W-", "-B?", "??", "WB WB"];
    let mut state = 0x1234_5678_9ABC_DEF1u64;
    let mut next = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    let mut lines = Vec::new();
    for _ in 0..20_000 {
        // Half the lines of well-placed fields one or two spaces apart, half of anything.
        let plain = next() % 2 == 0;
        let words = 3 + next() % 6;
        let mut l = String::new();
        if next() % 8 == 0 {
            l.push(' ');
        }
        // A CHA label before a quarter of the lines (every line of CHA's lichess.txt has one).
        if next() % 4 == 0 {
            l.push_str(labels[(next() % labels.len() as u64) as usize]);
            l.push(' ');
        }
        for k in 0..words {
            if k > 0 {
                let k = next() % if plain { 4 } else { seps.len() as u64 };
                l.push_str(seps[k as usize]);
            }
            // Mostly the field that belongs there, so that many lines have the common shape.
            let w = match (k, if plain { 0 } else { next() % 3 }) {
                (0, 0 | 1) => pool[(next() % 2) as usize],
                (1, 0 | 1) => pool[4 + (next() % 2) as usize],
                (2 | 3, 0 | 1) => pool[7 + (next() % 3) as usize],
                (4 | 5, 0 | 1) => pool[11 + (next() % 3) as usize],
                (6, 0 | 1) => pool[14 + (next() % 2) as usize],
                _ => pool[(next() % pool.len() as u64) as usize],
            };
            l.push_str(w);
        }
        if next() % 8 == 0 {
            l.push(' ');
        }
        lines.push(l);
    }
    let before = parse_borrowed(1, "8/8/8/4k3/8/8/3p4/4KN2 w - -")
        .unwrap()
        .unwrap();
    let (mut taken, mut left, mut labelled) = (0, 0, 0);
    for l in &lines {
        for previous in [None, Some((&before.fen, &before.setup))] {
            let general = {
                let ascii = l.is_ascii();
                let text = trim_line(l, ascii);
                (!text.is_empty() && !text.starts_with('#'))
                    .then(|| parse_words(text, ascii, previous))
            };
            match plain_line(l, previous) {
                Some(p) => {
                    let p_label = p.label.is_some();
                    assert_eq!(
                        format!("{:?}", Some(Ok::<_, String>(p))),
                        format!("{general:?}"),
                        "{l:?}"
                    );
                    taken += 1;
                    labelled += usize::from(p_label);
                }
                None => left += 1,
            }
        }
    }
    assert!(
        taken > 5_000 && left > 5_000 && labelled > 500,
        "{taken} {left} {labelled}"
    );
}

/// A line that [`repeat_of`] finds to repeat the line before's FEN (its fields one space apart, perhaps one
/// space and a side word) is read by [`parse_borrowed_after`] as that FEN with that side word and nothing
/// else; the same fields with other spacing, a label, other words, other clocks or a carriage return are left
/// to the reader. Lines built from the fields of FENs of 4 and 6 fields, with side words, and of a CHA short
/// line.
#[test]
fn a_repeated_fen_is_read_as_the_fen_again() {
    let befores = [
        "8/8/8/4k3/8/8/3p4/4KN2 w - -",
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1 white",
        "WB 8/8/8/4k3/8/8/3p4/4KN2 w",
        "8/8/8/4k3/8/8/3p4/4KN2 w - - 12 40 BLACK",
    ];
    let tails = [
        "",
        " white",
        " black",
        " WHITE",
        " Black",
        "  white",
        " white ",
        "\twhite",
        " white\r",
        " whitey",
        " w",
        " 0 1",
        " 0 1 white",
        " ; id \"x\"",
        " 5",
        " -",
        " white black",
    ];
    let mut taken = 0;
    for before in befores {
        let b = parse_borrowed(1, before).unwrap().unwrap();
        let fields = b.fen.to_string();
        let fields: Vec<&str> = fields.split(' ').collect();
        let bodies = [
            fields.join(" "),
            fields.join("  "),
            format!("WB {}", fields.join(" ")),
            format!(" {}", fields.join(" ")),
            fields[..fields.len() - 1].join(" "),
            format!("8/8/8/4k3/8/8/3p4/4KN1 {}", fields[1..].join(" ")),
        ];
        for body in &bodies {
            for tail in tails {
                let l = format!("{body}{tail}");
                let Some(side) = repeat_of(&l, &b.fen) else {
                    continue;
                };
                let read = parse_borrowed_after(2, &l, Some((&b.fen, &b.setup)));
                let Some(Ok(p)) = read else {
                    panic!("{l:?} after {before:?}: {read:?}");
                };
                assert!(
                    p.fen == b.fen && p.side == side,
                    "{l:?} after {before:?}: {p:?}"
                );
                assert!(
                    p.label.is_none() && p.ops.is_empty() && p.plies.is_none(),
                    "{l:?}"
                );
                assert_eq!(p.setup, b.setup, "{l:?}");
                taken += 1;
            }
        }
    }
    // Per FEN: the fields one space apart, alone and with each of the four side words; and the two FENs that
    // end in `-` again as their fields but the last with the tail ` -`.
    assert_eq!(taken, 4 * 5 + 2);
}
