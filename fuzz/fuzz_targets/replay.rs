//! Replay of arbitrary logs, three ways: entry texts one by one through
//! `Chat::ingest` (compared at random points with a fresh fold of the same
//! prefix), and JSONL bytes fed through `JsonlReader` in random chunks
//! (compared with each line's text through `Chat::ingest_json_line`).
//! Nothing may panic; the ways must answer alike.

#![no_main]

use libfuzzer_sys::fuzz_target;
use oda_tasks::chat::Chat;
use oda_tasks::jsonl::{JsonlReader, UnreadableLine};
use oda_tasks_fuzz::log::Log;
use oda_tasks_fuzz::observe::{answers, check_invariants};

fn fold(texts: &[String]) -> Chat {
    let mut chat = Chat::new(true);
    for text in texts {
        chat.ingest(text);
    }
    chat
}

fn is_blank(text: &str) -> bool {
    text.bytes().all(|b| matches!(b, b' ' | b'\t' | b'\r' | b'\n'))
}

fuzz_target!(|log: Log| {
    let texts: Vec<String> = log.entries.iter().map(|e| e.render()).collect();

    // Entry by entry, asked at up to two drawn points inside the log: each
    // answer equals a fresh fold of that prefix, and the fold goes on to the end.
    let mut points: Vec<usize> = log
        .layout
        .splits
        .iter()
        .take(2)
        .map(|s| usize::from(*s) % (texts.len() + 1))
        .filter(|p| (1..texts.len()).contains(p))
        .collect();
    points.sort_unstable();
    points.dedup();
    let mut chat = Chat::new(true);
    let mut folded = 0;
    for point in points.iter().copied().chain([texts.len()]) {
        for text in &texts[folded..point] {
            chat.ingest(text);
        }
        folded = point;
        assert_eq!(chat.len, point);
        check_invariants(&chat);
        let asked = answers(&chat);
        // With no point inside, the fold at the end is the whole fold itself.
        if !points.is_empty() {
            assert_eq!(
                asked,
                answers(&fold(&texts[..point])),
                "incremental != whole at {point}"
            );
        }
    }

    // JSONL: expected from each line's text, the way the reader must read it.
    let (bytes, lines) = log.layout.jsonl(&texts);
    let mut expected = Chat::new(true);
    let mut unreadable = Vec::new();
    for line in &lines {
        // Only a byte order mark at the very start of the file is not text.
        let text = if line.number == 1 && !log.layout.bom {
            line.text.strip_prefix('\u{FEFF}').unwrap_or(line.text)
        } else {
            line.text
        };
        let torn = line.unterminated && serde_json::from_str::<serde::de::IgnoredAny>(text).is_err();
        if is_blank(text) || torn {
            continue;
        }
        if let Err(reason) = expected.ingest_json_line(text) {
            unreadable.push(UnreadableLine {
                line: line.number,
                reason,
            });
        }
    }
    let mut read = Chat::new(true);
    let mut reader = JsonlReader::default();
    for chunk in log.layout.chunks(&bytes) {
        reader.feed(&mut read, chunk);
    }
    reader.finish(&mut read);
    check_invariants(&read);
    assert_eq!(
        answers(&read),
        answers(&expected),
        "JSONL in chunks != its lines as text"
    );
    assert_eq!(reader.unreadable, unreadable);
});
