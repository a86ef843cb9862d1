//! The suggestion service's decisions: what to append when an offer is
//! started, drafted, dismissed or restored, what a started chat runs as, and
//! the attribution check for goals.
//!
//! The host does the I/O and orders the writes; every rule lives here, so a
//! host cannot get one subtly different from another host.

use crate::chat::Chat;
use crate::entry::{Message, Origin, Outcome, SessionEntry, Settings, Settlement, Source, FORMAT_VERSION, TOP_LEVEL};
use crate::error::{GoalError, ServiceError};
use std::hash::Hasher;

use crate::suggest::{Standing, OPEN_LIMIT};
use serde::Serialize;

/// Permissions, lowest to highest, unless the host configures its own order.
pub const DEFAULT_PERMISSIONS: [&str; 4] = ["read-only", "ask", "auto", "full-access"];

/// A settlement the person asks for (start has its own planner).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Action {
    Draft,
    Dismiss,
    Restore,
}

/// What to do for a draft, dismiss or restore.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Decision {
    /// Append this entry (conditionally, at the log length that was read).
    Append(Settlement),
    /// Nothing to write: restoring an offer that is already open.
    Unchanged,
}

fn not_open(id: &str, standing: &Standing) -> ServiceError {
    ServiceError::NotOpen {
        id: id.to_string(),
        outcome: standing.outcome().unwrap_or("open"),
    }
}

fn settlement(id: &str, outcome: Outcome, chat_id: Option<String>) -> Settlement {
    Settlement {
        v: FORMAT_VERSION,
        id: id.to_string(),
        outcome,
        chat_id,
    }
}

/// Decides a draft, dismiss or restore of offer `id` in a chat's log.
pub fn settle(chat: &Chat, id: &str, action: Action) -> Result<Decision, ServiceError> {
    let Some(tracked) = chat.suggestions.get(id) else {
        return Err(ServiceError::NotFound { id: id.to_string() });
    };
    match (action, &tracked.standing) {
        (Action::Draft, Standing::Open) => Ok(Decision::Append(settlement(id, Outcome::Drafted, None))),
        (Action::Dismiss, Standing::Open) => Ok(Decision::Append(settlement(id, Outcome::Dismissed, None))),
        (Action::Restore, Standing::Open) => Ok(Decision::Unchanged),
        (Action::Restore, Standing::Dismissed) => {
            if chat.suggestions.open_count() >= OPEN_LIMIT {
                Err(ServiceError::OpenLimit { limit: OPEN_LIMIT })
            } else {
                Ok(Decision::Append(settlement(id, Outcome::Restored, None)))
            }
        }
        (_, standing) => Err(not_open(id, standing)),
    }
}

/// What the person (or the app) asks the started chat to run with instead of
/// the offering chat's own settings. Both are optional.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct StartRequest {
    pub model: Option<String>,
    pub permission: Option<String>,
}

/// How to start an offer.
// One short-lived value per Start: boxing `session` would only change the API.
#[allow(clippy::large_enum_variant)]
#[derive(Debug, Clone, PartialEq)]
pub enum StartPlan {
    /// Create `chat_id` with `session` (only if absent), record `settled` on the
    /// offering chat at the length that was read, then append `brief` to the
    /// new chat. A `settled` conflict means: read again and plan again.
    Create {
        chat_id: String,
        session: SessionEntry,
        settled: Settlement,
        brief: Message,
    },
    /// Already started: the chat it started, and the brief that chat must
    /// hold (append it if [`started_chat`] says it is missing).
    Started { chat_id: String, brief: Message },
}

/// The id of the chat an offer starts: derived from the offering chat and
/// the offer, so every process racing to create it names the same chat.
///
/// Normally `<chatId>.<suggestionId>`. A chat started from a started chat
/// from a started chat... grows by a few characters a generation, so past
/// [`STARTED_ID_MAX`] bytes the offering chat's id is shortened to a prefix
/// plus a hash of the whole, keeping the id short enough for every store
/// (file names, keys) while staying deterministic and distinct.
pub fn started_chat_id(chat_id: &str, suggestion_id: &str) -> String {
    let plain = format!("{chat_id}.{suggestion_id}");
    if plain.len() <= STARTED_ID_MAX {
        return plain;
    }
    let mut cut = STARTED_ID_MAX / 2;
    while !chat_id.is_char_boundary(cut) {
        cut -= 1;
    }
    let prefix = chat_id.get(..cut).unwrap_or_default();
    let id = format!("{prefix}~{}.{suggestion_id}", fnv1a_hex(chat_id.as_bytes()));
    if id.len() <= STARTED_ID_MAX {
        id
    } else {
        // Only an absurdly long suggestion id gets here (the core assigns `s<n>`).
        format!(
            "{}.{}",
            fnv1a_hex(chat_id.as_bytes()),
            fnv1a_hex(suggestion_id.as_bytes())
        )
    }
}

/// Longest started-chat id in bytes (stores accept 200 characters).
pub const STARTED_ID_MAX: usize = 120;

