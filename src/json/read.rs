//! A validating JSON reader over bytes. It follows serde_json's grammar step
//! for step (the same checks in the same order, so the same error at the same
//! line and column), keeps numbers as text, skips values it is not asked for
//! without building them (at any depth), and builds values only to a depth of
//! [`MAX_DEPTH`](super::MAX_DEPTH).

use std::borrow::Cow;

use super::error::{Code, Error};
use super::value::{Object, Value};
use super::write::{cat, uint_text};

/// A string as read: its text, and whether it held a lone surrogate escape
/// (only reported when reading loosely; strict reading refuses one).
pub struct Str<'a> {
    pub text: Cow<'a, str>,
    pub lone: bool,
}

/// A number as read: its text and whether it is a whole number that fits 64 bits.
pub struct Number<'a> {
    pub text: &'a str,
    pub integer: bool,
}

/// What a struct reader needs to know of a struct: its fields and how it
/// treats unknown and missing ones (as `#[derive(Deserialize)]` would).
pub struct Shape {
    /// `struct Name`, as messages say it.
    pub expecting: &'static str,
    pub fields: &'static [&'static str],
    /// An unknown field is an error (`deny_unknown_fields`), not skipped.
    pub deny_unknown: bool,
    /// A repeated field takes its last value, as `JSON.parse` does (stored
    /// entries: a log read as objects and read as bytes must agree); else it
    /// is an error (the host's params).
    pub last_wins: bool,
    /// Bit `k`: field `k` may be missing from an object (an `Option`).
    pub optional: u32,
    /// Bit `k`: field `k` may be missing from an array (`#[serde(default)]`).
    pub defaulted: u32,
}

/// Reads field `k` of a struct (one function for every struct: no copies per caller).
pub type Field<'a, 'f> = &'f mut dyn FnMut(&mut Parser<'a>, usize) -> Result<(), Error>;

/// A reader positioned in its bytes.
pub struct Parser<'a> {
    bytes: &'a [u8],
    i: usize,
    remaining_depth: u8,
    frames: Frames,
    /// Loose strings refuse control characters too (see [`Parser::checked`]).
    checked: bool,
    /// `\n` and `\r` end the text instead of being whitespace (see [`Parser::one_line`]).
    line: bool,
}

const ONES: u64 = u64::MAX / 255;
const HIGHS: u64 = ONES << 7;

/// Byte-equal (short keys: a plain loop, no call).
#[inline(always)]
fn same(a: &[u8], b: &[u8]) -> bool {
    if a.len() != b.len() {
        return false;
    }
    let mut k = 0;
    while let (Some(x), Some(y)) = (a.get(k), b.get(k)) {
        if x != y {
            return false;
        }
        k += 1;
    }
    true
}

/// The position of the first `a` or `b` in `bytes`, sixteen bytes at a time.
pub fn find2(a: u8, b: u8, bytes: &[u8]) -> Option<usize> {
    let (wa, wb) = (ONES * u64::from(a), ONES * u64::from(b));
    let mut i = 0;
    while let Some(chunk) = bytes.get(i..i + 16) {
        let found = either(word(chunk, 0), wa, wb);
        if found != 0 {
            return Some(i + (found.trailing_zeros() / 8) as usize);
        }
        let found = either(word(chunk, 8), wa, wb);
        if found != 0 {
            return Some(i + 8 + (found.trailing_zeros() / 8) as usize);
        }
        i += 16;
    }
    bytes.iter().skip(i).position(|&c| c == a || c == b).map(|k| i + k)
}

/// The bytes of `w` equal to a byte of `wa` or of `wb`, as high bits (the lowest exact).
#[inline(always)]
fn either(w: u64, wa: u64, wb: u64) -> u64 {
    let (x, y) = (w ^ wa, w ^ wb);
    (x.wrapping_sub(ONES) & !x | y.wrapping_sub(ONES) & !y) & HIGHS
}

/// The eight bytes of `chunk` from `at`, little-endian (zeros past its end).
#[inline(always)]
fn word(chunk: &[u8], at: usize) -> u64 {
    match chunk.get(at..at + 8) {
        Some(&[a, b, c, d, e, f, g, h]) => u64::from_le_bytes([a, b, c, d, e, f, g, h]),
        _ => 0,
    }
}

/// The bytes of `w` a string scan stops at, as their high bits (the lowest
/// one is exact: a false mark can only sit above a true one): `"`, `\`,
/// non-ASCII, and with `control` the control characters. With `control`,
/// `"` and controls are found together: `b ^ 2 < 0x21` holds exactly for them.
#[inline(always)]
fn special(w: u64, control: bool) -> u64 {
    let backslash = w ^ (ONES * u64::from(b'\\'));
    let backslash = backslash.wrapping_sub(ONES) & !backslash;
    let quote = if control {
        let c = w ^ (ONES * 0x02);
        c.wrapping_sub(ONES * 0x21) & !c
    } else {
        let q = w ^ (ONES * u64::from(b'"'));
        q.wrapping_sub(ONES) & !q
    };
    (backslash | quote | w) & HIGHS
}

impl<'a> Parser<'a> {
    pub fn new(bytes: &'a [u8]) -> Parser<'a> {
        Parser {
            bytes,
            i: 0,
            remaining_depth: super::MAX_DEPTH as u8,
            frames: Frames::default(),
            checked: false,
            line: false,
        }
    }

    /// Reads one line of a JSONL text: `\n` and `\r` are not whitespace, so a
    /// value read ends before the line does (strings refuse them anyway).
    pub fn one_line(&mut self) {
        self.line = true;
    }

    /// After a value read with [`Parser::one_line`]: spaces and tabs, then
    /// the line end, whose position is returned; `None` if anything else follows.
    pub fn line_end(&mut self) -> Option<usize> {
        while let Some(b' ' | b'\t') = self.peek() {
            self.i += 1;
        }
        match self.peek()? {
            b'\n' | b'\r' => Some(self.i),
            _ => None,
        }
    }

    /// Reads a value with `read` as [`Parser::skip_value`] checks it, in one
    /// pass: strings read loosely still refuse control characters. When
    /// `read` fails, the value is skipped from its start instead, so what is
    /// refused, and the words, are exactly the skip's. The value's text and
    /// what `read` made of it (`None` when it failed) are returned.
    pub fn checked<T>(
        &mut self,
        read: impl FnOnce(&mut Parser<'a>) -> Result<T, Error>,
    ) -> Result<(&'a [u8], Option<T>), Error> {
        self.ws();
        let (start, depth) = (self.i, self.remaining_depth);
        self.checked = true;
        let read = read(self);
        self.checked = false;
        match read {
            Ok(value) => Ok((self.span(start), Some(value))),
            Err(_) => {
                (self.i, self.remaining_depth) = (start, depth);
                self.skip_value()?;
                Ok((self.span(start), None))
            }
        }
    }

    pub fn bytes(&self) -> &'a [u8] {
        self.bytes
    }

    pub fn position(&self) -> usize {
        self.i
    }

    /// The bytes from `from` to the current position.
    pub fn span(&self, from: usize) -> &'a [u8] {
        self.bytes.get(from..self.i).unwrap_or_default()
    }

