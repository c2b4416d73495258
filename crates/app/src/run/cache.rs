//! The model-call cache (`knoblab eval --cache DIR`, `cache=` in Python):
//! a reply the model gave is kept, and the same request of the same run
//! later is answered from here instead of the model, so a rerun of a
//! finished sweep, or a resume after a crash, pays for no call twice.
//!
//! **The key.** A reply is reused only for the same request: the SHA-256
//! of a document holding the cache's format, this build's version, the
//! API flavour, the plan's endpoint URL (not the replica a request is
//! rerouted to) and model, the prompt version, the device's logic hash
//! and library stamp (version and hash), the item's repeat and the turn's
//! number in its episode, and the SHA-256 of the request body (the
//! pictures are in the body, so a picture is keyed by its content; the
//! key header is not part of any of it and is never stored). The repeat
//! and turn keep each sampled reply in its place: repeats of a task stay
//! separate samples, and a rerun replays each episode as it went.
//!
//! **What is stored.** Only a reply the driver calls storable
//! ([`knoblab_eval::vlm::driver::EpisodeDriver::storable`]): an error
//! status, a failed or retried attempt, a reply cut by the token limit or
//! whose action does not read are never stored. A stored body is read
//! back through the flavour's reply parser; an entry that does not parse
//! or whose key document differs is a miss (and is overwritten).
//!
//! **Several processes.** The cache is a folder of files, one per key,
//! named by the key's hex digest (`DIR/v1/ab/cdef….json`). Each is
//! written to a temporary file of a unique name in the same folder,
//! synced, then renamed over its name: a reader sees a whole entry or
//! none, two writers of one key both leave a whole entry (of the same
//! request), and no lock is needed, so processes on one machine or on a
//! shared mount can use one folder at once.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use knoblab_eval::vlm::batch::BatchItem;
use knoblab_eval::vlm::provider::Flavor;
use knoblab_eval::vlm::{HttpRequest, RunSpec};

use super::EvalError;

/// The layout of entries; a new one starts a new subfolder.
const FORMAT: u32 = 1;

/// Entries larger than this are not read (a reply is bounded the same).
const MAX_ENTRY_BYTES: u64 = knoblab_core::input::limits::MAX_REPLY_BYTES + (64 << 10);

/// Unique temporary names within a process.
static TEMP: AtomicU64 = AtomicU64::new(0);

/// What identifies a request (every field compared on reading).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CacheKey {
    /// The cache's format.
    pub format: u32,
    /// This build's version.
    pub knoblab: String,
    /// The API flavour.
    pub api: String,
    /// The plan's request URL.
    pub url: String,
    /// The model's name.
    pub model: String,
    /// The prompt's version.
    pub prompt_version: String,
    /// The device's logic hash.
    pub logic_hash: String,
    /// The device's library (its version and hash), or that it has none.
    pub library: String,
    /// The item's repeat.
    pub repeat: u32,
    /// The turn's number in its episode (from 0).
    pub turn: usize,
    /// SHA-256 of the request body, in hex.
    pub body_sha256: String,
}

impl CacheKey {
    /// The key's name: SHA-256 of its JSON, in hex.
    fn digest(&self) -> String {
        let text = serde_json::to_string(self).unwrap_or_default();
        hex(&Sha256::digest(text.as_bytes()))
    }
}

/// One stored reply.
#[derive(Debug, Serialize, Deserialize)]
struct Entry {
    key: CacheKey,
    body: String,
}

/// What a request is, apart from its body and turn (the same for every
/// request of one episode).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KeyParts {
    /// The API flavour.
    pub flavor: Flavor,
    /// The plan's request URL (before any rerouting).
    pub url: String,
    /// The model.
    pub model: String,
    /// The prompt version.
    pub prompt_version: String,
    /// The device's logic hash.
    pub logic_hash: String,
    /// The device's library stamp, described.
    pub library: String,
    /// The item's repeat.
    pub repeat: u32,
}

