//! The About page: what KnobLab is and where its numbers come from.

use leptos::prelude::*;
use leptos::task::spawn_local;

use crate::browser::offline::{self, Status};

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
            <OfflineCopy />
        </section>
    }
}

/// The release running and its offline copy: which release the service
/// worker keeps, and a button that clears it.
#[component]
fn OfflineCopy() -> impl IntoView {
    let release = offline::release().unwrap_or_else(|| "a build without a release name".into());
    let (status, set_status) = signal(None::<Result<Status, String>>);
    let (cleared, set_cleared) = signal(None::<Result<u32, String>>);
    // Asked again while the service worker is being installed (the first
    // visit's), for up to a minute.
    spawn_local(async move {
        for _ in 0..60 {
            let now = offline::status().await;
            let settled = !matches!(now, Ok(Status::Installing | Status::None));
            // The page was left: nobody reads it any more.
            if set_status.try_set(Some(now)).is_some() || settled {
                break;
            }
            crate::browser::http::sleep(1000).await;
        }
    });
    let clear = move |_| {
        spawn_local(async move {
            let _ = set_cleared.try_set(Some(offline::clear().await));
            let _ = set_status.try_set(Some(offline::status().await));
        })
    };
    let said = move || describe(status.get());
    view! {
        <h2>"This copy"</h2>
        <p>"Release " <code data-testid="release">{release}</code></p>
        <p data-testid="offline-status">{said}</p>
        <button type="button" data-testid="offline-clear" on:click=clear>"Clear the offline copy"</button>
        {move || cleared.get().map(|c| match c {
            Ok(n) => view! { <p class="note" data-testid="offline-cleared">{format!("Cleared: {n} cache(s) deleted and the service worker unregistered.")}</p> }.into_any(),
            Err(e) => view! { <p class="error" data-testid="offline-cleared">{format!("Could not clear the offline copy: {e}")}</p> }.into_any(),
        })}
    }
}

/// What the About page says of the offline copy.
fn describe(status: Option<Result<Status, String>>) -> String {
    match status {
        None => "Looking for the offline copy…".into(),
        Some(Ok(Status::Active { version })) if version.is_empty() => {
            "Kept for offline use.".into()
        }
        Some(Ok(Status::Active { version })) => format!(
            "Kept for offline use: release {version}. A reload works without the network; \
             a new release replaces it whole."
        ),
        Some(Ok(Status::Installing)) => "Being kept for offline use…".into(),
        Some(Ok(Status::None)) => {
            "Not kept for offline use (the next visit keeps it again).".into()
        }
        Some(Ok(Status::Unsupported)) => "This browser cannot keep the page offline here \
            (service workers need HTTPS or localhost)."
            .into(),
        Some(Err(e)) => format!("The offline copy cannot be read: {e}"),
    }
}