    // ---- bytes -----------------------------------------------------------

    #[inline(always)]
    pub fn peek(&self) -> Option<u8> {
        self.bytes.get(self.i).copied()
    }

    #[inline(always)]
    fn peek_or_null(&self) -> u8 {
        self.peek().unwrap_or(0)
    }

    #[inline]
    pub fn eat(&mut self) {
        self.i += 1;
    }

    #[inline(always)]
    fn next(&mut self) -> Option<u8> {
        let b = self.peek()?;
        self.i += 1;
        Some(b)
    }

    #[inline(always)]
    fn next_or_null(&mut self) -> u8 {
        self.next().unwrap_or(0)
    }

    /// An error caused by the byte just read.
    #[cold]
    pub fn error(&self, code: Code) -> Error {
        Error::at(code, self.bytes, self.i)
    }

    /// An error caused by the byte peeked at.
    #[cold]
    pub fn peek_error(&self, code: Code) -> Error {
        Error::at(code, self.bytes, (self.i + 1).min(self.bytes.len()))
    }

    /// A data error placed where it surfaced.
    #[cold]
    pub fn place(&self, error: Error) -> Error {
        error.placed(self.bytes, self.i)
    }

    /// Skips JSON whitespace; the next byte, not consumed.
    #[inline(always)]
    pub fn ws(&mut self) -> Option<u8> {
        loop {
            match self.peek() {
                Some(b' ' | b'\t') => self.i += 1,
                Some(b'\n' | b'\r') if !self.line => self.i += 1,
                other => return other,
            }
        }
    }

    fn parse_ident(&mut self, ident: &[u8]) -> Result<(), Error> {
        for expected in ident {
            match self.next() {
                None => return Err(self.error(Code::EofWhileParsingValue)),
                Some(next) if next != *expected => return Err(self.error(Code::ExpectedSomeIdent)),
                Some(_) => {}
            }
        }
        Ok(())
    }

    /// Only whitespace may follow the value.
    pub fn end(&mut self) -> Result<(), Error> {
        match self.ws() {
            Some(_) => Err(self.peek_error(Code::TrailingCharacters)),
            None => Ok(()),
        }
    }

    /// One less level of nesting left; refused at the limit.
    pub fn enter(&mut self) -> Result<(), Error> {
        self.remaining_depth = self.remaining_depth.saturating_sub(1);
        if self.remaining_depth == 0 {
            return Err(self.peek_error(Code::RecursionLimitExceeded));
        }
        Ok(())
    }

    pub fn leave(&mut self) {
        self.remaining_depth = self.remaining_depth.saturating_add(1);
    }

    // ---- strings ---------------------------------------------------------

    /// Moves to the next `"`, `\` or (with `forbid_control`) control byte, or
    /// to the end, sixteen bytes at a time; each non-ASCII character on the
    /// way must be well-formed UTF-8.
    #[inline]
    fn skip_to_escape(&mut self, forbid_control: bool) -> Result<(), Error> {
        loop {
            let bytes = self.bytes;
            let mut i = self.i;
            while let Some(chunk) = bytes.get(i..i + 16) {
                let found = special(word(chunk, 0), forbid_control);
                if found != 0 {
                    i += (found.trailing_zeros() / 8) as usize;
                    break;
                }
                let found = special(word(chunk, 8), forbid_control);
                if found != 0 {
                    i += 8 + (found.trailing_zeros() / 8) as usize;
                    break;
                }
                i += 16;
            }
            self.i = i;
            match self.peek() {
                None | Some(b'"' | b'\\') => return Ok(()),
                Some(b) if b < 0x20 && forbid_control => return Ok(()),
                Some(b) if b >= 0x80 => match utf8_width(self.bytes.get(self.i..).unwrap_or_default()) {
                    Some(width) => self.i += width,
                    None => return Err(self.error(Code::NotUtf8)),
                },
                Some(_) => self.i += 1,
            }
        }
    }

    /// Skips a string whose opening quote was read, checking its escapes.
    pub fn skip_str(&mut self) -> Result<(), Error> {
        loop {
            self.skip_to_escape(true)?;
            match self.peek() {
                None => return Err(self.error(Code::EofWhileParsingString)),
                Some(b'"') => {
                    self.i += 1;
                    return Ok(());
                }
                Some(b'\\') => {
                    self.i += 1;
                    self.ignore_escape()?;
                }
                Some(_) => return Err(self.error(Code::ControlCharacterWhileParsingString)),
            }
        }
    }

    fn ignore_escape(&mut self) -> Result<(), Error> {
        let Some(ch) = self.next() else {
            return Err(self.error(Code::EofWhileParsingString));
        };
        match ch {
            b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't' => Ok(()),
            b'u' => self.decode_hex_escape().map(|_| ()),
            _ => Err(self.error(Code::InvalidEscape)),
        }
    }

    fn decode_hex_escape(&mut self) -> Result<u16, Error> {
        match self.bytes.get(self.i..self.i + 4) {
            Some(&[a, b, c, d]) => {
                self.i += 4;
                match (hex(a), hex(b), hex(c), hex(d)) {
                    (Some(a), Some(b), Some(c), Some(d)) => Ok(a << 12 | b << 8 | c << 4 | d),
                    _ => Err(self.error(Code::InvalidEscape)),
                }
            }
            _ => {
                self.i = self.bytes.len();
                Err(self.error(Code::EofWhileParsingString))
            }
        }
    }

