//! `suggest_task` and the suggestion ledger (SPEC sections 4 and 7).
//!
//! Every text the model sees is compared byte for byte with a literal copied
//! from SPEC.md (or, for the shape errors the SPEC leaves to the developers,
//! from src/error.rs), never built from the error enums.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, clippy::indexing_slicing)] // test code: a failed assumption should panic

mod common;

use common::*;
use oda_tasks::entry::{Entry, FORMAT_VERSION};
use oda_tasks::suggest::{Listed, SuggestTask};
use oda_tasks::SuggestionReplay;
use oda_tasks::{replay_suggestions, suggest_task, suggest_task_tool};
use serde_json::{json, Value};

const NO_SESSION: &str = "suggest_task requires an owning agent session";
const HELPER: &str = "suggest_task is only for the top-level agent; report the follow-up in your result instead";
const SCHEDULED: &str =
    "suggest_task: this chat runs in a scheduled task folder, where no new chat can start; offer no suggestions here";
const NO_TURN: &str = "suggest_task: requires an open model turn";
const TEN: &str = "suggest_task: this chat already offered 10 suggestions; offer no more";
const THREE: &str =
    "suggest_task: 3 suggestions already wait for the user; offer no more until one is started or dismissed";
const ONE_PER_TURN: &str = "suggest_task: one suggestion per turn; this turn already offered one";

fn ok(log: &[Value], input: &Value) -> SuggestTask {
    match suggest_task(Some(log), input) {
        Ok(done) => done,
        Err(e) => panic!("expected the call to be accepted, got: {e}"),
    }
}

fn refusal(log: Option<&[Value]>, input: &Value) -> String {
    match suggest_task(log, input) {
        Ok(done) => panic!("expected a refusal, got an offer: {done:?}"),
        Err(e) => e.to_string(),
    }
}

fn refused(log: &[Value], input: &Value) -> String {
    refusal(Some(log), input)
}

/// The entry as it is stored.
fn stored(done: &SuggestTask) -> Value {
    serde_json::to_value(Entry::SuggestionOffered(done.entry.clone())).unwrap()
}

fn ids(listed: &[Listed]) -> Vec<&str> {
    listed.iter().map(|l| l.id.as_str()).collect()
}

fn outcomes(listed: &[Listed]) -> Vec<(&str, Option<&str>)> {
    listed.iter().map(|l| (l.id.as_str(), l.outcome)).collect()
}

fn skipped_indexes(replay: &SuggestionReplay) -> Vec<usize> {
    replay.skipped.iter().map(|s| s.index).collect()
}

/// A chat with an open turn and nothing offered yet.
fn fresh() -> Vec<Value> {
    vec![session(), turn_started()]
}

// ---------------------------------------------------------------------------
// The tool definition (section 4)
// ---------------------------------------------------------------------------

#[test]
fn tool_definition_texts_are_exact() {
    let tool = suggest_task_tool();
    assert_eq!(tool.name, "suggest_task");
    assert_eq!(
        tool.description,
        "Offer one out-of-scope follow-up the user can start in a new chat; never for work you can do now."
    );
    let schema = &tool.input_schema;
    assert_eq!(schema["type"], "object");
    assert_eq!(schema["required"], json!(["title", "tldr", "brief"]));
    assert_eq!(schema["additionalProperties"], json!(false));
    let props = schema["properties"].as_object().unwrap();
    assert_eq!(props.len(), 3);
    for (name, description, limit) in [
        ("title", "Imperative title, at most 60 characters.", 60),
        ("tldr", "Why it is worth doing, at most 240 characters.", 240),
        (
            "brief",
            "Self-contained instructions for the new chat, at most 4000 characters.",
            4000,
        ),
    ] {
        assert_eq!(props[name]["type"], "string", "{name}");
        assert_eq!(props[name]["description"], description, "{name}");
        assert_eq!(props[name]["maxLength"], json!(limit), "{name}");
    }
}

// ---------------------------------------------------------------------------
// Refusals, one by one (section 4)
// ---------------------------------------------------------------------------

#[test]
fn no_log_is_no_owning_session() {
    assert_eq!(refusal(None, &good_input()), NO_SESSION);
    // Checked before the input: even a broken input gets the session text.
    assert_eq!(refusal(None, &json!(null)), NO_SESSION);
    assert_eq!(refusal(None, &json!({ "title": "" })), NO_SESSION);
}

#[test]
fn helper_is_refused() {
    let log = vec![session_with(json!({ "agent": "helper" })), turn_started()];
    assert_eq!(refused(&log, &good_input()), HELPER);
}

#[test]
fn any_agent_but_top_level_is_a_helper() {
    for agent in ["subagent", "forked-helper", "Top-Level", ""] {
        let log = vec![session_with(json!({ "agent": agent })), turn_started()];
        assert_eq!(refused(&log, &good_input()), HELPER, "agent {agent:?}");
    }
}

#[test]
fn session_without_agent_field_is_top_level() {
    let mut s = session();
    s.as_object_mut().unwrap().remove("agent");
    let done = ok(&[s, turn_started()], &good_input());
    assert_eq!(done.entry.id, "s1");
}

#[test]
fn scheduled_task_folder_is_refused() {
    let log = vec![session_with(json!({ "scheduledTaskFolder": true })), turn_started()];
    assert_eq!(refused(&log, &good_input()), SCHEDULED);
}

#[test]
fn no_turn_at_all_is_refused() {
    assert_eq!(refused(&[session()], &good_input()), NO_TURN);
    assert_eq!(refused(&[], &good_input()), NO_TURN);
}

#[test]
fn ended_turn_is_closed() {
    let log = vec![session(), turn_started(), turn_ended()];
    assert_eq!(refused(&log, &good_input()), NO_TURN);
}

