//! The rows: each run scored by the core, its episodes keyed against the
//! plan, its intervals bootstrapped.

use std::collections::{BTreeMap, HashMap};

use knoblab_core::bundle::{Bundle, LibraryStamp};
use knoblab_core::metrics::columns::COLUMNS;
use knoblab_core::metrics::pool::Summands;
use knoblab_core::metrics::{run_numbered, ErrorClass, RunMetrics};
use knoblab_core::sim::Trajectory;

use super::bootstrap::{interval, resample, Strata};
use super::keys::{keyed, Keyed, Planned};
use super::plan::Given;
use super::{
    pooled, Coverage, EpisodeEntry, EpisodeState, Estimate, Group, Leaderboard, LeaderboardError,
    Options, Plan, Row, RunInput, RunStatus, TaskKind, FORMAT,
};

/// A run scored and keyed, its trajectories no longer needed: what a
/// row is made of. A file is read, prepared and dropped before the next
/// is read, so memory holds one file's trajectories at a time.
#[derive(Debug, Clone)]
pub struct Prepared {
    name: String,
    library: Option<LibraryStamp>,
    settings: Option<knoblab_core::sim::Settings>,
    keyed: Keyed,
    scored: Result<RunMetrics, knoblab_core::metrics::MetricsError>,
}

/// Scores and keys one run against `bundles`.
pub fn prepare(run: &RunInput, bundles: &[Bundle]) -> Prepared {
    let by_id: HashMap<&str, &Bundle> = bundles
        .iter()
        .map(|b| (b.manifest.id.as_str(), b))
        .collect();
    let numbered: Vec<(usize, &Trajectory)> =
        run.file.episodes.iter().map(|(l, t)| (*l, t)).collect();
    Prepared {
        name: run.name.clone(),
        library: library_of(run),
        settings: run.file.episodes.first().map(|(_, t)| t.settings.clone()),
        keyed: keyed(run, &by_id),
        scored: run_numbered(bundles, &numbered),
    }
}

/// The leaderboard of prepared runs: the plan, then each row.
pub fn assemble(
    runs: Vec<Prepared>,
    given: &[Given],
    options: &Options,
) -> Result<Leaderboard, LeaderboardError> {
    let libraries: Vec<Option<LibraryStamp>> = runs.iter().map(|r| r.library.clone()).collect();
    let reference = most_common(&libraries);
    // A run of the plan's library that cannot be scored stops the board.
    for (r, lib) in runs.iter().zip(&libraries) {
        if let (Err(problem), true) = (&r.scored, *lib == reference) {
            return Err(LeaderboardError::Run {
                file: r.name.clone(),
                problem: Box::new(problem.clone()),
            });
        }
    }
    // The plan: the episodes given, then every key of the runs of the
    // plan's library, once.
    let mut plan: Vec<(String, Planned)> = Vec::new();
    let mut in_plan: HashMap<String, usize> = HashMap::new();
    for Given(key, p) in given {
        if !in_plan.contains_key(key) {
            in_plan.insert(key.clone(), plan.len());
            plan.push((key.clone(), p.clone()));
        }
    }
    let given_count = plan.len();
    let mut placed = vec![false; given_count];
    for (r, lib) in runs.iter().zip(&libraries) {
        if *lib != reference {
            continue;
        }
        for (key, p) in &r.keyed.order {
            match in_plan.get(key) {
                // A given episode is placed as the first run that played
                // it records it (its kind read from the ideal path).
                Some(&i) if i < given_count && !placed[i] => {
                    plan[i].1 = p.clone();
                    placed[i] = true;
                }
                Some(_) => {}
                None => {
                    in_plan.insert(key.clone(), plan.len());
                    plan.push((key.clone(), p.clone()));
                }
            }
        }
    }
    // In key order, so that nothing (the episode lists, the order of
    // episodes within a device that the bootstrap draws from) depends on
    // the order the records were written in.
    plan.sort_by(|a, b| a.0.cmp(&b.0));
    let devices = {
        let mut d: Vec<&str> = plan.iter().map(|(_, p)| p.bundle_id.as_str()).collect();
        d.sort_unstable();
        d.dedup();
        d.len()
    };

    let first_settings: Vec<serde_json::Map<String, serde_json::Value>> = runs
        .iter()
        .map(|r| {
            r.settings
                .as_ref()
                .and_then(|s| serde_json::to_value(s).ok())
                .and_then(|v| v.as_object().cloned())
                .unwrap_or_default()
        })
        .collect();
    let differing = differing_keys(&first_settings);

    let mut rows = Vec::with_capacity(runs.len());
    for (i, run) in runs.into_iter().enumerate() {
        let other = libraries[i] != reference;
        let own_plan: Vec<(String, Planned)>;
        let row_plan: &[(String, Planned)] = if other {
            own_plan = {
                let mut own = run.keyed.order.clone();
                own.sort_by(|a, b| a.0.cmp(&b.0));
                own
            };
            &own_plan
        } else {
            &plan
        };
        let settings = differing
            .iter()
            .map(|k| {
                (
                    k.clone(),
                    first_settings[i]
                        .get(k)
                        .cloned()
                        .unwrap_or(serde_json::Value::Null),
                )
            })
            .collect();
        rows.push(row(run, row_plan, other, settings, options));
    }
    Ok(Leaderboard {
        format: FORMAT.to_string(),
        seed: options.seed,
        resamples: options.resamples,
        confidence: 0.95,
        stratified_by: "device".to_string(),
        plan: Plan {
            episodes: plan.len(),
            devices,
            library: reference,
            given: (!given.is_empty()).then_some(given_count),
            outside_given: if given.is_empty() {
                0
            } else {
                plan.len() - given_count
            },
        },
        runs: rows,
        comparisons: Vec::new(),
    })
}

