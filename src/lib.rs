//! oda-tasks: the pure core of the `todo_write` and `suggest_task` tools.
//!
//! Modules, from the leaves up: `text` (words about untrusted text), `entry`
//! (the stored format: its types, and `entry::read` the tolerant reader),
//! `input` (a model's input), `error`, `intern` (texts by number); `todo` and `suggest` (checks and
//! ledgers); `chat` (the one fold every decision reads); `jsonl` (logs as
//! bytes); `suggest_call`, `settle`, `edit` (a person's edit and what the model
//! is told of it) and `replay` (what the fold answers);
//! `whole_log` (each call over a whole log of values, for native callers),
//! `tool` (the tool definitions). Nothing here does I/O, reads a clock or
//! panics; `wasm` (with its params reader) is the only module that knows
//! about JavaScript.

pub mod chat;
pub mod edit;
pub mod entry;
pub mod error;
pub mod input;
pub mod intern;
pub mod jsonl;
pub mod replay;
pub mod settle;
pub mod suggest;
pub mod suggest_call;
pub mod text;
pub mod todo;
pub mod tool;
pub mod whole_log;

#[cfg(target_arch = "wasm32")]
mod wasm;

pub use chat::Chat;
pub use entry::{Entry, Skipped, FORMAT_VERSION};
pub use error::{GoalError, HostError, ServiceError, SuggestError, TodoError};
pub use input::Input;
pub use replay::{SuggestionReplay, TodoReplay, View};
pub use settle::{
    clamp_permission, Action, Decision, GoalAction, StartPlan, StartRequest, StartedChatState, DEFAULT_PERMISSIONS,
};
pub use todo::{todo_write, TodoOptions};
pub use tool::{suggest_task_tool, todo_write_tool, ToolDefinition};
pub use whole_log::{check_goal, plan_start, replay_suggestions, replay_todos, settle, started_chat, suggest_task};
