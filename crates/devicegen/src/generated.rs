// Over 600 lines: the compiled-in inputs, making a device on demand and checking it against
// the committed manifest share Inputs and GeneratedError; the manifest's hashes
// and the checks that read them belong together.

//! The generated part of the library: the variants of every category
//! ([`super::vary`]), made on demand from the committed descriptions, and
//! their manifest (`data/generated.json`): per device its id, category,
//! name, task counts, action counts and a content hash of its JSON files,
//! so that a rerun is checked byte for byte without committing a picture.
//!
//! The inputs are compiled in ([`Inputs::embedded`]): the page (wasm), the
//! Python package and the CLI make a generated device from the same bytes,
//! and its pictures are drawn when it is opened.

use std::collections::BTreeMap;

use sha2::{Digest, Sha256};

use knoblab_core::bundle::StateMachine;

pub use knoblab_core::bundle::generated::{
    is_generated, DeviceTasks, GeneratedEntry, GeneratedIndex, GeneratedTasks, TaskSummary,
    GENERATED_FILE, GENERATED_FORMAT, GENERATED_PATH, GENERATED_TASKS_FILE, GENERATED_TASKS_FORMAT,
};

use super::desc::CategoryFile;
use super::device::{generate_counted, DeviceError, Generated, VARIANT_SOURCE};
use super::sheet::SheetError;
use super::tasks::Counts;
use super::vary::{draw_variant, variant_id, Space, Variant, VaryError, ATTEMPTS};

