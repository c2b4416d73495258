//! `#/__panic`: panics on purpose, so a test can check that the panic hook
//! shows the error banner rather than a blank page.

use leptos::prelude::*;

/// Panics when drawn (see the module's docs).
#[component]
pub fn PanicTestPage() -> impl IntoView {
    provoke_panic();
    view! { <p>"The panic test did not panic."</p> }
}

fn provoke_panic() {
    panic!("deliberate panic from #/__panic, used by the tests")
}
