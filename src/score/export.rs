//! Exports of a leaderboard (one row per scored file of one benchmark):
//! CSV and JSON with the full-precision values, a Markdown table and
//! LaTeX table rows as the page shows them (fractions as percentages). The page's
//! download buttons call these; no other code formats an export.
//!
//! ```
//! use knoblab::score::export::{latex_rows, markdown};
//! use knoblab::score::view::LeaderRow;
//! let row = LeaderRow {
//!     benchmark: "SWITCH".into(), file: "run_a.jsonl".into(), model: None,
//!     columns: vec!["Overall".into(), "Recovery Reasoning".into()],
//!     values: vec![Some(0.6154), None], plain: vec![],
//! };
//! assert_eq!(latex_rows(&[row.clone()]), "run\\_a.jsonl & 61.5 & -- \\\\\n");
//! assert!(markdown(&[row]).contains("| run_a.jsonl | 61.5 | – |"));
//! ```

use serde_json::{json, Map, Value};

use super::view::LeaderRow;

/// The columns of the first row (rows of one benchmark share them).
fn columns(rows: &[LeaderRow]) -> &[String] {
    rows.first().map_or(&[], |r| r.columns.as_slice())
}

/// The name a row goes by: its model when known, else its file.
fn name(row: &LeaderRow) -> &str {
    row.model.as_deref().unwrap_or(&row.file)
}

fn csv_field(text: &str) -> String {
    if text.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", text.replace('"', "\"\""))
    } else {
        text.to_string()
    }
}

/// CSV: `file,model,<columns>`, fractions in 0–1 at full precision, an
/// empty field where a column has no value.
pub fn csv(rows: &[LeaderRow]) -> String {
    let mut out = String::new();
    let header: Vec<String> = ["file", "model"]
        .iter()
        .map(|s| s.to_string())
        .chain(columns(rows).iter().map(|c| csv_field(c)))
        .collect();
    out.push_str(&header.join(","));
    out.push('\n');
    for r in rows {
        let mut fields = vec![
            csv_field(&r.file),
            csv_field(r.model.as_deref().unwrap_or("")),
        ];
        fields.extend(
            r.values
                .iter()
                .map(|v| v.map_or(String::new(), |v| v.to_string())),
        );
        out.push_str(&fields.join(","));
        out.push('\n');
    }
    out
}

/// JSON: one object per row, `benchmark`, `file`, `model`, then each
/// column's fraction (`null` where empty), in column order.
pub fn json(rows: &[LeaderRow]) -> Value {
    Value::Array(
        rows.iter()
            .map(|r| {
                let mut m = Map::new();
                m.insert("benchmark".into(), json!(r.benchmark));
                m.insert("file".into(), json!(r.file));
                m.insert("model".into(), json!(r.model));
                for (c, v) in r.columns.iter().zip(&r.values) {
                    m.insert(c.clone(), json!(v));
                }
                Value::Object(m)
            })
            .collect(),
    )
}

fn md_cell(text: &str) -> String {
    text.replace('|', "\\|").replace('\n', " ")
}

/// A Markdown table, each cell as [`LeaderRow::text`] shows it.
pub fn markdown(rows: &[LeaderRow]) -> String {
    let cols = columns(rows);
    let mut out = format!(
        "| run | {} |\n|---|{}\n",
        cols.iter()
            .map(|c| md_cell(c))
            .collect::<Vec<_>>()
            .join(" | "),
        "---:|".repeat(cols.len())
    );
    for r in rows {
        let cells: Vec<String> = (0..r.values.len()).map(|i| r.text(i)).collect();
        out.push_str(&format!(
            "| {} | {} |\n",
            md_cell(name(r)),
            cells.join(" | ")
        ));
    }
    out
}

fn latex_escape(text: &str) -> String {
    let mut out = String::new();
    for c in text.chars() {
        match c {
            '\\' => out.push_str("\\textbackslash{}"),
            '&' | '%' | '$' | '#' | '_' | '{' | '}' => {
                out.push('\\');
                out.push(c);
            }
            '~' => out.push_str("\\textasciitilde{}"),
            '^' => out.push_str("\\textasciicircum{}"),
            _ => out.push(c),
        }
    }
    out
}

/// LaTeX table rows, one a line: `name & 61.5 & -- \\`, ready to paste
/// under a paper's header (fractions as percentages, plain numbers with
/// two decimals).
pub fn latex_rows(rows: &[LeaderRow]) -> String {
    rows.iter()
        .map(|r| {
            let cells: Vec<String> = r
                .values
                .iter()
                .enumerate()
                .map(|(i, v)| match v {
                    None => "--".to_string(),
                    Some(v) if r.plain.contains(&i) => format!("{v:.2}"),
                    Some(v) => format!("{:.1}", v * 100.0),
                })
                .collect();
            format!("{} & {} \\\\\n", latex_escape(name(r)), cells.join(" & "))
        })
        .collect()
}

