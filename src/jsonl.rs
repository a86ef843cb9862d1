//! JSONL, the stored form of a log: one entry per line, read in chunks of
//! any size (a line may span chunks), so memory stays flat in the log's length.
//! This is the one JSONL reader: `ChatState.fromJsonl`, the CLI, the JSONL
//! store's scanner and the preview all use it.
//!
//! The rules: a UTF-8 byte order mark at the start is skipped; a line ends at
//! `\n`, `\r\n` or a lone `\r`; a blank line is no entry; a line that is not
//! JSON (or not UTF-8) is no entry and is reported; text after the last line
//! end is an entry only if it is complete JSON (a hand-written last line),
//! else a write cut off by a crash ("torn").

use serde::Serialize;

use crate::chat::Chat;

/// A line that is not an entry, and why.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct UnreadableLine {
    /// 1-based line number.
    pub line: usize,
    pub reason: String,
}

/// One complete line, as the splitter hands it on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Line<'a> {
    /// Blank (only spaces, tabs): no entry.
    Blank,
    /// The line's text (a byte order mark at the file's start removed).
    Text(&'a str),
    /// Bytes that are not UTF-8.
    NotUtf8,
    /// Longer than the reader keeps (the JSONL store's limit of a JS string).
    TooLong,
}

/// Splits a byte stream into lines by the rules above.
#[derive(Debug, Clone)]
pub struct LineSplitter {
    /// The start of a line whose end has not arrived yet.
    pending: Vec<u8>,
    /// The pending line grew past `max_line`: its bytes are dropped to its end.
    overlong: bool,
    max_line: usize,
    /// The last line ended with `\r`: a `\n` right after it ends no new line.
    after_cr: bool,
    /// The next line is the stream's first (a byte order mark may start it).
    first: bool,
    /// Lines completed so far.
    pub lines: usize,
    /// Absolute offset of the next byte, and just past the last line end.
    pub offset: u64,
    pub line_end: u64,
}

const BOM: &str = "\u{feff}";

/// A held line grows by doubling up to this size (the CLI's and the store's read chunk)...
const DOUBLING_LIMIT: usize = 1 << 20;
/// ...and past it takes room for `max_line` at once, when that cap is at most this.
const CAP_RESERVED_AT_ONCE: usize = 64 << 20;

impl Default for LineSplitter {
    fn default() -> Self {
        LineSplitter::new(0, usize::MAX)
    }
}

impl LineSplitter {
    /// A splitter starting at `offset` (0, or just past a line end); lines past `max_line` bytes are [`Line::TooLong`].
    pub fn new(offset: u64, max_line: usize) -> LineSplitter {
        LineSplitter {
            pending: Vec::new(),
            overlong: false,
            max_line,
            after_cr: false,
            first: offset == 0,
            lines: 0,
            offset,
            line_end: offset,
        }
    }

    /// Whether the bytes so far end inside a line.
    pub fn open_line(&self) -> bool {
        self.offset > self.line_end
    }

    /// Feeds the next chunk; `each` gets every complete line and the offset past its end.
    pub fn feed(&mut self, mut bytes: &[u8], each: &mut impl FnMut(Line, u64)) {
        if self.after_cr && !bytes.is_empty() {
            self.after_cr = false;
            if let Some(rest) = bytes.strip_prefix(b"\n") {
                bytes = rest;
                self.offset += 1;
                self.line_end = self.offset;
            }
        }
        let Some(last) = memchr::memrchr2(b'\n', b'\r', bytes) else {
            self.hold(bytes);
            return;
        };
        let (mut complete, rest) = bytes.split_at(last + 1);
        if !self.pending.is_empty() || self.overlong {
            // The line begun in an earlier chunk ends here.
            let end = memchr::memchr2(b'\n', b'\r', complete).unwrap_or(last);
            let (head, tail) = complete.split_at(end + 1);
            self.hold(head);
            let mut line = std::mem::take(&mut self.pending);
            self.region(&line, each);
            line.clear();
            self.pending = line; // keep the allocation
            complete = self.skip_lf(tail);
        }
        // Checked as UTF-8 once for all its lines; lines of a chunk that is not are checked one by one.
        match utf8(complete) {
            Ok(text) => self.lines_of(text.as_bytes(), Some(text), each),
            Err(_) => self.lines_of(complete, None, each),
        }
        if !rest.is_empty() {
            self.after_cr = false; // a `\n` in a later chunk ends the line `rest` begins
        }
        self.hold(rest);
    }

