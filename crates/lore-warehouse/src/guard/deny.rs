//! Functions a read-only query must not call, per dialect.
//!
//! Listed here: functions with side effects (sleeping, locking, sequences,
//! signalling other sessions, changing settings), functions that read or
//! write server files or reach the network, and functions that run SQL text
//! the guard never saw. Names are matched case-insensitively on the last part
//! of a qualified name; an entry ending in `*` matches a prefix.

use super::SqlDialect;

/// Denied whatever the dialect: file readers of engines such as DuckDB,
/// which have no legitimate use in a warehouse query.
const COMMON: &[&str] = &[
    "read_csv*",
    "read_parquet",
    "read_json*",
    "read_ndjson*",
    "read_text",
    "read_blob",
    "parquet_scan",
    "csv_scan",
    "glob",
];

const POSTGRES: &[&str] = &[
    "pg_sleep*",
    "pg_read_*",
    "pg_ls_*",
    "pg_stat_file",
    "pg_file_*",
    "lo_*",
    "lowrite",
    "loread",
    "dblink*",
    "nextval",
    "setval",
    "set_config",
    "pg_advisory*",
    "pg_try_advisory*",
    "pg_notify",
    "pg_cancel_backend",
    "pg_terminate_backend",
    "pg_reload_conf",
    "pg_rotate_logfile",
    "pg_switch_wal",
    "pg_create_restore_point",
    "pg_promote",
    "pg_backup_start",
    "pg_backup_stop",
    "pg_start_backup",
    "pg_stop_backup",
    "pg_logical_emit_message",
    "pg_create_*_replication_slot",
    "pg_drop_replication_slot",
    "pg_import_system_collations",
    "query_to_xml*",
    "cursor_to_xml*",
    "xpath_table",
    "txid_current",
    "pg_current_xact_id",
];

const MYSQL: &[&str] = &[
    "sleep",
    "benchmark",
    "load_file",
    "get_lock",
    "release_lock",
    "release_all_locks",
    "master_pos_wait",
    "source_pos_wait",
    "wait_for_executed_gtid_set",
    "sys_exec",
    "sys_eval",
];

const SQLITE: &[&str] = &[
    "load_extension",
    "readfile",
    "writefile",
    "edit",
    "fsdir",
    "zipfile",
    "fts3_tokenizer",
];

/// DuckDB: every reader of files and remote databases (the engine runs
/// with `enable_external_access = false` too), SQL run from text
/// (`query`, `query_table`, serialized plans), secrets, sequences and
/// checkpoints.
const DUCKDB: &[&str] = &[
    "read_*",
    "*_scan",
    "parquet_*",
    "sniff_csv",
    "iceberg_*",
    "delta_*",
    "sqlite_*",
    "postgres_*",
    "mysql_*",
    "st_read*",
    "query",
    "query_table",
    "json_execute_serialized_sql",
    "duckdb_secrets",
    "which_secret",
    "load_aws_credentials",
    "getenv",
    "nextval",
    "setval",
    "checkpoint",
    "force_checkpoint",
];

/// ClickHouse: sleeping, and the table functions that read files or reach
/// other servers (`readonly=1` refuses table functions before 20.x, but
/// later servers allow some of them).
const CLICKHOUSE: &[&str] = &[
    "sleep",
    "sleepeachrow",
    "file",
    "filecluster",
    "url",
    "urlcluster",
    "remote",
    "remotesecure",
    "cluster",
    "clusterallreplicas",
    "mysql",
    "postgresql",
    "odbc",
    "jdbc",
    "mongodb",
    "redis",
    "sqlite",
    "hdfs*",
    "s3*",
    "gcs",
    "oss",
    "cosn",
    "azureblobstorage*",
    "iceberg*",
    "deltalake*",
    "hudi*",
    "input",
    "executable*",
    "fuzzjson",
];

/// Snowflake: every `SYSTEM$` function (waiting, cancelling and aborting
/// queries and sessions, changing settings), and the functions that read
/// stages (files) or hand out links to them.
const SNOWFLAKE: &[&str] = &[
    "system$*",
    "infer_schema",
    "directory",
    "get_presigned_url",
    "build_scoped_file_url",
    "build_stage_file_url",
    "get_stage_location",
    "get_relative_path",
    "get_absolute_path",
    "nextval",
];

/// BigQuery: functions that reach other databases or remote models.
const BIGQUERY: &[&str] = &[
    // Sends SQL text the guard never saw to a Cloud SQL or Spanner
    // database, which may write.
    "external_query",
    // ML./AI. functions that call a remote model (cost, network).
    "generate_text",
    "generate_embedding",
    "generate_text_embedding",
    "generate_table",
    "generate",
    "generate_bool",
    "generate_double",
    "generate_int",
    "understand_text",
    "process_document",
    "transcribe",
    "annotate_image",
];

/// Whether `name` (lower case, unqualified) is denied in `dialect`.
pub(super) fn is_denied(dialect: SqlDialect, name: &str) -> bool {
    let dialect_list = match dialect {
        SqlDialect::Postgres => POSTGRES,
        SqlDialect::Mysql => MYSQL,
        SqlDialect::Sqlite => SQLITE,
        SqlDialect::Clickhouse => CLICKHOUSE,
        SqlDialect::Snowflake => SNOWFLAKE,
        SqlDialect::Bigquery => BIGQUERY,
        SqlDialect::Duckdb => DUCKDB,
    };
    COMMON
        .iter()
        .chain(dialect_list)
        .any(|entry| matches(entry, name))
}

fn matches(entry: &str, name: &str) -> bool {
    match entry.split_once('*') {
        None => entry == name,
        Some((prefix, suffix)) => {
            name.len() >= prefix.len() + suffix.len()
                && name.starts_with(prefix)
                && name.ends_with(suffix)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wildcards_match_prefix_and_suffix() {
        assert!(matches("pg_sleep*", "pg_sleep_for"));
        assert!(matches(
            "pg_create_*_replication_slot",
            "pg_create_logical_replication_slot"
        ));
        assert!(!matches(
            "pg_create_*_replication_slot",
            "pg_create_restore_point"
        ));
        assert!(!matches("sleep", "sleepy"));
    }

    #[test]
    fn lists_are_per_dialect() {
        assert!(is_denied(SqlDialect::Mysql, "sleep"));
        assert!(!is_denied(SqlDialect::Postgres, "sleep"));
        assert!(is_denied(SqlDialect::Sqlite, "read_csv_auto"));
        assert!(is_denied(SqlDialect::Bigquery, "external_query"));
        assert!(!is_denied(SqlDialect::Bigquery, "generate_array"));
        assert!(is_denied(SqlDialect::Duckdb, "read_xlsx"));
        assert!(is_denied(SqlDialect::Duckdb, "iceberg_scan"));
        assert!(!is_denied(SqlDialect::Duckdb, "date_trunc"));
        assert!(!is_denied(SqlDialect::Postgres, "query"));
    }
}
