//! Drawing a [`ReportView`]: its tables (each aggregate cell carries the
//! CLI JSON pointer and value it shows), SVG bar charts, and the per-item
//! table with filters and a drill-down. Nothing is computed here; all text
//! is inserted as text, never as HTML.

use leptos::prelude::*;

use knoblab_app::job::Download;
use knoblab_core::display::percent;
use knoblab_score::view::{
    ChartView, ItemFilter, ItemView, ItemsView, Overlay, ReportView, Shape, TableView,
};

/// How many filtered items the table lists at once (a screenful; the
/// pager shows the others).
const PAGE_ITEMS: usize = 25;

/// Asks the worker for an item's drill-down: the report's file, the item's
/// index, and where the answer goes.
pub type ItemFetch = Callback<(String, usize, Callback<Result<ItemView, String>>)>;

/// One scored file.
#[component]
pub fn Report(
    /// The report.
    view: ReportView,
    /// The URL of an item's image, by its path, when the page has it.
    #[prop(into)]
    image_url: Callback<String, Option<String>>,
    /// Files the core made for this report (SWITCH's submission row).
    #[prop(optional)]
    downloads: Vec<Download>,
    /// Where an item's drill-down comes from when the view's items come
    /// without it ([`ItemsView::on_demand`]).
    #[prop(optional)]
    fetch_item: Option<ItemFetch>,
) -> impl IntoView {
    let ReportView {
        benchmark,
        file,
        detected,
        notes,
        unused,
        tables,
        charts,
        items,
        ..
    } = view;
    view! {
        <section class="score-report card" data-testid="score-report" data-file=file.clone() data-benchmark=benchmark.clone()>
            <h2>{format!("{benchmark}: {file}")}</h2>
            <p class="detected" data-testid="report-detected">{format!("detected: {detected}")}</p>
            <ul class="notes">{notes.into_iter().map(|n| view! { <li>{n}</li> }).collect_view()}</ul>
            {(!unused.is_empty()).then(|| view! { <Unused unused=unused /> })}
            {(!downloads.is_empty()).then(|| view! {
                <div class="exports" data-testid="report-downloads">"Download: "
                    {downloads.into_iter().map(|d| {
                        let testid = format!("download-{}", d.name.rsplit('.').next().unwrap_or("file"));
                        let testid = if d.label.starts_with("Submission") { "download-submission".to_string() } else { testid };
                        view! {
                            <button data-testid=testid title=d.name.clone() on:click=move |_| { let _ = crate::browser::files::download(&d.name, &d.mime, &d.text); }>{d.label.clone()}</button>
                        }
                    }).collect_view()}
                </div>
            })}
            <div class="report-charts">{charts.into_iter().map(|c| view! { <BarChart chart=c /> }).collect_view()}</div>
            {tables.into_iter().map(|t| view! { <Table table=t /> }).collect_view()}
            {(!items.rows.is_empty()).then(|| view! { <Items items=items file=file.clone() image_url=image_url fetch_item=fetch_item /> })}
        </section>
    }
}

/// What the numbers do not use (issue #47), above the tables: how many
/// of each kind, and every item with its file and line (folded when long).
#[component]
fn Unused(unused: Vec<knoblab_core::input::unused::Unused>) -> impl IntoView {
    let summary = knoblab_core::input::unused::summary(&unused);
    let count = unused.len();
    view! {
        <details class="unused" data-testid="report-unused" data-count=count.to_string() open={count <= 5}>
            <summary>{format!("Not used: {summary}")}</summary>
            <ul>
                {unused.into_iter().map(|u| view! {
                    <li data-kind=u.kind.name()>{u.to_string()}</li>
                }).collect_view()}
            </ul>
        </details>
    }
}

