//! The oracle: the binding's params as serde's derive read them (the structs
//! as they were, test-only), and differential tests of the new readers.

use serde::Deserialize;
use serde_json::value::RawValue;

use super::*;
use crate::json::oracle::OwnedText;
use crate::testgen::{self, Rng};

#[derive(Deserialize, Debug)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct TodoWriteOptions {
    #[serde(default)]
    one_active: Option<bool>,
}

#[derive(Deserialize, Debug)]
#[serde(deny_unknown_fields)]
struct TodoWriteParams<'a> {
    #[serde(borrow, default)]
    input: Option<&'a RawValue>,
    #[serde(default)]
    unreadable: Option<String>,
    #[serde(default)]
    options: Option<TodoWriteOptions>,
}

#[derive(Deserialize, Debug)]
#[serde(deny_unknown_fields)]
struct ModelInput<'a> {
    #[serde(borrow, default)]
    input: Option<&'a RawValue>,
    #[serde(default)]
    unreadable: Option<String>,
}

#[derive(Deserialize, Debug)]
#[serde(deny_unknown_fields)]
struct SettleParams {
    id: OwnedText,
    action: SettleAction,
}

#[derive(Deserialize, Debug)]
#[serde(rename_all = "snake_case")]
enum SettleAction {
    Draft,
    Dismiss,
    Restore,
}

#[derive(Deserialize, Debug)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct StartRequestParams {
    #[serde(default)]
    model: Option<OwnedText>,
    #[serde(default)]
    permission: Option<OwnedText>,
}

#[derive(Deserialize, Debug)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct PlanStartParams {
    chat_id: OwnedText,
    id: OwnedText,
    #[serde(default)]
    request: Option<StartRequestParams>,
    #[serde(default)]
    permissions: Option<Vec<OwnedText>>,
}

#[derive(Deserialize, Debug)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct StartedChatParams {
    chat_id: OwnedText,
    suggestion_id: OwnedText,
}

#[derive(Deserialize, Debug)]
#[serde(deny_unknown_fields)]
struct GoalParams {
    action: GoalActionParam,
}

#[derive(Deserialize, Debug)]
#[serde(rename_all = "snake_case")]
enum GoalActionParam {
    Create,
    Complete,
}

#[derive(Deserialize, Debug)]
#[serde(deny_unknown_fields)]
struct ClampParams {
    wanted: Option<OwnedText>,
    ceiling: Option<OwnedText>,
    #[serde(default)]
    permissions: Option<Vec<OwnedText>>,
}

/// The old reading: serde's message without its position.
fn old<'a, T: Deserialize<'a>>(text: &'a str) -> Result<T, String> {
    serde_json::from_str(text).map_err(|e| {
        let text = e.to_string();
        match text.rfind(" at line ") {
            Some(at) => text[..at].to_string(),
            None => text,
        }
    })
}

/// A message with a float as serde printed it (`0.01`) or as the host wrote
/// it (`1e-2`, kept as text, so no float formatting is linked): the message
/// with the number taken out, and the number (serde_json rounds some numbers
/// one unit off, so numbers are compared to within two units).
fn split_number(message: String) -> (String, Option<f64>) {
    const FLOAT: &str = "floating point `";
    let Some(at) = message.find(FLOAT) else {
        return (message, None);
    };
    let start = at + FLOAT.len();
    let Some(len) = message[start..].find('`') else {
        return (message, None);
    };
    let number: f64 = message[start..start + len].parse().expect("a number");
    (
        format!("{}{}", &message[..start], &message[start + len..]),
        Some(number),
    )
}

fn close(a: Option<f64>, b: Option<f64>) -> bool {
    match (a, b) {
        (Some(a), Some(b)) => (a.to_bits() as i64 - b.to_bits() as i64).abs() <= 2,
        (a, b) => a == b,
    }
}

