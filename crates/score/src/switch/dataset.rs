//! The SWITCH ground truth: items, their gold answers, and the skill column
//! each belongs to. Reading them from files is [`super::load`]: the core
//! reads in-memory files (path → bytes) so that the page can feed dropped
//! files and the CLI the file system.

use std::collections::BTreeMap;
use std::collections::BTreeSet;

use serde::Serialize;
use serde_json::{Map, Value};

/// The task families the spec lists (folder names and `task_family` values).
pub const TASK_FAMILIES: [&str; 8] = [
    "vqa_task",
    "vqa_state",
    "ui_grounding",
    "action",
    "final_state",
    "verification_action",
    "verification_state",
    "recovery",
];

/// The input forms the spec lists.
pub const FORMS: [&str; 6] = [
    "video2txt",
    "img2txt",
    "img2video",
    "video2video",
    "img2img",
    "video2img",
];

/// The form of an item read from a lone file with no folders and no `form`
/// field.
pub const UNKNOWN_FORM: &str = "(unknown form)";

/// Which file an item came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ItemKind {
    /// From a `vqa.json`: a multiple-choice question.
    Mcq,
    /// From an `openqa.json`: an open question.
    OpenQa,
}

/// The gold answer of an item.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "type", content = "value", rename_all = "snake_case")]
pub enum Gold {
    /// > `GT` is a letter (single choice)
    Choice(char),
    /// > a list of letters (multi-select)
    MultiSelect(BTreeSet<char>),
    /// > a string
    Text(String),
    /// A JSON number (a counting answer).
    Number(f64),
    /// > an object for structured answers (e.g. `ui_signal`,
    /// > `physical_world_state`; recovery answers: `wrong_action`,
    /// > `post_wrong_signal`, `fix_steps`, `post_fix_signal`)
    Structured(Map<String, Value>),
}

/// The paper's eight skill columns, in the paper's order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
pub enum Skill {
    /// Column of the `vqa_task` items.
    TaskUnderstanding,
    /// Column of the `vqa_state` items.
    StatePerception,
    /// Column of the `ui_grounding` items.
    UiRecognition,
    /// Column of the `action` items that are not counting questions.
    ActionReasoning,
    /// Column of the `action` counting questions (see [`Item::skill`]).
    SequentialActionQuantification,
    /// Column of the `final_state` items.
    StateTransitionPrediction,
    /// Column of the `verification_state` and `verification_action` items.
    OutcomeVerification,
    /// Column of the `recovery` items.
    RecoveryReasoning,
}

impl Skill {
    /// All columns, in the paper's order.
    pub const ALL: [Skill; 8] = [
        Skill::TaskUnderstanding,
        Skill::StatePerception,
        Skill::UiRecognition,
        Skill::ActionReasoning,
        Skill::SequentialActionQuantification,
        Skill::StateTransitionPrediction,
        Skill::OutcomeVerification,
        Skill::RecoveryReasoning,
    ];

    /// The column header as the paper writes it.
    pub fn column_name(self) -> &'static str {
        match self {
            Skill::TaskUnderstanding => "Task Understanding",
            Skill::StatePerception => "State Perception",
            Skill::UiRecognition => "UI Recognition",
            Skill::ActionReasoning => "Action Reasoning",
            Skill::SequentialActionQuantification => "Sequential Action Quantification",
            Skill::StateTransitionPrediction => "State Transition Prediction",
            Skill::OutcomeVerification => "Outcome Verification",
            Skill::RecoveryReasoning => "Recovery Reasoning",
        }
    }

    /// A short header for text tables.
    pub fn short_name(self) -> &'static str {
        match self {
            Skill::TaskUnderstanding => "TaskU",
            Skill::StatePerception => "StateP",
            Skill::UiRecognition => "UIRec",
            Skill::ActionReasoning => "ActR",
            Skill::SequentialActionQuantification => "SeqQ",
            Skill::StateTransitionPrediction => "TransP",
            Skill::OutcomeVerification => "Verif",
            Skill::RecoveryReasoning => "Recov",
        }
    }
}

