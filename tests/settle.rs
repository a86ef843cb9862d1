//! The suggestion service's pure decisions (SPEC sections 5 and 7): settle,
//! plan_start, the started chat's settings, clamp_permission, started_chat,
//! check_goal and the service error codes.
//!
//! Texts and codes are compared byte for byte with literals copied from
//! SPEC.md (goal texts from src/error.rs), never built from the enums.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, clippy::indexing_slicing)] // test code: a failed assumption should panic

mod common;

use common::*;
use oda_tasks::entry::{Entry, Message, Origin, Outcome, Settings, Settlement, Source, FORMAT_VERSION};
use oda_tasks::error::{GoalError, ServiceError};
use oda_tasks::settle::{started_chat_id, started_settings};
use oda_tasks::{
    check_goal, clamp_permission, plan_start, replay_suggestions, settle, started_chat, suggest_task, Action, Decision,
    GoalAction, StartPlan, StartRequest, StartedChatState, DEFAULT_PERMISSIONS,
};
use serde_json::{json, Value};

// ---------------------------------------------------------------------------
// Helpers
// ---------------------------------------------------------------------------

fn order() -> Vec<String> {
    DEFAULT_PERMISSIONS.iter().map(|p| p.to_string()).collect()
}

fn custom_order() -> Vec<String> {
    ["none", "view", "edit", "admin"]
        .iter()
        .map(|p| p.to_string())
        .collect()
}

fn no_request() -> StartRequest {
    StartRequest::default()
}

/// A failure as the caller sees it: (code, message).
fn failure<T: std::fmt::Debug>(result: Result<T, ServiceError>) -> (&'static str, String) {
    match result {
        Ok(v) => panic!("expected a service failure, got {v:?}"),
        Err(e) => (e.code(), e.to_string()),
    }
}

/// `result` refuses offer `s1` as not open, settled as `outcome`, with its code and text.
fn not_open<T: std::fmt::Debug + PartialEq>(result: Result<T, ServiceError>, outcome: &'static str, what: &str) {
    let expected = ServiceError::NotOpen {
        id: "s1".into(),
        outcome,
    };
    assert_eq!(result, Err(expected), "{what}");
    assert_eq!(
        failure(result),
        ("task-suggestion/not-open", format!("suggestion \"s1\" is {outcome}")),
        "{what}"
    );
}

fn appended(decision: Result<Decision, ServiceError>) -> Settlement {
    match decision {
        Ok(Decision::Append(s)) => s,
        other => panic!("expected an entry to append, got {other:?}"),
    }
}

fn settled_entry(s: Settlement) -> Value {
    serde_json::to_value(Entry::SuggestionSettled(s)).unwrap()
}

fn plan(log: &[Value], id: &str) -> Result<StartPlan, ServiceError> {
    plan_start(log, "c1", id, &no_request(), &order())
}

struct Create {
    chat_id: String,
    session: Value,
    settled: Value,
    brief: Value,
    settings: Settings,
}

fn create(result: Result<StartPlan, ServiceError>) -> Create {
    match result {
        Ok(StartPlan::Create {
            chat_id,
            session,
            settled,
            brief,
        }) => Create {
            chat_id,
            settings: session.settings.clone(),
            session: serde_json::to_value(Entry::Session(session)).unwrap(),
            settled: serde_json::to_value(Entry::SuggestionSettled(settled)).unwrap(),
            brief: serde_json::to_value(Entry::Message(brief)).unwrap(),
        },
        other => panic!("expected a Create plan, got {other:?}"),
    }
}

/// `c1` with `n` open offers s1..sn and an open turn, and `settings` on its session.
fn offering(settings: Value, n: usize) -> Vec<Value> {
    let mut log = log_with_offers(n);
    log[0] = session_with(json!({ "settings": settings }));
    log
}

fn origin(chat: &str, id: &str) -> Origin {
    Origin {
        chat_id: chat.to_string(),
        suggestion_id: id.to_string(),
    }
}

const ACTIONS: [Action; 3] = [Action::Draft, Action::Dismiss, Action::Restore];

// ---------------------------------------------------------------------------
// ServiceError codes and texts
// ---------------------------------------------------------------------------

#[test]
fn every_service_error_has_its_code_and_text() {
    let cases = [
        (
            ServiceError::NotFound { id: "s7".into() },
            "task-suggestion/not-found",
            "no suggestion \"s7\"",
        ),
        (
            ServiceError::NotOpen {
                id: "s1".into(),
                outcome: "dismissed",
            },
            "task-suggestion/not-open",
            "suggestion \"s1\" is dismissed",
        ),
        (
            ServiceError::OpenLimit { limit: 3 },
            "task-suggestion/open-limit",
            "3 suggestions are already open",
        ),
        (
            ServiceError::NoWorkspace { chat_id: "c1".into() },
            "task-suggestion/workspace-missing",
            "session \"c1\" belongs to no workspace",
        ),
        (
            ServiceError::ScheduledFolder { chat_id: "c1".into() },
            "task-suggestion/workspace-missing",
            "session \"c1\" runs in a scheduled task's folder",
        ),
    ];
    for (error, code, text) in cases {
        assert_eq!(error.code(), code, "{error:?}");
        assert_eq!(error.to_string(), text, "{error:?}");
    }
    assert_eq!(ServiceError::NOT_FOUND, "task-suggestion/not-found");
    assert_eq!(ServiceError::NOT_OPEN, "task-suggestion/not-open");
    assert_eq!(ServiceError::OPEN_LIMIT, "task-suggestion/open-limit");
    assert_eq!(ServiceError::WORKSPACE_MISSING, "task-suggestion/workspace-missing");
}