impl KeyParts {
    /// The parts of the requests of `item` in the run `spec` describes.
    pub fn of(spec: &RunSpec, item: &BatchItem) -> KeyParts {
        let endpoint = &spec.settings.endpoint;
        let logic_hash = spec
            .bundles
            .get(&item.bundle_id)
            .cloned()
            .unwrap_or_default();
        let library = knoblab_core::bundle::library_of(&item.bundle_id, &logic_hash);
        KeyParts {
            flavor: endpoint.flavor,
            url: endpoint.url(),
            model: endpoint.model.clone(),
            prompt_version: spec
                .trajectory_settings()
                .prompt_version
                .unwrap_or_default(),
            library: knoblab_core::bundle::stamp::describe(library.as_ref()),
            logic_hash,
            repeat: item.repeat,
        }
    }

    /// The key of `request` sent at turn `turn`.
    pub fn key(&self, turn: usize, request: &HttpRequest) -> CacheKey {
        CacheKey {
            format: FORMAT,
            knoblab: env!("CARGO_PKG_VERSION").to_string(),
            api: format!("{:?}", self.flavor),
            url: self.url.clone(),
            model: self.model.clone(),
            prompt_version: self.prompt_version.clone(),
            logic_hash: self.logic_hash.clone(),
            library: self.library.clone(),
            repeat: self.repeat,
            turn,
            body_sha256: hex(&Sha256::digest(request.body.as_bytes())),
        }
    }
}

/// How the cache served a run.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct CacheTally {
    /// Requests answered from the cache (not sent).
    pub hits: usize,
    /// Requests looked up and not found (then sent).
    pub misses: usize,
    /// Replies stored.
    pub stored: usize,
    /// Replies that could not be stored (the run went on without them).
    pub failed_writes: usize,
}

/// A cache folder, open.
#[derive(Debug, Clone)]
pub struct Cache {
    root: PathBuf,
}

fn io_error(path: &Path, what: &str, e: std::io::Error) -> EvalError {
    EvalError::Io {
        path: path.display().to_string(),
        message: format!("{what}: {e}"),
    }
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

impl Cache {
    /// Opens (creating) the cache folder `dir`, and checks that it can be
    /// written, so a bad path stops the run before any request.
    pub fn open(dir: &Path) -> Result<Cache, EvalError> {
        let root = dir.join(format!("v{FORMAT}"));
        std::fs::create_dir_all(&root).map_err(|e| io_error(&root, "creating the cache", e))?;
        let probe = root.join(format!(".probe-{}", std::process::id()));
        std::fs::write(&probe, b"")
            .and_then(|_| std::fs::remove_file(&probe))
            .map_err(|e| io_error(&root, "writing to the cache", e))?;
        Ok(Cache { root })
    }

    fn path(&self, digest: &str) -> PathBuf {
        let (head, tail) = digest.split_at(2.min(digest.len()));
        self.root.join(head).join(format!("{tail}.json"))
    }

    /// The stored reply body for `key`, if there is a whole one that the
    /// flavour's parser reads.
    pub fn get(&self, key: &CacheKey, flavor: Flavor) -> Option<String> {
        let path = self.path(&key.digest());
        let bytes = knoblab_core::input::fs::read_regular(&path, MAX_ENTRY_BYTES).ok()?;
        let entry: Entry = knoblab_core::input::json::from_bytes(&bytes).ok()?;
        (entry.key == *key && flavor.parse_reply(200, &entry.body).is_ok()).then_some(entry.body)
    }

    /// Stores `body` as the reply to `key`: written whole to a temporary
    /// file, synced, then renamed into place.
    pub fn put(&self, key: &CacheKey, body: &str) -> Result<(), EvalError> {
        let path = self.path(&key.digest());
        let dir = path.parent().unwrap_or(&self.root);
        std::fs::create_dir_all(dir).map_err(|e| io_error(dir, "creating", e))?;
        let text = serde_json::to_vec(&Entry {
            key: key.clone(),
            body: body.to_string(),
        })
        .map_err(|e| EvalError::Io {
            path: path.display().to_string(),
            message: e.to_string(),
        })?;
        // Unique among this process's writes (the counter), among the
        // processes of a machine (the id) and, likely, among machines
        // sharing a mount (the clock's nanoseconds).
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.subsec_nanos());
        let tmp = dir.join(format!(
            ".tmp-{}-{}-{nanos}",
            std::process::id(),
            TEMP.fetch_add(1, Ordering::Relaxed),
        ));
        let written = (|| {
            use std::io::Write;
            let mut file = std::fs::File::create(&tmp)?;
            file.write_all(&text)?;
            file.sync_all()?;
            std::fs::rename(&tmp, &path)
        })();
        if let Err(e) = written {
            let _ = std::fs::remove_file(&tmp);
            return Err(io_error(&path, "storing a reply in the cache", e));
        }
        Ok(())
    }
}

