//! The one reader of position files: `suite`, `verify --suite`, `dead`, `reachable`, `compare --suite` and
//! `stress --kinds suite` read their lines here, so a line that one command takes every other one takes too
//! (or refuses with the same words). (The web page pastes no positions: its paste is a Stockfish divide, read
//! by the one divide reader, `engines::DivideReader`.)
//!
//! Reading ([`read`]): a regular file (or standard input for `-`) of at most [`MAX_POSITION_BYTES`], no line
//! longer than [`crate::files::MAX_LINE_BYTES`], UTF-8. Standard input is read line by line and refused at
//! the first line or byte over a limit, so `/dev/zero` (no newline) is refused after 64 KiB and an endless
//! stream after [`MAX_POSITION_BYTES`]; a device, FIFO or directory named as the file is refused before any
//! byte is read, and a regular file longer than the limit by its size. A batch reader (`dead`) reads with
//! [`read_unsplit`] and splits with [`bounded_lines`], which checks the line lengths as it splits (the same
//! limits and errors, one pass fewer).
//!
//! The grammar of one line ([`parse_line`]), after surrounding whitespace is removed:
//! - blank lines and lines starting with `#` are skipped; a UTF-8 byte-order mark before the first line too;
//! - an optional label of the Chess Unwinnability Analyzer's test vectors: two characters, `W`, `-` or `?`
//!   then `B`, `-` or `?` (`WB`, `W-`, `-B`, `--`), perhaps a third `?`, before the FEN; after a label a FEN
//!   of only the placement and the side to move (as some of CHA's vectors give) means no castling, no e.p.;
//! - the FEN: four fields (EPD), or six when the two after the fourth are numbers (the move clocks);
//! - EPD operations (the EPD standard's grammar): after a 4-field FEN directly, after a 6-field FEN only
//!   with a `;` among them (`FEN ;D1 20 ;D2 400`, the perft suites' convention, or `FEN id "x"; D1 20;`); each is an opcode (a letter, then letters,
//!   digits or `_`, at most 15) and its operands, ended by `;` (the last one may lack it); a double-quoted
//!   operand may hold spaces and `;`;
//! - an optional trailing word, after the FEN or after a `;`: a side, `white` or `black` in any case, or a ply
//!   count (digits).
//!
//! Anything else (`… 0 1 garbage words here`) is an error naming the line number and its text. Whether a
//! command uses a side, a ply count or operations is the command's business ([`Record::refuse_extras`]).

use crate::error::{Error, Result};
use crate::files::MAX_LINE_BYTES;
use crate::position::{FenError, Pieces, Setup};
use crate::types::Color;
use std::io::BufRead;
use std::path::Path;

/// Largest position file read: 64 MiB (about a million positions).
pub const MAX_POSITION_BYTES: u64 = 64 << 20;

/// One EPD operation: the opcode and its operands (quotes removed).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Operation {
    /// The opcode (`D1`, `id`, `bm`, `c0` …).
    pub opcode: String,
    /// The operands, a quoted one without its quotes.
    pub operands: Vec<String>,
}

/// One position line.
#[derive(Clone, Debug)]
pub struct Record {
    /// 1-based line number.
    pub line: usize,
    /// The line as typed (without surrounding whitespace).
    pub text: String,
    /// The label of CHA's test vectors (`WB`, `W-`, `-B`, `--`, with `?` for a side not known), if any.
    pub label: Option<String>,
    /// The FEN as typed (its 4 or 6 fields, one space apart).
    pub fen: String,
    /// The position (FEN syntax checked; not yet validated).
    pub setup: Setup,
    /// The EPD operations, in order.
    pub ops: Vec<Operation>,
    /// The trailing side word, if any.
    pub side: Option<Color>,
    /// The trailing ply count, if any.
    pub plies: Option<u32>,
}

/// A line that cannot be read: its number, its text and why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LineError {
    /// 1-based line number.
    pub line: usize,
    /// The line as typed (without surrounding whitespace).
    pub text: String,
    /// Why.
    pub why: String,
}

impl std::fmt::Display for LineError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "line {} '{}': {}", self.line, self.text, self.why)
    }
}

