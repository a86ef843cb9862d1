//! Test inputs for the differential tests: JSON texts, valid and broken, from
//! a seeded generator (no dependency, the same cases on every run).

/// xorshift64*: small, seeded, good enough to spread test cases.
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1)
    }

    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    /// A number in `0..n` (`n > 0`).
    pub fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }

    pub fn chance(&mut self, percent: usize) -> bool {
        self.below(100) < percent
    }

    pub fn pick<T: Copy>(&mut self, items: &[T]) -> T {
        items[self.below(items.len())]
    }
}

/// Pieces of string content, each a way strings go right or wrong.
const STRING_PIECES: &[&str] = &[
    "a",
    "plain text",
    "é",
    "日本",
    "😀",
    "\\\"",
    "\\\\",
    "\\/",
    "\\b\\f\\n\\r\\t",
    "\\u0041",
    "\\u00e9",
    "\\ud83d\\ude00", // a pair
    "\\uD83D\\uDE00", // a pair, upper case
    "\\ud800",        // lone high
    "\\udc00",        // lone low
    "\\ude00\\ud83d", // reversed pair
    "\\ud800\\u0041", // high then not low
    "\\ud800\\n",     // high then another escape
    "\\ud800x",       // high then text
    "\\\\ud800",      // an escaped backslash before u: text
    "\\u12",          // short escape
    "\\uzzzz",        // bad hex
    "\\x",            // bad escape
    "\u{1}",          // raw control character
    "\t",             // raw tab
    "\u{7f}",         // DEL is fine
    "\u{2028}",
    "\u{10FFFF}",
    "\u{FFFF}",
    "text must be well-formed Unicode (it holds a lone surrogate)",
    " at line 1 column 2",
    "pending",
    "in_progress",
    "completed",
    "suggestion",
];

const NUMBERS: &[&str] = &[
    "0", "-0", "1", "-1", "12", "1.5", "-1.25e3", "1e2", "1E+2", "1e-2", "0.1", "01", "1.", ".5", "-", "1e", "1e+",
    "2", "18446744073709551615", "18446744073709551616", "-9223372036854775808", "-9223372036854775809",
    "123456789012345678901234567890", "1e308", "1.7976931348623157e308", "1.7976931348623159e308", "1e309", "-1e309",
    "1e400", "0e999", "1e-400", "1e2147483648", "1e-2147483648", "0.000000000000000000000000001e330", "1e99999999999",
    "179769313486231570000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000",
    "-00", "1.0", "4", "99999999999999999999e290",
];

/// Keys an entry (or params struct) may have, and a few others.
pub const KEYS: &[&str] = &[
    "type",
    "v",
    "chatId",
    "title",
    "workspace",
    "scheduledTaskFolder",
    "agent",
    "settings",
    "origin",
    "todos",
    "id",
    "tldr",
    "brief",
    "outcome",
    "role",
    "source",
    "text",
    "content",
    "status",
    "kind",
    "suggestionId",
    "preset",
    "model",
    "permission",
    "sandbox",
    "approval",
    "input",
    "unreadable",
    "options",
    "oneActive",
    "action",
    "request",
    "permissions",
    "wanted",
    "ceiling",
    "x",
    "",
    "ty\\u0070e",
    "\\ud800",
];

/// Values that field readers treat specially.
const WORDS: &[&str] = &[
    "\"session\"",
    "\"turn_started\"",
    "\"turn_ended\"",
    "\"todo_update\"",
    "\"suggestion_offered\"",
    "\"suggestion_settled\"",
    "\"message\"",
    "\"tool_call\"",
    "\"user\"",
    "\"assistant\"",
    "\"started\"",
    "\"drafted\"",
    "\"dismissed\"",
    "\"restored\"",
    "\"suggestion\"",
    "\"pending\"",
    "\"in_progress\"",
    "\"completed\"",
    "\"top-level\"",
    "\"helper\"",
    "\"draft\"",
    "\"dismiss\"",
    "\"restore\"",
    "\"create\"",
    "\"complete\"",
    "\"s1\"",
    "\"c1\"",
    "1",
    "2",
    "0",
    "true",
    "false",
    "null",
    "\"1\"",
    "1.5",
    "[]",
    "{}",
    "{\"draft\":null}",
    "{\"draft\":1}",
];

/// Whitespace between tokens, mostly none.
fn ws(rng: &mut Rng, out: &mut String) {
    if rng.chance(85) {
        return;
    }
    out.push_str(rng.pick(&[" ", "\n", "\t", "\r\n", "  \n ", "\u{c}", "\u{a0}"]));
}