/// A table of the report; a heading row (the paper's column groups, a
/// group of model rows) draws each heading over the columns it runs over.
/// Column groups ([`TableView::column_group_rows`]) go above the column
/// names, as the paper prints them; a row group's heading stays in the body.
#[component]
pub fn Table(
    /// The table.
    table: TableView,
) -> impl IntoView {
    let above = table.column_group_rows();
    let heading = |i: usize| {
        let cells = table
            .spans(i)
            .into_iter()
            .map(|(text, n)| view! { <th class="group-cell" colspan=n.to_string()>{text.to_string()}</th> })
            .collect_view();
        view! { <tr class="group-row">{cells}</tr> }
    };
    let groups = above.iter().map(|&i| heading(i)).collect_view();
    let body = (0..table.rows.len())
        .filter(|i| !above.contains(i))
        .map(|i| {
            if table.span_rows.contains(&i) {
                heading(i).into_any()
            } else {
                let cells = table.rows[i]
                    .iter()
                    .cloned()
                    .map(|c| {
                        let value = c.value.map(|v| v.to_string());
                        view! { <td data-pointer=c.pointer data-value=value>{c.text}</td> }
                    })
                    .collect_view();
                view! { <tr>{cells}</tr> }.into_any()
            }
        })
        .collect_view();
    let TableView {
        id,
        title,
        note,
        header,
        ..
    } = table;
    view! {
        <div class="table-wrap" data-testid=format!("table-{id}")>
            <h3>{title}</h3>
            {note.map(|n| view! { <p class="table-note">{n}</p> })}
            <div class="scroll-x">
                <table class="score-table">
                    <thead>{groups}<tr>{header.into_iter().map(|h| view! { <th>{h}</th> }).collect_view()}</tr></thead>
                    <tbody>{body}</tbody>
                </table>
            </div>
        </div>
    }
}

/// Series colours, in order.
const COLOURS: [&str; 3] = ["#1f3b57", "#e5533d", "#1d7a4f"];

/// A bar chart of values in 0–1: a group per label, a bar per series.
#[component]
pub fn BarChart(
    /// The chart.
    chart: ChartView,
) -> impl IntoView {
    let ChartView {
        title,
        series,
        groups,
    } = chart;
    let per = series.len().max(1) as f64;
    let (bar, gap, top, height) = (14.0, 12.0, 16.0, 120.0);
    let group_w = bar * per + gap;
    let width = (groups.len() as f64 * group_w + 40.0).max(240.0);
    let total_h = top + height + 48.0;
    let bars = groups
        .iter()
        .enumerate()
        .flat_map(|(g, group)| {
            let x0 = 36.0 + g as f64 * group_w;
            let label_x = x0 + bar * per / 2.0;
            let label = group.label.clone();
            let bars = group
                .values
                .iter()
                .enumerate()
                .map(move |(s, v)| {
                    let value = v.unwrap_or(0.0).clamp(0.0, 1.0);
                    let h = value * height;
                    let tip = format!("{}: {}", label_text(v), percent(*v));
                    view! {
                        <rect x=x0 + s as f64 * bar y=top + height - h width=bar - 2.0 height=h fill=COLOURS[s % COLOURS.len()]>
                            <title>{tip}</title>
                        </rect>
                    }
                })
                .collect_view();
            [view! {
                <g>
                    {bars}
                    <text x=label_x y=top + height + 14.0 text-anchor="end" font-size="10" transform=format!("rotate(-35 {label_x} {})", top + height + 14.0)>{label}</text>
                </g>
            }]
        })
        .collect_view();
    let grid = [0.0, 0.5, 1.0]
        .into_iter()
        .map(|f| {
            let y = top + height - f * height;
            view! {
                <line x1="30" x2=width y1=y y2=y stroke="#d9dfe6" />
                <text x="28" y=y + 3.0 text-anchor="end" font-size="9">{format!("{}", (f * 100.0) as u32)}</text>
            }
        })
        .collect_view();
    let legend = series
        .iter()
        .enumerate()
        .map(|(i, s)| view! { <span class="legend"><i style=format!("background:{}", COLOURS[i % COLOURS.len()])></i>{s.clone()}</span> })
        .collect_view();
    view! {
        <figure class="bar-chart" data-testid="bar-chart">
            <figcaption>{title}" "{legend}</figcaption>
            // Never drawn larger than 1.5× its own units, so few bars stay slim.
            <svg viewBox=format!("0 0 {width} {total_h}") style=format!("max-width:{}px", width * 1.5) role="img" preserveAspectRatio="xMinYMin meet">
                {grid}
                {bars}
            </svg>
        </figure>
    }
}

fn label_text(v: &Option<f64>) -> &'static str {
    if v.is_some() {
        "value"
    } else {
        "no items"
    }
}

