//! `knoblab library build`: regenerate the device library from its
//! descriptions (`data/gen/`) and category templates (`data/ucsm/`).

use std::path::PathBuf;
use std::process::ExitCode;

use knoblab_devicegen::{build_library, DEVICES_DIR, GEN_DIR, INDEX_FILE, SHEET_FILE, UCSM_DIR};

#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, clap::Subcommand)]
pub enum Command {
    /// Draw every described device and write its bundle, the library
    /// index and the contact sheet (replacing OUT/devices entirely).
    Build(BuildArgs),
    /// Make every generated device (no pictures) and write their manifest,
    /// OUT/generated.json (ids, task and action counts, content hashes),
    /// their task list, OUT/generated-tasks.json, the library's identity,
    /// OUT/library-version.json (one version more when the library's
    /// content hash changed), and each one's card, its front view drawn at
    /// OUT/generated/ID/views/front.png (replacing OUT/generated entirely).
    Generate(GenerateArgs),
    /// The library's figures (devices, episodes, devices per category,
    /// action mix) beside the paper's (VGEBench Tables 2, 7 and 8).
    Stats(StatsArgs),
    /// Check generated devices: each is made with its pictures, validates
    /// with no diagnostic, matches its manifest hash, its task list entry
    /// and its logic hash in the library's version file, and the oracle
    /// solves every task within budget.
    Check(CheckArgs),
    /// Draw a category's contact sheet: its hand-described devices, then
    /// its generated ones, front views with name and id.
    Sheet(SheetArgs),
}

#[derive(Debug, clap::Args)]
pub struct SheetArgs {
    /// The category (as data/ucsm names it).
    #[arg(required_unless_present = "all", conflicts_with = "all")]
    pub category: Option<String>,
    /// Every category's sheet, written to OUT/<Category>.png (the
    /// committed ones are docs/sheets/).
    #[arg(long)]
    pub all: bool,
    /// The PNG to write (with --all, the folder).
    #[arg(long)]
    pub out: PathBuf,
}

#[derive(Debug, clap::Args)]
pub struct StatsArgs {
    /// The folder holding library.json and generated.json.
    #[arg(long, default_value = "data")]
    pub data: PathBuf,
    /// Print the figures as JSON.
    #[arg(long)]
    pub json: bool,
}

#[derive(Debug, clap::Args)]
pub struct CheckArgs {
    /// The folder holding generated.json, generated-tasks.json and
    /// library-version.json.
    #[arg(long, default_value = "data")]
    pub data: PathBuf,
    /// Check every n-th generated device (1: all of them).
    #[arg(long, default_value_t = 1)]
    pub every: usize,
    /// Start the sample at this device (0-based; with --every).
    #[arg(long, default_value_t = 0)]
    pub offset: usize,
    /// Only the devices of these categories (repeatable; before --every).
    #[arg(long)]
    pub category: Vec<String>,
}

#[derive(Debug, clap::Args)]
pub struct GenerateArgs {
    /// Where the manifest goes (OUT/generated.json), with the task list
    /// and the library's version file; OUT must hold library.json.
    #[arg(long, default_value = "data")]
    pub out: PathBuf,
}

#[derive(Debug, clap::Args)]
pub struct BuildArgs {
    /// Where the library goes: OUT/devices/, OUT/library.json,
    /// OUT/library-sheet.png.
    #[arg(long, default_value = "data")]
    pub out: PathBuf,
    /// The device descriptions.
    #[arg(long, default_value = GEN_DIR)]
    pub descriptions: PathBuf,
    /// The category templates.
    #[arg(long, default_value = UCSM_DIR)]
    pub ucsm: PathBuf,
}

pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    match args.command {
        Command::Build(args) => build(args),
        Command::Generate(args) => generate(args),
        Command::Stats(args) => stats(args),
        Command::Check(args) => check(args),
        Command::Sheet(args) => sheet(args),
    }
}

fn read_generated(
    data: &std::path::Path,
) -> anyhow::Result<knoblab_devicegen::generated::GeneratedIndex> {
    use knoblab_devicegen::generated::{GeneratedIndex, GENERATED_FILE};
    let path = data.join(GENERATED_FILE);
    let bytes = super::read::read_bounded(&path)?;
    GeneratedIndex::parse(&bytes).map_err(anyhow::Error::msg)
}

/// The library's identity committed in `data` (`library-version.json`).
fn read_version(
    data: &std::path::Path,
) -> anyhow::Result<knoblab_core::bundle::stamp::LibraryVersion> {
    use knoblab_core::bundle::stamp::{LibraryVersion, VERSION_FILE};
    let path = data.join(VERSION_FILE);
    LibraryVersion::parse(&super::read::read_bounded(&path)?)
        .map_err(|e| anyhow::anyhow!("{}: {e}", path.display()))
}

