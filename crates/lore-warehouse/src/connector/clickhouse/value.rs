//! ClickHouse results as lossless JSON, decoded from the
//! `TabSeparatedWithNamesAndTypes` format: one line per row, fields
//! separated by tabs and escaped (`\t`, `\n`, `\\`, `\N` for NULL), with
//! the column names and types in the first two lines. Strings arrive as
//! their exact bytes (JSON formats replace invalid UTF-8), decimals and
//! 64-bit integers as their exact digits.
//!
//! Scalars follow the conventions of [`crate::connector::value`]: integers
//! beyond ±(2^53 − 1) and decimals a double cannot hold become strings,
//! `inf`/`nan` become `"Infinity"`/`"NaN"`, bytes that are not UTF-8 become
//! `{"$base64": …}`. `DateTime` is written `YYYY-MM-DDTHH:MM:SS[.fff]` in
//! the column's time zone, like other engines' timestamps without zone.
//! `Nullable` and `LowCardinality` are transparent; arrays and tuples
//! become JSON arrays and maps JSON objects, their elements parsed from
//! ClickHouse's quoted literal syntax (`['a\'b',NULL]`, `(1,'x')`).

use serde_json::{Map, Value};

use crate::connector::value::{
    blob_to_json, decimal_to_json, float_to_json, integer_to_json, unsupported_to_json,
};

/// A ClickHouse data type, as far as decoding needs to know it.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum ChType {
    /// Integers that always fit a JSON number (up to 32 bits).
    SmallInt,
    /// 64-bit and wider integers.
    BigInt,
    /// `Float32`, `Float64`.
    Float,
    /// `Decimal(P, S)` and its aliases.
    Decimal,
    /// `Bool`.
    Bool,
    /// `String`, `FixedString(N)`.
    Bytes,
    /// `DateTime`, `DateTime64`.
    DateTime,
    /// `Nothing` (the type of a bare NULL).
    Nothing,
    /// `Array(T)`.
    Array(Box<ChType>),
    /// `Tuple(T1, T2, …)`.
    Tuple(Vec<ChType>),
    /// `Map(K, V)`.
    Map(Box<ChType>, Box<ChType>),
    /// Aggregate function states: binary, not decodable.
    AggregateState(String),
    /// Everything read as its text: `Date`, `UUID`, enums, IP addresses…
    Text,
}

/// Parses a type name such as `Array(Nullable(Decimal(18, 2)))`.
pub(crate) fn parse_type(name: &str) -> ChType {
    let name = name.trim();
    let (head, args) = match name.find('(') {
        Some(open) if name.ends_with(')') => {
            (&name[..open], split_args(&name[open + 1..name.len() - 1]))
        }
        _ => (name, Vec::new()),
    };
    let first = || args.first().map(|a| parse_type(a)).unwrap_or(ChType::Text);
    match head {
        "Nullable" | "LowCardinality" => first(),
        "SimpleAggregateFunction" => args.get(1).map(|a| parse_type(a)).unwrap_or(ChType::Text),
        "UInt8" | "UInt16" | "UInt32" | "Int8" | "Int16" | "Int32" => ChType::SmallInt,
        "UInt64" | "Int64" | "UInt128" | "Int128" | "UInt256" | "Int256" => ChType::BigInt,
        "Float32" | "Float64" | "BFloat16" => ChType::Float,
        "Bool" | "Boolean" => ChType::Bool,
        "String" | "FixedString" => ChType::Bytes,
        "DateTime" | "DateTime64" => ChType::DateTime,
        "Nothing" => ChType::Nothing,
        "Array" => ChType::Array(Box::new(first())),
        "Tuple" => ChType::Tuple(
            args.iter()
                .map(|a| parse_type(strip_element_name(a)))
                .collect(),
        ),
        "Nested" => ChType::Array(Box::new(ChType::Tuple(
            args.iter()
                .map(|a| parse_type(strip_element_name(a)))
                .collect(),
        ))),
        "Map" => ChType::Map(
            Box::new(first()),
            Box::new(args.get(1).map(|a| parse_type(a)).unwrap_or(ChType::Text)),
        ),
        "AggregateFunction" => ChType::AggregateState(name.to_string()),
        _ if head.starts_with("Decimal") => ChType::Decimal,
        _ => ChType::Text,
    }
}

