//! Tests of `selection` (kept apart so that the module reads as one idea).

#![allow(clippy::disallowed_methods)] // tests, benches and tools read their own fixtures and files directly (#47)
use super::*;
use knoblab_core::bundle::generated::GeneratedEntry;
use knoblab_core::bundle::LibraryEntry;

fn hand(id: &str, category: &str, tasks: usize) -> LibraryEntry {
    LibraryEntry {
        id: id.into(),
        name: format!("{category} {id}"),
        category: category.into(),
        path: format!("devices/{id}"),
        files: vec!["tasks.json".into()],
        thumbnail: "views/front.png".into(),
        tasks,
    }
}

fn made(id: &str, category: &str, single: usize, multi: usize) -> GeneratedEntry {
    GeneratedEntry {
        id: id.into(),
        category: category.into(),
        name: format!("Generated {id}"),
        archetype: "x".into(),
        single,
        multi,
        actions: BTreeMap::new(),
        hash: String::new(),
    }
}

fn tasks(single: &[&str], multi: &[&str]) -> Vec<TaskInfo> {
    let one = single.iter().map(|i| TaskInfo {
        id: i.to_string(),
        goals: 1,
    });
    let more = multi.iter().map(|i| TaskInfo {
        id: i.to_string(),
        goals: 2,
    });
    one.chain(more).collect()
}

/// Two hand lamps (3 tasks each), one hand kettle (2), and three
/// generated devices (2 lamps, 1 kettle; 1 + 2 tasks each).
fn catalog() -> Catalog {
    let index = LibraryIndex {
        format: knoblab_core::bundle::LIBRARY_FORMAT.into(),
        devices: vec![
            hand("lamp-0001", "Lamp", 3),
            hand("lamp-0002", "Lamp", 3),
            hand("kettle-0001", "ElectricKettle", 2),
        ],
    };
    let generated = GeneratedIndex {
        format: knoblab_core::bundle::generated::GENERATED_FORMAT.into(),
        version: "1".into(),
        hash: String::new(),
        devices: vec![
            made("lamp-g0001", "Lamp", 1, 2),
            made("lamp-g0002", "Lamp", 1, 2),
            made("kettle-g0001", "ElectricKettle", 1, 2),
        ],
    };
    Catalog::new(&index, Some(&generated))
}

fn read_hand(c: &mut Catalog) {
    c.learn_tasks(
        "lamp-0001",
        tasks(&["single-on", "single-dim"], &["multi-1"]),
    );
    c.learn_tasks("lamp-0002", tasks(&["single-on"], &["multi-1", "multi-2"]));
    c.learn_tasks("kettle-0001", tasks(&["single-boil"], &["multi-1"]));
}

fn of(scope: Scope, tasks: TaskChoice, repeats: u32) -> Selection {
    Selection {
        scope,
        tasks,
        repeats,
    }
}

fn category(c: &str) -> Scope {
    Scope::Category { category: c.into() }
}

#[test]
fn all_counts_every_device_of_the_index_and_the_manifest() {
    let c = catalog();
    assert_eq!(c.devices().len(), 6);
    let all = c.count(&Selection::default());
    assert_eq!(
        all,
        Count {
            devices: 6,
            episodes: 3 + 3 + 2 + 3 * 3,
            runs: 17,
            unknown: 0,
            generated: 3,
        }
    );
    assert_eq!(
        c.summary(&Selection::default()),
        "all: 6 devices, 17 episodes"
    );
}

#[test]
fn categories_are_by_name_with_their_devices_and_episodes() {
    let c = catalog();
    let cats = c.categories();
    assert_eq!(
        cats,
        vec![
            CategoryCount {
                category: "ElectricKettle".into(),
                devices: 2,
                episodes: 5
            },
            CategoryCount {
                category: "Lamp".into(),
                devices: 4,
                episodes: 12
            },
        ]
    );
    // A category's summary agrees with its row.
    let lamps = of(category("Lamp"), TaskChoice::Every, 1);
    assert_eq!(c.summary(&lamps), "Lamp: 4 devices, 12 episodes");
    let three = of(category("Lamp"), TaskChoice::Every, 3);
    assert_eq!(c.count(&three).runs, 36);
    assert_eq!(
        c.summary(&three),
        "Lamp: 4 devices, 12 episodes, each 3 times: 36 runs"
    );
}