impl LineError {
    /// The error as a usage error of the file `name` (`name:LINE: malformed line 'TEXT': WHY`).
    pub fn in_file(&self, name: &str) -> Error {
        Error::Usage(format!(
            "{name}:{}: malformed line '{}': {}",
            self.line, self.text, self.why
        ))
    }
}

impl Record {
    /// Refuse what the command does not use: a side word unless `side`, a ply count unless `plies`.
    ///
    /// # Errors
    /// A [`LineError`] naming the word.
    pub fn refuse_extras(&self, side: bool, plies: bool) -> std::result::Result<(), LineError> {
        extras_error(self.side, self.plies, side, plies).map_or(Ok(()), |why| {
            Err(LineError {
                line: self.line,
                text: self.text.clone(),
                why,
            })
        })
    }

    /// The operands of the first operation `opcode`, if any.
    pub fn op(&self, opcode: &str) -> Option<&[String]> {
        self.ops
            .iter()
            .find(|o| o.opcode == opcode)
            .map(|o| o.operands.as_slice())
    }
}

/// A word of a line, borrowed from it: plain, a double-quoted string (quotes removed), or the `;` separator.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Word<'a> {
    Plain(&'a str),
    Quoted(&'a str),
    Semi,
}

impl<'a> Word<'a> {
    fn plain(&self) -> Option<&'a str> {
        match *self {
            Word::Plain(s) => Some(s),
            _ => None,
        }
    }

    fn text(&self) -> &'a str {
        match *self {
            Word::Plain(s) | Word::Quoted(s) => s,
            Word::Semi => ";",
        }
    }
}

/// The words of a line: whitespace separates, a double-quoted string is one word, `;` is a word of its own.
/// Each word is a slice of the line (nothing is copied). An ASCII line (every FEN, nearly every line) is read
/// byte by byte ([`ascii_words`]: the same words as the characters give, without decoding UTF-8: a tenth of a
/// `dead --scan` of real positions was that decoding), and the words of a short line are kept in place
/// ([`Words`]: no allocation per line).
fn words(line: &str, ascii: bool) -> std::result::Result<Words<'_>, String> {
    if ascii {
        ascii_words(line)
    } else {
        words_of(line, line.char_indices())
    }
}

/// Words of a line kept in place: a FEN line has 4 to 8 of them.
const INLINE_WORDS: usize = 12;

/// The words of a line: up to [`INLINE_WORDS`] in place, more on the heap. The in-place variant is the large
/// one on purpose: a value of this type lives on the stack for one line, and the point is no allocation per line.
#[allow(clippy::large_enum_variant)]
enum Words<'a> {
    Inline([Word<'a>; INLINE_WORDS], usize),
    Heap(Vec<Word<'a>>),
}

impl<'a> Words<'a> {
    fn new() -> Words<'a> {
        Words::Inline([Word::Semi; INLINE_WORDS], 0)
    }

    fn push(&mut self, w: Word<'a>) {
        match self {
            Words::Inline(a, n) if *n < INLINE_WORDS => {
                a[*n] = w;
                *n += 1;
            }
            Words::Inline(a, n) => {
                let mut v = a[..*n].to_vec();
                v.push(w);
                *self = Words::Heap(v);
            }
            Words::Heap(v) => v.push(w),
        }
    }

    fn as_slice(&self) -> &[Word<'a>] {
        match self {
            Words::Inline(a, n) => &a[..*n],
            Words::Heap(v) => v,
        }
    }
}

/// Whether the ASCII byte `b` is white space as `char::is_whitespace` has it (tab, line feed, vertical tab,
/// form feed, carriage return, space).
fn is_ascii_space(b: u8) -> bool {
    matches!(b, b'\t'..=b'\r' | b' ')
}

/// `raw` without surrounding white space, as `str::trim` gives it: for an ASCII line byte by byte.
fn trim_line(raw: &str, ascii: bool) -> &str {
    if !ascii {
        return raw.trim();
    }
    let b = raw.as_bytes();
    let start = b
        .iter()
        .position(|&c| !is_ascii_space(c))
        .unwrap_or(b.len());
    let end = b
        .iter()
        .rposition(|&c| !is_ascii_space(c))
        .map_or(start, |i| i + 1);
    &raw[start..end]
}

/// [`words`] of an ASCII line, byte by byte: the words [`words_of`] finds in its characters (compared in the
/// tests on lines of every special byte).
fn ascii_words(line: &str) -> std::result::Result<Words<'_>, String> {
    let b = line.as_bytes();
    let mut out = Words::new();
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'"' => {
                let Some(len) = b[i + 1..].iter().position(|&c| c == b'"') else {
                    return Err("a quoted string is not closed".into());
                };
                out.push(Word::Quoted(&line[i + 1..i + 1 + len]));
                i += len + 2;
            }
            b';' => {
                out.push(Word::Semi);
                i += 1;
            }
            c if is_ascii_space(c) => i += 1,
            _ => {
                let start = i;
                while i < b.len() && !matches!(b[i], b'"' | b';') && !is_ascii_space(b[i]) {
                    i += 1;
                }
                out.push(Word::Plain(&line[start..i]));
            }
        }
    }
    Ok(out)
}

