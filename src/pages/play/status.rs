//! Where the episode stands: the current instruction (goal k of n), the
//! global and local budgets as meters, and the feedback log. All of it is
//! read from the session; nothing is computed here.

use leptos::prelude::*;

use super::use_player;

/// "Goal k of n" and its instruction, or how the episode ended.
#[component]
pub fn Instruction() -> impl IntoView {
    let player = use_player();
    let line = Memo::new(move |_| {
        player.session.with(|s| {
            s.as_ref().map(|s| {
                let info = s.info();
                let t = s.trajectory();
                let heading = if t.terminated && info.goals_total == 1 {
                    "Goal reached".to_string()
                } else if t.terminated {
                    format!("All {} goals reached", info.goals_total)
                } else if t.truncated {
                    format!(
                        "Out of budget: {} of {} goals reached",
                        info.goal_index, info.goals_total
                    )
                } else {
                    format!("Goal {} of {}", info.goal_index + 1, info.goals_total)
                };
                (
                    heading,
                    s.observation().instruction.clone().unwrap_or_default(),
                    t.terminated,
                    t.truncated,
                )
            })
        })
    });
    view! {
        <section class="instruction" data-testid="instruction" aria-live="polite">
            {move || {
                line.get()
                    .map(|(heading, text, terminated, truncated)| {
                        view! {
                            <p class="goal" class:ok=terminated class:bad=truncated data-testid="goal">
                                {heading}
                            </p>
                            <p class="instruction-text" data-testid="instruction-text">{text}</p>
                        }
                    })
            }}
        </section>
    }
}

/// The two budgets as meters: steps left of the global budget, and of the
/// current goal's local budget.
#[component]
pub fn Budgets() -> impl IntoView {
    let player = use_player();
    let budgets = Memo::new(move |_| {
        player.session.with(|s| {
            s.as_ref().map(|s| {
                let info = s.info();
                (
                    info.budget_global,
                    info.budget_global_total,
                    info.budget_local,
                    s.local_budget_ceiling(),
                    info.steps,
                )
            })
        })
    });
    let meter = |label: &'static str, testid: &'static str, left: u32, of: u32| {
        let low = of > 0 && left * 5 <= of;
        view! {
            <div class="budget" data-testid=testid>
                <span class="budget-label">{label}</span>
                <meter min="0" max=of.to_string() value=left.to_string() low=(of / 5).to_string() optimum=of.to_string()></meter>
                <span class="budget-value" class:bad=low>{format!("{left} of {of} steps left")}</span>
            </div>
        }
    };
    view! {
        <section class="budgets" data-testid="budgets" aria-label="Budgets">
            {move || {
                budgets
                    .get()
                    .map(|(global, global_total, local, local_max, steps)| {
                        view! {
                            {meter("Global budget", "budget-global", global, global_total)}
                            {meter("This goal", "budget-local", local, local_max)}
                            <p class="steps-taken" data-testid="steps-taken">{format!("{steps} step{} taken", if steps == 1 { "" } else { "s" })}</p>
                        }
                    })
            }}
        </section>
    }
}

/// What each step did, the latest first.
#[component]
pub fn FeedbackLog() -> impl IntoView {
    let player = use_player();
    let entries = Memo::new(move |_| {
        player.session.with(|s| {
            s.as_ref()
                .map(|s| {
                    s.trajectory()
                        .steps
                        .iter()
                        .enumerate()
                        .rev()
                        .map(|(i, step)| {
                            (
                                i + 1,
                                step.action.clone(),
                                step.feedback.clone(),
                                step.outcome.as_str(),
                            )
                        })
                        .collect::<Vec<_>>()
                })
                .unwrap_or_default()
        })
    });
    view! {
        <section class="feedback-log" aria-label="Feedback">
            <h3>"Feedback"</h3>
            <ol reversed data-testid="feedback-log">
                {move || {
                    let list = entries.get();
                    if list.is_empty() {
                        return view! { <li class="empty">"Nothing yet: choose an action and a point, then act."</li> }.into_any();
                    }
                    list.into_iter()
                        .map(|(n, action, feedback, outcome)| {
                            view! {
                                <li class=format!("outcome-{outcome}") data-testid="feedback-entry" value=n.to_string()>
                                    <code>{action}</code>
                                    <span class="feedback">{feedback}</span>
                                </li>
                            }
                        })
                        .collect_view()
                        .into_any()
                }}
            </ol>
        </section>
    }
}
