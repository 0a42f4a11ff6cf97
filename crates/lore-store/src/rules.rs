//! What a version may hold, checked the same way by every backend: the
//! validation and normalisation of what writers send, the one-line
//! summaries the transaction log shows, and the refusals (stale expected
//! versions, undo conflicts) whose wording users and agents rely on.

use crate::error::StoreError;
use crate::model::limits;
use crate::model::*;

/// The fields of an entry version, validated and normalised.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct EntryState {
    pub kind: EntryKind,
    pub topic: String,
    pub content: String,
    pub confidence: f64,
    pub tags: Vec<String>,
    pub source: Option<String>,
}

impl EntryState {
    /// Checks and normalises a new entry.
    pub fn from_new(entry: NewEntry) -> Result<EntryState, StoreError> {
        let kind = entry.kind.unwrap_or(EntryKind::Note);
        Ok(EntryState {
            kind,
            topic: check_topic(&entry.topic)?,
            content: check_content(&entry.content, kind)?,
            confidence: check_confidence(entry.confidence)?,
            tags: normalise_tags(&entry.tags)?,
            source: check_source(entry.source)?,
        })
    }

    /// The state of a stored version.
    pub fn of(entry: &Entry) -> EntryState {
        EntryState {
            kind: entry.kind,
            topic: entry.topic.clone(),
            content: entry.content.clone(),
            confidence: entry.confidence,
            tags: entry.tags.clone(),
            source: entry.source.clone(),
        }
    }
}

pub(crate) fn check_topic(topic: &str) -> Result<String, StoreError> {
    let topic = topic.trim();
    if topic.is_empty() {
        return Err(StoreError::Invalid(
            "topic must not be empty: name what the entry is about, e.g. \"deployment\""
                .to_string(),
        ));
    }
    if topic.chars().count() > limits::TOPIC_CHARS {
        return Err(StoreError::Invalid(format!(
            "topic is longer than {} characters; keep it a short subject and put details in content",
            limits::TOPIC_CHARS
        )));
    }
    Ok(topic.to_string())
}

pub(crate) fn check_content(content: &str, kind: EntryKind) -> Result<String, StoreError> {
    if content.trim().is_empty() {
        return Err(StoreError::Invalid(
            "content must not be empty: state the fact to remember".to_string(),
        ));
    }
    let max = limits::content_bytes(kind);
    if content.len() > max {
        return Err(StoreError::Invalid(format!(
            "content is {} bytes, more than the {max} allowed for a {}; split it into several entries",
            content.len(),
            kind.as_str()
        )));
    }
    Ok(content.to_string())
}

pub(crate) fn check_confidence(confidence: Option<f64>) -> Result<f64, StoreError> {
    match confidence {
        None => Ok(1.0),
        Some(c) if (0.0..=1.0).contains(&c) => Ok(c),
        Some(c) => Err(StoreError::Invalid(format!(
            "confidence must be between 0 and 1, got {c}"
        ))),
    }
}

pub(crate) fn check_source(source: Option<String>) -> Result<Option<String>, StoreError> {
    match source.map(|s| s.trim().to_string()) {
        Some(s) if s.is_empty() => Ok(None),
        Some(s) if s.chars().count() > limits::SOURCE_CHARS => Err(StoreError::Invalid(format!(
            "source is longer than {} characters",
            limits::SOURCE_CHARS
        ))),
        other => Ok(other),
    }
}

pub(crate) fn check_node(field: &str, value: &str) -> Result<String, StoreError> {
    let value = value.trim();
    if value.is_empty() {
        return Err(StoreError::Invalid(format!("{field} must not be empty")));
    }
    if value.chars().count() > limits::NODE_CHARS {
        return Err(StoreError::Invalid(format!(
            "{field} is longer than {} characters",
            limits::NODE_CHARS
        )));
    }
    Ok(value.to_string())
}

/// `text` cut to `max` characters with an ellipsis.
pub(crate) fn clip(text: &str, max: usize) -> String {
    let line = text.split_whitespace().collect::<Vec<_>>().join(" ");
    if line.chars().count() <= max {
        line
    } else {
        format!("{}…", line.chars().take(max).collect::<String>())
    }
}

/// The fields of a triple version.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct TripleState {
    pub subject: String,
    pub predicate: String,
    pub object: String,
    pub confidence: f64,
    pub properties: Option<serde_json::Map<String, serde_json::Value>>,
}