/// [`words`] over the characters of `line` with their byte offsets.
fn words_of<'a>(
    line: &'a str,
    mut chars: impl Iterator<Item = (usize, char)>,
) -> std::result::Result<Words<'a>, String> {
    let mut out = Words::new();
    let mut start = None;
    let flush = |start: &mut Option<usize>, end: usize, out: &mut Words<'a>| {
        if let Some(s) = start.take() {
            out.push(Word::Plain(&line[s..end]));
        }
    };
    while let Some((i, c)) = chars.next() {
        match c {
            '"' => {
                flush(&mut start, i, &mut out);
                let from = i + 1;
                let close = chars.find(|&(_, c)| c == '"');
                let Some((to, _)) = close else {
                    return Err("a quoted string is not closed".into());
                };
                out.push(Word::Quoted(&line[from..to]));
            }
            ';' => {
                flush(&mut start, i, &mut out);
                out.push(Word::Semi);
            }
            c if c.is_whitespace() => flush(&mut start, i, &mut out),
            _ => {
                start.get_or_insert(i);
            }
        }
    }
    flush(&mut start, line.len(), &mut out);
    Ok(out)
}

fn is_label(w: &str) -> bool {
    let b = w.as_bytes();
    (b.len() == 2 || b.len() == 3 && b[2] == b'?')
        && matches!(b[0], b'W' | b'-' | b'?')
        && matches!(b[1], b'B' | b'-' | b'?')
}

fn is_number(w: &str) -> bool {
    !w.is_empty() && w.len() <= 9 && w.bytes().all(|b| b.is_ascii_digit())
}

fn side_word(w: &str) -> Option<Color> {
    if w.eq_ignore_ascii_case("white") {
        Some(Color::White)
    } else if w.eq_ignore_ascii_case("black") {
        Some(Color::Black)
    } else {
        None
    }
}

fn valid_opcode(w: &str) -> bool {
    w.len() <= 15
        && w.starts_with(|c: char| c.is_ascii_alphabetic())
        && w.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_')
}

/// The EPD operations of `words` (the part after the FEN, the trailing word removed).
fn operations(words: &[Word]) -> std::result::Result<Vec<Operation>, String> {
    let mut ops = Vec::new();
    for op in words.split(|w| *w == Word::Semi) {
        let Some((opcode, operands)) = op.split_first() else {
            continue;
        };
        match opcode.plain() {
            Some(code) if valid_opcode(code) => ops.push(Operation {
                opcode: code.to_string(),
                operands: operands.iter().map(|w| w.text().to_string()).collect(),
            }),
            _ => {
                let shown: Vec<&str> = op.iter().map(Word::text).collect();
                return Err(format!(
                    "bad operation '{}' (an EPD opcode such as D1, id or bm, then its operands)",
                    shown.join(" ")
                ));
            }
        }
    }
    Ok(ops)
}

/// A FEN's fields as slices of a line: 4 or 6 of them; shown one space apart.
#[derive(Clone, Copy, Debug)]
pub struct FenWords<'a> {
    words: [&'a str; 6],
    len: usize,
}

impl<'a> FenWords<'a> {
    /// The placement field. The reader takes one text for each board only (a digit per run of empty squares,
    /// never two digits in a row: `fen::parse_board`), so two placements that read are the same board exactly
    /// when they are the same text.
    pub fn placement(&self) -> &'a str {
        self.words[0]
    }
}

