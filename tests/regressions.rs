//! Inputs the property tests and fuzzers found, kept as plain tests.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, clippy::indexing_slicing)] // test code: a failed assumption should panic

use oda_tasks::chat::Chat;
use oda_tasks::entry::{read_entry, Entry, Read};
use oda_tasks::input::Input;
use oda_tasks::jsonl::{JsonlReader, UnreadableLine};
use oda_tasks::settle::{plan_start, StartPlan, StartRequest, DEFAULT_PERMISSIONS};
use oda_tasks::suggest_call::suggest_task;
use oda_tasks::SuggestError;

const HELPER: &str = r#"{"type":"session","chatId":"c","workspace":"w1","agent":"helper","settings":{}}"#;
const TURN: &str = r#"{"type":"turn_started"}"#;
const SUGGESTION: &str = r#"{"title":"T","tldr":"W","brief":"B"}"#;

/// Reads `bytes` as a JSONL file, fed in chunks of `size` bytes.
fn read_jsonl(bytes: &[u8], size: usize) -> (Chat, JsonlReader) {
    let mut chat = Chat::new(false);
    let mut reader = JsonlReader::default();
    for chunk in bytes.chunks(size) {
        reader.feed(&mut chat, chunk);
    }
    reader.finish(&mut chat);
    (chat, reader)
}

/// Found by `jsonl_chunks_equal_entries_fed_as_text` (and fixed on main at the
/// same time): the first three bytes, held back to look for a byte order mark,
/// were never split at a newline, so a short first line (`{}`, `[]`, a blank
/// line) swallowed the next one: here a helper's session.
#[test]
fn a_short_first_line_does_not_swallow_the_session() {
    for first in ["{}", "[]", "1", "", " ", "\u{b}"] {
        for end in ["\n", ""] {
            let file = format!("{first}\n{HELPER}\n{TURN}{end}");
            for size in [1, 2, 3, 4, 7, file.len()] {
                let (chat, reader) = read_jsonl(file.as_bytes(), size);
                let what = format!("first line {first:?}, end {end:?}, chunks of {size}");
                assert!(chat.is_helper(), "{what}: the session was lost");
                assert_eq!(
                    suggest_task(Some(&chat), &Input::parse(SUGGESTION)),
                    Err(SuggestError::Helper),
                    "{what}"
                );
                assert!(chat.turns.open, "{what}");
                assert_eq!(reader.torn, 0, "{what}");
            }
        }
    }
}

/// Unreadable lines keep their own line numbers, also within the first three bytes.
#[test]
fn line_numbers_count_lines_within_the_first_bytes() {
    let (chat, reader) = read_jsonl(b"\n\nx\n{}\n", 1);
    assert_eq!(chat.len, 1);
    assert_eq!(reader.unreadable.len(), 1);
    assert_eq!(reader.unreadable[0].line, 3);
    // A stream shorter than the mark is read as lines too.
    let (_, reader) = read_jsonl(b"x\n", 8);
    let reason = reader.unreadable.first().map(|u| u.reason.clone()).unwrap_or_default();
    assert_eq!(reader.unreadable, vec![UnreadableLine { line: 1, reason }]);
}

/// Found by `written_entries_read_back_the_same`: serde_json's default float
/// parser may land one ulp off, so a Start copied `sandbox` and `approval`
/// with a changed number. The core keeps them as written (`RawValue`), so the
/// number's text is copied byte for byte, numbers past f64's range too.
#[test]
fn settings_numbers_are_copied_exactly() {
    for number in ["-7.8125e-3", "1e400", "18446744073709551615", "1.50"] {
        let session = format!(
            r#"{{"type":"session","chatId":"c","workspace":"w1","agent":"top-level","settings":{{"sandbox":{{"limit":{number}}},"approval":[{number}]}}}}"#
        );
        let offer = r#"{"type":"suggestion_offered","v":1,"id":"s1","title":"T","tldr":"W","brief":"B"}"#;
        let mut chat = Chat::new(false);
        for text in [session.as_str(), TURN, offer] {
            chat.ingest(text);
        }
        let order: Vec<String> = DEFAULT_PERMISSIONS.iter().map(|p| p.to_string()).collect();
        let Ok(StartPlan::Create { session: started, .. }) =
            plan_start(&chat, "c", "s1", &StartRequest::default(), &order)
        else {
            panic!("the offer should start");
        };
        assert_eq!(
            started.settings.sandbox.as_ref().map(|c| c.get()),
            Some(format!(r#"{{"limit":{number}}}"#).as_str())
        );
        assert_eq!(
            started.settings.approval.as_ref().map(|c| c.get()),
            Some(format!("[{number}]").as_str())
        );
        let written = serde_json::to_string(&Entry::Session(started.clone())).expect("serialises");
        assert!(written.contains(&format!(r#""approval":[{number}]"#)), "{written}");
        assert_eq!(read_entry(&written), Read::Entry(Entry::Session(started)));
    }
}
