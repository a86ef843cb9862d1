//! Unit tests of the reader and writer: RFC 8259's edge cases and the core's
//! own rules (the differential tests against serde_json are in `oracle`).

use std::borrow::Cow;

use super::*;

fn ok(text: &str) -> Value<'_> {
    parse(text, None).unwrap_or_else(|e| panic!("{text:?}: {e}"))
}

fn err(text: &str) -> String {
    parse(text, None).map(|v| format!("{v:?}")).expect_err(text).to_string()
}

fn skips(text: &str) -> Result<(), String> {
    validate(text.as_bytes()).map_err(|e| e.to_string())
}

#[test]
fn quote_cuts_long_text_by_characters() {
    assert_eq!(quote("abc"), "abc");
    let long = "é".repeat(MAX_QUOTE + 5);
    let cut = quote(&long);
    assert_eq!(cut.chars().count(), MAX_QUOTE + 1);
    assert!(cut.ends_with('…'));
    assert_eq!(quote(&"x".repeat(MAX_QUOTE)).len(), MAX_QUOTE);
}

#[test]
fn numbers_keep_their_text_and_follow_the_grammar() {
    for n in [
        "0",
        "-0",
        "1",
        "-12",
        "1.5",
        "1.50",
        "-1.25e3",
        "1E+2",
        "1e-2",
        "0.1",
        "18446744073709551616",
        "1e308",
    ] {
        assert_eq!(ok(n), Value::Number(Cow::Borrowed(n)), "{n}");
    }
    // No leading zeros, no bare dot or exponent, no plus sign, no hex, no infinity.
    assert_eq!(err("01"), "invalid number at line 1 column 2");
    assert_eq!(err("1."), "EOF while parsing a value at line 1 column 2");
    assert_eq!(err("1.x"), "invalid number at line 1 column 3");
    assert_eq!(err(".5"), "expected value at line 1 column 1");
    assert_eq!(err("1e"), "EOF while parsing a value at line 1 column 2");
    assert_eq!(err("1e+"), "EOF while parsing a value at line 1 column 3");
    assert_eq!(err("+1"), "expected value at line 1 column 1");
    assert_eq!(err("-"), "EOF while parsing a value at line 1 column 1");
    assert_eq!(err("0x10"), "trailing characters at line 1 column 2");
    assert_eq!(err("Infinity"), "expected value at line 1 column 1");
    assert_eq!(err("NaN"), "expected value at line 1 column 1");
    // A float that is infinite as an f64 is out of range (a built value only).
    assert_eq!(err("1e309"), "number out of range at line 1 column 5");
    assert_eq!(err("[-1e400]"), "number out of range at line 1 column 7");
    assert!(parse("1e-400", None).is_ok() && parse("0e999", None).is_ok());
    assert_eq!(skips("1e400"), Ok(()));
}

