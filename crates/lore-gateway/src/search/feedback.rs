//! Feedback that ranks: agents vote on a search's results
//! (`km-feedback-submit`), and later searches with the same or similar
//! words raise what was found useful and lower what was not.
//!
//! A vote counts for a query in proportion to how alike the two queries'
//! words are (Jaccard similarity of their terms, from
//! [`MIN_SIMILARITY`] up), and halves every [`HALF_LIFE_DAYS`] days. Each
//! voter counts once per chunk (their most similar vote, the newest among
//! equals; a 0 withdraws an earlier one), and the sum over voters moves
//! the score by `1 + 0.5 · tanh(sum)`: one voter at most ×1.38 or ×0.62,
//! many voters at most ×1.5 or ×0.5. The factor shows as the `feedback`
//! signal.

use std::collections::{HashMap, HashSet};

use lore_core::time::UtcMillis;
use lore_search::tokenizer::query_terms;
use lore_store::Feedback;

/// The least similarity between two queries for a vote on one to count
/// for the other.
pub const MIN_SIMILARITY: f32 = 0.5;
/// Days after which a vote counts half.
pub const HALF_LIFE_DAYS: f32 = 30.0;
/// The most the sum of votes moves a score: ×(1 ± this).
pub const MAX_EFFECT: f32 = 0.5;

/// A vote, ready to be compared with queries.
#[derive(Debug, Clone)]
struct Vote {
    id: i64,
    terms: HashSet<String>,
    chunk_id: String,
    vote: i8,
    voter: String,
    at_ms: i64,
}

/// The votes the store holds, as ranking reads them.
#[derive(Debug, Clone, Default)]
pub struct FeedbackVotes {
    votes: Vec<Vote>,
    /// The newest feedback id read.
    pub last_id: i64,
}

/// The terms a query is compared by.
pub fn terms_of(query: &str) -> HashSet<String> {
    query_terms(&super::clean_query(query))
        .into_iter()
        .collect()
}

fn similarity(a: &HashSet<String>, b: &HashSet<String>) -> f32 {
    if a.is_empty() || b.is_empty() {
        return 0.0;
    }
    let shared = a.intersection(b).count();
    shared as f32 / (a.len() + b.len() - shared) as f32
}

impl FeedbackVotes {
    /// Adds feedback read from the store (in id order).
    pub fn extend(&mut self, feedback: Vec<Feedback>) {
        for f in feedback {
            self.last_id = self.last_id.max(f.id);
            self.votes.push(Vote {
                id: f.id,
                terms: terms_of(&f.query),
                at_ms: UtcMillis::parse_iso(&f.created_at).map_or(0, |t| t.0),
                chunk_id: f.chunk_id,
                vote: f.vote,
                voter: f.voter,
            });
        }
    }

    /// Whether there is any vote.
    pub fn is_empty(&self) -> bool {
        self.votes.is_empty()
    }

    /// The factor each voted chunk gets for a query of `terms`, as of
    /// `now_ms` (chunks whose votes cancel out or do not count are left
    /// out).
    pub fn boosts(&self, terms: &HashSet<String>, now_ms: i64) -> HashMap<String, f32> {
        // Per chunk and voter: (similarity, id, weighted vote).
        let mut best: HashMap<(&str, &str), (f32, i64, f32)> = HashMap::new();
        for vote in &self.votes {
            let alike = similarity(terms, &vote.terms);
            if alike < MIN_SIMILARITY {
                continue;
            }
            let age_days = (now_ms - vote.at_ms).max(0) as f32 / 86_400_000.0;
            let weight = f32::from(vote.vote) * alike * 0.5f32.powf(age_days / HALF_LIFE_DAYS);
            let key = (vote.chunk_id.as_str(), vote.voter.as_str());
            let entry = best.entry(key).or_insert((alike, vote.id, weight));
            if (alike, vote.id) > (entry.0, entry.1) {
                *entry = (alike, vote.id, weight);
            }
        }
        let mut sums: HashMap<&str, f32> = HashMap::new();
        for ((chunk, _), (_, _, weight)) in best {
            *sums.entry(chunk).or_insert(0.0) += weight;
        }
        sums.into_iter()
            .filter(|(_, sum)| sum.abs() > 1e-6)
            .map(|(chunk, sum)| (chunk.to_string(), 1.0 + MAX_EFFECT * sum.tanh()))
            .collect()
    }
}