/// The pieces of [`STRING_PIECES`] that are valid JSON string content.
const VALID_PIECES: usize = 20;
/// The numbers of [`NUMBERS`] that are valid JSON.
const VALID_NUMBERS: usize = 11;

/// A string literal built from [`STRING_PIECES`].
pub fn string(rng: &mut Rng, out: &mut String) {
    out.push('"');
    for _ in 0..rng.below(4) {
        out.push_str(rng.pick(STRING_PIECES));
    }
    out.push('"');
}

/// A valid string literal (lone surrogates included: they are valid JSON).
pub fn valid_string(rng: &mut Rng, out: &mut String) {
    out.push('"');
    for _ in 0..rng.below(4) {
        let piece = if rng.chance(70) {
            rng.pick(&STRING_PIECES[..VALID_PIECES])
        } else {
            rng.pick(&STRING_PIECES[25..])
        };
        out.push_str(piece);
    }
    out.push('"');
}

/// A valid JSON value of up to `depth` levels.
pub fn valid_value(rng: &mut Rng, depth: usize, out: &mut String) {
    if rng.chance(5) {
        out.push(' ');
    }
    match if depth == 0 { rng.below(4) } else { rng.below(6) } {
        0 => valid_string(rng, out),
        1 => out.push_str(rng.pick(&NUMBERS[..VALID_NUMBERS])),
        2 => out.push_str(rng.pick(WORDS)),
        3 => out.push_str(rng.pick(&["true", "false", "null"])),
        4 => {
            out.push('[');
            for i in 0..rng.below(4) {
                if i > 0 {
                    out.push(',');
                }
                valid_value(rng, depth - 1, out);
            }
            out.push(']');
        }
        _ => {
            out.push('{');
            for i in 0..rng.below(5) {
                if i > 0 {
                    out.push(',');
                }
                out.push('"');
                out.push_str(rng.pick(&KEYS[..KEYS.len() - 1]));
                out.push_str("\":");
                valid_value(rng, depth - 1, out);
            }
            out.push('}');
        }
    }
}

/// A JSON value of up to `depth` levels (valid unless a piece is not).
pub fn value(rng: &mut Rng, depth: usize, out: &mut String) {
    ws(rng, out);
    match if depth == 0 { rng.below(4) } else { rng.below(7) } {
        0 => string(rng, out),
        1 => out.push_str(rng.pick(NUMBERS)),
        2 => out.push_str(rng.pick(WORDS)),
        3 => out.push_str(rng.pick(&["true", "false", "null", "nul", "tru", "fals"])),
        4 => {
            out.push('[');
            for i in 0..rng.below(4) {
                if i > 0 {
                    out.push(',');
                }
                value(rng, depth - 1, out);
            }
            if rng.chance(3) {
                out.push(',');
            }
            out.push(']');
        }
        _ => object(rng, depth - 1, out),
    }
    ws(rng, out);
}

/// An object whose keys are mostly known field names (repeats included).
pub fn object(rng: &mut Rng, depth: usize, out: &mut String) {
    out.push('{');
    for i in 0..rng.below(6) {
        if i > 0 {
            out.push(',');
        }
        ws(rng, out);
        if rng.chance(90) {
            out.push('"');
            out.push_str(rng.pick(KEYS));
            out.push('"');
        } else {
            string(rng, out);
        }
        ws(rng, out);
        out.push(':');
        value(rng, depth, out);
    }
    if rng.chance(3) {
        out.push(',');
    }
    out.push('}');
}

/// `text` damaged at random: a byte cut, doubled, replaced, or the text cut short.
pub fn damage(rng: &mut Rng, text: &str) -> String {
    let mut bytes = text.as_bytes().to_vec();
    if bytes.is_empty() {
        return String::from("{");
    }
    let at = rng.below(bytes.len());
    match rng.below(5) {
        0 => {
            bytes.remove(at);
        }
        1 => bytes.insert(at, bytes[at]),
        2 => bytes[at] = rng.pick(b"{}[]\",:\\ 0-eE.nx\x01"),
        3 => bytes.truncate(at),
        _ => bytes.push(rng.pick(b"x ,]}")),
    }
    // Keep it text: a cut in the middle of a character drops the rest of it.
    match String::from_utf8(bytes) {
        Ok(text) => text,
        Err(e) => {
            let valid = e.utf8_error().valid_up_to();
            String::from_utf8_lossy(&e.into_bytes()[..valid]).into_owned()
        }
    }
}

/// A test text: an entry-like object, any value, or either damaged.
pub fn text(rng: &mut Rng) -> String {
    let mut out = String::new();
    if rng.chance(70) {
        object(rng, 3, &mut out);
    } else {
        value(rng, 3, &mut out);
    }
    if rng.chance(30) {
        out = damage(rng, &out);
    }
    out
}