#[test]
fn a_new_turn_after_an_ended_one_is_open() {
    let log = vec![session(), turn_started(), turn_ended(), turn_started()];
    assert_eq!(ok(&log, &good_input()).entry.id, "s1");
}

#[test]
fn ten_offers_are_refused() {
    // Ten offers over ten turns, all dismissed: the open limit is not what refuses.
    let mut log = log_with_offers(10);
    for i in 1..=10 {
        log.insert(log.len() - 1, settled(&format!("s{i}"), "dismissed"));
    }
    assert_eq!(refused(&log, &good_input()), TEN);
}

#[test]
fn three_open_offers_are_refused() {
    let log = log_with_offers(3);
    assert_eq!(refused(&log, &good_input()), THREE);
}

#[test]
fn second_offer_in_one_turn_is_refused() {
    let log = vec![session(), turn_started(), offer("s1")];
    assert_eq!(refused(&log, &good_input()), ONE_PER_TURN);
}

#[test]
fn field_empty_texts() {
    let log = fresh();
    assert_eq!(
        refused(&log, &input("", "t", "b")),
        "suggest_task: title must not be empty"
    );
    assert_eq!(
        refused(&log, &input("x", "", "b")),
        "suggest_task: tldr must not be empty"
    );
    assert_eq!(
        refused(&log, &input("x", "t", "")),
        "suggest_task: brief must not be empty"
    );
}

#[test]
fn whitespace_only_fields_are_empty() {
    let log = fresh();
    let blank = " \t\n\r\u{3000}\u{2003}\u{a0}\u{85}\u{2028}";
    assert_eq!(
        refused(&log, &input(blank, "t", "b")),
        "suggest_task: title must not be empty"
    );
    assert_eq!(
        refused(&log, &input("x", blank, "b")),
        "suggest_task: tldr must not be empty"
    );
    assert_eq!(
        refused(&log, &input("x", "t", blank)),
        "suggest_task: brief must not be empty"
    );
}

#[test]
fn field_limits_at_the_boundary_and_one_over() {
    let log = fresh();
    // Exactly at the limit: accepted.
    let done = ok(&log, &input(&chars("a", 60), &chars("b", 240), &chars("c", 4000)));
    assert_eq!(done.entry.title.chars().count(), 60);
    assert_eq!(done.entry.tldr.chars().count(), 240);
    assert_eq!(done.entry.brief.chars().count(), 4000);
    // One over: refused with the count.
    assert_eq!(
        refused(&log, &input(&chars("a", 61), "t", "b")),
        "suggest_task: title must be at most 60 characters (got 61)"
    );
    assert_eq!(
        refused(&log, &input("x", &chars("b", 241), "b")),
        "suggest_task: tldr must be at most 240 characters (got 241)"
    );
    assert_eq!(
        refused(&log, &input("x", "t", &chars("c", 4001))),
        "suggest_task: brief must be at most 4000 characters (got 4001)"
    );
    // The count is the real length, not the limit plus one.
    assert_eq!(
        refused(&log, &input(&chars("a", 100), "t", "b")),
        "suggest_task: title must be at most 60 characters (got 100)"
    );
}

#[test]
fn characters_are_code_points_not_utf16_units_or_bytes() {
    let log = fresh();
    // An emoji outside the BMP is one character (two in JS `length`, four bytes).
    assert_eq!(
        refused(&log, &input(&chars("😀", 61), "t", "b")),
        "suggest_task: title must be at most 60 characters (got 61)"
    );
    let done = ok(&log, &input(&chars("😀", 60), "t", "b"));
    assert_eq!(done.entry.title, chars("😀", 60));
    // Two-byte letters.
    assert_eq!(
        refused(&log, &input("x", &chars("é", 241), "b")),
        "suggest_task: tldr must be at most 240 characters (got 241)"
    );
    ok(&log, &input("x", &chars("é", 240), "b"));
    // A letter and a combining accent are two code points.
    assert_eq!(
        refused(&log, &input(&chars("e\u{301}", 31), "t", "b")),
        "suggest_task: title must be at most 60 characters (got 62)"
    );
    ok(&log, &input(&chars("e\u{301}", 30), "t", "b"));
    // CJK in the brief.
    assert_eq!(
        refused(&log, &input("x", "t", &chars("字", 4001))),
        "suggest_task: brief must be at most 4000 characters (got 4001)"
    );
}

#[test]
fn the_length_is_of_the_trimmed_text() {
    let log = fresh();
    let padded = format!("  \u{3000}{}\u{2003}\n", chars("a", 60));
    let done = ok(&log, &input(&padded, "t", "b"));
    assert_eq!(done.entry.title, chars("a", 60));
    let padded = format!("\t{} ", chars("a", 61));
    assert_eq!(
        refused(&log, &input(&padded, "t", "b")),
        "suggest_task: title must be at most 60 characters (got 61)"
    );
}

#[test]
fn trimming_removes_unicode_white_space_at_both_ends_only() {
    let log = fresh();
    let done = ok(
        &log,
        &input(
            "\u{3000}x\u{2003}",
            "\u{a0} why  it matters \u{2029}",
            "\n\tline one\n\nline two\u{85}",
        ),
    );
    assert_eq!(done.entry.title, "x");
    assert_eq!(done.entry.tldr, "why  it matters");
    assert_eq!(done.entry.brief, "line one\n\nline two");
    assert_eq!(
        done.output,
        "Suggested \"x\". The user decides whether to start it; do not start it yourself."
    );
    // Not White_Space: a zero-width space and a BOM stay, so they are not empty.
    let done = ok(&log, &input("\u{200b}", "\u{feff}", "b"));
    assert_eq!(done.entry.title, "\u{200b}");
    assert_eq!(done.entry.tldr, "\u{feff}");
}

