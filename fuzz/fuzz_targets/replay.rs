//! Replay of arbitrary logs, three ways: entry texts one by one through
//! `Chat::ingest` (compared at random points with a fresh fold of the same
//! prefix), and JSONL bytes fed through `JsonlReader` in random chunks
//! (compared with each line's text through `Chat::ingest_json_line`).
//! Nothing may panic; the ways must answer alike.

#![no_main]

use libfuzzer_sys::fuzz_target;
use oda_tasks::chat::Chat;
use oda_tasks_fuzz::jsonl_reads;
use oda_tasks_fuzz::log::Log;
use oda_tasks_fuzz::observe::{answers, check_invariants};

fn fold(texts: &[String]) -> Chat {
    let mut chat = Chat::new(true);
    for text in texts {
        chat.ingest(text);
    }
    chat
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

    // JSONL: read in chunks, as its lines' texts must read.
    let (bytes, lines) = log.layout.jsonl(&texts);
    let (read, unreadable) = jsonl_reads::in_chunks(&log.layout, &bytes);
    let (expected, expected_unreadable) = jsonl_reads::line_by_line(&log.layout, &lines);
    assert_eq!(
        answers(&read),
        answers(&expected),
        "JSONL in chunks != its lines as text"
    );
    assert_eq!(unreadable, expected_unreadable);
});
