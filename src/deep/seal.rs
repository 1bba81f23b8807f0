//! Checksums (SHA-256, `sha2` crate) on JSON records and files, exact u128 numbers in JSON, and atomic writes.
//!
//! A sealed record is a JSON object with a `sha256` field: the hex SHA-256 of the object's canonical text
//! without that field (serde_json writes object keys sorted, numbers exactly as parsed), so any edit of a value,
//! a key or a number shows up as a mismatch.

use crate::error::{Error, Result};
use serde_json::{Map, Value};
use sha2::{Digest, Sha256};
use std::collections::BTreeMap;
use std::path::Path;

/// Hex SHA-256 of some bytes.
pub fn sha256_hex(bytes: &[u8]) -> String {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    let digest = Sha256::digest(bytes);
    let mut s = String::with_capacity(64);
    for b in digest {
        s.push(HEX[(b >> 4) as usize] as char);
        s.push(HEX[(b & 15) as usize] as char);
    }
    s
}

/// Whether serde_json writes `s` as a JSON string unchanged between its quotes: printable ASCII without a quote or
/// a backslash (FEN text, move names, hex checksums).
pub fn is_plain_json_str(s: &str) -> bool {
    s.bytes()
        .all(|b| (0x20..0x7f).contains(&b) && b != b'"' && b != b'\\')
}

/// Append `s` as serde_json writes a JSON string (its quotes, and its escapes when it has any).
pub fn push_json_str(out: &mut String, s: &str) {
    if is_plain_json_str(s) {
        out.push('"');
        out.push_str(s);
        out.push('"');
    } else {
        out.push_str(&Value::from(s).to_string());
    }
}

/// An object's fields but `sha256`, serialized as the object without that field would be (serde_json's
/// text of a map: keys in order), without copying the object (journals and results seal and check one
/// record per position).
struct Unsealed<'a>(&'a Map<String, Value>);

impl serde::Serialize for Unsealed<'_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        s.collect_map(self.0.iter().filter(|(k, _)| k.as_str() != "sha256"))
    }
}

/// The hex SHA-256 of an object's text without its `sha256` field.
fn content_sha(obj: &Map<String, Value>) -> String {
    sha256_hex(
        serde_json::to_string(&Unsealed(obj))
            .unwrap_or_default()
            .as_bytes(),
    )
}

/// Add the `sha256` field to a JSON object (replacing an old one).
pub fn seal(mut obj: Map<String, Value>) -> Value {
    let sum = content_sha(&obj);
    obj.insert("sha256".into(), Value::String(sum));
    Value::Object(obj)
}

/// The text of [`seal`]`(obj)` for the object whose fields are `fields` (key, the value's JSON text as
/// `serde_json` writes it), made without the object: a result file's thousands of positions are written as
/// text instead of as a tree of JSON values.
pub fn sealed_text(mut fields: BTreeMap<&str, String>) -> String {
    fn object(fields: &BTreeMap<&str, String>) -> String {
        let mut s = String::from("{");
        for (n, (k, v)) in fields.iter().enumerate() {
            if n > 0 {
                s.push(',');
            }
            push_json_str(&mut s, k);
            s.push(':');
            s.push_str(v);
        }
        s.push('}');
        s
    }
    fields.remove("sha256");
    let sum = sha256_hex(object(&fields).as_bytes());
    fields.insert("sha256", format!("\"{sum}\""));
    object(&fields)
}

/// Whether a JSON value is an object whose `sha256` field matches its contents.
pub fn is_sealed(v: &Value) -> bool {
    let Some(obj) = v.as_object() else {
        return false;
    };
    let Some(Value::String(sum)) = obj.get("sha256") else {
        return false;
    };
    content_sha(obj) == *sum
}

