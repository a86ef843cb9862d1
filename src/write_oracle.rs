//! The oracle of the writer: every answer type as serde's derive wrote it
//! (the type definitions as they were, test-only), and differential tests
//! that the core's own writer writes the same text byte for byte.

use serde::Serialize;
use serde_json::{json, Value};

use crate::chat::Chat;
use crate::json::ToJson;
use crate::testgen::{self, Rng};
use crate::{entry, jsonl, settle, suggest, todo, tool};

#[derive(Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
enum Entry {
    Session(SessionEntry),
    TurnStarted {},
    TurnEnded {},
    TodoUpdate(TodoUpdate),
    SuggestionOffered(Offer),
    SuggestionSettled(Settlement),
    Message(Message),
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct SessionEntry {
    v: u32,
    chat_id: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    title: Option<String>,
    workspace: Option<String>,
    scheduled_task_folder: bool,
    agent: String,
    settings: Settings,
    #[serde(skip_serializing_if = "Option::is_none")]
    origin: Option<Origin>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Settings {
    #[serde(skip_serializing_if = "Option::is_none")]
    preset: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    model: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    permission: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    sandbox: Option<Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    approval: Option<Value>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Origin {
    chat_id: String,
    suggestion_id: String,
}

#[derive(Serialize)]
#[serde(rename_all = "snake_case")]
enum TodoStatus {
    Pending,
    InProgress,
    Completed,
}

#[derive(Serialize)]
struct TodoItem {
    content: String,
    status: TodoStatus,
}

#[derive(Serialize)]
struct TodoUpdate {
    v: u32,
    todos: Vec<TodoItem>,
}

#[derive(Serialize)]
struct Offer {
    v: u32,
    id: String,
    title: String,
    tldr: String,
    brief: String,
}

#[derive(Serialize)]
#[serde(rename_all = "snake_case")]
enum Outcome {
    Started,
    Drafted,
    Dismissed,
    Restored,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Settlement {
    v: u32,
    id: String,
    outcome: Outcome,
    #[serde(skip_serializing_if = "Option::is_none")]
    chat_id: Option<String>,
}

#[derive(Serialize)]
struct Message {
    v: u32,
    role: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    text: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    source: Option<Source>,
}

#[derive(Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
enum Source {
    Suggestion(Origin),
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Skipped {
    index: usize,
    #[serde(rename = "type")]
    kind: Option<String>,
    reason: String,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Counts {
    pending: usize,
    in_progress: usize,
    completed: usize,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Card {
    index: usize,
    turn: Option<usize>,
    todos: Vec<TodoItem>,
    counts: Counts,
    changes: Changes,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Changes {
    added: Vec<Placed>,
    removed: Vec<Placed>,
    status_changed: Vec<StatusChange>,
    moved: Vec<Move>,
}

#[derive(Serialize)]
struct Placed {
    content: String,
    status: TodoStatus,
    position: usize,
}

#[derive(Serialize)]
struct StatusChange {
    content: String,
    from: TodoStatus,
    to: TodoStatus,
}

#[derive(Serialize)]
struct Move {
    content: String,
    from: usize,
    to: usize,
}

#[derive(Serialize)]
#[serde(rename_all = "snake_case")]
enum PlanState {
    None,
    Running,
    Finished,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Plan {
    state: PlanState,
    todos: Vec<TodoItem>,
    turn: Option<usize>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct TodoReplay {
    todos: Vec<TodoItem>,
    cards: Vec<Card>,
    plan: Plan,
    skipped: Vec<Skipped>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Listed {
    id: String,
    title: String,
    tldr: String,
    brief: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    outcome: Option<&'static str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    chat_id: Option<String>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct SuggestionReplay {
    open: Vec<Listed>,
    settled: Vec<Listed>,
    skipped: Vec<Skipped>,
}

#[derive(Serialize)]
#[serde(rename_all = "snake_case")]
enum StartedChatState {
    Missing,
    NeedsBrief,
    Complete,
    Foreign,
}

#[derive(Serialize)]
struct UnreadableLine {
    line: usize,
    reason: String,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct ToolDefinition {
    name: &'static str,
    description: &'static str,
    input_schema: Value,
}

// ---- from the core's types ---------------------------------------------------

fn status(s: todo::TodoStatus) -> TodoStatus {
    match s {
        todo::TodoStatus::Pending => TodoStatus::Pending,
        todo::TodoStatus::InProgress => TodoStatus::InProgress,
        todo::TodoStatus::Completed => TodoStatus::Completed,
    }
}

fn items(list: &[todo::TodoItem]) -> Vec<TodoItem> {
    list.iter()
        .map(|i| TodoItem {
            content: i.content.clone(),
            status: status(i.status),
        })
        .collect()
}

fn origin(o: &entry::Origin) -> Origin {
    Origin {
        chat_id: o.chat_id.clone(),
        suggestion_id: o.suggestion_id.clone(),
    }
}

fn mirror_entry(e: &entry::Entry) -> Entry {
    match e {
        entry::Entry::Session(s) => Entry::Session(SessionEntry {
            v: s.v,
            chat_id: s.chat_id.clone(),
            title: s.title.clone(),
            workspace: s.workspace.clone(),
            scheduled_task_folder: s.scheduled_task_folder,
            agent: s.agent.clone(),
            settings: Settings {
                preset: s.settings.preset.clone(),
                model: s.settings.model.clone(),
                permission: s.settings.permission.clone(),
                sandbox: s.settings.sandbox.clone(),
                approval: s.settings.approval.clone(),
            },
            origin: s.origin.as_ref().map(origin),
        }),
        entry::Entry::TurnStarted {} => Entry::TurnStarted {},
        entry::Entry::TurnEnded {} => Entry::TurnEnded {},
        entry::Entry::TodoUpdate(u) => Entry::TodoUpdate(TodoUpdate {
            v: u.v,
            todos: items(&u.todos),
        }),
        entry::Entry::SuggestionOffered(o) => Entry::SuggestionOffered(Offer {
            v: o.v,
            id: o.id.clone(),
            title: o.title.clone(),
            tldr: o.tldr.clone(),
            brief: o.brief.clone(),
        }),
        entry::Entry::SuggestionSettled(s) => Entry::SuggestionSettled(Settlement {
            v: s.v,
            id: s.id.clone(),
            outcome: match s.outcome {
                entry::Outcome::Started => Outcome::Started,
                entry::Outcome::Drafted => Outcome::Drafted,
                entry::Outcome::Dismissed => Outcome::Dismissed,
                entry::Outcome::Restored => Outcome::Restored,
            },
            chat_id: s.chat_id.clone(),
        }),
        entry::Entry::Message(m) => Entry::Message(Message {
            v: m.v,
            role: m.role.clone(),
            text: m.text.clone(),
            source: m
                .source
                .as_ref()
                .map(|entry::Source::Suggestion(o)| Source::Suggestion(origin(o))),
        }),
    }
}

fn skipped(list: &[entry::Skipped]) -> Vec<Skipped> {
    list.iter()
        .map(|s| Skipped {
            index: s.index,
            kind: s.kind.clone(),
            reason: s.reason.clone(),
        })
        .collect()
}

fn placed(list: &[todo::Placed]) -> Vec<Placed> {
    list.iter()
        .map(|p| Placed {
            content: p.content.clone(),
            status: status(p.status),
            position: p.position,
        })
        .collect()
}

fn todo_replay(r: &todo::TodoReplay) -> TodoReplay {
    let counts = |c: &todo::Counts| Counts {
        pending: c.pending,
        in_progress: c.in_progress,
        completed: c.completed,
    };
    TodoReplay {
        todos: items(&r.todos),
        cards: r
            .cards
            .iter()
            .map(|c| Card {
                index: c.index,
                turn: c.turn,
                todos: items(&c.todos),
                counts: counts(&c.counts),
                changes: Changes {
                    added: placed(&c.changes.added),
                    removed: placed(&c.changes.removed),
                    status_changed: c
                        .changes
                        .status_changed
                        .iter()
                        .map(|s| StatusChange {
                            content: s.content.clone(),
                            from: status(s.from),
                            to: status(s.to),
                        })
                        .collect(),
                    moved: c
                        .changes
                        .moved
                        .iter()
                        .map(|m| Move {
                            content: m.content.clone(),
                            from: m.from,
                            to: m.to,
                        })
                        .collect(),
                },
            })
            .collect(),
        plan: Plan {
            state: match r.plan.state {
                todo::PlanState::None => PlanState::None,
                todo::PlanState::Running => PlanState::Running,
                todo::PlanState::Finished => PlanState::Finished,
            },
            todos: items(&r.plan.todos),
            turn: r.plan.turn,
        },
        skipped: skipped(&r.skipped),
    }
}

fn suggestion_replay(r: &suggest::SuggestionReplay) -> SuggestionReplay {
    let listed = |list: &[suggest::Listed]| {
        list.iter()
            .map(|l| Listed {
                id: l.id.clone(),
                title: l.title.clone(),
                tldr: l.tldr.clone(),
                brief: l.brief.clone(),
                outcome: l.outcome,
                chat_id: l.chat_id.clone(),
            })
            .collect()
    };
    SuggestionReplay {
        open: listed(&r.open),
        settled: listed(&r.settled),
        skipped: skipped(&r.skipped),
    }
}

fn same<T: Serialize>(new: String, old: &T) {
    assert_eq!(new, serde_json::to_string(old).unwrap());
}

// ---- tests -----------------------------------------------------------------

/// Every character a string can hold in the ways that matter to escaping.
fn odd_text(rng: &mut Rng) -> String {
    let mut s = String::new();
    for _ in 0..rng.below(6) {
        match rng.below(4) {
            0 => s.push(char::from(rng.below(0x80) as u8)),
            1 => s.push(rng.pick(&[
                '"', '\\', '/', '\u{7f}', '\u{80}', '\u{2028}', '\u{2029}', 'é', '😀', '\u{FFFD}',
            ])),
            2 => s.push_str("plain"),
            _ => s.push(char::from_u32(rng.below(0x11_0000) as u32).unwrap_or('x')),
        }
    }
    s
}

#[test]
fn replays_are_written_as_serde_wrote_them() {
    let mut rng = Rng::new(11);
    for _ in 0..300 {
        let mut chat = Chat::new(true);
        let mut offered = 0;
        for _ in 0..rng.below(40) {
            let text = match rng.below(8) {
                0 => "{\"type\":\"turn_started\"}".to_string(),
                1 => "{\"type\":\"turn_ended\"}".to_string(),
                2 => {
                    let list: Vec<Value> = (0..rng.below(8))
                        .map(|i| {
                            let content = if rng.chance(50) { format!("step {}", rng.below(6)) } else { odd_text(&mut rng) };
                            let status = rng.pick(&["pending", "in_progress", "completed"]);
                            json!({ "content": if i % 3 == 0 { content } else { format!("{content}{i}") }, "status": status })
                        })
                        .collect();
                    json!({ "type": "todo_update", "v": 1, "todos": list }).to_string()
                }
                3 => {
                    offered += 1;
                    json!({ "type": "suggestion_offered", "v": 1, "id": format!("s{offered}"), "title": odd_text(&mut rng), "tldr": "w", "brief": odd_text(&mut rng) }).to_string()
                }
                4 => {
                    let outcome = rng.pick(&["started", "drafted", "dismissed", "restored"]);
                    json!({ "type": "suggestion_settled", "v": 1, "id": format!("s{}", rng.below(offered + 1)), "outcome": outcome, "chatId": odd_text(&mut rng) }).to_string()
                }
                5 => testgen::text(&mut rng),
                6 => json!({ "type": "session", "chatId": odd_text(&mut rng), "workspace": "/w", "settings": { "sandbox": { "z": [1.5, -0.0, 1e300], "a": odd_text(&mut rng) } } }).to_string(),
                _ => json!({ "type": "message", "role": "user", "text": odd_text(&mut rng) }).to_string(),
            };
            chat.ingest(&text);
            if let crate::entry::Read::Entry(e) = crate::entry::read_entry(&text) {
                same(e.to_json(), &mirror_entry(&e));
            }
        }
        let todos = todo::TodoReplay::of(&chat);
        same(todos.to_json(), &todo_replay(&todos));
        assert_eq!(
            todo::TodoReplay::json_of(&chat),
            todos.to_json(),
            "written from the chat, the same text"
        );
        let suggestions = suggest::SuggestionReplay::of(&chat);
        same(suggestions.to_json(), &suggestion_replay(&suggestions));
    }
}

#[test]
fn entries_the_core_writes_are_written_as_serde_wrote_them() {
    let mut rng = Rng::new(12);
    for _ in 0..2_000 {
        let origin = entry::Origin {
            chat_id: odd_text(&mut rng),
            suggestion_id: odd_text(&mut rng),
        };
        let session = entry::Entry::Session(entry::SessionEntry {
            v: 1,
            chat_id: rng.chance(50).then(|| odd_text(&mut rng)),
            title: rng.chance(50).then(|| odd_text(&mut rng)),
            workspace: rng.chance(50).then(|| odd_text(&mut rng)),
            scheduled_task_folder: rng.chance(50),
            agent: odd_text(&mut rng),
            settings: entry::Settings {
                preset: rng.chance(50).then(|| odd_text(&mut rng)),
                model: rng.chance(50).then(|| odd_text(&mut rng)),
                permission: rng.chance(50).then(|| odd_text(&mut rng)),
                sandbox: rng
                    .chance(50)
                    .then(|| json!({ "b": [1, 2.5, null, true], "a": odd_text(&mut rng) })),
                approval: rng.chance(50).then(|| json!(odd_text(&mut rng))),
            },
            origin: rng.chance(50).then(|| origin.clone()),
        });
        let message = entry::Entry::Message(entry::Message {
            v: 1,
            role: odd_text(&mut rng),
            text: rng.chance(50).then(|| odd_text(&mut rng)),
            source: rng.chance(50).then(|| entry::Source::Suggestion(origin.clone())),
        });
        for e in [
            session,
            message,
            entry::Entry::TurnStarted {},
            entry::Entry::TurnEnded {},
        ] {
            same(e.to_json(), &mirror_entry(&e));
        }
    }
}

#[test]
fn small_answers_are_written_as_serde_wrote_them() {
    use settle::StartedChatState as S;
    for (new, old) in [
        (S::Missing, StartedChatState::Missing),
        (S::NeedsBrief, StartedChatState::NeedsBrief),
        (S::Complete, StartedChatState::Complete),
        (S::Foreign, StartedChatState::Foreign),
    ] {
        same(new.to_json(), &old);
    }
    let line = jsonl::UnreadableLine {
        line: 7,
        reason: "not \"JSON\"\n".into(),
    };
    same(
        line.to_json(),
        &UnreadableLine {
            line: 7,
            reason: line.reason.clone(),
        },
    );
}

/// The tool definitions as the old code built them with `json!` (a map: keys in order).
#[test]
fn tool_definitions_are_written_as_before() {
    let todo_schema = json!({
        "type": "object",
        "properties": {
            "todos": {
                "type": "array",
                "description": "The whole task list, in order. It replaces the previous list.",
                "items": {
                    "type": "object",
                    "properties": {
                        "content": {
                            "type": "string",
                            "minLength": 1,
                            "description": "A short line naming the step; unique within the list."
                        },
                        "status": {
                            "type": "string",
                            "enum": ["pending", "in_progress", "completed"],
                            "description": "pending (not started), in_progress (being worked on now) or completed (finished)."
                        }
                    },
                    "required": ["content", "status"],
                    "additionalProperties": false
                }
            }
        },
        "required": ["todos"],
        "additionalProperties": false
    });
    let mut properties = serde_json::Map::new();
    for ((name, limit), description) in suggest::FIELDS.iter().zip(tool::SUGGEST_FIELD_DESCRIPTIONS) {
        properties.insert(
            (*name).to_string(),
            json!({ "type": "string", "description": description, "minLength": 1, "maxLength": limit }),
        );
    }
    let suggest_schema = json!({
        "type": "object",
        "properties": properties,
        "required": suggest::FIELDS.iter().map(|(name, _)| *name).collect::<Vec<_>>(),
        "additionalProperties": false
    });
    for (new, schema) in [
        (tool::todo_write_tool(), todo_schema),
        (tool::suggest_task_tool(), suggest_schema),
    ] {
        let old = ToolDefinition {
            name: new.name,
            description: new.description,
            input_schema: schema,
        };
        same(new.to_json(), &old);
    }
}
