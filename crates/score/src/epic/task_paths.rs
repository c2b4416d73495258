//! What the formatter reads from a record's image paths: the paths
//! themselves, the task (§4.2) and the GT file (§4.7).

use super::pyvalue::PyValue;
use super::taxonomy::{components, tl_leaf, MANIPULATION, NAVIGATION, TARGET_LOCALIZATION};

/// The image paths of a record: `images` items as `{"path": p}` or `p`.
pub fn image_paths(record: &PyValue) -> Vec<String> {
    let Some(PyValue::List(items)) = record.get("images") else {
        return Vec::new();
    };
    items
        .iter()
        .filter_map(|it| match it {
            PyValue::Str(s) => Some(s.clone()),
            PyValue::Dict(_) => it.get("path").and_then(PyValue::as_str).map(str::to_string),
            _ => None,
        })
        .collect()
}

/// Task detection from the image paths (§4.2).
pub fn detect_task(paths: &[String]) -> (Option<&'static str>, Option<String>) {
    for p in paths {
        let parts = components(p);
        let Some(ci) = parts
            .iter()
            .position(|c| [TARGET_LOCALIZATION, NAVIGATION, MANIPULATION].contains(c))
        else {
            continue;
        };
        let cat = match parts[ci] {
            TARGET_LOCALIZATION => TARGET_LOCALIZATION,
            NAVIGATION => NAVIGATION,
            _ => MANIPULATION,
        };
        let next = parts.get(ci + 1).copied();
        let after = parts.get(ci + 2).copied();
        let ty = match cat {
            TARGET_LOCALIZATION => after.and_then(tl_leaf).map(|l| l.leaf.to_string()),
            NAVIGATION => match next {
                Some(t @ ("GroundDetection" | "VisualMatching")) => Some(t.to_string()),
                Some("FeasiblePath") => Some(match after {
                    Some(t @ ("FeasiblePath_Ego" | "FeasiblePath_Exo")) => t.to_string(),
                    _ => "FeasiblePath".to_string(),
                }),
                _ => None,
            },
            _ => {
                let mapped = match next {
                    Some("Affordance") => Some("AffordanceRegion"),
                    Some("Placement") => Some("PlacementRegion"),
                    other => other,
                };
                match mapped {
                    Some(t @ ("AffordanceRegion" | "PlacementRegion")) => Some(t.to_string()),
                    Some("ContactRelationship") => Some(match after {
                        Some(
                            t @ ("ContactRelationship_TypeOne"
                            | "ContactRelationship_TypeTwo"
                            | "ContactRelationship_TypeThree"),
                        ) => t.to_string(),
                        _ => "ContactRelationship".to_string(),
                    }),
                    _ => None,
                }
            }
        };
        return (Some(cat), ty);
    }
    (None, None)
}

/// The GT path from the image paths (§4.7).
pub fn derive_gt_path(paths: &[String], task_type: Option<&str>) -> Option<String> {
    let stem_of = |p: &str| -> (String, String) {
        let (dir, file) = match p.rfind(['/', '\\']) {
            Some(i) => (p[..i].to_string(), &p[i + 1..]),
            None => (String::new(), p),
        };
        let stem = match file.rfind('.') {
            Some(i) if i > 0 => &file[..i],
            _ => file,
        };
        (dir, stem.to_string())
    };
    let cands: Vec<(String, String)> = paths
        .iter()
        .map(|p| stem_of(p))
        .filter(|(_, s)| s.ends_with("_image"))
        .collect();
    let join = |dir: &str, name: String| {
        if dir.is_empty() {
            name
        } else {
            format!("{dir}/{name}")
        }
    };
    let base = |s: &str| s[..s.len() - "_image".len()].to_string();
    if task_type == Some("VisualMatching") {
        if cands.len() < 2 {
            return None;
        }
        let a = &cands[0];
        let b = if cands.len() == 2 {
            &cands[1]
        } else {
            &cands[cands.len() - 1]
        };
        return Some(join(
            &a.0,
            format!("{}__{}_mask_rle.json", base(&a.1), base(&b.1)),
        ));
    }
    if cands.len() != 1 {
        return None;
    }
    Some(join(
        &cands[0].0,
        format!("{}_mask_rle.json", base(&cands[0].1)),
    ))
}