impl TripleState {
    /// Checks and normalises a new relation.
    pub fn from_new(triple: NewTriple) -> Result<TripleState, StoreError> {
        Ok(TripleState {
            subject: check_node("subject", &triple.subject)?,
            predicate: check_node("predicate", &triple.predicate)?,
            object: check_node("object", &triple.object)?,
            confidence: check_confidence(triple.confidence)?,
            properties: triple.properties,
        })
    }

    /// The state of a stored version.
    pub fn of(triple: &Triple) -> TripleState {
        TripleState {
            subject: triple.subject.clone(),
            predicate: triple.predicate.clone(),
            object: triple.object.clone(),
            confidence: triple.confidence,
            properties: triple.properties.clone(),
        }
    }
}

/// A `conflict` unless the live entry of `topic` (`None`: there is none,
/// version 0) is at `expected` (when one is expected).
pub(crate) fn check_expected_version(
    topic: &str,
    live: Option<&Entry>,
    expected: Option<i64>,
) -> Result<(), StoreError> {
    let found = live.map_or(0, |c| c.version);
    match expected {
        Some(expected) if expected != found => {
            let message = match live {
                Some(c) => format!(
                    "\"{topic}\" is at version {} (changed in transaction {}), not the expected version {expected}; read it again and reapply your change",
                    c.version, c.tx_id
                ),
                None => format!(
                    "\"{topic}\" does not exist, so it is not at the expected version {expected}; omit the expected version to create it"
                ),
            };
            Err(StoreError::Conflict {
                message,
                ids: live.iter().map(|c| c.id.clone()).collect(),
            })
        }
        _ => Ok(()),
    }
}

/// Refuses a patch that changes nothing it could.
pub(crate) fn check_patch(patch: &EntryPatch) -> Result<(), StoreError> {
    if patch.topic.is_none()
        && patch.content.is_none()
        && patch.confidence.is_none()
        && patch.tags.is_none()
        && patch.source.is_none()
    {
        return Err(StoreError::Invalid(
            "nothing to update: give at least one of content, topic, confidence, tags".to_string(),
        ));
    }
    Ok(())
}

/// `current` with `patch` applied and checked, or a `conflict` when the
/// patch expects another version.
pub(crate) fn patched(current: &Entry, patch: &EntryPatch) -> Result<EntryState, StoreError> {
    if let Some(expected) = patch.expected_version
        && expected != current.version
    {
        return Err(StoreError::Conflict {
            message: format!(
                "entry {} is at version {} (changed in transaction {}), not the expected version {expected}; read it again and reapply your change",
                current.id, current.version, current.tx_id
            ),
            ids: vec![current.id.clone()],
        });
    }
    let mut state = EntryState::of(current);
    if let Some(topic) = &patch.topic {
        state.topic = check_topic(topic)?;
    }
    if let Some(content) = &patch.content {
        state.content = check_content(content, state.kind)?;
    }
    if patch.confidence.is_some() {
        state.confidence = check_confidence(patch.confidence)?;
    }
    if let Some(tags) = &patch.tags {
        state.tags = normalise_tags(tags)?;
    }
    if patch.source.is_some() {
        state.source = check_source(patch.source.clone())?;
    }
    Ok(state)
}

/// The transaction summary of an update: the fields it changed and the
/// start of the new content.
pub(crate) fn update_summary(current: &Entry, state: &EntryState) -> String {
    let mut changed = Vec::new();
    if state.topic != current.topic {
        changed.push("topic");
    }
    if state.content != current.content {
        changed.push("content");
    }
    if state.confidence != current.confidence {
        changed.push("confidence");
    }
    if state.tags != current.tags {
        changed.push("tags");
    }
    if state.source != current.source {
        changed.push("source");
    }
    format!(
        "updated {} v{} ({}): {}",
        current.id,
        current.version + 1,
        changed.join(", "),
        clip(&state.content, 80)
    )
}

/// The error for a row whose current version is gone (a damaged store).
pub(crate) fn missing(id: &str) -> StoreError {
    StoreError::Unavailable(format!(
        "the store has no current version of {id}; it may be damaged"
    ))
}

/// A write of [`crate::KnowledgeStore::put_many`], validated.
pub(crate) struct TopicChange {
    pub state: EntryState,
    pub expected_version: Option<i64>,
    pub remove: bool,
}

