//! Runs: `knoblab eval` from Python (`knoblab.evaluate`, and each Ray
//! task of `knoblab.ray.evaluate`), on the core's runner.

use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{mpsc, Mutex};
use std::time::Duration;

use pyo3::prelude::*;
use pyo3::types::PyDict;

use knoblab_app::documents;
use knoblab_app::run::{
    evaluate, prepare_output, DeviceFilter, EvalError, EvalEvent, EvalPlan, RunArgs, Stop,
};
use knoblab_core::input::options::{self, Given};
use knoblab_core::sim::RenderMode;

use crate::errors::{self, Kind, Raised};
use crate::json_text;
use crate::library::{read_embedded, shipped_index};

fn options_error(message: String) -> PyErr {
    Raised::new(Kind::Options, message).into()
}

/// A number given to `knoblab.evaluate`, as the core's domain check takes
/// it: an `int` as a whole number (negative ones too, so that the domain,
/// not a conversion, refuses them), a `float` as a real, a `str` as text.
fn given(value: &Bound<'_, PyAny>) -> Option<OwnedGiven> {
    if value.is_instance_of::<pyo3::types::PyBool>() {
        return None;
    }
    if let Ok(n) = value.extract::<i128>() {
        return Some(OwnedGiven::Whole(n));
    }
    if let Ok(x) = value.extract::<f64>() {
        return Some(OwnedGiven::Real(x));
    }
    value.extract::<String>().ok().map(OwnedGiven::Text)
}

enum OwnedGiven {
    Whole(i128),
    Real(f64),
    Text(String),
}

/// Checks a number against its option's domain
/// ([`knoblab_core::input::options`], as the CLI and the page do).
fn checked(option: &str, value: &Bound<'_, PyAny>) -> PyResult<options::Value> {
    let wrong_type = || {
        options_error(format!(
            "{option}: {} is not a number",
            value
                .repr()
                .map(|r| r.to_string())
                .unwrap_or_else(|_| "the value".into())
        ))
    };
    let g = given(value).ok_or_else(wrong_type)?;
    let g = match &g {
        OwnedGiven::Whole(n) => Given::Whole(*n),
        OwnedGiven::Real(x) => Given::Real(*x),
        OwnedGiven::Text(t) => Given::Text(t),
    };
    options::check(option, g).map_err(|e| options_error(e.to_string()))
}

fn whole<T: TryFrom<u64>>(option: &str, value: &Bound<'_, PyAny>) -> PyResult<T> {
    let n = checked(option, value)?.whole();
    T::try_from(n).map_err(|_| options_error(format!("{option} = {n} does not fit")))
}

fn real(option: &str, value: &Bound<'_, PyAny>) -> PyResult<f64> {
    Ok(checked(option, value)?.real())
}

/// The keyword arguments of `knoblab.evaluate` as the core's `RunArgs`
/// (`None` keeps a default; a name that is no option is refused).
fn run_args(kwargs: &Bound<'_, PyDict>) -> PyResult<RunArgs> {
    let mut a = RunArgs::default();
    for (key, value) in kwargs.iter() {
        let key: String = key.extract()?;
        if value.is_none() {
            continue;
        }
        let bad = |e: PyErr| options_error(format!("{key}: {e}"));
        match key.as_str() {
            "bundles" => a.bundles = value.extract().map_err(bad)?,
            "library" => a.library = value.extract().map_err(bad)?,
            "devices" => a.devices = value.extract().map_err(bad)?,
            "categories" => a.categories = value.extract().map_err(bad)?,
            "tasks" => a.tasks = value.extract().map_err(bad)?,
            "repeats" => a.repeats = whole::<u32>("repeats", &value)?,
            "agent" => a.agent = value.extract().map_err(bad)?,
            "api" => a.api = value.extract().map_err(bad)?,
            "base_url" => a.base_url = Some(value.extract().map_err(bad)?),
            "model" => a.model = Some(value.extract().map_err(bad)?),
            "api_key_env" => a.api_key_env = Some(value.extract().map_err(bad)?),
            "concurrency" => a.concurrency = whole::<usize>("concurrency", &value)?,
            "lam" => a.lambda = whole::<u32>("lambda", &value)?,
            "history" => a.history = Some(value.str()?.to_string()),
            "coords" => a.coords = value.extract().map_err(bad)?,
            "perturb" => a.perturb = value.extract().map_err(bad)?,
            "seed" => a.seed = whole::<u64>("seed", &value)?,
            "temperature" => a.temperature = real("temperature", &value)?,
            "max_tokens" => a.max_tokens = whole::<u32>("max_tokens", &value)?,
            "timeout" => a.timeout = real("timeout", &value)?,
            "retries" => a.retries = whole::<u32>("retries", &value)?,
            "backoff" => a.backoff = real("backoff", &value)?,
            "price_in" => a.price_in = Some(real("price_in", &value)?),
            "price_out" => a.price_out = Some(real("price_out", &value)?),
            "max_cost" => a.max_cost = Some(real("max_cost", &value)?),
            // The model-call cache's folder (`knoblab eval --cache`).
            "cache" => a.cache = Some(value.extract().map_err(bad)?),
            "render" => {
                let text: String = value.extract().map_err(bad)?;
                a.render =
                    RenderMode::parse(&text).map_err(|e| options_error(format!("render: {e}")))?;
            }
            other => return Err(options_error(format!("{other} is not an option of a run"))),
        }
    }
    Ok(a)
}