/// The 64-bit FNV-1a hash of `bytes`, as 16 hex digits (part of the stored format: started chats' ids).
fn fnv1a_hex(bytes: &[u8]) -> String {
    let mut hasher = fnv::FnvHasher::default();
    hasher.write(bytes);
    format!("{:016x}", hasher.finish())
}

/// Plans a Start of offer `id` of chat `chat_id`. Checks, in order:
/// not-found; already started (not an error); any other settlement
/// (not-open); no workspace; a scheduled task's folder.
pub fn plan_start(
    chat: &Chat,
    chat_id: &str,
    id: &str,
    request: &StartRequest,
    order: &[String],
) -> Result<StartPlan, ServiceError> {
    let Some(tracked) = chat.suggestions.get(id) else {
        return Err(ServiceError::NotFound { id: id.to_string() });
    };
    let origin = Origin {
        chat_id: chat_id.to_string(),
        suggestion_id: id.to_string(),
    };
    let brief = Message {
        v: FORMAT_VERSION,
        role: "user".to_string(),
        text: Some(tracked.offer.brief.clone()),
        source: Some(Source::Suggestion(origin.clone())),
    };
    match &tracked.standing {
        Standing::Open => {}
        Standing::Started { chat_id } => {
            return Ok(StartPlan::Started {
                chat_id: chat_id.clone(),
                brief,
            })
        }
        standing => return Err(not_open(id, standing)),
    }
    let Some(workspace) = chat.workspace() else {
        return Err(ServiceError::NoWorkspace {
            chat_id: chat_id.to_string(),
        });
    };
    if chat.in_scheduled_folder() {
        return Err(ServiceError::ScheduledFolder {
            chat_id: chat_id.to_string(),
        });
    }
    let new_id = started_chat_id(chat_id, id);
    let session = SessionEntry {
        v: FORMAT_VERSION,
        chat_id: Some(new_id.clone()),
        title: Some(tracked.offer.title.clone()),
        workspace: Some(workspace.to_string()),
        scheduled_task_folder: false,
        agent: TOP_LEVEL.to_string(),
        settings: started_settings(&chat.settings(), request, order),
        origin: Some(origin),
    };
    Ok(StartPlan::Create {
        settled: settlement(id, Outcome::Started, Some(new_id.clone())),
        chat_id: new_id,
        session,
        brief,
    })
}

/// The settings a started chat runs with: the offering chat's preset, model
/// and permission; with no preset, its sandbox and approval instead. A
/// requested model is taken as is; a requested permission is clamped to the
/// offering chat's.
pub fn started_settings(parent: &Settings, request: &StartRequest, order: &[String]) -> Settings {
    let no_preset = parent.preset.is_none();
    let wanted = request.permission.as_deref().or(parent.permission.as_deref());
    Settings {
        preset: parent.preset.clone(),
        model: request.model.clone().or_else(|| parent.model.clone()),
        permission: clamp_permission(wanted, parent.permission.as_deref(), order),
        sandbox: if no_preset { parent.sandbox.clone() } else { None },
        approval: if no_preset { parent.approval.clone() } else { None },
    }
}

/// The lower of `wanted` and `ceiling` in `order` (lowest first). An unknown
/// or missing permission on either side counts as the lowest: fail closed.
/// `None` only when `order` is empty.
pub fn clamp_permission(wanted: Option<&str>, ceiling: Option<&str>, order: &[String]) -> Option<String> {
    let rank = |p: Option<&str>| p.and_then(|p| order.iter().position(|o| o == p)).unwrap_or(0);
    let at = rank(wanted).min(rank(ceiling));
    order.get(at).cloned()
}

/// Where a started chat stands, read from its own log.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum StartedChatState {
    /// Not created yet.
    Missing,
    /// Created from this offer; its brief is not written yet.
    NeedsBrief,
    /// Created from this offer and holding its brief.
    Complete,
    /// A chat with this id exists but was not started from this offer.
    Foreign,
}

/// Reads a started chat's log (`None`: no such chat) against the offer it
/// should come from, so a repeated Start can finish a crashed one, once.
pub fn started_chat(chat: Option<&Chat>, origin: &Origin) -> StartedChatState {
    let Some(chat) = chat else {
        return StartedChatState::Missing;
    };
    if chat.session.as_ref().and_then(|s| s.origin.as_ref()) != Some(origin) {
        return StartedChatState::Foreign;
    }
    if chat.briefs.contains(origin) {
        StartedChatState::Complete
    } else {
        StartedChatState::NeedsBrief
    }
}

/// The goal actions that need the person's own instruction.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum GoalAction {
    Create,
    Complete,
}

impl GoalAction {
    fn verb(self) -> &'static str {
        match self {
            GoalAction::Create => "create",
            GoalAction::Complete => "complete",
        }
    }
}

/// Refuses a goal action until the person has spoken in the chat: a brief
/// written from a suggestion is not the person's instruction.
pub fn check_goal(chat: &Chat, action: GoalAction) -> Result<(), GoalError> {
    if chat.person_spoke {
        Ok(())
    } else if chat.briefs.is_empty() {
        Err(GoalError::NoInstruction(action.verb()))
    } else {
        Err(GoalError::NotFromPerson(action.verb()))
    }
}
