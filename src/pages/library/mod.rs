//! The Library page: every device of the library (the hand-described and
//! the generated ones) as a card, by category and search, a page at a time
//! ([`catalogue`]), and "Open a bundle": drop a folder, a zip or a single
//! JSON file, pick one, or give a URL. A refused bundle shows every problem
//! validation found.

pub mod catalogue;

use leptos::prelude::*;
use leptos::task::spawn_local;
use leptos::wasm_bindgen::JsCast;
use web_sys::{DragEvent, FileSystemEntry, HtmlInputElement};

use super::play::page::LoadStatus;
use crate::browser::fetch;
use crate::pages::play::{use_player, LoadProblem, Loaded, Player};
use catalogue::Catalogue;
use knoblab_core::bundle::{check_bytes, check_files_in_memory, Checked, LibraryIndex};
use knoblab_eval::play::share::encode_component;

/// Opens a checked bundle from a file: on success the play page shows it
/// (once the library's version is read, which its episodes record when it
/// is a library device).
async fn open_checked(player: Player, checked: Checked) {
    if let Err(e) = fetch::library_version().await {
        player.problem.set(Some(LoadProblem::Message(e)));
        return;
    }
    match Loaded::from_checked(checked, None) {
        Ok(loaded) => {
            player.set_device(loaded);
            player.mode.set(knoblab_eval::play::Mode::Play);
            if let Err(e) = player.start(None, &[]) {
                player.notice.set(Some(e));
            }
            let _ = window().location().set_hash("#/play");
        }
        Err(problem) => player.problem.set(Some(problem)),
    }
}

/// Reads picked files: one zip or JSON file, or a folder's files.
async fn read_picked(input: HtmlInputElement) -> Result<Checked, String> {
    let files = input.files().ok_or("no file was chosen")?;
    let list: Vec<web_sys::File> = (0..files.length()).filter_map(|i| files.get(i)).collect();
    let is_folder = list.iter().any(|f| fetch::relative_path(f).contains('/'));
    match list.as_slice() {
        [] => Err("no file was chosen".to_string()),
        [one] if !is_folder => Ok(check_bytes(&one.name(), &fetch::read_file(one).await?)),
        many => {
            let mut read = Vec::with_capacity(many.len());
            for f in many {
                read.push((fetch::relative_path(f), fetch::read_file(f).await?));
            }
            let name = read
                .first()
                .and_then(|(p, _)| p.split('/').next())
                .unwrap_or("folder")
                .to_string();
            Ok(check_files_in_memory(&name, read))
        }
    }
}

/// The "Open a bundle" box.
#[component]
fn OpenBundle() -> impl IntoView {
    let player = use_player();
    let url = RwSignal::new(String::new());
    let over = RwSignal::new(false);
    let fail = move |message: String| player.problem.set(Some(LoadProblem::Message(message)));

    let picked = move |ev: leptos::ev::Event| {
        let Some(input) = ev
            .target()
            .and_then(|t| t.dyn_into::<HtmlInputElement>().ok())
        else {
            return;
        };
        player.problem.set(None);
        spawn_local(async move {
            match read_picked(input.clone()).await {
                Ok(checked) => open_checked(player, checked).await,
                Err(e) => fail(e),
            }
            input.set_value("");
        });
    };

    let dropped = move |ev: DragEvent| {
        ev.prevent_default();
        over.set(false);
        player.problem.set(None);
        let Some(transfer) = ev.data_transfer() else {
            return;
        };
        // Entries must be taken while the drop event is being handled.
        let items = transfer.items();
        let entries: Vec<FileSystemEntry> = (0..items.length())
            .filter_map(|i| items.get(i))
            .filter_map(|item| item.webkit_get_as_entry().ok().flatten())
            .collect();
        let first_file = transfer.files().and_then(|f| f.get(0));
        spawn_local(async move {
            let checked = match entries.as_slice() {
                [dir] if dir.is_directory() => {
                    let name = dir.name();
                    fetch::read_entry(dir.clone())
                        .await
                        .map(|files| check_files_in_memory(&name, files))
                }
                _ => match first_file {
                    Some(file) => fetch::read_file(&file)
                        .await
                        .map(|bytes| check_bytes(&file.name(), &bytes)),
                    None => Err("nothing readable was dropped: drop a bundle folder, a .zip or a .json file".to_string()),
                },
            };
            match checked {
                Ok(checked) => open_checked(player, checked).await,
                Err(e) => fail(e),
            }
        });
    };

    let open_url = move || {
        let source = url.get_untracked().trim().to_string();
        if source.is_empty() {
            fail("type the URL of a bundle (.zip or .json) first".to_string());
            return;
        }
        let _ = window()
            .location()
            .set_hash(&format!("#/play?bundle={}", encode_component(&source)));
    };

    view! {
        <section class="open-bundle" data-testid="open-bundle">
            <h2>"Open a bundle"</h2>
            <div
                class="drop-zone"
                class:over=move || over.get()
                data-testid="drop-zone"
                on:dragover=move |ev: DragEvent| {
                    ev.prevent_default();
                    over.set(true);
                }
                on:dragleave=move |_| over.set(false)
                on:drop=dropped
            >
                <p>"Drop a bundle folder, a .zip or a single .json file here, or choose one:"</p>
                <div class="pickers">
                    <label class="button">
                        "Choose a file (.zip, .json)"
                        <input type="file" accept=".zip,.json,application/zip,application/json" data-testid="file-input" on:change=picked />
                    </label>
                    <label class="button">
                        "Choose a folder"
                        <input type="file" prop:webkitdirectory=true multiple data-testid="folder-input" on:change=picked />
                    </label>
                </div>
            </div>
            <form class="url-row" on:submit=move |ev| {
                ev.prevent_default();
                open_url();
            }>
                <label for="bundle-url">"or a URL"</label>
                <input
                    id="bundle-url"
                    type="url"
                    placeholder="https://…/device.zip"
                    data-testid="url-input"
                    prop:value=move || url.get()
                    on:input=move |ev| url.set(event_target_value(&ev))
                />
                <button type="submit" data-testid="url-open">"Open"</button>
            </form>
            <LoadStatus />
        </section>
    }
}

/// The Library page: the catalogue of devices, and a bundle opened from a file or a URL.
#[component]
pub fn LibraryPage() -> impl IntoView {
    let player = use_player();
    let index = RwSignal::new(None::<Result<LibraryIndex, String>>);
    // The page may be left before the index arrives: then there is no
    // signal to set, and nothing to do.
    spawn_local(async move {
        let _ = index.try_set(Some(player.library_index().await));
    });
    view! {
        <section class="page library" data-testid="library">
            <h1>"Device library"</h1>
            <p class="lead">"Pick a device, read the instruction, and make it work within the budget: click on its pictures to press, pull, push, rotate or grasp its parts."</p>
            <OpenBundle />
            {move || match index.get() {
                None => view! { <p class="loading">"Loading the library…"</p> }.into_any(),
                Some(Ok(index)) => view! { <Catalogue index=index /> }.into_any(),
                Some(Err(e)) => view! { <p class="error" data-testid="library-error">{e}</p> }.into_any(),
            }}
        </section>
    }
}
