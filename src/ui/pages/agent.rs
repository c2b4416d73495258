//! The Agent page.

use leptos::prelude::*;

use super::NotBuiltYet;

#[component]
pub fn AgentPage() -> impl IntoView {
    view! {
        <NotBuiltYet
            title="Agent"
            plans="Run a vision-language model on the devices with your own API key, one episode at a time or in resumable batches."
        />
    }
}