/// Why the generated devices' inputs were refused, or a generated device
/// could not be made or did not match its manifest entry.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum GeneratedError {
    /// The design space was refused, or a variant could not be drawn.
    #[error(transparent)]
    Vary(#[from] VaryError),
    /// A category's description file is not its JSON.
    #[error("data/gen/{category}.json: {error}")]
    Description {
        /// The category.
        category: String,
        /// The JSON reader's error.
        error: knoblab_core::input::json::JsonError,
    },
    /// A category's template is not its JSON.
    #[error("data/ucsm/{category}.json: {error}")]
    Template {
        /// The category.
        category: String,
        /// The JSON reader's error.
        error: knoblab_core::input::json::JsonError,
    },
    /// The design space names a category that has no template.
    #[error(
        "data/gen/space/space.json: {list} names category {category:?}, which has no template"
    )]
    SpaceCategory {
        /// The list of the design space (`optional_timers`, `instant`).
        list: &'static str,
        /// The category named.
        category: String,
    },
    /// The design space names a state that is not a timed one of its
    /// category's template.
    #[error(
        "data/gen/space/space.json: {list}: {category} has no state {state:?} with a timed transition"
    )]
    SpaceState {
        /// The list of the design space (`optional_timers`, `instant`).
        list: &'static str,
        /// The category.
        category: String,
        /// The state named.
        state: String,
    },
    /// The design space names a component no template's transitions use.
    #[error(
        "data/gen/space/space.json: {list} names {component:?}, which no template's transitions use"
    )]
    SpaceComponent {
        /// The list of the design space (`latches`, `timer_controls`).
        list: &'static str,
        /// The component named.
        component: String,
    },
    /// No category has this number.
    #[error("no category number {number}")]
    CategoryNumber {
        /// The number asked for.
        number: usize,
    },
    /// No category has this name.
    #[error("no category {category:?}; the categories are: {}", .known.join(", "))]
    UnknownCategory {
        /// The name asked for.
        category: String,
        /// The categories there are.
        known: Vec<String>,
    },
    /// Every attempt at a variant was unsound.
    #[error("{id}: no sound variant in {attempts} attempts; the last: {last}")]
    NoSoundVariant {
        /// The variant's id.
        id: String,
        /// How many attempts were made.
        attempts: u32,
        /// Why the last one was refused.
        last: Box<DeviceError>,
    },
    /// The id is not one of this build's generated devices.
    #[error("{id:?} is not a generated device id")]
    NotGenerated {
        /// The id given.
        id: String,
    },
    /// A device could not be made.
    #[error(transparent)]
    Device(#[from] DeviceError),
    /// A picture or a contact sheet could not be made.
    #[error(transparent)]
    Sheet(#[from] SheetError),
    /// A device made was refused by the bundle loader, or could not be
    /// opened (the loader's report).
    #[error("{0}")]
    Load(knoblab_core::bundle::LoadError),
    /// A generated device opened by id could not be made or loaded.
    #[error("{id}: {problem}")]
    Open {
        /// The device's id.
        id: String,
        /// The loader's report.
        problem: knoblab_core::bundle::LoadError,
    },
    /// A device's files do not hash as its manifest entry says.
    #[error(
        "its files hash to {found}, the manifest says {expected}: regenerate data/{GENERATED_FILE} \
         (knoblab library generate)"
    )]
    Hash {
        /// The hash of the files made.
        found: String,
        /// The manifest's hash.
        expected: String,
    },
    /// A device's task counts are not its manifest entry's.
    #[error(
        "{single} single-turn and {multi} multi-turn tasks; the manifest says {expected_single} and {expected_multi}"
    )]
    TaskCounts {
        /// Single-turn tasks made.
        single: usize,
        /// Multi-turn tasks made.
        multi: usize,
        /// Single-turn tasks in the manifest.
        expected_single: usize,
        /// Multi-turn tasks in the manifest.
        expected_multi: usize,
    },
    /// A generated device's logic could not be made (its id and why).
    #[error("{id}: {problem}")]
    InDevice {
        /// The device's id.
        id: String,
        /// Why.
        problem: Box<GeneratedError>,
    },
    /// The generator made no file of this name.
    #[error("no {file} was made")]
    NotMade {
        /// The file's name.
        file: &'static str,
    },
    /// A JSON file the generator made does not read back.
    #[error("{file}: {error}")]
    MadeJson {
        /// The file's name.
        file: &'static str,
        /// The JSON reader's error.
        error: knoblab_core::input::json::JsonError,
    },
    /// The drawn device's logic hash is not the one made without pictures.
    #[error("drawn, its logic hashes to {drawn}; made without pictures, to {made}")]
    LogicDiffers {
        /// The drawn device's logic hash.
        drawn: String,
        /// The logic hash made without pictures.
        made: String,
    },
    /// The device's tasks are not those the committed task list has.
    #[error(
        "its tasks are not those data/{GENERATED_TASKS_FILE} lists: regenerate it (knoblab library generate)"
    )]
    ListedTasks,
    /// The device's logic hash is not the one the version file lists.
    #[error(
        "its logic hash is {found}, data/{} says {listed}: regenerate it (knoblab library generate)",
        knoblab_core::bundle::stamp::VERSION_FILE
    )]
    ListedLogic {
        /// The device's logic hash.
        found: String,
        /// The version file's (or "nothing").
        listed: String,
    },
    /// The oracle could not play a task.
    #[error("{0}")]
    Play(knoblab_core::sim::SimError),
    /// The oracle did not reach every goal of a task.
    #[error("task {task}: the oracle reached {reached} of {total} goals (truncated: {truncated})")]
    Oracle {
        /// The task.
        task: String,
        /// Goals reached.
        reached: usize,
        /// Goals the task has.
        total: usize,
        /// Whether a budget ran out.
        truncated: bool,
    },
}

/// What generated devices are made from.
pub struct Inputs {
    /// The design space the variants are drawn from.
    pub space: Space,
    /// Each category's description file and template, by category name.
    pub categories: Vec<(CategoryFile, StateMachine)>,
    /// The bytes of every input, for the content hash.
    digest: String,
}