/// The generated devices' task list committed in `data`.
fn read_tasks(
    data: &std::path::Path,
    manifest: &knoblab_devicegen::generated::GeneratedIndex,
) -> anyhow::Result<knoblab_devicegen::generated::GeneratedTasks> {
    use knoblab_devicegen::generated::{GeneratedTasks, GENERATED_TASKS_FILE};
    let path = data.join(GENERATED_TASKS_FILE);
    GeneratedTasks::parse(&super::read::read_bounded(&path)?, manifest)
        .map_err(|e| anyhow::anyhow!("{}: {e}", path.display()))
}

fn stats(args: StatsArgs) -> anyhow::Result<ExitCode> {
    use knoblab_devicegen::generated::Inputs;
    use knoblab_devicegen::stats::{figures, stats, table};
    let index_path = args.data.join(INDEX_FILE);
    let index = knoblab_core::bundle::LibraryIndex::parse(&super::read::read_bounded(&index_path)?)
        .map_err(|e| anyhow::anyhow!("{}: {e}", index_path.display()))?;
    let mut hand = Vec::new();
    for entry in &index.devices {
        let bundle = knoblab_core::bundle::check_path(&args.data.join(&entry.path))
            .into_result()
            .map_err(|e| anyhow::anyhow!("{}: {e}", entry.id))?;
        hand.push(figures(&bundle));
    }
    let generated = read_generated(&args.data)?;
    let inputs = Inputs::embedded().map_err(anyhow::Error::msg)?;
    let mut s = stats(&hand, &generated, &inputs.space.counts);
    s.library = Some(read_version(&args.data)?.stamp());
    if args.json {
        super::out::json(&s)?;
    } else {
        super::out::text(&table(&s))?;
    }
    Ok(ExitCode::SUCCESS)
}

fn check(args: CheckArgs) -> anyhow::Result<ExitCode> {
    use knoblab_devicegen::generated::{check_listed_device, Inputs, Listed};
    let started = std::time::Instant::now();
    let inputs = Inputs::embedded().map_err(anyhow::Error::msg)?;
    let manifest = read_generated(&args.data)?;
    let tasks = read_tasks(&args.data, &manifest)?;
    let version = read_version(&args.data)?;
    let every = args.every.max(1);
    let mut problems = Vec::new();
    let (mut devices, mut episodes) = (0usize, 0usize);
    let chosen = manifest
        .devices
        .iter()
        .filter(|e| args.category.is_empty() || args.category.contains(&e.category));
    for entry in chosen.skip(args.offset).step_by(every) {
        let listed = Listed {
            tasks: tasks.of(&entry.id),
            logic: version.devices.get(&entry.id).map(String::as_str),
        };
        match check_listed_device(inputs, entry, Some(listed)) {
            Ok(n) => episodes += n,
            Err(e) => problems.push(format!("{}: {e}", entry.id)),
        }
        devices += 1;
    }
    super::out::text(&format!(
        "checked {devices} of {} generated devices ({episodes} oracle episodes) in {:.1} s: {}\n",
        manifest.devices.len(),
        started.elapsed().as_secs_f64(),
        if problems.is_empty() {
            "all sound".to_string()
        } else {
            format!("{} with problems", problems.len())
        }
    ))?;
    if problems.is_empty() {
        Ok(ExitCode::SUCCESS)
    } else {
        for p in &problems {
            super::out::warn(p);
        }
        Ok(ExitCode::from(1))
    }
}

fn generate(args: GenerateArgs) -> anyhow::Result<ExitCode> {
    use knoblab_core::bundle::stamp::{compute_hash, LibraryVersion, VERSION_FILE};
    use knoblab_devicegen::generated::{Inputs, GENERATED_FILE, GENERATED_TASKS_FILE};
    let started = std::time::Instant::now();
    let inputs = Inputs::embedded().map_err(anyhow::Error::msg)?;
    let made = inputs.catalogue(|_| true).map_err(anyhow::Error::msg)?;
    let manifest = &made.manifest;
    let path = args.out.join(GENERATED_FILE);
    let json = serde_json::to_string(manifest)? + "\n";
    knoblab_core::input::fs::write_atomic(&path, json.as_bytes())?;
    let tasks_path = args.out.join(GENERATED_TASKS_FILE);
    let json = serde_json::to_string(&made.tasks)? + "\n";
    knoblab_core::input::fs::write_atomic(&tasks_path, json.as_bytes())?;
    // The library's identity, after the manifest it covers: one version
    // more when its content hash changed.
    let version_path = args.out.join(VERSION_FILE);
    let previous = if version_path.exists() {
        Some(
            LibraryVersion::parse(&super::read::read_bounded(&version_path)?)
                .map_err(|e| anyhow::anyhow!("{}: {e}", version_path.display()))?,
        )
    } else {
        None
    };
    let (hash, mut devices) = compute_hash(&args.out)?;
    devices.extend(made.logic.clone());
    let version = LibraryVersion::next(previous.as_ref(), hash, devices);
    knoblab_core::input::fs::write_atomic(&version_path, version.to_text()?.as_bytes())?;
    let cards = write_cards(inputs, manifest, &args.out)?;
    let change = match &previous {
        Some(p) if p.version == version.version => "unchanged".to_string(),
        Some(p) => format!("was {}", p.stamp()),
        None => "the first".to_string(),
    };
    super::out::text(&format!(
        "{} generated devices, {} tasks, in {:.1} s; manifest {}, task list {}; {} ({change}) in {}; {cards}\n",
        manifest.devices.len(),
        manifest
            .devices
            .iter()
            .map(|d| d.single + d.multi)
            .sum::<usize>(),
        started.elapsed().as_secs_f64(),
        path.display(),
        tasks_path.display(),
        version.stamp(),
        version_path.display()
    ))?;
    Ok(ExitCode::SUCCESS)
}