/// The library of a run's first record (the core refuses a file whose
/// records mix libraries when it scores it).
fn library_of(run: &RunInput) -> Option<LibraryStamp> {
    run.file
        .episodes
        .first()
        .and_then(|(_, t)| t.settings.library.clone())
}

/// The value most runs share; the first run's on a tie.
fn most_common(libraries: &[Option<LibraryStamp>]) -> Option<LibraryStamp> {
    let mut best: Option<(&Option<LibraryStamp>, usize)> = None;
    for l in libraries {
        let n = libraries.iter().filter(|x| *x == l).count();
        if best.is_none_or(|(_, m)| n > m) {
            best = Some((l, n));
        }
    }
    best.and_then(|(l, _)| l.clone())
}

/// The settings keys whose values differ between runs (absent = null).
fn differing_keys(settings: &[serde_json::Map<String, serde_json::Value>]) -> Vec<String> {
    let mut keys: Vec<&String> = settings.iter().flat_map(|m| m.keys()).collect();
    keys.sort_unstable();
    keys.dedup();
    keys.into_iter()
        .filter(|k| {
            let mut values = settings.iter().map(|m| m.get(*k));
            let first = values.next().flatten();
            values.any(|v| v != first)
        })
        .cloned()
        .collect()
}

/// The estimates of COLUMNS over `units` (played episodes' rows) grouped
/// by device, values from `values` (the core's run metrics, or the
/// pooled units), intervals bootstrapped under `label`.
fn column_estimates(
    strata: &Strata<'_>,
    values: &[Option<f64>; 12],
    n: usize,
    n_vsps: usize,
    missing: usize,
    options: &Options,
    label: &str,
) -> BTreeMap<String, Estimate> {
    let draws = resample(strata, options.seed, label, options.resamples, |s| {
        s.values()
    });
    COLUMNS
        .iter()
        .zip(values.iter())
        .zip(draws)
        .map(|((c, v), d)| {
            let ci = if v.is_some() { interval(d) } else { None };
            (
                c.key.to_string(),
                Estimate {
                    value: *v,
                    ci_low: ci.map(|x| x.0),
                    ci_high: ci.map(|x| x.1),
                    n: if c.key == "vsps" { n_vsps } else { n },
                    missing,
                },
            )
        })
        .collect()
}

