//! Log builders shared by the suggestion tests. Every builder returns the
//! stored JSON shape (camelCase field names, a string `type`), so the tests
//! read logs exactly as a host would store them.

#![allow(dead_code)]

use serde_json::{json, Value};

/// A top-level chat `c1` in workspace `w1`, not in a scheduled task folder.
pub fn session() -> Value {
    json!({
        "type": "session",
        "chatId": "c1",
        "workspace": "w1",
        "scheduledTaskFolder": false,
        "agent": "top-level",
        "settings": {}
    })
}

/// A session entry with `fields` merged over [`session`].
pub fn session_with(fields: Value) -> Value {
    let mut s = session();
    let obj = s.as_object_mut().unwrap();
    for (k, v) in fields.as_object().expect("fields must be an object") {
        obj.insert(k.clone(), v.clone());
    }
    s
}

pub fn turn_started() -> Value {
    json!({ "type": "turn_started" })
}

pub fn turn_ended() -> Value {
    json!({ "type": "turn_ended" })
}

/// A recorded offer with a title derived from its id.
pub fn offer(id: &str) -> Value {
    json!({
        "type": "suggestion_offered",
        "v": 1,
        "id": id,
        "title": format!("Title {id}"),
        "tldr": format!("Tldr {id}"),
        "brief": format!("Brief {id}")
    })
}

pub fn offer_full(id: &str, title: &str, tldr: &str, brief: &str) -> Value {
    json!({
        "type": "suggestion_offered",
        "v": 1,
        "id": id,
        "title": title,
        "tldr": tldr,
        "brief": brief
    })
}

/// A settlement (`drafted`, `dismissed`, `restored`, or `started` without a chat).
pub fn settled(id: &str, outcome: &str) -> Value {
    json!({ "type": "suggestion_settled", "v": 1, "id": id, "outcome": outcome })
}

pub fn started(id: &str, chat_id: &str) -> Value {
    json!({ "type": "suggestion_settled", "v": 1, "id": id, "outcome": "started", "chatId": chat_id })
}

/// The person's own message.
pub fn user_message(text: &str) -> Value {
    json!({ "type": "message", "role": "user", "text": text })
}

/// A brief written by the core into a started chat.
pub fn brief_message(text: &str, chat_id: &str, suggestion_id: &str) -> Value {
    json!({
        "type": "message",
        "v": 1,
        "role": "user",
        "text": text,
        "source": { "kind": "suggestion", "chatId": chat_id, "suggestionId": suggestion_id }
    })
}

/// A valid `suggest_task` input.
pub fn input(title: &str, tldr: &str, brief: &str) -> Value {
    json!({ "title": title, "tldr": tldr, "brief": brief })
}

pub fn good_input() -> Value {
    input(
        "Add retries",
        "Uploads fail on flaky networks.",
        "In upload.ts, retry failed uploads three times.",
    )
}

/// A chat whose offer `s1` was dismissed in an ended turn, with a new turn started.
pub fn dismissed_then_a_new_turn() -> Vec<Value> {
    vec![
        session(),
        turn_started(),
        offer("s1"),
        settled("s1", "dismissed"),
        turn_ended(),
        turn_started(),
    ]
}

/// session + `n` offers, one per turn, each turn closed; then a new open turn.
/// Offers are `s1..sn`, all open.
pub fn log_with_offers(n: usize) -> Vec<Value> {
    let mut log = vec![session()];
    for i in 1..=n {
        log.push(turn_started());
        log.push(offer(&format!("s{i}")));
        log.push(turn_ended());
    }
    log.push(turn_started());
    log
}

/// `s` repeated `n` times.
pub fn chars(s: &str, n: usize) -> String {
    s.repeat(n)
}