impl Skill {
    /// The paper's column group of the skill (Tables 1 and 2).
    ///
    /// **Decision:** the paper groups its eight columns in three:
    /// "Interface Understanding" (Task Understanding, State Perception, UI
    /// Recognition: reading the panel and what it is for), "Action &
    /// Consequence Reasoning" (Action Reasoning, Sequential Action
    /// Quantification, State Transition Prediction: what to do and what it
    /// does) and "Closed-loop Reflection" (Outcome Verification, Recovery
    /// Reasoning: checking the result and fixing a mistake). The spec names
    /// no groups; this is the paper's reading order, and [`Skill::ALL`]
    /// keeps each group's columns together.
    pub fn group(self) -> &'static str {
        match self {
            Skill::TaskUnderstanding | Skill::StatePerception | Skill::UiRecognition => {
                SKILL_GROUPS[0]
            }
            Skill::ActionReasoning
            | Skill::SequentialActionQuantification
            | Skill::StateTransitionPrediction => SKILL_GROUPS[1],
            Skill::OutcomeVerification | Skill::RecoveryReasoning => SKILL_GROUPS[2],
        }
    }
}

/// The paper's three column groups, in order.
pub const SKILL_GROUPS: [&str; 3] = [
    "Interface Understanding",
    "Action & Consequence Reasoning",
    "Closed-loop Reflection",
];

/// The leaderboard's split of an item.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
pub enum Split {
    /// The public ("open") split.
    Open,
    /// The held-out ("closed") split.
    Held,
}

impl Split {
    /// Both splits, in the leaderboard's row order.
    pub const ALL: [Split; 2] = [Split::Open, Split::Held];

    /// The leaderboard's row name.
    pub fn name(self) -> &'static str {
        match self {
            Split::Open => "Open",
            Split::Held => "Held",
        }
    }

    /// The submission's suffix (`mcq_open`, `mcq_closed`).
    pub fn submission_suffix(self) -> &'static str {
        match self {
            Split::Open => "open",
            Split::Held => "closed",
        }
    }

    /// Reads a split name.
    ///
    /// **Decision:** `open`, `public` and `dev` are the open split; `held`,
    /// `held_out`, `held-out`, `heldout`, `closed`, `hidden` and `private`
    /// the held-out one (any case). Anything else is not a split.
    pub fn parse(text: &str) -> Option<Split> {
        match text.trim().to_ascii_lowercase().as_str() {
            "open" | "public" | "dev" => Some(Split::Open),
            "held" | "held_out" | "held-out" | "heldout" | "closed" | "hidden" | "private" => {
                Some(Split::Held)
            }
            _ => None,
        }
    }

    /// The accepted names, for messages.
    pub const NAMES: &'static str =
        "open, public, dev (the open split); held, held_out, heldout, closed, hidden, private (the held-out split)";
}

/// The modality code of a form, as the leaderboard writes it: `IT`
/// (image→text), `II` (image→image), and for the video forms `VT`, `VI`,
/// `IV`, `VV`; `?` for a form KnobLab does not know.
pub fn modality(form: &str) -> &'static str {
    match form {
        "img2txt" => "IT",
        "img2img" => "II",
        "video2txt" => "VT",
        "video2img" => "VI",
        "img2video" => "IV",
        "video2video" => "VV",
        _ => "?",
    }
}

/// The leaderboard's task of a task family: its number, and the column's
/// name before the modality.
///
/// **Decision:** the leaderboard names tasks, not families. `vqa_state`
/// is "1/ Task-Aware VQA (a) UI State Rec." (recognising the panel's state
/// for a task); `vqa_task` and `ui_grounding` are "2/ UI Compr." (what the
/// interface is for and which control does what); `action` (counting
/// questions included) is "3/ Action"; `final_state` "4/ State
/// Transition"; `verification_action` "5/ Verification (a) Planning" and
/// `verification_state` "5/ Verification (b) Expected State". `recovery`
/// and families outside the eight have no leaderboard task: they get
/// columns of their own, named by the family.
pub fn leaderboard_task(family: &str) -> Option<(u8, &'static str)> {
    Some(match family {
        "vqa_state" => (1, "1/ Task-Aware VQA (a) UI State Rec."),
        "vqa_task" | "ui_grounding" => (2, "2/ UI Compr."),
        "action" => (3, "3/ Action"),
        "final_state" => (4, "4/ State Transition"),
        "verification_action" => (5, "5/ Verification (a) Planning"),
        "verification_state" => (6, "5/ Verification (b) Expected State"),
        _ => return None,
    })
}