/// The side word (`None`: none) of a line that is exactly `previous`'s FEN fields one space apart, perhaps
/// followed by one space and a side word (`white` or `black`, in any case): the line that
/// [`parse_borrowed_after`] reads as `previous`'s FEN with that side word and nothing else (files that ask for
/// each side of a position on a line of its own), found without splitting the line into a record or reading
/// its FEN; `None` for any other line, which the reader reads.
pub fn repeat_of(raw: &str, previous: &FenWords) -> Option<Option<Color>> {
    let b = raw.as_bytes();
    let mut at = 0;
    for (k, field) in previous.words[..previous.len].iter().enumerate() {
        if k > 0 {
            (b.get(at) == Some(&b' ')).then_some(())?;
            at += 1;
        }
        b[at..].starts_with(field.as_bytes()).then_some(())?;
        at += field.len();
    }
    if at == b.len() {
        return Some(None);
    }
    (b[at] == b' ').then_some(())?;
    Some(Some(side_word(&raw[at + 1..])?))
}

/// Equal when the fields are the same text (so the same position: parsing is a function of the text).
impl PartialEq for FenWords<'_> {
    fn eq(&self, other: &FenWords<'_>) -> bool {
        self.words[..self.len] == other.words[..other.len]
    }
}

impl Eq for FenWords<'_> {}

impl std::fmt::Display for FenWords<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        for (i, w) in self.words[..self.len].iter().enumerate() {
            if i > 0 {
                f.write_str(" ")?;
            }
            f.write_str(w)?;
        }
        Ok(())
    }
}

/// One position line as slices of the file's text, before anything is copied: what [`parse_line`] reads
/// (the same grammar; a [`Record`] is its owned form). Batch commands over large files (`dead`) keep these
/// and build the FEN text only for the answers they print.
#[derive(Clone, Debug)]
pub struct Parsed<'a> {
    /// The line as typed (without surrounding whitespace).
    pub text: &'a str,
    /// The label of CHA's test vectors, if any.
    pub label: Option<&'a str>,
    /// The FEN's fields (a short CHA line's castling and e.p. fields are `-`).
    pub fen: FenWords<'a>,
    /// The position (FEN syntax checked; not yet validated).
    pub setup: Setup,
    /// Its pieces ([`Setup::pieces`]), gathered as the placement was read.
    pub pieces: Pieces,
    /// The EPD operations, in order (no allocation when there are none).
    pub ops: Vec<Operation>,
    /// The trailing side word, if any.
    pub side: Option<Color>,
    /// The trailing ply count, if any.
    pub plies: Option<u32>,
}

impl Parsed<'_> {
    /// The owned [`Record`] of line `line`.
    pub fn into_record(self, line: usize) -> Record {
        Record {
            line,
            text: self.text.to_string(),
            label: self.label.map(str::to_string),
            fen: self.fen.to_string(),
            setup: self.setup,
            ops: self.ops,
            side: self.side,
            plies: self.plies,
        }
    }

    /// [`Record::refuse_extras`] for a line not yet copied.
    ///
    /// # Errors
    /// As [`Record::refuse_extras`].
    pub fn refuse_extras(
        &self,
        line: usize,
        side: bool,
        plies: bool,
    ) -> std::result::Result<(), LineError> {
        extras_error(self.side, self.plies, side, plies).map_or(Ok(()), |why| {
            Err(LineError {
                line,
                text: self.text.to_string(),
                why,
            })
        })
    }
}

/// Why a side word or a ply count is refused by a command that takes none (`side`, `plies`: what it takes).
fn extras_error(
    got_side: Option<Color>,
    got_plies: Option<u32>,
    side: bool,
    plies: bool,
) -> Option<String> {
    if let (Some(c), false) = (got_side, side) {
        return Some(format!(
            "unexpected side word '{}' after the FEN (this command takes none)",
            c.name()
        ));
    }
    if let (Some(n), false) = (got_plies, plies) {
        return Some(format!(
            "unexpected number '{n}' after the FEN (this command takes no ply count)"
        ));
    }
    None
}

