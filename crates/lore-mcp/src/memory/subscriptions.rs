//! Resource subscriptions: the store's change feed turned into
//! `notifications/resources/updated` for the URIs a session subscribed to
//! (`resources/subscribe`, the handshake era) or a `subscriptions/listen`
//! stream accepted ([`listen`], 2026-07-28).

use super::resources::{ENTRIES_URI, HISTORY_URI, TRIPLES_URI};
use lore_store::feed::ChangeFeed;
use lore_store::{ChangeType, TxChanges, TxId};
use rmcp::model::{CustomNotification, ServerNotification};
use rmcp::{Peer, RoleServer};
use std::collections::BTreeSet;
use std::sync::Arc;
use tokio::sync::{Mutex, broadcast};

/// How many changed ids one notification lists before it says it was cut.
pub const NOTIFIED_IDS_CAP: usize = 50;

/// One session's resource subscriptions.
pub struct Subscriptions {
    /// Subscribed URIs. Notifications are sent while holding this lock and
    /// unsubscribe removes under it, so once an unsubscribe is acknowledged
    /// no notification for that URI can follow.
    uris: Arc<Mutex<BTreeSet<String>>>,
    started: tokio::sync::OnceCell<()>,
}

impl Default for Subscriptions {
    fn default() -> Self {
        Subscriptions {
            uris: Arc::default(),
            started: tokio::sync::OnceCell::new(),
        }
    }
}

impl Subscriptions {
    /// Adds `uri`; the first subscription starts this session's sender.
    pub async fn subscribe(&self, uri: String, feed: &ChangeFeed, peer: Peer<RoleServer>) {
        self.started
            .get_or_init(|| async {
                let receiver = feed.listen().await;
                tokio::spawn(send_notifications(Arc::clone(&self.uris), receiver, peer));
            })
            .await;
        self.uris.lock().await.insert(uri);
    }

    /// Removes `uri`; returns whether it was subscribed.
    pub async fn unsubscribe(&self, uri: &str) -> bool {
        self.uris.lock().await.remove(uri)
    }
}

async fn send_notifications(
    uris: Arc<Mutex<BTreeSet<String>>>,
    mut receiver: broadcast::Receiver<Arc<TxChanges>>,
    peer: Peer<RoleServer>,
) {
    loop {
        let notifications = match receiver.recv().await {
            Ok(change) => {
                let subscribed = uris.lock().await;
                let mut out = Vec::new();
                for uri in subscribed.iter() {
                    out.extend(notifications_for(uri, &change));
                }
                drop(subscribed);
                out
            }
            // Fell behind: tell every subscriber to re-read.
            Err(broadcast::error::RecvError::Lagged(_)) => uris
                .lock()
                .await
                .iter()
                .map(|u| ResourceChange::re_read(u))
                .collect(),
            Err(broadcast::error::RecvError::Closed) => return,
        };
        for notification in notifications {
            // Re-check under the lock: an unsubscribe acknowledged since
            // the change arrived wins.
            let subscribed = uris.lock().await;
            if !subscribed.contains(&notification.uri) {
                continue;
            }
            let sent = peer
                .send_notification(ServerNotification::CustomNotification(
                    CustomNotification::new(
                        "notifications/resources/updated",
                        Some(notification.to_params()),
                    ),
                ))
                .await;
            drop(subscribed);
            if sent.is_err() {
                return; // the session is gone
            }
        }
    }
}

/// Runs one `subscriptions/listen` stream (protocol 2026-07-28): every
/// transaction the feed sees — from this process, another process or
/// another server on the same store — becomes `notifications/resources/updated`
/// for the accepted URIs it touched (the memory contract's fields under
/// `_meta`), and `notifications/resources/list_changed` when the client
/// asked for it (the list's `as_of_tx_id` moved). Ends when the client
/// cancels or the connection goes.
pub async fn listen(
    context: rmcp::service::SubscriptionContext,
    feed: &ChangeFeed,
) -> Result<(), rmcp::ErrorData> {
    use rmcp::model::{
        ResourceListChangedNotification, ResourceUpdatedNotification,
        ResourceUpdatedNotificationParam,
    };
    let mut receiver = feed.listen().await;
    let accepted = context.accepted().clone();
    let uris: Vec<String> = accepted.resource_subscriptions.clone().unwrap_or_default();
    let list_changed = accepted.resources_list_changed == Some(true);
    loop {
        let change = tokio::select! {
            () = context.cancelled() => return Ok(()),
            change = receiver.recv() => change,
        };
        let changes: Vec<ResourceChange> = match change {
            Ok(change) => uris
                .iter()
                .flat_map(|uri| notifications_for(uri, &change))
                .collect(),
            Err(broadcast::error::RecvError::Lagged(_)) => {
                uris.iter().map(|u| ResourceChange::re_read(u)).collect()
            }
            Err(broadcast::error::RecvError::Closed) => return Ok(()),
        };
        let mut out: Vec<ServerNotification> = changes
            .iter()
            .map(|c| {
                let mut params = ResourceUpdatedNotificationParam::new(c.uri.clone());
                if let serde_json::Value::Object(fields) = c.to_params()["_meta"].clone() {
                    params.meta = Some(rmcp::model::NotificationMetaObject::from(
                        rmcp::model::MetaObject::from(fields),
                    ));
                }
                ServerNotification::ResourceUpdatedNotification(ResourceUpdatedNotification::new(
                    params,
                ))
            })
            .collect();
        if list_changed {
            out.push(ServerNotification::ResourceListChangedNotification(
                ResourceListChangedNotification::default(),
            ));
        }
        for notification in out {
            if context.sink().send(notification).await.is_err() {
                return Ok(()); // the stream or the connection is gone
            }
        }
    }
}