// ---------------------------------------------------------------------------
// settle(): draft, dismiss, restore
// ---------------------------------------------------------------------------

#[test]
fn settle_an_unknown_offer_is_not_found() {
    let log = log_with_offers(2);
    for action in ACTIONS {
        let result = settle(&log, "s9", action);
        assert_eq!(result, Err(ServiceError::NotFound { id: "s9".into() }));
        assert_eq!(
            failure(result),
            ("task-suggestion/not-found", "no suggestion \"s9\"".to_string()),
            "{action:?}"
        );
        assert_eq!(
            failure(settle(&[], "s1", action)),
            ("task-suggestion/not-found", "no suggestion \"s1\"".to_string())
        );
    }
    // An offer the log cannot read (newer format) is not found either.
    let log = vec![
        session(),
        json!({ "type": "suggestion_offered", "v": FORMAT_VERSION + 1, "id": "s1", "title": "t", "tldr": "l", "brief": "b" }),
    ];
    assert_eq!(
        settle(&log, "s1", Action::Dismiss),
        Err(ServiceError::NotFound { id: "s1".into() })
    );
}

#[test]
fn draft_and_dismiss_an_open_offer() {
    let log = log_with_offers(2);
    for (action, outcome) in [(Action::Draft, "drafted"), (Action::Dismiss, "dismissed")] {
        let s = appended(settle(&log, "s1", action));
        assert_eq!(s.id, "s1");
        assert_eq!(s.outcome.as_str(), outcome);
        assert_eq!(s.chat_id, None);
        assert_eq!(s.v, FORMAT_VERSION);
        let entry = settled_entry(s);
        assert_eq!(
            entry,
            json!({ "type": "suggestion_settled", "v": FORMAT_VERSION, "id": "s1", "outcome": outcome })
        );
        // Appended, it settles the offer.
        let mut after = log.clone();
        after.push(entry);
        let replay = replay_suggestions(&after);
        assert!(replay.skipped.is_empty(), "{:?}", replay.skipped);
        assert_eq!(replay.open.iter().map(|l| l.id.as_str()).collect::<Vec<_>>(), ["s2"]);
        assert_eq!(replay.settled[0].outcome, Some(outcome));
    }
}

#[test]
fn draft_or_dismiss_a_settled_offer_is_not_open_with_its_outcome() {
    for (setup, outcome) in [
        (settled("s1", "dismissed"), "dismissed"),
        (settled("s1", "drafted"), "drafted"),
        (started("s1", "c1.s1"), "started"),
    ] {
        let mut log = log_with_offers(1);
        log.push(setup);
        for action in [Action::Draft, Action::Dismiss] {
            not_open(settle(&log, "s1", action), outcome, &format!("{action:?} on {outcome}"));
        }
    }
    // Literal texts, once each.
    for (setup, action, text) in [
        (
            settled("s1", "dismissed"),
            Action::Draft,
            "suggestion \"s1\" is dismissed",
        ),
        (started("s1", "c1.s1"), Action::Dismiss, "suggestion \"s1\" is started"),
        (settled("s1", "drafted"), Action::Draft, "suggestion \"s1\" is drafted"),
    ] {
        let mut log = log_with_offers(1);
        log.push(setup);
        assert_eq!(failure(settle(&log, "s1", action)).1, text);
    }
}

#[test]
fn restore_an_open_offer_changes_nothing() {
    let log = log_with_offers(1);
    assert_eq!(settle(&log, "s1", Action::Restore), Ok(Decision::Unchanged));
    // Even with three open: it is not a new open offer.
    let log = log_with_offers(3);
    assert_eq!(settle(&log, "s2", Action::Restore), Ok(Decision::Unchanged));
    // And after a dismiss/restore cycle.
    let mut log = log_with_offers(1);
    log.extend([settled("s1", "dismissed"), settled("s1", "restored")]);
    assert_eq!(settle(&log, "s1", Action::Restore), Ok(Decision::Unchanged));
}

#[test]
fn restore_a_started_or_drafted_offer_is_not_open() {
    let mut log = log_with_offers(1);
    log.push(started("s1", "c1.s1"));
    assert_eq!(
        failure(settle(&log, "s1", Action::Restore)),
        ("task-suggestion/not-open", "suggestion \"s1\" is started".to_string())
    );
    let mut log = log_with_offers(1);
    log.push(settled("s1", "drafted"));
    assert_eq!(
        failure(settle(&log, "s1", Action::Restore)),
        ("task-suggestion/not-open", "suggestion \"s1\" is drafted".to_string())
    );
}

