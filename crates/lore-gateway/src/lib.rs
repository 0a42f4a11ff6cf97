//! Lore's knowledge gateway: what agents working in a codebase ask of it.
//! Which code is this issue about, what does this subsystem hold, what
//! changed.
//!
//! A project lists the folders to read under `gateway.roots` in
//! `lore.yaml`. [`ingest`] walks each root (honouring its ignore files,
//! reporting binary and oversized files), classifies every file
//! ([`classify`]: code, test, doc, config; its language; its subsystem
//! from a [`subsystem`] catalog or its folders), splits it into chunks
//! ([`chunk`]) and indexes them ([`index`]) incrementally. [`search`]
//! ranks chunks for a query with filters applied before ranking.
//!
//! Everything lives under `.lore/gateway/` (index, ledgers, run records):
//! derived from the files, rebuilt when lost. Nothing here knows MCP.

pub mod chunk;
pub mod classify;
pub mod index;
pub mod ingest;
pub mod search;
pub mod subsystem;
pub mod walk;

use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use lore_core::ErrorReport;
use lore_core::config::GatewayConfig;
use lore_core::project::Project;

pub use ingest::{IngestRequest, IngestRun, Root};
pub use search::{SearchFilters, SearchRequest, SearchResponse};

/// The gateway of one project.
pub struct Gateway {
    project_root: PathBuf,
    state: PathBuf,
    config: GatewayConfig,
    roots: Vec<Root>,
    index: Mutex<Option<Arc<index::GatewayIndex>>>,
}

impl Gateway {
    /// The gateway of a loaded project.
    pub fn for_project(project: &Project) -> Gateway {
        Gateway {
            project_root: project.root.clone(),
            state: ingest::state_dir(&project.state_dir()),
            config: project.config.gateway.clone(),
            roots: ingest::resolve_roots(&project.root, &project.config.gateway),
            index: Mutex::new(None),
        }
    }

    /// The configured roots.
    pub fn roots(&self) -> &[Root] {
        &self.roots
    }

    /// Whether the project has any root to read.
    pub fn is_configured(&self) -> bool {
        !self.roots.is_empty()
    }

    /// Ingests every root (or the files `request.paths` names), reporting
    /// (done, total) files per root. Blocking.
    pub fn ingest(
        &self,
        request: &IngestRequest,
        progress: &mut dyn FnMut(u64, u64),
    ) -> Result<IngestRun, ErrorReport> {
        let run = ingest::ingest(
            &self.project_root,
            &self.state,
            &self.config,
            &self.roots,
            request,
            progress,
        )?;
        // The next search opens the index anew (a rebuilt one included).
        *self.index.lock().unwrap_or_else(|p| p.into_inner()) = None;
        Ok(run)
    }

    /// The newest run (of `profile`, when given).
    pub fn last_run(&self, profile: Option<&str>) -> Option<IngestRun> {
        ingest::last_run(&self.state, profile)
    }

    /// Searches the chunks. Blocking.
    pub fn search(&self, request: &SearchRequest) -> Result<SearchResponse, ErrorReport> {
        search::check_request(request)?;
        let index = {
            let mut slot = self.index.lock().unwrap_or_else(|p| p.into_inner());
            match slot.as_ref() {
                Some(index) => Arc::clone(index),
                None => {
                    let index = Arc::new(index::GatewayIndex::open(&self.state.join("index"))?);
                    *slot = Some(Arc::clone(&index));
                    index
                }
            }
        };
        let run_id = self.last_run(None).filter(|r| r.success).map(|r| r.run_id);
        search::search(&index, request, run_id)
    }
}