/// The leaderboard's own columns (its image-only results), in order: every
/// report shows them, empty ones as "–".
pub const LEADERBOARD_COLUMNS: [&str; 8] = [
    "1/ Task-Aware VQA (a) UI State Rec. (IT)",
    "2/ UI Compr. (IT)",
    "3/ Action (IT)",
    "4/ State Transition (IT)",
    "4/ State Transition (II)",
    "5/ Verification (a) Planning (IT)",
    "5/ Verification (b) Expected State (IT)",
    "5/ Verification (b) Expected State (II)",
];

/// The leaderboard column of an item and its sort key: the task's column
/// with the form's modality, `"<family> (<modality>)"` for a family with no
/// leaderboard task.
pub fn leaderboard_column(family: &str, form: &str) -> ((u8, String, u8), String) {
    let m = modality(form);
    let m_order = ["IT", "II", "VT", "VI", "IV", "VV", "?"]
        .iter()
        .position(|x| *x == m)
        .unwrap_or(6) as u8;
    match leaderboard_task(family) {
        Some((n, task)) => ((n, String::new(), m_order), format!("{task} ({m})")),
        None => (
            (u8::MAX, family.to_string(), m_order),
            format!("{family} ({m})"),
        ),
    }
}

/// Whether a task family is one of the eight KnobLab knows.
pub fn is_known_family(family: &str) -> bool {
    TASK_FAMILIES.contains(&family)
}

/// An item's key: `(task_family, form, id)`.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
pub struct ItemKey {
    /// The task family (`vqa_state`, …), from the folder or the `task_family`
    /// field.
    pub task_family: String,
    /// The input form (`img2txt`, …), or [`UNKNOWN_FORM`] when nothing names
    /// one.
    pub form: String,
    /// The sequential id, as text (**Decision:** `7` and `"7"` name the
    /// same item, because harnesses write ids either way).
    pub id: String,
    /// Which file the item is from: the same id can be in both `vqa.json` and
    /// `openqa.json`.
    pub kind: ItemKind,
}

impl std::fmt::Display for ItemKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let file = match self.kind {
            ItemKind::Mcq => "vqa",
            ItemKind::OpenQa => "openqa",
        };
        write!(f, "{}/{}/{}#{}", self.task_family, self.form, file, self.id)
    }
}

/// One ground-truth item.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Item {
    /// Where the item is: family, form, id and file kind.
    pub key: ItemKey,
    /// The dataset's `origin_qa_id`; a prediction may name the item by it
    /// instead of the key.
    pub origin_qa_id: Option<String>,
    /// The question as written (options may also be in it as `A. ...` lines).
    pub query: String,
    /// The `GT` answer.
    pub gold: Gold,
    /// The `qa_type` field, as written; it can mark an `action` item as
    /// counting.
    pub qa_type: Option<String>,
    /// The `capability_level` field, as written (kept, not scored).
    pub capability_level: Option<String>,
    /// The `scenario_family` field; the report's per-scenario table groups by
    /// it.
    pub scenario_family: Option<String>,
    /// The `slice_tags` field's tags, as written (kept, not scored).
    pub slice_tags: Vec<String>,
    /// `output_schema.type`, when given.
    pub schema_type: Option<String>,
    /// `output_schema.min_correct`: the fewest letters a multi-select answer
    /// should have (not enforced).
    pub min_correct: Option<u64>,
    /// `output_schema.max_correct`: the most letters a multi-select answer
    /// should have (not enforced).
    pub max_correct: Option<u64>,
    /// The `canonical_answer` field, as given; a numeric one marks an `action`
    /// item as counting.
    pub canonical_answer: Option<Value>,
    /// Other accepted answers (`alias_list`): OpenQA takes the best score over
    /// `GT` and these.
    pub alias_list: Vec<Value>,
    /// The `numeric_slots` field (`null` when absent); a non-empty one marks an
    /// `action` item as counting.
    pub numeric_slots: Value,
    /// Option letter → text (or a media path for image/video options).
    pub options: BTreeMap<char, String>,
    /// The `answer_mode` field, as written (kept, not scored).
    pub answer_mode: Option<String>,
    /// The file the item was read from (with its line, for a JSON Lines
    /// release file: `mcq_hf_1500/data.jsonl:7`).
    pub file: String,
    /// The leaderboard split, when the item, its folder or an option names
    /// one.
    pub split: Option<Split>,
    /// Media paths the item names (images, videos), as written.
    pub media: Vec<String>,
}

