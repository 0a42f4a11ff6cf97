//! LookML explores → joins: each explore's join lands on the view its
//! condition starts from (`sql_on`, or `foreign_key` to the target's
//! primary key), under an alias when it joins a view by another name
//! (`from:`); joins to views that were not imported are dropped and said
//! so.

use lore_semantic::model::{Cardinality, JoinSpec, SourceSpec};

use super::{Items, get_text, plain_sql};
use crate::{ImportReport, Outcome};

/// Every explore's joins, on the sources of the views they start from.
pub(super) fn explore_joins(
    explores: &[(String, Items)],
    sources: &mut [SourceSpec],
    report: &mut ImportReport,
) {
    for (explore_name, items) in explores {
        // An explore named otherwise than its view says which (`from:`,
        // `view_name:`); its joins' conditions may name it either way.
        let base = get_text(items, "from")
            .or(get_text(items, "view_name"))
            .unwrap_or(explore_name)
            .to_string();
        for (key, value) in items {
            if key != "join" {
                continue;
            }
            let Some((Some(target), body)) = value.block() else {
                continue;
            };
            let explore = Explore {
                name: explore_name,
                base: &base,
            };
            explore.join(target, body, sources, report);
        }
    }
}

/// An explore: its name and the view it starts from.
struct Explore<'a> {
    name: &'a str,
    base: &'a str,
}

impl Explore<'_> {
    /// One `join: alias { … }` of the explore.
    fn join(
        &self,
        alias: &str,
        body: &Items,
        sources: &mut [SourceSpec],
        report: &mut ImportReport,
    ) {
        let explore = self.base;
        let full = format!("{explore}.{alias}");
        // `join: repeat_orders { from: orders … }` joins `orders` under the
        // alias `repeat_orders`.
        let target = get_text(body, "from").map_or_else(|| alias.to_string(), str::to_string);
        let Some(on) = self.condition(alias, &target, body, sources) else {
            report.push(
                "join",
                &full,
                Outcome::Skipped,
                "a join without sql_on, or whose foreign_key's target has no primary key",
            );
            return;
        };
        let relationship = match get_text(body, "relationship").unwrap_or("many_to_one") {
            "many_to_one" => Cardinality::ManyToOne,
            "one_to_many" => Cardinality::OneToMany,
            "one_to_one" => Cardinality::OneToOne,
            other => {
                report.push(
                    "join",
                    &full,
                    Outcome::Skipped,
                    format!("relationship `{other}` has no Lore equivalent"),
                );
                return;
            }
        };
        let from = self.declaring_view(&on, alias);
        let on = on.replace(&format!("${{{}.", self.name), &format!("${{{explore}."));
        let Some(source) = sources.iter_mut().find(|s| s.name == from) else {
            report.push(
                "join",
                &full,
                Outcome::Skipped,
                format!("view {from} was not imported"),
            );
            return;
        };
        if source
            .joins
            .iter()
            .any(|j| j.alias.as_ref().unwrap_or(&j.to) == alias)
        {
            report.push(
                "join",
                &full,
                Outcome::Imported,
                format!("already joined from {from}"),
            );
            return;
        }
        source.joins.push(JoinSpec {
            to: target.clone(),
            on: plain_sql(&on, &from),
            relationship,
            alias: (alias != target).then(|| alias.to_string()),
        });
        report.push(
            "join",
            &full,
            Outcome::Imported,
            format!("join {from} → {target}"),
        );
    }

    /// The join's condition: `sql_on`, else `foreign_key: dim`, which joins
    /// the target's primary key to `dim` of the explore's view (or of
    /// `view.dim`).
    fn condition(
        &self,
        alias: &str,
        target: &str,
        body: &Items,
        sources: &[SourceSpec],
    ) -> Option<String> {
        if let Some(on) = get_text(body, "sql_on") {
            return Some(on.to_string());
        }
        let fk = get_text(body, "foreign_key")?;
        let (view, field) = fk.split_once('.').unwrap_or((self.base, fk));
        let key = sources
            .iter()
            .find(|s| s.name == target)?
            .grain
            .first()?
            .clone();
        Some(format!("${{{view}.{field}}} = ${{{alias}.{key}}}"))
    }

    /// The view the condition names besides the joined one, which
    /// declares the join (the explore's view when it names none).
    fn declaring_view(&self, on: &str, alias: &str) -> String {
        let mut from = None;
        let mut rest = on;
        while let Some(start) = rest.find("${") {
            let end = rest[start..].find('}').map_or(rest.len(), |e| start + e);
            if let Some((view, _)) = rest[start + 2..end].split_once('.')
                && view != alias
                && from.is_none()
            {
                from = Some(view.to_string());
            }
            rest = &rest[end..];
        }
        let from = from.unwrap_or_else(|| self.base.to_string());
        if from == self.name {
            self.base.to_string()
        } else {
            from
        }
    }
}

/// Joins to views that were not imported (native derived tables Lore
/// could not write, views of other projects) are dropped, and said so.
pub(super) fn drop_dangling_joins(sources: &mut [SourceSpec], report: &mut ImportReport) {
    let names: Vec<String> = sources.iter().map(|s| s.name.clone()).collect();
    for source in sources.iter_mut() {
        let (kept, dropped): (Vec<JoinSpec>, Vec<JoinSpec>) = std::mem::take(&mut source.joins)
            .into_iter()
            .partition(|j| names.contains(&j.to));
        for join in dropped {
            report.push(
                "join",
                &format!("{} → {}", source.name, join.to),
                Outcome::Skipped,
                format!("view {} was not imported", join.to),
            );
        }
        source.joins = kept;
    }
}