/// The committed inputs, compiled in.
mod embedded {
    macro_rules! category {
        ($($name:literal),* $(,)?) => {
            &[$(($name,
                include_str!(concat!("../../../data/gen/", $name, ".json")),
                include_str!(concat!("../../../data/ucsm/", $name, ".json")))),*]
        };
    }
    pub const SPACE: &str = include_str!("../../../data/gen/space/space.json");
    pub const CATEGORIES: &[(&str, &str, &str)] = category!(
        "AirFryer",
        "AirPurifier",
        "CarKey",
        "CoffeeMachine",
        "DigitalAlarmClock",
        "DigitalCamera",
        "ElectricFan",
        "ElectricKettle",
        "ElectricToothbrush",
        "FilmCamera",
        "Flashlight",
        "HairDryer",
        "Heater",
        "Humidifier",
        "Lamp",
        "Landline",
        "Lighter",
        "MechanicalAlarmClock",
        "Microwave",
        "PowerBank",
        "Razor",
        "RiceCooker",
        "ThermometerGun",
        "Vacuum",
        "WashingMachine",
        "WeighingScale",
    );
}

impl Inputs {
    /// From texts: the design space, and per category its description
    /// file and template.
    pub fn from_texts(
        space: &str,
        categories: &[(&str, &str, &str)],
    ) -> Result<Inputs, GeneratedError> {
        let mut hasher = Sha256::new();
        hasher.update(space.as_bytes());
        let space = Space::parse(space)?;
        let mut out = Vec::new();
        for (name, gen, ucsm) in categories {
            hasher.update(name.as_bytes());
            hasher.update(gen.as_bytes());
            hasher.update(ucsm.as_bytes());
            let file: CategoryFile = knoblab_core::input::json::from_text(gen).map_err(|e| {
                GeneratedError::Description {
                    category: name.to_string(),
                    error: e,
                }
            })?;
            let template: StateMachine =
                knoblab_core::input::json::from_text(ucsm).map_err(|e| {
                    GeneratedError::Template {
                        category: name.to_string(),
                        error: e,
                    }
                })?;
            out.push((file, template));
        }
        check_space_names(&space, &out)?;
        Ok(Inputs {
            space,
            categories: out,
            digest: hex(&hasher.finalize()),
        })
    }

