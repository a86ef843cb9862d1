//! The service's decisions (settle, plan_start, started_chat, clamp_permission)
//! on generated chats with arbitrary ids, actions, requests and permission
//! orders. Invariants: a settlement is only ever returned for an offer in the
//! standing its outcome applies to, and replay accepts it; a started chat never
//! runs with more permission than the offering chat under the order; a Start,
//! once recorded, is found again; the started chat is what it claims.

#![no_main]

use arbitrary::Arbitrary;
use libfuzzer_sys::fuzz_target;
use oda_tasks::chat::Chat;
use oda_tasks::entry::{Entry, Message, Origin, Outcome, Settlement, Source, TOP_LEVEL};
use oda_tasks::settle::{
    clamp_permission, plan_start, settle, started_chat, started_chat_id, Action, Decision, GoalAction, StartPlan,
    StartRequest, StartedChatState, STARTED_ID_MAX,
};
use oda_tasks::suggest::{Standing, OPEN_LIMIT};
use oda_tasks::{GoalError, ServiceError};
use oda_tasks_fuzz::observe::check_invariants;
use serde_json::{json, Value};

const PERMISSIONS: &[&str] = &["read-only", "ask", "auto", "full-access", "root", ""];

/// A short string from a small alphabet (so ids and permissions collide), or any.
#[derive(Arbitrary, Debug)]
enum Name {
    Known(u8),
    Any(String),
}

impl Name {
    fn of(&self, list: &[&str]) -> String {
        match self {
            Name::Known(i) => list[usize::from(*i) % list.len()].to_string(),
            Name::Any(s) => s.clone(),
        }
    }
}

const IDS: &[&str] = &["s1", "s2", "s3", "s4", "s5"];

#[derive(Arbitrary, Debug)]
enum Event {
    Turn,
    TurnEnd,
    Offer(Name),
    Settle(Name, u8, Option<Name>),
    /// An offer this version cannot read, under some id.
    Unreadable(Name),
}

#[derive(Arbitrary, Debug)]
struct Session {
    present: bool,
    workspace: Option<Name>,
    scheduled: bool,
    helper: bool,
    preset: Option<Name>,
    model: Option<Name>,
    permission: Option<Name>,
    sandbox: Option<i64>,
}

#[derive(Arbitrary, Debug)]
enum Ask {
    Settle(Name, u8),
    Start {
        id: Name,
        model: Option<Name>,
        permission: Option<Name>,
    },
}

#[derive(Arbitrary, Debug)]
struct Case {
    chat_id: Name,
    session: Session,
    events: Vec<Event>,
    asks: Vec<Ask>,
    order: Vec<Name>,
    wanted: (Option<Name>, Option<Name>, Option<Name>),
}

const OUTCOMES: &[&str] = &["started", "drafted", "dismissed", "restored", "odd"];

fn log_of(case: &Case) -> Vec<Value> {
    let mut log = Vec::new();
    let s = &case.session;
    if s.present {
        let mut settings = serde_json::Map::new();
        if let Some(p) = &s.preset {
            settings.insert("preset".into(), p.of(&["p1"]).into());
        }
        if let Some(m) = &s.model {
            settings.insert("model".into(), m.of(&["m1"]).into());
        }
        if let Some(p) = &s.permission {
            settings.insert("permission".into(), p.of(PERMISSIONS).into());
        }
        if let Some(n) = s.sandbox {
            settings.insert("sandbox".into(), json!({ "n": n }));
        }
        log.push(json!({
            "type": "session", "v": 1, "chatId": case.chat_id.of(&["c"]),
            "workspace": s.workspace.as_ref().map(|w| w.of(&["w1"])),
            "scheduledTaskFolder": s.scheduled,
            "agent": if s.helper { "helper" } else { TOP_LEVEL },
            "settings": settings,
        }));
    }
    for event in &case.events {
        log.push(match event {
            Event::Turn => json!({ "type": "turn_started" }),
            Event::TurnEnd => json!({ "type": "turn_ended" }),
            Event::Offer(id) => json!({
                "type": "suggestion_offered", "v": 1, "id": id.of(IDS), "title": "T", "tldr": "W", "brief": "B"
            }),
            Event::Settle(id, outcome, chat_id) => {
                let mut s = json!({
                    "type": "suggestion_settled", "v": 1, "id": id.of(IDS),
                    "outcome": OUTCOMES[usize::from(*outcome) % OUTCOMES.len()],
                });
                if let Some(c) = chat_id {
                    s["chatId"] = c.of(&["c.s1", "c.s2"]).into();
                }
                s
            }
            Event::Unreadable(id) => json!({ "type": "suggestion_offered", "v": 2, "id": id.of(IDS) }),
        });
    }
    log
}

/// Position of a permission in the order (first occurrence); unknown or none is the lowest.
fn rank(order: &[String], p: Option<&str>) -> usize {
    p.and_then(|p| order.iter().position(|o| o == p)).unwrap_or(0)
}

