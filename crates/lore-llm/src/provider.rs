//! An embedding provider as a search lane uses it: the client of
//! [`Embedder`], the API key resolved once, a breaker that leaves a
//! failing provider alone for [`RETRY_AFTER`] (so no search waits on a
//! dead provider twice), and the vectors of recent queries in memory.
//! Vectors come back scaled to length 1, so a dot product is the cosine.
//! Errors are plain messages: a lane that cannot run is skipped with the
//! reason, it never fails the search.

use std::collections::HashMap;
use std::path::Path;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use lore_core::config::EmbeddingsConfig;

use crate::Embedder;

/// How long a failed provider is left alone.
pub const RETRY_AFTER: Duration = Duration::from_secs(30);

/// Query vectors kept in memory.
const QUERY_CACHE: usize = 256;

/// One embedding provider, guarded.
pub struct Provider {
    /// The client, or why there is none (an unresolvable API key).
    embedder: Result<Embedder, String>,
    model: String,
    batch: usize,
    /// Until when the provider is left alone, and why.
    down: Mutex<Option<(Instant, String)>>,
    queries: Mutex<HashMap<String, Arc<[f32]>>>,
}

impl Provider {
    /// The provider `config` describes; its API key is resolved now
    /// relative to `project_dir` (a missing variable leaves the provider
    /// unusable, with that message).
    pub fn new(config: &EmbeddingsConfig, project_dir: &Path) -> Provider {
        let key = config
            .api_key
            .as_ref()
            .map(|k| k.resolve("search.embeddings.api_key", project_dir))
            .transpose();
        let embedder = key
            .map(|key| Embedder::new(config, key))
            .map_err(|e| e.to_string());
        let model = embedder
            .as_ref()
            .map(Embedder::cache_model)
            .unwrap_or_else(|_| config.model.clone());
        Provider {
            embedder,
            model,
            batch: config.batch_size(),
            down: Mutex::new(None),
            queries: Mutex::new(HashMap::new()),
        }
    }

    /// The name vectors are cached under (the model, and its size).
    pub fn model(&self) -> &str {
        &self.model
    }

    /// Texts per request.
    pub fn batch_size(&self) -> usize {
        self.batch
    }

    /// Whether the provider may be asked now (or why not).
    pub fn ready(&self) -> Result<(), String> {
        self.embedder().map(|_| ())
    }

    /// One vector per text, in order, as the provider gives them (not
    /// normalised: callers cache them so). A failure trips the breaker.
    pub fn embed(&self, texts: &[String]) -> Result<Vec<Vec<f32>>, String> {
        let embedder = self.embedder()?;
        embedder.embed(texts).map_err(|e| self.fail(e.to_string()))
    }

    /// The normalised vector of a query, from memory or the provider.
    pub fn query(&self, text: &str) -> Result<Arc<[f32]>, String> {
        let key = text.trim().to_lowercase();
        if let Some(v) = self
            .queries
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .get(&key)
        {
            return Ok(Arc::clone(v));
        }
        let vector = self
            .embed(&[text.trim().to_string()])?
            .pop()
            .and_then(|v| normalized(&v))
            .ok_or_else(|| {
                self.fail("the provider returned a zero vector for the query".to_string())
            })?;
        let vector: Arc<[f32]> = vector.into();
        let mut queries = self.queries.lock().unwrap_or_else(|p| p.into_inner());
        if queries.len() >= QUERY_CACHE {
            queries.clear();
        }
        queries.insert(key, Arc::clone(&vector));
        Ok(vector)
    }

    /// The client, unless it could not be built or the provider failed a
    /// moment ago.
    fn embedder(&self) -> Result<&Embedder, String> {
        let embedder = self.embedder.as_ref().map_err(Clone::clone)?;
        let mut down = self.down.lock().unwrap_or_else(|p| p.into_inner());
        if let Some((until, reason)) = down.as_ref() {
            let now = Instant::now();
            if now < *until {
                return Err(format!(
                    "{reason} (retrying in {} s)",
                    (*until - now).as_secs().max(1)
                ));
            }
            *down = None;
        }
        Ok(embedder)
    }

    /// Records a provider failure: it is left alone for [`RETRY_AFTER`].
    fn fail(&self, reason: String) -> String {
        tracing::info!(reason = %reason, "embedding lane skipped");
        *self.down.lock().unwrap_or_else(|p| p.into_inner()) =
            Some((Instant::now() + RETRY_AFTER, reason.clone()));
        reason
    }
}

/// `vector` scaled to length 1 (so a dot product is the cosine); none for
/// a zero vector.
pub fn normalized(vector: &[f32]) -> Option<Vec<f32>> {
    let norm = vector.iter().map(|x| x * x).sum::<f32>().sqrt();
    (norm > 0.0 && norm.is_finite()).then(|| vector.iter().map(|x| x / norm).collect())
}