    /// The inputs compiled into this build.
    pub fn embedded() -> Result<&'static Inputs, GeneratedError> {
        static INPUTS: std::sync::OnceLock<Result<Inputs, GeneratedError>> =
            std::sync::OnceLock::new();
        INPUTS
            .get_or_init(|| Inputs::from_texts(embedded::SPACE, embedded::CATEGORIES))
            .as_ref()
            .map_err(Clone::clone)
    }

    /// Every generated device, in manifest order: (category index, index
    /// from 1), categories by name, each category's devices in turn.
    pub fn plan(&self) -> Vec<(usize, usize)> {
        let mut out = Vec::new();
        for (c, (file, _)) in self.categories.iter().enumerate() {
            let total = self.space.counts.get(&file.category).copied().unwrap_or(0);
            for index in 1..=total.saturating_sub(file.devices.len()) {
                out.push((c, index));
            }
        }
        out
    }

    /// The category and index of a generated id, when it is one.
    pub fn locate(&self, id: &str) -> Option<(usize, usize)> {
        let (prefix, index) = id_parts(id)?;
        let c = self
            .categories
            .iter()
            .position(|(file, _)| super::vary::prefix(file) == prefix)?;
        let (file, _) = &self.categories[c];
        let total = self.space.counts.get(&file.category).copied().unwrap_or(0);
        let wanted = variant_id(file, index);
        (index >= 1 && index <= total.saturating_sub(file.devices.len()) && wanted == id)
            .then_some((c, index))
    }

    fn counts(&self) -> Counts {
        Counts::exactly(self.space.single_turn, self.space.multi_turn)
    }

    /// Variant `index` of category `c`: the first attempt whose device is
    /// sound (derives, has no dead end, has its task counts, its state
    /// machine draws no diagnostic, stuck states included, and the planner
    /// finds an ideal path for every task; all without pictures), else the
    /// plain one (nothing left out).
    pub fn variant(&self, c: usize, index: usize) -> Result<(Variant, Generated), GeneratedError> {
        let (file, ucsm) = self
            .categories
            .get(c)
            .ok_or(GeneratedError::CategoryNumber { number: c })?;
        let mut attempt = 0;
        loop {
            let v = draw_variant(&self.space, file, ucsm, index, attempt)?;
            match generate_counted(
                &v.category,
                &v.desc,
                &v.ucsm,
                false,
                self.counts(),
                VARIANT_SOURCE,
            ) {
                Ok(g) => return Ok((v, g)),
                Err(_) if attempt < ATTEMPTS => attempt += 1,
                Err(last) => {
                    return Err(GeneratedError::NoSoundVariant {
                        id: variant_id(file, index),
                        attempts: ATTEMPTS + 1,
                        last: Box::new(last),
                    })
                }
            }
        }
    }

    /// A generated device's whole bundle, pictures and live layer
    /// included, by id.
    pub fn open(&self, id: &str) -> Result<Generated, GeneratedError> {
        let (c, index) = self.find(id)?;
        let (v, _) = self.variant(c, index)?;
        Ok(generate_counted(
            &v.category,
            &v.desc,
            &v.ucsm,
            true,
            self.counts(),
            VARIANT_SOURCE,
        )?)
    }

    /// [`Inputs::locate`], refusing an id that is not a generated device's.
    fn find(&self, id: &str) -> Result<(usize, usize), GeneratedError> {
        self.locate(id)
            .ok_or_else(|| GeneratedError::NotGenerated { id: id.to_string() })
    }

    /// A generated device's JSON files alone (manifest, SSM, views, tasks;
    /// no pictures, no live layer), by id: what a listing of its tasks
    /// needs, for a fraction of [`Inputs::open`]'s time.
    pub fn json_files(&self, id: &str) -> Result<BTreeMap<String, Vec<u8>>, GeneratedError> {
        let (c, index) = self.find(id)?;
        Ok(self.variant(c, index)?.1.files)
    }

    /// A generated device's front view alone, as PNG (a library card).
    pub fn thumbnail(&self, id: &str) -> Result<Vec<u8>, GeneratedError> {
        let (c, index) = self.find(id)?;
        let (v, _) = self.variant(c, index)?;
        Ok(super::sheet::front_png(&v.desc)?)
    }

    /// A category's contact sheet: its hand-described devices, then its
    /// generated ones, each captioned with its name and id (the sheets of
    /// `docs/sheets/`).
    pub fn category_sheet(&self, category: &str) -> Result<Vec<u8>, GeneratedError> {
        let c = self
            .categories
            .iter()
            .position(|(f, _)| f.category == category)
            .ok_or_else(|| GeneratedError::UnknownCategory {
                category: category.to_string(),
                known: self
                    .category_names()
                    .into_iter()
                    .map(str::to_string)
                    .collect(),
            })?;
        let (file, _) = &self.categories[c];
        let mut descs: Vec<super::desc::DeviceDesc> = file.devices.clone();
        for (pc, index) in self.plan() {
            if pc == c {
                descs.push(self.variant(pc, index)?.0.desc);
            }
        }
        let cells: Vec<(&str, &super::desc::DeviceDesc)> = descs.iter().map(|d| ("", d)).collect();
        Ok(super::sheet::contact_sheet_at(
            &cells,
            super::sheet::CATEGORY_THUMB_SCALE,
        )?)
    }

    /// The categories, by name (the order of [`Inputs::categories`]).
    pub fn category_names(&self) -> Vec<&str> {
        self.categories
            .iter()
            .map(|(f, _)| f.category.as_str())
            .collect()
    }

    /// The manifest entry of one device.
    pub fn entry(&self, v: &Variant, g: &Generated) -> GeneratedEntry {
        let tasks: Vec<knoblab_core::bundle::Task> = g
            .files
            .get("tasks.json")
            .and_then(|b| {
                knoblab_core::input::json::from_bytes::<knoblab_core::bundle::TaskFile>(b).ok()
            })
            .map(|t| t.tasks)
            .unwrap_or_default();
        let single = tasks.iter().filter(|t| t.goals.len() == 1).count();
        GeneratedEntry {
            id: v.desc.id.clone(),
            category: v.category.category.clone(),
            name: v.desc.name.clone(),
            archetype: v.archetype.clone(),
            single,
            multi: tasks.len() - single,
            actions: g
                .files
                .get("ssm.json")
                .and_then(|b| knoblab_core::input::json::from_bytes::<StateMachine>(b).ok())
                .map(|ssm| action_counts(&ssm))
                .unwrap_or_default(),
            hash: content_hash(&g.files),
        }
    }

    /// The manifest of devices `only` picks from the plan (all: `|_| true`).
    pub fn manifest(&self, only: impl Fn(usize) -> bool) -> Result<GeneratedIndex, GeneratedError> {
        Ok(self.catalogue(only)?.manifest)
    }

    /// The manifest, the task list and every device's logic hash of the
    /// devices `only` picks from the plan, in one pass and without a
    /// picture: what `knoblab library generate` writes.
    pub fn catalogue(&self, only: impl Fn(usize) -> bool) -> Result<Catalogue, GeneratedError> {
        let mut devices = Vec::new();
        let mut tasks = Vec::new();
        let mut logic = BTreeMap::new();
        let mut hasher = Sha256::new();
        hasher.update(self.digest.as_bytes());
        for (n, (c, index)) in self.plan().into_iter().enumerate() {
            if !only(n) {
                continue;
            }
            let (v, g) = self.variant(c, index)?;
            let e = self.entry(&v, &g);
            hasher.update(e.hash.as_bytes());
            let bundle = logic_bundle(&g.files).map_err(|problem| GeneratedError::InDevice {
                id: e.id.clone(),
                problem: Box::new(problem),
            })?;
            logic.insert(e.id.clone(), bundle.logic_hash());
            tasks.push(DeviceTasks {
                id: e.id.clone(),
                tasks: bundle.tasks.iter().map(TaskSummary::of).collect(),
            });
            devices.push(e);
        }
        let manifest = GeneratedIndex {
            format: GENERATED_FORMAT.to_string(),
            version: self.space.version.clone(),
            hash: hex(&hasher.finalize()),
            devices,
        };
        let tasks = GeneratedTasks {
            format: GENERATED_TASKS_FORMAT.to_string(),
            manifest: manifest.hash.clone(),
            devices: tasks,
        };
        Ok(Catalogue {
            manifest,
            tasks,
            logic,
        })
    }

    /// A generated device's logic, by id: its JSON files made without a
    /// picture, each view standing in at the size every generated view is
    /// drawn at. Its logic hash is the drawn device's ([`check_device`]
    /// compares them), for a fraction of [`Inputs::open`]'s time.
    pub fn logic(&self, id: &str) -> Result<knoblab_core::bundle::Bundle, GeneratedError> {
        logic_bundle(&self.json_files(id)?).map_err(|problem| GeneratedError::InDevice {
            id: id.to_string(),
            problem: Box::new(problem),
        })
    }
}

