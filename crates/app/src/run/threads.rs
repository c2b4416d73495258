//! The runner's threads: [`evaluate`] starts them over a plan, each
//! playing one episode at a time through the episode driver, and every
//! finished episode is appended to the output as it ends.

use super::*;

/// The shared state of a run's threads.
struct Shared<'p> {
    plan: &'p EvalPlan,
    options: &'p EvalOptions,
    bundles: BTreeMap<String, Arc<Bundle>>,
    queue: Mutex<VecDeque<BatchItem>>,
    output: Mutex<Output>,
    /// Items with a record, tokens and cost so far.
    tally: Mutex<(usize, Usage, Option<f64>)>,
    ran: Mutex<usize>,
    problems: Mutex<Vec<String>>,
    error: Mutex<Option<EvalError>>,
    /// Raised when no episode may start any more (max cost, an error).
    halt: AtomicBool,
    max_cost_hit: AtomicBool,
    client: http::Client,
    /// (the plan's request URL, the one sent to instead) with `send_to`.
    route: Option<(String, String)>,
    /// The model-call cache, and how it served.
    cache: Option<cache::Cache>,
    cache_tally: Mutex<cache::CacheTally>,
}

/// Plays the plan's items that have no record in `out` yet, `concurrency`
/// at a time, appending each finished episode to `out` as it ends.
/// `progress` hears every event (from the worker threads). Raising
/// `cancel` stops it: no new request is sent, episodes in flight are
/// dropped (they run again on resume), and it returns
/// [`Stop::Cancelled`] once every thread has stopped (at worst after a
/// request's timeout).
pub fn evaluate(
    plan: &EvalPlan,
    options: &EvalOptions,
    out: &Path,
    progress: &(dyn Fn(&EvalEvent) + Sync),
    cancel: &AtomicBool,
) -> Result<EvalOutcome, EvalError> {
    if plan.spec.items.is_empty() {
        return Err(EvalError::EmptyPlan);
    }
    let total = plan.spec.items.len();
    if let Some(bad) = options
        .select
        .as_ref()
        .and_then(|s| s.iter().find(|&&p| p >= total))
    {
        return Err(EvalError::Option {
            problem: Box::new(super::OptionProblem::NotInPlan { bad: *bad, total }),
        });
    }
    // Only runs that send requests use a cache; a bad folder stops the
    // run before anything is sent.
    let cache = match &options.cache {
        Some(dir) if plan.spec.source.sends_requests() => Some(cache::Cache::open(dir)?),
        _ => None,
    };
    let finished = read_finished(out)?;
    check_output(plan, out, &finished)?;
    // The repair happens under the file's lock, so it is safe while other
    // shards write (see `Output`).
    let output = Output::open(out, &finished, true)?;
    let mut todo = plan.spec.remaining(&finished.records);
    if let Some(select) = &options.select {
        let chosen: std::collections::BTreeSet<String> =
            select.iter().map(|&p| plan.spec.items[p].key()).collect();
        todo.retain(|item| chosen.contains(&item.key()));
    }
    if let Some(shard) = options.shard {
        let count = shard.count.max(1);
        let position: HashMap<String, usize> = plan
            .spec
            .items
            .iter()
            .enumerate()
            .map(|(i, item)| (item.key(), i))
            .collect();
        todo.retain(|item| {
            position
                .get(&item.key())
                .is_some_and(|p| p % count == shard.index)
        });
    }
    let mut usage = Usage::default();
    let mut cost: Option<f64> = None;
    let planned: std::collections::BTreeSet<String> =
        plan.spec.items.iter().map(BatchItem::key).collect();
    let mine: Vec<&EpisodeRecord> = finished
        .records
        .iter()
        .filter(|r| planned.contains(&r.item))
        .collect();
    for r in &mine {
        usage.add(r.usage);
        if let Some(c) = r.cost {
            cost = Some(cost.unwrap_or(0.0) + c);
        }
    }
    let mut output = output;
    let mut notes = finished.notes.clone();
    notes.extend(output.take_notes());
    progress(&EvalEvent::Resumed {
        done: mine.len(),
        total,
        notes,
    });

    let shared = Shared {
        plan,
        options,
        bundles: plan
            .bundles
            .iter()
            .map(|b| (b.manifest.id.clone(), b.clone()))
            .collect(),
        queue: Mutex::new(todo.into()),
        output: Mutex::new(output),
        tally: Mutex::new((mine.len(), usage, cost)),
        ran: Mutex::new(0),
        problems: Mutex::new(Vec::new()),
        error: Mutex::new(None),
        halt: AtomicBool::new(false),
        max_cost_hit: AtomicBool::new(false),
        client: http::Client::new(plan.spec.settings.timeout_ms),
        route: options.send_to.as_ref().map(|base| {
            let mut to = plan.spec.settings.endpoint.clone();
            to.base_url = base.clone();
            (plan.spec.settings.endpoint.url(), to.url())
        }),
        cache,
        cache_tally: Mutex::new(cache::CacheTally::default()),
    };
    let workers = options.concurrency.max(1);
    std::thread::scope(|scope| {
        for _ in 0..workers {
            scope.spawn(|| worker(&shared, progress, cancel));
        }
    });
    if let Some(e) = lock(&shared.error).take() {
        return Err(e);
    }
    let ran = *lock(&shared.ran);
    let problems = lock(&shared.problems).clone();

    // The file again: other processes (shards) may have appended too.
    let now = read_finished(out)?;
    let mut by_item: HashMap<String, EpisodeRecord> = now
        .records
        .into_iter()
        .map(|r| (r.item.clone(), r))
        .collect();
    let records: Vec<EpisodeRecord> = plan
        .spec
        .items
        .iter()
        .filter_map(|i| by_item.remove(&i.key()))
        .collect();
    let left = total - records.len();
    let stop = if cancel.load(Ordering::SeqCst) && left > 0 {
        Stop::Cancelled
    } else if shared.max_cost_hit.load(Ordering::SeqCst) && left > 0 {
        Stop::MaxCost
    } else {
        Stop::Complete
    };
    Ok(EvalOutcome {
        records,
        ran,
        left,
        stop,
        problems,
        cache: shared.cache.as_ref().map(|_| *lock(&shared.cache_tally)),
    })
}

