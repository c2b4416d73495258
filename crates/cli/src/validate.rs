//! `knoblab validate`: check bundles and list every problem.

use std::path::PathBuf;
use std::process::ExitCode;

use knoblab_app::devices::check_device;
use knoblab_core::bundle::Checked;

#[derive(Debug, clap::Args)]
pub struct Args {
    /// Bundle folders, zips or single JSON files, or generated devices' ids.
    #[arg(required = true)]
    pub bundles: Vec<PathBuf>,
    /// Print one JSON document: per bundle, its summary or its problems.
    #[arg(long)]
    pub json: bool,
}

/// Checks each bundle; exit code 1 when any has an error (warnings do not
/// fail), 0 otherwise.
pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    let checked: Vec<Checked> = args.bundles.iter().map(|p| check_device(p)).collect();
    if args.json {
        let reports: Vec<serde_json::Value> = checked.iter().map(json_report).collect();
        super::out::json(&reports)?;
    } else {
        let text: String = checked.iter().map(text_report).collect();
        super::out::text(&text)?;
    }
    let failed = checked.iter().any(Checked::has_errors);
    Ok(if failed {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
}

/// `ok` with a summary, or the problems one a line (`location: message`).
pub fn text_report(c: &Checked) -> String {
    let mut out = String::new();
    match &c.bundle {
        Some(bundle) => {
            let transitions: usize = bundle
                .ssm
                .states
                .values()
                .flat_map(|s| s.on.values())
                .map(Vec::len)
                .sum();
            out.push_str(&format!(
                "{}: ok: {} ({}), {} states, {} transitions, {} views, {} tasks, logic {}\n",
                c.source,
                bundle.manifest.id,
                bundle.manifest.category,
                bundle.ssm.states.len(),
                transitions,
                bundle.views.len(),
                bundle.tasks.len(),
                &bundle.logic_hash()[..12],
            ));
        }
        None => {
            let errors = c.diagnostics.iter().filter(|d| d.is_error()).count();
            out.push_str(&format!(
                "{}: {errors} error(s), {} warning(s)\n",
                c.source,
                c.diagnostics.len() - errors
            ));
        }
    }
    for d in &c.diagnostics {
        out.push_str(&format!("  {d}\n"));
    }
    out
}

fn json_report(c: &Checked) -> serde_json::Value {
    let summary = c.bundle.as_ref().map(|b| {
        serde_json::json!({
            "id": b.manifest.id,
            "states": b.ssm.states.len(),
            "transitions": b.ssm.states.values().flat_map(|s| s.on.values()).map(Vec::len).sum::<usize>(),
            "views": b.views.len(),
            "tasks": b.tasks.len(),
            "logic_hash": b.logic_hash(),
        })
    });
    serde_json::json!({
        "source": c.source,
        "ok": !c.has_errors(),
        "summary": summary,
        "diagnostics": c.diagnostics,
    })
}
