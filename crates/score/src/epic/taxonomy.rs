//! EPIC-Bench's task taxonomy (§2): 3 categories, 9 subcategories, 23
//! leaves, with the official summary keys in output order, and the path
//! rules that recover a task from its files (§4.2, §12).

/// The category of the TL groups (BA, SRA, ECA), as `task_category` spells it.
pub const TARGET_LOCALIZATION: &str = "TargetLocalization";
/// The category of the GD, FP and VM groups, as `task_category` spells it.
pub const NAVIGATION: &str = "Navigation";
/// The category of the AR, CR and PR groups, as `task_category` spells it.
pub const MANIPULATION: &str = "Manipulation";

/// The categories in `by_category` order.
pub const CATEGORIES: [&str; 3] = [TARGET_LOCALIZATION, NAVIGATION, MANIPULATION];

/// One leaf task: category, group, abbreviation, leaf type, summary keys.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Leaf {
    /// The category, e.g. `TargetLocalization`.
    pub category: &'static str,
    /// The subcategory (group), e.g. `BasicAttributes`.
    pub group: &'static str,
    /// The group's abbreviation, e.g. `BA`.
    pub abbr: &'static str,
    /// The leaf's own name, e.g. `Category`.
    pub leaf: &'static str,
    /// The `by_type` summary key, `category/group/leaf`.
    pub type_key: &'static str,
    /// The `by_group` summary key, `category/group`.
    pub group_key: &'static str,
}

macro_rules! leaf {
    ($c:literal, $g:literal, $a:literal, $l:literal, $tk:literal, $gk:literal) => {
        Leaf {
            category: $c,
            group: $g,
            abbr: $a,
            leaf: $l,
            type_key: $tk,
            group_key: $gk,
        }
    };
}