/// One `notifications/resources/updated`.
#[derive(Debug, Clone, PartialEq)]
pub struct ResourceChange {
    /// The subscribed URI.
    pub uri: String,
    /// The transaction that caused it (0 when the server fell behind and
    /// the client should re-read).
    pub tx_id: TxId,
    /// upsert or delete.
    pub change_type: ChangeType,
    /// What changed, at most [`NOTIFIED_IDS_CAP`].
    pub changed_ids: Vec<String>,
    /// `changed_ids` was cut.
    pub truncated: bool,
}

impl ResourceChange {
    /// "Read `uri` again": sent when the sender fell behind the feed and
    /// cannot say what changed.
    fn re_read(uri: &str) -> ResourceChange {
        ResourceChange {
            uri: uri.to_string(),
            tx_id: 0,
            change_type: ChangeType::Upsert,
            changed_ids: Vec::new(),
            truncated: true,
        }
    }

    /// The notification's params: MCP's `uri` plus the fields of the
    /// memory contract, repeated under `_meta` for SDKs that only keep
    /// `uri` and `_meta`.
    pub fn to_params(&self) -> serde_json::Value {
        let fields = serde_json::json!({
            "resource_uri": self.uri,
            "tx_id": self.tx_id,
            "change_type": self.change_type,
            "changed_ids": self.changed_ids,
            "changed_ids_truncated": self.truncated,
        });
        let mut params = fields.clone();
        params["uri"] = serde_json::json!(self.uri);
        params["_meta"] = fields;
        params
    }
}

/// The notifications a subscription to `uri` gets for one transaction:
/// one per change type, only when the transaction touched what the URI
/// shows. A URI with a query (`knowledge://entries?topic=x`) is notified
/// for every change of its collection; `knowledge://entries/e-42` only
/// for that entry.
pub fn notifications_for(uri: &str, change: &TxChanges) -> Vec<ResourceChange> {
    let path = uri.split('?').next().unwrap_or(uri);
    let (rows, only): (Vec<(String, ChangeType)>, Option<&str>) = if path == HISTORY_URI {
        (vec![(change.tx_id.to_string(), ChangeType::Upsert)], None)
    } else if path == ENTRIES_URI {
        (change.entries.clone(), None)
    } else if path == TRIPLES_URI {
        (change.triples.clone(), None)
    } else if let Some(id) = path.strip_prefix(&format!("{ENTRIES_URI}/")) {
        (change.entries.clone(), Some(id))
    } else if let Some(id) = path.strip_prefix(&format!("{TRIPLES_URI}/")) {
        (change.triples.clone(), Some(id))
    } else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for change_type in [ChangeType::Upsert, ChangeType::Delete] {
        let ids: Vec<String> = rows
            .iter()
            .filter(|(id, c)| *c == change_type && only.is_none_or(|o| o == id))
            .map(|(id, _)| id.clone())
            .collect();
        if ids.is_empty() {
            continue;
        }
        let truncated = ids.len() > NOTIFIED_IDS_CAP;
        out.push(ResourceChange {
            uri: uri.to_string(),
            tx_id: change.tx_id,
            change_type,
            changed_ids: ids.into_iter().take(NOTIFIED_IDS_CAP).collect(),
            truncated,
        });
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn change() -> TxChanges {
        TxChanges {
            tx_id: 7,
            entries: vec![
                ("e-1".into(), ChangeType::Upsert),
                ("e-2".into(), ChangeType::Delete),
            ],
            triples: vec![],
        }
    }

    #[test]
    fn a_transaction_notifies_only_the_resources_it_touched() {
        let entries = notifications_for("knowledge://entries", &change());
        assert_eq!(entries.len(), 2);
        assert_eq!(entries[0].changed_ids, ["e-1"]);
        assert_eq!(entries[1].change_type, ChangeType::Delete);
        assert!(notifications_for("knowledge://graph/triples", &change()).is_empty());
        let one = notifications_for("knowledge://entries/e-2", &change());
        assert_eq!(one.len(), 1);
        assert_eq!(one[0].change_type, ChangeType::Delete);
        let history = notifications_for("knowledge://history/transactions", &change());
        assert_eq!(history[0].changed_ids, ["7"]);
    }

    #[test]
    fn a_large_transaction_is_cut_and_says_so() {
        let big = TxChanges {
            tx_id: 1,
            entries: (0..80)
                .map(|i| (format!("e-{i}"), ChangeType::Upsert))
                .collect(),
            triples: vec![],
        };
        let n = notifications_for("knowledge://entries", &big);
        assert_eq!(n[0].changed_ids.len(), NOTIFIED_IDS_CAP);
        assert!(n[0].truncated);
        let params = n[0].to_params();
        assert_eq!(params["uri"], "knowledge://entries");
        assert_eq!(params["resource_uri"], "knowledge://entries");
        assert_eq!(params["change_type"], "upsert");
        assert_eq!(params["_meta"]["tx_id"], 1);
    }
}
