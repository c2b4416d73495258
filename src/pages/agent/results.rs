//! A run's results: the metrics of the scored episodes (`vlm::BatchReport`,
//! which keeps `api_error` episodes apart), the episodes that failed on the
//! API with their errors, and the exports.

use leptos::prelude::*;

use knoblab_core::metrics::columns;
use knoblab_eval::vlm::{BatchReport, EpisodeRecord};

/// The metrics table and the list of `api_error` episodes.
#[component]
pub fn Results(
    /// The metrics of the scored episodes: none before the first, an
    /// error when they cannot be computed.
    #[prop(into)]
    report: Signal<Option<Result<BatchReport, String>>>,
    /// The batch's episodes; those that failed on the API are listed.
    #[prop(into)]
    records: Signal<Vec<EpisodeRecord>>,
) -> impl IntoView {
    let table = move || {
        report.with(|r| match r {
            None => view! { <p class="muted">"No finished episode yet."</p> }.into_any(),
            Some(Err(e)) => view! { <p class="bad">{e.clone()}</p> }.into_any(),
            Some(Ok(report)) => {
                let m = report.metrics.as_ref().map(|r| r.metrics.clone());
                let cells: Vec<(&str, String)> = match &m {
                    Some(m) => columns::rates_first().map(|c| (c.label, c.show(m))).collect(),
                    None => Vec::new(),
                };
                view! {
                    <p data-testid="agent-report-counts">
                        {format!("{} episodes scored; {} ended as api_error and are not scored (they say nothing about the model).",
                            report.scored, report.api_errors)}
                    </p>
                    <div class="table-wrap">
                        <table class="metrics" data-testid="agent-metrics">
                            <thead><tr>{cells.iter().map(|(h, _)| view! { <th>{h.to_string()}</th> }).collect_view()}</tr></thead>
                            <tbody><tr>{cells.iter().map(|(_, v)| view! { <td>{v.clone()}</td> }).collect_view()}</tr></tbody>
                        </table>
                    </div>
                }
                .into_any()
            }
        })
    };
    let failures = move || {
        records.with(|rs| {
            rs.iter()
                .filter_map(|r| r.api_error().map(|e| (r.item.clone(), e.to_string())))
                .map(|(item, e)| view! { <li><code>{item}</code>": "{e}</li> })
                .collect_view()
        })
    };
    view! {
        <section class="agent-results" data-testid="agent-results">
            <h2>"Results"</h2>
            {table}
            <ul class="api-errors" data-testid="agent-api-error-list">{failures}</ul>
        </section>
    }
}