/// A message with non-ASCII characters as they are: Rust's `Debug` escapes
/// the ones its Unicode tables call unprintable (`\u{2028}`); the new reader
/// keeps every non-ASCII character (it links no Unicode tables).
fn same_characters(message: String) -> String {
    let mut out = String::new();
    let mut rest = message.as_str();
    while let Some(at) = rest.find("\\u{") {
        out.push_str(&rest[..at]);
        let tail = &rest[at + 3..];
        let end = tail.find('}').expect("an escape ends");
        let code = u32::from_str_radix(&tail[..end], 16).expect("hex");
        match char::from_u32(code).filter(|c| !c.is_ascii()) {
            Some(c) => out.push(c),
            None => out.push_str(&rest[at..at + 4 + end]),
        }
        rest = &tail[end + 1..];
    }
    out.push_str(rest);
    out
}

fn assert_same<T: PartialEq + std::fmt::Debug>(new: Result<T, String>, was: Result<T, String>, what: &str) {
    match (new, was) {
        (Err(new), Err(was)) => {
            let (new, a) = split_number(same_characters(new));
            let (was, b) = split_number(same_characters(was));
            assert_eq!(new, was, "{what}");
            assert!(close(a, b), "{what}: {a:?} vs {b:?}");
        }
        (new, was) => assert_eq!(new, was, "{what}"),
    }
}

fn texts(list: Option<Vec<OwnedText>>) -> Option<Vec<String>> {
    list.map(|l| l.into_iter().map(|t| t.0).collect())
}

fn check(text: &str) {
    let raw = |r: Option<&RawValue>| r.map(|r| r.get().to_string());
    let new = todo_write(text).map(|p| (p.input.input.map(str::to_string), p.input.unreadable, p.one_active));
    let was = old::<TodoWriteParams>(text).map(|p| (raw(p.input), p.unreadable, p.options.and_then(|o| o.one_active)));
    assert_same(new, was, &format!("todoWrite {text:?}"));
    let new = model_input(text).map(|p| (p.input.map(str::to_string), p.unreadable));
    let was = old::<ModelInput>(text).map(|p| (raw(p.input), p.unreadable));
    assert_same(new, was, &format!("suggestTask {text:?}"));
    let new = settle(text);
    let was = old::<SettleParams>(text).map(|p| {
        let action = match p.action {
            SettleAction::Draft => Action::Draft,
            SettleAction::Dismiss => Action::Dismiss,
            SettleAction::Restore => Action::Restore,
        };
        (p.id.0, action)
    });
    assert_same(new, was, &format!("settleSuggestion {text:?}"));
    let new = plan_start(text);
    let was = old::<PlanStartParams>(text).map(|p| super::PlanStartParams {
        chat_id: p.chat_id.0,
        id: p.id.0,
        request: p.request.map_or_else(StartRequest::default, |r| StartRequest {
            model: r.model.map(|t| t.0),
            permission: r.permission.map(|t| t.0),
        }),
        permissions: texts(p.permissions),
    });
    assert_same(new, was, &format!("planStart {text:?}"));
    let new = started_chat(text);
    let was = old::<StartedChatParams>(text).map(|p| (p.chat_id.0, p.suggestion_id.0));
    assert_same(new, was, &format!("startedChat {text:?}"));
    let new = goal(text);
    let was = old::<GoalParams>(text).map(|p| match p.action {
        GoalActionParam::Create => GoalAction::Create,
        GoalActionParam::Complete => GoalAction::Complete,
    });
    assert_same(new, was, &format!("checkGoal {text:?}"));
    let new = clamp(text);
    let was = old::<ClampParams>(text).map(|p| super::ClampParams {
        wanted: p.wanted.map(|t| t.0),
        ceiling: p.ceiling.map(|t| t.0),
        permissions: texts(p.permissions),
    });
    assert_same(new, was, &format!("clampPermission {text:?}"));
}