/// A lock, even if a thread panicked holding it (the data stays usable:
/// each update is one assignment).
fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

fn stopped(shared: &Shared<'_>, cancel: &AtomicBool) -> bool {
    cancel.load(Ordering::SeqCst) || shared.halt.load(Ordering::SeqCst)
}

/// One thread: takes items until none is left or the run stops. Keeps one
/// compiled episode per bundle, reused across its items.
fn worker(shared: &Shared<'_>, progress: &(dyn Fn(&EvalEvent) + Sync), cancel: &AtomicBool) {
    let mut episodes: HashMap<String, Episode<'_>> = HashMap::new();
    loop {
        if stopped(shared, cancel) {
            return;
        }
        if let Some(max) = shared.options.max_cost {
            let (_, _, cost) = *lock(&shared.tally);
            if cost.is_some_and(|c| c >= max) {
                shared.max_cost_hit.store(true, Ordering::SeqCst);
                shared.halt.store(true, Ordering::SeqCst);
                return;
            }
        }
        let Some(item) = lock(&shared.queue).pop_front() else {
            return;
        };
        let Some(bundle) = shared.bundles.get(&item.bundle_id) else {
            problem(
                shared,
                progress,
                &item,
                format!("the device {} is not loaded", item.bundle_id),
            );
            continue;
        };
        let episode = episodes
            .remove(&item.bundle_id)
            .unwrap_or_else(|| Episode::new(bundle));
        match play(shared, bundle, episode, &item, progress, cancel) {
            Ok((Some(record), episode)) => {
                episodes.insert(item.bundle_id.clone(), episode);
                finished(shared, progress, *record);
            }
            Ok((None, _)) => return,
            Err(e) => problem(shared, progress, &item, e.to_string()),
        }
    }
}

fn problem(
    shared: &Shared<'_>,
    progress: &(dyn Fn(&EvalEvent) + Sync),
    item: &BatchItem,
    message: String,
) {
    lock(&shared.problems).push(format!("{}: {message}", item.key()));
    progress(&EvalEvent::Problem {
        item: item.key(),
        message,
    });
}

type Played<'b> = (Option<Box<EpisodeRecord>>, Episode<'b>);

