//! A leaderboard shown: the table (each cell `value [low, high]` as the
//! exports write it, the raw numbers in `data-` attributes), a chart of SR
//! with its intervals, the drill-downs, the episodes behind any cell with
//! their trajectories, the paired comparison, and the save and exports.
//! Nothing here computes a number: the document is
//! [`knoblab_app::leaderboard`]'s; the comparison, the traces behind a
//! list of episodes and the saved file come from the Leaderboard's
//! worker through [`super::compute`] (the traces stay there: they are most
//! of a big board's bytes).

use std::collections::HashMap;
use std::sync::Arc;

use leptos::prelude::*;

use super::compute::{compute, Reply, Request};
use crate::browser::files;
use knoblab_app::leaderboard::publish::{Published, Trace};
use knoblab_app::leaderboard::{export, Comparison, EpisodeEntry, EpisodeState, Estimate, Row};
use knoblab_core::metrics::columns::{Column, COLUMNS};
use knoblab_eval::play::ShareLink;

/// Which episodes of a row a cell counts.
#[derive(Debug, Clone, PartialEq)]
enum Part {
    /// The whole row.
    All,
    /// One device category.
    Category(String),
    /// One task kind.
    Kind(String),
}

/// The cell whose episodes are listed.
#[derive(Debug, Clone, PartialEq)]
struct Opened {
    row: usize,
    part: Part,
    /// The column's label.
    label: String,
}

/// A number for a `data-` attribute (Rust's shortest round-trip form, so
/// a test reads back exactly the document's value), empty when undefined.
fn raw(v: Option<f64>) -> String {
    v.map(|v| v.to_string()).unwrap_or_default()
}

/// The player's address replaying a recorded episode.
fn trace_href(t: &Trace) -> String {
    let link = ShareLink {
        bundle: t.bundle_id.clone(),
        task: t.task_id.clone(),
        lambda: t.lambda,
        actions: t.actions.clone(),
    };
    format!("#/play?{}", link.to_query())
}

/// The traces of row `row`'s (file `file`) records at `lines`, asked of
/// the worker when `traced`: a signal that fills when they come, by line.
/// A failure is logged and fills it empty: the episodes stay listed,
/// without links.
fn traces_of(
    row: usize,
    file: String,
    lines: Vec<usize>,
    traced: bool,
) -> RwSignal<Option<HashMap<usize, Trace>>> {
    let got = RwSignal::new(None);
    if traced && !lines.is_empty() {
        leptos::task::spawn_local(async move {
            let answer = compute(Request::Traces { row, file, lines }).await;
            let traces = match answer {
                Ok(Reply::Traces(list)) => {
                    list.into_iter().flatten().map(|t| (t.line, t)).collect()
                }
                Ok(_) => {
                    leptos::logging::warn!("the leaderboard's worker answered no traces");
                    HashMap::new()
                }
                Err(e) => {
                    leptos::logging::warn!("{e}");
                    HashMap::new()
                }
            };
            got.set(Some(traces));
        });
    } else {
        got.set(Some(HashMap::new()));
    }
    got
}

/// The link to a recorded episode's trajectory, once its trace is in.
fn trace_link(
    got: RwSignal<Option<HashMap<usize, Trace>>>,
    line: Option<usize>,
    text: &'static str,
    testid: &'static str,
) -> impl IntoView {
    move || {
        got.with(|g| g.as_ref().and_then(|g| g.get(&line?)).map(trace_href))
            .map(|h| view! { <a href=h target="_blank" rel="noopener" data-testid=testid>{text}</a> })
    }
}

/// One estimate as a clickable cell.
fn cell(
    column: &'static Column,
    e: Option<&Estimate>,
    testid: &'static str,
    on_open: impl Fn() + 'static,
) -> impl IntoView {
    let text = export::shown(column, e);
    let (v, lo, hi, n) = match e {
        Some(e) => (raw(e.value), raw(e.ci_low), raw(e.ci_high), e.n.to_string()),
        None => Default::default(),
    };
    view! {
        <td data-testid=testid data-metric=column.key data-value=v data-low=lo data-high=hi data-n=n>
            <button class="link" title="the episodes behind this number" on:click=move |_| on_open()>{text}</button>
        </td>
    }
}

