//! oda-tasks: the pure core of the `todo_write` and `suggest_task` tools.
//!
//! Modules, from the leaves up: `json` (reading and writing JSON text, no
//! library), `entry` (the stored format), `todo` and `suggest` (checks and
//! ledgers), `chat` (the one fold every decision reads), `jsonl` (logs as
//! bytes), `settle` (the service's decisions), `params` (the binding's
//! arguments), `pure` (the same over a log of JSON values, native only), `tool`.
//! Nothing here does I/O, reads a clock or panics; `wasm` is the only module
//! that knows about JavaScript.

pub mod chat;
pub mod entry;
pub mod error;
pub mod json;
pub mod jsonl;
pub mod params;
#[cfg(not(target_arch = "wasm32"))]
pub mod pure;
pub mod settle;
pub mod suggest;
pub mod table;
pub mod todo;
pub mod tool;

#[cfg(test)]
mod testgen;
#[cfg(target_arch = "wasm32")]
mod wasm;
#[cfg(test)]
mod write_oracle;

pub use chat::Chat;
pub use entry::{Entry, Skipped, FORMAT_VERSION};
pub use error::{GoalError, HostError, ServiceError, SuggestError, TodoError};
pub use json::Input;
#[cfg(not(target_arch = "wasm32"))]
pub use pure::{check_goal, plan_start, replay_suggestions, replay_todos, settle, started_chat, suggest_task};
pub use settle::{
    clamp_permission, Action, Decision, GoalAction, StartPlan, StartRequest, StartedChatState, DEFAULT_PERMISSIONS,
};
pub use suggest::SuggestionReplay;
pub use todo::{todo_write, TodoOptions, TodoReplay};
pub use tool::{suggest_task_tool, todo_write_tool, ToolDefinition};