/// Why an episode could not be played (a problem of the run, reported
/// with its item; the other episodes go on).
#[derive(Debug, Error)]
enum PlayError {
    /// Its agent could not be made.
    #[error(transparent)]
    Agent(#[from] knoblab_eval::vlm::VlmError),
    /// The episode could not start or go on.
    #[error(transparent)]
    Episode(#[from] knoblab_core::sim::SimError),
}

/// Drives one episode; no record when the run was stopped during it.
fn play<'b>(
    shared: &Shared<'_>,
    bundle: &'b Bundle,
    episode: Episode<'b>,
    item: &BatchItem,
    progress: &(dyn Fn(&EvalEvent) + Sync),
    cancel: &AtomicBool,
) -> Result<Played<'b>, PlayError> {
    let spec = &shared.plan.spec;
    let agent = driver::player(spec, bundle, shared.plan.recorded.as_ref(), item.repeat)?;
    let config = DriverConfig::for_run(spec, shared.options.key.clone());
    let mut driver = EpisodeDriver::new(episode, item, agent, config)?;
    let keys = shared
        .cache
        .as_ref()
        .map(|_| cache::KeyParts::of(spec, item));
    progress(&EvalEvent::Started { item: item.key() });
    loop {
        let need = driver.poll(now_ms())?;
        for event in driver.take_events() {
            if let driver::Event::Retrying { message, wait_ms } = event {
                progress(&EvalEvent::Retrying {
                    item: item.key(),
                    message,
                    wait_ms,
                });
            }
        }
        match need {
            Need::Done(record) => return Ok((Some(record), driver.into_episode())),
            Need::Send {
                mut request,
                timeout_ms,
            } => {
                if cancel.load(Ordering::SeqCst) {
                    return Ok((None, driver.into_episode()));
                }
                // The cache first (keyed by the request as planned).
                let key = keys.as_ref().map(|k| k.key(driver.turn(), &request));
                if let (Some(c), Some(key)) = (&shared.cache, &key) {
                    let found = c.get(key, spec.settings.endpoint.flavor);
                    let mut tally = lock(&shared.cache_tally);
                    if let Some(body) = found {
                        tally.hits += 1;
                        drop(tally);
                        driver.feed_cached(body, now_ms());
                        continue;
                    }
                    tally.misses += 1;
                }
                if let Some((from, to)) = &shared.route {
                    if &request.url == from {
                        request.url = to.clone();
                    }
                }
                let answer = shared.client.send(&request, timeout_ms);
                let body = match (&key, &answer) {
                    (Some(_), driver::Answer::Response { body, .. }) => Some(body.clone()),
                    _ => None,
                };
                driver.feed(answer, now_ms());
                if let (Some(c), Some(key), Some(body)) = (&shared.cache, &key, body) {
                    if driver.storable() {
                        let stored = c.put(key, &body).is_ok();
                        let mut tally = lock(&shared.cache_tally);
                        if stored {
                            tally.stored += 1;
                        } else {
                            tally.failed_writes += 1;
                        }
                    }
                }
            }
            Need::Wait { ms } => {
                let until = now_ms().saturating_add(ms);
                while now_ms() < until {
                    if cancel.load(Ordering::SeqCst) {
                        return Ok((None, driver.into_episode()));
                    }
                    let left = until.saturating_sub(now_ms()).min(50);
                    std::thread::sleep(Duration::from_millis(left));
                }
            }
        }
    }
}

/// Appends a finished episode and tells the caller.
fn finished(shared: &Shared<'_>, progress: &(dyn Fn(&EvalEvent) + Sync), record: EpisodeRecord) {
    let written = match lock(&shared.output).append(&record) {
        Ok(w) => w,
        Err(e) => {
            *lock(&shared.error) = Some(e);
            shared.halt.store(true, Ordering::SeqCst);
            return;
        }
    };
    if !written {
        // Another process put this item in the file first (a task retried
        // while its first attempt still ran): that record stands, and the
        // outcome, read from the file at the end, counts it.
        return;
    }
    *lock(&shared.ran) += 1;
    let (done, usage, cost) = {
        let mut tally = lock(&shared.tally);
        tally.0 += 1;
        tally.1.add(record.usage);
        if let Some(c) = record.cost {
            tally.2 = Some(tally.2.unwrap_or(0.0) + c);
        }
        *tally
    };
    progress(&EvalEvent::Finished {
        item: record.item.clone(),
        status: record.status,
        steps: record.trajectory.steps.len(),
        done,
        total: shared.plan.spec.items.len(),
        usage,
        cost,
    });
}