/// The 23 leaves in `by_type` order (the table of §2).
pub const LEAVES: [Leaf; 23] = [
    leaf!(
        "TargetLocalization",
        "BasicAttributes",
        "BA",
        "Category",
        "TargetLocalization/BasicAttributes/Category",
        "TargetLocalization/BasicAttributes"
    ),
    leaf!(
        "TargetLocalization",
        "BasicAttributes",
        "BA",
        "Color",
        "TargetLocalization/BasicAttributes/Color",
        "TargetLocalization/BasicAttributes"
    ),
    leaf!(
        "TargetLocalization",
        "BasicAttributes",
        "BA",
        "Geometry",
        "TargetLocalization/BasicAttributes/Geometry",
        "TargetLocalization/BasicAttributes"
    ),
    leaf!(
        "TargetLocalization",
        "BasicAttributes",
        "BA",
        "Material",
        "TargetLocalization/BasicAttributes/Material",
        "TargetLocalization/BasicAttributes"
    ),
    leaf!(
        "TargetLocalization",
        "BasicAttributes",
        "BA",
        "ObjectProjections",
        "TargetLocalization/BasicAttributes/ObjectProjections",
        "TargetLocalization/BasicAttributes"
    ),
    leaf!(
        "TargetLocalization",
        "BasicAttributes",
        "BA",
        "RelativePerception",
        "TargetLocalization/BasicAttributes/RelativePerception",
        "TargetLocalization/BasicAttributes"
    ),
    leaf!(
        "TargetLocalization",
        "SpatialRelatedAttributes",
        "SRA",
        "Orientation",
        "TargetLocalization/SpatialRelatedAttributes/Orientation",
        "TargetLocalization/SpatialRelatedAttributes"
    ),
    leaf!(
        "TargetLocalization",
        "SpatialRelatedAttributes",
        "SRA",
        "OrientationHuman",
        "TargetLocalization/SpatialRelatedAttributes/OrientationHuman",
        "TargetLocalization/SpatialRelatedAttributes"
    ),
    leaf!(
        "TargetLocalization",
        "SpatialRelatedAttributes",
        "SRA",
        "SpatialRelation",
        "TargetLocalization/SpatialRelatedAttributes/SpatialRelation",
        "TargetLocalization/SpatialRelatedAttributes"
    ),
    leaf!(
        "TargetLocalization",
        "SpatialRelatedAttributes",
        "SRA",
        "SpatialRelationHuman",
        "TargetLocalization/SpatialRelatedAttributes/SpatialRelationHuman",
        "TargetLocalization/SpatialRelatedAttributes"
    ),
    leaf!(
        "TargetLocalization",
        "EmbodiedCompositionalAttributes",
        "ECA",
        "ObjectState",
        "TargetLocalization/EmbodiedCompositionalAttributes/ObjectState",
        "TargetLocalization/EmbodiedCompositionalAttributes"
    ),
    leaf!(
        "TargetLocalization",
        "EmbodiedCompositionalAttributes",
        "ECA",
        "PartWhole",
        "TargetLocalization/EmbodiedCompositionalAttributes/PartWhole",
        "TargetLocalization/EmbodiedCompositionalAttributes"
    ),
    leaf!(
        "TargetLocalization",
        "EmbodiedCompositionalAttributes",
        "ECA",
        "PartWholeHuman",
        "TargetLocalization/EmbodiedCompositionalAttributes/PartWholeHuman",
        "TargetLocalization/EmbodiedCompositionalAttributes"
    ),
    leaf!(
        "TargetLocalization",
        "EmbodiedCompositionalAttributes",
        "ECA",
        "Spoken",
        "TargetLocalization/EmbodiedCompositionalAttributes/Spoken",
        "TargetLocalization/EmbodiedCompositionalAttributes"
    ),
    leaf!(
        "Navigation",
        "GroundDetection",
        "GD",
        "GroundDetection",
        "Navigation/GroundDetection",
        "Navigation/GroundDetection"
    ),
    leaf!(
        "Navigation",
        "FeasiblePath",
        "FP",
        "FeasiblePath_Ego",
        "Navigation/FeasiblePath/FeasiblePath_Ego",
        "Navigation/FeasiblePath"
    ),
    leaf!(
        "Navigation",
        "FeasiblePath",
        "FP",
        "FeasiblePath_Exo",
        "Navigation/FeasiblePath/FeasiblePath_Exo",
        "Navigation/FeasiblePath"
    ),
    leaf!(
        "Navigation",
        "VisualMatching",
        "VM",
        "VisualMatching",
        "Navigation/VisualMatching",
        "Navigation/VisualMatching"
    ),
    leaf!(
        "Manipulation",
        "AffordanceRegion",
        "AR",
        "AffordanceRegion",
        "Manipulation/AffordanceRegion",
        "Manipulation/AffordanceRegion"
    ),
    leaf!(
        "Manipulation",
        "ContactRelationship",
        "CR",
        "ContactRelationship_TypeOne",
        "Manipulation/ContactRelationship/ContactRelationship_TypeOne",
        "Manipulation/ContactRelationship"
    ),
    leaf!(
        "Manipulation",
        "ContactRelationship",
        "CR",
        "ContactRelationship_TypeTwo",
        "Manipulation/ContactRelationship/ContactRelationship_TypeTwo",
        "Manipulation/ContactRelationship"
    ),
    leaf!(
        "Manipulation",
        "ContactRelationship",
        "CR",
        "ContactRelationship_TypeThree",
        "Manipulation/ContactRelationship/ContactRelationship_TypeThree",
        "Manipulation/ContactRelationship"
    ),
    leaf!(
        "Manipulation",
        "PlacementRegion",
        "PR",
        "PlacementRegion",
        "Manipulation/PlacementRegion",
        "Manipulation/PlacementRegion"
    ),
];

/// The 9 groups in `by_group` order, with the paper's abbreviations.
pub const GROUPS: [(&str, &str); 9] = [
    ("BA", "TargetLocalization/BasicAttributes"),
    ("SRA", "TargetLocalization/SpatialRelatedAttributes"),
    ("ECA", "TargetLocalization/EmbodiedCompositionalAttributes"),
    ("GD", "Navigation/GroundDetection"),
    ("FP", "Navigation/FeasiblePath"),
    ("VM", "Navigation/VisualMatching"),
    ("AR", "Manipulation/AffordanceRegion"),
    ("CR", "Manipulation/ContactRelationship"),
    ("PR", "Manipulation/PlacementRegion"),
];

/// The TL group names, accepted as legacy `task_type` values.
pub const TL_GROUPS: [&str; 3] = [
    "BasicAttributes",
    "SpatialRelatedAttributes",
    "EmbodiedCompositionalAttributes",
];

/// The leaf of `name` among TL leaves.
pub fn tl_leaf(name: &str) -> Option<&'static Leaf> {
    LEAVES[..14].iter().find(|l| l.leaf == name)
}

