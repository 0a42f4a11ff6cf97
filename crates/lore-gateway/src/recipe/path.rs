//! Where a recipe looks inside JSON: paths (`result.results[0].chunk_id`),
//! templates (`${vars.query}`, `${steps.search.results[0].chunk.chunk_id}`,
//! `${captures.backup.archive}`) and the conditions of `expect`, `assert`
//! and `wait.until`.

use serde_json::Value;

/// One step along a path: a field or an array position.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Segment {
    Key(String),
    Index(usize),
    /// `[*]`: every item.
    All,
}

/// A path into a JSON value: fields separated by dots, array positions as
/// `[n]` or a bare number (`results[0].file`, `results.0.file`), every
/// item as `[*]` (`results[*].chunk.artifact_path`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct JsonPath {
    text: String,
    segments: Vec<Segment>,
}

impl std::fmt::Display for JsonPath {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.text)
    }
}

impl JsonPath {
    /// Parses a path; the message says what is wrong with it.
    pub fn parse(text: &str) -> Result<JsonPath, String> {
        let trimmed = text.trim();
        let mut segments = Vec::new();
        if trimmed.is_empty() {
            return Ok(JsonPath {
                text: String::new(),
                segments,
            });
        }
        for part in trimmed.split('.') {
            if part.is_empty() {
                return Err(format!(
                    "path `{trimmed}` has an empty part (two dots, or a dot at an end)"
                ));
            }
            if part.bytes().all(|b| b.is_ascii_digit()) {
                segments.push(Segment::Index(index_of(part, trimmed)?));
                continue;
            }
            let (name, mut rest) = match part.find('[') {
                Some(at) => (&part[..at], &part[at..]),
                None => (part, ""),
            };
            if !name.is_empty() {
                if let Some(bad) = name
                    .chars()
                    .find(|c| !(c.is_alphanumeric() || *c == '_' || *c == '-'))
                {
                    return Err(format!(
                        "path `{trimmed}`: `{name}` holds `{bad}`; field names are letters, digits, `_` and `-`"
                    ));
                }
                segments.push(Segment::Key(name.to_string()));
            }
            while !rest.is_empty() {
                let Some(inner) = rest.strip_prefix('[').and_then(|r| r.split_once(']')) else {
                    return Err(format!("path `{trimmed}`: `{part}` is not `name[number]`"));
                };
                segments.push(if inner.0 == "*" {
                    Segment::All
                } else {
                    Segment::Index(index_of(inner.0, trimmed)?)
                });
                rest = inner.1;
            }
        }
        Ok(JsonPath {
            text: trimmed.to_string(),
            segments,
        })
    }

    /// The same path without a leading `result` field: a step's paths may
    /// start with `result.` (the step's answer), as the original recipes
    /// write them, or leave it out.
    pub fn under_result(mut self) -> JsonPath {
        if self.segments.first() == Some(&Segment::Key("result".into())) {
            self.segments.remove(0);
        }
        self
    }

    /// The first field name (what a template's root is).
    fn head(&self) -> Option<&str> {
        match self.segments.first() {
            Some(Segment::Key(k)) => Some(k),
            _ => None,
        }
    }

    /// The path after its first `n` segments.
    fn tail(&self, n: usize) -> JsonPath {
        JsonPath {
            text: self.text.clone(),
            segments: self.segments.get(n..).unwrap_or_default().to_vec(),
        }
    }

    /// The value at this path, or why there is none: which part is
    /// missing and what is there instead. `[*]` takes every item of an
    /// array (the rest of the path applied to each).
    pub fn lookup(&self, value: &Value) -> Result<Value, String> {
        walk(value, &self.segments, String::new())
    }
}

