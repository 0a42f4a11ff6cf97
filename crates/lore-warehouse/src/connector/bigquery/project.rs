//! What a connection test and a scan ask of the project itself: whether
//! it answers and the service account may write (`server_info`), and which
//! datasets there are (`datasets.list`).

use super::rest::{self, encode};
use super::settings::{DatasetRef, Settings, human_bytes};
use super::{ApiCallError, BigqueryConnector, WRITE_PERMISSIONS, bad_answer, internal};
use crate::connector::{RowLimit, ServerInfo};
use crate::error::WarehouseError;

impl BigqueryConnector {
    /// Checks that the project answers and whether the service account can
    /// change the tables it sees.
    pub(crate) async fn server_info(&self) -> Result<ServerInfo, WarehouseError> {
        self.run("SELECT 1", RowLimit::rows(1)).await?;
        let resolved = self.resolve()?;
        let settings = &resolved.settings;
        let datasets = self.datasets().await?;
        let mut checked = 0;
        let mut writable = Vec::new();
        for dataset in &datasets {
            let project = dataset.project.as_deref().unwrap_or(&settings.project);
            let url = format!(
                "{}/projects/{}/datasets/{}/tables?maxResults=1",
                settings.endpoint,
                encode(project),
                encode(&dataset.dataset)
            );
            let text = self
                .call(&resolved, url, None)
                .await
                .map_err(|e| self.classify_dataset(e, settings, project, &dataset.dataset))?;
            let list: rest::TableList = serde_json::from_str(&text).map_err(bad_answer)?;
            let Some(table) = list.tables.first() else {
                continue;
            };
            let reference = &table.table_reference;
            let url = format!(
                "{}/projects/{}/datasets/{}/tables/{}:testIamPermissions",
                settings.endpoint,
                encode(&reference.project_id),
                encode(&reference.dataset_id),
                encode(&reference.table_id)
            );
            let body = serde_json::to_string(&rest::Permissions {
                permissions: WRITE_PERMISSIONS.iter().map(|p| p.to_string()).collect(),
            })
            .map_err(internal)?;
            let text = self
                .call(&resolved, url, Some(body))
                .await
                .map_err(|e| self.classify(e, settings))?;
            let granted: rest::Permissions = serde_json::from_str(&text).map_err(bad_answer)?;
            checked += 1;
            if !granted.permissions.is_empty() {
                writable.push(format!(
                    "{}.{} ({})",
                    reference.dataset_id,
                    reference.table_id,
                    granted.permissions.join(", ")
                ));
            }
        }
        let scope = format!(
            "{} dataset{}",
            datasets.len(),
            if datasets.len() == 1 { "" } else { "s" }
        );
        let roles = if writable.is_empty() {
            format!("no write permission on the {checked} table(s) checked")
        } else {
            format!(
                "the service account may write to {}: grant it only BigQuery Data Viewer and Job User",
                writable.join("; ")
            )
        };
        Ok(ServerInfo {
            version: format!(
                "BigQuery (project {}, {scope}{}, at most {} billed per query; {roles})",
                settings.project,
                settings
                    .location
                    .as_deref()
                    .map(|l| format!(", location {l}"))
                    .unwrap_or_default(),
                human_bytes(settings.maximum_bytes_billed),
            ),
            read_only: writable.is_empty(),
            encrypted: Some(settings.endpoint.starts_with("https://")),
        })
    }

    fn classify_dataset(
        &self,
        e: ApiCallError,
        settings: &Settings,
        project: &str,
        dataset: &str,
    ) -> WarehouseError {
        match &e {
            ApiCallError::Api(api) if api.status == 404 && !api.message.contains("roject") => {
                WarehouseError::Unusable {
                    id: self.id.clone(),
                    message: format!(
                        "dataset `{project}.{dataset}` does not exist ({}); fix datasets= in the url",
                        api.message
                    ),
                }
            }
            _ => self.classify(e, settings),
        }
    }

    /// The datasets a scan reads: the url's, else every dataset of the
    /// project (`datasets.list`).
    pub async fn datasets(&self) -> Result<Vec<DatasetRef>, WarehouseError> {
        let resolved = self.resolve()?;
        let settings = &resolved.settings;
        if let Some(datasets) = &settings.datasets {
            return Ok(datasets.clone());
        }
        let mut datasets = Vec::new();
        let mut page: Option<String> = None;
        loop {
            let mut url = format!(
                "{}/projects/{}/datasets?maxResults=1000",
                settings.endpoint,
                encode(&settings.project)
            );
            if let Some(token) = &page {
                url.push_str(&format!("&pageToken={}", encode(token)));
            }
            let text = self
                .call(&resolved, url, None)
                .await
                .map_err(|e| self.classify(e, settings))?;
            let list: rest::DatasetList = serde_json::from_str(&text).map_err(bad_answer)?;
            for item in list.datasets {
                let in_location = match (&settings.location, &item.location) {
                    (Some(wanted), Some(actual)) => wanted.eq_ignore_ascii_case(actual),
                    _ => true,
                };
                if in_location {
                    datasets.push(DatasetRef {
                        project: None,
                        dataset: item.dataset_reference.dataset_id,
                    });
                }
            }
            page = list.next_page_token.filter(|t| !t.is_empty());
            if page.is_none() {
                break;
            }
        }
        datasets.sort_by(|a, b| a.dataset.cmp(&b.dataset));
        Ok(datasets)
    }
}
