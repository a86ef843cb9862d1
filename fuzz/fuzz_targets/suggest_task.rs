//! `suggest_task` on any input text against a few fixed chats: a chat that
//! must refuse refuses the same whatever the input; a chat that may accept
//! agrees with a plain statement of the field rules, and an accepted offer,
//! recorded, is listed as offered and fills the turn.

#![no_main]

use std::sync::OnceLock;

use libfuzzer_sys::fuzz_target;
use oda_tasks::chat::Chat;
use oda_tasks::entry::Entry;
use oda_tasks::input::Input;
use oda_tasks::suggest::{Listed, FIELDS};
use oda_tasks::suggest_call::suggest_task;
use oda_tasks::SuggestError;
use oda_tasks::SuggestionReplay;
use oda_tasks_fuzz::{check_refusal, text_of};
use serde_json::Value;

const TOP: &str = r#"{"type":"session","chatId":"c","workspace":"w1","agent":"top-level","settings":{}}"#;
const HELPER: &str = r#"{"type":"session","chatId":"c","workspace":"w1","agent":"helper","settings":{}}"#;
const SCHEDULED: &str = r#"{"type":"session","chatId":"c","workspace":"w1","scheduledTaskFolder":true}"#;
const TURN: &str = r#"{"type":"turn_started"}"#;
const END: &str = r#"{"type":"turn_ended"}"#;

fn offer(id: &str) -> String {
    format!(r#"{{"type":"suggestion_offered","v":1,"id":"{id}","title":"T","tldr":"W","brief":"B"}}"#)
}

fn settled(id: &str, outcome: &str) -> String {
    format!(r#"{{"type":"suggestion_settled","v":1,"id":"{id}","outcome":"{outcome}"}}"#)
}

fn chat(texts: &[&str]) -> Chat {
    let mut chat = Chat::new(false);
    for text in texts {
        chat.ingest(text);
    }
    chat
}

/// A fixed chat and the refusal it must give whatever the input (`None`: it may accept).
struct Fixed {
    chat: Chat,
    refusal: Option<SuggestError>,
}

fn fixed() -> &'static [Fixed] {
    static CHATS: OnceLock<Vec<Fixed>> = OnceLock::new();
    CHATS.get_or_init(|| {
        let mut ten = vec![TOP.to_string()];
        for _ in 0..10 {
            // Ten offers under one id, each dismissed: the chat's ten are used up, none open.
            ten.extend([
                TURN.to_string(),
                offer("s1"),
                settled("s1", "dismissed"),
                END.to_string(),
            ]);
        }
        ten.push(TURN.to_string());
        let ten: Vec<&str> = ten.iter().map(String::as_str).collect();
        let (s1, s2, s3) = (offer("s1"), offer("s2"), offer("s3"));
        let unreadable = r#"{"type":"suggestion_offered","v":2,"id":"s2"}"#;
        let dismissed = settled("s1", "dismissed");
        vec![
            Fixed {
                chat: chat(&[HELPER, TURN]),
                refusal: Some(SuggestError::Helper),
            },
            Fixed {
                chat: chat(&[SCHEDULED, TURN]),
                refusal: Some(SuggestError::ScheduledFolder),
            },
            Fixed {
                chat: chat(&[TOP, TURN, END]),
                refusal: Some(SuggestError::NoOpenTurn),
            },
            Fixed {
                chat: chat(&ten),
                refusal: Some(SuggestError::ChatLimit(10)),
            },
            Fixed {
                chat: chat(&[TOP, TURN, &s1, END, TURN, &s2, END, TURN, &s3, END, TURN]),
                refusal: Some(SuggestError::OpenLimit(3)),
            },
            Fixed {
                chat: chat(&[TOP, TURN, unreadable]),
                refusal: Some(SuggestError::TurnLimit),
            },
            Fixed {
                chat: chat(&[TOP, TURN]),
                refusal: None,
            },
            Fixed {
                chat: chat(&[TURN]),
                refusal: None,
            },
            Fixed {
                // s2 is taken by an offer replay cannot read; s1 repeats.
                chat: chat(&[
                    TOP, TURN, &s1, END, TURN, unreadable, END, TURN, &s3, &s1, &dismissed, END, TURN,
                ]),
                refusal: None,
            },
        ]
    })
}

/// The field rules, stated plainly: the trimmed fields of an acceptable input.
fn acceptable(input: &Value) -> Option<Vec<String>> {
    let obj = input.as_object()?;
    if obj.keys().any(|k| !FIELDS.iter().any(|(name, _)| name == k)) {
        return None;
    }
    FIELDS
        .iter()
        .map(|(name, limit)| {
            let text = obj.get(*name)?.as_str()?.trim();
            (!text.is_empty() && text.chars().count() <= *limit).then(|| text.to_string())
        })
        .collect()
}

fuzz_target!(|data: &[u8]| {
    let text = text_of(data);
    let input = Input::parse(&text);
    assert_eq!(suggest_task(None, &input), Err(SuggestError::NoSession));
    let expected = match &input {
        // The plain statement reads the same text with serde_json.
        Input::Json(_) => serde_json::from_str::<Value>(&text).ok().as_ref().and_then(acceptable),
        Input::Unreadable(_) => None,
    };
    for fixed in fixed() {
        let chat = &fixed.chat;
        let result = suggest_task(Some(chat), &input);
        if let Some(refusal) = &fixed.refusal {
            assert_eq!(result.as_ref(), Err(refusal));
            continue;
        }
        match (result, &expected) {
            (Ok(offered), Some(fields)) => {
                let o = &offered.entry;
                assert_eq!(&[o.title.clone(), o.tldr.clone(), o.brief.clone()][..], &fields[..]);
                assert_eq!(o.id, chat.suggestions.next_id());
                assert!(chat.suggestions.get(&o.id).is_none());
                assert_eq!(
                    offered.output,
                    format!(
                        "Suggested \"{}\". The user decides whether to start it; do not start it yourself.",
                        o.title
                    )
                );
                // Recorded, it is the newest open offer, read without a skip, and the turn is used.
                let mut after = chat.clone();
                after.ingest(&serde_json::to_string(&Entry::SuggestionOffered(o.clone())).expect("serialises"));
                assert_eq!(after.skipped, chat.skipped);
                let listed = SuggestionReplay::of(&after).open.into_iter().next();
                let want = Listed {
                    id: o.id.clone(),
                    title: o.title.clone(),
                    tldr: o.tldr.clone(),
                    brief: o.brief.clone(),
                    outcome: None,
                    chat_id: None,
                };
                assert_eq!(listed, Some(want));
                assert_eq!(suggest_task(Some(&after), &input), Err(SuggestError::TurnLimit));
            }
            (Err(e), None) => check_refusal(&e.to_string(), "suggest_task"),
            (got, expected) => panic!("suggest_task gave {got:?}; the rules say {expected:?}"),
        }
    }
});