fn walk(current: &Value, segments: &[Segment], walked: String) -> Result<Value, String> {
    let Some((segment, rest)) = segments.split_first() else {
        return Ok(current.clone());
    };
    let here = if walked.is_empty() {
        "the answer".to_string()
    } else {
        format!("`{walked}`")
    };
    let next_walked = |part: String| {
        if walked.is_empty() || part.starts_with('[') {
            format!("{walked}{part}")
        } else {
            format!("{walked}.{part}")
        }
    };
    match (segment, current) {
        (Segment::Key(key), Value::Object(map)) => match map.get(key) {
            Some(next) => walk(next, rest, next_walked(key.clone())),
            None => {
                let mut fields: Vec<&str> = map.keys().map(String::as_str).collect();
                fields.truncate(12);
                Err(format!(
                    "{here} has no field `{key}` (it has {})",
                    if fields.is_empty() {
                        "none".to_string()
                    } else {
                        fields.join(", ")
                    }
                ))
            }
        },
        (Segment::Index(i), Value::Array(items)) => match items.get(*i) {
            Some(next) => walk(next, rest, next_walked(format!("[{i}]"))),
            None => Err(format!(
                "{here} has {} item{}, no [{i}]",
                items.len(),
                if items.len() == 1 { "" } else { "s" }
            )),
        },
        (Segment::All, Value::Array(items)) => items
            .iter()
            .enumerate()
            .map(|(i, item)| walk(item, rest, next_walked(format!("[{i}]"))))
            .collect::<Result<Vec<Value>, String>>()
            .map(Value::Array),
        (Segment::Key(key), other) => Err(format!(
            "{here} is {}, not an object with `{key}`",
            kind(other)
        )),
        (Segment::Index(i), other) => Err(format!(
            "{here} is {}, not an array with [{i}]",
            kind(other)
        )),
        (Segment::All, other) => Err(format!("{here} is {}, not an array", kind(other))),
    }
}

fn index_of(text: &str, path: &str) -> Result<usize, String> {
    text.parse::<usize>()
        .map_err(|_| format!("path `{path}`: `[{text}]` is not an array position (0, 1, …)"))
}

/// What kind of JSON a value is, for messages.
fn kind(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "text",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// Where a template expression looks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Root {
    /// `${vars.name}`: the run's variables.
    Vars,
    /// `${steps.id…}`: an earlier step's answer.
    Steps,
    /// `${captures.name…}`: a value an earlier step captured.
    Captures,
    /// `${outputs.name…}`: an output named before (in `outputs` only).
    Outputs,
}

/// One `${…}` expression: its root, the name under it and the path on.
#[derive(Debug, Clone)]
pub struct Expression {
    /// The text between `${` and `}`.
    pub text: String,
    /// Where it looks.
    pub root: Root,
    /// The variable, step, capture or output named.
    pub name: String,
    path: JsonPath,
}

impl Expression {
    fn parse(text: &str) -> Result<Expression, String> {
        let path = JsonPath::parse(text)?;
        let root = match path.head() {
            Some("vars") => Root::Vars,
            Some("steps") => Root::Steps,
            Some("captures") => Root::Captures,
            Some("outputs") => Root::Outputs,
            _ => {
                return Err(format!(
                    "`${{{text}}}` must start with vars., steps., captures. or outputs."
                ));
            }
        };
        let Some(Segment::Key(name)) = path.segments.get(1) else {
            return Err(format!(
                "`${{{text}}}` names no variable, step or capture after its root"
            ));
        };
        let mut rest = path.tail(2);
        if root == Root::Steps {
            rest = rest.under_result();
        }
        Ok(Expression {
            text: text.trim().to_string(),
            root,
            name: name.clone(),
            path: rest,
        })
    }
}

/// The `${…}` expressions in every text inside `value`, parsed, or the
/// first one that does not parse.
pub fn expressions(value: &Value) -> Result<Vec<Expression>, String> {
    let mut found = Vec::new();
    collect(value, &mut found)?;
    Ok(found)
}

fn collect(value: &Value, found: &mut Vec<Expression>) -> Result<(), String> {
    match value {
        Value::String(text) => {
            for piece in pieces(text)? {
                if let Piece::Expression(e) = piece {
                    found.push(e);
                }
            }
        }
        Value::Array(items) => {
            for item in items {
                collect(item, found)?;
            }
        }
        Value::Object(map) => {
            for item in map.values() {
                collect(item, found)?;
            }
        }
        _ => {}
    }
    Ok(())
}

enum Piece<'a> {
    Text(&'a str),
    Expression(Expression),
}

/// A text cut into literal parts and expressions.
fn pieces(text: &str) -> Result<Vec<Piece<'_>>, String> {
    let mut out = Vec::new();
    let mut rest = text;
    while let Some(start) = rest.find("${") {
        if start > 0 {
            out.push(Piece::Text(&rest[..start]));
        }
        let after = &rest[start + 2..];
        let Some(end) = after.find('}') else {
            return Err(format!("`{text}` opens `${{` without closing it with `}}`"));
        };
        out.push(Piece::Expression(Expression::parse(&after[..end])?));
        rest = &after[end + 1..];
    }
    if !rest.is_empty() {
        out.push(Piece::Text(rest));
    }
    Ok(out)
}

