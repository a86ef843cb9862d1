//! JSONL, the stored form of a log: one entry per line, read in chunks of
//! any size (a line may span chunks), so memory stays flat in the log's length.
//!
//! The reading rules are the JSONL store's: a UTF-8 byte order mark at the
//! start is skipped; a line ends at `\n`, `\r\n` or a lone `\r`; a blank
//! line is no entry; a line that is not JSON (or not UTF-8) is no entry and is
//! reported; text after the last newline is an entry only if it is complete
//! JSON (a hand-written last line), else a write cut off by a crash.

use crate::chat::Chat;
use crate::json::{Out, ToJson};

/// A line that is not an entry, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnreadableLine {
    /// 1-based line number.
    pub line: usize,
    pub reason: String,
}

/// Splits a byte stream into lines and feeds each entry to a [`Chat`].
#[derive(Debug, Clone, Default)]
pub struct JsonlReader {
    /// The stream's first bytes, held until it is known whether they are a byte order mark.
    head: Vec<u8>,
    head_done: bool,
    /// The start of a line whose end has not arrived yet.
    pending: Vec<u8>,
    /// The last line ended with `\r`: a `\n` right after it ends no new line.
    after_cr: bool,
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
        if !self.head_done {
            let take = (BOM.len() - self.head.len()).min(bytes.len());
            let (first, rest) = bytes.split_at(take);
            self.head.extend_from_slice(first);
            bytes = rest;
            if self.head.len() < BOM.len() {
                return;
            }
            self.end_head(chat);
        }
        self.feed_lines(chat, bytes);
    }

    /// The head is complete (or the stream ended): drop a byte order mark, feed the rest.
    fn end_head(&mut self, chat: &mut Chat) {
        self.head_done = true;
        let head = std::mem::take(&mut self.head);
        let body = head.strip_prefix(BOM).unwrap_or(&head);
        self.feed_lines(chat, body);
    }

    fn feed_lines(&mut self, chat: &mut Chat, mut bytes: &[u8]) {
        if self.after_cr && !bytes.is_empty() {
            self.after_cr = false;
            if let Some(rest) = bytes.strip_prefix(b"\n") {
                bytes = rest;
            }
        }
        loop {
            // A line that is one plain object is read in the same pass that finds its end.
            let fused = match self.pending.is_empty() && bytes.first() == Some(&b'{') {
                true => crate::entry::read_line_entry(bytes),
                false => None,
            };
            let end = match &fused {
                Some((_, end)) => *end,
                None => match crate::json::read::find2(b'\n', b'\r', bytes) {
                    Some(end) => end,
                    None => break,
                },
            };
            let (line, rest) = bytes.split_at(end);
            let mut rest = rest.get(1..).unwrap_or_default();
            if bytes.get(end) == Some(&b'\r') {
                match rest.first() {
                    Some(b'\n') => rest = rest.get(1..).unwrap_or_default(),
                    Some(_) => {}
                    None => self.after_cr = true, // the `\n` may begin the next chunk
                }
            }
            if let Some((read, _)) = fused {
                self.lines += 1;
                chat.fold_line(read, line);
            } else if self.pending.is_empty() {
                self.line(chat, line);
            } else {
                let mut joined = std::mem::take(&mut self.pending);
                joined.extend_from_slice(line);
                self.line(chat, &joined);
                joined.clear();
                self.pending = joined; // keep the allocation
            }
            bytes = rest;
        }
        self.pending.extend_from_slice(bytes);
    }

    /// Ends the stream: a last line without a newline counts only when it is complete JSON.
    pub fn finish(&mut self, chat: &mut Chat) {
        if !self.head_done {
            self.end_head(chat);
        }
        let tail = std::mem::take(&mut self.pending);
        if is_blank(&tail) {
            return;
        }
        // Valid JSON is UTF-8 throughout: the check reads every byte.
        let complete = crate::json::validate(&tail).is_ok();
        if complete {
            self.line(chat, &tail);
        } else {
            self.torn = tail.len();
        }
    }

    fn line(&mut self, chat: &mut Chat, line: &[u8]) {
        self.lines += 1;
        if is_blank(line) {
            return;
        }
        // Bytes are read as they are: UTF-8 is checked in the same pass as the JSON.
        if let Err(reason) = chat.ingest_line_bytes(line) {
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

impl ToJson for UnreadableLine {
    fn write_json(&self, out: &mut Out) {
        out.object(|out| {
            out.field("line", &self.line);
            out.field("reason", &self.reason);
        });
    }
}

fn is_blank(bytes: &[u8]) -> bool {
    bytes.iter().all(|b| matches!(b, b' ' | b'\t' | b'\r' | b'\n'))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Feeds `bytes` in chunks of `size` and returns (entries, skipped indexes, unreadable lines, torn).
    fn read(bytes: &[u8], size: usize) -> (usize, Vec<usize>, Vec<usize>, usize) {
        let mut chat = Chat::new(true);
        let mut reader = JsonlReader::default();
        for chunk in bytes.chunks(size.max(1)) {
            reader.feed(&mut chat, chunk);
        }
        reader.finish(&mut chat);
        let skipped = chat.skipped.iter().map(|s| s.index).collect();
        let lines = reader.unreadable.iter().map(|u| u.line).collect();
        (chat.len, skipped, lines, reader.torn)
    }

    fn every_chunking(bytes: &[u8]) -> (usize, Vec<usize>, Vec<usize>, usize) {
        let whole = read(bytes, bytes.len());
        for size in 1..=bytes.len() {
            assert_eq!(read(bytes, size), whole, "chunks of {size}");
        }
        whole
    }

    #[test]
    fn lines_blank_lines_crlf_and_a_byte_order_mark() {
        let text = b"\xEF\xBB\xBF{\"type\":\"session\"}\r\n\n  \n{\"type\":\"turn_started\"}\n";
        assert_eq!(every_chunking(text), (2, vec![], vec![], 0));
    }

    #[test]
    fn a_lone_cr_ends_a_line_and_crlf_split_across_chunks_ends_one() {
        let text = b"{\"type\":\"a\"}\r{\"type\":\"b\"}\r\n{oops\r{\"type\":\"c\"}\r";
        assert_eq!(every_chunking(text), (3, vec![], vec![3], 0));
    }

    #[test]
    fn a_short_first_line_is_not_glued_to_the_next() {
        assert_eq!(every_chunking(b"\n\n{\"type\":\"x\"}\n1\n"), (2, vec![1], vec![], 0));
        assert_eq!(every_chunking(b"{}\n{}\n"), (2, vec![0, 1], vec![], 0));
    }

    #[test]
    fn lines_that_are_not_json_or_not_utf8_are_no_entries() {
        let text = b"{\"type\":\"a\"}\n{oops\n\xff\xfe\n{\"type\":\"b\"}\n";
        assert_eq!(every_chunking(text), (2, vec![], vec![2, 3], 0));
    }

    #[test]
    fn a_last_line_counts_only_when_it_is_complete_json() {
        assert_eq!(
            every_chunking(b"{\"type\":\"a\"}\n{\"type\":\"b\"}"),
            (2, vec![], vec![], 0)
        );
        assert_eq!(
            every_chunking(b"{\"type\":\"a\"}\n{\"type\":\"b"),
            (1, vec![], vec![], 10)
        );
        assert_eq!(every_chunking(b"\xEF\xBB"), (0, vec![], vec![], 2));
        assert_eq!(every_chunking(b""), (0, vec![], vec![], 0));
    }
}

#[cfg(test)]
#[path = "jsonl_oracle.rs"]
mod oracle;
