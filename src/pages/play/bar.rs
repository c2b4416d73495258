//! The action bar (the tools with their parameters in words, the action
//! text they make, Act) and the view tabs. Choosing changes only the draft;
//! acting and switching views go through [`Player::act`].

use leptos::prelude::*;

use knoblab_core::sim::Action;
use knoblab_eval::play::{view_tabs, Tool};

use super::{use_player, Player};

/// A tool's name in test ids and CSS: `press`, `wait`, `look-closer`.
pub fn tool_id(tool: Tool) -> &'static str {
    match tool {
        Tool::Physical(kind) => kind.atomic_name(),
        Tool::Wait => "wait",
        Tool::SwitchAt => "look-closer",
    }
}

/// Plays the draft's action. After a view change the point is cleared: it
/// was chosen on another picture.
pub fn act_draft(player: Player) {
    let text = match player.draft.with_untracked(|d| d.text()) {
        Ok(text) => text,
        Err(e) => {
            player.notice.set(Some(e.to_string()));
            return;
        }
    };
    act_and_follow(player, &text);
}

/// Plays an action text, clearing the point when the view changed.
pub fn act_and_follow(player: Player, text: &str) {
    let view = |p: Player| {
        p.session
            .with_untracked(|s| s.as_ref().map(|s| s.observation().view.clone()))
    };
    let before = view(player);
    match player.act(text) {
        Ok(_) => {
            if view(player) != before {
                player.draft.update(|d| d.point = None);
            }
        }
        Err(e) => player.notice.set(Some(e)),
    }
}

/// The tools, their parameters and Act.
#[component]
pub fn ActionBar() -> impl IntoView {
    let player = use_player();
    let draft = player.draft;
    let done = move || {
        player
            .session
            .with(|s| s.as_ref().is_none_or(|s| s.is_done()))
    };
    let tool = Memo::new(move |_| draft.with(|d| d.tool));
    let choices = Memo::new(move |_| draft.with(|d| d.choices.clone()));
    let text = Memo::new(move |_| draft.with(|d| d.text()));

    let tools = Tool::ALL
        .iter()
        .enumerate()
        .map(|(i, &t)| {
            view! {
                <button
                    class="tool"
                    data-testid=format!("tool-{}", tool_id(t))
                    aria-pressed=move || if tool.get() == t { "true" } else { "false" }
                    title=t.explanation()
                    on:click=move |_| draft.update(|d| *d = d.with_tool(t))
                >
                    <kbd>{i + 1}</kbd>
                    {t.label()}
                </button>
            }
        })
        .collect_view();

    let params = move || {
        let chosen = choices.get();
        tool.get()
            .slots()
            .into_iter()
            .enumerate()
            .map(|(slot, s)| {
                let key = if slot == 0 { "p" } else { "d" };
                let options = s
                    .choices
                    .iter()
                    .enumerate()
                    .map(|(i, c)| {
                        view! {
                            <option value=i.to_string() selected=chosen.get(slot) == Some(&i)>
                                {format!("{} · {}", c.value, c.label)}
                            </option>
                        }
                    })
                    .collect_view();
                view! {
                    <label class="param">
                        <span>{s.name} " " <kbd>{key}</kbd></span>
                        <select
                            data-testid=format!("param-{}", s.name)
                            on:change=move |ev| {
                                if let Ok(i) = event_target_value(&ev).parse::<usize>() {
                                    draft.update(|d| d.choose(slot, i));
                                }
                            }
                        >
                            {options}
                        </select>
                    </label>
                }
            })
            .collect_view()
    };

    view! {
        <section class="action-bar" data-testid="action-bar" aria-label="Actions">
            <div class="tools" role="toolbar">{tools}</div>
            <p class="tool-help" data-testid="tool-help">{move || tool.get().explanation()}</p>
            <div class="params">{params}</div>
            <div class="act-row">
                {move || match text.get() {
                    Ok(t) => view! { <code class="action-text" data-testid="action-text">{t}</code> }.into_any(),
                    Err(e) => view! { <span class="action-text hint" data-testid="action-text">{e.to_string()}</span> }.into_any(),
                }}
                <button
                    class="act primary"
                    data-testid="act"
                    disabled=move || done() || text.get().is_err()
                    on:click=move |_| act_draft(player)
                >
                    "Act " <kbd>"Enter"</kbd>
                </button>
            </div>
        </section>
    }
}

/// The view tabs: every view of the device; a switch is an action (it
/// costs a step). Axonometric views are marked look-only; the dashboard is
/// shown locked until unlocked.
#[component]
pub fn ViewTabs() -> impl IntoView {
    let player = use_player();
    let tabs = Memo::new(move |_| {
        player.session.with(|s| {
            s.as_ref()
                .map(|s| view_tabs(s.bundle(), s.info().dashboard_unlocked))
                .unwrap_or_default()
        })
    });
    let current = Memo::new(move |_| {
        player
            .session
            .with(|s| s.as_ref().map(|s| s.observation().view.clone()))
    });
    let done = move || {
        player
            .session
            .with(|s| s.as_ref().is_none_or(|s| s.is_done()))
    };
    view! {
        <nav class="view-tabs" data-testid="view-tabs" aria-label="Views">
            {move || {
                tabs.get()
                    .into_iter()
                    .enumerate()
                    .map(|(i, tab)| {
                        let name = tab.name.clone();
                        let here = {
                            let name = name.clone();
                            move || current.get().as_deref() == Some(name.as_str())
                        };
                        let here2 = here.clone();
                        let action = Action::switch_to(&name).to_string();
                        let title = if tab.locked {
                            "Locked: find the control panel on its parent view and act on it (or look closer at it) to unlock"
                        } else if tab.look_only {
                            "Look only: parts cannot be operated in this view"
                        } else {
                            "Switch to this view (one step)"
                        };
                        view! {
                            <button
                                class="view-tab"
                                class:current=here
                                class:locked=tab.locked
                                data-testid=format!("view-{name}")
                                aria-current=move || here2().then_some("true")
                                disabled=move || tab.locked || done()
                                title=title
                                on:click=move |_| act_and_follow(player, &action)
                            >
                                {(i < 9).then(|| view! { <kbd>{format!("⇧{}", i + 1)}</kbd> })}
                                {name.replace('_', " ")}
                                {tab.look_only.then(|| view! { <span class="badge">"look only"</span> })}
                                {tab.locked.then(|| view! { <span class="badge locked">"locked"</span> })}
                            </button>
                        }
                    })
                    .collect_view()
            }}
        </nav>
    }
}