/// The SWITCH leaderboard submission row as the leaderboard takes it:
/// `model_name`, `model_access`, `submitted_by`, `submission_time` and
/// `results` = `{"mcq_open": {"acc"}, "mcq_closed": {"acc"}, "openqa_open":
/// {"em", "f1"}, "openqa_closed": {"em", "f1"}}`, fractions in 0–1 (`null`
/// where a split is not known), pretty-printed.
pub fn switch_submission(row: &super::switch::report::Submission) -> String {
    serde_json::to_string_pretty(row).unwrap_or_default()
}

/// The kinds of export the leaderboard offers, in the order of its buttons.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Csv,
    Json,
    Markdown,
    Latex,
}

impl Kind {
    /// Every kind, in the order of the buttons.
    pub const ALL: [Kind; 4] = [Kind::Csv, Kind::Json, Kind::Markdown, Kind::Latex];

    /// The button's label.
    pub fn label(self) -> &'static str {
        match self {
            Kind::Csv => "CSV",
            Kind::Json => "JSON",
            Kind::Markdown => "Markdown",
            Kind::Latex => "LaTeX row",
        }
    }

    /// The file extension (also the button's test id, `export-<ext>`).
    pub fn extension(self) -> &'static str {
        match self {
            Kind::Csv => "csv",
            Kind::Json => "json",
            Kind::Markdown => "md",
            Kind::Latex => "tex",
        }
    }

    /// The download's media type.
    pub fn media_type(self) -> &'static str {
        match self {
            Kind::Csv => "text/csv",
            Kind::Json => "application/json",
            Kind::Markdown => "text/markdown",
            Kind::Latex => "application/x-tex",
        }
    }

    /// The export of `rows` in this kind.
    pub fn text(self, rows: &[LeaderRow]) -> String {
        match self {
            Kind::Csv => csv(rows),
            Kind::Json => serde_json::to_string_pretty(&json(rows)).unwrap_or_default(),
            Kind::Markdown => markdown(rows),
            Kind::Latex => latex_rows(rows),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_kind_writes_its_own_export() {
        let rows = [row("a.jsonl", None, vec![Some(0.5)])];
        assert_eq!(Kind::Csv.text(&rows), csv(&rows));
        assert_eq!(Kind::Markdown.text(&rows), markdown(&rows));
        assert_eq!(Kind::Latex.text(&rows), latex_rows(&rows));
        let parsed: Value = serde_json::from_str(&Kind::Json.text(&rows)).unwrap();
        assert_eq!(parsed, json(&rows));
        let exts: Vec<&str> = Kind::ALL.iter().map(|k| k.extension()).collect();
        assert_eq!(exts, ["csv", "json", "md", "tex"]);
    }

    fn row(file: &str, model: Option<&str>, values: Vec<Option<f64>>) -> LeaderRow {
        LeaderRow {
            benchmark: "EPIC-Bench".into(),
            file: file.into(),
            model: model.map(str::to_string),
            columns: vec!["Average".into(), "BA".into()],
            values,
            plain: Vec::new(),
        }
    }

    #[test]
    fn csv_quotes_a_comma_and_keeps_full_precision() {
        let rows = [row("a,b.jsonl", None, vec![Some(0.123456789), None])];
        assert_eq!(
            csv(&rows),
            "file,model,Average,BA\n\"a,b.jsonl\",,0.123456789,\n"
        );
    }

    #[test]
    fn json_keeps_column_order_and_null_for_empty() {
        let doc = json(&[row("f", Some("m"), vec![Some(0.5), None])]);
        assert_eq!(
            doc.to_string(),
            r#"[{"benchmark":"EPIC-Bench","file":"f","model":"m","Average":0.5,"BA":null}]"#
        );
    }

    #[test]
    fn markdown_escapes_pipes_and_names_rows_by_model() {
        let md = markdown(&[row("f", Some("a|b"), vec![Some(0.5), Some(1.0)])]);
        assert_eq!(
            md,
            "| run | Average | BA |\n|---|---:|---:|\n| a\\|b | 50.0 | 100.0 |\n"
        );
    }

    #[test]
    fn latex_escapes_special_characters() {
        let tex = latex_rows(&[row("x", Some("q_3 & 50%"), vec![Some(0.25), None])]);
        assert_eq!(tex, "q\\_3 \\& 50\\% & 25.0 & -- \\\\\n");
    }

    #[test]
    fn plain_columns_keep_their_value_in_markdown_and_latex() {
        let mut r = row("run", None, vec![Some(0.5), Some(507.371)]);
        r.plain = vec![1];
        assert!(markdown(std::slice::from_ref(&r)).ends_with("| run | 50.0 | 507.37 |\n"));
        assert_eq!(latex_rows(&[r]), "run & 50.0 & 507.37 \\\\\n");
    }

    #[test]
    fn no_rows_export_a_header_only() {
        assert_eq!(csv(&[]), "file,model\n");
        assert_eq!(latex_rows(&[]), "");
    }
}
