//! Cube's JavaScript model files, read as data: every `cube(`name`, {…})`
//! and `view(…)` call, its object literal turned into the shape Cube's
//! YAML files have (members as lists with a `name`, camelCase keys and
//! type words in snake_case), so one importer reads both.
//!
//! The reader knows what model files are made of — object and array
//! literals, strings, template literals (kept as written, `${CUBE}`
//! included), numbers, booleans, bare references (`drillMembers: [id]`)
//! and arrow functions returning one of these — and nothing else: code
//! that builds cubes at run time (loops, `asyncModule`, helpers) cannot be
//! read without running it, and is reported with its line.

use serde_json::{Map, Value};

/// What a JavaScript model file defines.
#[derive(Debug, Default)]
pub struct JsModel {
    /// Cubes, in Cube's YAML shape.
    pub cubes: Vec<Value>,
    /// Names of views.
    pub views: Vec<String>,
}

/// Reads the cubes and views of one file, or says where and why it cannot.
pub fn read(text: &str) -> Result<JsModel, String> {
    let mut p = Reader {
        chars: text.chars().collect(),
        at: 0,
        depth: 0,
    };
    let mut model = JsModel::default();
    while p.at < p.chars.len() {
        p.skip_space();
        let Some(c) = p.peek() else { break };
        if c == '\'' || c == '"' || c == '`' {
            p.value()?;
            continue;
        }
        if c.is_alphabetic() || c == '_' || c == '$' {
            let start = p.at;
            let word = p.word();
            let callee = word == "cube" || word == "view";
            let standalone = start == 0 || !matches!(p.chars[start - 1], '.');
            p.skip_space();
            if callee && standalone && p.peek() == Some('(') {
                p.at += 1;
                let name = p.value()?;
                let Value::String(name) = name else {
                    return Err(p.error("the first argument of cube()/view() is not its name"));
                };
                p.skip_space();
                if p.peek() == Some(',') {
                    p.at += 1;
                }
                let body = p.value()?;
                if word == "view" {
                    model.views.push(name);
                } else {
                    model.cubes.push(yaml_shape(&name, body));
                }
                p.skip_space();
                if p.peek() == Some(')') {
                    p.at += 1;
                }
            }
            continue;
        }
        p.at += 1;
    }
    Ok(model)
}

struct Reader {
    chars: Vec<char>,
    at: usize,
    /// Values open at `at`: the reader recurses once per value.
    depth: usize,
}

impl Reader {
    fn peek(&self) -> Option<char> {
        self.chars.get(self.at).copied()
    }

    fn line(&self) -> usize {
        1 + self.chars[..self.at.min(self.chars.len())]
            .iter()
            .filter(|c| **c == '\n')
            .count()
    }

    fn error(&self, what: &str) -> String {
        format!("line {}: {what}", self.line())
    }

    fn skip_space(&mut self) {
        loop {
            while self.peek().is_some_and(char::is_whitespace) {
                self.at += 1;
            }
            let next = self.chars.get(self.at + 1).copied();
            match (self.peek(), next) {
                (Some('/'), Some('/')) => {
                    while self.peek().is_some_and(|c| c != '\n') {
                        self.at += 1;
                    }
                }
                (Some('/'), Some('*')) => {
                    self.at += 2;
                    while self.at < self.chars.len()
                        && !(self.chars[self.at] == '*'
                            && self.chars.get(self.at + 1) == Some(&'/'))
                    {
                        self.at += 1;
                    }
                    self.at += 2;
                }
                _ => return,
            }
        }
    }

    fn word(&mut self) -> String {
        let start = self.at;
        while self
            .peek()
            .is_some_and(|c| c.is_alphanumeric() || c == '_' || c == '$')
        {
            self.at += 1;
        }
        self.chars[start..self.at].iter().collect()
    }