#[test]
fn kinds_of_hand_devices_are_counted_once_their_tasks_are_read() {
    let mut c = catalog();
    let single = of(Scope::All, TaskChoice::Single, 1);
    // Only the generated devices' kinds are in the manifest.
    assert_eq!(c.count(&single).devices, 3);
    assert_eq!(c.count(&single).unknown, 3);
    assert!(c.summary(&single).ends_with(
        "single-turn tasks: 3 devices, 3 episodes (and 3 devices whose task ids are known once opened)"
    ));
    read_hand(&mut c);
    let count = c.count(&single);
    assert_eq!(
        (count.devices, count.episodes, count.unknown),
        (6, 2 + 1 + 1 + 3, 0)
    );
    let multi = c.count(&of(Scope::All, TaskChoice::Multi, 1));
    assert_eq!(multi.episodes, 1 + 2 + 1 + 3 * 2);
    // Single and multi add up to every task.
    assert_eq!(
        count.episodes + multi.episodes,
        c.count(&Selection::default()).episodes
    );
}

#[test]
fn task_ids_count_only_on_devices_whose_tasks_are_read() {
    let mut c = catalog();
    read_hand(&mut c);
    let multi2 = of(Scope::All, TaskChoice::ids(" multi-2 ,, "), 2);
    assert_eq!(
        multi2.tasks,
        TaskChoice::Ids {
            ids: vec!["multi-2".into()]
        }
    );
    let count = c.count(&multi2);
    // Only lamp-0002 has it; the generated devices are not read.
    assert_eq!(
        (count.devices, count.episodes, count.runs, count.unknown),
        (1, 1, 2, 3)
    );
    assert_eq!(TaskChoice::ids(" , "), TaskChoice::Every);
}

#[test]
fn search_matches_every_word_in_id_or_name_up_to_a_limit() {
    let c = catalog();
    let ids = |q: &str, n| {
        c.search(q, n)
            .iter()
            .map(|d| d.id.clone())
            .collect::<Vec<_>>()
    };
    assert_eq!(ids("LAMP-G", 10), vec!["lamp-g0001", "lamp-g0002"]);
    assert_eq!(ids("generated kettle", 10), vec!["kettle-g0001"]);
    assert_eq!(ids("lamp", 2), vec!["lamp-0001", "lamp-0002"]);
    assert!(ids("  ", 10).is_empty());
    assert!(ids("toaster", 10).is_empty());
}

#[test]
fn pairs_follow_scope_order_and_need_every_task_list() {
    let mut c = catalog();
    let picked = of(
        Scope::Devices {
            ids: vec!["kettle-0001".into(), "lamp-0001".into()],
        },
        TaskChoice::Single,
        2,
    );
    assert_eq!(
        c.pairs(&picked),
        Err(SelectionError::TasksUnread {
            ids: vec!["kettle-0001".into(), "lamp-0001".into()]
        })
    );
    read_hand(&mut c);
    assert_eq!(
        c.pairs(&picked).unwrap(),
        vec![
            ("kettle-0001".to_string(), vec!["single-boil".to_string()]),
            (
                "lamp-0001".to_string(),
                vec!["single-on".to_string(), "single-dim".to_string()]
            ),
        ]
    );
    let items = c.plan(&picked).unwrap();
    assert_eq!(items.len(), 6);
    assert_eq!(items[1].key(), "kettle-0001/single-boil#1");
    // The plan has as many items as the count says runs.
    assert_eq!(items.len(), c.count(&picked).runs);
    // The generated lamps are in scope and not read: named.
    let lamps = of(category("Lamp"), TaskChoice::Every, 1);
    let err = c.pairs(&lamps).unwrap_err();
    assert_eq!(
        err.to_string(),
        "the tasks of 2 device(s) are not read yet: lamp-g0001, lamp-g0002"
    );
}

#[test]
fn nothing_to_run_and_unknown_ids_are_named() {
    let mut c = catalog();
    read_hand(&mut c);
    let none = of(
        Scope::Devices {
            ids: vec!["kettle-0001".into()],
        },
        TaskChoice::ids("multi-9"),
        1,
    );
    assert_eq!(
        c.pairs(&none).unwrap_err().to_string(),
        "nothing to run: kettle-0001, tasks multi-9: 0 devices, 0 episodes; choose other devices or tasks"
    );
    let stray = of(
        Scope::Devices {
            ids: vec!["toaster-0001".into()],
        },
        TaskChoice::Every,
        1,
    );
    assert_eq!(
        c.pairs(&stray).unwrap_err().to_string(),
        "the device toaster-0001 is not in this library (6 devices)"
    );
    assert_eq!(c.count(&stray), Count::default());
}