/// Parse one line (`line_no` is 1-based); `None` for a blank or comment line.
pub fn parse_line(line_no: usize, raw: &str) -> Option<std::result::Result<Record, LineError>> {
    parse_borrowed(line_no, raw).map(|r| r.map(|p| p.into_record(line_no)))
}

/// [`parse_line`] without copying: the line's parts as slices of `raw`.
pub fn parse_borrowed(
    line_no: usize,
    raw: &str,
) -> Option<std::result::Result<Parsed<'_>, LineError>> {
    parse_borrowed_after(line_no, raw, None)
}

/// [`parse_borrowed`] for a line that may repeat the FEN of the line before (files that ask for each side of
/// a position on a line of its own): when its FEN's fields are the text of `previous`'s fields, its position
/// is a copy of `previous`'s setup (the same text parses to the same position) and is not parsed again. The
/// same answer as [`parse_borrowed`] for every line, errors included.
pub fn parse_borrowed_after<'a>(
    line_no: usize,
    raw: &'a str,
    previous: Option<(&FenWords, &Setup)>,
) -> Option<std::result::Result<Parsed<'a>, LineError>> {
    if let Some(p) = plain_line(raw, previous) {
        return Some(Ok(p));
    }
    let ascii = raw.is_ascii();
    let text = trim_line(raw, ascii);
    if text.is_empty() || text.starts_with('#') {
        return None;
    }
    Some(parse_words(text, ascii, previous).map_err(|why| LineError {
        line: line_no,
        text: text.to_string(),
        why,
    }))
}

/// Most words a [`plain_line`] has: a label, a 6-field FEN and a side word.
const PLAIN_WORDS: usize = 8;

/// What a byte is to [`plain_line`].
#[derive(Clone, Copy)]
enum PlainByte {
    /// Part of a word: printable ASCII but `"` and `;`.
    Word,
    /// The space between words.
    Space,
    /// Anything else: the line is left to the general reader.
    Other,
}

/// [`PlainByte`] of every byte, built at compile time.
static PLAIN_BYTE: [PlainByte; 256] = {
    let mut t = [PlainByte::Other; 256];
    let mut c = 0usize;
    while c < 256 {
        let b = c as u8;
        if b == b' ' {
            t[c] = PlainByte::Space;
        } else if b.is_ascii_graphic() && b != b'"' && b != b';' {
            t[c] = PlainByte::Word;
        }
        c += 1;
    }
    t
};

/// The common shape of a line read in one pass over its bytes: printable ASCII words (no `"`, no `;`)
/// separated by spaces, perhaps a label (CHA's test vectors: every line of its `lichess.txt`), a FEN of 4
/// fields or of 6 with the clocks, then perhaps a side word; `None` for any other line (and for a FEN that
/// does not read), which [`parse_words`] reads (so the errors are its own). On the lines it takes, the same
/// [`Parsed`] as [`parse_words`] (compared in the tests on random lines of these words and of the bytes that
/// end the shape): the general reader's three passes (the ASCII test, the trimming, the words kept in a
/// [`Words`]) were a quarter of a `dead --scan` of real positions.
fn plain_line<'a>(raw: &'a str, previous: Option<(&FenWords, &Setup)>) -> Option<Parsed<'a>> {
    let mut spans = [(0usize, 0usize); PLAIN_WORDS];
    let (mut n, mut start) = (0, None);
    for (i, &c) in raw.as_bytes().iter().enumerate() {
        match (PLAIN_BYTE[usize::from(c)], start) {
            (PlainByte::Word, None) => start = Some(i),
            (PlainByte::Space, Some(s)) => {
                *spans.get_mut(n)? = (s, i);
                n += 1;
                start = None;
            }
            (PlainByte::Word | PlainByte::Space, _) => {}
            (PlainByte::Other, _) => return None,
        }
    }
    if let Some(s) = start {
        *spans.get_mut(n)? = (s, raw.len());
        n += 1;
    }
    let b = raw.as_bytes();
    if n < 4 || b[spans[0].0] == b'#' {
        return None;
    }
    let word = |k: usize| &raw[spans[k].0..spans[k].1];
    // The FEN's first word: after the label, if any (only one: `parse_words` takes one).
    let (label, at) = if is_label(word(0)) {
        (Some(word(0)), 1)
    } else {
        (None, 0)
    };
    let digits = |k: usize| word(at + k).bytes().all(|c| c.is_ascii_digit());
    let (len, side) = match n - at {
        4 => (4, None),
        5 => (4, Some(side_word(word(at + 4))?)),
        6 if digits(4) && digits(5) => (6, None),
        7 if digits(4) && digits(5) => (6, Some(side_word(word(at + 6))?)),
        _ => return None,
    };
    let mut words = [""; 6];
    for (k, slot) in words.iter_mut().enumerate().take(len) {
        *slot = word(at + k);
    }
    let fen = FenWords { words, len };
    let (setup, pieces) = setup_of(&fen, previous).ok()?;
    Some(Parsed {
        text: &raw[spans[0].0..spans[n - 1].1],
        label,
        fen,
        setup,
        pieces,
        ops: Vec::new(),
        side,
        plies: None,
    })
}