/// The per-item table with its filters, a page of rows at a time, and the
/// drill-down of the chosen item (asked of the worker when the items come
/// without it).
#[component]
pub fn Items(
    /// The items and the filter menu's tasks.
    items: ItemsView,
    /// The report's file, which the worker's drill-down is asked for.
    file: String,
    /// The URL of an item's image, by its path, when the page has it.
    image_url: Callback<String, Option<String>>,
    /// Where an on-demand item's drill-down comes from.
    fetch_item: Option<ItemFetch>,
) -> impl IntoView {
    let tasks = items.tasks.clone();
    let total = items.rows.len();
    let on_demand = items.on_demand;
    let items = StoredValue::new(items);
    let task = RwSignal::new(String::new());
    let invalid_only = RwSignal::new(false);
    let min = RwSignal::new(0.0_f64);
    let max = RwSignal::new(100.0_f64);
    let page = RwSignal::new(0_usize);
    let chosen = RwSignal::new(None::<usize>);
    // The drill-down the worker sent, with the item it is of.
    let fetched = RwSignal::new(None::<(usize, Result<ItemView, String>)>);
    let filtered = Memo::new(move |_| {
        let filter = ItemFilter {
            task: task.get(),
            invalid_only: invalid_only.get(),
            min_percent: min.get(),
            max_percent: max.get(),
        };
        items.with_value(|items| items.filtered(&filter))
    });
    let pages = move || filtered.with(|f| f.len().div_ceil(PAGE_ITEMS).max(1));
    let shown_page = move || page.get().min(pages() - 1);
    let file = StoredValue::new(file);
    let open = move |i: usize| {
        chosen.set(Some(i));
        if !on_demand {
            return;
        }
        fetched.set(None);
        let Some(fetch) = fetch_item else {
            fetched.set(Some((i, Err("no worker answers for this report".into()))));
            return;
        };
        let reply = Callback::new(move |r: Result<ItemView, String>| {
            if chosen.get_untracked() == Some(i) {
                fetched.set(Some((i, r)));
            }
        });
        fetch.run((file.get_value(), i, reply));
    };
    let number_input = move |signal: RwSignal<f64>, label: &'static str, testid: &'static str| {
        view! {
            <label>{label}" "
                <input type="number" min="0" max="100" step="1" data-testid=testid prop:value=move || signal.get().to_string()
                    on:input=move |e| { if let Ok(v) = event_target_value(&e).parse::<f64>() { signal.set(v); page.set(0); } } />
            </label>
        }
    };
    view! {
        <div class="items" data-testid="items">
            <h3>"Items"</h3>
            <div class="filters">
                <label>"Task "
                    <select data-testid="filter-task" on:change=move |e| { task.set(event_target_value(&e)); page.set(0); }>
                        <option value="">"all"</option>
                        {tasks.into_iter().map(|t| view! { <option value=t.clone()>{t.clone()}</option> }).collect_view()}
                    </select>
                </label>
                <label><input type="checkbox" data-testid="filter-invalid" on:change=move |e| { invalid_only.set(event_target_checked(&e)); page.set(0); } />" invalid only"</label>
                {number_input(min, "score ≥", "filter-min")}
                {number_input(max, "≤", "filter-max")}
                <span class="count" data-testid="items-count">{move || format!("{} of {total} items", filtered.with(Vec::len))}</span>
            </div>
            <div class="scroll-x">
                <table class="score-table items-table">
                    <thead><tr><th>"item"</th><th>"task"</th><th>"score"</th><th>"note"</th></tr></thead>
                    <tbody>
                        {move || {
                            let start = shown_page() * PAGE_ITEMS;
                            let shown: Vec<usize> = filtered.with(|f| f.iter().skip(start).take(PAGE_ITEMS).copied().collect());
                            shown
                                .into_iter()
                                .map(|i| {
                                    let r = items.with_value(|items| items.rows.get(i).cloned());
                                    r.map(|r| {
                                        view! {
                                            <tr class:invalid=r.invalid class:chosen=move || chosen.get() == Some(i) on:click=move |_| open(i)
                                                data-testid="item-row" tabindex="0">
                                                <td>{r.id}</td>
                                                <td>{r.task}</td>
                                                <td>{percent(r.score)}</td>
                                                <td class="item-note">{r.summary}</td>
                                            </tr>
                                        }
                                    })
                                })
                                .collect_view()
                        }}
                    </tbody>
                </table>
            </div>
            {move || (pages() > 1).then(|| {
                let n = filtered.with(Vec::len);
                let first = shown_page() * PAGE_ITEMS;
                let last = (first + PAGE_ITEMS).min(n);
                view! {
                    <div class="pager" data-testid="items-pager">
                        <button data-testid="items-prev" disabled={move || shown_page() == 0} on:click=move |_| page.set(shown_page().saturating_sub(1))>"‹ previous"</button>
                        <span data-testid="items-range">{format!("{}–{last} of {n}", first + 1)}</span>
                        <button data-testid="items-next" disabled={move || shown_page() + 1 >= pages()} on:click=move |_| page.set(shown_page() + 1)>"next ›"</button>
                    </div>
                }
            })}
            {move || chosen.get().and_then(|i| {
                if on_demand {
                    fetched.get().filter(|(j, _)| *j == i).map(|(_, r)| match r {
                        Ok(item) => view! { <Drill item=item image_url=image_url /> }.into_any(),
                        Err(e) => view! { <p class="error" data-testid="drill-error">{e}</p> }.into_any(),
                    })
                } else {
                    items.with_value(|items| items.rows.get(i).cloned()).map(|r| view! { <Drill item=r image_url=image_url /> }.into_any())
                }
            })}
        </div>
    }
}