/// The run options that keyword arguments of `knoblab.evaluate` make, as
/// JSON (`RunArgs`, by the core's field names): what the tests check the
/// Python face against, field by field (issue #45). No argument: the
/// defaults.
#[pyfunction]
#[pyo3(signature = (**options))]
pub fn run_options_json(options: Option<&Bound<'_, PyDict>>) -> PyResult<String> {
    let args = match options {
        Some(kwargs) => run_args(kwargs)?,
        None => RunArgs::default(),
    };
    json_text(&args)
}

/// The plan of a run: on the shipped library when neither bundles nor a
/// library are given, else as `knoblab eval` makes it.
fn run_plan(py: Python<'_>, args: &RunArgs, shipped: bool) -> PyResult<EvalPlan> {
    if shipped {
        let index = shipped_index()?;
        let filter = DeviceFilter {
            devices: args.devices.clone(),
            categories: args.categories.clone(),
        };
        let mut bundles = Vec::with_capacity(index.devices.len());
        // Only the devices played are loaded (`plan_on` filters the same way).
        for entry in index
            .devices
            .iter()
            .filter(|e| filter.keeps(&e.id, &e.category))
        {
            bundles.push(
                documents::library::load_entry(entry, &read_embedded).map_err(errors::library)?,
            );
        }
        Ok(py
            .allow_threads(|| args.plan_on(bundles))
            .map_err(errors::eval)?)
    } else {
        Ok(py.allow_threads(|| args.plan()).map_err(errors::eval)?)
    }
}

fn event_json(e: &EvalEvent) -> serde_json::Value {
    use serde_json::json;
    match e {
        EvalEvent::Resumed { done, total, notes } => {
            json!({"event": "resumed", "done": done, "total": total, "notes": notes})
        }
        EvalEvent::Started { item } => json!({"event": "started", "item": item}),
        EvalEvent::Retrying {
            item,
            message,
            wait_ms,
        } => json!({"event": "retrying", "item": item, "message": message, "wait_ms": wait_ms}),
        EvalEvent::Finished {
            item,
            status,
            steps,
            done,
            total,
            usage,
            cost,
        } => json!({
            "event": "finished", "item": item, "status": status, "steps": steps,
            "done": done, "total": total, "usage": usage, "cost": cost
        }),
        EvalEvent::Problem { item, message } => {
            json!({"event": "problem", "item": item, "message": message})
        }
    }
}

/// `out`'s state for this plan, after `prepare_output`: JSON of
/// {items: [keys in plan order], done: [positions with a record], notes}.
#[pyfunction]
#[pyo3(signature = (out, shipped, **kwargs))]
pub(crate) fn prepare_run(
    py: Python<'_>,
    out: PathBuf,
    shipped: bool,
    kwargs: Option<&Bound<'_, PyDict>>,
) -> PyResult<String> {
    let args = match kwargs {
        Some(k) => run_args(k)?,
        None => RunArgs::default(),
    };
    let plan = run_plan(py, &args, shipped)?;
    let finished = py
        .allow_threads(|| prepare_output(&plan, &out))
        .map_err(errors::eval)?;
    let have: std::collections::BTreeSet<&str> =
        finished.records.iter().map(|r| r.item.as_str()).collect();
    let items: Vec<String> = plan.spec.items.iter().map(|i| i.key()).collect();
    let done: Vec<usize> = items
        .iter()
        .enumerate()
        .filter(|(_, k)| have.contains(k.as_str()))
        .map(|(i, _)| i)
        .collect();
    json_text(&serde_json::json!({"items": items, "done": done, "notes": finished.notes}))
}

