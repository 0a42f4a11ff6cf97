//! `lore reindex`: rebuilds the search index (`.lore/index/`) from the
//! latest scans and the semantic-layer files.

use std::path::Path;
use std::sync::Arc;
use std::time::Instant;

use lore_mcp::discover::Discover;
use lore_semantic::model::ModelCache;
use lore_warehouse::catalog::Catalog;

pub fn run(project_dir: Option<&Path>) -> anyhow::Result<()> {
    let project = super::load_project(project_dir)?;
    let dir = project.index_dir();
    if dir.exists() {
        std::fs::remove_dir_all(&dir).map_err(|e| {
            anyhow::anyhow!(
                "cannot remove {}: {} [config_error]",
                dir.display(),
                e.kind()
            )
        })?;
    }
    let started = Instant::now();
    let discover = Discover::for_project(
        &project,
        Arc::new(Catalog::new(&project.root)),
        Arc::new(ModelCache::new(&project.semantic_layer_dir())),
    );
    let index = discover.refresh().map_err(|e| super::coded(&e))?;
    eprintln!(
        "Rebuilt {} in {:.1} s: {} documents.",
        dir.display(),
        started.elapsed().as_secs_f64(),
        index.len()
    );
    Ok(())
}