    /// The text of `from..to`: string content [`Parser::skip_to_escape`] has
    /// just passed over, or a number's ASCII digits. Not checked a second time.
    #[allow(clippy::unnecessary_wraps)]
    fn text(&self, from: usize, to: usize) -> Result<&'a str, Error> {
        let bytes = self.bytes.get(from..to).unwrap_or_default();
        debug_assert!(std::str::from_utf8(bytes).is_ok(), "a span the scan checked");
        // SAFETY: every caller passes a span the scan has just read: ASCII
        // bytes (tested eight at a time) and whole characters `utf8_width`
        // checked one by one, from a string's start or the end of an escape
        // (ASCII) to a quote or a backslash (ASCII), so on character
        // boundaries; or a number, which is ASCII by its grammar.
        Ok(unsafe { std::str::from_utf8_unchecked(bytes) })
    }

    /// Reads a string whose opening quote was read. `strict` refuses control
    /// characters and lone surrogate escapes (as serde_json reads a `str`);
    /// loose reading accepts both and reports a lone surrogate in
    /// [`Str::lone`] (as serde_json reads bytes). With `mark`, strict reading
    /// puts `mark` where a lone surrogate escape stands instead of refusing it.
    pub fn parse_str(&mut self, strict: bool, mark: Option<char>) -> Result<Str<'a>, Error> {
        self.parse_str_with(strict, strict, mark)
    }

    /// [`Parser::parse_str`] with control characters refused or not on their own.
    fn parse_str_with(&mut self, control: bool, strict: bool, mark: Option<char>) -> Result<Str<'a>, Error> {
        let mut owned: Option<String> = None;
        let mut lone = false;
        let mut start = self.i;
        loop {
            self.skip_to_escape(control)?;
            match self.peek() {
                None => return Err(self.error(Code::EofWhileParsingString)),
                Some(b'"') => {
                    let tail = self.text(start, self.i)?;
                    self.i += 1;
                    let text = match owned {
                        None => Cow::Borrowed(tail),
                        Some(mut s) => {
                            s.push_str(tail);
                            Cow::Owned(s)
                        }
                    };
                    return Ok(Str { text, lone });
                }
                Some(b'\\') => {
                    let before = self.text(start, self.i)?;
                    let out = owned.get_or_insert_with(String::new);
                    out.push_str(before);
                    self.i += 1;
                    self.parse_escape(strict, mark, out, &mut lone)?;
                    start = self.i;
                }
                Some(_) => {
                    self.i += 1;
                    return Err(self.error(Code::ControlCharacterWhileParsingString));
                }
            }
        }
    }

    fn parse_escape(
        &mut self,
        strict: bool,
        mark: Option<char>,
        out: &mut String,
        lone: &mut bool,
    ) -> Result<(), Error> {
        let Some(ch) = self.next() else {
            return Err(self.error(Code::EofWhileParsingString));
        };
        let c = match ch {
            b'"' => '"',
            b'\\' => '\\',
            b'/' => '/',
            b'b' => '\x08',
            b'f' => '\x0c',
            b'n' => '\n',
            b'r' => '\r',
            b't' => '\t',
            b'u' => return self.parse_unicode_escape(strict, mark, out, lone),
            _ => return Err(self.error(Code::InvalidEscape)),
        };
        out.push(c);
        Ok(())
    }

    fn parse_unicode_escape(
        &mut self,
        strict: bool,
        mark: Option<char>,
        out: &mut String,
        lone: &mut bool,
    ) -> Result<(), Error> {
        let refuse = strict && mark.is_none();
        let lone_unit = |out: &mut String, lone: &mut bool| match mark {
            Some(m) => out.push(m),
            None => {
                out.push('\u{FFFD}');
                *lone = true;
            }
        };
        let mut n = self.decode_hex_escape()?;
        if strict && (0xDC00..=0xDFFF).contains(&n) {
            if refuse {
                return Err(self.error(Code::LoneLeadingSurrogateInHexEscape));
            }
            lone_unit(out, lone);
            return Ok(());
        }
        loop {
            if !(0xD800..=0xDBFF).contains(&n) {
                match char::from_u32(u32::from(n)) {
                    Some(c) => out.push(c),
                    None => lone_unit(out, lone), // a trailing surrogate, read loosely
                }
                return Ok(());
            }
            let n1 = n;
            if self.peek_or_eof()? == b'\\' {
                self.i += 1;
            } else {
                if refuse {
                    self.i += 1;
                    return Err(self.error(Code::UnexpectedEndOfHexEscape));
                }
                lone_unit(out, lone);
                return Ok(());
            }
            if self.peek_or_eof()? == b'u' {
                self.i += 1;
            } else {
                if refuse {
                    self.i += 1;
                    return Err(self.error(Code::UnexpectedEndOfHexEscape));
                }
                lone_unit(out, lone);
                // The `\` read started another escape (not `\u`, so this recursion is one level).
                return self.parse_escape(strict, mark, out, lone);
            }
            let n2 = self.decode_hex_escape()?;
            if !(0xDC00..=0xDFFF).contains(&n2) {
                if refuse {
                    return Err(self.error(Code::LoneLeadingSurrogateInHexEscape));
                }
                lone_unit(out, lone);
                n = n2;
                continue;
            }
            let c = ((u32::from(n1) - 0xD800) << 10 | (u32::from(n2) - 0xDC00)) + 0x1_0000;
            out.push(char::from_u32(c).unwrap_or('\u{FFFD}'));
            return Ok(());
        }
    }

    fn peek_or_eof(&self) -> Result<u8, Error> {
        self.peek().ok_or_else(|| self.error(Code::EofWhileParsingString))
    }

    // ---- numbers ---------------------------------------------------------

    /// Reads a number whose `-` (if any) was read; `start` is where it began.
    /// Checked as serde_json checks it: a float that overflows is refused.
    pub fn parse_number(&mut self, start: usize, positive: bool) -> Result<Number<'a>, Error> {
        let Some(next) = self.next() else {
            return Err(self.error(Code::EofWhileParsingValue));
        };
        let integer = match next {
            b'0' => match self.peek_or_null() {
                b'0'..=b'9' => return Err(self.peek_error(Code::InvalidNumber)),
                _ => self.number_tail(positive, 0)?,
            },
            b'1'..=b'9' => {
                let mut significand = u64::from(next - b'0');
                loop {
                    match self.peek_or_null() {
                        c @ b'0'..=b'9' => {
                            let digit = u64::from(c - b'0');
                            if overflows_u64(significand, digit) {
                                self.long_integer(significand)?;
                                break false;
                            }
                            self.i += 1;
                            significand = significand * 10 + digit;
                        }
                        _ => break self.number_tail(positive, significand)?,
                    }
                }
            }
            _ => return Err(self.error(Code::InvalidNumber)),
        };
        let text = self.text(start, self.i)?;
        Ok(Number { text, integer })
    }

    /// After the integer digits: a fraction, an exponent, or the end (then
    /// whether it is a whole number that fits).
    fn number_tail(&mut self, positive: bool, significand: u64) -> Result<bool, Error> {
        match self.peek_or_null() {
            b'.' => self.decimal(significand, 0).map(|_| false),
            b'e' | b'E' => self.exponent(significand, 0).map(|_| false),
            // `-0` and a negative beyond i64 are floats to serde_json.
            _ => Ok(positive || (significand as i64).wrapping_neg() < 0),
        }
    }

    fn decimal(&mut self, mut significand: u64, exponent_before: i32) -> Result<(), Error> {
        self.i += 1;
        let mut exponent_after: i32 = 0;
        while let c @ b'0'..=b'9' = self.peek_or_null() {
            let digit = u64::from(c - b'0');
            if overflows_u64(significand, digit) {
                return self.decimal_overflow(significand, exponent_before.saturating_add(exponent_after));
            }
            self.i += 1;
            significand = significand * 10 + digit;
            exponent_after = exponent_after.saturating_sub(1);
        }
        if exponent_after == 0 {
            return Err(match self.peek() {
                Some(_) => self.peek_error(Code::InvalidNumber),
                None => self.peek_error(Code::EofWhileParsingValue),
            });
        }
        let exponent = exponent_before.saturating_add(exponent_after);
        match self.peek_or_null() {
            b'e' | b'E' => self.exponent(significand, exponent),
            _ => self.check_range(significand, exponent),
        }
    }

    fn exponent(&mut self, significand: u64, starting: i32) -> Result<(), Error> {
        self.i += 1;
        let positive = match self.peek_or_null() {
            b'+' => {
                self.i += 1;
                true
            }
            b'-' => {
                self.i += 1;
                false
            }
            _ => true,
        };
        let Some(next) = self.next() else {
            return Err(self.error(Code::EofWhileParsingValue));
        };
        let mut exp: i32 = match next {
            c @ b'0'..=b'9' => i32::from(c - b'0'),
            _ => return Err(self.error(Code::InvalidNumber)),
        };
        while let c @ b'0'..=b'9' = self.peek_or_null() {
            self.i += 1;
            let digit = i32::from(c - b'0');
            if exp >= i32::MAX / 10 && (exp > i32::MAX / 10 || digit > i32::MAX % 10) {
                if significand != 0 && positive {
                    return Err(self.error(Code::NumberOutOfRange));
                }
                while let b'0'..=b'9' = self.peek_or_null() {
                    self.i += 1;
                }
                return Ok(());
            }
            exp = exp * 10 + digit;
        }
        let exponent = if positive {
            starting.saturating_add(exp)
        } else {
            starting.saturating_sub(exp)
        };
        self.check_range(significand, exponent)
    }

    fn long_integer(&mut self, significand: u64) -> Result<(), Error> {
        let mut exponent: i32 = 0;
        loop {
            match self.peek_or_null() {
                b'0'..=b'9' => {
                    self.i += 1;
                    exponent = exponent.saturating_add(1);
                }
                b'.' => return self.decimal(significand, exponent),
                b'e' | b'E' => return self.exponent(significand, exponent),
                _ => return self.check_range(significand, exponent),
            }
        }
    }

    fn decimal_overflow(&mut self, significand: u64, exponent: i32) -> Result<(), Error> {
        while let b'0'..=b'9' = self.peek_or_null() {
            self.i += 1;
        }
        match self.peek_or_null() {
            b'e' | b'E' => self.exponent(significand, exponent),
            _ => self.check_range(significand, exponent),
        }
    }

    /// serde_json's test of `significand × 10^exponent`: out of range when it
    /// is infinite as an f64 computed its way (one multiplication by 10^e).
    fn check_range(&self, significand: u64, exponent: i32) -> Result<(), Error> {
        let out_of_range = if significand == 0 || exponent < POW10_FROM {
            // below 2^64 × 10^288 < f64::MAX, or a division: never infinite
            false
        } else {
            match usize::try_from(exponent - POW10_FROM)
                .ok()
                .and_then(|k| POW10_TOP.get(k))
            {
                Some(pow) => (significand as f64 * pow).is_infinite(),
                None => true, // beyond 10^308
            }
        };
        if out_of_range {
            Err(self.error(Code::NumberOutOfRange))
        } else {
            Ok(())
        }
    }

    fn ignore_integer(&mut self) -> Result<(), Error> {
        match self.next_or_null() {
            b'0' => {
                if let b'0'..=b'9' = self.peek_or_null() {
                    return Err(self.peek_error(Code::InvalidNumber));
                }
            }
            b'1'..=b'9' => {
                while let b'0'..=b'9' = self.peek_or_null() {
                    self.i += 1;
                }
            }
            _ => return Err(self.error(Code::InvalidNumber)),
        }
        match self.peek_or_null() {
            b'.' => self.ignore_decimal(),
            b'e' | b'E' => self.ignore_exponent(),
            _ => Ok(()),
        }
    }

    fn ignore_decimal(&mut self) -> Result<(), Error> {
        self.i += 1;
        let mut digits = false;
        while let b'0'..=b'9' = self.peek_or_null() {
            self.i += 1;
            digits = true;
        }
        if !digits {
            return Err(self.peek_error(Code::InvalidNumber));
        }
        match self.peek_or_null() {
            b'e' | b'E' => self.ignore_exponent(),
            _ => Ok(()),
        }
    }

    fn ignore_exponent(&mut self) -> Result<(), Error> {
        self.i += 1;
        if let b'+' | b'-' = self.peek_or_null() {
            self.i += 1;
        }
        match self.next_or_null() {
            b'0'..=b'9' => {}
            _ => return Err(self.error(Code::InvalidNumber)),
        }
        while let b'0'..=b'9' = self.peek_or_null() {
            self.i += 1;
        }
        Ok(())
    }

    // ---- skipping --------------------------------------------------------

    /// Checks and skips one value of any depth without building it (no
    /// recursion: an app's entry nested 10,000 deep is read like a flat one).
    pub fn skip_value(&mut self) -> Result<(), Error> {
        self.frames.clear();
        let mut enclosing: Option<u8> = None;
        loop {
            let Some(peek) = self.ws() else {
                return Err(self.peek_error(Code::EofWhileParsingValue));
            };
            let opened = match peek {
                b'"' => {
                    self.i += 1;
                    self.skip_str()?;
                    None
                }
                b'n' => {
                    self.i += 1;
                    self.parse_ident(b"ull")?;
                    None
                }
                b't' => {
                    self.i += 1;
                    self.parse_ident(b"rue")?;
                    None
                }
                b'f' => {
                    self.i += 1;
                    self.parse_ident(b"alse")?;
                    None
                }
                b'-' => {
                    self.i += 1;
                    self.ignore_integer()?;
                    None
                }
                b'0'..=b'9' => {
                    self.ignore_integer()?;
                    None
                }
                b'[' | b'{' => {
                    if let Some(outer) = enclosing.take() {
                        self.frames.push(outer);
                    }
                    self.i += 1;
                    Some(peek)
                }
                _ => return Err(self.peek_error(Code::ExpectedSomeValue)),
            };
            let (mut accept_comma, mut frame) = match opened {
                Some(frame) => (false, frame),
                None => match enclosing.take().or_else(|| self.frames.pop()) {
                    Some(frame) => (true, frame),
                    None => return Ok(()),
                },
            };
            loop {
                match self.ws() {
                    Some(b',') if accept_comma => {
                        self.i += 1;
                        break;
                    }
                    Some(b']') if frame == b'[' => {}
                    Some(b'}') if frame == b'{' => {}
                    Some(_) => {
                        if accept_comma {
                            return Err(self.peek_error(if frame == b'[' {
                                Code::ExpectedListCommaOrEnd
                            } else {
                                Code::ExpectedObjectCommaOrEnd
                            }));
                        }
                        break;
                    }
                    None => {
                        return Err(self.peek_error(if frame == b'[' {
                            Code::EofWhileParsingList
                        } else {
                            Code::EofWhileParsingObject
                        }))
                    }
                }
                self.i += 1;
                frame = match self.frames.pop() {
                    Some(frame) => frame,
                    None => return Ok(()),
                };
                accept_comma = true;
            }
            if frame == b'{' {
                match self.ws() {
                    Some(b'"') => self.i += 1,
                    Some(_) => return Err(self.peek_error(Code::KeyMustBeAString)),
                    None => return Err(self.peek_error(Code::EofWhileParsingObject)),
                }
                self.skip_str()?;
                match self.ws() {
                    Some(b':') => self.i += 1,
                    Some(_) => return Err(self.peek_error(Code::ExpectedColon)),
                    None => return Err(self.peek_error(Code::EofWhileParsingObject)),
                }
            }
            enclosing = Some(frame);
        }
    }

    /// A fast path for an object written as `open` "x" `middle` "y" `}` with
    /// nothing else (no whitespace, no escapes: how the core writes a todo
    /// item): the two strings, or `None` with nothing consumed, and the
    /// caller reads the value the general way. It accepts only what that
    /// way reads to the same two strings.
    pub fn plain_pair(&mut self, open: &[u8], middle: &[u8]) -> Option<(&'a str, &'a str)> {
        let start = self.i;
        let pair = self.try_plain_pair(open, middle);
        if pair.is_none() {
            self.i = start;
        }
        pair
    }

    fn try_plain_pair(&mut self, open: &[u8], middle: &[u8]) -> Option<(&'a str, &'a str)> {
        self.expect(open)?; // ok: the parser's own expect, an Option
        let first = self.plain_str()?;
        self.expect(middle)?; // ok: an Option, as above
        let second = self.plain_str()?;
        self.expect(b"}")?; // ok: an Option, as above
        Some((first, second))
    }

    fn expect(&mut self, bytes: &[u8]) -> Option<()> {
        if !same(self.bytes.get(self.i..self.i + bytes.len())?, bytes) {
            return None;
        }
        self.i += bytes.len();
        Some(())
    }

    /// The rest of a string with no escape and no control character, up to its closing quote.
    fn plain_str(&mut self) -> Option<&'a str> {
        let start = self.i;
        self.skip_to_escape(true).ok()?;
        if self.peek() != Some(b'"') {
            return None;
        }
        let text = self.text(start, self.i).ok()?;
        self.i += 1;
        Some(text)
    }

    /// Skips one value and returns its text (from its first byte).
    pub fn raw_value(&mut self) -> Result<&'a [u8], Error> {
        self.ws();
        let start = self.i;
        self.skip_value()?;
        Ok(self.span(start))
    }

    // ---- building --------------------------------------------------------

    /// Reads one value, building it (depth-limited). With `mark`, a lone
    /// surrogate escape reads as `mark` instead of failing.
    pub fn parse_value(&mut self, mark: Option<char>) -> Result<Value<'a>, Error> {
        let Some(peek) = self.ws() else {
            return Err(self.peek_error(Code::EofWhileParsingValue));
        };
        match peek {
            b'n' => {
                self.i += 1;
                self.parse_ident(b"ull")?;
                Ok(Value::Null)
            }
            b't' => {
                self.i += 1;
                self.parse_ident(b"rue")?;
                Ok(Value::Bool(true))
            }
            b'f' => {
                self.i += 1;
                self.parse_ident(b"alse")?;
                Ok(Value::Bool(false))
            }
            b'-' | b'0'..=b'9' => {
                let start = self.i;
                if peek == b'-' {
                    self.i += 1;
                }
                let n = self.parse_number(start, peek != b'-')?;
                Ok(Value::Number(Cow::Borrowed(n.text)))
            }
            b'"' => {
                self.i += 1;
                Ok(Value::String(self.parse_str(true, mark)?.text))
            }
            b'[' => {
                self.enter()?;
                self.i += 1;
                let items = self.items(mark);
                self.leave();
                let end = self.end_seq();
                Ok(Value::Array(both(items, end)?))
            }
            b'{' => {
                self.enter()?;
                self.i += 1;
                let members = self.members(mark);
                self.leave();
                let end = self.end_map();
                Ok(Value::Object(Object(both(members, end)?)))
            }
            _ => Err(self.peek_error(Code::ExpectedSomeValue)),
        }
    }

    fn items(&mut self, mark: Option<char>) -> Result<Vec<Value<'a>>, Error> {
        let mut items = Vec::new();
        let mut first = true;
        while self.has_next_element(&mut first)? {
            items.push(self.parse_value(mark)?);
        }
        Ok(items)
    }

    #[allow(clippy::type_complexity)]
    fn members(&mut self, mark: Option<char>) -> Result<Vec<(Cow<'a, str>, Value<'a>)>, Error> {
        let mut members = Vec::new();
        let mut first = true;
        while self.has_next_key(&mut first)? {
            self.i += 1;
            let key = self.parse_str(true, mark)?.text;
            self.parse_object_colon()?;
            members.push((key, self.parse_value(mark)?));
        }
        Ok(members)
    }

    // ---- containers --------------------------------------------------------

    /// Between array elements: whether another follows (`first` tracks the comma).
    pub fn has_next_element(&mut self, first: &mut bool) -> Result<bool, Error> {
        let Some(peek) = self.ws() else {
            return Err(self.peek_error(Code::EofWhileParsingList));
        };
        if peek == b']' {
            Ok(false)
        } else if *first {
            *first = false;
            Ok(true)
        } else if peek == b',' {
            self.i += 1;
            match self.ws() {
                Some(b']') => Err(self.peek_error(Code::TrailingComma)),
                Some(_) => Ok(true),
                None => Err(self.peek_error(Code::EofWhileParsingValue)),
            }
        } else {
            Err(self.peek_error(Code::ExpectedListCommaOrEnd))
        }
    }

    /// Between object members: whether another key follows (at its quote).
    pub fn has_next_key(&mut self, first: &mut bool) -> Result<bool, Error> {
        let Some(peek) = self.ws() else {
            return Err(self.peek_error(Code::EofWhileParsingObject));
        };
        if peek == b'}' {
            Ok(false)
        } else if *first {
            *first = false;
            if peek == b'"' {
                Ok(true)
            } else {
                Err(self.peek_error(Code::KeyMustBeAString))
            }
        } else if peek == b',' {
            self.i += 1;
            match self.ws() {
                Some(b'"') => Ok(true),
                Some(b'}') => Err(self.peek_error(Code::TrailingComma)),
                Some(_) => Err(self.peek_error(Code::KeyMustBeAString)),
                None => Err(self.peek_error(Code::EofWhileParsingValue)),
            }
        } else {
            Err(self.peek_error(Code::ExpectedObjectCommaOrEnd))
        }
    }

    pub fn parse_object_colon(&mut self) -> Result<(), Error> {
        match self.ws() {
            Some(b':') => {
                self.i += 1;
                Ok(())
            }
            Some(_) => Err(self.peek_error(Code::ExpectedColon)),
            None => Err(self.peek_error(Code::EofWhileParsingObject)),
        }
    }

    pub fn end_seq(&mut self) -> Result<(), Error> {
        match self.ws() {
            Some(b']') => {
                self.i += 1;
                Ok(())
            }
            Some(b',') => {
                self.i += 1;
                match self.ws() {
                    Some(b']') => Err(self.peek_error(Code::TrailingComma)),
                    _ => Err(self.peek_error(Code::TrailingCharacters)),
                }
            }
            Some(_) => Err(self.peek_error(Code::TrailingCharacters)),
            None => Err(self.peek_error(Code::EofWhileParsingList)),
        }
    }

    pub fn end_map(&mut self) -> Result<(), Error> {
        match self.ws() {
            Some(b'}') => {
                self.i += 1;
                Ok(())
            }
            Some(b',') => Err(self.peek_error(Code::TrailingComma)),
            Some(_) => Err(self.peek_error(Code::TrailingCharacters)),
            None => Err(self.peek_error(Code::EofWhileParsingObject)),
        }
    }

    // ---- typed reading (as serde's derive reads) -----------------------------

    /// `null` (consumed) or not (nothing consumed): an `Option`'s test.
    pub fn null(&mut self) -> Result<bool, Error> {
        if self.ws() == Some(b'n') {
            self.i += 1;
            self.parse_ident(b"ull")?;
            return Ok(true);
        }
        Ok(false)
    }

    /// A struct from an object (fields by name) or an array (by position);
    /// `field(parser, k)` reads field `k`'s value.
    pub fn read_struct(&mut self, shape: &Shape, field: Field<'a, '_>) -> Result<(), Error> {
        let Some(peek) = self.ws() else {
            return Err(self.peek_error(Code::EofWhileParsingValue));
        };
        let read = match peek {
            b'[' => {
                self.enter()?;
                self.i += 1;
                let read = self.struct_items(shape, field);
                self.leave();
                let end = self.end_seq();
                both(read, end)
            }
            b'{' => {
                self.enter()?;
                self.i += 1;
                let read = self.struct_members(shape, field);
                self.leave();
                let end = self.end_map();
                both(read, end)
            }
            _ => Err(self.invalid_type(shape.expecting)),
        };
        read.map_err(|e| self.place(e))
    }

    fn struct_members(&mut self, shape: &Shape, field: Field<'a, '_>) -> Result<(), Error> {
        let mut seen: u32 = 0;
        let mut first = true;
        while self.has_next_key(&mut first)? {
            self.i += 1;
            let key = self.key()?;
            match shape.fields.iter().position(|name| same(name.as_bytes(), &key)) {
                Some(k) => {
                    if seen & (1 << k) != 0 && !shape.last_wins {
                        return Err(Error::custom(cat(&["duplicate field `", name_of(shape, k), "`"])));
                    }
                    seen |= 1 << k;
                    self.parse_object_colon()?;
                    field(self, k)?;
                }
                None if shape.deny_unknown => {
                    return Err(unknown(
                        "field",
                        std::str::from_utf8(&key).unwrap_or_default(),
                        shape.fields,
                    ))
                }
                None => {
                    self.parse_object_colon()?;
                    self.skip_value()?;
                }
            }
        }
        for k in 0..shape.fields.len() {
            if seen & (1 << k) == 0 && shape.optional & (1 << k) == 0 {
                return Err(Error::custom(cat(&["missing field `", name_of(shape, k), "`"])));
            }
        }
        Ok(())
    }

    /// A key whose opening quote was read, as bytes: a plain ASCII key is
    /// taken as it is, anything else is read as a strict string.
    fn key(&mut self) -> Result<Cow<'a, [u8]>, Error> {
        let start = self.i;
        let rest = self.bytes.get(start..).unwrap_or_default();
        let plain = rest
            .iter()
            .position(|&b| b == b'"' || b == b'\\' || !(0x20..0x80).contains(&b));
        if let Some(len) = plain {
            if rest.get(len) == Some(&b'"') {
                self.i += len + 1;
                return Ok(Cow::Borrowed(rest.get(..len).unwrap_or_default()));
            }
        }
        Ok(match self.parse_str(true, None)?.text {
            Cow::Borrowed(text) => Cow::Borrowed(text.as_bytes()),
            Cow::Owned(text) => Cow::Owned(text.into_bytes()),
        })
    }

    fn struct_items(&mut self, shape: &Shape, field: Field<'a, '_>) -> Result<(), Error> {
        let mut first = true;
        for k in 0..shape.fields.len() {
            if self.has_next_element(&mut first)? {
                field(self, k)?;
            } else if shape.defaulted & (1 << k) == 0 {
                let n = shape.fields.len();
                let elements = if n == 1 {
                    String::from("1 element")
                } else {
                    cat(&[&uint_text(n as u64), " elements"])
                };
                return Err(Error::custom(cat(&[
                    "invalid length ",
                    &uint_text(k as u64),
                    ", expected ",
                    shape.expecting,
                    " with ",
                    &elements,
                ])));
            }
        }
        Ok(())
    }

    /// A string read as bytes are (serde_json's `deserialize_bytes`): an
    /// array is the wrong type, a lone surrogate is `lone_error`.
    pub fn loose_text(&mut self, expecting: &str, lone_error: &str) -> Result<Cow<'a, str>, Error> {
        let read = match self.ws() {
            None => return Err(self.peek_error(Code::EofWhileParsingValue)),
            Some(b'"') => {
                self.i += 1;
                let s = self.parse_str_with(self.checked, false, None)?;
                if s.lone {
                    Err(Error::custom(lone_error))
                } else {
                    Ok(s.text)
                }
            }
            Some(b'[') => {
                self.enter()?;
                self.i += 1;
                self.leave();
                let _ = self.end_seq();
                Err(Error::custom(cat(&["invalid type: sequence, expected ", expecting])))
            }
            Some(_) => Err(self.invalid_type(expecting)),
        };
        read.map_err(|e| self.place(e))
    }

    /// A string read as `str` is (control characters and lone surrogates refused).
    pub fn strict_text(&mut self, expecting: &str) -> Result<Cow<'a, str>, Error> {
        let read = match self.ws() {
            None => return Err(self.peek_error(Code::EofWhileParsingValue)),
            Some(b'"') => {
                self.i += 1;
                Ok(self.parse_str(true, None)?.text)
            }
            Some(_) => Err(self.invalid_type(expecting)),
        };
        read.map_err(|e| self.place(e))
    }

    pub fn boolean(&mut self) -> Result<bool, Error> {
        let read = match self.ws() {
            None => return Err(self.peek_error(Code::EofWhileParsingValue)),
            Some(b't') => {
                self.i += 1;
                self.parse_ident(b"rue").map(|_| true)
            }
            Some(b'f') => {
                self.i += 1;
                self.parse_ident(b"alse").map(|_| false)
            }
            Some(_) => Err(self.invalid_type("a boolean")),
        };
        read.map_err(|e| self.place(e))
    }

    /// An array, each element read by `item`.
    pub fn read_seq(&mut self, item: &mut dyn FnMut(&mut Parser<'a>) -> Result<(), Error>) -> Result<(), Error> {
        let read = match self.ws() {
            None => return Err(self.peek_error(Code::EofWhileParsingValue)),
            Some(b'[') => {
                self.enter()?;
                self.i += 1;
                let mut first = true;
                let mut read = Ok(());
                loop {
                    match self.has_next_element(&mut first) {
                        Ok(true) => {}
                        Ok(false) => break,
                        Err(e) => {
                            read = Err(e);
                            break;
                        }
                    }
                    if let Err(e) = item(self) {
                        read = Err(e);
                        break;
                    }
                }
                self.leave();
                let end = self.end_seq();
                both(read, end)
            }
            Some(_) => Err(self.invalid_type("a sequence")),
        };
        read.map_err(|e| self.place(e))
    }

    /// A unit-variant enum: a string naming the variant, or `{"variant": null}`.
    pub fn read_variant(&mut self, variants: &'static [&'static str]) -> Result<usize, Error> {
        match self.ws() {
            Some(b'{') => {
                self.enter()?;
                self.i += 1;
                let read = self.object_variant(variants);
                self.leave();
                let k = read?;
                match self.ws() {
                    Some(b'}') => {
                        self.i += 1;
                        Ok(k)
                    }
                    Some(_) => Err(self.error(Code::ExpectedSomeValue)),
                    None => Err(self.error(Code::EofWhileParsingObject)),
                }
            }
            Some(b'"') => {
                self.i += 1;
                let name = self.parse_str(true, None)?.text;
                match variants.iter().position(|v| *v == name) {
                    Some(k) => Ok(k),
                    None => Err(self.place(unknown("variant", &name, variants))),
                }
            }
            Some(_) => Err(self.peek_error(Code::ExpectedSomeValue)),
            None => Err(self.peek_error(Code::EofWhileParsingValue)),
        }
    }

    fn object_variant(&mut self, variants: &'static [&'static str]) -> Result<usize, Error> {
        match self.ws() {
            Some(b'"') => {}
            Some(b'}') => return Err(self.peek_error(Code::ExpectedSomeValue)),
            Some(_) => return Err(self.peek_error(Code::KeyMustBeAString)),
            None => return Err(self.peek_error(Code::EofWhileParsingObject)),
        }
        self.i += 1;
        let name = self.parse_str(true, None)?.text;
        let Some(k) = variants.iter().position(|v| *v == name) else {
            return Err(self.place(unknown("variant", &name, variants)));
        };
        self.parse_object_colon()?;
        let unit = match self.ws() {
            None => return Err(self.peek_error(Code::EofWhileParsingValue)),
            Some(b'n') => {
                self.i += 1;
                self.parse_ident(b"ull")
            }
            Some(_) => Err(self.invalid_type("unit")),
        };
        unit.map_err(|e| self.place(e))?;
        Ok(k)
    }

    /// The value here is not of the `expecting` type: serde's message naming
    /// what it is (reading it to say so, which may itself fail).
    #[cold]
    pub fn invalid_type(&mut self, expecting: &str) -> Error {
        let unexpected = match self.peek_or_null() {
            b'n' => {
                self.i += 1;
                if let Err(e) = self.parse_ident(b"ull") {
                    return e;
                }
                String::from("null")
            }
            b't' => {
                self.i += 1;
                if let Err(e) = self.parse_ident(b"rue") {
                    return e;
                }
                String::from("boolean `true`")
            }
            b'f' => {
                self.i += 1;
                if let Err(e) = self.parse_ident(b"alse") {
                    return e;
                }
                String::from("boolean `false`")
            }
            b @ (b'-' | b'0'..=b'9') => {
                let start = self.i;
                if b == b'-' {
                    self.i += 1;
                }
                match self.parse_number(start, b != b'-') {
                    Ok(n) if n.integer => cat(&["integer `", n.text, "`"]),
                    Ok(n) => cat(&["floating point `", n.text, "`"]),
                    Err(e) => return e,
                }
            }
            b'"' => {
                self.i += 1;
                match self.parse_str(true, None) {
                    Ok(s) => cat(&["string ", &debug_quoted(&s.text)]),
                    Err(e) => return e,
                }
            }
            b'[' => String::from("sequence"),
            b'{' => String::from("map"),
            _ => return self.peek_error(Code::ExpectedSomeValue),
        };
        self.place(Error::custom(cat(&[
            "invalid type: ",
            &unexpected,
            ", expected ",
            expecting,
        ])))
    }
}

