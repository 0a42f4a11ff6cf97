//! `completion/complete`: suggestions for a prompt's argument or a resource
//! template's variable, by prefix. Topics, tags, ids and graph nodes come
//! from the memory's completion service
//! ([`lore_context::memory::completion`]); connection ids from the project's
//! configuration. Arguments that take free text (a task, a cursor, a
//! number) are known and answered with no suggestions, as is a prompt or
//! template Lore does not have; an unknown argument of one of Lore's is an
//! invalid-params error naming what exists.

use lore_context::memory::completion::{Completions, MemoryField};
use lore_store::feed::StoreHandle;
use rmcp::ErrorData as McpError;
use rmcp::model::{CompleteRequestParams, CompleteResult, CompletionInfo, Reference};

use super::{prompts, resources};

/// Where an argument's suggestions come from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Source {
    Memory(MemoryField),
    /// A comma-separated list of tags: the last one is completed.
    TagList,
    Connections,
    /// Free text or a number: nothing to suggest.
    None,
}

/// What a prompt argument completes from.
fn prompt_source(argument: &str) -> Source {
    match argument {
        "topic" => Source::Memory(MemoryField::Topic),
        "connection" => Source::Connections,
        _ => Source::None,
    }
}

/// What a resource template variable completes from.
fn template_source(template_name: &str, variable: &str) -> Source {
    match (template_name, variable) {
        ("entry", "id") => Source::Memory(MemoryField::EntryId),
        ("triple", "id") => Source::Memory(MemoryField::TripleId),
        ("history-query", "id") => Source::Memory(MemoryField::AnyId),
        (_, "topic") => Source::Memory(MemoryField::Topic),
        (_, "tags") => Source::TagList,
        (_, "subject") => Source::Memory(MemoryField::Subject),
        (_, "predicate") => Source::Memory(MemoryField::Predicate),
        (_, "object") => Source::Memory(MemoryField::Object),
        _ => Source::None,
    }
}

/// The variable names of an RFC 6570 URI template (`{id}`,
/// `{?text,topic}`).
fn template_variables(template: &str) -> Vec<&str> {
    template
        .split('{')
        .skip(1)
        .filter_map(|part| part.split_once('}').map(|(vars, _)| vars))
        .flat_map(|vars| {
            vars.trim_start_matches(['?', '&', '/', '#', '+'])
                .split(',')
        })
        .collect()
}

/// Answers one `completion/complete` request.
pub async fn complete(
    store: &StoreHandle,
    connections: &[String],
    request: CompleteRequestParams,
) -> Result<CompleteResult, McpError> {
    let argument = request.argument.name.as_str();
    let source = match &request.r#ref {
        Reference::Prompt(prompt) => {
            // A prompt Lore does not have: nothing to suggest (clients
            // and conformance suites ask about their own prompts).
            let Some(names) = prompts::argument_names(&prompt.name) else {
                return Ok(CompleteResult::default());
            };
            if !names.contains(&argument) {
                return Err(unknown_argument(argument, &prompt.name, &names));
            }
            prompt_source(argument)
        }
        Reference::Resource(reference) => {
            let Some(template) = resources::templates()
                .into_iter()
                .find(|t| t.uri_template == reference.uri)
            else {
                return Ok(CompleteResult::default());
            };
            let names = template_variables(&template.uri_template);
            if !names.contains(&argument) {
                return Err(unknown_argument(argument, &reference.uri, &names));
            }
            template_source(&template.name, argument)
        }
        _ => {
            return Err(McpError::invalid_params(
                "unknown reference type; use ref/prompt or ref/resource",
                None,
            ));
        }
    };
    let typed = request.argument.value;
    let completions = match source {
        Source::None => Completions::default(),
        Source::Connections => Completions::matching(connections, &typed, false),
        Source::Memory(field) => memory(store, field, typed).await?,
        Source::TagList => {
            // `finance,o` completes the last tag and keeps the others.
            let (head, last) = match typed.rsplit_once(',') {
                Some((head, last)) => (format!("{head},"), last.trim_start().to_string()),
                None => (String::new(), typed),
            };
            let mut tags = memory(store, MemoryField::Tag, last).await?;
            for value in &mut tags.values {
                value.insert_str(0, &head);
            }
            tags
        }
    };
    let info = CompletionInfo::with_pagination(
        completions.values,
        Some(u32::try_from(completions.total).unwrap_or(u32::MAX)),
        completions.has_more,
    )
    .map_err(|e| McpError::internal_error(e, None))?;
    Ok(CompleteResult::new(info))
}

async fn memory(
    store: &StoreHandle,
    field: MemoryField,
    prefix: String,
) -> Result<Completions, McpError> {
    store
        .run(move |s| lore_context::memory::completion::complete(s, field, &prefix))
        .await
        .map_err(|report| {
            McpError::internal_error(report.message.clone(), serde_json::to_value(&report).ok())
        })
}

fn unknown_argument(argument: &str, of: &str, names: &[&str]) -> McpError {
    McpError::invalid_params(
        format!(
            "`{of}` has no argument `{argument}`; its arguments are {}",
            names.join(", ")
        ),
        None,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_template_variable_is_read_from_the_listed_templates() {
        assert_eq!(template_variables("knowledge://entries/{id}"), ["id"]);
        assert_eq!(
            template_variables("knowledge://graph/triples{?subject,predicate,object,limit}"),
            ["subject", "predicate", "object", "limit"]
        );
        for template in resources::templates() {
            assert!(!template_variables(&template.uri_template).is_empty());
        }
    }
}
