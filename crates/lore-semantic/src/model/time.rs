//! The time column a measure runs along (cumulative, offset, non-additive
//! and conversion measures all need one).

use super::{ColumnType, SourceSpec};

/// The time column a cumulative or offset measure runs along: `time`
/// when given, else the source's column with `role: time`, else its only
/// time column.
pub(super) fn time_column(
    named: Option<&String>,
    source: &SourceSpec,
    field: &str,
) -> Result<String, String> {
    let times: Vec<&str> = source
        .columns
        .iter()
        .filter(|c| c.column_type == ColumnType::Time)
        .map(|c| c.name.as_str())
        .collect();
    Ok(match named {
        Some(t) => match source.columns.iter().find(|c| &c.name == t) {
            Some(col) if col.column_type == ColumnType::Time => t.clone(),
            Some(_) => {
                return Err(format!(
                    "`{t}` is not a time column, so the measure cannot run over it"
                ));
            }
            None => {
                return Err(format!(
                    "no column `{t}` to run over (declare it under columns with type time)"
                ));
            }
        },
        None => {
            let by_role: Vec<&str> = source
                .columns
                .iter()
                .filter(|c| c.column_type == ColumnType::Time && c.role.as_deref() == Some("time"))
                .map(|c| c.name.as_str())
                .collect();
            match (by_role.as_slice(), times.as_slice()) {
                ([one], _) | ([], [one]) => one.to_string(),
                ([], []) => {
                    return Err(
                        "the source has no time column to run over (declare one with type time)"
                            .into(),
                    );
                }
                _ => {
                    return Err(format!(
                        "name the time column it runs over with `time` ({field}.time), one of: {}",
                        times.join(", ")
                    ));
                }
            }
        }
    })
}