fn with(log: &[Value], entry: &Entry) -> Chat {
    let mut chat = Chat::from_values(log, false);
    chat.ingest(&serde_json::to_string(entry).expect("an entry serialises"));
    chat
}

fn check_settle(log: &[Value], chat: &Chat, id: &str, action: Action) {
    let decision = settle(chat, id, action);
    let Some(tracked) = chat.suggestions.get(id) else {
        assert_eq!(decision, Err(ServiceError::NotFound { id: id.to_string() }));
        return;
    };
    let standing = &tracked.standing;
    match decision {
        Ok(Decision::Append(s)) => {
            let fits = matches!(
                (s.outcome, standing),
                (Outcome::Drafted | Outcome::Dismissed, Standing::Open) | (Outcome::Restored, Standing::Dismissed)
            );
            assert!(fits, "{:?} returned for an offer that is {standing:?}", s.outcome);
            let wanted = match action {
                Action::Draft => Outcome::Drafted,
                Action::Dismiss => Outcome::Dismissed,
                Action::Restore => Outcome::Restored,
            };
            assert_eq!(
                (s.id.as_str(), s.outcome, s.chat_id.as_deref(), s.v),
                (id, wanted, None, 1)
            );
            if s.outcome == Outcome::Restored {
                assert!(chat.suggestions.open_count() < OPEN_LIMIT);
            }
            // Replay takes it, and the offer stands as the outcome says.
            let after = with(log, &Entry::SuggestionSettled(s.clone()));
            assert_eq!(
                after.skipped, chat.skipped,
                "replay skipped the settlement it was given"
            );
            let now = after.suggestions.get(id).map(|t| t.standing.clone());
            let expected = match s.outcome {
                Outcome::Drafted => Standing::Drafted,
                Outcome::Dismissed => Standing::Dismissed,
                _ => Standing::Open,
            };
            assert_eq!(now, Some(expected));
            check_invariants(&after);
        }
        Ok(Decision::Unchanged) => assert!(action == Action::Restore && *standing == Standing::Open),
        Err(ServiceError::NotOpen { id: got, outcome }) => {
            assert_eq!(got, id);
            assert_eq!(Some(outcome), standing.outcome());
            let allowed = match action {
                Action::Draft | Action::Dismiss => *standing == Standing::Open,
                Action::Restore => matches!(standing, Standing::Open | Standing::Dismissed),
            };
            assert!(!allowed, "{action:?} refused for an offer that is {standing:?}");
        }
        Err(ServiceError::OpenLimit { limit }) => {
            assert_eq!(limit, OPEN_LIMIT);
            assert!(action == Action::Restore && *standing == Standing::Dismissed);
            assert!(chat.suggestions.open_count() >= OPEN_LIMIT);
        }
        Err(other) => panic!("settle gave {other:?}"),
    }
}

