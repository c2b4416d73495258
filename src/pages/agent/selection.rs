//! What to run, at the library's scale: every device, a category (each
//! with its device and episode count) or devices found by search; all
//! tasks, the single- or multi-turn ones or given ids; repeats; and the
//! summary line. The counts are the core's
//! ([`knoblab_eval::vlm::selection::Catalog`]); this file draws them. For a
//! replay, the trajectory file says which devices.

use leptos::prelude::*;
use leptos::task::spawn_local;
use leptos::wasm_bindgen::JsCast;

use crate::browser::files;
use crate::browser::indexeddb::Source;
use knoblab_eval::vlm::selection::{grouped, Catalog};
use knoblab_eval::vlm::RecordedAnswers;

use super::form::Form;
use super::state::{By, Kinds, Run};

/// How many search results are listed at once.
const SHOWN: usize = 12;

/// A radio button bound to a signal holding one of a few values.
#[component]
fn Radio<T>(
    name: &'static str,
    label: &'static str,
    testid: &'static str,
    value: RwSignal<T>,
    this: T,
) -> impl IntoView
where
    T: Copy + PartialEq + Send + Sync + 'static,
{
    view! {
        <label class="pill">
            <input type="radio" name=name data-testid=testid
                prop:checked=move || value.get() == this
                on:change=move |_| value.set(this) />
            <span>{label}</span>
        </label>
    }
}

/// Which devices, tasks and repeats to run, or the replay file.
#[component]
pub fn Chooser(
    /// The page's state, whose choice fields this shows.
    run: Run,
    /// The form, whose source says whether a replay file is asked for.
    form: Form,
) -> impl IntoView {
    let is_replay = move || form.source.get() == Source::Replay;
    let on_file = move |ev: leptos::ev::Event| {
        let Some(input) = ev
            .target()
            .and_then(|t| t.dyn_into::<web_sys::HtmlInputElement>().ok())
        else {
            return;
        };
        spawn_local(async move {
            match files::chosen_text(&input).await {
                Ok(text) => run.replay_text.set(text),
                Err(e) => run.problems.set(vec![e]),
            }
        });
    };
    // Whether the library is read (not what it holds: the choosers below
    // stay as they are while task lists arrive).
    let loaded = Memo::new(move |_| {
        run.catalog.with(|c| {
            c.as_ref()
                .map(|c| c.as_ref().map(|_| ()).map_err(Clone::clone))
        })
    });
    let devices = move || {
        loaded.with(|catalog| match catalog {
            None => view! { <p class="muted">"Loading the library…"</p> }.into_any(),
            Some(Err(e)) => view! { <p class="bad">{e.clone()}</p> }.into_any(),
            Some(Ok(())) => view! {
                <div class="choose-by" role="radiogroup" aria-label="Devices">
                    <Radio name="agent-by" label="All devices" testid="agent-by-all" value=run.by this=By::All />
                    <Radio name="agent-by" label="By category" testid="agent-by-category" value=run.by this=By::Category />
                    <Radio name="agent-by" label="By device" testid="agent-by-device" value=run.by this=By::Devices />
                </div>
                {move || match run.by.get() {
                    By::All => ().into_any(),
                    By::Category => view! { <Categories run=run /> }.into_any(),
                    By::Devices => view! { <DevicePicker run=run /> }.into_any(),
                }}
            }
            .into_any(),
        })
    };
    let summary = move || {
        run.catalog.with(|c| match c {
            Some(Ok(c)) => Some(summary_of(c, run)),
            _ => None,
        })
    };
    view! {
        <fieldset class="agent-selection" prop:disabled=move || run.active.get() data-testid="agent-chooser">
            <legend>"What to run"</legend>
            <Show when=is_replay fallback=move || view! { <div class="devices" data-testid="agent-devices">{devices}</div> }>
                <label class="field">
                    <span>"Trajectory file to replay (JSON Lines)"</span>
                    <input type="file" accept=".jsonl,.json,.txt" data-testid="agent-replay-file" on:change=on_file />
                </label>
                <p class="muted">{move || run.replay_text.with(|t| match t.as_deref().map(RecordedAnswers::parse) {
                    None => "No file chosen.".to_string(),
                    Some(Ok(r)) => format!("{} recorded episodes of {} tasks.", r.len(), r.tasks().len()),
                    Some(Err(e)) => e.to_string(),
                })}</p>
            </Show>
            <div class="choose-by" role="radiogroup" aria-label="Tasks">
                <Radio name="agent-kind" label="All tasks" testid="agent-kind-every" value=run.kinds this=Kinds::Every />
                <Radio name="agent-kind" label="Single-turn" testid="agent-kind-single" value=run.kinds this=Kinds::Single />
                <Radio name="agent-kind" label="Multi-turn" testid="agent-kind-multi" value=run.kinds this=Kinds::Multi />
                <Radio name="agent-kind" label="Task ids" testid="agent-kind-ids" value=run.kinds this=Kinds::Ids />
            </div>
            <div class="field-row">
                <Show when=move || run.kinds.get() == Kinds::Ids>
                    <label class="field">
                        <span>"Task ids (comma-separated)"</span>
                        <input type="text" data-testid="agent-tasks" placeholder="single-door-open, multi-1"
                            prop:value=move || run.tasks.get()
                            on:input=move |ev| run.tasks.set(event_target_value(&ev)) />
                    </label>
                </Show>
                <label class="field narrow">
                    <span>"Repeats"</span>
                    <input type="number" min="1" max="100" data-testid="agent-repeats" prop:value=move || run.repeats.get()
                        on:input=move |ev| run.repeats.set(event_target_value(&ev)) />
                </label>
            </div>
            <Show when=move || !is_replay()>
                {summary}
            </Show>
        </fieldset>
    }
}