#[test]
fn restore_a_dismissed_offer() {
    // Two others open: fewer than three, so it may come back.
    let mut log = log_with_offers(3);
    log.push(settled("s1", "dismissed"));
    let s = appended(settle(&log, "s1", Action::Restore));
    let entry = settled_entry(s);
    assert_eq!(
        entry,
        json!({ "type": "suggestion_settled", "v": FORMAT_VERSION, "id": "s1", "outcome": "restored" })
    );
    log.push(entry);
    let replay = replay_suggestions(&log);
    assert!(replay.skipped.is_empty(), "{:?}", replay.skipped);
    assert_eq!(
        replay.open.iter().map(|l| l.id.as_str()).collect::<Vec<_>>(),
        ["s3", "s2", "s1"]
    );
    assert!(replay.settled.is_empty());
}

#[test]
fn restore_with_three_open_is_the_open_limit() {
    let mut log = log_with_offers(1);
    log.push(settled("s1", "dismissed"));
    for i in 2..=4 {
        log.extend([turn_ended(), turn_started(), offer(&format!("s{i}"))]);
    }
    let result = settle(&log, "s1", Action::Restore);
    assert_eq!(result, Err(ServiceError::OpenLimit { limit: 3 }));
    assert_eq!(
        failure(result),
        (
            "task-suggestion/open-limit",
            "3 suggestions are already open".to_string()
        )
    );
    // Once one of the three is settled, the restore fits.
    log.push(settled("s3", "drafted"));
    let s = appended(settle(&log, "s1", Action::Restore));
    assert_eq!(s.outcome, Outcome::Restored);
}

#[test]
fn settle_reads_the_standing_replay_reads() {
    // A settlement that does not fit is ignored: the offer stays dismissed,
    // so it can be restored, not started or drafted.
    let mut log = log_with_offers(1);
    log.extend([
        settled("s1", "dismissed"),
        started("s1", "c1.s1"),
        settled("s1", "drafted"),
    ]);
    assert_eq!(
        failure(settle(&log, "s1", Action::Draft)).1,
        "suggestion \"s1\" is dismissed"
    );
    assert_eq!(appended(settle(&log, "s1", Action::Restore)).outcome, Outcome::Restored);
}

#[test]
fn settle_is_pure() {
    let log = log_with_offers(2);
    let before = log.clone();
    let a = settle(&log, "s2", Action::Dismiss);
    let b = settle(&log, "s2", Action::Dismiss);
    assert_eq!(a, b);
    assert_eq!(log, before);
}

// ---------------------------------------------------------------------------
// plan_start(): the check order
// ---------------------------------------------------------------------------

/// A chat with every workspace problem at once.
fn homeless_scheduled(n: usize) -> Vec<Value> {
    let mut log = log_with_offers(n);
    log[0] = session_with(json!({ "workspace": null, "scheduledTaskFolder": true }));
    log
}

#[test]
fn start_not_found_comes_first() {
    let log = homeless_scheduled(1);
    let result = plan(&log, "s9");
    assert_eq!(result, Err(ServiceError::NotFound { id: "s9".into() }));
    assert_eq!(
        failure(result),
        ("task-suggestion/not-found", "no suggestion \"s9\"".to_string())
    );
    assert_eq!(plan(&[], "s1"), Err(ServiceError::NotFound { id: "s1".into() }));
}

#[test]
fn start_of_a_started_offer_returns_its_chat() {
    // No error, even with no workspace and a scheduled folder.
    let mut log = homeless_scheduled(1);
    log.push(started("s1", "chat-made-earlier"));
    match plan(&log, "s1") {
        Ok(StartPlan::Started { chat_id, brief }) => {
            assert_eq!(chat_id, "chat-made-earlier");
            assert_eq!(brief.role, "user");
            assert_eq!(brief.text.as_deref(), Some("Brief s1"));
            assert_eq!(brief.source, Some(Source::Suggestion(origin("c1", "s1"))));
        }
        other => panic!("expected Started, got {other:?}"),
    }
    // With everything in order, too: the same chat, no new one.
    let mut log = log_with_offers(1);
    log.push(started("s1", "c1.s1"));
    assert!(matches!(plan(&log, "s1"), Ok(StartPlan::Started { chat_id, .. }) if chat_id == "c1.s1"));
}

#[test]
fn start_of_a_drafted_or_dismissed_offer_is_not_open() {
    for outcome in ["drafted", "dismissed"] {
        // Before the workspace checks.
        let mut log = homeless_scheduled(1);
        log.push(settled("s1", outcome));
        not_open(plan(&log, "s1"), outcome, "start");
    }
}

#[test]
fn the_dismissal_window() {
    // A Start planned while open, then the offer is dismissed before
    // `started` is recorded: planning again (after the conflict) fails.
    let mut log = log_with_offers(1);
    create(plan(&log, "s1"));
    log.push(settled("s1", "dismissed"));
    assert_eq!(
        failure(plan(&log, "s1")),
        ("task-suggestion/not-open", "suggestion \"s1\" is dismissed".to_string())
    );
    // A `started` settlement written after the dismissal does not count.
    log.push(started("s1", "c1.s1"));
    assert_eq!(failure(plan(&log, "s1")).1, "suggestion \"s1\" is dismissed");
}

