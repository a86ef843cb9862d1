//! Shared by the fuzz targets: structured logs drawn with `arbitrary` and
//! rendered as entry texts and JSONL bytes (`log`), the two reads of a JSONL
//! file that must agree (`jsonl_reads`), everything a folded chat answers
//! (`observe`) and the words entries are drawn from (`words`): the modules
//! of tests/support/ the property tests use.

#[path = "../../tests/support/observe.rs"]
pub mod observe;

#[path = "../../tests/support/words.rs"]
pub mod words;

#[path = "../../tests/support/log.rs"]
pub mod log;

#[path = "../../tests/support/jsonl_reads.rs"]
pub mod jsonl_reads;

/// Bytes as text the way a host hands them over: JSON text is always UTF-8,
/// so invalid sequences become U+FFFD rather than being thrown away.
pub fn text_of(data: &[u8]) -> std::borrow::Cow<'_, str> {
    String::from_utf8_lossy(data)
}

/// Longest refusal a model may see: the fixed words of the longest message
/// plus the quoted text (at most 200 characters and `…`) and a parser's reason.
pub const MAX_REFUSAL_CHARS: usize = 700;

/// A refusal as a model sees it: it names its tool (`prefix`) and stays short.
pub fn check_refusal(message: &str, prefix: &str) {
    assert!(message.starts_with(prefix), "{message}");
    let length = message.chars().count();
    assert!(length <= MAX_REFUSAL_CHARS, "a refusal of {length} characters");
}