#[test]
fn input_that_is_not_an_object_is_refused() {
    let log = fresh();
    for bad in [json!(null), json!([]), json!("title"), json!(3), json!(true)] {
        assert_eq!(
            refused(&log, &bad),
            "suggest_task: input must be an object with `title`, `tldr` and `brief`",
            "input {bad}"
        );
    }
}

#[test]
fn unknown_fields_are_refused() {
    let log = fresh();
    let mut bad = good_input();
    bad["priority"] = json!("high");
    assert_eq!(
        refused(&log, &bad),
        "suggest_task: unknown field `priority` (the input is only `title`, `tldr` and `brief`)"
    );
    let mut bad = good_input();
    bad["Title"] = json!("x");
    assert_eq!(
        refused(&log, &bad),
        "suggest_task: unknown field `Title` (the input is only `title`, `tldr` and `brief`)"
    );
}

#[test]
fn missing_or_non_string_fields_are_refused() {
    let log = fresh();
    assert_eq!(
        refused(&log, &json!({ "tldr": "t", "brief": "b" })),
        "suggest_task: title must be a string"
    );
    assert_eq!(
        refused(&log, &json!({ "title": "x", "brief": "b" })),
        "suggest_task: tldr must be a string"
    );
    assert_eq!(
        refused(&log, &json!({ "title": "x", "tldr": "t" })),
        "suggest_task: brief must be a string"
    );
    assert_eq!(refused(&log, &json!({})), "suggest_task: title must be a string");
    for bad in [json!(null), json!(5), json!(["x"]), json!({ "x": 1 }), json!(false)] {
        assert_eq!(
            refused(&log, &json!({ "title": bad, "tldr": "t", "brief": "b" })),
            "suggest_task: title must be a string",
            "title {bad}"
        );
        assert_eq!(
            refused(&log, &json!({ "title": "x", "tldr": "t", "brief": bad })),
            "suggest_task: brief must be a string",
            "brief {bad}"
        );
    }
}

// ---------------------------------------------------------------------------
// The order between refusals (sections 4 and 7)
// ---------------------------------------------------------------------------

#[test]
fn helper_comes_before_scheduled_and_turn() {
    // A helper in a scheduled folder with no open turn and a broken input.
    let log = vec![session_with(json!({ "agent": "helper", "scheduledTaskFolder": true }))];
    assert_eq!(refused(&log, &json!({ "title": "" })), HELPER);
}

#[test]
fn scheduled_comes_before_turn() {
    let log = vec![session_with(json!({ "scheduledTaskFolder": true }))];
    assert_eq!(refused(&log, &good_input()), SCHEDULED);
    // ... and before every count limit.
    let mut log = log_with_offers(10);
    log[0] = session_with(json!({ "scheduledTaskFolder": true }));
    log.push(offer("s11"));
    assert_eq!(refused(&log, &good_input()), SCHEDULED);
}

#[test]
fn no_turn_comes_before_the_ten_limit() {
    let mut log = log_with_offers(10);
    log.pop(); // no open turn
    assert_eq!(refused(&log, &good_input()), NO_TURN);
}

#[test]
fn ten_comes_before_three_and_one_per_turn() {
    // Ten offers, the last three open, the last one in this very turn.
    let mut log = vec![session()];
    for i in 1..=10 {
        log.push(turn_started());
        log.push(offer(&format!("s{i}")));
        if i <= 7 {
            log.push(settled(&format!("s{i}"), "dismissed"));
        }
        if i < 10 {
            log.push(turn_ended());
        }
    }
    let replay = replay_suggestions(&log);
    assert_eq!(ids(&replay.open), ["s10", "s9", "s8"]);
    assert_eq!(refused(&log, &json!({ "title": "" })), TEN);
}

#[test]
fn three_comes_before_one_per_turn() {
    let log = vec![
        session(),
        turn_started(),
        offer("s1"),
        turn_ended(),
        turn_started(),
        offer("s2"),
        turn_ended(),
        turn_started(),
        offer("s3"),
    ];
    assert_eq!(refused(&log, &good_input()), THREE);
}

#[test]
fn one_per_turn_comes_before_the_fields() {
    let log = vec![session(), turn_started(), offer("s1")];
    assert_eq!(refused(&log, &input("", "", "")), ONE_PER_TURN);
    assert_eq!(refused(&log, &json!("not an object")), ONE_PER_TURN);
}

#[test]
fn fields_are_checked_title_then_tldr_then_brief() {
    let log = fresh();
    // An earlier field's failure wins, whichever kind it is.
    assert_eq!(
        refused(&log, &input("", &chars("b", 241), "")),
        "suggest_task: title must not be empty"
    );
    assert_eq!(
        refused(&log, &input(&chars("a", 61), "", "")),
        "suggest_task: title must be at most 60 characters (got 61)"
    );
    assert_eq!(
        refused(&log, &input("x", "", &chars("c", 4001))),
        "suggest_task: tldr must not be empty"
    );
    assert_eq!(
        refused(&log, &input("x", &chars("b", 241), "")),
        "suggest_task: tldr must be at most 240 characters (got 241)"
    );
    assert_eq!(
        refused(&log, &input("x", "t", "  ")),
        "suggest_task: brief must not be empty"
    );
    assert_eq!(
        refused(&log, &json!({ "title": "", "tldr": 1, "brief": "b" })),
        "suggest_task: title must not be empty"
    );
    assert_eq!(
        refused(&log, &json!({ "title": "x", "tldr": 1, "brief": "" })),
        "suggest_task: tldr must be a string"
    );
}

// ---------------------------------------------------------------------------
// Where the chat is: a log with no session entry (section 7)
// ---------------------------------------------------------------------------