#[test]
fn start_with_no_workspace() {
    let text = "session \"c1\" belongs to no workspace".to_string();
    // workspace null
    let mut log = log_with_offers(1);
    log[0] = session_with(json!({ "workspace": null }));
    let result = plan(&log, "s1");
    assert_eq!(result, Err(ServiceError::NoWorkspace { chat_id: "c1".into() }));
    assert_eq!(failure(result), ("task-suggestion/workspace-missing", text.clone()));
    // workspace absent
    let mut s = session();
    s.as_object_mut().unwrap().remove("workspace");
    log[0] = s;
    assert_eq!(
        failure(plan(&log, "s1")),
        ("task-suggestion/workspace-missing", text.clone())
    );
    // no session entry at all: no workspace
    log.remove(0);
    assert_eq!(failure(plan(&log, "s1")), ("task-suggestion/workspace-missing", text));
    // The chat id in the text is the one asked about.
    assert_eq!(
        failure(plan_start(&log, "chat-42", "s1", &no_request(), &order())).1,
        "session \"chat-42\" belongs to no workspace"
    );
}

#[test]
fn start_in_a_scheduled_folder() {
    let mut log = log_with_offers(1);
    log[0] = session_with(json!({ "scheduledTaskFolder": true }));
    let result = plan(&log, "s1");
    assert_eq!(result, Err(ServiceError::ScheduledFolder { chat_id: "c1".into() }));
    assert_eq!(
        failure(result),
        (
            "task-suggestion/workspace-missing",
            "session \"c1\" runs in a scheduled task's folder".to_string()
        )
    );
}

#[test]
fn no_workspace_comes_before_scheduled_folder() {
    let log = homeless_scheduled(1);
    let result = plan(&log, "s1");
    assert_eq!(result, Err(ServiceError::NoWorkspace { chat_id: "c1".into() }));
    assert_eq!(failure(result).1, "session \"c1\" belongs to no workspace");
}

// ---------------------------------------------------------------------------
// plan_start(): the Create plan
// ---------------------------------------------------------------------------

#[test]
fn the_create_plan() {
    let log = vec![
        session_with(json!({ "workspace": "proj", "title": "Parent chat" })),
        turn_started(),
        offer_full("s1", "Add retries", "Uploads fail.", "In upload.ts, retry three times."),
    ];
    let p = create(plan(&log, "s1"));

    // A new chat, named from (chat, suggestion).
    assert_eq!(p.chat_id, started_chat_id("c1", "s1"));
    assert_ne!(p.chat_id, "c1");

    // Its session: same workspace, titled after the suggestion, top-level, with its origin.
    let s = &p.session;
    assert_eq!(s["type"], "session");
    assert_eq!(s["chatId"], json!(p.chat_id));
    assert_eq!(s["title"], "Add retries");
    assert_eq!(s["workspace"], "proj");
    assert_eq!(s["scheduledTaskFolder"], json!(false));
    assert_eq!(s["agent"], "top-level");
    assert_eq!(s["origin"], json!({ "chatId": "c1", "suggestionId": "s1" }));
    assert_eq!(s["v"], json!(FORMAT_VERSION));

    // The settlement on the offering chat.
    assert_eq!(
        p.settled,
        json!({ "type": "suggestion_settled", "v": FORMAT_VERSION, "id": "s1", "outcome": "started", "chatId": p.chat_id })
    );

    // The brief: a user message attributed to the suggestion.
    assert_eq!(
        p.brief,
        json!({
            "type": "message",
            "v": FORMAT_VERSION,
            "role": "user",
            "text": "In upload.ts, retry three times.",
            "source": { "kind": "suggestion", "chatId": "c1", "suggestionId": "s1" }
        })
    );
}

#[test]
fn the_started_chat_is_top_level_and_not_scheduled_whatever_the_parent_records() {
    // An offer recorded in a chat whose session says something else about
    // its agent (an older log): the chat it starts is still a top-level chat.
    let mut log = log_with_offers(1);
    log[0] = session_with(json!({ "agent": "helper" }));
    let p = create(plan(&log, "s1"));
    assert_eq!(p.session["agent"], "top-level");
    assert_eq!(p.session["scheduledTaskFolder"], json!(false));
}

#[test]
fn the_new_chat_id_is_the_same_on_every_call() {
    let mut log = log_with_offers(2);
    let a = create(plan(&log, "s1")).chat_id;
    let b = create(plan(&log, "s1")).chat_id;
    assert_eq!(a, b);
    // Another process that read a longer log names the same chat.
    log.push(user_message("hello"));
    log.push(json!({ "type": "app_note" }));
    log.push(settled("s2", "dismissed"));
    assert_eq!(create(plan(&log, "s1")).chat_id, a);
    // ... and so does a Start after a dismiss/restore cycle.
    log.extend([settled("s1", "dismissed"), settled("s1", "restored")]);
    assert_eq!(create(plan(&log, "s1")).chat_id, a);
    // Another suggestion or another chat names another chat.
    let mut log = log_with_offers(2);
    log.push(settled("s2", "restored")); // ignored: s2 is open
    let other_offer = create(plan(&log, "s2")).chat_id;
    let other_chat = create(plan_start(&log, "c2", "s1", &no_request(), &order())).chat_id;
    assert_ne!(other_offer, a);
    assert_ne!(other_chat, a);
    assert_ne!(other_chat, other_offer);
}

