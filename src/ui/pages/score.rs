//! The Score page.

use leptos::prelude::*;

use super::NotBuiltYet;

#[component]
pub fn ScorePage() -> impl IntoView {
    view! {
        <NotBuiltYet
            title="Score"
            plans="Drop a results file of EPIC-Bench, FineState-Bench or SWITCH, or KnobLab trajectories, and get the paper's tables, computed in your browser."
        />
    }
}
