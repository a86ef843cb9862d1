//! Tool definitions for model function-calling, built from the same
//! constants the validators use, so the schema cannot drift from the rules.

use crate::json::{data, Data, Out, ToJson};
use crate::suggest::FIELDS;

/// `{ name, description, inputSchema }`, the shape function-calling APIs take.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolDefinition {
    pub name: &'static str,
    pub description: &'static str,
    pub input_schema: Data,
}

impl ToJson for ToolDefinition {
    fn write_json(&self, out: &mut Out) {
        out.object(|out| {
            out.field("name", self.name);
            out.field("description", self.description);
            out.field("inputSchema", &self.input_schema);
        });
    }
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

/// The `todo_write` input schema as JSON text (keys in byte order, as it has always been written).
const TODO_WRITE_SCHEMA: &str = concat!(
    r#"{"additionalProperties":false,"properties":{"todos":{"#,
    r#""description":"The whole task list, in order. It replaces the previous list.","#,
    r#""items":{"additionalProperties":false,"properties":{"#,
    r#""content":{"description":"A short line naming the step; unique within the list.","minLength":1,"type":"string"},"#,
    r#""status":{"description":"pending (not started), in_progress (being worked on now) or completed (finished).","#,
    r#""enum":["pending","in_progress","completed"],"type":"string"}},"#,
    r#""required":["content","status"],"type":"object"},"type":"array"}},"#,
    r#""required":["todos"],"type":"object"}"#,
);

pub fn todo_write_tool() -> ToolDefinition {
    ToolDefinition {
        name: "todo_write",
        description: TODO_WRITE_DESCRIPTION,
        input_schema: data::from_text(TODO_WRITE_SCHEMA),
    }
}

/// The `suggest_task` input schema, written from [`FIELDS`] (keys in byte order).
fn suggest_task_schema() -> String {
    let mut out = Out::new();
    out.object(|out| {
        out.field("additionalProperties", &false);
        out.key("properties");
        out.object(|out| {
            // Properties in byte order of their names, as a map writes them.
            let mut written: Vec<&str> = Vec::new();
            while let Some((k, (name, limit))) = FIELDS
                .iter()
                .enumerate()
                .filter(|(_, (name, _))| !written.contains(name))
                .min_by_key(|(_, (name, _))| *name)
            {
                written.push(name);
                out.key(name);
                out.object(|out| {
                    out.field(
                        "description",
                        SUGGEST_FIELD_DESCRIPTIONS.get(k).copied().unwrap_or_default(),
                    );
                    out.field("maxLength", limit);
                    out.field("minLength", &1usize);
                    out.field("type", "string");
                });
            }
        });
        out.key("required");
        out.open_array();
        for (name, _) in FIELDS {
            out.string(name);
        }
        out.close_array();
        out.field("type", "object");
    });
    out.finish()
}

pub fn suggest_task_tool() -> ToolDefinition {
    ToolDefinition {
        name: "suggest_task",
        description: SUGGEST_TASK_DESCRIPTION,
        input_schema: data::from_text(&suggest_task_schema()),
    }
}