#[test]
fn the_plan_is_a_complete_start() {
    // Carry out the plan as the host would, then read both chats.
    let mut parent = log_with_offers(1);
    let p = create(plan(&parent, "s1"));
    let mut child = vec![p.session.clone()];
    assert_eq!(
        started_chat(Some(&child), &origin("c1", "s1")),
        StartedChatState::NeedsBrief
    );
    parent.push(p.settled.clone());
    child.push(p.brief.clone());
    assert_eq!(
        started_chat(Some(&child), &origin("c1", "s1")),
        StartedChatState::Complete
    );

    let replay = replay_suggestions(&parent);
    assert!(replay.skipped.is_empty(), "{:?}", replay.skipped);
    assert!(replay.open.is_empty());
    assert_eq!(replay.settled[0].outcome, Some("started"));
    assert_eq!(replay.settled[0].chat_id.as_deref(), Some(p.chat_id.as_str()));

    // Start again: the same chat and the same brief.
    match plan(&parent, "s1") {
        Ok(StartPlan::Started { chat_id, brief }) => {
            assert_eq!(chat_id, p.chat_id);
            assert_eq!(serde_json::to_value(Entry::Message(brief)).unwrap(), p.brief);
        }
        other => panic!("expected Started, got {other:?}"),
    }

    // The started chat is a top-level chat in the same workspace: it may
    // itself offer, and start, suggestions.
    child.push(turn_started());
    let offered = suggest_task(Some(&child), &good_input()).expect("the started chat may offer");
    child.push(serde_json::to_value(Entry::SuggestionOffered(offered.entry)).unwrap());
    let grandchild = create(plan_start(&child, &p.chat_id, "s1", &no_request(), &order()));
    assert_eq!(grandchild.session["workspace"], "w1");
    assert_ne!(grandchild.chat_id, p.chat_id);

    // Its brief is not the person's instruction.
    assert_eq!(
        check_goal(&child, GoalAction::Create).map_err(|e| e.to_string()),
        Err("goal: this chat's instructions came from a suggestion, not from the person; ask the person to confirm in their own words before you create a goal".to_string())
    );
}

#[test]
fn plan_start_is_pure() {
    let log = log_with_offers(1);
    let before = log.clone();
    assert_eq!(plan(&log, "s1"), plan(&log, "s1"));
    assert_eq!(log, before);
}

// ---------------------------------------------------------------------------
// What a started chat runs as
// ---------------------------------------------------------------------------

#[test]
fn with_a_preset_preset_model_and_permission_are_inherited() {
    let log = offering(
        json!({
            "preset": "coder",
            "model": "m-large",
            "permission": "auto",
            "sandbox": { "mode": "workspace-write" },
            "approval": "on-request"
        }),
        1,
    );
    let p = create(plan(&log, "s1"));
    assert_eq!(
        p.settings,
        Settings {
            preset: Some("coder".into()),
            model: Some("m-large".into()),
            permission: Some("auto".into()),
            sandbox: None,
            approval: None,
        }
    );
    assert_eq!(
        p.session["settings"],
        json!({ "preset": "coder", "model": "m-large", "permission": "auto" })
    );
}

#[test]
fn without_a_preset_sandbox_and_approval_are_copied_as_they_are() {
    for (sandbox, approval) in [
        (
            json!({ "mode": "workspace-write", "network": false, "paths": ["/a", "/b"] }),
            json!("on-request"),
        ),
        (json!("read-only"), json!({ "policy": "never", "except": [] })),
        (json!(3), json!(true)),
        (json!([1, "two", null]), json!(0.5)),
        (json!(false), json!("")),
    ] {
        let log = offering(
            json!({ "model": "m1", "permission": "ask", "sandbox": sandbox, "approval": approval }),
            1,
        );
        let p = create(plan(&log, "s1"));
        assert_eq!(p.settings.preset, None);
        assert_eq!(p.settings.model.as_deref(), Some("m1"));
        assert_eq!(p.settings.permission.as_deref(), Some("ask"));
        assert_eq!(p.settings.sandbox.as_ref().map(|c| c.value()), Some(sandbox.clone()));
        assert_eq!(p.settings.approval.as_ref().map(|c| c.value()), Some(approval.clone()));
        assert_eq!(p.session["settings"]["sandbox"], sandbox);
        assert_eq!(p.session["settings"]["approval"], approval);
    }
}

#[test]
fn full_access_starts_full_access() {
    let log = offering(json!({ "preset": "p", "permission": "full-access" }), 1);
    assert_eq!(
        create(plan(&log, "s1")).settings.permission.as_deref(),
        Some("full-access")
    );
}

#[test]
fn a_requested_model_is_used() {
    let log = offering(json!({ "preset": "coder", "model": "m1", "permission": "auto" }), 1);
    let request = StartRequest {
        model: Some("m2".into()),
        permission: None,
    };
    let p = create(plan_start(&log, "c1", "s1", &request, &order()));
    assert_eq!(p.settings.model.as_deref(), Some("m2"));
    assert_eq!(p.settings.preset.as_deref(), Some("coder"));
    assert_eq!(p.settings.permission.as_deref(), Some("auto"));
    // With no model on the parent, too.
    let log = offering(json!({ "permission": "auto" }), 1);
    let p = create(plan_start(&log, "c1", "s1", &request, &order()));
    assert_eq!(p.settings.model.as_deref(), Some("m2"));
}

