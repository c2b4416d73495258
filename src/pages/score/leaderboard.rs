//! Several scored files of one benchmark as a sortable leaderboard, with
//! the exports of [`knoblab_score::export`] (shown as text and offered as a
//! download).

use leptos::prelude::*;

use crate::browser::files;
use knoblab_app::job::Leaderboard;
use knoblab_score::export;
use knoblab_score::view::{grouped, LeaderRow};

/// One benchmark's leaderboard: a row per scored file, sortable by column, with its exports.
#[component]
pub fn LeaderboardView(
    /// The leaderboard.
    board: Leaderboard,
) -> impl IntoView {
    let Leaderboard { benchmark, rows } = board;
    let columns = rows.first().map(|r| r.columns.clone()).unwrap_or_default();
    let width = (columns.len() + 1).to_string();
    let rows = StoredValue::new(rows);
    let sort = RwSignal::new((None::<usize>, false));
    let shown = Memo::new(move |_| {
        let (c, d) = sort.get();
        rows.with_value(|r| LeaderRow::sorted(r, c, d))
    });
    let text = RwSignal::new(None::<(String, String)>);
    let slug = benchmark.to_lowercase().replace(' ', "-");
    let header = columns
        .iter()
        .enumerate()
        .map(|(i, c)| {
            let arrow = move || match sort.get() {
                (Some(k), true) if k == i => " ▼",
                (Some(k), false) if k == i => " ▲",
                _ => "",
            };
            view! {
                <th>
                    <button class="sort" data-testid="sort" on:click=move |_| sort.update(|(c, d)| {
                        *d = if *c == Some(i) { !*d } else { true };
                        *c = Some(i);
                    })>{c.clone()}{arrow}</button>
                </th>
            }
        })
        .collect_view();
    let buttons = export::Kind::ALL
        .into_iter()
        .map(|kind| {
            let (label, ext) = (kind.label(), kind.extension());
            let name = format!("knoblab-{slug}.{ext}");
            view! {
                <button data-testid=format!("export-{ext}") on:click=move |_| {
                    let t = kind.text(&shown.get_untracked());
                    // A refused download still shows the text below.
                    let _ = files::download(&name, kind.media_type(), &t);
                    text.set(Some((label.to_string(), t)));
                }>{label}</button>
            }
        })
        .collect_view();
    view! {
        <section class="leaderboard card" data-testid="leaderboard" data-benchmark=benchmark.clone()>
            <h2>{format!("{benchmark}: leaderboard")}</h2>
            <div class="scroll-x">
                <table class="score-table">
                    <thead><tr><th>"run"</th>{header}</tr></thead>
                    <tbody>
                        {move || {
                            let rows = shown.get();
                            // The core groups the rows (SWITCH: by model access); a sort holds inside each group.
                            grouped(&rows).into_iter().map(|g| {
                                let heading = g.label.map(|label| view! {
                                    <tr class="group-row" data-testid="leader-group">
                                        <th colspan=width.clone() scope="rowgroup">{label.to_string()}</th>
                                    </tr>
                                });
                                let group = g.label.unwrap_or_default().to_string();
                                let body = g.rows.into_iter().map(|r| {
                                    let name = r.model.clone().map_or(r.file.clone(), |m| format!("{m} ({})", r.file));
                                    view! {
                                        <tr data-testid="leader-row" data-group=group.clone()>
                                            <td>{name}</td>
                                            {r.values.iter().enumerate().map(|(i, v)| view! { <td data-value=v.map(|v| v.to_string())>{r.text(i)}</td> }).collect_view()}
                                        </tr>
                                    }
                                }).collect_view();
                                view! { {heading}{body} }
                            }).collect_view()
                        }}
                    </tbody>
                </table>
            </div>
            <div class="exports">"Export: "{buttons}</div>
            {move || text.get().map(|(label, t)| view! {
                <details open class="export-text">
                    <summary>{label}</summary>
                    <pre data-testid="export-text">{t}</pre>
                </details>
            })}
        </section>
    }
}