    /// One value; refused past the nesting limit (objects, lists and
    /// arrow functions each open one level).
    fn value(&mut self) -> Result<Value, String> {
        if self.depth >= super::nesting::MAX_NESTING_DEPTH {
            return Err(self.error(&super::nesting::too_deep("objects, lists and functions")));
        }
        self.depth += 1;
        let value = self.value_here();
        self.depth -= 1;
        value
    }

    fn value_here(&mut self) -> Result<Value, String> {
        self.skip_space();
        let Some(c) = self.peek() else {
            return Err(self.error("the file ends where a value was expected"));
        };
        match c {
            '{' => self.object(),
            '[' => self.array(),
            '\'' | '"' => self.string(c).map(Value::String),
            '`' => self.template().map(Value::String),
            '(' => self.arrow(),
            '-' | '0'..='9' => {
                let start = self.at;
                self.at += 1;
                while self
                    .peek()
                    .is_some_and(|c| c.is_ascii_digit() || c == '.' || c == 'e' || c == '_')
                {
                    self.at += 1;
                }
                let text: String = self.chars[start..self.at].iter().collect();
                text.replace('_', "")
                    .parse::<f64>()
                    .ok()
                    .and_then(serde_json::Number::from_f64)
                    .map(Value::Number)
                    .ok_or_else(|| self.error(&format!("`{text}` is not a number")))
            }
            c if c.is_alphabetic() || c == '_' || c == '$' => {
                let mut path = self.word();
                while self.peek() == Some('.') {
                    self.at += 1;
                    path.push('.');
                    path.push_str(&self.word());
                }
                self.skip_space();
                // `x => …`: an arrow function of one parameter.
                if self.peek() == Some('=') && self.chars.get(self.at + 1) == Some(&'>') {
                    self.at += 2;
                    return self.value();
                }
                if self.peek() == Some('(') {
                    return Err(self.error(&format!(
                        "`{path}(…)` is a call, computed when Cube runs the file; write the value itself"
                    )));
                }
                Ok(match path.as_str() {
                    "true" => Value::Bool(true),
                    "false" => Value::Bool(false),
                    "null" | "undefined" => Value::Null,
                    _ => Value::String(path),
                })
            }
            other => Err(self.error(&format!("`{other}` does not start a value"))),
        }
    }

    /// `(a, b) => value`.
    fn arrow(&mut self) -> Result<Value, String> {
        let mut depth = 0;
        while let Some(c) = self.peek() {
            self.at += 1;
            match c {
                '(' => depth += 1,
                ')' => {
                    depth -= 1;
                    if depth == 0 {
                        break;
                    }
                }
                _ => {}
            }
        }
        self.skip_space();
        if !(self.peek() == Some('=') && self.chars.get(self.at + 1) == Some(&'>')) {
            return Err(self.error("a parenthesis that does not start an arrow function"));
        }
        self.at += 2;
        self.skip_space();
        if self.peek() == Some('{') {
            return Err(self.error(
                "an arrow function with a body is computed when Cube runs the file; return the value directly",
            ));
        }
        self.value()
    }

    fn object(&mut self) -> Result<Value, String> {
        self.at += 1;
        let mut map = Map::new();
        loop {
            self.skip_space();
            match self.peek() {
                Some('}') => {
                    self.at += 1;
                    return Ok(Value::Object(map));
                }
                Some(',') => {
                    self.at += 1;
                    continue;
                }
                Some('\'') | Some('"') => {
                    let quote = self.peek().unwrap_or('"');
                    let key = self.string(quote)?;
                    self.entry(&mut map, key)?;
                }
                Some('.') => {
                    return Err(self.error(
                        "`...` spreads a value computed when Cube runs the file; write the members out",
                    ));
                }
                Some(c) if c.is_alphanumeric() || c == '_' || c == '$' => {
                    let key = self.word();
                    self.entry(&mut map, key)?;
                }
                Some(other) => return Err(self.error(&format!("`{other}` in an object"))),
                None => return Err(self.error("an object is not closed")),
            }
        }
    }