/// A JSON number as u128 (exact beyond u64: serde_json keeps the digits with `arbitrary_precision`).
pub fn as_u128(v: &Value) -> Option<u128> {
    match v {
        Value::Number(n) => n.as_u64().map(u128::from).or_else(|| {
            let t = n.to_string();
            if t.bytes().all(|b| b.is_ascii_digit()) {
                t.parse().ok()
            } else {
                None
            }
        }),
        _ => None,
    }
}

/// A u128 as an exact JSON integer.
pub fn u128_value(n: u128) -> Value {
    match u64::try_from(n) {
        Ok(small) => Value::from(small),
        Err(_) => serde_json::from_str(&n.to_string()).expect("digits are a JSON number"),
    }
}

/// Write a file atomically (see [`crate::files::write_atomic`]): a reader (or a crash) sees the old file or
/// the new one, never a part.
///
/// # Errors
/// [`Error::Usage`] naming the path and the I/O error.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> Result<()> {
    crate::files::write_atomic(path, bytes)
        .map_err(|e| Error::Usage(format!("{}: {e}", path.display())))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sha256_hex_is_the_published_digest() {
        // FIPS 180-2, appendix B.1: SHA-256("abc").
        assert_eq!(
            sha256_hex(b"abc"),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
    }

    #[test]
    fn seal_detects_any_edit() {
        let mut m = Map::new();
        m.insert("nodes".into(), u128_value(119_060_324));
        m.insert("shard".into(), Value::from(3));
        let v = seal(m);
        assert!(is_sealed(&v));
        let text = v.to_string().replace("119060324", "119060325");
        let edited: Value = serde_json::from_str(&text).unwrap();
        assert!(!is_sealed(&edited));
    }

    #[test]
    fn the_checksum_is_of_the_objects_text_without_its_sha256_field() {
        // As journals and results written before were sealed: the SHA-256 of `Value::Object` without the field.
        let mut m = Map::new();
        m.insert("zeta".into(), Value::from("last"));
        m.insert("i".into(), Value::from(7));
        m.insert("nodes".into(), u128_value(2_015_099_950_053_364_471_960));
        m.insert("sha256".into(), Value::from("an old sum"));
        let mut rest = m.clone();
        rest.remove("sha256");
        let want = sha256_hex(Value::Object(rest).to_string().as_bytes());
        let v = seal(m);
        assert_eq!(v["sha256"], Value::from(want));
        assert!(is_sealed(&v));
    }

    #[test]
    fn sealed_text_is_the_text_of_the_sealed_object() {
        let mut m = Map::new();
        m.insert("zeta".into(), Value::from("last \"quoted\""));
        m.insert(
            "positions".into(),
            serde_json::json!([{"i": 3, "nodes": 8902}, {"i": 0, "nodes": 20}]),
        );
        m.insert("nodes".into(), u128_value(2_015_099_950_053_364_471_960));
        m.insert("seconds".into(), serde_json::json!(0.125));
        m.insert("tag".into(), Value::Null);
        m.insert("sha256".into(), Value::from("an old sum"));
        let texts = m.iter().map(|(k, v)| (k.as_str(), v.to_string())).collect();
        let got = sealed_text(texts);
        assert_eq!(got, seal(m).to_string());
        assert!(is_sealed(&serde_json::from_str(&got).unwrap()));
    }

    #[test]
    fn numbers_beyond_u64_are_written_and_read_exactly() {
        // Start position perft 15 (2,015,099,950,053,364,471,960; CPW "Perft Results") exceeds u64.
        let big: u128 = 2_015_099_950_053_364_471_960;
        let v = serde_json::json!({ "nodes": u128_value(big), "also": big });
        let text = v.to_string();
        assert!(text.contains("\"nodes\":2015099950053364471960"), "{text}");
        assert!(text.contains("\"also\":2015099950053364471960"), "{text}");
        let back: Value = serde_json::from_str(&text).unwrap();
        assert_eq!(as_u128(&back["nodes"]), Some(big));
        assert_eq!(as_u128(&serde_json::json!(1.5)), None);
        assert_eq!(as_u128(&serde_json::json!(-3)), None);
    }
}
