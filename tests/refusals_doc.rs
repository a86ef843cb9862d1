//! docs/tools.md lists each tool's fixed refusal texts in the order of checks;
//! they must be the core's texts, in the core's order.

use oda_tasks::{SuggestError, TodoError};

/// The texts of `docs/tools.md`'s numbered checks under `heading` that name no placeholder.
fn fixed_texts(heading: &str) -> Vec<String> {
    let doc = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/docs/tools.md")).unwrap_or_default();
    let section = doc.split("\n## ").find(|s| s.starts_with(heading)).unwrap_or_default();
    // A numbered check's line (`3. … → text`), not a line of an example (a change reads `a → b` too).
    let numbered = |line: &&str| {
        line.split_once(". ")
            .is_some_and(|(n, _)| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
    };
    section
        .lines()
        .filter(numbered)
        .filter_map(|line| line.split_once(" → ").map(|(_, text)| text))
        .map(|text| text.trim().trim_matches('`').to_string())
        .filter(|text| !text.contains('<') && !text.contains('…'))
        .collect()
}

#[test]
fn the_todo_write_refusals_doc_lists_the_core_texts_in_order() {
    let core = [TodoError::NoSession.to_string(), TodoError::EmptyContent.to_string()];
    assert_eq!(fixed_texts("`todo_write`"), core);
}

#[test]
fn the_suggest_task_refusals_doc_lists_the_core_texts_in_order() {
    let core: Vec<String> = [
        SuggestError::NoSession,
        SuggestError::Helper,
        SuggestError::ScheduledFolder,
        SuggestError::NoOpenTurn,
        SuggestError::ChatLimit(oda_tasks::suggest::CHAT_LIMIT),
        SuggestError::OpenLimit(oda_tasks::suggest::OPEN_LIMIT),
        SuggestError::TurnLimit,
    ]
    .iter()
    .map(ToString::to_string)
    .collect();
    assert_eq!(fixed_texts("`suggest_task`"), core);
}