/// The whole board.
#[component]
pub fn BoardView(
    /// The leaderboard (its traces stay in the worker).
    board: Arc<Published>,
    /// Whether it has traces.
    traced: bool,
) -> impl IntoView {
    let opened = RwSignal::new(None::<Opened>);
    let drill = RwSignal::new(String::new());
    let lb = &board.leaderboard;
    let plan = &lb.plan;
    let summary = format!(
        "{} run{}, plan of {} episodes on {} devices ({}); 95% intervals from {} bootstrap resamples (seed {}, stratified by {}).",
        lb.runs.len(),
        if lb.runs.len() == 1 { "" } else { "s" },
        plan.episodes,
        plan.devices,
        knoblab_core::bundle::stamp::describe(plan.library.as_ref()),
        lb.resamples,
        lb.seed,
        lb.stratified_by,
    );
    let save = move |_| {
        leptos::task::spawn_local(async move {
            match compute(Request::Save).await {
                Ok(Reply::Saved(text)) => {
                    if let Err(e) = files::download("leaderboard.json", "application/json", &text) {
                        leptos::logging::error!("{e}");
                    }
                }
                Ok(_) => leptos::logging::error!("the leaderboard's worker saved nothing"),
                Err(e) => leptos::logging::error!("the leaderboard could not be written: {e}"),
            }
        });
    };
    let b = board.clone();
    let export_file = move |kind: &'static str| {
        let board = &b.leaderboard;
        let (name, mime, text) = match kind {
            "md" => ("leaderboard.md", "text/markdown", export::markdown(board)),
            "csv" => ("leaderboard.csv", "text/csv", export::csv(board)),
            _ => ("leaderboard.tex", "application/x-tex", export::latex(board)),
        };
        if let Err(e) = files::download(name, mime, &text) {
            leptos::logging::error!("{e}");
        }
    };
    let export_md = export_file.clone();
    let export_csv = export_file.clone();

    let header = COLUMNS
        .iter()
        .map(|c| view! { <th>{c.heading()}</th> })
        .collect_view();
    let rows = lb
        .runs
        .iter()
        .enumerate()
        .map(|(i, r)| {
            let open = move |label: &str| {
                let label = label.to_string();
                move || opened.set(Some(Opened { row: i, part: Part::All, label: label.clone() }))
            };
            let metrics = COLUMNS
                .iter()
                .map(|c| cell(c, r.metrics.get(c.key), "lb-cell", open(c.label)))
                .collect_view();
            view! {
                <tr data-testid="lb-row" data-file=r.file.clone() data-status=export::status(r)>
                    <td>{i + 1}</td>
                    <td><code>{r.file.clone()}</code></td>
                    <td>{r.model.clone()}</td>
                    <td class:warning=r.status != knoblab_app::leaderboard::RunStatus::Complete>{export::status(r)}</td>
                    <td data-testid="lb-coverage" data-played=r.coverage.played.to_string() data-plan=r.coverage.plan.to_string()
                        data-missing=r.coverage.missing.to_string() data-api-error=r.coverage.api_error.to_string()>
                        {format!("{} / {}", r.coverage.played, r.coverage.plan)}
                    </td>
                    <td>{r.coverage.api_error}</td>
                    <td>{r.coverage.missing}</td>
                    {cell(&COLUMNS[0], Some(&r.sr_plan), "lb-plan-cell", open("SR over plan"))}
                    {metrics}
                </tr>
            }
        })
        .collect_view();

    let b = board.clone();
    let drilled = move || {
        let by = drill.get();
        if by.is_empty() {
            return None;
        }
        let lb = &b.leaderboard;
        let body = lb
            .runs
            .iter()
            .enumerate()
            .flat_map(|(i, r)| {
                let groups = if by == "category" {
                    &r.by_category
                } else {
                    &r.by_kind
                };
                let by = by.clone();
                groups
                    .iter()
                    .map(move |(name, g)| {
                        let part = if by == "category" {
                            Part::Category(name.clone())
                        } else {
                            Part::Kind(name.clone())
                        };
                        let metrics = COLUMNS
                            .iter()
                            .map(|c| {
                                let part = part.clone();
                                let label = format!("{} · {name}", c.label);
                                cell(c, g.metrics.get(c.key), "lb-group-cell", move || {
                                    opened.set(Some(Opened {
                                        row: i,
                                        part: part.clone(),
                                        label: label.clone(),
                                    }))
                                })
                            })
                            .collect_view();
                        view! {
                            <tr data-testid="lb-group-row">
                                <td>{i + 1}</td>
                                <td>{r.model.clone()}</td>
                                <td>{name.clone()}</td>
                                <td>{format!("{} / {}", g.coverage.played, g.coverage.plan)}</td>
                                {metrics}
                            </tr>
                        }
                    })
                    .collect::<Vec<_>>()
            })
            .collect_view();
        let header = COLUMNS
            .iter()
            .map(|c| view! { <th>{c.heading()}</th> })
            .collect_view();
        Some(view! {
            <div class="table-scroll">
                <table class="leaderboard-table" data-testid="lb-drill">
                    <thead><tr><th>"#"</th><th>"Model"</th><th>{if by == "category" { "Category" } else { "Task kind" }}</th><th>"Played / plan"</th>{header}</tr></thead>
                    <tbody>{body}</tbody>
                </table>
            </div>
        })
    };

    let b = board.clone();
    let episodes = move || {
        opened.get().map(|o| view! { <EpisodeList board=b.clone() traced=traced opened=o on_close=Callback::new(move |()| opened.set(None)) /> })
    };

    view! {
        <div class="card leaderboard-card" data-testid="lb-board">
            <p data-testid="lb-summary">{summary}</p>
            <div class="end-actions">
                <button data-testid="lb-save" on:click=save>"Save leaderboard (JSON, with the trajectories)"</button>
                <button data-testid="lb-export-md" on:click=move |_| export_md("md")>"Markdown"</button>
                <button data-testid="lb-export-csv" on:click=move |_| export_csv("csv")>"CSV"</button>
                <button data-testid="lb-export-tex" on:click=move |_| export_file("tex")>"LaTeX"</button>
            </div>
            {(!traced).then(|| view! {
                <p class="warning" data-testid="lb-no-traces">"This document has no trajectories (a --json file): the episodes are listed, but cannot be replayed. `knoblab leaderboard --publish FILE` or this page's Save keeps them."</p>
            })}
            <SrChart runs=board.leaderboard.runs.clone() />
            <div class="table-scroll">
                <table class="leaderboard-table" data-testid="lb-table">
                    <thead><tr>
                        <th>"#"</th><th>"Run"</th><th>"Model"</th><th>"Status"</th><th>"Played / plan"</th><th>"api_error"</th><th>"Missing"</th><th>"SR over plan"</th>
                        {header}
                    </tr></thead>
                    <tbody>{rows}</tbody>
                </table>
            </div>
            <p class="table-note">"Rates in %, ↓ lower is better; [low, high] is the 95% interval. Click a number for the episodes behind it."</p>
            <label>"Drill down "
                <select data-testid="lb-drill-by" on:change=move |e| drill.set(event_target_value(&e))>
                    <option value="">"no"</option>
                    <option value="category">"by device category"</option>
                    <option value="kind">"by task kind"</option>
                </select>
            </label>
            {drilled}
            {episodes}
            <CompareView board=board.clone() traced=traced />
        </div>
    }
}