/// The files of each root, by root-relative path: what names the root of
/// a vote given before chunk ids named their root (`<path>::<key>`,
/// an index of format 4 or older).
#[derive(Debug, Default)]
pub struct RootFiles {
    roots: Vec<(String, HashSet<String>)>,
}

impl RootFiles {
    /// The roots' names with their files.
    pub fn new(roots: Vec<(String, HashSet<String>)>) -> RootFiles {
        RootFiles { roots }
    }

    /// `id` as today's index names it: an id that names its root
    /// (`<root>/<path>::<key>`, the root holding the path) as it is; an
    /// older one, whose path exactly one root holds, with that root. A
    /// path several roots (or none) hold cannot be told: the id is kept,
    /// and its votes count for no chunk until a new vote names one.
    pub fn chunk_id(&self, id: &str) -> String {
        let Some((path, key)) = id.split_once("::") else {
            return id.to_string();
        };
        let named = path.split_once('/').is_some_and(|(root, rest)| {
            self.roots
                .iter()
                .any(|(name, files)| name == root && files.contains(rest))
        });
        if named {
            return id.to_string();
        }
        let mut holders = self.roots.iter().filter(|(_, files)| files.contains(path));
        match (holders.next(), holders.next()) {
            (Some((root, _)), None) => crate::index::chunk_id(root, path, key),
            _ => id.to_string(),
        }
    }
}

/// Records searches on a thread of its own, so that a search never waits
/// for a write: each search hands its record over and returns. Feedback
/// first waits until every search handed over before it is written
/// ([`Recorder::flush`]); dropping the recorder writes what is pending
/// (a command-line search is recorded before the process ends).
pub struct Recorder {
    sender: Option<std::sync::mpsc::Sender<Job>>,
    thread: Option<std::thread::JoinHandle<()>>,
}

enum Job {
    Record(lore_store::SearchRecord),
    Flush(std::sync::mpsc::SyncSender<()>),
}

impl Recorder {
    /// A recorder writing to `store`; `failed` keeps the last error (a
    /// search is answered before its record is written, so a failure is
    /// reported by the next feedback instead).
    pub fn start(
        store: std::sync::Arc<dyn lore_store::KnowledgeStore>,
        failed: std::sync::Arc<std::sync::Mutex<Option<String>>>,
    ) -> Recorder {
        let (sender, receiver) = std::sync::mpsc::channel::<Job>();
        let thread = std::thread::Builder::new()
            .name("lore-search-recorder".into())
            .spawn(move || {
                for job in receiver {
                    match job {
                        Job::Record(record) => {
                            if let Err(e) = store.record_search(&record) {
                                *failed.lock().unwrap_or_else(|p| p.into_inner()) =
                                    Some(format!("search {}: {e}", record.request_id));
                            }
                        }
                        Job::Flush(done) => {
                            let _ = done.send(());
                        }
                    }
                }
            })
            .ok();
        Recorder {
            sender: thread.as_ref().map(|_| sender),
            thread,
        }
    }

    /// Hands a search's record over; false when the recorder is gone.
    pub fn record(&self, record: lore_store::SearchRecord) -> bool {
        self.sender
            .as_ref()
            .is_some_and(|s| s.send(Job::Record(record)).is_ok())
    }

    /// Waits until every record handed over so far is written.
    pub fn flush(&self) {
        let (done, wait) = std::sync::mpsc::sync_channel(1);
        if let Some(sender) = &self.sender
            && sender.send(Job::Flush(done)).is_ok()
        {
            let _ = wait.recv();
        }
    }
}

