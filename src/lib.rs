//! oda-tasks: the pure core of the `todo_write` and `suggest_task` tools.
//!
//! Modules, from the leaves up: `text` (words about untrusted text), `entry`
//! (the stored format), `input` (a model's input), `error`; `todo` and
//! `suggest` (checks and ledgers); `chat` (the one fold every decision
//! reads); `jsonl` (logs as bytes); `decide`, `settle` and `replay` (what the
//! fold answers); `params` (the binding's arguments), `pure`, `tool`. Nothing
//! here does I/O, reads a clock or panics; `wasm` is the only module that
//! knows about JavaScript.

pub mod chat;
pub mod decide;
pub mod entry;
pub mod error;
pub mod input;
pub mod jsonl;
pub mod params;
pub mod pure;
pub mod replay;
pub mod settle;
pub mod suggest;
pub mod text;
pub mod todo;
pub mod tool;

#[cfg(target_arch = "wasm32")]
mod wasm;

pub use chat::Chat;
pub use entry::{Entry, Skipped, FORMAT_VERSION};
pub use error::{GoalError, HostError, ServiceError, SuggestError, TodoError};
pub use input::Input;
pub use pure::{check_goal, plan_start, replay_suggestions, replay_todos, settle, started_chat, suggest_task};
pub use replay::{SuggestionReplay, TodoReplay, View};
pub use settle::{
    clamp_permission, Action, Decision, GoalAction, StartPlan, StartRequest, StartedChatState, DEFAULT_PERMISSIONS,
};
pub use todo::{todo_write, TodoOptions};
pub use tool::{suggest_task_tool, todo_write_tool, ToolDefinition};