/// `knoblab eval`: the core's runner on the plan the options describe,
/// appending to `out`. `progress` (if any) hears each event as JSON text,
/// from the runner's threads. The GIL is released while it runs; a
/// Ctrl-C (a signal seen by the main thread) stops it as `knoblab eval`
/// stops, then raises `KeyboardInterrupt`. Returns JSON of {file, ran,
/// left, stop, problems, records, metrics}; without `full`, records and
/// metrics are left out (a Ray task's answer).
#[pyfunction]
#[pyo3(signature = (out, shipped, select=None, send_to=None, progress=None, full=true, **kwargs))]
#[allow(clippy::too_many_arguments)]
pub(crate) fn run_eval(
    py: Python<'_>,
    out: PathBuf,
    shipped: bool,
    select: Option<Vec<usize>>,
    send_to: Option<String>,
    progress: Option<PyObject>,
    full: bool,
    kwargs: Option<&Bound<'_, PyDict>>,
) -> PyResult<String> {
    let args = match kwargs {
        Some(k) => run_args(k)?,
        None => RunArgs::default(),
    };
    let plan = run_plan(py, &args, shipped)?;
    let mut options = args.options(&plan);
    options.select = select;
    options.send_to = send_to;
    let cancel = AtomicBool::new(false);
    // The first exception a progress callback raised: it stops the run.
    let callback_error: Mutex<Option<PyErr>> = Mutex::new(None);
    let on_event = |e: &EvalEvent| {
        let Some(callback) = &progress else { return };
        let text = event_json(e).to_string();
        Python::with_gil(|py| {
            if let Err(err) = callback.call1(py, (text,)) {
                if let Ok(mut slot) = callback_error.lock() {
                    slot.get_or_insert(err);
                }
                cancel.store(true, Ordering::SeqCst);
            }
        });
    };
    let (outcome, interrupt) = py.allow_threads(|| {
        std::thread::scope(|scope| {
            let (done_tx, done_rx) = mpsc::channel::<()>();
            let (plan, options, out, on_event, cancel) =
                (&plan, &options, &out, &on_event, &cancel);
            let runner = scope.spawn(move || {
                let r = evaluate(plan, options, out, on_event, cancel);
                let _ = done_tx.send(());
                r
            });
            // Signals reach Python in the main thread only when it runs
            // Python code: look at them every 100 ms while the run goes.
            let mut interrupt: Option<PyErr> = None;
            while let Err(mpsc::RecvTimeoutError::Timeout) =
                done_rx.recv_timeout(Duration::from_millis(100))
            {
                if interrupt.is_none() {
                    if let Err(e) = Python::with_gil(|py| py.check_signals()) {
                        interrupt = Some(e);
                        cancel.store(true, Ordering::SeqCst);
                    }
                }
            }
            let outcome = runner.join().unwrap_or_else(|_| {
                Err(EvalError::Io {
                    path: out.display().to_string(),
                    message: "the runner panicked".into(),
                })
            });
            (outcome, interrupt)
        })
    });
    if let Some(e) = interrupt {
        return Err(e);
    }
    if let Some(e) = callback_error.lock().ok().and_then(|mut s| s.take()) {
        return Err(e);
    }
    let outcome = outcome.map_err(errors::eval)?;
    let file = out.display().to_string();
    let stop = match outcome.stop {
        Stop::Complete => "complete",
        Stop::Cancelled => "cancelled",
        Stop::MaxCost => "max_cost",
    };
    // How the model-call cache served (none without `cache`).
    let cache = outcome.cache.map(|t| {
        serde_json::json!({"hits": t.hits, "misses": t.misses, "stored": t.stored,
                           "failed_writes": t.failed_writes})
    });
    if !full {
        return json_text(&serde_json::json!({
            "file": file,
            "ran": outcome.ran,
            "left": outcome.left,
            "stop": stop,
            "problems": outcome.problems,
            "cache": cache,
        }));
    }
    let metrics = match outcome.metrics(&plan, &file).map_err(errors::metrics)? {
        Some(runs) => Some(runs.to_json().map_err(|e| errors::other(e.to_string()))?),
        None => None,
    };
    json_text(&serde_json::json!({
        "file": file,
        "ran": outcome.ran,
        "left": outcome.left,
        "stop": stop,
        "problems": outcome.problems,
        "records": outcome.records,
        "metrics": metrics,
        "cache": cache,
    }))
}
