//! The About page: what KnobLab is and where its numbers come from.

use leptos::prelude::*;

/// The About page: what KnobLab is and what each of its pages does.
#[component]
pub fn AboutPage() -> impl IntoView {
    view! {
        <section class="page about" data-testid="about">
            <h1>"About KnobLab"</h1>
            <p>
                "KnobLab is a workbench for embodied and GUI-agent evaluation that runs in your browser. "
                "It simulates household devices the way the VGEBench benchmark does: a device is a state machine "
                "with pictures from several views, and you, or a model, act on a picture to press, push, pull, "
                "rotate or grasp its parts."
            </p>
            <h2>"What it does"</h2>
            <ul>
                <li>"Play: operate a device and reach its goals within a budget; the same interface records human baselines."</li>
                <li>"Agent: run a vision-language model on the devices with your own API key, from this page."</li>
                <li>"Score: score EPIC-Bench, FineState-Bench and SWITCH results with the numbers of each benchmark's official code."</li>
            </ul>
            <h2>"Privacy"</h2>
            <p>
                "There is no KnobLab server. Files you open are read in this tab; a model is called only at the "
                "address you type, with your key, which is kept in memory unless you ask for it to be remembered."
            </p>
            <p class="version">"Version " {env!("CARGO_PKG_VERSION")}</p>
        </section>
    }
}