#[test]
fn the_generated_task_list_makes_every_device_plannable_without_opening_one() {
    use knoblab_core::bundle::generated::{DeviceTasks, TaskSummary, GENERATED_TASKS_FORMAT};
    let mut c = catalog();
    read_hand(&mut c);
    let summary = |id: &str, goals: usize| TaskSummary {
        id: id.into(),
        goals: vec!["On".into(); goals],
        instructions: vec!["Turn it on.".into(); goals],
    };
    let list = GeneratedTasks {
        format: GENERATED_TASKS_FORMAT.into(),
        manifest: String::new(),
        devices: ["lamp-g0001", "lamp-g0002", "kettle-g0001"]
            .iter()
            .map(|id| DeviceTasks {
                id: id.to_string(),
                tasks: vec![
                    summary("single-on", 1),
                    summary("multi-1", 2),
                    summary("multi-2", 3),
                ],
            })
            .collect(),
    };
    c.learn_generated(&list);
    let lamps = of(category("Lamp"), TaskChoice::ids("multi-2"), 1);
    // Now counted where the hand lamps were the only ones known.
    let count = c.count(&lamps);
    assert_eq!((count.devices, count.unknown, count.generated), (3, 0, 2));
    let items = c.plan(&lamps).unwrap();
    let keys: Vec<String> = items.iter().map(BatchItem::key).collect();
    assert_eq!(
        keys,
        [
            "lamp-0002/multi-2#0",
            "lamp-g0001/multi-2#0",
            "lamp-g0002/multi-2#0"
        ]
    );
    // One episode: the first device in scope with a chosen task.
    let mut one = of(Scope::All, TaskChoice::ids("multi-2"), 1);
    assert_eq!(c.narrow_to_first(&mut one).as_deref(), Some("lamp-0002"));
    assert_eq!(
        one.scope,
        Scope::Devices {
            ids: vec!["lamp-0002".into()]
        }
    );
    let mut made = of(category("ElectricKettle"), TaskChoice::Multi, 1);
    assert_eq!(c.narrow_to_first(&mut made).as_deref(), Some("kettle-0001"));
    let mut none = of(Scope::All, TaskChoice::ids("nothing"), 1);
    assert_eq!(c.narrow_to_first(&mut none), None);
    assert_eq!(none.scope, Scope::All);
}

#[test]
fn learning_a_generated_devices_tasks_keeps_its_counts_consistent() {
    let mut c = catalog();
    c.learn_tasks("lamp-g0001", tasks(&["single-on"], &["multi-1", "multi-2"]));
    let d = c.device("lamp-g0001").unwrap();
    assert_eq!((d.tasks, d.kinds), (3, Some((1, 2))));
    c.learn_tasks("not-there", Vec::new());
    assert_eq!(c.devices().len(), 6);
}

#[test]
fn replay_pairs_keep_kinds_only_where_known() {
    let mut c = catalog();
    read_hand(&mut c);
    let pairs = [
        ("lamp-0002", "multi-2"),
        ("lamp-0001", "single-on"),
        ("lamp-0002", "single-on"),
        ("lamp-g0001", "single-x"),
    ]
    .map(|(b, t)| (b.to_string(), t.to_string()));
    let single = c.replay_pairs(&TaskChoice::Single, pairs.clone());
    assert_eq!(
        single,
        vec![
            ("lamp-0001".to_string(), vec!["single-on".to_string()]),
            ("lamp-0002".to_string(), vec!["single-on".to_string()]),
        ]
    );
    let every = c.replay_pairs(&TaskChoice::Every, pairs.clone());
    assert_eq!(every.len(), 3);
    assert_eq!(
        every[0].1,
        vec!["multi-2".to_string(), "single-on".to_string()]
    );
    let ids = c.replay_pairs(&TaskChoice::ids("single-x"), pairs);
    assert_eq!(
        ids,
        vec![("lamp-g0001".to_string(), vec!["single-x".to_string()])]
    );
}

#[test]
fn a_selection_is_stored_as_tagged_json_and_read_back() {
    let s = of(
        Scope::Devices {
            ids: vec!["lamp-0001".into()],
        },
        TaskChoice::ids("single-on"),
        2,
    );
    let text = serde_json::to_string(&s).unwrap();
    assert_eq!(
        text,
        r#"{"scope":{"by":"devices","ids":["lamp-0001"]},"tasks":{"kind":"ids","ids":["single-on"]},"repeats":2}"#
    );
    assert_eq!(serde_json::from_str::<Selection>(&text).unwrap(), s);
    let cat = serde_json::to_string(&of(category("Lamp"), TaskChoice::Multi, 1)).unwrap();
    assert_eq!(
        cat,
        r#"{"scope":{"by":"category","category":"Lamp"},"tasks":{"kind":"multi"},"repeats":1}"#
    );
}