/// Units grouped by device, devices in id order, units in plan (key) order.
fn strata_of<'a>(units: &[(&'a str, &'a Summands)]) -> Strata<'a> {
    let mut by: BTreeMap<&str, Vec<&Summands>> = BTreeMap::new();
    for (device, s) in units {
        by.entry(device).or_default().push(s);
    }
    by.into_values().collect()
}

fn row(
    run: Prepared,
    plan: &[(String, Planned)],
    other: bool,
    settings: BTreeMap<String, serde_json::Value>,
    options: &Options,
) -> Row {
    let Prepared {
        name,
        library,
        settings: first,
        keyed,
        scored,
    } = run;
    let keyed = &keyed;
    let first = first.as_ref();
    let model = first
        .and_then(|s| s.model.clone())
        .or_else(|| first.map(|s| s.agent.clone()))
        .unwrap_or_default();
    let (metrics, error) = match scored {
        Ok(m) => (Some(m), None),
        Err(e) => (None, Some(e.to_string())),
    };
    let summands: Vec<Summands> = metrics
        .as_ref()
        .map(|m| m.per_episode.iter().map(Summands::of).collect())
        .unwrap_or_default();
    let unplayed = Summands::unplayed();

    // Every plan episode as it stands in this run.
    let mut episodes = Vec::with_capacity(plan.len());
    let mut coverage = Coverage {
        plan: plan.len(),
        ..Coverage::default()
    };
    // (device, category, kind, played row or None) per plan episode.
    let mut units: Vec<(&str, &str, TaskKind, Option<&Summands>)> = Vec::with_capacity(plan.len());
    for (key, p) in plan {
        let (state, line, em) = if let Some(&(line, i)) = keyed.played.get(key) {
            (
                EpisodeState::Played,
                Some(line),
                metrics
                    .as_ref()
                    .and_then(|m| m.per_episode.get(i))
                    .map(|e| (e, i)),
            )
        } else if let Some(&line) = keyed.api_error.get(key) {
            (EpisodeState::ApiError, Some(line), None)
        } else {
            (EpisodeState::Missing, None, None)
        };
        match state {
            EpisodeState::Played => coverage.played += 1,
            EpisodeState::ApiError => coverage.api_error += 1,
            EpisodeState::Missing => coverage.missing += 1,
        }
        units.push((
            p.bundle_id.as_str(),
            p.category.as_str(),
            p.kind,
            em.and_then(|(_, i)| summands.get(i)),
        ));
        episodes.push(EpisodeEntry {
            key: key.clone(),
            bundle_id: p.bundle_id.clone(),
            task_id: p.task_id.clone(),
            category: p.category.clone(),
            kind: p.kind,
            state,
            line,
            sr: em.and_then(|(e, _)| e.metrics.sr),
            ssr: em.and_then(|(e, _)| e.metrics.ssr),
            spl: em.and_then(|(e, _)| e.metrics.spl),
            steps: em.map(|(e, _)| e.counts.steps),
        });
    }
    let missing = coverage.api_error + coverage.missing;
    let status = if other {
        RunStatus::OtherLibrary
    } else if missing > 0 {
        RunStatus::Partial
    } else {
        RunStatus::Complete
    };

    let played: Vec<(&str, &Summands)> = units
        .iter()
        .filter_map(|(d, _, _, s)| s.map(|s| (*d, s)))
        .collect();
    let n_vsps = metrics.as_ref().map_or(0, |m| {
        m.per_episode
            .iter()
            .filter(|e| e.metrics.vsps.is_some())
            .count()
    });
    let strata = strata_of(&played);
    let none = [None; 12];
    let values: [Option<f64>; 12] = match &metrics {
        Some(m) => {
            let mut v = none;
            for (slot, c) in v.iter_mut().zip(COLUMNS.iter()) {
                *slot = (c.get)(&m.metrics);
            }
            v
        }
        None => none,
    };
    let metric_estimates = column_estimates(
        &strata,
        &values,
        played.len(),
        n_vsps,
        missing,
        options,
        "run",
    );

    // Error shares.
    let total = pooled(played.iter().map(|(_, s)| *s));
    let error_draws = resample(&strata, options.seed, "errors", options.resamples, |s| {
        let failed = s.failed_steps();
        let mut out = [None; 7];
        for (slot, c) in out.iter_mut().zip(ErrorClass::ALL) {
            *slot = (failed > 0.0).then(|| s.errors_of(c) / failed);
        }
        out
    });
    let failed = total.failed_steps();
    let errors = ErrorClass::ALL
        .iter()
        .zip(error_draws)
        .map(|(c, d)| {
            let value = (failed > 0.0).then(|| total.errors_of(*c) / failed);
            let ci = if value.is_some() { interval(d) } else { None };
            (
                c.key().to_string(),
                Estimate {
                    value,
                    ci_low: ci.map(|x| x.0),
                    ci_high: ci.map(|x| x.1),
                    n: played.len(),
                    missing,
                },
            )
        })
        .collect();
    let error_counts = metrics
        .as_ref()
        .map(|m| m.metrics.errors.clone())
        .unwrap_or_default();

    // SR and SSR over the plan: unplayed episodes count as failures.
    let plan_units: Vec<(&str, &Summands)> = units
        .iter()
        .map(|(d, _, _, s)| (*d, s.unwrap_or(&unplayed)))
        .collect();
    let plan_strata = strata_of(&plan_units);
    let plan_total = pooled(plan_units.iter().map(|(_, s)| *s));
    let mut plan_draws = resample(&plan_strata, options.seed, "plan", options.resamples, |s| {
        [s.sr(), s.ssr()]
    })
    .into_iter();
    let mut plan_estimate = |value: Option<f64>| {
        let ci = value.and_then(|_| plan_draws.next().and_then(interval));
        Estimate {
            value,
            ci_low: ci.map(|x| x.0),
            ci_high: ci.map(|x| x.1),
            n: plan_units.len(),
            missing: 0,
        }
    };
    let sr_plan = plan_estimate(plan_total.sr());
    let ssr_plan = plan_estimate(plan_total.ssr());

    // Drill-downs.
    let group = |pick: &dyn Fn(&str, TaskKind) -> bool, label: &str| {
        let mut cov = Coverage::default();
        let mut mine: Vec<(&str, &Summands)> = Vec::new();
        for (i, (d, c, k, s)) in units.iter().enumerate() {
            if !pick(c, *k) {
                continue;
            }
            cov.plan += 1;
            match episodes[i].state {
                EpisodeState::Played => cov.played += 1,
                EpisodeState::ApiError => cov.api_error += 1,
                EpisodeState::Missing => cov.missing += 1,
            }
            if let Some(s) = s {
                mine.push((*d, s));
            }
        }
        let sum = pooled(mine.iter().map(|(_, s)| *s));
        let n_vsps = mine.iter().filter(|(_, s)| s.values()[6].is_some()).count();
        let metrics = column_estimates(
            &strata_of(&mine),
            &sum.values(),
            mine.len(),
            n_vsps,
            cov.api_error + cov.missing,
            options,
            label,
        );
        Group {
            coverage: cov,
            metrics,
        }
    };
    let mut categories: Vec<&str> = units.iter().map(|u| u.1).collect();
    categories.sort_unstable();
    categories.dedup();
    let by_category = categories
        .iter()
        .map(|cat| {
            (
                cat.to_string(),
                group(&|c, _| c == *cat, &format!("category:{cat}")),
            )
        })
        .collect();
    let mut kinds: Vec<TaskKind> = units.iter().map(|u| u.2).collect();
    kinds.sort_unstable();
    kinds.dedup();
    let by_kind = kinds
        .iter()
        .map(|kind| {
            (
                kind.key().to_string(),
                group(&|_, k| k == *kind, &format!("kind:{}", kind.key())),
            )
        })
        .collect();

    Row {
        file: name,
        model,
        prompt_version: first.and_then(|s| s.prompt_version.clone()),
        library,
        lambda: first.map_or(knoblab_core::sim::DEFAULT_LAMBDA, |s| s.lambda),
        settings,
        status,
        coverage,
        metrics: metric_estimates,
        errors,
        error_counts,
        sr_plan,
        ssr_plan,
        by_category,
        by_kind,
        error,
        episodes,
    }
}