/// What templates resolve against.
#[derive(Debug, Default)]
pub struct Scope {
    /// The run's variables.
    pub vars: serde_json::Map<String, Value>,
    /// Each finished step's answer, by id.
    pub steps: serde_json::Map<String, Value>,
    /// The captured values, by name.
    pub captures: serde_json::Map<String, Value>,
    /// The outputs resolved so far.
    pub outputs: serde_json::Map<String, Value>,
}

/// How a template that cannot be resolved yet is treated.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Unresolved {
    /// It is an error (a run).
    Fail,
    /// It stays as written (a dry run, before the steps have answered).
    Keep,
}

/// The most bytes templates may write into one step's parameters or one
/// check's operand: the largest request body an agent could send itself
/// (4 MiB).
pub const PARAMS_MAX_BYTES: usize = 4 << 20;

/// Why templates were not filled in.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TemplateError {
    /// An expression names nothing (yet), or a text does not parse.
    Unresolved(String),
    /// Filled in, the value would be over `limit` bytes; nothing was built.
    OverBudget {
        /// The budget, in bytes of JSON.
        limit: usize,
    },
}

impl std::fmt::Display for TemplateError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            TemplateError::Unresolved(why) => f.write_str(why),
            TemplateError::OverBudget { limit } => write!(
                f,
                "filled in, its templates would write over {limit} bytes, so nothing was built; refer to smaller values, or to each value fewer times"
            ),
        }
    }
}

impl From<TemplateError> for String {
    fn from(e: TemplateError) -> String {
        e.to_string()
    }
}

pub use lore_core::limits::json_bytes;

impl Scope {
    fn value_of(&self, e: &Expression) -> Result<Value, String> {
        let (map, what) = match e.root {
            Root::Vars => (&self.vars, "variable"),
            Root::Steps => (&self.steps, "step"),
            Root::Captures => (&self.captures, "capture"),
            Root::Outputs => (&self.outputs, "output"),
        };
        let base = map
            .get(&e.name)
            .ok_or_else(|| format!("`${{{}}}`: no {what} `{}` yet", e.text, e.name))?;
        e.path
            .lookup(base)
            .map_err(|why| format!("`${{{}}}` found nothing: {why}", e.text))
    }

    /// `value` with its templates filled in, when that takes at most
    /// `limit` bytes of JSON: the size is worked out first (stopping as
    /// soon as it is over), so a template that repeats a large value a
    /// thousand times is refused before anything is built. A text that is
    /// one template alone becomes the value itself (a number stays a
    /// number, an object an object); templates inside longer text are
    /// written in (text as is, anything else as JSON).
    pub fn resolve(
        &self,
        value: &Value,
        mode: Unresolved,
        limit: usize,
    ) -> Result<Value, TemplateError> {
        let mut bytes = 0;
        self.count(value, limit, &mut bytes);
        if bytes > limit {
            return Err(TemplateError::OverBudget { limit });
        }
        self.fill(value, mode).map_err(TemplateError::Unresolved)
    }

    /// Adds to `bytes` about what `value` takes filled in (text by its
    /// length, other values as JSON; what cannot be resolved yet as
    /// written), stopping once past `limit`.
    fn count(&self, value: &Value, limit: usize, bytes: &mut usize) {
        if *bytes > limit {
            return;
        }
        match value {
            Value::String(text) if text.contains("${") => {
                let Ok(parts) = pieces(text) else {
                    *bytes += text.len();
                    return;
                };
                if let [Piece::Expression(e)] = parts.as_slice() {
                    *bytes += match self.value_of(e) {
                        Ok(v) => json_bytes(&v),
                        Err(_) => text.len(),
                    };
                    return;
                }
                *bytes += 2;
                for part in parts {
                    *bytes += match part {
                        Piece::Text(t) => t.len(),
                        Piece::Expression(e) => match self.value_of(&e) {
                            Ok(Value::String(s)) => s.len(),
                            Ok(other) => json_bytes(&other),
                            Err(_) => e.text.len() + 3,
                        },
                    };
                    if *bytes > limit {
                        return;
                    }
                }
            }
            Value::Array(items) => {
                *bytes += 2;
                for item in items {
                    *bytes += 1;
                    self.count(item, limit, bytes);
                }
            }
            Value::Object(map) => {
                *bytes += 2;
                for (key, item) in map {
                    *bytes += key.len() + 4;
                    self.count(item, limit, bytes);
                }
            }
            other => *bytes += json_bytes(other),
        }
    }

