//! Pictures of the bugs perftlab finds: self-contained SVG boards ([`board`]) and HTML reports
//! ([`report`]). Everything is written as text with no external fonts, images or scripts, so a file renders
//! the same offline in any browser. (Bench plots use the `plotters` crate; see the `bench` command.)

pub mod board;
pub mod plot;
pub mod report;

/// Escape text for XML/HTML content and attribute values.
pub fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}