    fn entry(&mut self, map: &mut Map<String, Value>, key: String) -> Result<(), String> {
        self.skip_space();
        if self.peek() != Some(':') {
            return Err(self.error(&format!("`{key}` is not followed by `:`")));
        }
        self.at += 1;
        let value = self.value()?;
        map.insert(key, value);
        Ok(())
    }

    fn array(&mut self) -> Result<Value, String> {
        self.at += 1;
        let mut items = Vec::new();
        loop {
            self.skip_space();
            match self.peek() {
                Some(']') => {
                    self.at += 1;
                    return Ok(Value::Array(items));
                }
                Some(',') => self.at += 1,
                Some(_) => items.push(self.value()?),
                None => return Err(self.error("a list is not closed")),
            }
        }
    }

    fn string(&mut self, quote: char) -> Result<String, String> {
        self.at += 1;
        let mut out = String::new();
        while let Some(c) = self.peek() {
            self.at += 1;
            match c {
                '\\' => {
                    let escaped = self.peek().unwrap_or('\\');
                    self.at += 1;
                    out.push(match escaped {
                        'n' => '\n',
                        't' => '\t',
                        other => other,
                    });
                }
                c if c == quote => return Ok(out),
                '\n' => return Err(self.error("a string runs past the end of its line")),
                c => out.push(c),
            }
        }
        Err(self.error("a string is not closed"))
    }

    /// A template literal as written: `${…}` placeholders are kept (they
    /// are Cube's references).
    fn template(&mut self) -> Result<String, String> {
        let start_line = self.line();
        self.at += 1;
        let mut out = String::new();
        let mut depth = 0usize;
        while let Some(c) = self.peek() {
            self.at += 1;
            match c {
                '\\' => {
                    if let Some(next) = self.peek() {
                        self.at += 1;
                        out.push(next);
                    }
                }
                '$' if self.peek() == Some('{') => {
                    out.push_str("${");
                    self.at += 1;
                    depth += 1;
                }
                '}' if depth > 0 => {
                    depth -= 1;
                    out.push('}');
                }
                '`' if depth == 0 => return Ok(out),
                c => out.push(c),
            }
        }
        Err(format!(
            "line {start_line}: a template literal (`…`) is not closed"
        ))
    }
}

/// `camelCase` → `snake_case`.
fn snake(word: &str) -> String {
    let mut out = String::new();
    for c in word.chars() {
        if c.is_uppercase() {
            if !out.is_empty() {
                out.push('_');
            }
            out.extend(c.to_lowercase());
        } else {
            out.push(c);
        }
    }
    out
}