impl Drop for Recorder {
    fn drop(&mut self) {
        self.sender.take();
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn feedback(
        id: i64,
        query: &str,
        chunk: &str,
        vote: i8,
        voter: &str,
        days_ago: i64,
    ) -> Feedback {
        Feedback {
            id,
            request_id: format!("req-{id}"),
            query: query.to_string(),
            chunk_id: chunk.to_string(),
            vote,
            note: None,
            context: None,
            voter: voter.to_string(),
            created_at: UtcMillis(UtcMillis::now().0 - days_ago * 86_400_000).to_iso(),
        }
    }

    #[test]
    fn votes_count_for_alike_queries_decay_and_one_voter_counts_once() {
        let now = UtcMillis::now().0;
        let query = terms_of("config file is parsed twice");
        let mut votes = FeedbackVotes::default();
        // One voter, five up-votes: counted once.
        votes.extend(
            (1..=5)
                .map(|i| {
                    feedback(
                        i,
                        "config file is parsed twice",
                        "a.py::load",
                        1,
                        "alice",
                        0,
                    )
                })
                .collect(),
        );
        let one = votes.boosts(&query, now)["a.py::load"];
        assert!((one - (1.0 + 0.5 * 1f32.tanh())).abs() < 1e-3, "{one}");
        // A second voter raises it further, never past the cap.
        votes.extend(vec![feedback(
            6,
            "config file is parsed twice",
            "a.py::load",
            1,
            "bob",
            0,
        )]);
        let two = votes.boosts(&query, now)["a.py::load"];
        assert!(two > one && two < 1.0 + MAX_EFFECT, "{two}");
        // A similar query gets part of it; an unrelated one none.
        let similar = votes.boosts(&terms_of("the config file is parsed twice on reload"), now);
        assert!(similar["a.py::load"] > 1.0 && similar["a.py::load"] < two);
        assert!(
            votes
                .boosts(&terms_of("button colour in dark mode"), now)
                .is_empty()
        );
        // A withdrawn vote (0) replaces the voter's earlier one.
        votes.extend(vec![
            feedback(
                7,
                "config file is parsed twice",
                "a.py::load",
                0,
                "alice",
                0,
            ),
            feedback(8, "config file is parsed twice", "a.py::load", 0, "bob", 0),
        ]);
        assert!(votes.boosts(&query, now).is_empty());
        // Down-votes lower; old votes count less.
        let mut old = FeedbackVotes::default();
        old.extend(vec![
            feedback(1, "config file is parsed twice", "b.py::x", -1, "carol", 0),
            feedback(2, "config file is parsed twice", "c.py::y", 1, "carol", 60),
        ]);
        let boosts = old.boosts(&query, now);
        assert!(boosts["b.py::x"] < 1.0);
        let aged = boosts["c.py::y"] - 1.0;
        assert!(
            (aged - 0.5 * 0.25f32.tanh()).abs() < 1e-2,
            "two half-lives leave a quarter: {aged}"
        );
        assert_eq!(old.last_id, 2);
    }

    #[test]
    fn a_vote_of_an_older_index_gets_the_root_that_holds_its_file() {
        let files = |paths: &[&str]| paths.iter().map(|p| p.to_string()).collect();
        let roots = RootFiles::new(vec![
            ("cobra".into(), files(&["shared/util.go", "cmd/root.go"])),
            ("viper".into(), files(&["shared/util.go", "viper.go"])),
        ]);
        assert_eq!(
            roots.chunk_id("cmd/root.go::Execute"),
            "cobra/cmd/root.go::Execute"
        );
        assert_eq!(roots.chunk_id("viper/viper.go::3"), "viper/viper.go::3");
        // In both roots: it cannot be told, and is kept as it was.
        assert_eq!(
            roots.chunk_id("shared/util.go::Join"),
            "shared/util.go::Join"
        );
        assert_eq!(roots.chunk_id("gone.go::1"), "gone.go::1");
    }
}