#[cfg(test)]
#[allow(clippy::disallowed_methods)] // tests parse what they check directly (#47)
mod tests {
    use super::*;

    fn parts() -> KeyParts {
        KeyParts {
            flavor: Flavor::OpenAi,
            url: "http://127.0.0.1:1/v1/chat/completions".into(),
            model: "m".into(),
            prompt_version: "p1".into(),
            logic_hash: "h".into(),
            library: "none".into(),
            repeat: 0,
        }
    }

    fn request(body: &str) -> HttpRequest {
        HttpRequest {
            url: "http://elsewhere/v1/chat/completions".into(),
            headers: vec![("authorization".into(), "Bearer secret".into())],
            body: body.into(),
        }
    }

    const REPLY: &str = r#"{"choices":[{"message":{"content":"Action: Timed_wait()"}}]}"#;

    #[test]
    fn a_stored_reply_is_found_by_the_same_request_only() {
        let dir = std::env::temp_dir().join(format!("knoblab-cache-unit-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let cache = Cache::open(&dir).unwrap();
        let key = parts().key(0, &request("{\"a\":1}"));
        assert_eq!(cache.get(&key, Flavor::OpenAi), None);
        cache.put(&key, REPLY).unwrap();
        assert_eq!(cache.get(&key, Flavor::OpenAi).as_deref(), Some(REPLY));
        // Another body, turn, repeat or prompt version misses.
        assert_eq!(
            cache.get(&parts().key(0, &request("{\"a\":2}")), Flavor::OpenAi),
            None
        );
        assert_eq!(
            cache.get(&parts().key(1, &request("{\"a\":1}")), Flavor::OpenAi),
            None
        );
        let other = KeyParts {
            repeat: 1,
            ..parts()
        };
        assert_eq!(
            cache.get(&other.key(0, &request("{\"a\":1}")), Flavor::OpenAi),
            None
        );
        let other = KeyParts {
            prompt_version: "p2".into(),
            ..parts()
        };
        assert_eq!(
            cache.get(&other.key(0, &request("{\"a\":1}")), Flavor::OpenAi),
            None
        );
        // The key header is nowhere in the folder.
        for entry in walk(&dir) {
            let text = std::fs::read_to_string(&entry).unwrap();
            assert!(!text.contains("secret"), "{}", entry.display());
        }
        // A damaged entry is a miss, and is overwritten.
        let path = cache.path(&key.digest());
        std::fs::write(&path, b"{\"key\":").unwrap();
        assert_eq!(cache.get(&key, Flavor::OpenAi), None);
        cache.put(&key, REPLY).unwrap();
        assert_eq!(cache.get(&key, Flavor::OpenAi).as_deref(), Some(REPLY));
        std::fs::remove_dir_all(&dir).unwrap();
    }

    fn walk(dir: &Path) -> Vec<PathBuf> {
        let mut out = Vec::new();
        for e in std::fs::read_dir(dir).unwrap().flatten() {
            let p = e.path();
            if p.is_dir() {
                out.extend(walk(&p));
            } else {
                out.push(p);
            }
        }
        out
    }
}