/// SR per run as a dot with its 95% interval, 0–100%.
#[component]
fn SrChart(runs: Vec<Row>) -> impl IntoView {
    let (left, width, row_h) = (220.0_f64, 420.0_f64, 26.0_f64);
    let height = 24.0 + row_h * runs.len() as f64;
    let x = move |v: f64| left + v.clamp(0.0, 1.0) * width;
    let grid = [0.0, 0.25, 0.5, 0.75, 1.0]
        .into_iter()
        .map(|f| view! {
            <line x1=x(f) x2=x(f) y1="4" y2=height - 16.0 stroke="#d9dfe6" />
            <text x=x(f) y=height - 4.0 text-anchor="middle" font-size="10">{format!("{}%", (f * 100.0) as u32)}</text>
        })
        .collect_view();
    let marks = runs
        .iter()
        .enumerate()
        .map(|(i, r)| {
            let y = 14.0 + i as f64 * row_h;
            let sr = r.metrics.get("sr");
            let value = sr.and_then(|e| e.value);
            let interval = sr.and_then(|e| Some((e.ci_low?, e.ci_high?)));
            let tip = format!("{}: SR {}", r.file, export::shown(&COLUMNS[0], sr));
            let label: String = r.file.chars().rev().take(32).collect::<Vec<_>>().into_iter().rev().collect();
            view! {
                <g data-testid="lb-chart-run" data-value=raw(value)>
                    <title>{tip}</title>
                    <text x=left - 8.0 y=y + 4.0 text-anchor="end" font-size="11">{label}</text>
                    {interval.map(|(lo, hi)| view! {
                        <line x1=x(lo) x2=x(hi) y1=y y2=y stroke="#3a6ea5" stroke-width="2" />
                        <line x1=x(lo) x2=x(lo) y1=y - 5.0 y2=y + 5.0 stroke="#3a6ea5" stroke-width="2" />
                        <line x1=x(hi) x2=x(hi) y1=y - 5.0 y2=y + 5.0 stroke="#3a6ea5" stroke-width="2" />
                    })}
                    {value.map(|v| view! { <circle cx=x(v) cy=y r="4.5" fill="#c0392b" /> })}
                </g>
            }
        })
        .collect_view();
    view! {
        <figure class="lb-chart" data-testid="lb-chart">
            <figcaption>"SR with its 95% interval, per run"</figcaption>
            <svg viewBox=format!("0 0 {} {height}", left + width + 16.0) width=left + width + 16.0 height=height role="img" preserveAspectRatio="xMinYMin meet">
                {grid}
                {marks}
            </svg>
        </figure>
    }
}