/// The first error of a container's contents, else of its end.
fn both<T>(read: Result<T, Error>, end: Result<(), Error>) -> Result<T, Error> {
    match (read, end) {
        (Ok(v), Ok(())) => Ok(v),
        (Err(e), _) | (_, Err(e)) => Err(e),
    }
}

fn name_of(shape: &Shape, k: usize) -> &'static str {
    shape.fields.get(k).copied().unwrap_or_default()
}

/// serde's "unknown field `x`, expected one of `a`, `b`" (or variant).
fn unknown(what: &str, name: &str, expected: &[&str]) -> Error {
    let tail = match expected {
        [] => return Error::custom(cat(&["unknown ", what, " `", name, "`, there are no ", what, "s"])),
        [one] => cat(&["`", one, "`"]),
        [a, b] => cat(&["`", a, "` or `", b, "`"]),
        many => {
            let mut tail = String::from("one of ");
            for (i, n) in many.iter().enumerate() {
                if i > 0 {
                    tail.push_str(", ");
                }
                tail.push('`');
                tail.push_str(n);
                tail.push('`');
            }
            tail
        }
    };
    Error::custom(cat(&["unknown ", what, " `", name, "`, expected ", &tail]))
}

/// A string quoted as Rust's `Debug` quotes it, for ASCII controls and quotes
/// (other characters are kept as they are).
fn debug_quoted(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 2);
    out.push('"');
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\0' => out.push_str("\\0"),
            c if (c as u32) < 0x20 || c == '\x7f' => {
                out.push_str("\\u{");
                out.push_str(&super::write::hex_text(c as u32));
                out.push('}');
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

fn overflows_u64(significand: u64, digit: u64) -> bool {
    significand >= u64::MAX / 10 && (significand > u64::MAX / 10 || digit > u64::MAX % 10)
}

fn hex(b: u8) -> Option<u16> {
    match b {
        b'0'..=b'9' => Some(u16::from(b - b'0')),
        b'a'..=b'f' => Some(u16::from(b - b'a' + 10)),
        b'A'..=b'F' => Some(u16::from(b - b'A' + 10)),
        _ => None,
    }
}

/// The length of the well-formed UTF-8 character at the start of `bytes`
/// (whose first byte is not ASCII), or `None`.
fn utf8_width(bytes: &[u8]) -> Option<usize> {
    let cont = |k: usize| bytes.get(k).is_some_and(|b| (0x80..=0xBF).contains(b));
    let second = |lo: u8, hi: u8| bytes.get(1).is_some_and(|b| (lo..=hi).contains(b));
    match bytes.first()? {
        0xC2..=0xDF if cont(1) => Some(2),
        0xE0 if second(0xA0, 0xBF) && cont(2) => Some(3),
        0xE1..=0xEC | 0xEE..=0xEF if cont(1) && cont(2) => Some(3),
        0xED if second(0x80, 0x9F) && cont(2) => Some(3),
        0xF0 if second(0x90, 0xBF) && cont(2) && cont(3) => Some(4),
        0xF1..=0xF3 if cont(1) && cont(2) && cont(3) => Some(4),
        0xF4 if second(0x80, 0x8F) && cont(2) && cont(3) => Some(4),
        _ => None,
    }
}

/// The first power of ten in [`POW10_TOP`]: `u64::MAX × 10^288` is finite.
const POW10_FROM: i32 = 289;

/// serde_json's powers of ten from 10^289 to 10^308 (the only ones whose
/// product with a 64-bit significand can overflow).
static POW10_TOP: [f64; 20] = [
    1e289, 1e290, 1e291, 1e292, 1e293, 1e294, 1e295, 1e296, 1e297, 1e298, 1e299, 1e300, 1e301, 1e302, 1e303, 1e304,
    1e305, 1e306, 1e307, 1e308,
];

/// The open containers of a skipped value, one bit each (`[` or `{`); the
/// first 64 need no allocation.
#[derive(Default)]
struct Frames {
    bits: u64,
    len: usize,
    deeper: Vec<u8>,
}

impl Frames {
    fn clear(&mut self) {
        self.len = 0;
        self.deeper.clear();
    }

    fn push(&mut self, frame: u8) {
        if self.len < 64 {
            let bit = 1u64 << self.len;
            if frame == b'{' {
                self.bits |= bit;
            } else {
                self.bits &= !bit;
            }
        } else {
            self.deeper.push(frame);
        }
        self.len += 1;
    }

    fn pop(&mut self) -> Option<u8> {
        self.len = self.len.checked_sub(1)?;
        if self.len >= 64 {
            return self.deeper.pop();
        }
        Some(if self.bits >> self.len & 1 == 1 { b'{' } else { b'[' })
    }
}
