//! oda-tasks: the pure core of the `todo_write` and `suggest_task` tools.
//!
//! Every function takes a chat's log (JSON values, oldest first) and returns
//! a decision: an entry to append plus the text the model sees, or an error
//! text. Nothing here does I/O, reads a clock or panics; the host layer
//! (TypeScript, in `pkg/`) stores entries and orders writes.
//!
//! `wasm` is the only module that knows about JavaScript.

pub mod error;
pub mod log;
pub mod settle;
pub mod suggest;
pub mod todo;
pub mod tool;

#[cfg(target_arch = "wasm32")]
mod wasm;

pub use error::{GoalError, HostError, ServiceError, SuggestError, TodoError};
pub use log::{Chat, Entry, Skipped, FORMAT_VERSION};
pub use settle::{
    check_goal, clamp_permission, plan_start, settle, started_chat, Action, Decision, GoalAction, StartPlan,
    StartRequest, StartedChat, DEFAULT_PERMISSIONS,
};
pub use suggest::{replay_suggestions, suggest_task, SuggestionReplay};
pub use todo::{replay_todos, todo_write, TodoOptions, TodoReplay};
pub use tool::{suggest_task_tool, todo_write_tool, ToolDefinition};