/// Keys (and the words of `type` and `relationship`) in snake_case; a
/// section's members (`dimensions: {id: {…}}`) as a list with their names.
fn yaml_shape(name: &str, body: Value) -> Value {
    const SECTIONS: [&str; 6] = [
        "dimensions",
        "measures",
        "segments",
        "joins",
        "pre_aggregations",
        "hierarchies",
    ];
    fn keys(value: Value) -> Value {
        match value {
            Value::Object(map) => Value::Object(
                map.into_iter()
                    .map(|(k, v)| {
                        let k = snake(&k);
                        let v = match (&*k, v) {
                            ("type" | "relationship", Value::String(s)) => Value::String(snake(&s)),
                            (_, v) => keys(v),
                        };
                        (k, v)
                    })
                    .collect(),
            ),
            Value::Array(items) => Value::Array(items.into_iter().map(keys).collect()),
            other => other,
        }
    }
    let mut cube = Map::new();
    cube.insert("name".into(), Value::String(name.to_string()));
    if let Value::Object(map) = body {
        for (key, value) in map {
            let key = snake(&key);
            let value = match value {
                Value::Object(members) if SECTIONS.contains(&key.as_str()) => Value::Array(
                    members
                        .into_iter()
                        .map(|(member, v)| {
                            let mut v = match keys(v) {
                                Value::Object(m) => m,
                                _ => Map::new(),
                            };
                            v.insert("name".into(), Value::String(member));
                            Value::Object(v)
                        })
                        .collect(),
                ),
                other => keys(other),
            };
            cube.insert(key, value);
        }
    }
    Value::Object(cube)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_cube_js_file_reads_as_the_yaml_shape() {
        let file = r#"
            // Orders, as Cube's docs write them.
            cube(`orders`, {
              sql_table: `public.orders`,
              joins: {
                customers: {
                  relationship: `belongsTo`,
                  sql: `${CUBE}.customer_id = ${customers}.id`,
                },
              },
              measures: {
                count: { type: `count`, drillMembers: [id, createdAt] },
                paidRevenue: {
                  sql: 'amount', type: "sum",
                  filters: [{ sql: `${CUBE}.status = 'paid'` }],
                },
                buyers: { sql: () => `customer_id`, type: `countDistinct` },
              },
              dimensions: {
                id: { sql: `id`, type: `number`, primaryKey: true },
                createdAt: { sql: `created_at`, type: `time` },
              },
            });
            view(`orders_view`, { cubes: [] });
        "#;
        let model = read(file).unwrap();
        assert_eq!(model.views, ["orders_view"]);
        let cube = &model.cubes[0];
        assert_eq!(cube["name"], "orders");
        assert_eq!(cube["sql_table"], "public.orders");
        assert_eq!(cube["joins"][0]["name"], "customers");
        assert_eq!(cube["joins"][0]["relationship"], "belongs_to");
        assert_eq!(
            cube["joins"][0]["sql"],
            "${CUBE}.customer_id = ${customers}.id"
        );
        let member = |section: &str, name: &str| {
            cube[section]
                .as_array()
                .unwrap()
                .iter()
                .find(|m| m["name"] == name)
                .cloned()
                .unwrap_or_else(|| panic!("no {section} {name} in {cube}"))
        };
        assert_eq!(member("measures", "count")["drill_members"][1], "createdAt");
        assert_eq!(
            member("measures", "paidRevenue")["filters"][0]["sql"],
            "${CUBE}.status = 'paid'"
        );
        assert_eq!(member("measures", "buyers")["type"], "count_distinct");
        assert_eq!(member("measures", "buyers")["sql"], "customer_id");
        assert_eq!(member("dimensions", "id")["primary_key"], true);
        assert_eq!(member("dimensions", "createdAt")["sql"], "created_at");
    }

    #[test]
    fn code_that_builds_cubes_at_run_time_is_named_with_its_line() {
        let err = read("const x = 1;\ncube(`a`, {\n  sql: makeSql(`a`),\n});\n").unwrap_err();
        assert!(
            err.starts_with("line 3:") && err.contains("makeSql"),
            "{err}"
        );
        let err = read("cube(`a`, {\n  ...base,\n});\n").unwrap_err();
        assert!(err.starts_with("line 2:"), "{err}");
        let err = read("cube(`a`, {\n  sql: `select\n").unwrap_err();
        assert!(
            err.starts_with("line 2:") && err.contains("not closed"),
            "{err}"
        );
    }

    #[test]
    fn values_nested_past_the_limit_are_refused_on_a_small_stack() {
        for body in [
            format!("{}1{}", "{a:".repeat(20_000), "}".repeat(20_000)),
            format!("{}1{}", "[".repeat(20_000), "]".repeat(20_000)),
            format!("{{a: {}1}}", "x => ".repeat(20_000)),
        ] {
            let file = format!("cube(`deep`, {body})");
            let handle = std::thread::Builder::new()
                .stack_size(256 * 1024)
                .spawn(move || read(&file).map(|_| ()))
                .unwrap();
            let err = handle.join().unwrap().unwrap_err();
            assert!(err.contains("nesting depth limit"), "{err}");
        }
    }
}
