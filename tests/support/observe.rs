//! Everything a host can ask a folded chat, gathered into one comparable value,
//! so two ways of folding the same log (entry by entry, in batches, as JSONL
//! chunks) can be compared by what they answer. Shared by tests/properties.rs
//! and the fuzz crate (included there by path).

#![allow(dead_code)]

use oda_tasks::chat::{Chat, Turns};
use oda_tasks::edit::{self, Edit, EditRefusal};
use oda_tasks::entry::{Origin, SessionEntry, Told};
use oda_tasks::error::{GoalError, ServiceError, SuggestError};
use oda_tasks::input::Input;
use oda_tasks::settle::{self, Action, Decision, GoalAction, StartPlan, StartRequest, StartedChatState};
use oda_tasks::suggest::SuggestTask;
use oda_tasks::SuggestionReplay;
use oda_tasks::TodoReplay;

/// What a chat answers: its replays, its standing counters and every decision
/// the service can take on it (for each offer id it holds, and one it does not).
#[derive(Debug, Clone, PartialEq)]
pub struct Answers {
    pub len: usize,
    pub session: Option<SessionEntry>,
    pub turns: Turns,
    pub todos: TodoReplay,
    pub suggestions: SuggestionReplay,
    pub recorded: usize,
    pub open: usize,
    pub next_id: String,
    pub person_spoke: bool,
    pub briefs: Vec<String>,
    pub suggest: Result<SuggestTask, SuggestError>,
    pub goal: Result<(), GoalError>,
    pub decisions: Vec<(String, IdDecisions)>,
    /// What the model would be told of a person's edit, in context and as a refusal.
    pub notice: Option<Told>,
    pub stale_write: Option<Told>,
    /// A person's edit on the log's length, and on the length before it.
    pub edits: Vec<Result<Edit, EditRefusal>>,
}

/// The service's answers about one offer id.
#[derive(Debug, Clone, PartialEq)]
pub struct IdDecisions {
    pub draft: Result<Decision, ServiceError>,
    pub dismiss: Result<Decision, ServiceError>,
    pub restore: Result<Decision, ServiceError>,
    pub start: Result<StartPlan, ServiceError>,
    pub started_chat: StartedChatState,
}

/// The permission order the observations use (the default one).
pub fn default_order() -> Vec<String> {
    settle::DEFAULT_PERMISSIONS.iter().map(|p| p.to_string()).collect()
}

/// A well-formed `suggest_task` input, so the observation reaches every check.
pub const VALID_SUGGESTION: &str = r#"{"title":"Write the docs","tldr":"They are missing","brief":"Write them."}"#;

pub fn answers(chat: &Chat) -> Answers {
    let mut ids: Vec<String> = chat.suggestions.offers.iter().map(|t| t.offer.id.clone()).collect();
    ids.push("no-such-offer".to_string());
    let order = default_order();
    let request = StartRequest {
        model: None,
        permission: Some("full-access".to_string()),
    };
    let decisions = ids
        .into_iter()
        .map(|id| {
            let origin = Origin {
                chat_id: "c".to_string(),
                suggestion_id: id.clone(),
            };
            let d = IdDecisions {
                draft: settle::settle(chat, &id, Action::Draft),
                dismiss: settle::settle(chat, &id, Action::Dismiss),
                restore: settle::settle(chat, &id, Action::Restore),
                start: settle::plan_start(chat, "c", &id, &request, &order),
                started_chat: settle::started_chat(Some(chat), &origin),
            };
            (id, d)
        })
        .collect();
    let mut briefs: Vec<String> = chat
        .briefs
        .iter()
        .map(|o| format!("{}:{}{}", o.chat_id.len(), o.chat_id, o.suggestion_id))
        .collect();
    briefs.sort();
    Answers {
        len: chat.len,
        session: chat.session.clone(),
        turns: chat.turns.clone(),
        todos: TodoReplay::of(chat),
        suggestions: SuggestionReplay::of(chat),
        recorded: chat.suggestions.recorded,
        open: chat.suggestions.open_count(),
        next_id: chat.suggestions.next_id(),
        person_spoke: chat.person_spoke,
        briefs,
        suggest: oda_tasks::suggest_call::suggest_task(Some(chat), &Input::parse(VALID_SUGGESTION)),
        goal: settle::check_goal(chat, GoalAction::Create),
        decisions,
        notice: edit::notice(chat),
        stale_write: edit::stale_write(chat),
        edits: [chat.len, chat.len.saturating_sub(1)]
            .into_iter()
            .map(|at| edit::edit_todos(chat, &Input::parse(EDITED_LIST), at, None, Default::default()))
            .collect(),
    }
}

/// A person's list, so the observation reaches an edit's every check.
pub const EDITED_LIST: &str = r#"{"todos":[{"content":"Write the docs","status":"in_progress"}]}"#;

/// Invariants every folded chat keeps, whatever its log: each entry is
/// reported at most once, at an index inside the log, in log order; offers are
/// listed once each; counters agree with the ledger.
pub fn check_invariants(chat: &Chat) {
    let mut last: Option<usize> = None;
    for s in &chat.skipped {
        assert!(
            s.index < chat.len,
            "skipped index {} outside a log of {}",
            s.index,
            chat.len
        );
        if let Some(l) = last {
            assert!(l < s.index, "skipped entries out of order: {:?}", chat.skipped);
        }
        last = Some(s.index);
    }
    let replay = SuggestionReplay::of(chat);
    let open = replay.open.len();
    assert_eq!(
        open,
        chat.suggestions.open_count(),
        "open count drifted from the ledger"
    );
    assert_eq!(open + replay.settled.len(), chat.suggestions.offers.len());
    assert!(chat.suggestions.recorded >= chat.suggestions.offers.len());
    let mut ids: Vec<&str> = chat.suggestions.offers.iter().map(|t| t.offer.id.as_str()).collect();
    ids.sort_unstable();
    ids.dedup();
    assert_eq!(
        ids.len(),
        chat.suggestions.offers.len(),
        "two tracked offers share an id"
    );
    let next = chat.suggestions.next_id();
    assert!(
        chat.suggestions.get(&next).is_none(),
        "next id {next} is already an offer's"
    );
    for t in &chat.suggestions.offers {
        assert!(t.index < chat.len);
    }
    assert!(chat.turns.started <= chat.len);
}