#[test]
fn log_without_session_is_top_level_outside_scheduled_folders() {
    let log = vec![turn_started()];
    let done = ok(&log, &good_input());
    assert_eq!(done.entry.id, "s1");
    // ... and still has the other rules.
    assert_eq!(refused(&[], &good_input()), NO_TURN);
    let log = vec![turn_started(), offer("s1")];
    assert_eq!(refused(&log, &good_input()), ONE_PER_TURN);
}

// ---------------------------------------------------------------------------
// Success
// ---------------------------------------------------------------------------

#[test]
fn success_output_and_entry() {
    let log = fresh();
    let done = ok(
        &log,
        &input("  Add retries\n", " Uploads fail. ", "\nRetry three times.\n"),
    );
    assert_eq!(
        done.output,
        "Suggested \"Add retries\". The user decides whether to start it; do not start it yourself."
    );
    assert_eq!(done.entry.id, "s1");
    assert_eq!(done.entry.v, FORMAT_VERSION);
    assert_eq!(done.entry.title, "Add retries");
    assert_eq!(done.entry.tldr, "Uploads fail.");
    assert_eq!(done.entry.brief, "Retry three times.");
    let entry = stored(&done);
    assert_eq!(entry["type"], "suggestion_offered");
    assert_eq!(entry["id"], "s1");
    assert_eq!(entry["title"], "Add retries");
    assert_eq!(entry["tldr"], "Uploads fail.");
    assert_eq!(entry["brief"], "Retry three times.");
    assert_eq!(entry["v"], json!(FORMAT_VERSION));
}

#[test]
fn title_with_quotes_is_quoted_as_is() {
    let done = ok(&fresh(), &input("Fix \"the\" bug", "t", "b"));
    assert_eq!(
        done.output,
        "Suggested \"Fix \"the\" bug\". The user decides whether to start it; do not start it yourself."
    );
}

#[test]
fn recorded_offer_replays_open() {
    let mut log = fresh();
    let done = ok(&log, &input(" T ", " L ", " B "));
    log.push(stored(&done));
    let replay = replay_suggestions(&log);
    assert!(replay.skipped.is_empty(), "{:?}", replay.skipped);
    assert!(replay.settled.is_empty());
    assert_eq!(replay.open.len(), 1);
    let o = &replay.open[0];
    assert_eq!(
        (o.id.as_str(), o.title.as_str(), o.tldr.as_str(), o.brief.as_str()),
        ("s1", "T", "L", "B")
    );
    assert_eq!(o.outcome, None);
    assert_eq!(o.chat_id, None);
    // ... and that offer fills this turn.
    assert_eq!(refused(&log, &good_input()), ONE_PER_TURN);
}

#[test]
fn same_log_and_call_give_the_same_answer() {
    let log = log_with_offers(2);
    let a = ok(&log, &good_input());
    let b = ok(&log, &good_input());
    assert_eq!(a, b);
    assert_eq!(a.entry.id, "s3");
}

#[test]
fn a_refused_call_records_nothing() {
    let log = fresh();
    let before = log.clone();
    assert_eq!(
        refused(&log, &input("", "t", "b")),
        "suggest_task: title must not be empty"
    );
    assert_eq!(log, before);
    // The refused call used neither the turn nor an id.
    let done = ok(&log, &good_input());
    assert_eq!(done.entry.id, "s1");
    // An accepted call does not change the log either: the host appends.
    assert_eq!(log, before);
}

// ---------------------------------------------------------------------------
// Ids
// ---------------------------------------------------------------------------

#[test]
fn ids_are_sequential_over_a_chat() {
    let mut log = vec![session()];
    for expected in ["s1", "s2", "s3", "s4", "s5"] {
        log.push(turn_started());
        let done = ok(&log, &good_input());
        assert_eq!(done.entry.id, expected);
        log.push(stored(&done));
        log.push(settled(expected, "dismissed"));
        log.push(turn_ended());
    }
    let replay = replay_suggestions(&log);
    assert!(replay.skipped.is_empty(), "{:?}", replay.skipped);
    assert_eq!(ids(&replay.settled), ["s1", "s2", "s3", "s4", "s5"]);
}

#[test]
fn ids_never_collide_with_ids_in_the_log() {
    // One offer already uses "s2" (the next id by count).
    let log = vec![session(), turn_started(), offer("s2"), turn_ended(), turn_started()];
    let id = ok(&log, &good_input()).entry.id;
    assert_ne!(id, "s2");
    assert_eq!(id, "s3");

    // Gaps and foreign shapes.
    let log = [
        dismissed_then_a_new_turn(),
        vec![
            offer("s3"),
            turn_ended(),
            turn_started(),
            offer("legacy-a"),
            turn_ended(),
            turn_started(),
        ],
    ]
    .concat();
    let id = ok(&log, &good_input()).entry.id;
    assert!(!["s1", "s3", "legacy-a"].contains(&id.as_str()), "{id}");
    let mut log = log;
    let done = ok(&log, &good_input());
    log.push(stored(&done));
    let replay = replay_suggestions(&log);
    assert!(replay.skipped.is_empty(), "{:?}", replay.skipped);
    assert_eq!(replay.open.len() + replay.settled.len(), 4);
}

#[test]
fn ids_never_collide_with_offers_replay_cannot_read() {
    // An offer this version skips (a newer format, or a bad shape) still
    // holds its id in the chat: a new offer must not reuse it.
    for unreadable in [
        json!({ "type": "suggestion_offered", "v": FORMAT_VERSION + 1, "id": "s1", "title": "t", "tldr": "t", "brief": "b" }),
        json!({ "type": "suggestion_offered", "id": "s1", "title": "t" }),
    ] {
        let log = vec![session(), unreadable.clone(), turn_started()];
        assert_eq!(replay_suggestions(&log).skipped.len(), 1);
        let id = ok(&log, &good_input()).entry.id;
        assert_ne!(id, "s1", "reused the id of {unreadable}");
    }
}

