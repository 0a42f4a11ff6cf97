//! What the guard refuses in DuckDB beyond the other dialects.
//!
//! DuckDB reads files wherever a table name looks like one: `FROM
//! 'events.csv'`, `FROM "s3://bucket/x.parquet"`, `FROM "logs/*.json"` are
//! scans of files (its *replacement scans*), not of tables. A table
//! reference whose name holds a path or URL, a glob, is a string, or ends
//! in a quoted name with a file extension is refused here; file-reading
//! table functions are on the deny-list (`deny.rs`). An unquoted `data.csv`
//! reads table `csv` of schema `data` when it exists and is left to the
//! engine, which Lore opens with `enable_external_access = false` (it then
//! refuses every file and network access itself).
//!
//! DuckDB statements sqlparser does not know (`EXPORT DATABASE`, `IMPORT
//! DATABASE`, `FORCE CHECKPOINT`, …) would otherwise be reported as SQL
//! that does not parse; when such a statement starts with a verb that
//! writes, loads or changes settings, it is reported as what it is.

use sqlparser::ast::{ObjectName, ObjectNamePart};
use sqlparser::dialect::Dialect;
use sqlparser::tokenizer::{Token, Tokenizer};

/// File extensions DuckDB's replacement scans read as tables.
const FILE_EXTENSIONS: &[&str] = &[
    "csv", "tsv", "tbl", "txt", "parquet", "json", "jsonl", "ndjson", "geojson", "xlsx", "arrow",
    "feather", "ipc", "avro", "orc", "gz", "zst", "bz2", "xz", "db", "duckdb", "ddb", "sqlite",
    "sqlite3",
];

/// Leading verbs of statements that write, load code or data, reach files
/// or change the session, including those sqlparser cannot parse.
const WRITING_VERBS: &[&str] = &[
    "ATTACH",
    "DETACH",
    "INSTALL",
    "LOAD",
    "FORCE",
    "COPY",
    "EXPORT",
    "IMPORT",
    "PRAGMA",
    "SET",
    "RESET",
    "CALL",
    "CHECKPOINT",
    "VACUUM",
    "USE",
    "INSERT",
    "UPDATE",
    "DELETE",
    "CREATE",
    "DROP",
    "ALTER",
    "TRUNCATE",
    "COMMENT",
    "MERGE",
    "BEGIN",
    "COMMIT",
    "ROLLBACK",
    "PREPARE",
    "EXECUTE",
    "DEALLOCATE",
];

/// Why a table reference reads a file, when it does.
pub(super) fn file_scan(name: &ObjectName) -> Option<String> {
    let parts: Vec<(&str, Option<char>)> = name
        .0
        .iter()
        .map(|part| match part {
            ObjectNamePart::Identifier(ident) => Some((ident.value.as_str(), ident.quote_style)),
            _ => None,
        })
        .collect::<Option<_>>()?;
    let joined = parts
        .iter()
        .map(|(value, _)| *value)
        .collect::<Vec<_>>()
        .join(".");
    let path_like = joined.contains(['/', '\\', '*', '?']) || joined.contains("://");
    let string_literal = parts.iter().any(|(_, quote)| *quote == Some('\''));
    let quoted_file_name = match parts.last() {
        Some((value, Some(_))) => value
            .rsplit_once('.')
            .is_some_and(|(_, ext)| FILE_EXTENSIONS.contains(&ext.to_ascii_lowercase().as_str())),
        _ => false,
    };
    (path_like || string_literal || quoted_file_name).then(|| {
        let shown: String = joined.chars().take(80).collect();
        format!("reading the file or URL '{shown}' as a table")
    })
}

/// The verb of a statement the parser refused, when that verb writes,
/// loads or changes settings (`EXPORT DATABASE`, `FORCE CHECKPOINT`).
pub(super) fn unparsed_write(sql: &str, dialect: &dyn Dialect) -> Option<String> {
    let tokens = Tokenizer::new(dialect, sql).tokenize().ok()?;
    let first = tokens.iter().find_map(|token| match token {
        Token::Whitespace(_) | Token::LParen => None,
        Token::Word(word) if word.quote_style.is_none() => {
            Some(Some(word.value.to_ascii_uppercase()))
        }
        _ => Some(None),
    })??;
    WRITING_VERBS.contains(&first.as_str()).then_some(first)
}

#[cfg(test)]
mod tests {
    use super::*;
    use sqlparser::ast::Ident;
    use sqlparser::dialect::DuckDbDialect;

    fn name(parts: &[(&str, Option<char>)]) -> ObjectName {
        ObjectName(
            parts
                .iter()
                .map(|(value, quote)| {
                    ObjectNamePart::Identifier(match quote {
                        Some(q) => Ident::with_quote(*q, *value),
                        None => Ident::new(*value),
                    })
                })
                .collect(),
        )
    }

    #[test]
    fn paths_urls_globs_and_quoted_file_names_are_file_scans() {
        for scan in [
            name(&[("events.csv", Some('\''))]),
            name(&[("events.parquet", Some('"'))]),
            name(&[("s3://bucket/x", Some('"'))]),
            name(&[("logs/2024", Some('"'))]),
            name(&[("main", None), ("*.json", Some('"'))]),
            name(&[("main", None), ("f.csv", Some('"'))]),
        ] {
            assert!(file_scan(&scan).is_some(), "{scan}");
        }
    }

    #[test]
    fn tables_and_schemas_are_not_file_scans() {
        for table in [
            name(&[("accounts", None)]),
            name(&[("main", None), ("accounts", None)]),
            name(&[("Weird Name", Some('"'))]),
            name(&[("v1.2", Some('"'))]),
            // Table `json` of schema `raw`: the engine decides.
            name(&[("raw", None), ("json", None)]),
        ] {
            assert_eq!(file_scan(&table), None, "{table}");
        }
    }

    #[test]
    fn unparsed_statements_are_named_by_their_verb() {
        let dialect = DuckDbDialect {};
        assert_eq!(
            unparsed_write("-- x\n  export database '/tmp/x'", &dialect).as_deref(),
            Some("EXPORT")
        );
        assert_eq!(unparsed_write("SELEC 1", &dialect), None);
        assert_eq!(unparsed_write("\"export\" 1", &dialect), None);
    }
}