impl TopicChange {
    /// Checks the writes of one batch: each valid, none empty, no topic
    /// twice (whatever its case).
    pub fn batch(writes: Vec<TopicWrite>) -> Result<Vec<TopicChange>, StoreError> {
        let changes = writes
            .into_iter()
            .map(|w| {
                // A removal names its entry by kind and topic only.
                let entry = if w.remove && w.entry.content.trim().is_empty() {
                    NewEntry {
                        content: "-".to_string(),
                        ..w.entry
                    }
                } else {
                    w.entry
                };
                Ok(TopicChange {
                    state: EntryState::from_new(entry)?,
                    expected_version: w.expected_version,
                    remove: w.remove,
                })
            })
            .collect::<Result<Vec<_>, StoreError>>()?;
        if changes.is_empty() {
            return Err(StoreError::Invalid("nothing to write".to_string()));
        }
        let mut seen = std::collections::HashSet::new();
        for change in &changes {
            if !seen.insert((change.state.kind, change.state.topic.to_lowercase())) {
                return Err(StoreError::Refused(format!(
                    "\"{}\" is written twice in one batch; write each topic once",
                    change.state.topic
                )));
            }
        }
        Ok(changes)
    }

    /// Whether writing this change over `live` (the live entry of its
    /// topic) changes anything.
    pub fn changes(&self, live: &Option<Entry>) -> bool {
        match (self.remove, live) {
            (true, live) => live.is_some(),
            (false, Some(live)) => {
                let mut next = self.state.clone();
                next.topic = live.topic.clone();
                next != EntryState::of(live)
            }
            (false, None) => true,
        }
    }
}

/// A relation named by its three parts, checked.
pub(crate) type Spo = (String, String, String);

/// The relations a [`crate::KnowledgeStore::relate_many`] adds and
/// removes, checked: every node valid, no relation both added and
/// removed.
pub(crate) fn relate_plan(
    relate: Vec<NewTriple>,
    unrelate: Vec<TripleKey>,
) -> Result<(Vec<TripleState>, Vec<Spo>), StoreError> {
    let mut states = Vec::with_capacity(relate.len());
    let mut added = std::collections::HashSet::new();
    for triple in relate {
        let state = TripleState::from_new(triple)?;
        added.insert((
            state.subject.clone(),
            state.predicate.clone(),
            state.object.clone(),
        ));
        states.push(state);
    }
    let mut removals = Vec::with_capacity(unrelate.len());
    for key in unrelate {
        let spo = (
            check_node("subject", &key.subject)?,
            check_node("predicate", &key.predicate)?,
            check_node("object", &key.object)?,
        );
        if added.contains(&spo) {
            return Err(StoreError::Refused(format!(
                "the relation {} —{}→ {} is both added and removed; keep one",
                spo.0, spo.1, spo.2
            )));
        }
        removals.push(spo);
    }
    Ok((states, removals))
}

/// The refusal of an undo over later changes: `conflicts` are the rows
/// with the transaction that next changed each; `reverted_by` the newest
/// undo of `undone`, if any (then the message says it was undone).
pub(crate) fn undo_conflict(
    undone: TxId,
    reverted_by: Option<TxId>,
    conflicts: Vec<(String, TxId)>,
) -> StoreError {
    let listed = conflicts
        .iter()
        .take(20)
        .map(|(id, t)| format!("{id} (transaction {t})"))
        .collect::<Vec<_>>()
        .join(", ");
    let message = match reverted_by {
        Some(by) if conflicts.iter().any(|(_, t)| *t == by) => format!(
            "transaction {undone} was already undone by transaction {by}; undo {by} to redo it"
        ),
        _ => format!(
            "transaction {undone} cannot be undone cleanly: later transactions changed the same rows: {listed}. Undo those first (newest first), or pass force: true to restore the state from before transaction {undone} anyway"
        ),
    };
    StoreError::Conflict {
        message,
        ids: conflicts.into_iter().map(|(id, _)| id).collect(),
    }
}

/// The error when there is nothing to undo.
pub(crate) fn nothing_to_undo(undone: TxId) -> StoreError {
    StoreError::Refused(format!(
        "nothing to undo: the rows transaction {undone} changed already look as they did before it"
    ))
}
