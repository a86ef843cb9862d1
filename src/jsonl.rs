//! JSONL, the stored form of a log: one entry per line, read in chunks of
//! any size (a line may span chunks), so memory stays flat in the log's length.
//!
//! The reading rules are the JSONL store's: a UTF-8 byte order mark at the
//! start is skipped; lines end at `\n` (a `\r` before it is dropped); a blank
//! line is no entry; a line that is not JSON (or not UTF-8) is no entry and is
//! reported; text after the last newline is an entry only if it is complete
//! JSON (a hand-written last line), else a write cut off by a crash.

use serde::Serialize;

use crate::chat::Chat;

/// A line that is not an entry, and why.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct UnreadableLine {
    /// 1-based line number.
    pub line: usize,
    pub reason: String,
}

/// Splits a byte stream into lines and feeds each entry to a [`Chat`].
#[derive(Debug, Clone, Default)]
pub struct JsonlReader {
    /// The start of a line whose end has not arrived yet.
    pending: Vec<u8>,
    /// Bytes seen so far (to find the byte order mark).
    seen: usize,
    /// Lines completed so far.
    lines: usize,
    pub unreadable: Vec<UnreadableLine>,
    /// Bytes after the last newline that were not complete JSON, at the end.
    pub torn: usize,
}

const BOM: &[u8] = b"\xEF\xBB\xBF";

impl JsonlReader {
    /// Feeds the next chunk; complete lines are folded at once.
    pub fn feed(&mut self, chat: &mut Chat, mut bytes: &[u8]) {
        if self.seen < BOM.len() {
            // The mark may itself span chunks: hold the first bytes until it is known.
            let want = BOM.len() - self.seen;
            let take = want.min(bytes.len());
            self.pending.extend_from_slice(bytes.get(..take).unwrap_or_default());
            self.seen += take;
            bytes = bytes.get(take..).unwrap_or_default();
            if self.seen < BOM.len() {
                return;
            }
            // The first bytes are known now: drop the mark, or split them into
            // lines like any others (they may hold a newline: `{}\n`, `\n\n`).
            let head = std::mem::take(&mut self.pending);
            if head != BOM {
                self.split(chat, &head);
            }
        }
        self.seen += bytes.len();
        self.split(chat, bytes);
    }

    /// Folds every line `bytes` completes and keeps the rest for the next chunk.
    fn split(&mut self, chat: &mut Chat, mut bytes: &[u8]) {
        while let Some(end) = memchr::memchr(b'\n', bytes) {
            let (line, rest) = bytes.split_at(end);
            if self.pending.is_empty() {
                self.line(chat, line);
            } else {
                let mut joined = std::mem::take(&mut self.pending);
                joined.extend_from_slice(line);
                self.line(chat, &joined);
                joined.clear();
                self.pending = joined; // keep the allocation
            }
            bytes = rest.get(1..).unwrap_or_default();
        }
        self.pending.extend_from_slice(bytes);
    }

    /// Ends the stream: a last line without a newline counts only when it is complete JSON.
    pub fn finish(&mut self, chat: &mut Chat) {
        if self.seen < BOM.len() {
            // A stream shorter than the mark: a cut-off mark is dropped, other bytes are lines.
            let head = std::mem::take(&mut self.pending);
            if head != BOM.get(..head.len()).unwrap_or_default() {
                self.split(chat, &head);
            }
        }
        let tail = std::mem::take(&mut self.pending);
        if is_blank(&tail) {
            return;
        }
        let complete = std::str::from_utf8(&tail)
            .ok()
            .is_some_and(|text| serde_json::from_str::<serde::de::IgnoredAny>(text).is_ok());
        if complete {
            self.line(chat, &tail);
        } else {
            self.torn = tail.len();
        }
    }

    fn line(&mut self, chat: &mut Chat, line: &[u8]) {
        self.lines += 1;
        let line = line.strip_suffix(b"\r").unwrap_or(line);
        if is_blank(line) {
            return;
        }
        let Ok(text) = std::str::from_utf8(line) else {
            self.unreadable(String::from("not UTF-8 text"));
            return;
        };
        if let Err(reason) = chat.ingest_json_line(text) {
            self.unreadable(reason);
        }
    }

    fn unreadable(&mut self, reason: String) {
        self.unreadable.push(UnreadableLine {
            line: self.lines,
            reason,
        });
    }
}

fn is_blank(bytes: &[u8]) -> bool {
    bytes.iter().all(|b| matches!(b, b' ' | b'\t' | b'\r' | b'\n'))
}