/// Draws each generated device's card (its front view) where its library
/// entry points (`OUT/generated/ID/views/front.png`), replacing
/// `OUT/generated` whole, a line on stderr every 100 devices. Returns what
/// it wrote, for the summary.
fn write_cards(
    inputs: &knoblab_devicegen::generated::Inputs,
    manifest: &knoblab_devicegen::generated::GeneratedIndex,
    out: &std::path::Path,
) -> anyhow::Result<String> {
    use knoblab_core::bundle::generated::GENERATED_PATH;
    let folder = out.join(GENERATED_PATH);
    if folder.exists() {
        std::fs::remove_dir_all(&folder)
            .map_err(|e| anyhow::anyhow!("{}: {e}", folder.display()))?;
    }
    let total = manifest.devices.len();
    let mut bytes = 0;
    for (done, device) in manifest.devices.iter().enumerate() {
        let card = device.library_entry();
        let path = out.join(card.file_url(&card.thumbnail));
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir).map_err(|e| anyhow::anyhow!("{}: {e}", dir.display()))?;
        }
        let png = inputs
            .thumbnail(&device.id)
            .map_err(|e| anyhow::anyhow!("{}: {e}", device.id))?;
        knoblab_core::input::fs::write_atomic(&path, &png)?;
        bytes += png.len();
        if (done + 1) % 100 == 0 || done + 1 == total {
            super::out::warn(&format!("cards: {} of {total} drawn", done + 1));
        }
    }
    Ok(format!(
        "{total} cards, {:.1} MB, in {}",
        bytes as f64 / 1e6,
        folder.display()
    ))
}

fn build(args: BuildArgs) -> anyhow::Result<ExitCode> {
    let summary =
        build_library(&args.descriptions, &args.ucsm, &args.out).map_err(anyhow::Error::msg)?;
    super::out::text(&format!(
        "{} devices in {} categories, {} tasks, {:.1} MB of bundles in {}; index {}, contact sheet {}\n",
        summary.devices,
        summary.categories,
        summary.tasks,
        summary.bytes as f64 / 1e6,
        args.out.join(DEVICES_DIR).display(),
        args.out.join(INDEX_FILE).display(),
        args.out.join(SHEET_FILE).display(),
    ))?;
    Ok(ExitCode::SUCCESS)
}

fn sheet(args: SheetArgs) -> anyhow::Result<ExitCode> {
    use knoblab_devicegen::generated::Inputs;
    let inputs = Inputs::embedded().map_err(anyhow::Error::msg)?;
    let jobs: Vec<(String, PathBuf)> = match &args.category {
        Some(category) => vec![(category.clone(), args.out.clone())],
        None => {
            std::fs::create_dir_all(&args.out)
                .map_err(|e| anyhow::anyhow!("{}: {e}", args.out.display()))?;
            inputs
                .category_names()
                .into_iter()
                .map(|c| (c.to_string(), args.out.join(format!("{c}.png"))))
                .collect()
        }
    };
    for (category, out) in jobs {
        let png = inputs
            .category_sheet(&category)
            .map_err(anyhow::Error::msg)?;
        knoblab_core::input::fs::write_atomic(&out, &png)?;
        super::out::text(&format!("{} ({} KB)\n", out.display(), png.len() / 1024))?;
    }
    Ok(ExitCode::SUCCESS)
}

/// A bundle at `path`, or a generated device by its id
/// ([`knoblab_app::devices::load_device`]).
pub fn load_device(path: &std::path::Path) -> anyhow::Result<knoblab_core::bundle::Bundle> {
    knoblab_app::devices::load_device(path).map_err(anyhow::Error::msg)
}