#[test]
fn a_requested_permission_is_clamped_to_the_offering_chat() {
    for (parent, wanted, expected) in [
        ("ask", "full-access", "ask"),
        ("ask", "auto", "ask"),
        ("ask", "ask", "ask"),
        ("ask", "read-only", "read-only"),
        ("full-access", "auto", "auto"),
        ("full-access", "full-access", "full-access"),
        ("auto", "root", "read-only"),
        ("auto", "", "read-only"),
        ("auto", "Full-Access", "read-only"),
        ("superuser", "ask", "read-only"),
    ] {
        let log = offering(json!({ "preset": "p", "permission": parent }), 1);
        let request = StartRequest {
            model: None,
            permission: Some(wanted.into()),
        };
        let p = create(plan_start(&log, "c1", "s1", &request, &order()));
        assert_eq!(
            p.settings.permission.as_deref(),
            Some(expected),
            "{parent} asked {wanted}"
        );
    }
}

#[test]
fn a_parent_without_a_permission_starts_at_the_lowest() {
    let log = offering(json!({ "preset": "p" }), 1);
    assert_eq!(
        create(plan(&log, "s1")).settings.permission.as_deref(),
        Some("read-only")
    );
    let request = StartRequest {
        model: None,
        permission: Some("full-access".into()),
    };
    let p = create(plan_start(&log, "c1", "s1", &request, &order()));
    assert_eq!(p.settings.permission.as_deref(), Some("read-only"));
    // No session at all: no workspace, so nothing starts; started_settings
    // itself fails closed.
    let s = started_settings(&Settings::default(), &request, &order());
    assert_eq!(s.permission.as_deref(), Some("read-only"));
}

#[test]
fn a_host_configured_order_is_used_for_start() {
    let log = offering(json!({ "preset": "p", "permission": "edit" }), 1);
    for (wanted, expected) in [
        (None, "edit"),
        (Some("admin"), "edit"),
        (Some("view"), "view"),
        (Some("none"), "none"),
        // The default names mean nothing in this order: the lowest.
        (Some("full-access"), "none"),
    ] {
        let request = StartRequest {
            model: None,
            permission: wanted.map(str::to_string),
        };
        let p = create(plan_start(&log, "c1", "s1", &request, &custom_order()));
        assert_eq!(p.settings.permission.as_deref(), Some(expected), "asked {wanted:?}");
    }
    // A parent permission from the default order is unknown here.
    let log = offering(json!({ "preset": "p", "permission": "full-access" }), 1);
    let p = create(plan_start(&log, "c1", "s1", &no_request(), &custom_order()));
    assert_eq!(p.settings.permission.as_deref(), Some("none"));
}

#[test]
fn started_settings_directly() {
    let parent = Settings {
        preset: None,
        model: Some("m1".into()),
        permission: Some("auto".into()),
        sandbox: Some(json!({ "x": 1 }).into()),
        approval: Some(json!("never").into()),
    };
    assert_eq!(started_settings(&parent, &no_request(), &order()), parent);
    let with_preset = Settings {
        preset: Some("p".into()),
        ..parent.clone()
    };
    let s = started_settings(&with_preset, &no_request(), &order());
    assert_eq!(s.sandbox, None);
    assert_eq!(s.approval, None);
    assert_eq!(s.preset.as_deref(), Some("p"));
    assert_eq!(s.model.as_deref(), Some("m1"));
    assert_eq!(s.permission.as_deref(), Some("auto"));
}

// ---------------------------------------------------------------------------
// clamp_permission
// ---------------------------------------------------------------------------

#[test]
fn clamp_every_pair_of_the_default_order() {
    let names = ["read-only", "ask", "auto", "full-access"];
    assert_eq!(DEFAULT_PERMISSIONS, names);
    for (i, wanted) in names.iter().enumerate() {
        for (j, ceiling) in names.iter().enumerate() {
            let expected = names[i.min(j)];
            assert_eq!(
                clamp_permission(Some(wanted), Some(ceiling), &order()).as_deref(),
                Some(expected),
                "wanted {wanted}, ceiling {ceiling}"
            );
        }
    }
    // A few spelled out.
    assert_eq!(
        clamp_permission(Some("full-access"), Some("ask"), &order()).as_deref(),
        Some("ask")
    );
    assert_eq!(
        clamp_permission(Some("read-only"), Some("full-access"), &order()).as_deref(),
        Some("read-only")
    );
    assert_eq!(
        clamp_permission(Some("auto"), Some("auto"), &order()).as_deref(),
        Some("auto")
    );
}

