//! The memory resources: `knowledge://entries`, `knowledge://graph/triples`
//! and `knowledge://history/transactions`, read in pages pinned to one
//! transaction. Arguments travel in the URI's query string
//! (`knowledge://entries?topic=deployment&limit=50&cursor=…`), and single
//! items have their own URIs (`knowledge://entries/e-42`).

use lore_core::ErrorReport;
use lore_store::{EntryQuery, HistoryQuery, TripleQuery, TxId};
use rmcp::model::{MetaObject, Resource, ResourceContents, ResourceTemplate};
use serde::Serialize;

use lore_store::feed::StoreHandle;

/// All entries.
pub const ENTRIES_URI: &str = "knowledge://entries";
/// All graph triples.
pub const TRIPLES_URI: &str = "knowledge://graph/triples";
/// The transaction log.
pub const HISTORY_URI: &str = "knowledge://history/transactions";

/// Version of the JSON shape the resources return; bumped only on an
/// incompatible change.
pub const RESOURCE_FORMAT_VERSION: i64 = 1;

/// `base?k=v&…` with the given (present) arguments, URL-encoded.
pub fn uri_with_query(base: &str, args: &[(&str, Option<String>)]) -> String {
    let mut query = form_urlencoded::Serializer::new(String::new());
    let mut any = false;
    for (key, value) in args {
        if let Some(value) = value {
            query.append_pair(key, value);
            any = true;
        }
    }
    if any {
        format!("{base}?{}", query.finish())
    } else {
        base.to_string()
    }
}

/// Whether `uri` names something a client can subscribe to: one of the
/// three collections (with or without a query) or one entry or triple.
pub fn is_subscribable(uri: &str) -> bool {
    let path = uri.split('?').next().unwrap_or(uri);
    [ENTRIES_URI, TRIPLES_URI, HISTORY_URI].contains(&path)
        || path
            .strip_prefix(&format!("{ENTRIES_URI}/"))
            .is_some_and(|id| id.starts_with("e-"))
        || path
            .strip_prefix(&format!("{TRIPLES_URI}/"))
            .is_some_and(|id| id.starts_with("t-"))
}

/// Whether a read of `uri` is pinned to one transaction (`as_of_tx_id`),
/// and so never changes.
pub fn is_pinned(uri: &str) -> bool {
    uri.split_once('?').is_some_and(|(_, query)| {
        query.split('&').any(|pair| {
            pair.strip_prefix("as_of_tx_id=")
                .is_some_and(|v| v.parse::<u64>().is_ok())
        })
    })
}

/// The three resources of `resources/list`.
pub fn list(head: Option<TxId>) -> Vec<Resource> {
    [
        (
            ENTRIES_URI,
            "entries",
            "Knowledge entries",
            "Every current memory entry, most recently changed first. Query arguments: text, topic, tags (comma-separated), min_confidence, as_of_tx_id, limit (1-200), cursor. Read one entry at knowledge://entries/{id}.",
        ),
        (
            TRIPLES_URI,
            "graph-triples",
            "Knowledge graph triples",
            "Every current relation subject —predicate→ object, newest first. Query arguments: subject, predicate, object, as_of_tx_id, limit (1-200), cursor. Read one at knowledge://graph/triples/{id}.",
        ),
        (
            HISTORY_URI,
            "history-transactions",
            "Transaction log",
            "Every committed transaction, newest first, with the ids it changed. Query arguments: id, since_tx_id (oldest first after it), limit (1-200), cursor.",
        ),
    ]
    .into_iter()
    .map(|(uri, name, title, description)| {
        let mut meta = serde_json::Map::new();
        meta.insert("version".into(), RESOURCE_FORMAT_VERSION.into());
        if let Some(head) = head {
            meta.insert("as_of_tx_id".into(), head.into());
        }
        Resource::new(uri, name)
            .with_title(title)
            .with_description(description)
            .with_mime_type("application/json")
            .with_meta(MetaObject(meta))
    })
    .collect()
}

/// The URI templates of `resources/templates/list`.
pub fn templates() -> Vec<ResourceTemplate> {
    [
        (
            "knowledge://entries/{id}",
            "entry",
            "One knowledge entry by id (e.g. e-42); add ?as_of_tx_id=N for a past version.",
        ),
        (
            "knowledge://entries{?text,topic,tags,min_confidence,as_of_tx_id,limit,cursor}",
            "entries-query",
            "Entries matching words, a topic prefix, tags or a confidence floor, paged.",
        ),
        (
            "knowledge://graph/triples/{id}",
            "triple",
            "One relation by id (e.g. t-7).",
        ),
        (
            "knowledge://graph/triples{?subject,predicate,object,as_of_tx_id,limit,cursor}",
            "triples-query",
            "Relations filtered by subject, predicate or object, paged.",
        ),
        (
            "knowledge://history/transactions{?id,since_tx_id,limit,cursor}",
            "history-query",
            "Transactions of one id, or after a transaction, paged.",
        ),
    ]
    .into_iter()
    .map(|(template, name, description)| {
        ResourceTemplate::new(template, name)
            .with_description(description)
            .with_mime_type("application/json")
    })
    .collect()
}

