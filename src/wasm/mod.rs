//! The JavaScript binding: the only module that touches wasm-bindgen.
//!
//! Arguments cross as text, never as JS objects walked from inside WASM: the
//! host serialises every argument to JSON first (where a getter, a Proxy or a
//! cycle can throw safely, in JS), and each export reads it into a typed params
//! struct (`deny_unknown_fields`). Answers leave as JSON text (entries also as
//! their exact stored text) or, for the big read-only answers, as JS values
//! (`…Value` exports, see `convert.rs`) which the host asks for only while its
//! realm guard holds. So no JS code of the host's runs while Rust frames are on
//! the stack. State stays here: `ChatStateCore` keeps a
//! chat's fold alive, and only new entries cross.

mod chat_state;
mod convert;
mod free;
mod jsonl_lines;
mod params;