// ---------------------------------------------------------------------------
// "This turn", "ten made", "three waiting" (section 7)
// ---------------------------------------------------------------------------

#[test]
fn an_offer_in_an_earlier_turn_does_not_block() {
    let log = vec![session(), turn_started(), offer("s1"), turn_ended(), turn_started()];
    assert_eq!(ok(&log, &good_input()).entry.id, "s2");
    // Even when the earlier turn was never ended.
    let log = vec![session(), turn_started(), offer("s1"), turn_started()];
    assert_eq!(ok(&log, &good_input()).entry.id, "s2");
}

#[test]
fn this_turn_is_after_the_latest_turn_started() {
    // Offers before the latest turn_started, however many, are not "this turn";
    // an offer after it is, even with other entries in between.
    let log = [
        dismissed_then_a_new_turn(),
        vec![
            json!({ "type": "app_note", "text": "hi" }),
            user_message("go on"),
            offer("s2"),
            settled("s2", "dismissed"),
            json!({ "type": "tool_call", "name": "x" }),
        ],
    ]
    .concat();
    // Dismissing this turn's offer does not free the turn.
    assert_eq!(refused(&log, &good_input()), ONE_PER_TURN);
}

#[test]
fn ten_counts_offers_whatever_their_standing() {
    let mut log = vec![session()];
    let outcomes = [
        "dismissed",
        "drafted",
        "started",
        "dismissed",
        "drafted",
        "started",
        "dismissed",
    ];
    for i in 1..=10 {
        let id = format!("s{i}");
        log.push(turn_started());
        log.push(offer(&id));
        match outcomes.get(i - 1) {
            Some(&"started") => log.push(started(&id, &format!("c1.{id}"))),
            Some(outcome) => log.push(settled(&id, outcome)),
            None => {}
        }
        log.push(turn_ended());
    }
    log.push(turn_started());
    assert_eq!(refused(&log, &good_input()), TEN);

    // Nine made, all dismissed: one more is allowed, and it is the tenth.
    let mut log = log_with_offers(9);
    for i in 1..=9 {
        log.insert(log.len() - 1, settled(&format!("s{i}"), "dismissed"));
    }
    let done = ok(&log, &good_input());
    assert_eq!(done.entry.id, "s10");
    log.push(stored(&done));
    log.push(turn_ended());
    log.push(turn_started());
    assert_eq!(refused(&log, &good_input()), TEN);
}

#[test]
fn restored_offers_still_count_once_toward_ten() {
    // Restore cycles do not add offers.
    let mut log = log_with_offers(9);
    let at = log.len() - 1;
    for (k, e) in [
        settled("s1", "dismissed"),
        settled("s1", "restored"),
        settled("s1", "dismissed"),
        settled("s1", "restored"),
        settled("s1", "dismissed"),
    ]
    .into_iter()
    .enumerate()
    {
        log.insert(at + k, e);
    }
    for i in 2..=9 {
        log.insert(log.len() - 1, settled(&format!("s{i}"), "drafted"));
    }
    assert_eq!(ok(&log, &good_input()).entry.id, "s10");
}

#[test]
fn three_waiting_counts_open_offers_only() {
    let base = log_with_offers(3);
    assert_eq!(refused(&base, &good_input()), THREE);

    // Each way of settling one frees a slot.
    for settlement in [
        settled("s2", "dismissed"),
        settled("s2", "drafted"),
        started("s2", "c1.s2"),
    ] {
        let mut log = base.clone();
        log.insert(log.len() - 1, settlement.clone());
        assert_eq!(ok(&log, &good_input()).entry.id, "s4", "after {settlement}");
    }

    // A restored offer takes its slot again.
    let mut log = base.clone();
    log.insert(log.len() - 1, settled("s2", "dismissed"));
    log.insert(log.len() - 1, settled("s2", "restored"));
    assert_eq!(refused(&log, &good_input()), THREE);

    // A settlement that changes nothing (restoring an open offer) frees nothing.
    let mut log = base.clone();
    log.insert(log.len() - 1, settled("s2", "restored"));
    assert_eq!(refused(&log, &good_input()), THREE);

    // A settlement naming no offer frees nothing either.
    let mut log = base;
    log.insert(log.len() - 1, settled("s9", "dismissed"));
    assert_eq!(refused(&log, &good_input()), THREE);
}

#[test]
fn two_open_offers_allow_a_third() {
    let log = log_with_offers(2);
    assert_eq!(ok(&log, &good_input()).entry.id, "s3");
}

// ---------------------------------------------------------------------------
// The ledger: replay_suggestions (section 4, records and replay)
// ---------------------------------------------------------------------------

#[test]
fn open_newest_first_settled_in_offer_order() {
    let mut log = log_with_offers(6);
    log.extend([
        settled("s5", "dismissed"),
        settled("s1", "drafted"),
        started("s3", "c1.s3"),
        settled("s6", "drafted"),
    ]);
    let replay = replay_suggestions(&log);
    assert!(replay.skipped.is_empty(), "{:?}", replay.skipped);
    assert_eq!(ids(&replay.open), ["s4", "s2"]);
    assert_eq!(
        outcomes(&replay.settled),
        [
            ("s1", Some("drafted")),
            ("s3", Some("started")),
            ("s5", Some("dismissed")),
            ("s6", Some("drafted"))
        ]
    );
    let s3 = &replay.settled[1];
    assert_eq!(s3.chat_id.as_deref(), Some("c1.s3"));
    assert_eq!(
        (s3.title.as_str(), s3.tldr.as_str(), s3.brief.as_str()),
        ("Title s3", "Tldr s3", "Brief s3")
    );
    assert!(replay
        .settled
        .iter()
        .filter(|l| l.id != "s3")
        .all(|l| l.chat_id.is_none()));
}

