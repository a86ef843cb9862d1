//! The JavaScript binding: the only module that touches wasm-bindgen.
//!
//! Values cross as text, never as JS objects walked from inside WASM: the host
//! serialises every argument to JSON first (where a getter, a Proxy or a cycle
//! can throw safely, in JS), each export reads it into a typed params struct
//! (`deny_unknown_fields`), asks the core, and returns its answer as JSON
//! text (entries also as their exact stored text). So no JS code runs while
//! Rust frames are on the stack. State stays here: `ChatStateCore` keeps a
//! chat's fold alive, and only new entries cross.

mod chat_state;
mod convert;
mod free;
mod jsonl_lines;
mod params;