/// The generated library in one pass ([`Inputs::catalogue`]).
#[derive(Debug, Clone, PartialEq)]
pub struct Catalogue {
    /// `data/generated.json`.
    pub manifest: GeneratedIndex,
    /// `data/generated-tasks.json`.
    pub tasks: GeneratedTasks,
    /// Each device's logic hash, by id (for `data/library-version.json`).
    pub logic: BTreeMap<String, String>,
}

/// The bundle of a generated device's JSON files, its views standing in
/// ([`super::device::stand_in`]).
fn logic_bundle(
    files: &BTreeMap<String, Vec<u8>>,
) -> Result<knoblab_core::bundle::Bundle, GeneratedError> {
    fn parse<T: serde::de::DeserializeOwned>(
        files: &BTreeMap<String, Vec<u8>>,
        name: &'static str,
    ) -> Result<T, GeneratedError> {
        let bytes = files
            .get(name)
            .ok_or(GeneratedError::NotMade { file: name })?;
        knoblab_core::input::json::from_bytes(bytes).map_err(|e| GeneratedError::MadeJson {
            file: name,
            error: e,
        })
    }
    let manifest: knoblab_core::bundle::Manifest = parse(files, "manifest.json")?;
    let ssm: StateMachine = parse(files, "ssm.json")?;
    let views: BTreeMap<String, knoblab_core::bundle::ViewSpec> = parse(files, "views.json")?;
    let tasks: knoblab_core::bundle::TaskFile = parse(files, "tasks.json")?;
    let specs: Vec<(String, knoblab_core::bundle::ViewSpec)> = views.into_iter().collect();
    Ok(super::device::stand_in(
        &manifest,
        &ssm,
        &specs,
        &tasks.tasks,
    ))
}