    /// Holds the start of a line whose end has not arrived.
    fn hold(&mut self, bytes: &[u8]) {
        self.offset += bytes.len() as u64;
        if self.overlong {
            return;
        }
        let needed = self.pending.len() + bytes.len();
        if needed > self.max_line {
            self.overlong = true;
            self.pending = Vec::new();
            return;
        }
        if needed > self.pending.capacity() && needed > DOUBLING_LIMIT && self.max_line <= CAP_RESERVED_AT_ONCE {
            // Past a chunk, room for the longest line kept in one step: doubling up to
            // the cap leaves blocks that the allocator cannot join into the last one.
            let _ = self.pending.try_reserve_exact(self.max_line - self.pending.len());
        }
        self.pending.extend_from_slice(bytes);
    }

    /// A joined line (held bytes and its end): one line, which may hold a CR and an LF.
    fn region(&mut self, line: &[u8], each: &mut impl FnMut(Line, u64)) {
        let overlong = std::mem::take(&mut self.overlong);
        let body = line
            .strip_suffix(b"\n")
            .or_else(|| line.strip_suffix(b"\r"))
            .unwrap_or(line);
        if line.ends_with(b"\r") {
            self.after_cr = true;
        }
        self.lines += 1;
        self.line_end = self.offset;
        let read = match (overlong, utf8(body)) {
            (false, Ok(text)) => self.text_line(text),
            (true, _) => self.not_text(Line::TooLong),
            (false, Err(_)) => self.not_text(Line::NotUtf8),
        };
        each(read, self.line_end);
    }

    /// After a line that ended with `\r`, a `\n` at once is part of that line end.
    fn skip_lf<'b>(&mut self, bytes: &'b [u8]) -> &'b [u8] {
        if !self.after_cr || bytes.is_empty() {
            return bytes;
        }
        self.after_cr = false;
        match bytes.strip_prefix(b"\n") {
            Some(rest) => {
                self.offset += 1;
                self.line_end = self.offset;
                rest
            }
            None => bytes,
        }
    }

    /// Complete lines (`bytes` ends with a line end), as text when `text` is given.
    fn lines_of(&mut self, bytes: &[u8], text: Option<&str>, each: &mut impl FnMut(Line, u64)) {
        let mut at = 0;
        while let Some(found) = bytes.get(at..).and_then(|rest| memchr::memchr2(b'\n', b'\r', rest)) {
            let end = at + found;
            let mut next = end + 1;
            let cr = bytes.get(end) == Some(&b'\r');
            if cr {
                match bytes.get(next) {
                    Some(b'\n') => next += 1,
                    Some(_) => {}
                    None => self.after_cr = true, // the `\n` may begin the next chunk
                }
            }
            self.lines += 1;
            self.offset += (next - at) as u64;
            self.line_end = self.offset;
            let read = match text.and_then(|t| t.get(at..end)) {
                Some(line) => self.text_line(line),
                None => match bytes.get(at..end).map(utf8) {
                    Some(Ok(line)) => self.text_line(line),
                    _ => self.not_text(Line::NotUtf8),
                },
            };
            each(read, self.line_end);
            at = next;
        }
    }

    fn not_text(&mut self, line: Line<'static>) -> Line<'static> {
        self.first = false;
        line
    }

    fn text_line<'t>(&mut self, text: &'t str) -> Line<'t> {
        let text = match std::mem::take(&mut self.first) {
            true => text.strip_prefix(BOM).unwrap_or(text),
            false => text,
        };
        if is_blank(text) {
            Line::Blank
        } else {
            Line::Text(text)
        }
    }

    /// Ends the stream: the bytes after the last line end, as a last line
    /// when they are complete JSON (`Ok`), else their length (torn, `Err`; 0: none).
    pub fn finish(&mut self, each: &mut impl FnMut(Line, u64)) -> Result<(), usize> {
        let tail = std::mem::take(&mut self.pending);
        if std::mem::take(&mut self.overlong) {
            return Err(usize::try_from(self.offset - self.line_end).unwrap_or(usize::MAX));
        }
        let Ok(text) = utf8(&tail) else {
            return Err(tail.len());
        };
        let first = self.first;
        let body = if first {
            text.strip_prefix(BOM).unwrap_or(text)
        } else {
            text
        };
        if is_blank(body) {
            return Ok(());
        }
        if !crate::entry::is_json(body) {
            return Err(tail.len());
        }
        // An entry, but still an open line: `line_end` stays before it (a writer adds "\n" first).
        self.lines += 1;
        let line = self.text_line(text);
        each(line, self.offset);
        Ok(())
    }
}

/// Splits a byte stream into lines and feeds each entry to a [`Chat`].
#[derive(Debug, Clone, Default)]
pub struct JsonlReader {
    split: LineSplitter,
    pub unreadable: Vec<UnreadableLine>,
    /// Bytes after the last line end that were not complete JSON, at the end.
    pub torn: usize,
}

impl JsonlReader {
    /// A reader that skips lines longer than `max_line` bytes (reported as too long) without holding them.
    pub fn with_max_line(max_line: usize) -> JsonlReader {
        JsonlReader {
            split: LineSplitter::new(0, max_line),
            ..JsonlReader::default()
        }
    }