#[test]
fn replay_serializes_with_the_contract_names() {
    let mut log = log_with_offers(2);
    log.push(started("s1", "c1.s1"));
    let value = serde_json::to_value(replay_suggestions(&log)).unwrap();
    assert_eq!(
        value["open"],
        json!([{ "id": "s2", "title": "Title s2", "tldr": "Tldr s2", "brief": "Brief s2" }])
    );
    assert_eq!(
        value["settled"],
        json!([{ "id": "s1", "title": "Title s1", "tldr": "Tldr s1", "brief": "Brief s1", "outcome": "started", "chatId": "c1.s1" }])
    );
    assert_eq!(value["skipped"], json!([]));
}

#[test]
fn a_restored_offer_returns_by_when_it_was_offered() {
    let mut log = log_with_offers(4);
    log.extend([
        settled("s2", "dismissed"),
        settled("s1", "dismissed"),
        settled("s2", "restored"),
    ]);
    let replay = replay_suggestions(&log);
    assert_eq!(ids(&replay.open), ["s4", "s3", "s2"]);
    assert_eq!(outcomes(&replay.settled), [("s1", Some("dismissed"))]);

    // Restored long after newer offers: still placed by its offer.
    let mut log = vec![
        session(),
        turn_started(),
        offer("s1"),
        settled("s1", "dismissed"),
        turn_ended(),
    ];
    for i in 2..=3 {
        log.extend([turn_started(), offer(&format!("s{i}")), turn_ended()]);
    }
    log.push(settled("s1", "restored"));
    assert_eq!(ids(&replay_suggestions(&log).open), ["s3", "s2", "s1"]);
}

#[test]
fn dismiss_restore_cycles_then_start() {
    let mut log = log_with_offers(1);
    log.extend([
        settled("s1", "dismissed"),
        settled("s1", "restored"),
        settled("s1", "dismissed"),
        settled("s1", "restored"),
    ]);
    let replay = replay_suggestions(&log);
    assert_eq!(ids(&replay.open), ["s1"]);
    assert!(replay.settled.is_empty());
    log.push(started("s1", "c1.s1"));
    let replay = replay_suggestions(&log);
    assert!(replay.skipped.is_empty(), "{:?}", replay.skipped);
    assert!(replay.open.is_empty());
    assert_eq!(outcomes(&replay.settled), [("s1", Some("started"))]);
    assert_eq!(replay.settled[0].chat_id.as_deref(), Some("c1.s1"));
}

#[test]
fn a_new_settlement_replaces_the_previous_one() {
    // dismissed -> restored -> drafted: the offer is drafted, not dismissed.
    let mut log = log_with_offers(1);
    log.extend([
        settled("s1", "dismissed"),
        settled("s1", "restored"),
        settled("s1", "drafted"),
    ]);
    let replay = replay_suggestions(&log);
    assert_eq!(outcomes(&replay.settled), [("s1", Some("drafted"))]);
    assert!(replay.skipped.is_empty());
}

#[test]
fn a_settlement_naming_no_offer_changes_nothing() {
    let mut log = log_with_offers(2);
    let at = log.len();
    log.push(settled("s9", "dismissed"));
    log.push(started("nope", "c1.nope"));
    let replay = replay_suggestions(&log);
    assert_eq!(ids(&replay.open), ["s2", "s1"]);
    assert!(replay.settled.is_empty());
    assert_eq!(skipped_indexes(&replay), [at, at + 1]);
    assert!(replay
        .skipped
        .iter()
        .all(|s| s.kind.as_deref() == Some("suggestion_settled")));
}

#[test]
fn a_settlement_before_its_offer_names_no_offer() {
    let log = vec![session(), settled("s1", "dismissed"), turn_started(), offer("s1")];
    let replay = replay_suggestions(&log);
    assert_eq!(ids(&replay.open), ["s1"]);
    assert!(replay.settled.is_empty());
    assert_eq!(skipped_indexes(&replay), [1]);
}

#[test]
fn only_open_offers_take_started_drafted_dismissed() {
    for (first, second) in [
        (settled("s1", "dismissed"), started("s1", "c1.s1")),
        (settled("s1", "dismissed"), settled("s1", "drafted")),
        (settled("s1", "dismissed"), settled("s1", "dismissed")),
        (settled("s1", "drafted"), settled("s1", "dismissed")),
        (settled("s1", "drafted"), started("s1", "c1.s1")),
        (started("s1", "c1.s1"), settled("s1", "dismissed")),
        (started("s1", "c1.s1"), started("s1", "c1.other")),
        (started("s1", "c1.s1"), settled("s1", "drafted")),
    ] {
        let mut log = log_with_offers(1);
        log.push(first.clone());
        let at = log.len();
        log.push(second.clone());
        let replay = replay_suggestions(&log);
        let expected = first["outcome"].as_str().unwrap();
        assert_eq!(
            outcomes(&replay.settled),
            [("s1", Some(expected))],
            "{first} then {second}"
        );
        assert_eq!(skipped_indexes(&replay), [at], "{first} then {second}");
        if expected == "started" {
            assert_eq!(replay.settled[0].chat_id.as_deref(), Some("c1.s1"));
        }
    }
}

