//! Shared by the fuzz targets: structured logs drawn with `arbitrary` and
//! rendered as entry texts and JSONL bytes (`log`), and everything a folded
//! chat answers (`observe`) and the words entries are drawn from (`words`),
//! the same modules the property tests use.

#[path = "../../tests/support/observe.rs"]
pub mod observe;

#[path = "../../tests/support/words.rs"]
pub mod words;

pub mod log;

/// Bytes as text the way a host hands them over: JSON text is always UTF-8,
/// so invalid sequences become U+FFFD rather than being thrown away.
pub fn text_of(data: &[u8]) -> std::borrow::Cow<'_, str> {
    String::from_utf8_lossy(data)
}

/// Longest refusal a model may see: the fixed words of the longest message
/// plus the quoted text (at most 200 characters and `…`) and a parser's reason.
pub const MAX_REFUSAL_CHARS: usize = 700;
