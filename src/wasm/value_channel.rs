//! Measurement only (feature `value-channel`): the same answers as JS values
//! built by serde-wasm-bindgen, to compare with JSON text + `JSON.parse`.

use serde::Serialize;
use wasm_bindgen::prelude::*;

use super::chat_state::ChatStateCore;
use crate::replay::View;

fn value<T: Serialize + ?Sized>(answer: &T) -> Result<JsValue, JsValue> {
    answer
        .serialize(&serde_wasm_bindgen::Serializer::json_compatible())
        .map_err(|e| JsValue::from_str(&e.to_string()))
}

#[wasm_bindgen]
impl ChatStateCore {
    #[wasm_bindgen(js_name = viewValue)]
    pub fn view_value(&self, cards: usize) -> Result<JsValue, JsValue> {
        value(&View::of(&self.chat, cards))
    }

    #[wasm_bindgen(js_name = cardsValue)]
    pub fn cards_value(&self, from: usize, to: usize) -> Result<JsValue, JsValue> {
        value(&self.chat.todos.cards(from, to))
    }

    #[wasm_bindgen(js_name = todoWriteValue)]
    pub fn todo_write_value(&self, params_text: &str) -> Result<JsValue, JsValue> {
        #[derive(Serialize)]
        struct Done<'a> {
            ok: bool,
            entry: &'a crate::entry::Entry,
            output: &'a str,
        }
        let p = super::params::todo_write(params_text).map_err(|e| JsValue::from_str(&e))?;
        let d = crate::todo::todo_write(true, &p.input.read(), crate::todo::TodoOptions::default())
            .map_err(|e| JsValue::from_str(&e.to_string()))?;
        let entry = crate::entry::Entry::TodoUpdate(d.entry);
        value(&Done {
            ok: true,
            entry: &entry,
            output: &d.output,
        })
    }

    #[wasm_bindgen(js_name = settleValue)]
    pub fn settle_value(&self, params_text: &str) -> Result<JsValue, JsValue> {
        #[derive(Serialize)]
        struct Settled {
            ok: bool,
            entry: crate::entry::Entry,
        }
        let (id, action) = super::params::settle(params_text).map_err(|e| JsValue::from_str(&e))?;
        match crate::settle::settle(&self.chat, &id, action) {
            Ok(crate::settle::Decision::Append(s)) => value(&Settled {
                ok: true,
                entry: crate::entry::Entry::SuggestionSettled(s),
            }),
            _ => Ok(JsValue::NULL),
        }
    }
}