#[test]
fn restored_applies_only_to_a_dismissed_offer() {
    // On an open offer.
    let mut log = log_with_offers(1);
    let at = log.len();
    log.push(settled("s1", "restored"));
    let replay = replay_suggestions(&log);
    assert_eq!(ids(&replay.open), ["s1"]);
    assert_eq!(skipped_indexes(&replay), [at]);
    // On a started or drafted offer.
    for first in [started("s1", "c1.s1"), settled("s1", "drafted")] {
        let mut log = log_with_offers(1);
        log.push(first.clone());
        let at = log.len();
        log.push(settled("s1", "restored"));
        let replay = replay_suggestions(&log);
        assert!(replay.open.is_empty(), "{first}");
        assert_eq!(outcomes(&replay.settled), [("s1", first["outcome"].as_str())]);
        assert_eq!(skipped_indexes(&replay), [at]);
    }
}

#[test]
fn started_without_chat_id_is_skipped() {
    let mut log = log_with_offers(1);
    let at = log.len();
    log.push(settled("s1", "started"));
    log.push(json!({ "type": "suggestion_settled", "id": "s1", "outcome": "started", "chatId": null }));
    let replay = replay_suggestions(&log);
    assert_eq!(ids(&replay.open), ["s1"]);
    assert_eq!(skipped_indexes(&replay), [at, at + 1]);
}

#[test]
fn an_older_offer_over_todays_limits_still_replays() {
    let title = chars("t", 100);
    let tldr = chars("l", 1000);
    let brief = chars("b", 10_000);
    let log = vec![
        session(),
        turn_started(),
        json!({ "type": "suggestion_offered", "id": "s1", "title": title, "tldr": tldr, "brief": brief }),
    ];
    let replay = replay_suggestions(&log);
    assert!(replay.skipped.is_empty(), "{:?}", replay.skipped);
    assert_eq!(replay.open.len(), 1);
    assert_eq!(replay.open[0].title, title);
    assert_eq!(replay.open[0].tldr, tldr);
    assert_eq!(replay.open[0].brief, brief);
}

#[test]
fn unknown_entry_types_are_ignored_without_a_skip() {
    let mut log = log_with_offers(1);
    log.extend([
        json!({ "type": "app_note", "text": "hi" }),
        json!({ "type": "reaction", "emoji": "👍", "v": 99 }),
        json!({ "type": "Suggestion_Offered", "id": "s5" }),
        json!({ "type": "suggestion_dismissed", "id": "s1" }),
    ]);
    let replay = replay_suggestions(&log);
    assert!(replay.skipped.is_empty(), "{:?}", replay.skipped);
    assert_eq!(ids(&replay.open), ["s1"]);
}

#[test]
fn known_types_of_a_bad_shape_are_skipped_with_their_index() {
    let mut log = log_with_offers(1);
    let first = log.len();
    log.extend([
        json!({ "type": "suggestion_offered", "id": "s2", "title": "t", "tldr": "l" }),
        json!({ "type": "suggestion_offered", "id": "s3", "title": 5, "tldr": "l", "brief": "b" }),
        json!({ "type": "suggestion_offered", "title": "t", "tldr": "l", "brief": "b" }),
        json!({ "type": "suggestion_settled", "id": "s1", "outcome": "archived" }),
        json!({ "type": "suggestion_settled", "outcome": "dismissed" }),
        json!({ "type": "suggestion_settled", "id": "s1", "outcome": "dismissed", "v": "1" }),
    ]);
    let replay = replay_suggestions(&log);
    assert_eq!(ids(&replay.open), ["s1"]);
    assert!(replay.settled.is_empty());
    assert_eq!(skipped_indexes(&replay), (first..first + 6).collect::<Vec<_>>());
    let kinds: Vec<_> = replay.skipped.iter().map(|s| s.kind.as_deref()).collect();
    assert_eq!(
        kinds,
        [
            Some("suggestion_offered"),
            Some("suggestion_offered"),
            Some("suggestion_offered"),
            Some("suggestion_settled"),
            Some("suggestion_settled"),
            Some("suggestion_settled")
        ]
    );
    assert!(replay.skipped.iter().all(|s| !s.reason.is_empty()));
}

#[test]
fn entries_that_are_not_objects_or_have_no_type_are_skipped() {
    let mut log = log_with_offers(1);
    let first = log.len();
    log.extend([
        json!(null),
        json!("text"),
        json!([1]),
        json!({ "id": "s1" }),
        json!({ "type": 7 }),
    ]);
    let replay = replay_suggestions(&log);
    assert_eq!(ids(&replay.open), ["s1"]);
    assert_eq!(skipped_indexes(&replay), (first..first + 5).collect::<Vec<_>>());
    assert!(replay.skipped.iter().all(|s| s.kind.is_none()));
}

#[test]
fn entries_from_a_newer_format_are_skipped_and_reported() {
    let newer = FORMAT_VERSION + 1;
    let mut log = log_with_offers(1);
    let at = log.len();
    log.push(json!({ "type": "suggestion_offered", "v": newer, "id": "s2", "title": "t", "tldr": "l", "brief": "b" }));
    log.push(json!({ "type": "suggestion_settled", "v": newer, "id": "s1", "outcome": "dismissed" }));
    // The current version and no version at all (an older log) are read.
    log.push(json!({ "type": "suggestion_offered", "v": FORMAT_VERSION, "id": "s3", "title": "t", "tldr": "l", "brief": "b" }));
    log.push(json!({ "type": "suggestion_offered", "id": "s4", "title": "t", "tldr": "l", "brief": "b" }));
    let replay = replay_suggestions(&log);
    assert_eq!(ids(&replay.open), ["s4", "s3", "s1"]);
    assert_eq!(skipped_indexes(&replay), [at, at + 1]);
    assert_eq!(replay.skipped[0].kind.as_deref(), Some("suggestion_offered"));
    assert_eq!(replay.skipped[1].kind.as_deref(), Some("suggestion_settled"));
}