/// Every state and component the design space names exists: a state of
/// `optional_timers` or `instant` in its category's template with a timed
/// transition, a component of `latches` or `timer_controls` in some
/// template (a misspelt name would silently change nothing).
fn check_space_names(
    space: &Space,
    categories: &[(CategoryFile, StateMachine)],
) -> Result<(), GeneratedError> {
    use knoblab_core::bundle::model::TIMED_WAIT;
    let template = |category: &str| {
        categories
            .iter()
            .find(|(f, _)| f.category == category)
            .map(|(_, t)| t)
    };
    for (list, by_category) in [
        ("optional_timers", &space.optional_timers),
        ("instant", &space.instant),
    ] {
        for (category, states) in by_category {
            let t = template(category).ok_or_else(|| GeneratedError::SpaceCategory {
                list,
                category: category.clone(),
            })?;
            for state in states {
                if !t
                    .states
                    .get(state)
                    .is_some_and(|s| s.on.contains_key(TIMED_WAIT))
                {
                    return Err(GeneratedError::SpaceState {
                        list,
                        category: category.clone(),
                        state: state.clone(),
                    });
                }
            }
        }
    }
    for (list, names) in [
        ("latches", &space.latches),
        ("timer_controls", &space.timer_controls),
    ] {
        for name in names {
            let known = categories
                .iter()
                .any(|(_, t)| t.states.values().any(|s| s.on.contains_key(name)));
            if !known {
                return Err(GeneratedError::SpaceComponent {
                    list,
                    component: name.clone(),
                });
            }
        }
    }
    Ok(())
}

/// A generated device's id read without the generator's inputs: its
/// category's prefix and its number (`lamp-g0012` is `("lamp", 12)`), for
/// any id written the way [`variant_id`] writes them, whether or not
/// this build makes such a device ([`Inputs::locate`] says that, from the
/// inputs).
pub fn id_parts(id: &str) -> Option<(&str, usize)> {
    let (prefix, number) = id.rsplit_once("-g")?;
    if prefix.is_empty() || number.len() < 4 || !number.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    Some((prefix, number.parse().ok()?))
}

/// The library card of a generated device's id, when it is one of this
/// build's generated devices (no folder, no files: it is made when opened).
pub fn library_entry(id: &str) -> Option<knoblab_core::bundle::LibraryEntry> {
    let inputs = Inputs::embedded().ok()?;
    let (c, _) = inputs.locate(id)?;
    let (file, _) = &inputs.categories[c];
    Some(knoblab_core::bundle::LibraryEntry {
        id: id.to_string(),
        name: id.to_string(),
        category: file.category.clone(),
        path: format!("{GENERATED_PATH}/{id}"),
        files: Vec::new(),
        thumbnail: "views/front.png".to_string(),
        tasks: 0,
    })
}

/// One generated device made in full (pictures and live layer) and
/// checked against its manifest entry: it validates with no diagnostic
/// (the generator refuses it otherwise), its JSON files hash as the
/// manifest says, its task counts are the manifest's, and the oracle
/// reaches every goal of every task within budget. Its episode count.
pub fn check_device(inputs: &Inputs, entry: &GeneratedEntry) -> Result<usize, GeneratedError> {
    check_listed_device(inputs, entry, None)
}

/// What the committed files say of a generated device besides its
/// manifest entry: its tasks (`data/generated-tasks.json`) and its logic
/// hash (`data/library-version.json`).
#[derive(Debug, Clone, Copy)]
pub struct Listed<'a> {
    /// Its tasks as the task list has them.
    pub tasks: Option<&'a [TaskSummary]>,
    /// Its logic hash as the library's version file has it.
    pub logic: Option<&'a str>,
}