#[test]
fn clamp_fails_closed_on_unknown_or_missing() {
    let unknown = [
        None,
        Some("root"),
        Some(""),
        Some("Full-Access"),
        Some(" ask"),
        Some("full_access"),
    ];
    let known = DEFAULT_PERMISSIONS.iter().map(|p| Some(*p));
    for other in known.chain(unknown) {
        for bad in unknown {
            assert_eq!(
                clamp_permission(bad, other, &order()).as_deref(),
                Some("read-only"),
                "wanted {bad:?}, ceiling {other:?}"
            );
            assert_eq!(
                clamp_permission(other, bad, &order()).as_deref(),
                Some("read-only"),
                "wanted {other:?}, ceiling {bad:?}"
            );
        }
    }
}

#[test]
fn clamp_with_a_host_configured_order() {
    let names = ["none", "view", "edit", "admin"];
    for (i, wanted) in names.iter().enumerate() {
        for (j, ceiling) in names.iter().enumerate() {
            assert_eq!(
                clamp_permission(Some(wanted), Some(ceiling), &custom_order()).as_deref(),
                Some(names[i.min(j)])
            );
        }
        assert_eq!(
            clamp_permission(Some(wanted), None, &custom_order()).as_deref(),
            Some("none")
        );
        assert_eq!(
            clamp_permission(Some(wanted), Some("full-access"), &custom_order()).as_deref(),
            Some("none")
        );
    }
    // The order given, not the default: "auto" above "full-access" here.
    let reversed: Vec<String> = ["full-access", "auto"].iter().map(|s| s.to_string()).collect();
    assert_eq!(
        clamp_permission(Some("auto"), Some("full-access"), &reversed).as_deref(),
        Some("full-access")
    );
    // A one-permission order.
    let single = vec!["only".to_string()];
    assert_eq!(
        clamp_permission(Some("only"), Some("only"), &single).as_deref(),
        Some("only")
    );
    assert_eq!(
        clamp_permission(Some("x"), Some("only"), &single).as_deref(),
        Some("only")
    );
}

// ---------------------------------------------------------------------------
// started_chat
// ---------------------------------------------------------------------------

fn child_session(origin: Option<Value>) -> Value {
    let mut s = session_with(json!({ "chatId": "c1.s1", "title": "Title s1" }));
    if let Some(o) = origin {
        s["origin"] = o;
    }
    s
}

#[test]
fn started_chat_states() {
    let o = origin("c1", "s1");
    let from_s1 = Some(json!({ "chatId": "c1", "suggestionId": "s1" }));

    assert_eq!(started_chat(None, &o), StartedChatState::Missing);

    let log = vec![child_session(from_s1.clone())];
    assert_eq!(started_chat(Some(&log), &o), StartedChatState::NeedsBrief);

    let log = vec![child_session(from_s1.clone()), brief_message("Brief s1", "c1", "s1")];
    assert_eq!(started_chat(Some(&log), &o), StartedChatState::Complete);

    // Complete stays complete as the chat goes on.
    let mut log = log;
    log.extend([turn_started(), user_message("thanks"), turn_ended()]);
    assert_eq!(started_chat(Some(&log), &o), StartedChatState::Complete);

    // A brief from another offer is not this one's.
    let log = vec![child_session(from_s1.clone()), brief_message("Brief s2", "c1", "s2")];
    assert_eq!(started_chat(Some(&log), &o), StartedChatState::NeedsBrief);

    // A person's message is not the brief.
    let log = vec![child_session(from_s1), user_message("Brief s1")];
    assert_eq!(started_chat(Some(&log), &o), StartedChatState::NeedsBrief);
}

#[test]
fn started_chat_foreign() {
    let o = origin("c1", "s1");
    for log in [
        vec![child_session(None)],
        vec![child_session(Some(json!({ "chatId": "c1", "suggestionId": "s2" })))],
        vec![child_session(Some(json!({ "chatId": "c2", "suggestionId": "s1" })))],
        vec![brief_message("Brief s1", "c1", "s1")],
        vec![user_message("hi")],
    ] {
        assert_eq!(started_chat(Some(&log), &o), StartedChatState::Foreign, "{log:?}");
    }
}

#[test]
fn started_chat_serializes_snake_case() {
    for (state, name) in [
        (StartedChatState::Missing, "missing"),
        (StartedChatState::NeedsBrief, "needs_brief"),
        (StartedChatState::Complete, "complete"),
        (StartedChatState::Foreign, "foreign"),
    ] {
        assert_eq!(serde_json::to_value(state).unwrap(), json!(name));
    }
}

// ---------------------------------------------------------------------------
// check_goal
// ---------------------------------------------------------------------------

const FROM_SUGGESTION_CREATE: &str = "goal: this chat's instructions came from a suggestion, not from the person; ask the person to confirm in their own words before you create a goal";
const FROM_SUGGESTION_COMPLETE: &str = "goal: this chat's instructions came from a suggestion, not from the person; ask the person to confirm in their own words before you complete a goal";
const NO_INSTRUCTION_CREATE: &str =
    "goal: the person has not given an instruction in this chat yet; ask the person before you create a goal";
const NO_INSTRUCTION_COMPLETE: &str =
    "goal: the person has not given an instruction in this chat yet; ask the person before you complete a goal";

fn goal(log: &[Value], action: GoalAction) -> Result<(), String> {
    check_goal(log, action).map_err(|e| e.to_string())
}