/// Params-shaped text: an object (or array) of the params' fields.
fn params(rng: &mut Rng) -> String {
    const FIELDS: &[&str] = &[
        "input",
        "unreadable",
        "options",
        "id",
        "action",
        "chatId",
        "request",
        "permissions",
        "suggestionId",
        "wanted",
        "ceiling",
        "oneActive",
        "model",
        "permission",
        "bogus",
    ];
    let value = |rng: &mut Rng, out: &mut String| match rng.below(6) {
        0 => out.push_str(rng.pick(&[
            "{\"oneActive\":false}",
            "{\"oneActive\":null}",
            "{\"oneActive\":1}",
            "{\"onActive\":true}",
            "{}",
            "{\"model\":\"m\",\"permission\":\"ask\"}",
            "{\"model\":null,\"x\":1}",
            "[\"m\"]",
            "[\"m\",\"ask\",1]",
        ])),
        1 => out.push_str(rng.pick(&[
            "[\"read-only\",\"ask\"]",
            "[]",
            "[1]",
            "[\"\\ud800\"]",
            "null",
            "\"ask\"",
        ])),
        2 => out.push_str(rng.pick(&[
            "\"draft\"",
            "\"dismiss\"",
            "\"restore\"",
            "\"create\"",
            "\"complete\"",
            "\"explode\"",
            "{\"draft\":null}",
            "{\"draft\":1}",
            "{\"x\":null}",
            "{}",
            "1",
            "{\"dismiss\":null,}",
            "{\"create\":null ]",
        ])),
        3 => testgen::valid_string(rng, out),
        _ => testgen::valid_value(rng, 2, out),
    };
    let mut out = String::new();
    let array = rng.chance(10);
    out.push(if array { '[' } else { '{' });
    for i in 0..rng.below(5) {
        if i > 0 {
            out.push(',');
        }
        if !array {
            out.push('"');
            out.push_str(rng.pick(FIELDS));
            out.push_str("\":");
        }
        value(rng, &mut out);
    }
    out.push(if array { ']' } else { '}' });
    if rng.chance(10) {
        out = testgen::damage(rng, &out);
    }
    out
}

#[test]
fn params_read_as_before_on_generated_texts() {
    let mut rng = Rng::new(5);
    for _ in 0..30_000 {
        check(&params(&mut rng));
    }
    for _ in 0..5_000 {
        check(&testgen::text(&mut rng));
    }
}

#[test]
fn params_read_as_before_on_edge_cases() {
    for text in [
        "{\"id\":\"s1\",\"action\":\"dismiss\"}",
        "{\"action\":\"dismiss\",\"id\":5}",
        "{\"id\":1.5,\"action\":\"dismiss\"}",
        "{\"id\":-3,\"action\":\"dismiss\"}",
        "{\"id\":\"a\\nb\\u0000\",\"action\":\"x\"}",
        "{\"id\":\"s1\",\"action\":\"dismiss\",\"id\":\"s2\"}",
        "{\"id\":\"s1\"}",
        "[\"s1\",\"draft\"]",
        "[\"s1\"]",
        "{\"chatId\":\"c\",\"id\":\"s1\",\"request\":{\"permision\":\"auto\"}}",
        "{\"chatId\":\"c\",\"id\":\"s1\",\"request\":null,\"permissions\":null}",
        "{\"wanted\":\"full-access\",\"ceiling\":\"ask\"}",
        "{\"permissions\":[]}",
        "[null,null]",
        "[\"a\"]",
        "{\"input\":{\"todos\":[]},\"options\":{\"oneActive\":false}}",
        "{\"input\":null}",
        "{\"unreadable\":\"\\ud800\"}",
        "{\"input\":[[[[[[[[[[[[]]]]]]]]]]]]}",
        "{\"action\":\"delete\"}",
        "{\"action\":{\"create\":null}}",
        "{\"action\":{\"create\":null,\"x\":1}}",
        "{\"action\":[\"create\"]}",
        "{}",
        "",
        "null",
    ] {
        check(text);
    }
}
