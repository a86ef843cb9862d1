//! `todo_write` on any input text, with both option values: nothing panics,
//! the answer agrees with a plain statement of the rules, refusals stay short,
//! and an accepted update reads back as written.

#![no_main]

use std::collections::HashSet;

use libfuzzer_sys::fuzz_target;
use oda_tasks::entry::{read_entry, Entry, Read, TodoStatus};
use oda_tasks::input::Input;
use oda_tasks::{todo_write, TodoError, TodoOptions};
use oda_tasks_fuzz::{check_refusal, text_of};
use serde_json::Value;

/// The rules, stated plainly: `Some(list)` when the input is a well-formed
/// update (before the one-active rule), with its trimmed items.
fn well_formed(input: &Value) -> Option<Vec<(String, String)>> {
    let obj = input.as_object()?;
    if obj.keys().any(|k| k != "todos") {
        return None;
    }
    let mut items = Vec::new();
    let mut seen = HashSet::new();
    for item in obj.get("todos")?.as_array()? {
        let item = item.as_object()?;
        if item.keys().any(|k| k != "content" && k != "status") {
            return None;
        }
        let status = item.get("status")?.as_str()?;
        if !["pending", "in_progress", "completed"].contains(&status) {
            return None;
        }
        let content = item.get("content")?.as_str()?.trim();
        if content.is_empty() || !seen.insert(content) {
            return None;
        }
        items.push((content.to_string(), status.to_string()));
    }
    Some(items)
}

fuzz_target!(|data: &[u8]| {
    let text = text_of(data);
    let input = Input::parse(&text);
    // The input is serde_json's reading, with its recursion limit.
    match (&input, serde_json::from_str::<Value>(&text)) {
        (Input::Json(value), Ok(parsed)) => assert_eq!(value, &parsed),
        (Input::Unreadable(_), Err(_)) => {}
        (got, parsed) => panic!("Input::parse gave {got:?}, serde_json {parsed:?}"),
    }

    assert_eq!(
        todo_write(false, &input, TodoOptions::default()),
        Err(TodoError::NoSession)
    );
    let strict = todo_write(true, &input, TodoOptions { one_active: true });
    let loose = todo_write(true, &input, TodoOptions { one_active: false });

    // The one-active rule is checked last: turning it off only turns that refusal into success.
    match (&strict, &loose) {
        (Ok(a), Ok(b)) => assert_eq!(a, b),
        (Err(TodoError::TooManyActive(n)), Ok(b)) => {
            let active = b
                .entry
                .todos
                .iter()
                .filter(|t| t.status == TodoStatus::InProgress)
                .count();
            assert_eq!(*n, active);
            assert!(*n > 1);
        }
        (Err(a), Err(b)) => assert_eq!(a, b),
        (a, b) => panic!("one_active on: {a:?}, off: {b:?}"),
    }

    for result in [&strict, &loose] {
        if let Err(e) = result {
            check_refusal(&e.to_string(), "Error: ");
        }
    }

    let expected = match &input {
        Input::Json(_) => serde_json::from_str::<Value>(&text).ok().as_ref().and_then(well_formed),
        Input::Unreadable(_) => None,
    };
    match (&loose, &expected) {
        (Ok(written), Some(items)) => {
            let got: Vec<(String, String)> = written
                .entry
                .todos
                .iter()
                .map(|t| (t.content.clone(), t.status.as_str().to_string()))
                .collect();
            assert_eq!(&got, items);
            let c = |s: &str| items.iter().filter(|(_, status)| status == s).count();
            assert_eq!(
                written.output,
                format!(
                    "Updated todo list: {} pending, {} in progress, {} completed",
                    c("pending"),
                    c("in_progress"),
                    c("completed")
                )
            );
            // The entry, stored and read back, is the same update.
            let stored = serde_json::to_string(&Entry::TodoUpdate(written.entry.clone())).expect("serialises");
            assert_eq!(
                read_entry(&stored),
                Read::Entry(Entry::TodoUpdate(written.entry.clone()))
            );
        }
        (Err(_), None) => {}
        (got, expected) => panic!("todo_write gave {got:?}; the rules say {expected:?}"),
    }
});
