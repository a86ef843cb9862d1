//! A differential test of the JSONL reader: chunks of any size, read with
//! the one-pass line reading, against the rules applied line by line (split
//! first, then each line read as an entry, as the reader did before).

use super::*;
use crate::testgen::{self, Rng};

/// The rules, one line at a time: (entries, skipped, unreadable, torn, replay).
fn by_lines(bytes: &[u8]) -> (usize, String, Vec<UnreadableLine>, usize, String) {
    let bytes = bytes.strip_prefix(BOM).unwrap_or(bytes);
    let mut chat = Chat::new(true);
    let mut unreadable = Vec::new();
    let mut torn = 0;
    let mut rest = bytes;
    let mut number = 0;
    loop {
        let end = rest.iter().position(|&b| b == b'\n' || b == b'\r');
        let (line, ended) = match end {
            Some(end) => (&rest[..end], true),
            None => (rest, false),
        };
        if !ended {
            if !is_blank(line) {
                let complete =
                    std::str::from_utf8(line).is_ok_and(|t| serde_json::from_str::<serde::de::IgnoredAny>(t).is_ok());
                if !complete {
                    torn = line.len();
                    break;
                }
            } else {
                break;
            }
        }
        number += 1;
        if !is_blank(line) {
            let reason = match std::str::from_utf8(line) {
                Err(_) => Some("not UTF-8 text".to_string()),
                Ok(text) => chat.ingest_json_line(text).err(),
            };
            if let Some(reason) = reason {
                unreadable.push(UnreadableLine { line: number, reason });
            }
        }
        if !ended {
            break;
        }
        let end = end.unwrap_or_default();
        rest = &rest[end + 1..];
        if line.len() < bytes.len()
            && bytes.get(bytes.len() - rest.len() - 1) == Some(&b'\r')
            && rest.first() == Some(&b'\n')
        {
            rest = &rest[1..];
        }
    }
    (chat.len, format!("{:?}", chat.skipped), unreadable, torn, replay(&chat))
}

fn replay(chat: &Chat) -> String {
    let todos = crate::todo::TodoReplay::of(chat);
    let suggestions = crate::suggest::SuggestionReplay::of(chat);
    format!(
        "{todos:?} {suggestions:?} {:?} {:?} {}",
        chat.session, chat.turns, chat.person_spoke
    )
}

fn by_chunks(bytes: &[u8], rng: &mut Rng) -> (usize, String, Vec<UnreadableLine>, usize, String) {
    let mut chat = Chat::new(true);
    let mut reader = JsonlReader::default();
    let mut rest = bytes;
    while !rest.is_empty() {
        let size = if rng.chance(50) { rest.len() } else { 1 + rng.below(64) }.min(rest.len());
        reader.feed(&mut chat, &rest[..size]);
        rest = &rest[size..];
    }
    reader.finish(&mut chat);
    (
        chat.len,
        format!("{:?}", chat.skipped),
        reader.unreadable,
        reader.torn,
        replay(&chat),
    )
}

#[test]
fn chunked_one_pass_reading_agrees_with_reading_line_by_line() {
    let mut rng = Rng::new(21);
    let ends: [&[u8]; 6] = [b"\n", b"\n", b"\r\n", b"\r", b"  \n", b"\n\n"];
    for _ in 0..3_000 {
        let mut bytes = Vec::new();
        if rng.chance(10) {
            bytes.extend_from_slice(BOM);
        }
        for _ in 0..rng.below(12) {
            let text = match rng.below(5) {
                0 => testgen::text(&mut rng),
                1 => "{\"type\":\"turn_started\"}".to_string(),
                // An object split over lines: neither half is an entry.
                2 => "{\"type\":\n\"turn_ended\"}".to_string(),
                3 => "{\"type\":\"todo_update\",\"todos\":[{\"content\":\"a\",\"status\":\"pending\"}] \t".to_string(),
                _ => {
                    let mut out = String::new();
                    testgen::object(&mut rng, 2, &mut out);
                    out
                }
            };
            bytes.extend_from_slice(text.as_bytes());
            if rng.chance(5) {
                bytes.push(0xff);
            }
            bytes.extend_from_slice(rng.pick(&ends));
        }
        if rng.chance(30) {
            bytes.truncate(rng.below(bytes.len() + 1));
        }
        let expected = by_lines(&bytes);
        assert_eq!(
            by_chunks(&bytes, &mut rng),
            expected,
            "{:?}",
            String::from_utf8_lossy(&bytes)
        );
    }
}