fn check_start(log: &[Value], chat: &Chat, chat_id: &str, id: &str, request: &StartRequest, order: &[String]) {
    let plan = plan_start(chat, chat_id, id, request, order);
    let Some(tracked) = chat.suggestions.get(id) else {
        assert_eq!(plan, Err(ServiceError::NotFound { id: id.to_string() }));
        return;
    };
    let origin = Origin {
        chat_id: chat_id.to_string(),
        suggestion_id: id.to_string(),
    };
    let brief = Message {
        v: 1,
        role: "user".to_string(),
        text: Some(tracked.offer.brief.clone()),
        source: Some(Source::Suggestion(origin.clone())),
    };
    match plan {
        Ok(StartPlan::Started {
            chat_id: started,
            brief: b,
        }) => {
            assert_eq!(tracked.standing, Standing::Started { chat_id: started });
            assert_eq!(b, brief);
        }
        Ok(StartPlan::Create {
            chat_id: new_id,
            session,
            settled,
            brief: b,
        }) => {
            assert_eq!(tracked.standing, Standing::Open);
            assert!(chat.workspace().is_some() && !chat.in_scheduled_folder());
            assert_eq!(new_id, started_chat_id(chat_id, id));
            assert!(
                new_id.len() <= STARTED_ID_MAX,
                "started chat id of {} bytes",
                new_id.len()
            );
            assert_eq!(b, brief);
            assert_eq!(
                settled,
                Settlement {
                    v: 1,
                    id: id.to_string(),
                    outcome: Outcome::Started,
                    chat_id: Some(new_id.clone())
                }
            );
            // Never more permission than the offering chat.
            let parent = chat.settings();
            let got = session.settings.permission.as_deref();
            assert!(
                rank(order, got) <= rank(order, parent.permission.as_deref()),
                "started with {got:?} from {:?} under {order:?}",
                parent.permission
            );
            assert_eq!(got.is_none(), order.is_empty());
            assert!(got.is_none_or(|p| order.iter().any(|o| o == p)));
            assert_eq!(session.settings.preset, parent.preset);
            assert_eq!(session.settings.model, request.model.clone().or(parent.model.clone()));
            if parent.preset.is_some() {
                assert_eq!((&session.settings.sandbox, &session.settings.approval), (&None, &None));
            } else {
                assert_eq!(session.settings.sandbox, parent.sandbox);
            }
            assert_eq!(session.workspace.as_deref(), chat.workspace());
            assert_eq!(
                (session.agent.as_str(), session.scheduled_task_folder),
                (TOP_LEVEL, false)
            );
            assert_eq!(session.chat_id.as_deref(), Some(new_id.as_str()));
            assert_eq!(session.origin.as_ref(), Some(&origin));

            // Recorded, the Start is found again and names the same chat.
            let after = with(log, &Entry::SuggestionSettled(settled));
            assert_eq!(
                after.skipped, chat.skipped,
                "replay skipped the settlement it was given"
            );
            assert_eq!(
                plan_start(&after, chat_id, id, request, order),
                Ok(StartPlan::Started {
                    chat_id: new_id.clone(),
                    brief: brief.clone()
                })
            );
            assert_eq!(
                settle(&after, id, Action::Dismiss).map(|_| ()),
                Err(ServiceError::NotOpen {
                    id: id.to_string(),
                    outcome: "started"
                })
            );

            // The started chat, as stored: needs its brief, then is complete; never the person's word.
            let session_text = serde_json::to_string(&Entry::Session(session)).expect("serialises");
            let brief_text = serde_json::to_string(&Entry::Message(brief)).expect("serialises");
            let mut started = Chat::new(false);
            started.ingest(&session_text);
            assert!(started.skipped.is_empty(), "{:?}", started.skipped);
            assert_eq!(started_chat(Some(&started), &origin), StartedChatState::NeedsBrief);
            started.ingest(&brief_text);
            assert_eq!(started_chat(Some(&started), &origin), StartedChatState::Complete);
            assert!(!started.is_helper() && !started.in_scheduled_folder());
            assert!(matches!(
                oda_tasks::settle::check_goal(&started, GoalAction::Create),
                Err(GoalError::NotFromPerson(_))
            ));
            assert_eq!(started_chat(None, &origin), StartedChatState::Missing);
        }
        Err(ServiceError::NotOpen { outcome, .. }) => {
            assert!(matches!(tracked.standing, Standing::Drafted | Standing::Dismissed));
            assert_eq!(Some(outcome), tracked.standing.outcome());
        }
        Err(ServiceError::NoWorkspace { chat_id: got }) => {
            assert_eq!(got, chat_id);
            assert!(tracked.standing == Standing::Open && chat.workspace().is_none());
        }
        Err(ServiceError::ScheduledFolder { chat_id: got }) => {
            assert_eq!(got, chat_id);
            assert!(tracked.standing == Standing::Open && chat.workspace().is_some() && chat.in_scheduled_folder());
        }
        Err(other) => panic!("plan_start gave {other:?}"),
    }
}

fuzz_target!(|case: Case| {
    let log = log_of(&case);
    let chat = Chat::from_values(&log, false);
    check_invariants(&chat);
    let chat_id = case.chat_id.of(&["c"]);
    let order: Vec<String> = case.order.iter().map(|p| p.of(PERMISSIONS)).collect();

    for ask in case.asks.iter().take(8) {
        match ask {
            Ask::Settle(id, action) => {
                let action = [Action::Draft, Action::Dismiss, Action::Restore][usize::from(*action) % 3];
                check_settle(&log, &chat, &id.of(IDS), action);
            }
            Ask::Start { id, model, permission } => {
                let request = StartRequest {
                    model: model.as_ref().map(|m| m.of(&["m2"])),
                    permission: permission.as_ref().map(|p| p.of(PERMISSIONS)),
                };
                check_start(&log, &chat, &chat_id, &id.of(IDS), &request, &order);
            }
        }
    }

    // The clamp: within the order, never above the ceiling or the wish, monotone in the wish.
    let (a, b, ceiling) = &case.wanted;
    let a = a.as_ref().map(|p| p.of(PERMISSIONS));
    let b = b.as_ref().map(|p| p.of(PERMISSIONS));
    let ceiling = ceiling.as_ref().map(|p| p.of(PERMISSIONS));
    let got_a = clamp_permission(a.as_deref(), ceiling.as_deref(), &order);
    let got_b = clamp_permission(b.as_deref(), ceiling.as_deref(), &order);
    assert!(rank(&order, got_a.as_deref()) <= rank(&order, ceiling.as_deref()));
    assert!(rank(&order, got_a.as_deref()) <= rank(&order, a.as_deref()));
    if rank(&order, a.as_deref()) <= rank(&order, b.as_deref()) {
        assert!(rank(&order, got_a.as_deref()) <= rank(&order, got_b.as_deref()));
    }
});
