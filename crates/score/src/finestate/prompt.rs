//! The official prompt builder, `generate_prompt` with the VDA hint block
//! (spec §4 and §9). Scoring never reads the prompt text; what matters is
//! whether building the hint raises, because then the query is never sent
//! and drops out of both denominators (spec §9.1). The text itself is built
//! so that prompts can be checked byte for byte against official runs.

use serde_json::Value;
use thiserror::Error;

use super::python::{as_number, py_len, truthy, type_name, NoLen};

/// The fixed instruction block of `generate_prompt`.
const BASE_PROMPT: &str = "Please analyze the UI element in the image based on the given instruction.

Task Requirements:
1. Locate the target UI element (could be a button, slider, switch, etc.)
2. Determine the precise interaction point with the element

CRITICAL OUTPUT FORMAT REQUIREMENTS:
- You MUST provide coordinates in EXACTLY this format: [x, y]
- Coordinates MUST be decimals between 0 and 1 (e.g., [0.237, 0.456])
- (0,0) represents the top-left corner, (1,1) represents the bottom-right corner
- NO EXCEPTIONS: Always include numerical coordinates, even if uncertain
- If you cannot determine exact coordinates, provide your best estimate as [x, y]

MANDATORY RESPONSE FORMAT (follow exactly):
1. Component Description: [Brief description of the target UI element]
2. Interaction Coordinates: [0.XXX, 0.YYY]
3. Reasoning: [Explain why you chose this location]

EXAMPLE RESPONSE:
1. Component Description: A horizontal slider with a movable handle
2. Interaction Coordinates: [0.443, 0.483]
3. Reasoning: This is the center point of the slider control

CRITICAL: You MUST replace [0.XXX, 0.YYY] with actual decimal numbers. Do NOT use descriptive text for coordinates. Do NOT write \"The element is located at...\" - write the numbers directly like [0.443, 0.483].";

/// An exception raised while formatting the hint (a Python `ValueError`,
/// `TypeError` or `KeyError`). The query is then never sent.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum HintError {
    /// `format("0.1", ".3f")`: "Unknown format code 'f' for object of type 'str'".
    #[error("Unknown format code 'f' for object of type 'str'")]
    StrFormat,
    /// `format(None, ".3f")` and the like.
    #[error("unsupported format string passed to {0}.__format__")]
    UnsupportedFormat(&'static str),
    /// `len(5)`.
    #[error("{0}")]
    NoLen(NoLen),
    /// `bbox[0]` on a dict of four keys.
    #[error("0")]
    Key,
}

/// The hint block's printed box and centre (absent when the box has not
/// exactly four items).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HintText {
    /// The text between the brackets of `- Bounding Box: [...]`.
    pub bbox: String,
    /// The two numbers of `- Component Center: (cx, cy)`.
    pub center: [String; 2],
}

/// Which query a prompt is for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PromptKind {
    /// The LOCATE prompt.
    Locate,
    /// The INTERACT prompt.
    Interact,
}

impl PromptKind {
    fn label(self) -> &'static str {
        match self {
            Self::Locate => "LOCATE",
            Self::Interact => "INTERACT",
        }
    }
}

/// Python `format(v, ".3f")` of a number: correctly rounded on the binary
/// value, ties to even (Rust's formatter does the same).
fn fixed3(value: f64) -> String {
    format!("{value:.3}")
}

fn format_item(value: &Value) -> Result<f64, HintError> {
    match value {
        Value::String(_) => Err(HintError::StrFormat),
        other => as_number(other).ok_or(HintError::UnsupportedFormat(type_name(other))),
    }
}

/// What `enhance_prompt_with_component_info(prompt, {"bbox": bbox})` adds
/// for a truthy box: `Ok(None)` when the box does not have four items (only
/// the header and closing sentence are added), the printed box otherwise.
pub fn hint_text(bbox: &Value) -> Result<Option<HintText>, HintError> {
    if py_len(bbox).map_err(HintError::NoLen)? != 4 {
        return Ok(None);
    }
    let values: Vec<f64> = match bbox {
        Value::Array(items) => items.iter().map(format_item).collect::<Result<_, _>>()?,
        Value::String(_) => return Err(HintError::StrFormat),
        _ => return Err(HintError::Key),
    };
    let [b0, b1, b2, b3] = values.as_slice() else {
        return Ok(None);
    };
    let cx = (b0 + b2) / 2.0;
    let cy = (b1 + b3) / 2.0;
    Ok(Some(HintText {
        bbox: format!(
            "{}, {}, {}, {}",
            fixed3(*b0),
            fixed3(*b1),
            fixed3(*b2),
            fixed3(*b3)
        ),
        center: [fixed3(cx), fixed3(cy)],
    }))
}

/// Python `str()` of an instruction value, as the f-string prints it (only
/// strings occur in practice; other values print as JSON, an approximation).
fn instruction_text(instruction: &Value) -> String {
    match instruction {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

/// `generate_prompt(instruction, TYPE, {"bbox": bbox} if hinted else None)`:
/// the exact prompt text the model receives, or the exception that stops
/// the query before the model is called.
pub fn build_prompt(
    instruction: &Value,
    kind: PromptKind,
    hint_box: Option<&Value>,
) -> Result<String, HintError> {
    let mut prompt = format!(
        "{BASE_PROMPT}\n\nInstruction ({}): {}",
        kind.label(),
        instruction_text(instruction)
    );
    let Some(bbox) = hint_box else {
        return Ok(prompt);
    };
    // "Nothing is added if the prompt already contains `COMPONENT
    // INFORMATION:`, or if `B_loc` is empty or null."
    if prompt.contains("COMPONENT INFORMATION:") || !truthy(bbox) {
        return Ok(prompt);
    }
    let text = hint_text(bbox)?;
    prompt.push_str("\n\nCOMPONENT INFORMATION:\n");
    if let Some(text) = text {
        prompt.push_str(&format!("- Bounding Box: [{}]\n", text.bbox));
        prompt.push_str("  (coordinates are normalized to 0-1 range, where (0,0) is top-left and (1,1) is bottom-right)\n");
        prompt.push_str(&format!(
            "- Component Center: ({}, {})\n",
            text.center[0], text.center[1]
        ));
    }
    prompt.push_str("\nPlease use this information to assist your analysis. Focus on the component described above when responding to the instruction.");
    Ok(prompt)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn three_decimals_round_half_even_on_the_binary_value() {
        assert_eq!(fixed3(0.0625), "0.062");
        assert_eq!(fixed3(0.3), "0.300");
        assert_eq!(fixed3(0.0005), "0.001");
        assert_eq!(fixed3(2.675), "2.675");
        assert_eq!(fixed3(0.1235), "0.123");
    }

    #[test]
    fn string_box_raises_before_the_call() {
        let e = build_prompt(
            &json!("x"),
            PromptKind::Locate,
            Some(&json!(["0.1", "0.2", "0.5", "0.3"])),
        );
        assert_eq!(
            e.unwrap_err().to_string(),
            "Unknown format code 'f' for object of type 'str'"
        );
    }
}