/// The summary line of what is chosen, and what running it involves.
fn summary_of(catalog: &Catalog, run: Run) -> impl IntoView {
    match run.selection() {
        Ok(selection) => {
            let count = catalog.count(&selection);
            let note = (count.generated > 0).then(|| {
                format!(
                    "{} of these devices are generated: each is drawn in this page when the run reaches it (a few seconds each).",
                    grouped(count.generated)
                )
            });
            view! {
                <p class="summary" data-testid="agent-summary">{catalog.summary(&selection)}</p>
                {note.map(|n| view! { <p class="hint" data-testid="agent-summary-note">{n}</p> })}
            }
            .into_any()
        }
        Err(e) => view! { <p class="summary bad" data-testid="agent-summary">{e}</p> }.into_any(),
    }
}

/// The 26 categories, each with its devices and episodes.
#[component]
fn Categories(run: Run) -> impl IntoView {
    let rows = move || {
        run.catalog.with(|c| {
            let Some(Ok(c)) = c else {
                return Vec::new();
            };
            c.categories()
        })
    };
    view! {
        <div class="categories" role="radiogroup" aria-label="Category" data-testid="agent-categories">
            <For each=rows key=|row| (row.category.clone(), row.devices, row.episodes) let:row>
                {
                    let name = row.category.clone();
                    let for_check = name.clone();
                    let testid = format!("agent-category-{name}");
                    view! {
                        <label class="category-row" data-testid=testid>
                            <input type="radio" name="agent-category"
                                prop:checked=move || run.category.with(|c| *c == for_check)
                                on:change=move |_| run.category.set(name.clone()) />
                            <span class="name">{row.category.clone()}</span>
                            <span class="count">{format!("{} devices · {} episodes", grouped(row.devices), grouped(row.episodes))}</span>
                        </label>
                    }
                }
            </For>
        </div>
    }
}

/// Search by id or name, tick devices; the picked ones listed with a
/// button each to take them out.
#[component]
fn DevicePicker(run: Run) -> impl IntoView {
    let results = move || {
        let query = run.query.get();
        run.catalog.with(|c| {
            let Some(Ok(c)) = c else {
                return ().into_any();
            };
            if query.trim().is_empty() {
                return view! { <p class="muted">{format!("Type part of an id or a name: {} devices.", grouped(c.devices().len()))}</p> }.into_any();
            }
            let found = c.search(&query, usize::MAX);
            let more = found.len().saturating_sub(SHOWN);
            let rows = found
                .into_iter()
                .take(SHOWN)
                .map(|d| {
                    let (for_check, for_change) = (d.id.clone(), d.id.clone());
                    view! {
                        <label class="check device">
                            <input type="checkbox" data-testid=format!("agent-device-{}", d.id)
                                prop:checked=move || run.picked.with(|p| p.contains(&for_check))
                                on:change=move |ev| {
                                    let on = event_target_checked(&ev);
                                    run.picked.update(|p| {
                                        p.retain(|i| *i != for_change);
                                        if on { p.push(for_change.clone()); }
                                    });
                                } />
                            <span>
                                {d.name.clone()}" "
                                <code>{d.id.clone()}</code>
                                {format!(" · {} tasks{}", d.tasks, if d.generated { " · generated" } else { "" })}
                            </span>
                        </label>
                    }
                })
                .collect_view();
            view! {
                <div class="found" data-testid="agent-found">{rows}</div>
                {(more > 0).then(|| view! { <p class="muted">{format!("and {} more: type more to narrow", grouped(more))}</p> })}
            }
            .into_any()
        })
    };
    let picked = move || {
        run.picked.get().into_iter().map(|id| {
            let for_remove = id.clone();
            view! {
                <li>
                    <code>{id.clone()}</code>
                    <button type="button" class="secondary small" data-testid=format!("agent-unpick-{id}")
                        aria-label=format!("take {id} out")
                        on:click=move |_| run.picked.update(|p| p.retain(|i| *i != for_remove))>"×"</button>
                </li>
            }
        }).collect_view()
    };
    view! {
        <label class="field">
            <span>"Find devices by id or name"</span>
            <input type="search" data-testid="agent-device-search" placeholder="e.g. microwave, g0012, steel kettle"
                autocomplete="off" spellcheck="false"
                prop:value=move || run.query.get()
                on:input=move |ev| run.query.set(event_target_value(&ev)) />
        </label>
        {results}
        <Show when=move || run.picked.with(|p| !p.is_empty())>
            <ul class="picked" data-testid="agent-picked">{picked}</ul>
        </Show>
    }
}
