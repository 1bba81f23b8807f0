//! The lines of a position file split in one pass over its bytes, the line-length limit of
//! [`super::read`] checked on the way (`dead` reads files of a hundred thousand lines and more: splitting them
//! twice, once to check and once to read, was a twentieth of a `dead --scan`).

use super::{read, Error, Result, MAX_LINE_BYTES, MAX_POSITION_BYTES};
use std::path::Path;

/// [`read`] without its line-length check, for a reader that splits the lines with [`bounded_lines`], which
/// makes it as it splits them (one pass over the text instead of two).
///
/// # Errors
/// As [`read`], but for a line too long, which [`bounded_lines`] refuses.
pub fn read_unsplit(what: &str, path: &Path) -> Result<(String, String)> {
    if path == Path::new("-") {
        return read(what, path);
    }
    let name = path.display().to_string();
    let bytes = crate::files::read_input(what, path, MAX_POSITION_BYTES)?;
    let text = crate::files::utf8_text(bytes)
        .map_err(|why| Error::Usage(format!("cannot read {what} '{name}': {why}")))?;
    Ok((name, text))
}

/// [`numbered_lines`] of a text [`read_unsplit`] read from `name`, with the line-length check of [`read`] made
/// on the way (the same error): one pass over the bytes, each line's end found eight bytes at a time.
///
/// # Errors
/// [`Error::Usage`] naming `what`, the file and the first line longer than [`MAX_LINE_BYTES`].
pub fn bounded_lines<'a>(what: &str, name: &str, text: &'a str) -> Result<Vec<(usize, &'a str)>> {
    let b = text.as_bytes();
    let mut out = Vec::with_capacity(b.len() / 64 + 1);
    // A byte-order mark is skipped, and counted in the first line's length (as `read` counts it).
    let mut start = if text.starts_with('\u{feff}') { 3 } else { 0 };
    while start < b.len() {
        let end = next_newline(b, start).unwrap_or(b.len());
        let counted_from = if out.is_empty() { 0 } else { start };
        if end - counted_from > MAX_LINE_BYTES {
            let n = out.len() + 1;
            return Err(Error::Usage(format!(
                "cannot read {what} '{name}': line {n} is longer than the limit of {MAX_LINE_BYTES} bytes"
            )));
        }
        let mut line = &text[start..end];
        if end < b.len() {
            // `str::lines`: a carriage return before the line feed ends the line too.
            line = line.strip_suffix('\r').unwrap_or(line);
        }
        out.push((out.len() + 1, line));
        start = end + 1;
    }
    Ok(out)
}

/// The first line feed of `b` at or after `from`: eight bytes at a time (a zero byte of the word XOR line
/// feeds is a line feed; the lowest flagged byte is always a true one).
fn next_newline(b: &[u8], from: usize) -> Option<usize> {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGHS: u64 = 0x8080_8080_8080_8080;
    let mut i = from;
    while let Some(chunk) = b.get(i..i + 8) {
        let w = u64::from_le_bytes(chunk.try_into().expect("8 bytes")) ^ (ONES * u64::from(b'\n'));
        let zero = w.wrapping_sub(ONES) & !w & HIGHS;
        if zero != 0 {
            return Some(i + (zero.trailing_zeros() / 8) as usize);
        }
        i += 8;
    }
    b[i..].iter().position(|&c| c == b'\n').map(|k| i + k)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// On random texts of line feeds, carriage returns, byte-order marks, non-ASCII letters and lines at and
    /// over the length limit: the lines of [`crate::files::text_lines`] then [`super::super::numbered_lines`],
    /// or the same error.
    #[test]
    fn bounded_lines_are_the_checked_lines() {
        let alphabet = ["a", "b8/", "\n", "\r", "\r\n", "\u{feff}", "é", " ", "\n\n"];
        let mut state = 0x0DDB_1A5E_5BAD_5EEDu64;
        let mut next = move || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        let (mut long, mut ok) = (0, 0);
        for case in 0..4_000 {
            let mut t = String::new();
            if case % 7 == 0 {
                t.push('\u{feff}');
            }
            for k in 0..next() % 50 {
                t.push_str(alphabet[(next() % alphabet.len() as u64) as usize]);
                if case % 400 == 0 && k == 3 {
                    t.push_str(&"x".repeat(MAX_LINE_BYTES - 2 + (next() % 4) as usize));
                }
            }
            let old = crate::files::text_lines(t.clone().into_bytes())
                .map(|_| super::super::numbered_lines(&t).collect::<Vec<_>>());
            match (old, bounded_lines("positions file", "f", &t)) {
                (Ok(a), Ok(b)) => {
                    assert_eq!(a, b, "{t:?}");
                    ok += 1;
                }
                (Err(why), Err(Error::Usage(m))) => {
                    assert_eq!(m, format!("cannot read positions file 'f': {why}"));
                    long += 1;
                }
                (a, b) => panic!("{a:?} {b:?}"),
            }
        }
        assert!(long >= 2 && ok > 3_000, "{long} {ok}");
    }

    /// The word-wise search finds the first line feed from every start, as a byte-wise one does.
    #[test]
    fn next_newline_is_the_first_line_feed() {
        let text = b"abc\ndefghijklmnop\n\nqrstuvwxyz0123456789\n\xff\x8a\x0a\x0b\x09x";
        for from in 0..=text.len() {
            let expected = text[from..]
                .iter()
                .position(|&c| c == b'\n')
                .map(|k| from + k);
            assert_eq!(next_newline(text, from), expected, "{from}");
        }
    }
}
