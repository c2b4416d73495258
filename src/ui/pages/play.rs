//! The Play page.

use leptos::prelude::*;

use super::NotBuiltYet;

#[component]
pub fn PlayPage() -> impl IntoView {
    view! {
        <NotBuiltYet
            title="Play"
            plans="Operate a device by clicking on its pictures: press, pull, push, rotate, grasp, switch views, and reach the goals within the budget. It is also the human-baseline interface."
        />
    }
}
