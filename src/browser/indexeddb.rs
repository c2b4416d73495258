//! Batches kept in the browser (IndexedDB), so that a reload or a crash
//! loses no finished episode. Two object stores of JSON text with
//! out-of-line keys: `batches` (one [`BatchMeta`] per batch, by id) and
//! `episodes` (one record per finished item, keyed `batch id|item key`, so
//! writing an item twice keeps one copy). A write is awaited until its
//! transaction completes, which is when the browser has committed it.

use js_sys::{Array, Promise};
use serde::{Deserialize, Serialize};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use wasm_bindgen_futures::JsFuture;
use web_sys::{IdbDatabase, IdbKeyRange, IdbRequest, IdbTransaction, IdbTransactionMode};

use knoblab_eval::vlm::{EpisodeRecord, RunSpec};

use super::js_message;

const DB_NAME: &str = "knoblab-agent";
const DB_VERSION: u32 = 1;
const BATCHES: &str = "batches";
const EPISODES: &str = "episodes";

pub use knoblab_eval::vlm::batch::Source;

/// Whether a batch is still to be finished.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum BatchState {
    /// Under way, or stopped by a reload: it can be resumed.
    Running,
    /// Every item has a record.
    Done,
    /// Stopped by the user.
    Cancelled,
}

/// What a batch is: enough to resume it after a reload. Never the key.
/// The run's finished episodes are in the `episodes` store.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct BatchMeta {
    /// The batch's id in the store.
    pub id: String,
    /// When it was started, in milliseconds since the epoch.
    pub created_ms: u64,
    /// The run: who plays, its settings, the items planned (the core's
    /// versioned description, as `knoblab eval` keeps it too).
    #[serde(flatten)]
    pub run: RunSpec,
    /// Whether it is still to be finished.
    pub state: BatchState,
    /// Whether a key was typed for it (the key itself is never stored), so
    /// that resuming asks for one again.
    #[serde(default)]
    pub uses_key: bool,
}

/// Resolves when a request succeeds, with its result.
async fn done(request: &IdbRequest) -> Result<JsValue, String> {
    let promise = Promise::new(&mut |resolve, reject| {
        request.set_onsuccess(Some(&resolve));
        request.set_onerror(Some(&reject));
    });
    JsFuture::from(promise)
        .await
        .map_err(|_| request_error(request))?;
    request.result().map_err(|e| js_message(&e))
}

fn request_error(request: &IdbRequest) -> String {
    match request.error() {
        Ok(Some(e)) => format!("IndexedDB: {}", e.message()),
        _ => "IndexedDB: the request failed".into(),
    }
}

/// Resolves when a transaction has committed.
async fn committed(tx: &IdbTransaction) -> Result<(), String> {
    let promise = Promise::new(&mut |resolve, reject| {
        tx.set_oncomplete(Some(&resolve));
        tx.set_onerror(Some(&reject));
        tx.set_onabort(Some(&reject));
    });
    JsFuture::from(promise)
        .await
        .map(|_| ())
        .map_err(|_| match tx.error() {
            Some(e) => format!("IndexedDB: {}", e.message()),
            None => "IndexedDB: the write was aborted".into(),
        })
}

/// The page's database, created on first use.
#[derive(Clone)]
pub struct Store {
    db: IdbDatabase,
}

impl Store {
    /// Opens the page's database, creating its stores on first use.
    pub async fn open() -> Result<Store, String> {
        let factory = web_sys::window()
            .ok_or("no window")?
            .indexed_db()
            .map_err(|e| js_message(&e))?
            .ok_or("this browser offers no IndexedDB (private mode?)")?;
        let open = factory
            .open_with_u32(DB_NAME, DB_VERSION)
            .map_err(|e| js_message(&e))?;
        let upgrade = Closure::<dyn FnMut(web_sys::Event)>::new(move |e: web_sys::Event| {
            let Some(db) = e
                .target()
                .and_then(|t| t.dyn_into::<IdbRequest>().ok())
                .and_then(|r| r.result().ok())
                .and_then(|r| r.dyn_into::<IdbDatabase>().ok())
            else {
                return;
            };
            for name in [BATCHES, EPISODES] {
                if !db.object_store_names().contains(name) {
                    let _ = db.create_object_store(name);
                }
            }
        });
        open.set_onupgradeneeded(Some(upgrade.as_ref().unchecked_ref()));
        let db = done(&open).await?;
        drop(upgrade);
        Ok(Store {
            db: db
                .dyn_into()
                .map_err(|_| "IndexedDB: open gave no database")?,
        })
    }

    async fn put(&self, store: &str, key: &str, value: &str) -> Result<(), String> {
        let tx = self
            .db
            .transaction_with_str_and_mode(store, IdbTransactionMode::Readwrite)
            .map_err(|e| js_message(&e))?;
        tx.object_store(store)
            .and_then(|s| s.put_with_key(&JsValue::from_str(value), &JsValue::from_str(key)))
            .map_err(|e| js_message(&e))?;
        committed(&tx).await
    }

    /// Every value whose key starts with `prefix` (all when empty), in key order.
    async fn values(&self, store: &str, prefix: &str) -> Result<Vec<String>, String> {
        let tx = self
            .db
            .transaction_with_str(store)
            .map_err(|e| js_message(&e))?;
        let object_store = tx.object_store(store).map_err(|e| js_message(&e))?;
        let request = if prefix.is_empty() {
            object_store.get_all()
        } else {
            let range = IdbKeyRange::bound(
                &JsValue::from_str(prefix),
                &JsValue::from_str(&format!("{prefix}\u{ffff}")),
            )
            .map_err(|e| js_message(&e))?;
            object_store.get_all_with_key(&range)
        }
        .map_err(|e| js_message(&e))?;
        let values: Array = done(&request).await?.unchecked_into();
        Ok(values.iter().filter_map(|v| v.as_string()).collect())
    }

    /// Saves (or updates) a batch's description.
    pub async fn save_batch(&self, meta: &BatchMeta) -> Result<(), String> {
        let json = serde_json::to_string(meta).map_err(|e| e.to_string())?;
        self.put(BATCHES, &meta.id, &json).await
    }

    /// Saves a finished episode of a batch.
    pub async fn save_episode(&self, batch: &str, record: &EpisodeRecord) -> Result<(), String> {
        let json = serde_json::to_string(record).map_err(|e| e.to_string())?;
        self.put(EPISODES, &format!("{batch}|{}", record.item), &json)
            .await
    }

    /// Every batch kept, oldest first; unreadable entries are skipped.
    pub async fn batches(&self) -> Result<Vec<BatchMeta>, String> {
        let mut out: Vec<BatchMeta> = self
            .values(BATCHES, "")
            .await?
            .iter()
            .filter_map(|v| knoblab_core::input::json::from_text(v).ok())
            .collect();
        out.sort_by_key(|b| b.created_ms);
        Ok(out)
    }

    /// The finished episodes of a batch, in item-key order.
    pub async fn episodes(&self, batch: &str) -> Result<Vec<EpisodeRecord>, String> {
        let values = self.values(EPISODES, &format!("{batch}|")).await?;
        values
            .iter()
            .map(|v| {
                knoblab_core::input::json::from_text(v)
                    .map_err(|e| format!("a stored episode: {e}"))
            })
            .collect()
    }
}