/// Why a resource read failed: the URI names nothing, or its arguments or
/// the store are wrong.
pub enum ReadError {
    /// No such resource.
    UnknownUri(String),
    /// A bad argument or a store failure, in the public error shape.
    Report(ErrorReport),
}

impl From<ErrorReport> for ReadError {
    fn from(report: ErrorReport) -> Self {
        ReadError::Report(report)
    }
}

#[derive(Serialize)]
struct PageBody<T: Serialize> {
    resource_uri: String,
    as_of_tx_id: TxId,
    items: Vec<T>,
    next_cursor: Option<String>,
}

/// Reads a resource URI into its JSON contents.
pub async fn read(store: &StoreHandle, uri: &str) -> Result<ResourceContents, ReadError> {
    let (path, query) = uri.split_once('?').unwrap_or((uri, ""));
    let args = Args::parse(query)?;
    let body = if path == ENTRIES_URI {
        args.allow(&[
            "text",
            "topic",
            "tags",
            "min_confidence",
            "as_of_tx_id",
            "limit",
            "cursor",
        ])?;
        let query = EntryQuery {
            text: args.text("text"),
            topic: args.text("topic"),
            tags: args
                .text("tags")
                .map(|t| {
                    t.split(',')
                        .map(|s| s.trim().to_string())
                        .filter(|s| !s.is_empty())
                        .collect()
                })
                .unwrap_or_default(),
            min_confidence: args.number("min_confidence")?,
            kind: None,
            limit: args.number("limit")?,
            cursor: args.text("cursor"),
            as_of_tx_id: args.number("as_of_tx_id")?,
        };
        let page = store.run(move |s| s.query(&query)).await?;
        page_json(uri, page.as_of_tx_id, page.items, page.next_cursor)
    } else if path == TRIPLES_URI {
        args.allow(&[
            "subject",
            "predicate",
            "object",
            "as_of_tx_id",
            "limit",
            "cursor",
        ])?;
        let query = TripleQuery {
            subject: args.text("subject"),
            predicate: args.text("predicate"),
            object: args.text("object"),
            limit: args.number("limit")?,
            cursor: args.text("cursor"),
            as_of_tx_id: args.number("as_of_tx_id")?,
        };
        let page = store.run(move |s| s.list_triples(&query)).await?;
        page_json(uri, page.as_of_tx_id, page.items, page.next_cursor)
    } else if path == HISTORY_URI {
        args.allow(&["id", "since_tx_id", "limit", "cursor", "as_of_tx_id"])?;
        let query = HistoryQuery {
            id: args.text("id"),
            since_tx_id: args.number("since_tx_id")?,
            limit: args.number("limit")?,
            cursor: args.text("cursor"),
            as_of_tx_id: args.number("as_of_tx_id")?,
        };
        let page = store.run(move |s| s.history(&query)).await?;
        page_json(uri, page.as_of_tx_id, page.items, page.next_cursor)
    } else if let Some(id) = path
        .strip_prefix(&format!("{ENTRIES_URI}/"))
        .or_else(|| path.strip_prefix(&format!("{TRIPLES_URI}/")))
    {
        args.allow(&["as_of_tx_id"])?;
        let as_of: Option<TxId> = args.number("as_of_tx_id")?;
        let id = id.to_string();
        let (item, head) = store
            .run(move |s| {
                let head = as_of.map_or_else(|| s.head(), Ok)?;
                Ok((s.get(&id, Some(head))?, head))
            })
            .await?;
        serde_json::json!({"resource_uri": uri, "as_of_tx_id": head, "item": item}).to_string()
    } else {
        return Err(ReadError::UnknownUri(uri.to_string()));
    };
    Ok(ResourceContents::text(body, uri).with_mime_type("application/json"))
}

fn page_json<T: Serialize>(
    uri: &str,
    as_of: TxId,
    items: Vec<T>,
    next_cursor: Option<String>,
) -> String {
    serde_json::to_string(&PageBody {
        resource_uri: uri.to_string(),
        as_of_tx_id: as_of,
        items,
        next_cursor,
    })
    .unwrap_or_default()
}

/// Decoded query-string arguments.
struct Args(Vec<(String, String)>);

impl Args {
    fn parse(query: &str) -> Result<Args, ErrorReport> {
        Ok(Args(
            form_urlencoded::parse(query.as_bytes())
                .into_owned()
                .collect(),
        ))
    }

    fn allow(&self, known: &[&str]) -> Result<(), ErrorReport> {
        match self.0.iter().find(|(k, _)| !known.contains(&k.as_str())) {
            Some((key, _)) => Err(invalid(format!(
                "unknown argument `{key}`; this resource takes {}",
                known.join(", ")
            ))),
            None => Ok(()),
        }
    }

    fn text(&self, key: &str) -> Option<String> {
        self.0
            .iter()
            .rev()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v.clone())
    }

    fn number<T: std::str::FromStr>(&self, key: &str) -> Result<Option<T>, ErrorReport> {
        match self.text(key) {
            None => Ok(None),
            Some(value) => value
                .parse()
                .map(Some)
                .map_err(|_| invalid(format!("`{key}` must be a number, got `{value}`"))),
        }
    }
}

fn invalid(message: String) -> ErrorReport {
    ErrorReport::new(lore_core::ErrorCode::InvalidRequest, message)
}
