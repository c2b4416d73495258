//! Where a job's files come from: the drop zone and file dialogs (files
//! and whole folders), the shipped samples (`data/samples/index.json`),
//! the library's bundles (`data/library.json`, for trajectory metrics),
//! and the agent page's hand-off in `sessionStorage`.

use leptos::prelude::*;
use serde::Deserialize;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

use super::worker::{JobFile, Source};
use crate::browser::fetch::fetch_bytes;
use knoblab_app::job::JobOptions;
use knoblab_app::job::BUNDLE_PREFIX;
use knoblab_core::bundle::LibraryIndex;

/// The `sessionStorage` key the agent page leaves trajectories under.
pub const HANDOFF_KEY: &str = "knoblab.score.handoff";

#[wasm_bindgen(inline_js = r#"
export async function knoblab_dropped_files(dataTransfer) {
  // Entries must be taken before the first await: the list empties after the event.
  const entries = [...(dataTransfer.items || [])].map((i) => (i.webkitGetAsEntry ? i.webkitGetAsEntry() : null));
  const plain = [...dataTransfer.files].map((f) => ({ path: f.webkitRelativePath || f.name, file: f }));
  if (!entries.length || entries.some((e) => !e)) return plain;
  const out = [];
  const walk = async (entry) => {
    if (entry.isFile) {
      const file = await new Promise((ok, no) => entry.file(ok, no));
      out.push({ path: entry.fullPath.replace(/^\//, ''), file });
    } else if (entry.isDirectory) {
      const reader = entry.createReader();
      for (;;) {
        const batch = await new Promise((ok, no) => reader.readEntries(ok, no));
        if (!batch.length) break;
        for (const e of batch) await walk(e);
      }
    }
  };
  for (const e of entries) await walk(e);
  return out;
}
"#)]
extern "C" {
    /// The dropped files, folders walked: `[{path, file}]`.
    #[wasm_bindgen(catch)]
    async fn knoblab_dropped_files(data: &web_sys::DataTransfer) -> Result<JsValue, JsValue>;
}

fn get(o: &JsValue, key: &str) -> JsValue {
    js_sys::Reflect::get(o, &JsValue::from_str(key)).unwrap_or(JsValue::UNDEFINED)
}

/// `[{path, file}]` as job files with their sizes.
fn job_files(list: &JsValue) -> Vec<(JobFile, f64)> {
    js_sys::Array::from(list)
        .iter()
        .filter_map(|o| {
            let path = get(&o, "path").as_string()?;
            let file = get(&o, "file").dyn_into::<web_sys::File>().ok()?;
            let size = file.size();
            Some((
                JobFile {
                    path,
                    source: Source::File(file),
                },
                size,
            ))
        })
        .collect()
}

/// The files of a file input (their folder paths when a folder was chosen).
fn input_files(input: &web_sys::HtmlInputElement) -> Vec<(JobFile, f64)> {
    let Some(list) = input.files() else {
        return Vec::new();
    };
    (0..list.length())
        .filter_map(|i| list.get(i))
        .map(|f| {
            let rel = get(&f, "webkitRelativePath")
                .as_string()
                .unwrap_or_default();
            let path = if rel.is_empty() { f.name() } else { rel };
            let size = f.size();
            (
                JobFile {
                    path,
                    source: Source::File(f),
                },
                size,
            )
        })
        .collect()
}

/// The drop zone, with a file dialog for files and one for a folder.
#[component]
pub fn DropZone(
    /// Receives the files dropped or chosen, each with its size in bytes.
    on_files: Callback<Vec<(JobFile, f64)>>,
    /// What to drop, in bold (default: the Score page's results files).
    #[prop(optional)]
    title: Option<&'static str>,
    /// The line below it.
    #[prop(optional)]
    hint: Option<&'static str>,
) -> impl IntoView {
    let title = title.unwrap_or("Drop results files or folders here");
    let hint = hint.unwrap_or(
        "Results and ground truth together: a results file with the benchmark's folder or zip beside it.",
    );
    let over = RwSignal::new(false);
    let on_input = move |e: leptos::ev::Event| {
        if let Some(input) = e
            .target()
            .and_then(|t| t.dyn_into::<web_sys::HtmlInputElement>().ok())
        {
            let files = input_files(&input);
            input.set_value("");
            on_files.run(files);
        }
    };
    view! {
        <div
            class="drop-zone"
            class:over=move || over.get()
            data-testid="drop-zone"
            on:dragover=move |e: leptos::ev::DragEvent| {
                e.prevent_default();
                over.set(true);
            }
            on:dragleave=move |_| over.set(false)
            on:drop=move |e: leptos::ev::DragEvent| {
                e.prevent_default();
                over.set(false);
                if let Some(dt) = e.data_transfer() {
                    leptos::task::spawn_local(async move {
                        if let Ok(list) = knoblab_dropped_files(&dt).await {
                            on_files.run(job_files(&list));
                        }
                    });
                }
            }
        >
            <p><strong>{title}</strong></p>
            <p class="hint">{hint}</p>
            <label class="button">"Choose files"
                <input type="file" multiple data-testid="file-input" on:change=on_input />
            </label>
            <label class="button">"Choose a folder"
                <input type="file" multiple prop:webkitdirectory=true data-testid="folder-input" on:change=on_input />
            </label>
        </div>
    }
}

/// A set of shipped sample files.
#[derive(Debug, Clone, Deserialize)]
pub struct SampleSet {
    /// The set's id (`epic-custom`).
    pub id: String,
    /// Its name on the button.
    pub name: String,
    #[serde(default)]
    /// The options it is scored with.
    pub options: JobOptions,
    /// Paths relative to `data/samples/`.
    pub files: Vec<String>,
}

impl SampleSet {
    /// The set's files as URLs the worker fetches.
    pub fn job_files(&self) -> Vec<JobFile> {
        self.files
            .iter()
            .map(|f| JobFile {
                path: f.clone(),
                source: Source::Url(absolute(&format!("data/samples/{f}"))),
            })
            .collect()
    }
}

/// A URL relative to the page, made absolute (the worker runs from a
/// `blob:` URL, against which relative URLs do not resolve).
fn absolute(relative: &str) -> String {
    let base = document().base_uri().ok().flatten().unwrap_or_default();
    web_sys::Url::new_with_base(relative, &base)
        .map(|u| u.href())
        .unwrap_or_else(|_| relative.to_string())
}

#[derive(Deserialize)]
struct SampleIndex {
    sets: Vec<SampleSet>,
}

/// The shipped sample sets (none when the index cannot be read).
pub async fn fetch_samples() -> Vec<SampleSet> {
    let Ok(bytes) = fetch_bytes("data/samples/index.json").await else {
        return Vec::new();
    };
    knoblab_core::input::json::from_bytes::<SampleIndex>(&bytes)
        .map_or_else(|_| Vec::new(), |i| i.sets)
}

/// Every file of every hand-described library bundle, as URLs under
/// [`BUNDLE_PREFIX`], and the generator's font: a generated device has no
/// files, and the scorer makes those the trajectories were played on
/// ([`knoblab_app::devices::open_missing_generated`]).
pub async fn fetch_library() -> Vec<JobFile> {
    let Ok(bytes) = fetch_bytes("data/library.json").await else {
        return Vec::new();
    };
    let Ok(index) = LibraryIndex::parse(&bytes) else {
        return Vec::new();
    };
    let font = JobFile {
        path: super::worker::FONT_JOB_PATH.to_string(),
        source: Source::Url(absolute(&format!(
            "data/{}",
            knoblab_devicegen::render::FONT_PATH
        ))),
    };
    index
        .devices
        .iter()
        .flat_map(|d| {
            d.files.iter().map(move |f| JobFile {
                path: format!("{BUNDLE_PREFIX}{}/{f}", d.id),
                source: Source::Url(absolute(&format!("data/{}", d.file_url(f)))),
            })
        })
        .chain(std::iter::once(font))
        .collect()
}

/// Trajectories the agent page left in `sessionStorage`, as a file; the
/// key is cleared so a reload does not score them again.
pub fn take_handoff() -> Option<(JobFile, f64)> {
    let storage = window().session_storage().ok().flatten()?;
    let text = storage.get_item(HANDOFF_KEY).ok().flatten()?;
    let _ = storage.remove_item(HANDOFF_KEY);
    let parts = js_sys::Array::of1(&JsValue::from_str(&text));
    let file = web_sys::File::new_with_str_sequence(&parts, "agent-handoff.jsonl").ok()?;
    let size = file.size();
    Some((
        JobFile {
            path: "agent-handoff.jsonl".into(),
            source: Source::File(file),
        },
        size,
    ))
}

/// A URL for the image an item names, if it is among the job's files
/// (paths compared from the end, since roots differ).
pub fn image_url(files: &[JobFile], image: &str) -> Option<String> {
    let image = image.trim_start_matches("./");
    let f = files
        .iter()
        .find(|f| f.path.ends_with(image) || (image.ends_with(&f.path) && f.path.contains('.')))?;
    match &f.source {
        Source::Url(u) => Some(u.clone()),
        Source::File(file) => web_sys::Url::create_object_url_with_blob(file).ok(),
    }
}