/// Whether an episode belongs to the part of a row a cell counts.
fn in_part(e: &EpisodeEntry, part: &Part) -> bool {
    match part {
        Part::All => true,
        Part::Category(c) => e.category == *c,
        Part::Kind(k) => e.kind.key() == k,
    }
}

fn state_label(s: EpisodeState) -> &'static str {
    match s {
        EpisodeState::Played => "played",
        EpisodeState::ApiError => "api_error",
        EpisodeState::Missing => "missing",
    }
}

/// The episodes behind a cell, each with its trajectory.
#[component]
fn EpisodeList(
    board: Arc<Published>,
    traced: bool,
    opened: Opened,
    on_close: Callback<()>,
) -> impl IntoView {
    let Some(row) = board.leaderboard.runs.get(opened.row) else {
        return ().into_any();
    };
    let part_text = match &opened.part {
        Part::All => String::new(),
        Part::Category(c) => format!(", category {c}"),
        Part::Kind(k) => format!(", {k} tasks"),
    };
    let list: Vec<&EpisodeEntry> = row
        .episodes
        .iter()
        .filter(|e| in_part(e, &opened.part))
        .collect();
    let played = list
        .iter()
        .filter(|e| e.state == EpisodeState::Played)
        .count();
    let got = traces_of(
        opened.row,
        row.file.clone(),
        list.iter().filter_map(|e| e.line).collect(),
        traced,
    );
    let title = format!(
        "{} of row {} ({}){part_text}: {} episodes, {played} played",
        opened.label,
        opened.row + 1,
        row.file,
        list.len()
    );
    let body = list
        .into_iter()
        .map(|e| {
            let pct = |v: Option<f64>| {
                v.map(|v| format!("{:.0}", v * 100.0))
                    .unwrap_or_else(|| "–".into())
            };
            view! {
                <tr data-testid="lb-episode" data-key=e.key.clone() data-state=state_label(e.state)>
                    <td><code>{e.key.clone()}</code></td>
                    <td>{e.category.clone()}</td>
                    <td>{e.kind.key()}</td>
                    <td class:error=e.state != EpisodeState::Played>{state_label(e.state)}</td>
                    <td>{e.line.map(|l| l.to_string()).unwrap_or_default()}</td>
                    <td>{pct(e.sr)}</td>
                    <td>{pct(e.ssr)}</td>
                    <td>{pct(e.spl)}</td>
                    <td>{e.steps.map(|s| s.to_string()).unwrap_or_default()}</td>
                    <td>{trace_link(got, e.line, "trajectory", "lb-trace")}</td>
                </tr>
            }
        })
        .collect_view();
    view! {
        <section class="card lb-episodes" data-testid="lb-episodes" data-traces=move || if got.with(Option::is_some) { "in" } else { "coming" }>
            <h3>{title}" "<button class="quiet" data-testid="lb-episodes-close" on:click=move |_| on_close.run(())>"Close"</button></h3>
            <p class="table-note">"SR, SSR and SPL of each episode in %, as scored; a trajectory opens in the player, which plays its actions again: pictures, actions, feedback and the optimal path."</p>
            <div class="table-scroll">
                <table>
                    <thead><tr><th>"Episode"</th><th>"Category"</th><th>"Kind"</th><th>"State"</th><th>"Line"</th><th>"SR"</th><th>"SSR"</th><th>"SPL"</th><th>"Steps"</th><th></th></tr></thead>
                    <tbody>{body}</tbody>
                </table>
            </div>
        </section>
    }
    .into_any()
}