/// The arguments of a type, split at top-level commas (outside
/// parentheses and quotes).
fn split_args(text: &str) -> Vec<&str> {
    let mut parts = Vec::new();
    let mut depth = 0usize;
    let mut quoted = false;
    let mut escaped = false;
    let mut start = 0;
    for (i, c) in text.char_indices() {
        if quoted {
            match c {
                _ if escaped => escaped = false,
                '\\' => escaped = true,
                '\'' => quoted = false,
                _ => {}
            }
            continue;
        }
        match c {
            '\'' => quoted = true,
            '(' => depth += 1,
            ')' => depth = depth.saturating_sub(1),
            ',' if depth == 0 => {
                parts.push(text[start..i].trim());
                start = i + 1;
            }
            _ => {}
        }
    }
    let last = text[start..].trim();
    if !last.is_empty() {
        parts.push(last);
    }
    parts
}

/// `name Type` (a named tuple element) → `Type`.
fn strip_element_name(arg: &str) -> &str {
    let arg = arg.trim();
    match arg.find([' ', '(']) {
        Some(i) if arg.as_bytes()[i] == b' ' => arg[i..].trim_start(),
        _ => arg,
    }
}

/// Undoes TSV escaping; `None` for the NULL marker `\N`.
pub(crate) fn unescape_field(field: &[u8]) -> Option<Vec<u8>> {
    if field == b"\\N" {
        return None;
    }
    let mut out = Vec::with_capacity(field.len());
    let mut bytes = field.iter();
    while let Some(&b) = bytes.next() {
        if b != b'\\' {
            out.push(b);
            continue;
        }
        match bytes.next() {
            Some(b'n') => out.push(b'\n'),
            Some(b't') => out.push(b'\t'),
            Some(b'r') => out.push(b'\r'),
            Some(b'b') => out.push(0x08),
            Some(b'f') => out.push(0x0c),
            Some(b'a') => out.push(0x07),
            Some(b'v') => out.push(0x0b),
            Some(b'e') => out.push(0x1b),
            Some(b'0') => out.push(0),
            Some(&other) => out.push(other),
            None => out.push(b'\\'),
        }
    }
    Some(out)
}

/// One TSV field of a column of type `ty` as JSON. Arrays, tuples and
/// maps are written in their quoted literal syntax, whose own escaping
/// already keeps tabs and newlines out: their fields are read as they are.
pub(crate) fn field_to_json(ty: &ChType, field: &[u8]) -> Value {
    if field == b"\\N" {
        return Value::Null;
    }
    match ty {
        ChType::Array(_) | ChType::Tuple(_) | ChType::Map(..) => {
            let mut parser = Literal { text: field, at: 0 };
            match parser.value(ty) {
                Some(value) if parser.at == field.len() => value,
                // Text Lore cannot parse is kept, not guessed at.
                _ => text_or_blob(field),
            }
        }
        ChType::AggregateState(name) => unsupported_aggregate(name),
        _ => scalar_to_json(ty, &unescape_field(field).unwrap_or_default()),
    }
}

fn unsupported_aggregate(name: &str) -> Value {
    let mut value = unsupported_to_json(name);
    if let Value::Object(map) = &mut value {
        map.insert(
            "hint".into(),
            Value::String(
                "read aggregate states with finalizeAggregation(col) or the -Merge combinator"
                    .into(),
            ),
        );
    }
    value
}

/// A scalar's text (or bytes) as JSON, by its type.
fn scalar_to_json(ty: &ChType, bytes: &[u8]) -> Value {
    let Ok(text) = std::str::from_utf8(bytes) else {
        return blob_to_json(bytes);
    };
    match ty {
        ChType::SmallInt => text
            .parse::<i64>()
            .map(integer_to_json)
            .unwrap_or_else(|_| Value::String(text.to_string())),
        ChType::BigInt => match text.parse::<i128>() {
            Ok(i) => match i64::try_from(i) {
                Ok(small) => integer_to_json(small),
                Err(_) => Value::String(text.to_string()),
            },
            Err(_) => Value::String(text.to_string()),
        },
        ChType::Float => match text {
            "inf" | "+inf" => Value::String("Infinity".into()),
            "-inf" => Value::String("-Infinity".into()),
            "nan" | "-nan" | "+nan" => Value::String("NaN".into()),
            _ => text
                .parse::<f64>()
                .map(float_to_json)
                .unwrap_or_else(|_| Value::String(text.to_string())),
        },
        ChType::Decimal => decimal_to_json(text),
        ChType::Bool => match text {
            "true" | "1" => Value::Bool(true),
            "false" | "0" => Value::Bool(false),
            other => Value::String(other.to_string()),
        },
        ChType::DateTime => {
            let mut iso = text.to_string();
            if iso.len() > 10 && iso.as_bytes()[10] == b' ' {
                iso.replace_range(10..11, "T");
            }
            Value::String(iso)
        }
        ChType::Nothing => Value::Null,
        ChType::AggregateState(name) => unsupported_aggregate(name),
        ChType::Bytes | ChType::Text | ChType::Array(_) | ChType::Tuple(_) | ChType::Map(..) => {
            Value::String(text.to_string())
        }
    }
}

