//! Why JSON text could not be read, worded and positioned as serde_json words
//! them (the words reach people: a skipped entry's reason, a refused input).

use std::fmt;

/// What went wrong. `Custom` is a data error (a value of the wrong shape);
/// the others are syntax errors at a position.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Code {
    EofWhileParsingList,
    EofWhileParsingObject,
    EofWhileParsingString,
    EofWhileParsingValue,
    ExpectedColon,
    ExpectedListCommaOrEnd,
    ExpectedObjectCommaOrEnd,
    ExpectedSomeIdent,
    ExpectedSomeValue,
    InvalidEscape,
    InvalidNumber,
    NumberOutOfRange,
    ControlCharacterWhileParsingString,
    KeyMustBeAString,
    LoneLeadingSurrogateInHexEscape,
    TrailingComma,
    TrailingCharacters,
    UnexpectedEndOfHexEscape,
    RecursionLimitExceeded,
    /// Bytes that are not UTF-8 inside a string (only when reading bytes).
    NotUtf8,
    Custom(String),
}

impl Code {
    fn text(&self) -> &str {
        match self {
            Code::EofWhileParsingList => "EOF while parsing a list",
            Code::EofWhileParsingObject => "EOF while parsing an object",
            Code::EofWhileParsingString => "EOF while parsing a string",
            Code::EofWhileParsingValue => "EOF while parsing a value",
            Code::ExpectedColon => "expected `:`",
            Code::ExpectedListCommaOrEnd => "expected `,` or `]`",
            Code::ExpectedObjectCommaOrEnd => "expected `,` or `}`",
            Code::ExpectedSomeIdent => "expected ident",
            Code::ExpectedSomeValue => "expected value",
            Code::InvalidEscape => "invalid escape",
            Code::InvalidNumber => "invalid number",
            Code::NumberOutOfRange => "number out of range",
            Code::ControlCharacterWhileParsingString => {
                "control character (\\u0000-\\u001F) found while parsing a string"
            }
            Code::KeyMustBeAString => "key must be a string",
            Code::LoneLeadingSurrogateInHexEscape => "lone leading surrogate in hex escape",
            Code::TrailingComma => "trailing comma",
            Code::TrailingCharacters => "trailing characters",
            Code::UnexpectedEndOfHexEscape => "unexpected end of hex escape",
            Code::RecursionLimitExceeded => "recursion limit exceeded",
            Code::NotUtf8 => "invalid unicode code point",
            Code::Custom(text) => text,
        }
    }
}

/// An error and where it happened (line 0: not placed yet, see [`Error::placed`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Error {
    pub code: Code,
    line: usize,
    column: usize,
}

impl Error {
    /// A data error, placed later where it surfaces (serde's `fix_position`).
    pub fn custom(text: impl Into<String>) -> Error {
        Error {
            code: Code::Custom(text.into()),
            line: 0,
            column: 0,
        }
    }

    /// An error at byte `at` of `bytes`: line and column as serde_json counts them.
    pub fn at(code: Code, bytes: &[u8], at: usize) -> Error {
        let before = bytes.get(..at).unwrap_or(bytes);
        let start_of_line = before.iter().rposition(|&b| b == b'\n').map_or(0, |p| p + 1);
        let line = 1 + before.iter().take(start_of_line).filter(|&&b| b == b'\n').count();
        Error {
            code,
            line,
            column: at - start_of_line.min(at),
        }
    }

    /// This error, placed at byte `at` unless it already has a place.
    pub fn placed(self, bytes: &[u8], at: usize) -> Error {
        if self.line == 0 {
            Error::at(self.code, bytes, at)
        } else {
            self
        }
    }

    /// What went wrong, without where.
    pub fn message(&self) -> &str {
        self.code.text()
    }

    /// A data error (the text was JSON, but not of the wanted shape).
    pub fn is_data(&self) -> bool {
        matches!(self.code, Code::Custom(_))
    }
}

impl Error {
    /// The message and, once placed, where: `... at line 1 column 5`.
    pub fn text(&self) -> String {
        use crate::json::write::{cat, uint_text};
        if self.line == 0 {
            return self.code.text().to_string();
        }
        cat(&[
            self.code.text(),
            " at line ",
            &uint_text(self.line as u64),
            " column ",
            &uint_text(self.column as u64),
        ])
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str(&self.text())
    }
}
