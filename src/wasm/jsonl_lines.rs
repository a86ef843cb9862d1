//! `JsonlLines`: the core's JSONL line rules for the JSONL store's scanner
//! and the preview. Bytes in; each entry line's text out, with where it ends.

use wasm_bindgen::prelude::*;

use crate::jsonl::{Line, LineSplitter, UnreadableLine};

/// Splits JSONL bytes fed in chunks into entry texts, by the core's rules.
///
/// # Examples
///
/// ```js
/// const lines = new JsonlLines(0, 0, 0x1fffffe8);
/// lines.push(new TextEncoder().encode('{"type":"session"}\n{"type":"turn_started"}\n'));
/// lines.end();
/// assert.deepEqual(lines.texts(), ['{"type":"session"}', '{"type":"turn_started"}']);
/// ```
#[wasm_bindgen]
pub struct JsonlLines {
    split: LineSplitter,
    /// Entry texts not yet taken by `texts()`.
    texts: Vec<String>,
    /// Entries seen, and the count and offset at the last line end.
    count: f64,
    checkpoint_count: f64,
    unreadable: Vec<UnreadableLine>,
    /// Lines handed on so far (for the 1-based number of an unreadable one).
    lines: usize,
    torn: f64,
}

#[wasm_bindgen]
impl JsonlLines {
    /// Starts at byte `offset` (0, or just past a line end) with `count` entries before it.
    #[wasm_bindgen(constructor)]
    pub fn new(offset: f64, count: f64, max_line: f64) -> JsonlLines {
        let max = if max_line.is_finite() && max_line > 0.0 {
            max_line as usize
        } else {
            usize::MAX
        };
        JsonlLines {
            split: LineSplitter::new(offset.max(0.0) as u64, max),
            texts: Vec::new(),
            count,
            checkpoint_count: count,
            unreadable: Vec::new(),
            lines: 0,
            torn: 0.0,
        }
    }

    fn take(&mut self, line: Line) {
        self.lines += 1;
        let reason = match line {
            Line::Blank => None,
            Line::Text(text) => match serde_json::from_str::<serde::de::IgnoredAny>(text) {
                Ok(_) => {
                    self.texts.push(text.to_string());
                    self.count += 1.0;
                    None
                }
                Err(e) => Some(crate::text::quote(&e.to_string()).into_owned()),
            },
            Line::NotUtf8 => Some("not UTF-8 text".to_string()),
            Line::TooLong => Some("the line is too long to read".to_string()),
        };
        if let Some(reason) = reason {
            self.unreadable.push(UnreadableLine {
                line: self.lines,
                reason,
            });
        }
        self.checkpoint_count = self.count;
    }

    /// Feeds the next chunk.
    pub fn push(&mut self, bytes: &[u8]) {
        let mut split = std::mem::take(&mut self.split);
        split.feed(bytes, &mut |line, _| self.take(line));
        self.split = split;
    }

    /// Ends the stream: a last line without a line end is an entry only if it is complete JSON.
    pub fn end(&mut self) {
        let at_line_end = self.checkpoint_count;
        let mut split = std::mem::take(&mut self.split);
        if let Err(torn) = split.finish(&mut |line, _| self.take(line)) {
            self.torn = torn as f64;
        }
        self.split = split;
        self.checkpoint_count = at_line_end; // a last line without its end lies past the checkpoint
    }

    /// The entry texts read since the last call, in order.
    pub fn texts(&mut self) -> Vec<String> {
        std::mem::take(&mut self.texts)
    }

    /// Entries seen so far (counting those before the start).
    #[wasm_bindgen(getter)]
    pub fn count(&self) -> f64 {
        self.count
    }

    /// The offset just past the last line end.
    #[wasm_bindgen(getter, js_name = checkpointOffset)]
    pub fn checkpoint_offset(&self) -> f64 {
        self.split.line_end as f64
    }

    /// The entries before [`checkpoint_offset`].
    #[wasm_bindgen(getter, js_name = checkpointCount)]
    pub fn checkpoint_count(&self) -> f64 {
        self.checkpoint_count
    }

    /// Whether the bytes so far end inside a line.
    #[wasm_bindgen(getter, js_name = openLine)]
    pub fn open_line(&self) -> bool {
        self.split.open_line()
    }

    /// JSON: `{ unreadable: [{ line, reason }], tornBytes }`, as `ChatState#endJsonl` reports it.
    pub fn report(&self) -> String {
        #[derive(serde::Serialize)]
        #[serde(rename_all = "camelCase")]
        struct Report<'a> {
            unreadable: &'a [UnreadableLine],
            torn_bytes: f64,
        }
        super::convert::answer(&Report {
            unreadable: &self.unreadable,
            torn_bytes: self.torn,
        })
    }

    /// Bytes of a torn last line (0: none), after `end()`.
    #[wasm_bindgen(getter, js_name = tornBytes)]
    pub fn torn_bytes(&self) -> f64 {
        self.torn
    }
}