/// [`check_device`], and the device is as `listed` says: its tasks are
/// the task list's (ids, goals, instructions) and its logic hash the
/// version file's. Either way the drawn device's logic hash must be the
/// one its JSON files give without pictures ([`Inputs::logic`]), which is
/// how the version file's hashes are made.
pub fn check_listed_device(
    inputs: &Inputs,
    entry: &GeneratedEntry,
    listed: Option<Listed<'_>>,
) -> Result<usize, GeneratedError> {
    use knoblab_eval::agents::{run_tasks, Oracle};
    let generated = inputs.open(&entry.id)?;
    let hash = content_hash(&generated.files);
    if hash != entry.hash {
        return Err(GeneratedError::Hash {
            found: hash,
            expected: entry.hash.clone(),
        });
    }
    let without_pictures = logic_bundle(&generated.files)?.logic_hash();
    let files: Vec<(String, Vec<u8>)> = generated.files.into_iter().collect();
    let bundle =
        knoblab_core::bundle::load_files(&entry.id, files).map_err(GeneratedError::Load)?;
    let logic = bundle.logic_hash();
    if logic != without_pictures {
        return Err(GeneratedError::LogicDiffers {
            drawn: logic,
            made: without_pictures,
        });
    }
    if let Some(listed) = listed {
        let tasks: Vec<TaskSummary> = bundle.tasks.iter().map(TaskSummary::of).collect();
        if listed.tasks != Some(tasks.as_slice()) {
            return Err(GeneratedError::ListedTasks);
        }
        if listed.logic != Some(logic.as_str()) {
            return Err(GeneratedError::ListedLogic {
                found: logic,
                listed: listed.logic.unwrap_or("nothing").to_string(),
            });
        }
    }
    let single = bundle.tasks.iter().filter(|t| t.goals.len() == 1).count();
    if (single, bundle.tasks.len() - single) != (entry.single, entry.multi) {
        return Err(GeneratedError::TaskCounts {
            single,
            multi: bundle.tasks.len() - single,
            expected_single: entry.single,
            expected_multi: entry.multi,
        });
    }
    let mut oracle = Oracle::new(&bundle);
    let trajectories = run_tasks(
        &bundle,
        None,
        &mut oracle,
        &knoblab_core::sim::Settings::default(),
    )
    .map_err(GeneratedError::Play)?;
    for t in &trajectories {
        if t.goals_reached != t.goals_total || !t.terminated || t.truncated {
            return Err(GeneratedError::Oracle {
                task: t.task_id.clone(),
                reached: t.goals_reached,
                total: t.goals_total,
                truncated: t.truncated,
            });
        }
    }
    Ok(trajectories.len())
}

/// A device's transitions counted by action.
pub fn action_counts(ssm: &StateMachine) -> BTreeMap<String, usize> {
    use knoblab_core::bundle::model::{IMMEDIATE, TIMED_WAIT};
    let mut out = BTreeMap::new();
    for state in ssm.states.values() {
        for (key, transitions) in &state.on {
            if key == IMMEDIATE {
                continue;
            }
            for t in transitions {
                let action = if key == TIMED_WAIT {
                    TIMED_WAIT.to_string()
                } else {
                    t.atomic_action.clone().unwrap_or_default()
                };
                *out.entry(action).or_insert(0) += 1;
            }
        }
    }
    out
}

/// SHA-256 of the JSON files of a bundle but the live layer (each file's name, length and
/// bytes, in name order), hex.
pub fn content_hash(files: &BTreeMap<String, Vec<u8>>) -> String {
    let mut hasher = Sha256::new();
    for (name, bytes) in files
        .iter()
        .filter(|(n, _)| n.ends_with(".json") && *n != "live.json")
    {
        hasher.update(name.as_bytes());
        hasher.update((bytes.len() as u64).to_le_bytes());
        hasher.update(bytes);
    }
    hex(&hasher.finalize())
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}