    /// `value` with its templates filled in, however large (see
    /// [`Scope::resolve`], which measures first).
    fn fill(&self, value: &Value, mode: Unresolved) -> Result<Value, String> {
        Ok(match value {
            Value::String(text) if text.contains("${") => {
                let parts = pieces(text)?;
                if let [Piece::Expression(e)] = parts.as_slice() {
                    return match self.value_of(e) {
                        Ok(v) => Ok(v),
                        Err(_) if mode == Unresolved::Keep => Ok(value.clone()),
                        Err(why) => Err(why),
                    };
                }
                let mut out = String::new();
                for part in parts {
                    match part {
                        Piece::Text(t) => out.push_str(t),
                        Piece::Expression(e) => match self.value_of(&e) {
                            Ok(Value::String(s)) => out.push_str(&s),
                            Ok(other) => out.push_str(&other.to_string()),
                            Err(_) if mode == Unresolved::Keep => {
                                out.push_str(&format!("${{{}}}", e.text));
                            }
                            Err(why) => return Err(why),
                        },
                    }
                }
                Value::String(out)
            }
            Value::Array(items) => Value::Array(
                items
                    .iter()
                    .map(|v| self.fill(v, mode))
                    .collect::<Result<_, _>>()?,
            ),
            Value::Object(map) => Value::Object(
                map.iter()
                    .map(|(k, v)| Ok((k.clone(), self.fill(v, mode)?)))
                    .collect::<Result<_, String>>()?,
            ),
            other => other.clone(),
        })
    }
}

/// What a condition checks of the value at its path.
#[derive(Debug, Clone)]
pub enum Test {
    /// Equal to (numbers by value: `1` equals `1.0`); a missing value is
    /// `null`.
    Equals(Value),
    /// Not equal to.
    NotEquals(Value),
    /// Present and not null (`true`), or absent or null (`false`).
    Exists(bool),
    /// A number at least this, or an array, object or text with at least
    /// this many items or characters.
    AtLeast(Value),
    /// A number at most this, or an array, object or text with at most
    /// this many items or characters.
    AtMost(Value),
}

/// A check on a step's answer (`expect`, `assert`, `wait.until`).
#[derive(Debug, Clone)]
pub struct Condition {
    /// Where in the answer (a leading `result.` is the answer itself).
    pub path: JsonPath,
    /// What must hold there.
    pub test: Test,
}

impl Condition {
    /// The values the test compares with, for template checks.
    pub fn operand(&self) -> Option<&Value> {
        match &self.test {
            Test::Equals(v) | Test::NotEquals(v) | Test::AtLeast(v) | Test::AtMost(v) => Some(v),
            Test::Exists(_) => None,
        }
    }