fn text_or_blob(bytes: &[u8]) -> Value {
    match std::str::from_utf8(bytes) {
        Ok(text) => Value::String(text.to_string()),
        Err(_) => blob_to_json(bytes),
    }
}

/// A reader of ClickHouse's quoted literal syntax, the text form of
/// arrays, tuples and maps: `[1,NULL]`, `('a\'b',2.5)`, `{'k':1}`.
struct Literal<'a> {
    text: &'a [u8],
    at: usize,
}

impl Literal<'_> {
    fn peek(&self) -> Option<u8> {
        self.text.get(self.at).copied()
    }

    fn skip_spaces(&mut self) {
        while self.peek().is_some_and(|b| b.is_ascii_whitespace()) {
            self.at += 1;
        }
    }

    fn expect(&mut self, byte: u8) -> Option<()> {
        self.skip_spaces();
        (self.peek() == Some(byte)).then(|| self.at += 1)
    }

    /// Elements up to `close`, separated by commas.
    fn elements(&mut self, close: u8, mut each: impl FnMut(&mut Self) -> Option<()>) -> Option<()> {
        self.skip_spaces();
        if self.peek() == Some(close) {
            self.at += 1;
            return Some(());
        }
        loop {
            each(self)?;
            self.skip_spaces();
            match self.peek()? {
                b',' => self.at += 1,
                b if b == close => {
                    self.at += 1;
                    return Some(());
                }
                _ => return None,
            }
        }
    }

    fn value(&mut self, ty: &ChType) -> Option<Value> {
        self.skip_spaces();
        if self.text[self.at..].starts_with(b"NULL") {
            self.at += 4;
            return Some(Value::Null);
        }
        match ty {
            ChType::Array(inner) => {
                self.expect(b'[')?;
                let mut items = Vec::new();
                self.elements(b']', |p| {
                    items.push(p.value(inner)?);
                    Some(())
                })?;
                Some(Value::Array(items))
            }
            ChType::Tuple(types) => {
                self.expect(b'(')?;
                let mut items = Vec::new();
                self.elements(b')', |p| {
                    let ty = types.get(items.len()).unwrap_or(&ChType::Text);
                    items.push(p.value(ty)?);
                    Some(())
                })?;
                Some(Value::Array(items))
            }
            ChType::Map(key, value) => {
                self.expect(b'{')?;
                let mut map = Map::new();
                self.elements(b'}', |p| {
                    let k = match p.value(key)? {
                        Value::String(s) => s,
                        other => other.to_string(),
                    };
                    p.expect(b':')?;
                    map.insert(k, p.value(value)?);
                    Some(())
                })?;
                Some(Value::Object(map))
            }
            ChType::AggregateState(name) => {
                self.scalar()?;
                Some(unsupported_aggregate(name))
            }
            _ => {
                let bytes = self.scalar()?;
                Some(scalar_to_json(ty, &bytes))
            }
        }
    }

    /// A quoted string (unescaped) or a bare token.
    fn scalar(&mut self) -> Option<Vec<u8>> {
        self.skip_spaces();
        if self.peek() == Some(b'\'') {
            self.at += 1;
            let mut out = Vec::new();
            loop {
                let b = self.peek()?;
                self.at += 1;
                match b {
                    b'\\' => {
                        let escaped = self.peek()?;
                        self.at += 1;
                        out.push(match escaped {
                            b'n' => b'\n',
                            b't' => b'\t',
                            b'r' => b'\r',
                            b'b' => 0x08,
                            b'f' => 0x0c,
                            b'a' => 0x07,
                            b'v' => 0x0b,
                            b'e' => 0x1b,
                            b'0' => 0,
                            other => other,
                        });
                    }
                    b'\'' if self.peek() == Some(b'\'') => {
                        self.at += 1;
                        out.push(b'\'');
                    }
                    b'\'' => return Some(out),
                    other => out.push(other),
                }
            }
        }
        let start = self.at;
        while self.peek().is_some_and(|b| {
            !matches!(b, b',' | b']' | b')' | b'}' | b':') && !b.is_ascii_whitespace()
        }) {
            self.at += 1;
        }
        (self.at > start).then(|| self.text[start..self.at].to_vec())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn decode(ty: &str, field: &str) -> Value {
        field_to_json(&parse_type(ty), field.as_bytes())
    }

    #[test]
    fn integers_stay_exact() {
        assert_eq!(decode("UInt8", "7"), json!(7));
        assert_eq!(decode("Int64", "-5"), json!(-5));
        assert_eq!(
            decode("Int64", "9007199254740993"),
            json!("9007199254740993")
        );
        assert_eq!(
            decode("UInt64", "18446744073709551615"),
            json!("18446744073709551615")
        );
        assert_eq!(decode("Nullable(Int32)", "\\N"), Value::Null);
        assert_eq!(decode("LowCardinality(Nullable(UInt64))", "12"), json!(12));
    }

    #[test]
    fn floats_decimals_and_booleans_follow_the_shared_conventions() {
        assert_eq!(decode("Float32", "1.1"), json!(1.1));
        assert_eq!(decode("Float64", "inf"), json!("Infinity"));
        assert_eq!(decode("Float64", "-inf"), json!("-Infinity"));
        assert_eq!(decode("Float64", "nan"), json!("NaN"));
        assert_eq!(decode("Decimal(18, 2)", "12.50"), json!(12.5));
        assert_eq!(
            decode("Decimal(38, 1)", "12345678901234567890.5"),
            json!("12345678901234567890.5")
        );
        assert_eq!(decode("Bool", "true"), json!(true));
    }

    #[test]
    fn strings_are_exact_and_binary_is_base64() {
        assert_eq!(decode("String", "a\\tb\\\\c\\nd"), json!("a\tb\\c\nd"));
        assert_eq!(
            field_to_json(&ChType::Bytes, b"\\0\xff"),
            json!({"$base64": "AP8="})
        );
        assert_eq!(decode("FixedString(3)", "ab\\0"), json!("ab\u{0}"));
    }

    #[test]
    fn timestamps_are_iso_8601() {
        assert_eq!(decode("Date", "2024-02-29"), json!("2024-02-29"));
        assert_eq!(
            decode("DateTime('Europe/Moscow')", "2024-02-29 13:45:01"),
            json!("2024-02-29T13:45:01")
        );
        assert_eq!(
            decode("DateTime64(3)", "2024-02-29 13:45:01.250"),
            json!("2024-02-29T13:45:01.250")
        );
    }

    #[test]
    fn arrays_tuples_and_maps_become_json() {
        assert_eq!(
            decode("Array(Nullable(UInt8))", "[1,NULL,3]"),
            json!([1, null, 3])
        );
        assert_eq!(
            decode("Array(Nullable(String))", "['it\\'s','x\\\\y\"z\\t',NULL]"),
            json!(["it's", "x\\y\"z\t", null])
        );
        assert_eq!(
            decode(
                "Tuple(UInt8, String, Array(Nullable(Nothing)))",
                "(1,'a',[NULL])"
            ),
            json!([1, "a", [null]])
        );
        assert_eq!(
            decode("Array(Tuple(id UInt64, name String))", "[(1,'x'),(2,'y')]"),
            json!([[1, "x"], [2, "y"]])
        );
        assert_eq!(
            decode("Map(String, Array(Int64))", "{'a':[1,2],'b':[]}"),
            json!({"a": [1, 2], "b": []})
        );
        assert_eq!(
            decode("Array(DateTime)", "['2020-01-01 00:00:00']"),
            json!(["2020-01-01T00:00:00"])
        );
        assert_eq!(
            decode("Array(Decimal(9, 2))", "[1.50,-2.00]"),
            json!([1.5, -2.0])
        );
    }

    #[test]
    fn aggregate_states_are_named_not_guessed() {
        let value = decode("AggregateFunction(uniq, UInt64)", "\\0\\0");
        assert_eq!(value["$unsupportedType"], "AggregateFunction(uniq, UInt64)");
    }
}
