//! Bounds on what a request may make Lore build, checked where input
//! enters and measured without recursion.
//!
//! SQL is the one input whose shape drives deep recursion: a long flat
//! chain (`a OR b OR …`, `1+1+…`) parses into a left-deep tree as deep as
//! the chain is long, and every walk over that tree (the read-only guard,
//! the semantic planner and renderer, cloning and dropping it) recurses
//! once per level. [`check_sql`] measures the depth a text *would* build
//! from its tokens alone, before any tree exists, and refuses it past
//! [`SqlLimits::max_depth`] with a message saying how to rewrite it.
//!
//! Trees within the limit are still deep enough to need more stack than a
//! runtime worker thread has (2 MiB): the code that parses and walks SQL runs
//! inside [`with_stack_budget`], which guarantees [`STACK_BUDGET_BYTES`].
//!
//! The other structured inputs are bounded by their parsers: YAML by
//! `serde-saphyr`'s budget (64 levels of nesting, a million events), JSON
//! tool arguments by `serde_json`'s recursion limit (128 levels), LookML
//! and Cube JavaScript model files by their readers' 64 levels. What one
//! `memory_ingest` run files is bounded by [`SqlLimits::ingest_pages`] and
//! [`SqlLimits::ingest_items`].

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use sqlparser::dialect::Dialect;
use sqlparser::keywords::Keyword;
use sqlparser::tokenizer::{Token, Tokenizer};

/// Default for [`SqlLimits::max_bytes`]: 1 MiB of SQL text.
pub const DEFAULT_MAX_SQL_BYTES: usize = 1024 * 1024;

/// Default for [`SqlLimits::result_bytes`]: 512 KiB of JSON per result,
/// well inside the 1 MB message limit common MCP clients have.
pub const DEFAULT_RESULT_BYTES: usize = 512 * 1024;

/// Default for [`SqlLimits::message_bytes`]: one MCP tool result as sent
/// stays within the 1 MB (decimal) several MCP clients accept.
pub const DEFAULT_MESSAGE_BYTES: usize = 1_000_000;

/// Default for [`SqlLimits::ingest_bytes`]: a 1 MiB note.
pub const DEFAULT_INGEST_BYTES: usize = 1024 * 1024;

/// Default for [`SqlLimits::ingest_pages`]. A long handbook files a few
/// dozen pages (the test handbook: 18); 200 leaves room for a large
/// glossary while one run stays a transaction of a few megabytes that
/// commits in well under a second, and a note of thousands of headings
/// cannot multiply the wiki every later run reads.
pub const DEFAULT_INGEST_PAGES: usize = 200;

/// Default for [`SqlLimits::ingest_items`]: each measure and model file is
/// checked by loading the connection's whole model, so 200 keeps a run
/// within seconds.
pub const DEFAULT_INGEST_ITEMS: usize = 200;

/// Default for [`SqlLimits::max_depth`], SQLite's own expression-depth
/// limit: a statement past it would be refused by SQLite anyway.
pub const DEFAULT_MAX_SQL_DEPTH: usize = 1000;

/// The highest [`SqlLimits::max_depth`] a project may set: the deepest tree
/// [`STACK_BUDGET_BYTES`] carries through every walk with room to spare.
pub const MAX_SQL_DEPTH: usize = 5_000;

/// The stack [`with_stack_budget`] guarantees to SQL parsing, checking,
/// planning and rendering. The deepest walk (the semantic planner's, in a
/// debug build) takes about 5 KiB per level: 64 MiB carries about 13,000
/// levels (measured), over twice [`MAX_SQL_DEPTH`] and thirteen times the
/// default. The segment is reserved, not touched: only the pages a walk
/// uses become memory.
pub const STACK_BUDGET_BYTES: usize = 64 * 1024 * 1024;