impl Item {
    /// The option labels this item allows: A–D for single choice, A–E for
    /// multi-select (> labels A–D / labels A–E), widened to any option field
    /// the item actually carries.
    pub fn labels(&self) -> BTreeSet<char> {
        let last = match self.gold {
            Gold::MultiSelect(_) => 'E',
            _ => 'D',
        };
        let mut labels: BTreeSet<char> = ('A'..=last).collect();
        labels.extend(self.options.keys().copied());
        labels
    }

    /// Whether an option is a media path rather than text (image/video options).
    pub fn option_is_text(text: &str) -> bool {
        let lower = text.to_ascii_lowercase();
        let media = [
            ".png", ".jpg", ".jpeg", ".gif", ".webp", ".mp4", ".webm", ".mov", ".avi",
        ];
        !media.iter().any(|ext| lower.ends_with(ext))
    }

    /// The skill column of the item.
    ///
    /// > Action Reasoning: `action`, except counting questions.
    /// > Sequential Action Quantification: `action` counting questions
    /// > (numeric answer / `qa_type` marks counting).
    ///
    /// **Decision:** an `action` item counts as a counting question when its
    /// `qa_type` contains "count", "quantif" or "how_many"; or its
    /// `numeric_slots` is a non-empty array or object; or its gold (or, for a
    /// choice, its `canonical_answer`) is a number or a string that parses as
    /// one.
    pub fn skill(&self) -> Option<Skill> {
        Some(match self.key.task_family.as_str() {
            "vqa_task" => Skill::TaskUnderstanding,
            "vqa_state" => Skill::StatePerception,
            "ui_grounding" => Skill::UiRecognition,
            "action" if self.is_counting() => Skill::SequentialActionQuantification,
            "action" => Skill::ActionReasoning,
            "final_state" => Skill::StateTransitionPrediction,
            "verification_state" | "verification_action" => Skill::OutcomeVerification,
            "recovery" => Skill::RecoveryReasoning,
            _ => return None,
        })
    }

    fn is_counting(&self) -> bool {
        let qa_type_marks = self.qa_type.as_deref().is_some_and(|t| {
            let t = t.to_ascii_lowercase();
            t.contains("count") || t.contains("quantif") || t.contains("how_many")
        });
        let slots = match &self.numeric_slots {
            Value::Array(a) => !a.is_empty(),
            Value::Object(o) => !o.is_empty(),
            _ => false,
        };
        let numeric_gold = match &self.gold {
            Gold::Number(_) => true,
            Gold::Text(t) => t.trim().parse::<f64>().is_ok(),
            _ => false,
        };
        let numeric_canonical = match &self.canonical_answer {
            Some(Value::Number(_)) => true,
            Some(Value::String(s)) => s.trim().parse::<f64>().is_ok(),
            _ => false,
        };
        qa_type_marks || slots || numeric_gold || numeric_canonical
    }
}

/// The loaded ground truth: every item, in key order.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct GroundTruth {
    /// The items, sorted by [`ItemKey`] (family, form, id, file kind).
    pub items: Vec<Item>,
}