/// The position of the FEN words `fen`: a copy of the previous line's when its words are the same (consecutive
/// queries of one position read it once), else read from the fields (the one place both readers do it), with
/// its pieces.
fn setup_of(
    fen: &FenWords,
    previous: Option<(&FenWords, &Setup)>,
) -> std::result::Result<(Setup, Pieces), FenError> {
    match previous {
        Some((words, setup)) if words == fen => Ok((setup.clone(), setup.pieces())),
        _ => Setup::from_fields_with_pieces(&fen.words[..fen.len]),
    }
}

/// [`parse_borrowed_after`] of a line without surrounding white space (`ascii`: all its bytes are ASCII).
fn parse_words<'a>(
    text: &'a str,
    ascii: bool,
    previous: Option<(&FenWords, &Setup)>,
) -> std::result::Result<Parsed<'a>, String> {
    let all = words(text, ascii)?;
    let mut w = all.as_slice();
    let label = match w.first().and_then(Word::plain) {
        Some(l) if is_label(l) => {
            w = &w[1..];
            Some(l)
        }
        _ => None,
    };
    let short;
    if label.is_some() && w.len() == 2 && w.iter().all(|x| x.plain().is_some()) {
        // CHA's vectors sometimes give only the placement and the side to move: no castling, no e.p.
        short = [w[0], w[1], Word::Plain("-"), Word::Plain("-")];
        w = &short;
    }
    let given = w.iter().map_while(Word::plain).take(4).count();
    if given < 4 {
        // Let the FEN parser name the field that is missing or wrong.
        let fen_words: Vec<&str> = w.iter().map_while(Word::plain).take(4).collect();
        let e = Setup::from_fen(&fen_words.join(" ")).err();
        return Err(e.map_or_else(
            || "expected a FEN (4 or 6 fields) at the start of the line".to_string(),
            |e| e.to_string(),
        ));
    }
    let clocks = w.len() >= 6
        && w[4..6].iter().all(|x| {
            x.plain()
                .is_some_and(|s| s.bytes().all(|b| b.is_ascii_digit()))
        });
    let n = if clocks { 6 } else { 4 };
    let mut fen_words = [""; 6];
    for (slot, word) in fen_words.iter_mut().zip(&w[..n]) {
        *slot = word.text();
    }
    let fen = FenWords {
        words: fen_words,
        len: n,
    };
    let (setup, pieces) = setup_of(&fen, previous).map_err(|e| e.to_string())?;
    let mut rest = &w[n..];
    // The trailing word: after the FEN or after a `;`.
    let (mut side, mut plies) = (None, None);
    if let Some(last) = rest.last().and_then(Word::plain) {
        let after_sep = rest.len() == 1 || rest[rest.len() - 2] == Word::Semi;
        if after_sep {
            if let Some(c) = side_word(last) {
                side = Some(c);
            } else if is_number(last) {
                plies = Some(last.parse().expect("digits"));
            }
            if side.is_some() || plies.is_some() {
                rest = &rest[..rest.len() - 1];
            }
        }
    }
    if clocks && !rest.is_empty() && !rest.contains(&Word::Semi) {
        return Err(format!(
            "unexpected text '{}' after the FEN (operations after the move clocks end with ';', \
             a trailing word is 'white', 'black' or a ply count)",
            rest.iter().map(Word::text).collect::<Vec<_>>().join(" ")
        ));
    }
    let ops = operations(rest)?;
    Ok(Parsed {
        text,
        label,
        fen,
        setup,
        pieces,
        ops,
        side,
        plies,
    })
}