/// How large and how deep a SQL text or expression may be
/// (`limits:` in `lore.yaml`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SqlLimits {
    /// Longest SQL text accepted, in bytes (`sql_execution`, and each filter,
    /// measure and dimension expression of `sl_query`). Default 1048576.
    #[serde(default = "default_max_bytes", rename = "sql_bytes")]
    pub max_bytes: usize,
    /// Deepest expression accepted: the operators one expression chains
    /// together (`a OR b OR c` is 2), plus those of the expressions around
    /// it and one per enclosing parenthesis, function call or CASE.
    /// Default 1000 (SQLite's own limit).
    #[serde(default = "default_max_depth", rename = "sql_depth")]
    pub max_depth: usize,
    /// Most bytes of JSON in one answer: a query result's rows
    /// (`sql_execution`, `sl_query`, `lore sql`: rows stop there with
    /// `truncated: true` and the reason, and a single value over an eighth
    /// of it is cut with a marker), a recipe's outputs (templates that
    /// would write more stop with `budget_exceeded` before they are
    /// filled in), any MCP tool's `structuredContent`. Default 524288
    /// (512 KiB).
    #[serde(default = "default_result_bytes")]
    pub result_bytes: usize,
    /// Most bytes of one MCP tool result as sent: its text content and
    /// `structuredContent` together, with the JSON-RPC message around
    /// them. Answers that list rows or results keep the first ones that
    /// fit and say so; others over it are `budget_exceeded`. Default
    /// 1000000 (1 MB, what several MCP clients accept).
    #[serde(default = "default_message_bytes")]
    pub message_bytes: usize,
    /// Largest note `memory_ingest` (and `lore memory ingest`) accepts, in
    /// bytes. Default 1048576 (1 MiB).
    #[serde(default = "default_ingest_bytes")]
    pub ingest_bytes: usize,
    /// Most wiki pages one `memory_ingest` run files: the note's first
    /// sections, then its definitions, up to this many; the rest is
    /// listed in the run's `skipped`. Default 200.
    #[serde(default = "default_ingest_pages")]
    pub ingest_pages: usize,
    /// Most memory notes and semantic-layer items (model files, sources
    /// and measures) one `memory_ingest` run adds; the rest is listed in
    /// the run's `skipped`. Default 200.
    #[serde(default = "default_ingest_items")]
    pub ingest_items: usize,
}

fn default_ingest_bytes() -> usize {
    DEFAULT_INGEST_BYTES
}

fn default_ingest_pages() -> usize {
    DEFAULT_INGEST_PAGES
}

fn default_ingest_items() -> usize {
    DEFAULT_INGEST_ITEMS
}

fn default_result_bytes() -> usize {
    DEFAULT_RESULT_BYTES
}

fn default_message_bytes() -> usize {
    DEFAULT_MESSAGE_BYTES
}

fn default_max_bytes() -> usize {
    DEFAULT_MAX_SQL_BYTES
}

fn default_max_depth() -> usize {
    DEFAULT_MAX_SQL_DEPTH
}

impl SqlLimits {
    /// Checks configured values: a depth from 1 to [`MAX_SQL_DEPTH`], at
    /// least 1 KiB of text.
    pub fn check(&self) -> Result<(), String> {
        if !(1..=MAX_SQL_DEPTH).contains(&self.max_depth) {
            return Err(format!(
                "limits.sql_depth must be between 1 and {MAX_SQL_DEPTH} (the stack Lore reserves for SQL carries no deeper trees); it is {}",
                self.max_depth
            ));
        }
        if self.result_bytes < 4096 {
            return Err(format!(
                "limits.result_bytes must be at least 4096; it is {}",
                self.result_bytes
            ));
        }
        if self.message_bytes < 16384 {
            return Err(format!(
                "limits.message_bytes must be at least 16384; it is {}",
                self.message_bytes
            ));
        }
        if self.ingest_bytes < 1024 {
            return Err(format!(
                "limits.ingest_bytes must be at least 1024; it is {}",
                self.ingest_bytes
            ));
        }
        for (name, value) in [
            ("ingest_pages", self.ingest_pages),
            ("ingest_items", self.ingest_items),
        ] {
            if value == 0 {
                return Err(format!("limits.{name} must be at least 1; it is 0"));
            }
        }
        if self.max_bytes < 1024 {
            return Err(format!(
                "limits.sql_bytes must be at least 1024; it is {}",
                self.max_bytes
            ));
        }
        Ok(())
    }
}

