//! `lore reindex`: rebuilds the search index (`.lore/index/`) from the
//! latest scans, the semantic-layer files and the knowledge store (wiki
//! pages, memory entries), and embeds every document still without a
//! vector when `search.embeddings` is configured.

use std::path::Path;
use std::time::Instant;

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
    let discover = lore_context::services::Services::for_project(&project).discover;
    let index = discover.refresh().map_err(|e| super::coded(&e))?;
    eprintln!(
        "Rebuilt {} in {:.1} s: {} documents.",
        dir.display(),
        started.elapsed().as_secs_f64(),
        index.len()
    );
    let started = Instant::now();
    let mut reported = 0;
    let embedded = discover.embed_all(|done, left| {
        if done - reported >= 500 || left == 0 {
            eprintln!("Embedded {done} documents ({left} to go)…");
            reported = done;
        }
    });
    match embedded {
        Ok(None) => {}
        Ok(Some(n)) => eprintln!(
            "Embeddings: {n} new vectors in {:.1} s (the others were cached).",
            started.elapsed().as_secs_f64()
        ),
        // Search works without the semantic lane: a warning, not a failure.
        Err(e) => eprintln!(
            "warning: embeddings skipped, search stays lexical: {} [{}]",
            e.message,
            e.code.as_str()
        ),
    }
    Ok(())
}