fn started_log() -> Vec<Value> {
    vec![
        child_session(Some(json!({ "chatId": "c1", "suggestionId": "s1" }))),
        brief_message("Brief s1", "c1", "s1"),
    ]
}

#[test]
fn a_brief_alone_is_not_the_persons_instruction() {
    let log = started_log();
    assert_eq!(goal(&log, GoalAction::Create), Err(FROM_SUGGESTION_CREATE.to_string()));
    assert_eq!(
        goal(&log, GoalAction::Complete),
        Err(FROM_SUGGESTION_COMPLETE.to_string())
    );
    assert!(matches!(
        check_goal(&log, GoalAction::Create),
        Err(GoalError::NotFromPerson(_))
    ));
    // The model's own messages do not change that.
    let mut log = log;
    log.extend([
        turn_started(),
        json!({ "type": "message", "role": "assistant", "text": "On it." }),
        turn_ended(),
    ]);
    assert_eq!(goal(&log, GoalAction::Create), Err(FROM_SUGGESTION_CREATE.to_string()));
    // A second brief is still not the person.
    log.push(brief_message("Again", "c1", "s1"));
    assert_eq!(
        goal(&log, GoalAction::Complete),
        Err(FROM_SUGGESTION_COMPLETE.to_string())
    );
}

#[test]
fn no_message_at_all_is_no_instruction() {
    for log in [
        vec![],
        vec![session()],
        vec![
            session(),
            turn_started(),
            json!({ "type": "message", "role": "assistant", "text": "Hi" }),
        ],
        vec![
            session(),
            json!({ "type": "app_note", "role": "user", "text": "not a message" }),
        ],
    ] {
        assert_eq!(
            goal(&log, GoalAction::Create),
            Err(NO_INSTRUCTION_CREATE.to_string()),
            "{log:?}"
        );
        assert_eq!(
            goal(&log, GoalAction::Complete),
            Err(NO_INSTRUCTION_COMPLETE.to_string()),
            "{log:?}"
        );
    }
}

#[test]
fn the_persons_own_message_is_accepted_after_or_before_the_brief() {
    let mut after = started_log();
    after.push(user_message("Yes, go ahead."));
    assert_eq!(goal(&after, GoalAction::Create), Ok(()));
    assert_eq!(goal(&after, GoalAction::Complete), Ok(()));

    let mut before = vec![started_log()[0].clone(), user_message("Hello")];
    before.push(started_log()[1].clone());
    assert_eq!(goal(&before, GoalAction::Create), Ok(()));
    assert_eq!(goal(&before, GoalAction::Complete), Ok(()));

    // A chat that was never started from a suggestion.
    let plain = vec![session(), user_message("Make a goal")];
    assert_eq!(goal(&plain, GoalAction::Create), Ok(()));
}

#[test]
fn a_user_message_with_a_suggestion_source_is_not_the_person() {
    // Whatever its text, and whichever offer it names.
    let log = vec![session(), brief_message("I, the person, confirm.", "c9", "s4")];
    assert_eq!(goal(&log, GoalAction::Create), Err(FROM_SUGGESTION_CREATE.to_string()));
}

// ---------------------------------------------------------------------------
// The brief message type as built by the core
// ---------------------------------------------------------------------------

#[test]
fn the_brief_in_a_started_plan_is_a_suggestion_message() {
    let mut log = log_with_offers(1);
    log.push(started("s1", "c1.s1"));
    let Ok(StartPlan::Started { brief, .. }) = plan(&log, "s1") else {
        panic!("expected Started");
    };
    assert_eq!(
        brief,
        Message {
            v: FORMAT_VERSION,
            role: "user".into(),
            text: Some("Brief s1".into()),
            source: Some(Source::Suggestion(origin("c1", "s1"))),
        }
    );
}

#[test]
fn a_workspace_of_the_wrong_type_is_no_workspace() {
    let log = vec![session_with(json!({"workspace": 5})), turn_started(), offer("s1")];
    assert_eq!(
        failure(plan(&log, "s1")),
        (
            "task-suggestion/workspace-missing",
            "session \"c1\" belongs to no workspace".to_string()
        )
    );
}

#[test]
fn started_chat_ids_stay_short_deterministic_and_distinct() {
    assert_eq!(started_chat_id("chat-1", "s1"), "chat-1.s1");
    // Generations of chats started from started chats.
    let mut id = "c".repeat(36);
    let mut seen = std::collections::HashSet::new();
    for n in 0..100 {
        id = started_chat_id(&id, &format!("s{}", n % 10 + 1));
        assert!(id.len() <= oda_tasks::settle::STARTED_ID_MAX, "{id}");
        assert!(seen.insert(id.clone()), "repeated id {id}");
        assert!(!id.contains('/') && !id.contains('\0'));
    }
    // Long ids that share a prefix still differ; multi-byte text is cut on a char boundary.
    let a = started_chat_id(&format!("{}a", "é".repeat(100)), "s1");
    let b = started_chat_id(&format!("{}b", "é".repeat(100)), "s1");
    assert_ne!(a, b);
    assert_eq!(a, started_chat_id(&format!("{}a", "é".repeat(100)), "s1"));
}