    /// `Ok` when the condition holds for `answer`, else what was found.
    /// The operand's templates are resolved against `scope` first.
    pub fn check(&self, answer: &Value, scope: &Scope) -> Result<(), String> {
        let found = self.path.lookup(answer);
        let shown = if self.path.text.is_empty() {
            "the answer".to_string()
        } else {
            format!("`{}`", self.path)
        };
        let resolve = |v: &Value| scope.resolve(v, Unresolved::Fail, PARAMS_MAX_BYTES);
        match &self.test {
            Test::Exists(wanted) => {
                let exists = found.as_ref().is_ok_and(|v| !v.is_null());
                if exists == *wanted {
                    Ok(())
                } else if *wanted {
                    Err(match found {
                        Ok(_) => format!("{shown} is null"),
                        Err(why) => format!("{shown} does not exist: {why}"),
                    })
                } else {
                    Err(format!("{shown} exists"))
                }
            }
            Test::Equals(expected) | Test::NotEquals(expected) => {
                let expected = resolve(expected)?;
                let actual = found.unwrap_or(Value::Null);
                let equal = same(&actual, &expected);
                match (&self.test, equal) {
                    (Test::Equals(_), false) => Err(format!(
                        "{shown} is {}, expected {}",
                        short(&actual),
                        short(&expected)
                    )),
                    (Test::NotEquals(_), true) => Err(format!(
                        "{shown} is {}, expected anything else",
                        short(&actual)
                    )),
                    _ => Ok(()),
                }
            }
            Test::AtLeast(bound) | Test::AtMost(bound) => {
                let bound_value = resolve(bound)?;
                // A bound left null (a variable without a value) is no
                // bound: a recipe can make a limit optional.
                if bound_value.is_null() {
                    return Ok(());
                }
                let Some(limit) = bound_value.as_f64() else {
                    return Err(format!("the bound {} is not a number", short(&bound_value)));
                };
                let actual = found.map_err(|why| format!("{shown} does not exist: {why}"))?;
                let (measure, verb, unit) = match &actual {
                    Value::Number(n) => (n.as_f64().unwrap_or(f64::NAN), "is", ""),
                    Value::Array(items) => (items.len() as f64, "has", " items"),
                    Value::Object(map) => (map.len() as f64, "has", " fields"),
                    Value::String(s) => (s.chars().count() as f64, "has", " characters"),
                    other => {
                        return Err(format!(
                            "{shown} is {}, which has no size to compare",
                            kind(other)
                        ));
                    }
                };
                let (ok, word) = match &self.test {
                    Test::AtLeast(_) => (measure >= limit, "at least"),
                    _ => (measure <= limit, "at most"),
                };
                if ok {
                    Ok(())
                } else {
                    Err(format!(
                        "{shown} {verb} {}{unit}, expected {word} {}",
                        number(measure),
                        number(limit)
                    ))
                }
            }
        }
    }

    /// The condition for messages, its operand's templates filled in
    /// where they can be: `result.results at_least 1`.
    pub fn describe(&self, scope: &Scope) -> String {
        let path = if self.path.text.is_empty() {
            "result"
        } else {
            &self.path.text
        };
        let operand = |v: &Value| {
            short(
                &scope
                    .resolve(v, Unresolved::Keep, PARAMS_MAX_BYTES)
                    .unwrap_or(v.clone()),
            )
        };
        match &self.test {
            Test::Equals(v) => format!("{path} equals {}", operand(v)),
            Test::NotEquals(v) => format!("{path} not_equals {}", operand(v)),
            Test::Exists(b) => format!("{path} exists {b}"),
            Test::AtLeast(v) => format!("{path} at_least {}", operand(v)),
            Test::AtMost(v) => format!("{path} at_most {}", operand(v)),
        }
    }
}

/// JSON equality, numbers compared by value.
fn same(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => x.as_f64() == y.as_f64(),
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(a, b)| same(a, b))
        }
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len()
                && x.iter()
                    .all(|(k, v)| y.get(k).is_some_and(|other| same(v, other)))
        }
        _ => a == b,
    }
}

fn number(n: f64) -> String {
    if n.fract() == 0.0 && n.abs() < 1e15 {
        format!("{}", n as i64)
    } else {
        format!("{n}")
    }
}