/// One item's details, and its shapes over its image when there are any.
#[component]
fn Drill(item: ItemView, image_url: Callback<String, Option<String>>) -> impl IntoView {
    let ItemView {
        id,
        details,
        overlay,
        ..
    } = item;
    view! {
        <div class="drill" data-testid="drill">
            <h4>{id}</h4>
            {overlay.map(|o| view! { <OverlayView overlay=o image_url=image_url /> })}
            <dl>
                {details
                    .into_iter()
                    .map(|(k, v)| view! { <dt>{k}</dt><dd><pre>{v}</pre></dd> })
                    .collect_view()}
            </dl>
        </div>
    }
}

/// Boxes (ground truth dashed), points and paths over the item's image.
#[component]
fn OverlayView(overlay: Overlay, image_url: Callback<String, Option<String>>) -> impl IntoView {
    let (w, h) = (overlay.width.unwrap_or(1.0), overlay.height.unwrap_or(1.0));
    let stroke = w.max(h) / 200.0;
    let href = overlay.image.clone().and_then(|p| image_url.run(p));
    let has_image = href.is_some();
    let shapes = overlay
        .shapes
        .into_iter()
        .map(|s| match s {
            Shape::Box { rect: [x0, y0, x1, y1], gt } => view! {
                <rect x=x0.min(x1) y=y0.min(y1) width=(x1 - x0).abs() height=(y1 - y0).abs() fill="none"
                    stroke=if gt { "#1d7a4f" } else { "#e5533d" } stroke-width=stroke stroke-dasharray=if gt { format!("{} {}", stroke * 3.0, stroke * 2.0) } else { String::new() } />
            }
            .into_any(),
            Shape::Point { at: [x, y], label, .. } => view! {
                <g>
                    <circle cx=x cy=y r=stroke * 3.0 fill="#e5533d" />
                    <text x=x + stroke * 4.0 y=y font-size=stroke * 10.0>{label}</text>
                </g>
            }
            .into_any(),
            Shape::Mask { runs } => {
                let d: String = runs.iter().map(|[x, y0, y1]| format!("M{x} {y0}h1v{}h-1z", y1 - y0)).collect();
                view! { <path d=d fill="#1d7a4f" fill-opacity="0.45" /> }.into_any()
            }
            Shape::Path { points } => {
                let d = points.iter().map(|[x, y]| format!("{x},{y}")).collect::<Vec<_>>().join(" ");
                view! { <polyline points=d fill="none" stroke="#e5533d" stroke-width=stroke /> }.into_any()
            }
        })
        .collect_view();
    view! {
        <figure class="overlay">
            <svg viewBox=format!("0 0 {w} {h}") data-testid="overlay">
                {href.map(|u| view! { <image href=u x="0" y="0" width=w height=h preserveAspectRatio="none" /> })}
                {(!has_image).then(|| view! { <rect x="0" y="0" width=w height=h fill="#eef1f4" /> })}
                {shapes}
            </svg>
            <figcaption>{if has_image { "Ground truth green, predictions red." } else { "The image is not among the dropped files: shapes only. Ground truth green, predictions red." }}</figcaption>
        </figure>
    }
}