/// A leaf by its exact leaf name.
pub fn leaf_by_name(name: &str) -> Option<&'static Leaf> {
    LEAVES.iter().find(|l| l.leaf == name)
}

/// Splits a path into its non-empty components on `/` and `\`.
///
/// Scans bytes: both separators are ASCII, so every cut falls on a char
/// boundary, and the scan avoids the `char` decoding of a pattern of two
/// chars (about 4% of scoring in wasm, where every sample's paths are split).
pub fn components(path: &str) -> Vec<&str> {
    let mut parts = Vec::new();
    let mut start = 0;
    for (i, b) in path.bytes().enumerate() {
        if b == b'/' || b == b'\\' {
            if i > start {
                parts.push(&path[start..i]);
            }
            start = i + 1;
        }
    }
    if start < path.len() {
        parts.push(&path[start..]);
    }
    parts
}

/// The summary leaf of a sample (§12 "Key resolution for the summary"), from
/// its raw category and type and `gt_json_path[0]`.
pub fn resolve_leaf(category: &str, task_type: &str, gt_path: &str) -> Option<&'static Leaf> {
    let parts = components(gt_path);
    match category {
        TARGET_LOCALIZATION => {
            if let Some(l) = tl_leaf(task_type) {
                return Some(l);
            }
            if TL_GROUPS.contains(&task_type) {
                if let Some(pos) = parts.iter().position(|p| *p == task_type) {
                    if let Some(l) = parts.get(pos + 1).and_then(|p| tl_leaf(p)) {
                        return Some(l);
                    }
                }
            }
            parts.iter().find_map(|p| tl_leaf(p))
        }
        NAVIGATION => match task_type {
            "GroundDetection" | "VisualMatching" | "FeasiblePath_Ego" | "FeasiblePath_Exo" => {
                leaf_by_name(task_type)
            }
            "FeasiblePath" => parts
                .iter()
                .find(|p| **p == "FeasiblePath_Ego" || **p == "FeasiblePath_Exo")
                .and_then(|p| leaf_by_name(p)),
            _ => None,
        },
        MANIPULATION => match task_type {
            "Affordance" | "AffordanceRegion" => leaf_by_name("AffordanceRegion"),
            "Placement" | "PlacementRegion" => leaf_by_name("PlacementRegion"),
            "ContactRelationship_TypeOne"
            | "ContactRelationship_TypeTwo"
            | "ContactRelationship_TypeThree" => leaf_by_name(task_type),
            "ContactRelationship" => parts
                .iter()
                .find(|p| p.starts_with("ContactRelationship_"))
                .and_then(|p| leaf_by_name(p)),
            _ => None,
        },
        _ => None,
    }
}

/// The model families with a forced coordinate mode (§6): "The lookup is an
/// **exact** match on the name of the std file's parent folder".
pub const FAMILY_COORD_MODES: [(&str, &str); 8] = [
    ("Qwen2.5-VL", "absolute"),
    ("Qwen3-VL", "normalized_0_1000"),
    ("Qwen3.5-VL", "normalized_0_1000"),
    ("InternVL3", "normalized_0_1000"),
    ("InternVL3.5", "normalized_0_1000"),
    ("LLaVA", "normalized_0_1"),
    ("Claude", "absolute"),
    ("Gemini", "normalized_0_1000"),
];

/// The forced mode of a family folder name, if any.
pub fn family_coord_mode(family: &str) -> Option<&'static str> {
    FAMILY_COORD_MODES
        .iter()
        .find(|(f, _)| *f == family)
        .map(|(_, m)| *m)
}

#[cfg(test)]
mod tests {
    use super::components;

    #[test]
    fn components_split_on_both_separators_and_drop_empty_parts() {
        for path in [
            "",
            "/",
            "a",
            "/a//b\\c\\",
            "\\\\server\\EPIC_Bench/ü/é.json",
            "C:\\x\\EPIC_Bench\\a b/c.json",
            "日本/語\\ファイル.json",
        ] {
            let by_chars: Vec<&str> = path.split(['/', '\\']).filter(|c| !c.is_empty()).collect();
            assert_eq!(components(path), by_chars, "{path:?}");
        }
        assert_eq!(components("/a//b\\c\\"), ["a", "b", "c"]);
    }
}