/// A value shortened for a message.
pub fn short(value: &Value) -> String {
    let text = value.to_string();
    if text.chars().count() <= 80 {
        text
    } else {
        let cut: String = text.chars().take(77).collect();
        format!("{cut}…")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn paths_walk_fields_and_positions_and_say_where_they_stop() {
        let answer = json!({"results": [{"chunk": {"chunk_id": "a.py::f"}}], "metadata": {}});
        let path = JsonPath::parse("result.results[0].chunk.chunk_id")
            .unwrap()
            .under_result();
        assert_eq!(path.lookup(&answer).unwrap(), json!("a.py::f"));
        let bare = JsonPath::parse("results.0.chunk").unwrap();
        assert_eq!(
            bare.lookup(&answer).unwrap(),
            json!({"chunk_id": "a.py::f"})
        );
        let every = JsonPath::parse("results[*].chunk.chunk_id").unwrap();
        assert_eq!(every.lookup(&answer).unwrap(), json!(["a.py::f"]));
        let deeper = JsonPath::parse("results[*].chunk.file").unwrap();
        assert!(
            deeper
                .lookup(&answer)
                .unwrap_err()
                .starts_with("`results[0].chunk` has no field `file`")
        );
        let missing = JsonPath::parse("results[1].chunk").unwrap();
        assert_eq!(
            missing.lookup(&answer).unwrap_err(),
            "`results` has 1 item, no [1]"
        );
        let wrong = JsonPath::parse("metadata.request_id").unwrap();
        assert_eq!(
            wrong.lookup(&answer).unwrap_err(),
            "`metadata` has no field `request_id` (it has none)"
        );
        assert!(JsonPath::parse("a..b").is_err());
        assert!(JsonPath::parse("a[x]").is_err());
        assert!(JsonPath::parse("a b").is_err());
    }

    #[test]
    fn a_lone_template_keeps_its_type_and_text_templates_are_written_in() {
        let mut scope = Scope::default();
        scope.vars.insert("limit".into(), json!(3));
        scope.vars.insert("name".into(), json!("api"));
        scope
            .steps
            .insert("search".into(), json!({"results": [{"file": "a.py"}]}));
        let resolved = scope
            .resolve(
                &json!({
                    "limit": "${vars.limit}",
                    "query": "tests of ${vars.name} (${vars.limit})",
                    "file": "${steps.search.result.results[0].file}",
                    "same": "${ steps.search.results.0.file }"
                }),
                Unresolved::Fail,
                PARAMS_MAX_BYTES,
            )
            .unwrap();
        assert_eq!(
            resolved,
            json!({"limit": 3, "query": "tests of api (3)", "file": "a.py", "same": "a.py"})
        );
        let err = scope
            .resolve(
                &json!("${steps.search.results[2].file}"),
                Unresolved::Fail,
                PARAMS_MAX_BYTES,
            )
            .unwrap_err()
            .to_string();
        assert!(err.contains("has 1 item, no [2]"), "{err}");
        let kept = scope
            .resolve(
                &json!("${captures.archive}"),
                Unresolved::Keep,
                PARAMS_MAX_BYTES,
            )
            .unwrap();
        assert_eq!(kept, json!("${captures.archive}"));
        assert!(expressions(&json!("${nothing.here}")).is_err());
        assert!(expressions(&json!("${vars.open")).is_err());
    }

    #[test]
    fn templates_that_would_write_past_their_budget_are_refused_unbuilt() {
        let mut scope = Scope::default();
        scope.vars.insert("q".into(), json!("x".repeat(1 << 20)));
        scope.vars.insert("n".into(), json!(7));
        let repeated = json!("${vars.q}".repeat(1000));
        assert_eq!(
            scope.resolve(&repeated, Unresolved::Fail, 512 * 1024),
            Err(TemplateError::OverBudget { limit: 512 * 1024 })
        );
        let listed = json!(vec!["${vars.q}"; 1000]);
        assert_eq!(
            scope.resolve(&listed, Unresolved::Keep, 4 << 20),
            Err(TemplateError::OverBudget { limit: 4 << 20 })
        );
        // Within the budget, the same templates are filled in.
        let small = json!({"a": "${vars.n}", "b": "n=${vars.n}", "c": ["${vars.n}"]});
        assert_eq!(
            scope.resolve(&small, Unresolved::Fail, 64).unwrap(),
            json!({"a": 7, "b": "n=7", "c": [7]})
        );
        assert!(scope.resolve(&small, Unresolved::Fail, 8).is_err());
    }

    #[test]
    fn conditions_compare_values_sizes_and_presence() {
        let scope = Scope::default();
        let answer = json!({"success": true, "count": 2, "results": [], "name": null});
        let check = |path: &str, test: Test| {
            Condition {
                path: JsonPath::parse(path).unwrap().under_result(),
                test,
            }
            .check(&answer, &scope)
        };
        assert!(check("result.success", Test::Equals(json!(true))).is_ok());
        assert!(check("count", Test::Equals(json!(2.0))).is_ok());
        assert!(check("count", Test::AtLeast(json!(2))).is_ok());
        assert_eq!(
            check("results", Test::AtLeast(json!(1))).unwrap_err(),
            "`results` has 0 items, expected at least 1"
        );
        assert!(check("results", Test::AtMost(json!(0))).is_ok());
        // A bound left null is no bound.
        assert!(check("results", Test::AtLeast(Value::Null)).is_ok());
        assert!(check("name", Test::Exists(false)).is_ok());
        assert!(check("missing", Test::Exists(false)).is_ok());
        assert!(check("missing", Test::Equals(Value::Null)).is_ok());
        assert!(check("results", Test::Exists(true)).is_ok());
        assert!(
            check("results[0]", Test::Exists(true))
                .unwrap_err()
                .contains("does not exist")
        );
        assert!(check("success", Test::NotEquals(json!(true))).is_err());
    }
}