impl Default for SqlLimits {
    fn default() -> Self {
        SqlLimits {
            max_bytes: DEFAULT_MAX_SQL_BYTES,
            max_depth: DEFAULT_MAX_SQL_DEPTH,
            result_bytes: DEFAULT_RESULT_BYTES,
            message_bytes: DEFAULT_MESSAGE_BYTES,
            ingest_bytes: DEFAULT_INGEST_BYTES,
            ingest_pages: DEFAULT_INGEST_PAGES,
            ingest_items: DEFAULT_INGEST_ITEMS,
        }
    }
}

/// A SQL text past one of the [`SqlLimits`].
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SqlLimitError {
    /// The text is longer than `limits.sql_bytes`.
    #[error(
        "the SQL is {bytes} bytes, over the limit of {limit} (limits.sql_bytes in lore.yaml); send a shorter statement: put long value lists in a table or a VALUES list joined to the query, or filter on a range instead of listing values"
    )]
    TooLong {
        /// Bytes sent.
        bytes: usize,
        /// The limit.
        limit: usize,
    },
    /// An expression nests or chains deeper than `limits.sql_depth`.
    #[error(
        "an expression in the SQL is at least {depth} levels deep, over the limit of {limit} (limits.sql_depth in lore.yaml); rewrite long chains: `col IN (1, 2, …)` instead of `col = 1 OR col = 2 OR …`, join a VALUES list instead of OR-ing conditions, or sum(col) instead of col + col + …"
    )]
    TooDeep {
        /// The depth reached when counting stopped (at most `limit + 1`).
        depth: usize,
        /// The limit.
        limit: usize,
    },
}

/// Checks `sql` against `limits` in `dialect`, from its tokens alone: no
/// tree is built and nothing recurses, however the text is shaped.
///
/// The measured depth is an upper bound of the depth sqlparser's tree would
/// have: every infix operator or infix keyword adds one level to the
/// expression it continues, every parenthesis, bracket or CASE one more, and
/// a comma, semicolon or `WHEN`/`THEN`/`ELSE` (where no operator chain can
/// continue) starts a new expression. A text that does not tokenize is left
/// to the parser, which reports it with its position.
pub fn check_sql(
    sql: &str,
    dialect: &dyn Dialect,
    limits: &SqlLimits,
) -> Result<(), SqlLimitError> {
    if sql.len() > limits.max_bytes {
        return Err(SqlLimitError::TooLong {
            bytes: sql.len(),
            limit: limits.max_bytes,
        });
    }
    let Ok(tokens) = Tokenizer::new(dialect, sql).tokenize() else {
        return Ok(());
    };
    let too_deep = |depth: usize| {
        (depth > limits.max_depth).then_some(SqlLimitError::TooDeep {
            depth,
            limit: limits.max_depth,
        })
    };
    // The open groups, innermost last; the outermost is the statement.
    let mut groups = vec![Group::default()];
    for token in &tokens {
        let current = groups.len() - 1;
        match classify(token) {
            TokenRole::Operand => {}
            TokenRole::Separator => groups[current].end_expression(),
            TokenRole::Open => groups.push(Group::default()),
            TokenRole::Close if current > 0 => {
                if let Some(closed) = groups.pop() {
                    let parent = &mut groups[current - 1];
                    parent.add_operand(closed.depth());
                    if let Some(error) = too_deep(parent.chain_depth()) {
                        return Err(error);
                    }
                }
            }
            // A closing token without an opening one: the parser refuses it.
            TokenRole::Close => {}
            TokenRole::Operator => {
                groups[current].operators += 1;
                if let Some(error) = too_deep(groups[current].chain_depth()) {
                    return Err(error);
                }
            }
        }
    }
    // Groups left open (the parser will refuse the text) still build trees
    // up to where it stops: fold them as if closed.
    let mut depth = 0;
    while let Some(mut group) = groups.pop() {
        group.add_operand(depth);
        depth = group.depth();
    }
    too_deep(depth).map_or(Ok(()), Err)
}

