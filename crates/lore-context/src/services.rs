//! The composition root: every service of one project, wired in one
//! place, so the MCP server and the CLI's commands call services built the
//! same way over the same shared parts (one store handle and change feed,
//! one catalog, one model cache, one wiki and model-file mirror).
//!
//! The knowledge gateway sits beside this crate, not under it: a front end
//! builds it from the same store handle
//! (`Gateway::for_project(project).with_store(Arc::clone(&services.store))`).

use std::sync::Arc;

use lore_core::project::Project;
use lore_semantic::model::ModelCache;
use lore_store::feed::{ChangeFeed, StoreHandle};
use lore_warehouse::catalog::Catalog;
use lore_warehouse::execute::Warehouses;

use crate::discover::Discover;
use crate::memory::ingest::MemoryIngest;
use crate::memory::query::MemorySearch;
use crate::memory::service::Memory;
use crate::semantic::files::SemanticFiles;
use crate::wiki::Wiki;

/// One project's services. Building them opens nothing: connections,
/// the store and the search index open on first use.
pub struct Services {
    /// The configured connections (pools open on first query).
    pub warehouses: Arc<Warehouses>,
    /// Scan snapshots under `.lore/catalog/`.
    pub catalog: Arc<Catalog>,
    /// The semantic layer's sources, reloaded when their files change.
    pub models: Arc<ModelCache>,
    /// The knowledge store (`.lore/store.db` or `store.url`).
    pub store: Arc<StoreHandle>,
    /// Its change feed: committed writes, for subscriptions and mirrors.
    pub feed: Arc<ChangeFeed>,
    /// Wiki pages kept in the store, mirrored to `wiki/`.
    pub wiki: Arc<Wiki>,
    /// Semantic-layer files kept in the store, mirrored to their folder.
    pub model_files: Arc<SemanticFiles>,
    /// `memory_ingest`.
    pub ingest: Arc<MemoryIngest>,
    /// The ranked search over schema, semantic layer and wiki.
    pub discover: Arc<Discover>,
    /// The memory toolset's service.
    pub memory: Arc<Memory>,
}

impl Services {
    /// The services a command uses: the search index is refreshed when
    /// read, nothing watches the project's files.
    pub fn for_project(project: &Project) -> Services {
        Services::build(project, false)
    }

    /// The services a long-running server uses: as
    /// [`Services::for_project`], and the search index follows the
    /// project's files as they change.
    pub fn serving(project: &Project) -> Services {
        Services::build(project, true)
    }

    fn build(project: &Project, watch: bool) -> Services {
        let warehouses = Arc::new(Warehouses::for_project(project));
        let catalog = Arc::new(Catalog::new(&project.root));
        let models = Arc::new(ModelCache::new(&project.semantic_layer_dir()));
        let store = Arc::new(StoreHandle::for_project(project));
        let feed = Arc::new(ChangeFeed::new(Arc::clone(&store)));
        let wiki = Arc::new(Wiki::for_project(project, Some(Arc::clone(&store))));
        let model_files = Arc::new(SemanticFiles::new(project, Some(Arc::clone(&store))));
        let ingest = Arc::new(MemoryIngest::new(
            project,
            Arc::clone(&store),
            Arc::clone(&wiki),
            Arc::clone(&model_files),
            Arc::clone(&catalog),
        ));
        let mut discover =
            Discover::for_project(project, Arc::clone(&catalog), Arc::clone(&models))
                .with_wiki(Arc::clone(&wiki))
                .with_model_files(Arc::clone(&model_files));
        if watch {
            discover = discover.with_watch(&project.root);
        }
        let discover = Arc::new(discover);
        let memory = Arc::new(
            Memory::new(Arc::clone(&store), Arc::clone(&feed))
                .with_search(Arc::new(MemorySearch::new(Arc::clone(&discover)))),
        );
        Services {
            warehouses,
            catalog,
            models,
            store,
            feed,
            wiki,
            model_files,
            ingest,
            discover,
            memory,
        }
    }
}