#[test]
fn a_duplicate_offer_id_is_skipped_and_the_first_kept() {
    let mut log = log_with_offers(1);
    let at = log.len();
    log.push(offer_full("s1", "Second", "l", "b"));
    let replay = replay_suggestions(&log);
    assert_eq!(ids(&replay.open), ["s1"]);
    assert_eq!(replay.open[0].title, "Title s1");
    assert_eq!(skipped_indexes(&replay), [at]);
    assert_eq!(replay.skipped[0].kind.as_deref(), Some("suggestion_offered"));
    // A duplicate is still an offer made (SPEC 7): it fills its turn...
    log.push(turn_ended());
    log.push(turn_started());
    log.push(offer_full("s1", "Third", "l", "b"));
    assert_eq!(refused(&log, &good_input()), ONE_PER_TURN);
    // ...and the next turn's offer gets a fresh id.
    log.push(turn_ended());
    log.push(turn_started());
    assert_eq!(ok(&log, &good_input()).entry.id, "s2");
}

#[test]
fn ten_offer_entries_reach_the_chat_limit_even_under_one_id() {
    // A log written by another tool that reuses `s1` ten times.
    let mut log = vec![session()];
    for _ in 0..10 {
        log.extend([turn_started(), offer("s1"), settled("s1", "dismissed"), turn_ended()]);
    }
    log.push(turn_started());
    assert_eq!(refused(&log, &good_input()), TEN);
    // Nine such entries leave room for one more, under a fresh id.
    let mut log = vec![session()];
    for _ in 0..9 {
        log.extend([turn_started(), offer("s1"), turn_ended()]);
    }
    log.extend([turn_started(), settled("s1", "dismissed")]);
    assert_eq!(ok(&log, &good_input()).entry.id, "s2");
}

#[test]
fn sessions_from_a_newer_version_or_with_a_bad_version_fail_closed() {
    // A helper in a scheduled folder written as v2 must not look top-level.
    let helper = "suggest_task is only for the top-level agent; report the follow-up in your result instead";
    for v in [
        json!(2),
        json!(4294967296u64),
        json!(1.5),
        json!("1"),
        json!(0),
        json!(-1),
        json!(99999999999999999999.0),
    ] {
        let log = vec![session_with(json!({ "v": v })), turn_started()];
        assert_eq!(refused(&log, &good_input()), helper, "session v = {v}");
        let replay = replay_suggestions(&log);
        assert_eq!(skipped_indexes(&replay), [0], "v = {v}");
        assert_eq!(replay.skipped[0].kind.as_deref(), Some("session"));
    }
    // A turn marker of any version is used as it is (decision: it carries nothing to misread).
    let log = vec![session(), json!({ "type": "turn_started", "v": 99 })];
    assert_eq!(ok(&log, &good_input()).entry.id, "s1");
}

#[test]
fn fields_the_core_does_not_know_are_ignored_on_read() {
    // A host may stamp times or other fields on stored entries.
    let log = vec![
        session_with(json!({ "createdAt": "2024-01-01" })),
        json!({ "type": "turn_started", "at": 1 }),
        json!({ "type": "suggestion_offered", "v": 1, "id": "s1", "title": "t", "tldr": "l", "brief": "b", "at": 2 }),
        json!({ "type": "suggestion_settled", "v": 1, "id": "s1", "outcome": "dismissed", "at": 3, "by": "me" }),
    ];
    let replay = replay_suggestions(&log);
    assert!(replay.skipped.is_empty(), "{:?}", replay.skipped);
    assert_eq!(outcomes(&replay.settled), [("s1", Some("dismissed"))]);
    assert_eq!(refused(&log, &good_input()), ONE_PER_TURN);
}

#[test]
fn an_empty_log_replays_to_nothing() {
    let replay = replay_suggestions(&[]);
    assert!(replay.open.is_empty() && replay.settled.is_empty() && replay.skipped.is_empty());
}

#[test]
fn a_session_with_odd_fields_fails_closed_not_open() {
    // null reads as absent; any other wrong type as the most restrictive value.
    let helper = "suggest_task is only for the top-level agent; report the follow-up in your result instead";
    let scheduled = "suggest_task: this chat runs in a scheduled task folder, where no new chat can start; offer no suggestions here";
    let cases = [
        (json!({"agent": "helper", "settings": null}), helper),
        (json!({"agent": 5}), helper),
        (json!({"agent": ["top-level"]}), helper),
        (json!({"scheduledTaskFolder": true, "agent": null}), scheduled),
        (json!({"scheduledTaskFolder": "yes"}), scheduled),
        (json!({"scheduledTaskFolder": 0}), scheduled),
    ];
    for (fields, want) in cases {
        let log = vec![session_with(fields.clone()), turn_started()];
        assert_eq!(refused(&log, &input("t", "w", "b")), want, "session fields {fields}");
    }
    // null fields are absent: a top-level chat outside scheduled folders.
    let log = vec![
        session_with(json!({"agent": null, "scheduledTaskFolder": null, "settings": null, "workspace": null})),
        turn_started(),
    ];
    assert_eq!(ok(&log, &input("t", "w", "b")).entry.id, "s1");
}

#[test]
fn an_offer_this_version_cannot_read_still_counts() {
    let future = json!({"type": "suggestion_offered", "v": 2, "id": "s1", "title": "t", "tldr": "w", "brief": "b"});
    // It was made in this turn: the turn has had its offer.
    let log = vec![session(), turn_started(), future.clone()];
    assert_eq!(refused(&log, &input("t", "w", "b")), ONE_PER_TURN);
    // Nine readable offers (all dismissed) and one unreadable: ten made.
    let mut log = vec![session(), future];
    for n in 2..=10 {
        let id = format!("s{n}");
        log.extend([turn_started(), offer(&id), settled(&id, "dismissed"), turn_ended()]);
    }
    log.push(turn_started());
    assert_eq!(refused(&log, &input("t", "w", "b")), TEN);
}