    /// Whether bytes of a line begun are held, waiting for its end (an entry is half fed);
    /// [`finish`](Self::finish) settles them.
    pub fn open_line(&self) -> bool {
        !self.split.pending.is_empty() || self.split.overlong
    }

    /// Feeds the next chunk; complete lines are folded at once.
    pub fn feed(&mut self, chat: &mut Chat, bytes: &[u8]) {
        let (split, unreadable) = (&mut self.split, &mut self.unreadable);
        let lines = split.lines;
        let mut n = lines;
        split.feed(bytes, &mut |line, _| {
            n += 1;
            fold(chat, unreadable, n, line);
        });
    }

    /// Ends the stream: a last line without a line end counts only when it is complete JSON.
    pub fn finish(&mut self, chat: &mut Chat) {
        let (split, unreadable) = (&mut self.split, &mut self.unreadable);
        let n = split.lines + 1;
        if let Err(torn) = split.finish(&mut |line, _| fold(chat, unreadable, n, line)) {
            self.torn = torn;
        }
    }
}

fn fold(chat: &mut Chat, unreadable: &mut Vec<UnreadableLine>, line: usize, read: Line) {
    let reason = match read {
        Line::Blank => return,
        Line::Text(text) => match chat.ingest_json_line(text) {
            Ok(()) => return,
            Err(reason) => reason,
        },
        Line::NotUtf8 => "not UTF-8 text".to_string(),
        Line::TooLong => "the line is too long to read".to_string(),
    };
    unreadable.push(UnreadableLine { line, reason });
}

/// The one UTF-8 check of the reader: simdutf8's (SIMD where the target has it;
/// only whether, not where, the bytes fail matters here).
fn utf8(bytes: &[u8]) -> Result<&str, simdutf8::basic::Utf8Error> {
    simdutf8::basic::from_utf8(bytes)
}

fn is_blank(text: &str) -> bool {
    text.bytes().all(|b| matches!(b, b' ' | b'\t' | b'\r' | b'\n'))
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, clippy::indexing_slicing)]
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

    /// A line begun and not ended is held (an entry ingested now would go before it) until its end or `finish`.
    #[test]
    fn a_half_fed_line_is_open_until_its_end_or_the_finish() {
        let mut chat = Chat::new(true);
        let mut reader = JsonlReader::default();
        assert!(!reader.open_line());
        reader.feed(&mut chat, b"{\"type\":\"session\"}\r");
        assert!(!reader.open_line(), "a CR ends the line");
        reader.feed(&mut chat, b"\n{\"type\":\"tu");
        assert!(reader.open_line());
        reader.feed(&mut chat, b"rn_started\"}\n");
        assert!(!reader.open_line());
        reader.feed(&mut chat, b"{\"type\":");
        reader.finish(&mut chat);
        assert!(!reader.open_line(), "the finish settles a torn tail");
        let mut long = JsonlReader::with_max_line(4);
        long.feed(&mut chat, b"0123456789");
        assert!(long.open_line(), "an over-long line is open too");
        long.feed(&mut chat, b"\n{}\n");
        assert!(!long.open_line());
        assert_eq!(long.unreadable.len(), 1, "the long line is reported, not read");
    }

    /// Past the first MiB a held line takes room for the cap in one step, not by doubling.
    #[test]
    fn a_long_held_line_reserves_the_cap_in_one_step() {
        let mut split = LineSplitter::new(0, 16 << 20);
        let chunk = vec![b'a'; 1 << 20];
        split.feed(&chunk, &mut |_, _| {});
        assert_eq!(split.pending.capacity(), 1 << 20);
        split.feed(&chunk, &mut |_, _| {});
        assert_eq!(split.pending.capacity(), 16 << 20);
        let mut uncapped = LineSplitter::new(0, usize::MAX);
        uncapped.feed(&chunk, &mut |_, _| {});
        uncapped.feed(&chunk, &mut |_, _| {});
        assert!(uncapped.pending.capacity() < 16 << 20, "no cap: it grows as it goes");
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
        assert_eq!(every_chunking(b"\xEF\xBB\xBF"), (0, vec![], vec![], 0));
    }

    #[test]
    fn offsets_and_line_ends_are_those_of_the_bytes() {
        for size in 1..=12 {
            let bytes = b"{\"a\":1}\r\n\r{}\n{";
            let mut split = LineSplitter::new(0, usize::MAX);
            let mut ends = Vec::new();
            for chunk in bytes.chunks(size) {
                split.feed(chunk, &mut |_, end| ends.push(end));
            }
            assert_eq!(split.line_end, 13, "chunks of {size}");
            assert!(split.open_line());
            assert_eq!(split.finish(&mut |_, _| {}), Err(1));
        }
    }
}