#[test]
fn strings_escape_as_rfc_8259_says() {
    let s = |text| match ok(text) {
        Value::String(s) => s.into_owned(),
        other => panic!("{other:?}"),
    };
    assert_eq!(s(r#""\"\\\/\b\f\n\r\t""#), "\"\\/\u{8}\u{c}\n\r\t");
    assert_eq!(s(r#""\u0041\u00e9\u20AC""#), "Aé€");
    assert_eq!(s(r#""\ud83d\ude00\uD83D\uDE00""#), "😀😀");
    assert_eq!(s("\"\u{7f}é日本😀\u{2028}\""), "\u{7f}é日本😀\u{2028}");
    // An escaped backslash before `u` is text, not an escape.
    assert_eq!(s(r#""\\ud800""#), "\\ud800");
    // A string without escapes is borrowed from the text.
    assert!(matches!(ok("\"plain\""), Value::String(Cow::Borrowed("plain"))));
    // Control characters must be escaped; DEL need not be.
    assert_eq!(
        err("\"a\u{1}b\""),
        "control character (\\u0000-\\u001F) found while parsing a string at line 1 column 3"
    );
    assert_eq!(
        err("\"a\tb\""),
        "control character (\\u0000-\\u001F) found while parsing a string at line 1 column 3"
    );
    assert_eq!(err(r#""\x""#), "invalid escape at line 1 column 3");
    assert_eq!(err(r#""\u12""#), "EOF while parsing a string at line 1 column 6");
    assert_eq!(err(r#""\u12"#), "EOF while parsing a string at line 1 column 5");
    assert_eq!(err("\"open"), "EOF while parsing a string at line 1 column 5");
}

#[test]
fn lone_surrogates_are_refused_never_replaced() {
    // High alone, low alone, a reversed pair, high then not low: all refused.
    assert_eq!(err(r#""\ud800""#), "unexpected end of hex escape at line 1 column 8");
    assert_eq!(
        err(r#""\udc00""#),
        "lone leading surrogate in hex escape at line 1 column 7"
    );
    assert_eq!(
        err(r#""\ude00\ud83d""#),
        "lone leading surrogate in hex escape at line 1 column 7"
    );
    assert_eq!(
        err(r#""\ud800\u0041""#),
        "lone leading surrogate in hex escape at line 1 column 13"
    );
    assert_eq!(err(r#""\ud800\n""#), "unexpected end of hex escape at line 1 column 9");
    // Read loosely (a stored text field), a lone surrogate is reported as such.
    let mut p = Parser::new(br#""a\ud800""#);
    assert_eq!(
        p.loose_text("a string", LONE_SURROGATE).unwrap_err().message(),
        LONE_SURROGATE
    );
    let mut p = Parser::new(br#""a\ud83d\ude00""#);
    assert_eq!(p.loose_text("a string", LONE_SURROGATE).unwrap(), "a😀");
    // Skipping checks the escape's digits, not its pairing (as serde_json did).
    assert_eq!(skips(r#"["\ud800", {"\udc00": 1}]"#), Ok(()));
}

#[test]
fn lone_surrogates_are_named_by_path() {
    let text =
        r#"{"todos":[{"content":"ok \ud83d\ude00","status":"pending"},{"content":"bad \ud800","status":"pending"}]}"#;
    assert_eq!(
        Input::parse(text),
        Input::Unreadable("todos[1].content holds a lone surrogate; text must be well-formed Unicode".to_string())
    );
    let key = r#"{"a\udc00b":1}"#;
    assert_eq!(
        Input::parse(key),
        Input::Unreadable("(a field name) holds a lone surrogate; text must be well-formed Unicode".to_string())
    );
    // Keys in byte order, as a map holds them: `a` before `b`.
    assert_eq!(
        Input::parse(r#"{"b":"\ud800","a":["x","\udfff"]}"#),
        Input::Unreadable("a[1] holds a lone surrogate; text must be well-formed Unicode".to_string())
    );
    // An escaped backslash before "ud800" is text, not an escape.
    assert!(matches!(Input::parse(r#"{"a":"\\ud800"}"#), Input::Json(_)));
}

#[test]
fn whitespace_is_the_four_json_characters_and_a_byte_order_mark_is_not_json() {
    assert_eq!(ok(" \t\r\n[ 1 ,\n2 ] \n"), ok("[1,2]"));
    assert_eq!(err("\u{feff}{}"), "expected value at line 1 column 1");
    assert_eq!(err("\u{a0}1"), "expected value at line 1 column 1");
    assert_eq!(err("\u{c}1"), "expected value at line 1 column 1");
    assert_eq!(err(""), "EOF while parsing a value at line 1 column 0");
}

#[test]
fn trailing_text_and_commas_are_refused_with_their_place() {
    assert_eq!(err("{} x"), "trailing characters at line 1 column 4");
    assert_eq!(err("[1,]"), "trailing comma at line 1 column 4");
    assert_eq!(err("{\"a\":1,}"), "trailing comma at line 1 column 8");
    assert_eq!(err("{\"a\" 1}"), "expected `:` at line 1 column 6");
    assert_eq!(err("{1:2}"), "key must be a string at line 1 column 2");
    assert_eq!(err("[1 2]"), "expected `,` or `]` at line 1 column 4");
    assert_eq!(err("{\"a\":1\n\"b\":2}"), "expected `,` or `}` at line 2 column 1");
    assert_eq!(err("tru"), "EOF while parsing a value at line 1 column 3");
    assert_eq!(err("trux"), "expected ident at line 1 column 4");
    assert_eq!(skips("{} x"), Err("trailing characters at line 1 column 4".to_string()));
}

#[test]
fn deep_nesting_is_refused_when_built_and_skipped_at_any_depth() {
    let deep = |n: usize| format!("{}{}", "[".repeat(n), "]".repeat(n));
    assert!(parse(&deep(127), None).is_ok());
    assert_eq!(err(&deep(128)), "recursion limit exceeded at line 1 column 128");
    assert_eq!(
        Input::parse(&deep(10_000)),
        Input::Unreadable(format!("it is nested deeper than {MAX_DEPTH} levels"))
    );
    // Skipping needs no stack: 100,000 levels, arrays and objects mixed.
    let mixed = format!("{}0{}", "[{\"a\":".repeat(50_000), "}]".repeat(50_000));
    assert_eq!(skips(&mixed), Ok(()));
    assert_eq!(skips(&deep(100_000)), Ok(()));
    let open = "[".repeat(100_000);
    assert_eq!(
        skips(&open),
        Err("EOF while parsing a list at line 1 column 100000".to_string())
    );
}

#[test]
fn objects_keep_repeated_keys_and_read_them_as_a_map() {
    let value = ok(r#"{"b":1,"a":2,"b":3}"#);
    let o = value.as_object().unwrap();
    assert_eq!(o.get("b"), Some(&Value::Number(Cow::Borrowed("3"))));
    assert_eq!(o.first_key(|k| k != "a"), Some("b"));
    assert_eq!(value.to_json(), r#"{"a":2,"b":3}"#);
}

#[test]
fn the_writer_escapes_as_serde_json_did() {
    assert_eq!(quoted("plain"), "\"plain\"");
    assert_eq!(quoted("\"\\/"), r#""\"\\/""#);
    assert_eq!(quoted("\u{8}\u{c}\n\r\t"), r#""\b\f\n\r\t""#);
    assert_eq!(quoted("\u{0}\u{1}\u{1f}"), r#""\u0000\u0001\u001f""#);
    assert_eq!(quoted("\u{7f}é\u{2028}😀"), "\"\u{7f}é\u{2028}😀\"");
    // What the writer writes, the reader reads back as the same string.
    let all: String = (0u32..0x800)
        .chain([0xFFFD, 0x1F600, 0x10FFFF])
        .filter_map(char::from_u32)
        .collect();
    assert_eq!(ok(&quoted(&all)), Value::String(Cow::Borrowed(all.as_str())));
}

#[test]
fn the_writer_places_commas_and_numbers() {
    let mut out = Out::new();
    out.object(|out| {
        out.field("a", &0usize);
        out.field("b", &u32::MAX);
        out.field("c", &[Some(true), None][..]);
        out.key("d");
        out.open_array();
        out.close_array();
        out.field("e", "x");
    });
    assert_eq!(out.finish(), r#"{"a":0,"b":4294967295,"c":[true,null],"d":[],"e":"x"}"#);
    assert_eq!(write::uint_text(u64::MAX), "18446744073709551615");
    assert_eq!(write::uint_text(10), "10");
}