/// Two rows compared: the difference in SR and SSR over the episodes both
/// played, with its paired interval, and where they disagree.
#[component]
fn CompareView(board: Arc<Published>, traced: bool) -> impl IntoView {
    let n = board.leaderboard.runs.len();
    let a = RwSignal::new(0_usize);
    let b = RwSignal::new(if n > 1 { 1 } else { 0 });
    let result = RwSignal::new(None::<Result<Arc<Comparison>, String>>);
    let options = board
        .leaderboard
        .runs
        .iter()
        .enumerate()
        .map(|(i, r)| (i, format!("{} · {}", i + 1, r.file)))
        .collect::<Vec<_>>();
    let select = move |which: RwSignal<usize>, testid: &'static str| {
        let opts = options
            .iter()
            .map(|(i, label)| view! { <option value=i.to_string() selected=which.get_untracked() == *i>{label.clone()}</option> })
            .collect_view();
        view! {
            <select data-testid=testid on:change=move |e| if let Ok(v) = event_target_value(&e).parse() { which.set(v) }>{opts}</select>
        }
    };
    let run = move |_| {
        let request = Request::Compare {
            a: a.get_untracked(),
            b: b.get_untracked(),
        };
        leptos::task::spawn_local(async move {
            result.set(Some(match compute(request).await {
                Ok(Reply::Compared(c)) => Ok(Arc::from(c)),
                Ok(_) => Err("the comparison gave no answer".into()),
                Err(e) => Err(e),
            }));
        });
    };
    let bd = board.clone();
    let shown = move || {
        result.get().map(|r| match r {
            Err(e) => view! { <p class="error" data-testid="lb-compare-error">{e}</p> }.into_any(),
            Ok(c) => view! { <Compared board=bd.clone() traced=traced c=c /> }.into_any(),
        })
    };
    view! {
        <section class="lb-compare" data-testid="lb-compare">
            <h3>"Compare two runs"</h3>
            <p class="table-note">"On the episodes both played: the difference A − B with a paired bootstrap interval (the same episodes drawn for both, within device)."</p>
            <label>"A "{select(a, "lb-compare-a")}</label>" "
            <label>"B "{select(b, "lb-compare-b")}</label>" "
            <button data-testid="lb-compare-run" on:click=run>"Compare"</button>
            {shown}
        </section>
    }
}

/// A comparison's figures and its disagreeing episodes.
#[component]
fn Compared(board: Arc<Published>, traced: bool, c: Arc<Comparison>) -> impl IntoView {
    let pct = |v: Option<f64>| knoblab_core::metrics::percent(v);
    let line = |name: &str,
                d: &knoblab_app::leaderboard::compare::Difference,
                testid: &'static str| {
        view! {
            <li data-testid=testid data-value=raw(d.value) data-low=raw(d.ci_low) data-high=raw(d.ci_high)>
                {format!("{name}: {} [{}, {}] points over {} shared episodes", pct(d.value), pct(d.ci_low), pct(d.ci_high), d.n)}
            </li>
        }
    };
    let lines_of = |row: usize| -> std::collections::HashMap<String, Option<usize>> {
        board
            .leaderboard
            .runs
            .get(row)
            .map(|r| r.episodes.iter().map(|e| (e.key.clone(), e.line)).collect())
            .unwrap_or_default()
    };
    let (la, lb) = (lines_of(c.a), lines_of(c.b));
    // The traces of the listed episodes, for both rows.
    let listed = |lines: &HashMap<String, Option<usize>>| -> Vec<usize> {
        c.only_a
            .iter()
            .chain(&c.only_b)
            .filter_map(|k| lines.get(k).copied().flatten())
            .collect()
    };
    let (ga, gb) = (
        traces_of(c.a, c.a_file.clone(), listed(&la), traced),
        traces_of(c.b, c.b_file.clone(), listed(&lb), traced),
    );
    let list = |keys: &[String], testid: &'static str| {
        keys.iter()
            .map(|k| {
                let (a, b) = (la.get(k).copied().flatten(), lb.get(k).copied().flatten());
                view! {
                    <li data-testid=testid data-key=k.clone()>
                        <code>{k.clone()}</code>" "
                        {trace_link(ga, a, "A's trajectory", "lb-trace-a")}" "
                        {trace_link(gb, b, "B's trajectory", "lb-trace-b")}
                    </li>
                }
            })
            .collect_view()
    };
    view! {
        <div class="lb-compared" data-testid="lb-compared">
            <p>{format!("A = {} · B = {} · {} shared episodes, {} not shared", c.a_file, c.b_file, c.shared, c.not_shared)}</p>
            <ul>
                {line("SR(A) − SR(B)", &c.sr, "lb-diff-sr")}
                {line("SSR(A) − SSR(B)", &c.ssr, "lb-diff-ssr")}
            </ul>
            <h4>{format!("Solved by A, not by B: {}", c.only_a.len())}</h4>
            <ul class="lb-only">{list(&c.only_a, "lb-only-a")}</ul>
            <h4>{format!("Solved by B, not by A: {}", c.only_b.len())}</h4>
            <ul class="lb-only">{list(&c.only_b, "lb-only-b")}</ul>
        </div>
    }
}
