//! A drawn log's JSONL file read the two ways that must agree: in the drawn
//! chunks through `JsonlReader`, and line by line through `ingest_json_line`.
//! Shared by tests/properties.rs and the fuzz crate (included there by path).

#![allow(dead_code)]

use oda_tasks::chat::Chat;
use oda_tasks::jsonl::{JsonlReader, UnreadableLine};

use crate::log::{Layout, Line};
use crate::observe::check_invariants;

/// The chat `bytes` fold into when fed in `layout`'s chunks, and the lines the reader reports.
pub fn in_chunks(layout: &Layout, bytes: &[u8]) -> (Chat, Vec<UnreadableLine>) {
    let mut chat = Chat::new(true);
    let mut reader = JsonlReader::default();
    for chunk in layout.chunks(bytes) {
        reader.feed(&mut chat, chunk);
    }
    reader.finish(&mut chat);
    check_invariants(&chat);
    (chat, reader.unreadable)
}

/// What the reader must answer: each line's text through `ingest_json_line`,
/// blank lines skipped, the last line without a newline only if it is complete
/// JSON (else a torn write), and only the file's first byte order mark not text.
pub fn line_by_line(layout: &Layout, lines: &[Line]) -> (Chat, Vec<UnreadableLine>) {
    let mut chat = Chat::new(true);
    let mut unreadable = Vec::new();
    for line in lines {
        let text = if line.number == 1 && !layout.bom {
            line.text.strip_prefix('\u{FEFF}').unwrap_or(line.text)
        } else {
            line.text
        };
        let blank = text.bytes().all(|b| matches!(b, b' ' | b'\t' | b'\r' | b'\n'));
        let torn = line.unterminated && serde_json::from_str::<serde::de::IgnoredAny>(text).is_err();
        if blank || torn {
            continue;
        }
        if let Err(reason) = chat.ingest_json_line(text) {
            unreadable.push(UnreadableLine {
                line: line.number,
                reason,
            });
        }
    }
    (chat, unreadable)
}