/// One parenthesis, bracket, brace or CASE being read.
#[derive(Default)]
struct Group {
    /// Infix operators of the expression being read: each is one level
    /// above every operand before it.
    operators: usize,
    /// The deepest operand (a closed group) of the expression being read.
    deepest_operand: usize,
    /// The deepest expression already ended in this group.
    deepest_expression: usize,
}

impl Group {
    /// The depth of the expression being read, as far as it goes: at most
    /// one level per operator above its deepest operand.
    fn chain_depth(&self) -> usize {
        self.operators + self.deepest_operand
    }

    fn add_operand(&mut self, depth: usize) {
        self.deepest_operand = self.deepest_operand.max(depth);
    }

    fn end_expression(&mut self) {
        self.deepest_expression = self.deepest_expression.max(self.chain_depth());
        self.operators = 0;
        self.deepest_operand = 0;
    }

    /// The group's depth as an operand: its deepest expression, plus one.
    fn depth(mut self) -> usize {
        self.end_expression();
        self.deepest_expression + 1
    }
}

/// The bytes `value` serializes to as compact JSON, counted without
/// building the text: how every byte budget (`result_bytes`,
/// `message_bytes`, recipe outputs) measures an answer.
pub fn json_bytes(value: &impl serde::Serialize) -> usize {
    struct Counter(usize);
    impl std::io::Write for Counter {
        fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
            self.0 += buf.len();
            Ok(buf.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    let mut counter = Counter(0);
    // Writing to a counter cannot fail; a value that does not serialize
    // counts as what was written before it stopped.
    let _ = serde_json::to_writer(&mut counter, value);
    counter.0
}

/// Runs `f` with at least [`STACK_BUDGET_BYTES`] of stack, on a fresh
/// segment when the current thread has less left.
pub fn with_stack_budget<R>(f: impl FnOnce() -> R) -> R {
    stacker::maybe_grow(STACK_BUDGET_BYTES, STACK_BUDGET_BYTES, f)
}

enum TokenRole {
    /// A name or a literal: a leaf of the tree.
    Operand,
    /// Ends one expression and starts the next at the same level.
    Separator,
    /// Opens a nested expression.
    Open,
    /// Closes the innermost nested expression.
    Close,
    /// Continues an expression one level deeper.
    Operator,
}

/// Keywords sqlparser reads as infix (or postfix) operators: each continues
/// the expression before it, one level deeper. From sqlparser's
/// `get_next_precedence` and `parse_infix`, plus set operations.
const INFIX_KEYWORDS: &[Keyword] = &[
    Keyword::OR,
    Keyword::AND,
    Keyword::XOR,
    Keyword::AT,
    Keyword::NOT,
    Keyword::IS,
    Keyword::IN,
    Keyword::BETWEEN,
    Keyword::OVERLAPS,
    Keyword::LIKE,
    Keyword::ILIKE,
    Keyword::RLIKE,
    Keyword::REGEXP,
    Keyword::MATCH,
    Keyword::GLOB,
    Keyword::SIMILAR,
    Keyword::MEMBER,
    Keyword::OPERATOR,
    Keyword::DIV,
    Keyword::MOD,
    Keyword::NOTNULL,
    Keyword::COLLATE,
    Keyword::ESCAPE,
    Keyword::UNION,
    Keyword::EXCEPT,
    Keyword::INTERSECT,
    Keyword::MINUS,
];

fn classify(token: &Token) -> TokenRole {
    match token {
        Token::Word(word) => match word.keyword {
            // Quoted words are identifiers, whatever they spell.
            _ if word.quote_style.is_some() => TokenRole::Operand,
            Keyword::CASE => TokenRole::Open,
            Keyword::END => TokenRole::Close,
            Keyword::WHEN | Keyword::THEN | Keyword::ELSE => TokenRole::Separator,
            keyword if INFIX_KEYWORDS.contains(&keyword) => TokenRole::Operator,
            _ => TokenRole::Operand,
        },
        Token::Comma | Token::SemiColon => TokenRole::Separator,
        // `a.b.c` and `f(x).y.z` are one node holding a list of parts.
        Token::Period => TokenRole::Operand,
        Token::LParen | Token::LBracket | Token::LBrace => TokenRole::Open,
        Token::RParen | Token::RBracket | Token::RBrace => TokenRole::Close,
        Token::EOF
        | Token::Whitespace(_)
        | Token::Number(..)
        | Token::Char(_)
        | Token::Placeholder(_)
        | Token::SingleQuotedString(_)
        | Token::DoubleQuotedString(_)
        | Token::TripleSingleQuotedString(_)
        | Token::TripleDoubleQuotedString(_)
        | Token::DollarQuotedString(_)
        | Token::SingleQuotedByteStringLiteral(_)
        | Token::DoubleQuotedByteStringLiteral(_)
        | Token::TripleSingleQuotedByteStringLiteral(_)
        | Token::TripleDoubleQuotedByteStringLiteral(_)
        | Token::SingleQuotedRawStringLiteral(_)
        | Token::DoubleQuotedRawStringLiteral(_)
        | Token::TripleSingleQuotedRawStringLiteral(_)
        | Token::TripleDoubleQuotedRawStringLiteral(_)
        | Token::NationalStringLiteral(_)
        | Token::QuoteDelimitedStringLiteral(_)
        | Token::NationalQuoteDelimitedStringLiteral(_)
        | Token::EscapedStringLiteral(_)
        | Token::UnicodeStringLiteral(_)
        | Token::HexStringLiteral(_) => TokenRole::Operand,
        // Every other token is punctuation sqlparser may read as an
        // operator (arithmetic, comparison, casts, JSON and array access).
        _ => TokenRole::Operator,
    }
}

#[cfg(test)]
mod tests {
    use sqlparser::dialect::{GenericDialect, PostgreSqlDialect, SQLiteDialect};

    use super::*;

    fn depth_error(sql: &str) -> Option<SqlLimitError> {
        check_sql(sql, &SQLiteDialect {}, &SqlLimits::default()).err()
    }

    fn chain(first: &str, op: &str, terms: usize) -> String {
        let mut sql = String::from(first);
        for _ in 1..terms {
            sql.push_str(op);
            sql.push_str(first);
        }
        sql
    }

    #[test]
    fn long_flat_chains_of_every_operator_are_refused_before_parsing() {
        for op in [
            " OR ",
            " AND ",
            "+",
            "-",
            "*",
            "/",
            "%",
            "||",
            "=",
            "<",
            "::",
            " IS ",
            " LIKE ",
            " COLLATE ",
            " UNION SELECT ",
        ] {
            let sql = format!("SELECT {}", chain("1", op, 5_000));
            let err = depth_error(&sql).unwrap_or_else(|| panic!("`{op}` chain accepted"));
            assert!(
                matches!(err, SqlLimitError::TooDeep { limit: 1000, .. }),
                "{op}: {err}"
            );
            assert!(err.to_string().contains("IN (1, 2, …)"), "{err}");
        }
    }

    #[test]
    fn ordinary_queries_long_lists_and_case_pass() {
        let in_list = format!(
            "SELECT * FROM t WHERE id IN ({})",
            (0..100_000)
                .map(|i| i.to_string())
                .collect::<Vec<_>>()
                .join(",")
        );
        assert_eq!(depth_error(&in_list), None);
        let ors = format!("SELECT * FROM t WHERE {}", chain("id = 7", " OR ", 400));
        assert_eq!(depth_error(&ors), None);
        let case = format!(
            "SELECT CASE {} ELSE 0 END FROM t",
            (0..2_000)
                .map(|i| format!("WHEN a = {i} AND b > 1 THEN {i}"))
                .collect::<Vec<_>>()
                .join(" ")
        );
        assert_eq!(depth_error(&case), None);
        let many_columns = format!(
            "SELECT {} FROM t",
            (0..5_000)
                .map(|i| format!("a + b * {i} AS c{i}"))
                .collect::<Vec<_>>()
                .join(", ")
        );
        assert_eq!(depth_error(&many_columns), None);
    }

    #[test]
    fn nesting_adds_the_chains_of_every_enclosing_expression() {
        // Each level chains 30 operators inside parentheses: 40 levels of
        // 31 are past 1000 although no single chain is long.
        let mut sql = String::from("1");
        for _ in 0..40 {
            sql = format!("{} + ({sql})", chain("1", "+", 30));
        }
        assert!(depth_error(&format!("SELECT {sql}")).is_some());
        // Closing a group returns to the enclosing depth.
        let siblings = format!(
            "SELECT {}",
            chain(&format!("({})", chain("1", "+", 900)), ", ", 50)
        );
        assert_eq!(depth_error(&siblings), None);
    }

    #[test]
    fn the_byte_limit_comes_first_and_names_its_setting() {
        let limits = SqlLimits {
            max_bytes: 10,
            ..SqlLimits::default()
        };
        let err = check_sql("SELECT 1, 2, 3", &GenericDialect {}, &limits).unwrap_err();
        assert_eq!(
            err,
            SqlLimitError::TooLong {
                bytes: 14,
                limit: 10
            }
        );
        assert!(err.to_string().contains("limits.sql_bytes"));
    }

    #[test]
    fn quoted_keywords_and_strings_are_operands() {
        let sql = format!(
            "SELECT {} FROM t",
            chain("\"or\" || 'a OR b AND c'", " , ", 3_000)
        );
        assert_eq!(
            check_sql(&sql, &PostgreSqlDialect {}, &SqlLimits::default()),
            Ok(())
        );
    }

    #[test]
    fn text_that_does_not_tokenize_is_left_to_the_parser() {
        assert_eq!(depth_error("SELECT 'unterminated"), None);
    }

    #[test]
    fn the_stack_budget_holds_a_deep_recursion_on_a_small_thread() {
        fn down(n: usize) -> usize {
            let pad = [n as u8; 512];
            if n == 0 {
                0
            } else {
                std::hint::black_box(&pad);
                down(n - 1) + pad[0] as usize % 2
            }
        }
        let handle = std::thread::Builder::new()
            .stack_size(256 * 1024)
            .spawn(|| with_stack_budget(|| down(20_000)))
            .unwrap();
        assert!(handle.join().is_ok());
    }

    #[test]
    fn deeply_nested_yaml_is_refused_by_the_parser_budget() {
        let path = std::path::Path::new("lore.yaml");
        for text in [
            format!("search: {}{}", "[".repeat(100_000), "]".repeat(100_000)),
            format!(
                "search:{}",
                (1..5_000)
                    .map(|i| format!("\n{}k: ", " ".repeat(i)))
                    .collect::<String>()
            ),
        ] {
            let err = crate::config::parse_config(&text, path).unwrap_err();
            assert!(err.to_string().contains("lore.yaml"), "{err}");
        }
    }

    #[test]
    fn configured_limits_are_checked() {
        let path = std::path::Path::new("lore.yaml");
        let loaded = crate::config::parse_config("limits:\n  sql_depth: 50\n", path).unwrap();
        assert_eq!(loaded.config.limits.max_depth, 50);
        assert_eq!(loaded.config.limits.max_bytes, DEFAULT_MAX_SQL_BYTES);
        for bad in [
            "limits:\n  sql_depth: 0\n",
            "limits:\n  sql_depth: 50000\n",
            "limits:\n  sql_bytes: 10\n",
        ] {
            let err = crate::config::parse_config(bad, path).unwrap_err();
            assert!(err.to_string().contains("limits.sql_"), "{err}");
        }
    }
}

#[cfg(test)]
mod fuzz {
    use proptest::prelude::*;
    use sqlparser::dialect::GenericDialect;

    use super::*;

    proptest! {
        #[test]
        fn measuring_any_text_never_fails(text in "\\PC{0,2000}") {
            let _ = check_sql(&text, &GenericDialect {}, &SqlLimits::default());
        }
    }
}