/// Parse every line of `text` (a byte-order mark skipped): the records and the line errors, in line order.
pub fn parse_text(text: &str) -> Vec<std::result::Result<Record, LineError>> {
    numbered_lines(text)
        .filter_map(|(n, l)| parse_line(n, l))
        .collect()
}

/// The lines of `text` with their 1-based numbers, a byte-order mark before the first one skipped.
pub fn numbered_lines(text: &str) -> impl Iterator<Item = (usize, &str)> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    text.lines().enumerate().map(|(i, l)| (i + 1, l))
}

/// Parse every line of `text`; the first bad line is an error in the file `name`, and so is a text without
/// any position.
///
/// # Errors
/// [`Error::Usage`] naming the file, the line number and its text.
pub fn parse_all(name: &str, text: &str) -> Result<Vec<Record>> {
    let records = parse_text(text)
        .into_iter()
        .collect::<std::result::Result<Vec<_>, _>>()
        .map_err(|e| e.in_file(name))?;
    if records.is_empty() {
        return Err(no_positions(name));
    }
    Ok(records)
}

/// The error of an input without any position.
pub fn no_positions(name: &str) -> Error {
    Error::Usage(format!(
        "{name}: no positions (the input is empty or only comments)"
    ))
}

/// Read a position file, `-` for standard input, within the limits (module header); `what` names it in
/// errors (`positions file`). Returns the name to show in messages (`-` for standard input) and the text.
///
/// # Errors
/// [`Error::Io`] or [`Error::Usage`] naming `what`, the path and the limit or line that was exceeded.
pub fn read(what: &str, path: &Path) -> Result<(String, String)> {
    read_limited(what, path, MAX_POSITION_BYTES)
}

/// [`read`] with another size limit.
///
/// # Errors
/// As [`read`].
pub fn read_limited(what: &str, path: &Path, max_bytes: u64) -> Result<(String, String)> {
    if path == Path::new("-") {
        let text = read_lines(std::io::stdin().lock(), max_bytes).map_err(|why| {
            Error::Usage(format!("cannot read {what} from standard input: {why}"))
        })?;
        return Ok(("-".into(), text));
    }
    let name = path.display().to_string();
    let bytes = crate::files::read_input(what, path, max_bytes)?;
    let text = crate::files::text_lines(bytes)
        .map_err(|why| Error::Usage(format!("cannot read {what} '{name}': {why}")))?;
    Ok((name, text))
}

/// Read `r` line by line: at most `max_bytes` in all, no line longer than [`MAX_LINE_BYTES`], UTF-8. Stops
/// at the first byte over a limit.
///
/// # Errors
/// The limit exceeded (with the line number), a line that is not UTF-8, or the I/O error.
pub fn read_lines(mut r: impl BufRead, max_bytes: u64) -> std::result::Result<String, String> {
    let mut text = String::new();
    let mut line = Vec::new();
    let mut n = 0usize;
    loop {
        line.clear();
        n += 1;
        let limit = MAX_LINE_BYTES as u64 + 2;
        let got = std::io::Read::take(&mut r, limit)
            .read_until(b'\n', &mut line)
            .map_err(|e| e.to_string())?;
        if got == 0 {
            return Ok(text);
        }
        let body = line.strip_suffix(b"\n").unwrap_or(&line);
        let body = body.strip_suffix(b"\r").unwrap_or(body);
        if body.len() > MAX_LINE_BYTES {
            return Err(format!(
                "line {n} is longer than the limit of {MAX_LINE_BYTES} bytes"
            ));
        }
        if (text.len() + line.len()) as u64 > max_bytes {
            return Err(format!(
                "it is longer than the limit of {max_bytes} bytes (at line {n})"
            ));
        }
        let s = std::str::from_utf8(&line).map_err(|_| format!("line {n} is not UTF-8 text"))?;
        text.push_str(s);
    }
}

mod split;
pub use split::{bounded_lines, read_unsplit};

#[cfg(test)]
mod tests;
