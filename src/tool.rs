//! Tool definitions for model function-calling, built from the same
//! constants the validators use, so the schema cannot drift from the rules.

use serde::Serialize;
use serde_json::{json, Map, Value};

use crate::suggest::FIELDS;

/// `{ name, description, inputSchema }`, the shape function-calling APIs take.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ToolDefinition {
    pub name: &'static str,
    pub description: &'static str,
    pub input_schema: Value,
}

pub const TODO_WRITE_DESCRIPTION: &str = "Keep the task list for multi-step work. Send the whole list every time: it replaces the previous one (no partial updates; to drop an item, send the list without it). Each item is its text and one state: pending, in_progress or completed. Mark an item in_progress when you start it and completed when it is done; keep one item in_progress at a time unless your setup allows several. A task with one obvious step needs no list.";

pub const SUGGEST_TASK_DESCRIPTION: &str =
    "Offer one out-of-scope follow-up the user can start in a new chat; never for work you can do now.";

/// The field descriptions of `suggest_task`, in [`FIELDS`] order.
pub const SUGGEST_FIELD_DESCRIPTIONS: [&str; 3] = [
    "Imperative title, at most 60 characters.",
    "Why it is worth doing, at most 240 characters.",
    "Self-contained instructions for the new chat, at most 4000 characters.",
];

/// The `todo_write` input schema as JSON text (keys in byte order, as a map writes them):
/// read at run time, so the module carries the text, not code that builds it.
const TODO_WRITE_SCHEMA: &str = r#"{
    "additionalProperties": false,
    "properties": {
        "todos": {
            "description": "The whole task list, in order. It replaces the previous list.",
            "items": {
                "additionalProperties": false,
                "properties": {
                    "content": {
                        "description": "A short line naming the step; unique within the list.",
                        "minLength": 1,
                        "type": "string"
                    },
                    "status": {
                        "description": "pending (not started), in_progress (being worked on now) or completed (finished).",
                        "enum": [
                            "pending",
                            "in_progress",
                            "completed"
                        ],
                        "type": "string"
                    }
                },
                "required": [
                    "content",
                    "status"
                ],
                "type": "object"
            },
            "type": "array"
        }
    },
    "required": [
        "todos"
    ],
    "type": "object"
}"#;

fn todo_write_schema() -> Value {
    serde_json::from_str(TODO_WRITE_SCHEMA).unwrap_or(Value::Null)
}

pub fn todo_write_tool() -> ToolDefinition {
    ToolDefinition {
        name: "todo_write",
        description: TODO_WRITE_DESCRIPTION,
        input_schema: todo_write_schema(),
    }
}

/// The `suggest_task` input schema, written from [`FIELDS`].
fn suggest_task_schema() -> Value {
    let mut properties = Map::new();
    for ((name, limit), description) in FIELDS.iter().zip(SUGGEST_FIELD_DESCRIPTIONS) {
        properties.insert(
            name.to_string(),
            json!({ "description": description, "maxLength": limit, "minLength": 1, "type": "string" }),
        );
    }
    let required: Vec<&str> = FIELDS.iter().map(|(name, _)| *name).collect();
    json!({ "additionalProperties": false, "properties": properties, "required": required, "type": "object" })
}

pub fn suggest_task_tool() -> ToolDefinition {
    ToolDefinition {
        name: "suggest_task",
        description: SUGGEST_TASK_DESCRIPTION,
        input_schema: suggest_task_schema(),
    }
}

/// Both definitions as one JSON text, `{ todoWrite, suggestTask }`: what
/// `scripts/build.mjs` writes into the package as constants (through
/// `examples/tool_definitions.rs`, natively, so the module carries neither).
///
/// # Examples
///
/// ```
/// let text = oda_tasks::tool::definitions_json();
/// assert!(text.starts_with(r#"{"todoWrite":{"name":"todo_write","#));
/// ```
pub fn definitions_json() -> String {
    #[derive(Serialize)]
    #[serde(rename_all = "camelCase")]
    struct Definitions {
        todo_write: ToolDefinition,
        suggest_task: ToolDefinition,
    }
    serde_json::to_string(&Definitions {
        todo_write: todo_write_tool(),
        suggest_task: suggest_task_tool(),
    })
    .unwrap_or_default()
}
