//! What to run: devices by category, task ids and repeats, or the
//! trajectory file to replay.

use std::collections::BTreeMap;

use leptos::prelude::*;
use leptos::task::spawn_local;
use leptos::wasm_bindgen::JsCast;

use crate::ui::browser::files;
use crate::ui::browser::indexeddb::Source;
use crate::vlm::RecordedAnswers;

use super::form::Form;
use super::state::Run;

/// Which devices and tasks to run, and the replay file.
#[component]
pub fn Selection(run: Run, form: Form) -> impl IntoView {
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
    let devices = move || {
        run.index.with(|index| match index {
            None => view! { <p class="muted">"Loading the library…"</p> }.into_any(),
            Some(Err(e)) => view! { <p class="bad">{e.clone()}</p> }.into_any(),
            Some(Ok(index)) => {
                let mut by_category: BTreeMap<String, Vec<(String, String, usize)>> = BTreeMap::new();
                for d in &index.devices {
                    by_category
                        .entry(d.category.clone())
                        .or_default()
                        .push((d.id.clone(), d.name.clone(), d.tasks));
                }
                by_category
                    .into_iter()
                    .map(|(category, devices)| {
                        let ids: Vec<String> = devices.iter().map(|d| d.0.clone()).collect();
                        let all_ids = ids.clone();
                        let all = move || run.selected.with(|s| all_ids.iter().all(|i| s.contains(i)));
                        view! {
                            <fieldset class="category">
                                <legend>
                                    <label class="check">
                                        <input type="checkbox" data-testid=format!("agent-category-{category}")
                                            prop:checked=all
                                            on:change=move |ev| {
                                                let on = event_target_checked(&ev);
                                                run.selected.update(|s| for i in &ids {
                                                    if on { s.insert(i.clone()); } else { s.remove(i); }
                                                });
                                            } />
                                        <span>{category.clone()}</span>
                                    </label>
                                </legend>
                                {devices.into_iter().map(|(id, name, tasks)| {
                                    let for_check = id.clone();
                                    let for_change = id.clone();
                                    view! {
                                        <label class="check device">
                                            <input type="checkbox" data-testid=format!("agent-device-{id}")
                                                prop:checked=move || run.selected.with(|s| s.contains(&for_check))
                                                on:change=move |ev| {
                                                    let on = event_target_checked(&ev);
                                                    run.selected.update(|s| {
                                                        if on { s.insert(for_change.clone()); } else { s.remove(&for_change); }
                                                    });
                                                } />
                                            <span>{format!("{name} ({tasks} tasks)")}</span>
                                        </label>
                                    }
                                }).collect_view()}
                            </fieldset>
                        }
                    })
                    .collect_view()
                    .into_any()
            }
        })
    };
    view! {
        <fieldset class="agent-selection" prop:disabled=move || run.active.get()>
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
            <div class="field-row">
                <label class="field">
                    <span>"Tasks (ids, comma-separated; empty for all)"</span>
                    <input type="text" data-testid="agent-tasks" prop:value=move || run.tasks.get()
                        on:input=move |ev| run.tasks.set(event_target_value(&ev)) />
                </label>
                <label class="field narrow">
                    <span>"Repeats"</span>
                    <input type="number" min="1" max="100" data-testid="agent-repeats" prop:value=move || run.repeats.get()
                        on:input=move |ev| run.repeats.set(event_target_value(&ev)) />
                </label>
            </div>
        </fieldset>
    }
}
