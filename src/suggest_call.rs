//! The tool call that reads the chat: `suggest_task`, checked against the
//! fold in the order `docs/tools.md` lists.

use crate::chat::Chat;
use crate::entry::{Offer, FORMAT_VERSION};
use crate::error::SuggestError;
use crate::input::Input;
use crate::suggest::{fields, SuggestTask, CHAT_LIMIT, OPEN_LIMIT};

/// Checks a `suggest_task` call (`None`: the call has no owning session).
///
/// # Examples
///
/// ```
/// let chat = oda_tasks::Chat::new(false);
/// assert!(oda_tasks::suggest_call::suggest_task(Some(&chat), &oda_tasks::Input::parse("{}")).is_err());
/// ```
pub fn suggest_task(chat: Option<&Chat>, input: &Input) -> Result<SuggestTask, SuggestError> {
    let Some(chat) = chat else {
        return Err(SuggestError::NoSession);
    };
    if chat.is_helper() {
        return Err(SuggestError::Helper);
    }
    if chat.in_scheduled_folder() {
        return Err(SuggestError::ScheduledFolder);
    }
    if !chat.turns.open {
        return Err(SuggestError::NoOpenTurn);
    }
    let ledger = &chat.suggestions;
    if ledger.recorded >= CHAT_LIMIT {
        return Err(SuggestError::ChatLimit(CHAT_LIMIT));
    }
    if ledger.open_count() >= OPEN_LIMIT {
        return Err(SuggestError::OpenLimit(OPEN_LIMIT));
    }
    if chat.turns.offered_this_turn {
        return Err(SuggestError::TurnLimit);
    }
    let input = match input {
        Input::Json(value) => value,
        Input::Unreadable(why) => return Err(SuggestError::Unreadable(why.clone())),
    };
    let [title, tldr, brief] = fields(input)?;
    let output = format!("Suggested \"{title}\". The user decides whether to start it; do not start it yourself.");
    Ok(SuggestTask {
        entry: Offer {
            v: FORMAT_VERSION,
            id: ledger.next_id(),
            title,
            tldr,
            brief,
        },
        output,
    })
}