/// The shipped library: the index, the generated manifest and every
/// hand-described device's tasks file, as the page reads them.
fn shipped() -> Catalog {
    let data = std::path::Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../..")).join("data");
    let read = |p: &std::path::Path| std::fs::read(p).unwrap();
    let index = LibraryIndex::parse(&read(&data.join("library.json"))).unwrap();
    let generated = GeneratedIndex::parse(&read(&data.join("generated.json"))).unwrap();
    let mut c = Catalog::new(&index, Some(&generated));
    for e in &index.devices {
        let tasks = TaskInfo::parse_file(&e.id, &read(&data.join(e.file_url("tasks.json"))));
        c.learn_tasks(&e.id, tasks.unwrap());
    }
    let list = GeneratedTasks::parse(&read(&data.join("generated-tasks.json")), &generated);
    c.learn_generated(&list.unwrap());
    c
}

#[test]
fn every_device_of_the_shipped_library_plans_without_being_opened() {
    let c = shipped();
    let all = c.count(&Selection::default());
    let items = c.plan(&Selection::default()).unwrap();
    assert_eq!(items.len(), all.runs);
    assert_eq!(all.unknown, 0);
    // A category of generated and hand devices, by task id: counted
    // and planned alike.
    let microwaves = of(category("Microwave"), TaskChoice::Multi, 2);
    let count = c.count(&microwaves);
    assert!(count.generated > 0 && count.devices > count.generated);
    assert_eq!(c.plan(&microwaves).unwrap().len(), count.runs);
    // Every planned device is one the library's version file lists
    // (the page plans on it: `RunSpec::on_library`).
    let spec =
        super::super::RunSpec::on_library(super::super::Source::Oracle, Default::default(), items)
            .unwrap();
    assert_eq!(spec.bundles.len(), 968);
}

#[test]
fn the_shipped_library_counts_as_its_index_and_manifest_say() {
    let data = std::path::Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../..")).join("data");
    let index = LibraryIndex::parse(&std::fs::read(data.join("library.json")).unwrap()).unwrap();
    let generated =
        GeneratedIndex::parse(&std::fs::read(data.join("generated.json")).unwrap()).unwrap();
    let c = shipped();
    let all = c.count(&Selection::default());
    let hand_tasks: usize = index.devices.iter().map(|d| d.tasks).sum();
    let made_tasks: usize = generated.devices.iter().map(|d| d.single + d.multi).sum();
    assert_eq!(all.devices, index.devices.len() + generated.devices.len());
    assert_eq!(all.episodes, hand_tasks + made_tasks);
    assert_eq!(all.generated, generated.devices.len());
    // The paper's scale (VGEBench: 968 devices in 26 categories).
    assert_eq!((all.devices, c.categories().len()), (968, 26));
    assert_eq!(
        c.summary(&Selection::default()),
        format!(
            "all: {} devices, {} episodes",
            grouped(all.devices),
            grouped(all.episodes)
        )
    );
    // The categories partition the library, and each one's summary
    // agrees with its row.
    let cats = c.categories();
    assert_eq!(cats.iter().map(|c| c.devices).sum::<usize>(), all.devices);
    assert_eq!(cats.iter().map(|c| c.episodes).sum::<usize>(), all.episodes);
    for row in &cats {
        let sel = of(category(&row.category), TaskChoice::Every, 1);
        let n = c.count(&sel);
        assert_eq!(
            (n.devices, n.episodes),
            (row.devices, row.episodes),
            "{}",
            row.category
        );
    }
    // Kinds: every task is single- or multi-turn, and once the hand
    // devices' files are read nothing is left uncounted.
    let single = c.count(&of(Scope::All, TaskChoice::Single, 1));
    let multi = c.count(&of(Scope::All, TaskChoice::Multi, 1));
    assert_eq!((single.unknown, multi.unknown), (0, 0));
    assert_eq!(single.episodes + multi.episodes, all.episodes);
    let made_single: usize = generated.devices.iter().map(|d| d.single).sum();
    assert!(single.episodes > made_single);
}

#[test]
fn a_tasks_file_is_read_with_its_kinds_and_a_bad_one_named() {
    let text = br#"{"tasks": [
      {"id": "single-on", "goals": [{"state": "On", "instruction": "On."}]},
      {"id": "multi-1", "goals": [{"state": "On", "instruction": "On."}, {"state": "Off", "instruction": "Off."}]}]}"#;
    let ts = TaskInfo::parse_file("lamp-0001", text).unwrap();
    assert_eq!(ts, tasks(&["single-on"], &["multi-1"]));
    let err = TaskInfo::parse_file("lamp-0001", b"{\"tasks\": 3}").unwrap_err();
    assert!(
        err.to_string().starts_with("the tasks of lamp-0001: "),
        "{err}"
    );
}
