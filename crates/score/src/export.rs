//! Exports of a leaderboard (one row per scored file of one benchmark):
//! CSV and JSON with the full-precision values, a Markdown table and
//! LaTeX table rows as the page shows them (fractions as percentages). The page's
//! download buttons call these; no other code formats an export.
//!
//! ```
//! use knoblab_score::export::{latex_rows, markdown};
//! use knoblab_score::view::LeaderRow;
//! let row = LeaderRow {
//!     benchmark: "SWITCH".into(), file: "run_a.jsonl".into(), model: None,
//!     columns: vec!["Overall".into(), "Recovery Reasoning".into()],
//!     values: vec![Some(0.6154), None], plain: vec![], group: None,
//! };
//! assert_eq!(latex_rows(&[row.clone()]), "run\\_a.jsonl & 61.5 & -- \\\\\n");
//! assert!(markdown(&[row]).contains("| run_a.jsonl | 61.5 | – |"));
//! ```

use serde_json::{json, Map, Value};

use super::view::{grouped, LeaderRow, TableView};

/// The columns of the first row (rows of one benchmark share them).
fn columns(rows: &[LeaderRow]) -> &[String] {
    rows.first().map_or(&[], |r| r.columns.as_slice())
}

/// The name a row goes by: its model when known, else its file.
fn name(row: &LeaderRow) -> &str {
    row.model.as_deref().unwrap_or(&row.file)
}

/// A CSV field: quoted (quotes doubled) when it holds a comma, a quote or
/// a line break. Also the leaderboard's exports' (`knoblab_app::leaderboard`).
pub fn csv_field(text: &str) -> String {
    if text.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", text.replace('"', "\"\""))
    } else {
        text.to_string()
    }
}

/// CSV: `file,model,<columns>`, fractions in 0–1 at full precision, an
/// empty field where a column has no value. On a board whose rows are
/// grouped ([`grouped`]), a `group` column after `model` and the rows in
/// their groups' order.
pub fn csv(rows: &[LeaderRow]) -> String {
    let groups = grouped(rows);
    let with_group = groups.iter().any(|g| g.label.is_some());
    let mut out = String::new();
    let mut header: Vec<String> = vec!["file".into(), "model".into()];
    if with_group {
        header.push("group".into());
    }
    header.extend(columns(rows).iter().map(|c| csv_field(c)));
    out.push_str(&header.join(","));
    out.push('\n');
    for g in &groups {
        for r in &g.rows {
            let mut fields = vec![
                csv_field(&r.file),
                csv_field(r.model.as_deref().unwrap_or("")),
            ];
            if let Some(label) = g.label {
                fields.push(csv_field(label));
            }
            fields.extend(
                r.values
                    .iter()
                    .map(|v| v.map_or(String::new(), |v| v.to_string())),
            );
            out.push_str(&fields.join(","));
            out.push('\n');
        }
    }
    out
}

/// JSON: one object per row, `benchmark`, `file`, `model` (and `group`
/// on a grouped board, the rows in their groups' order), then each
/// column's fraction (`null` where empty), in column order.
pub fn json(rows: &[LeaderRow]) -> Value {
    Value::Array(
        grouped(rows)
            .iter()
            .flat_map(|g| g.rows.iter().map(move |r| (g.label, r)))
            .map(|(label, r)| {
                let mut m = Map::new();
                m.insert("benchmark".into(), json!(r.benchmark));
                m.insert("file".into(), json!(r.file));
                m.insert("model".into(), json!(r.model));
                if let Some(label) = label {
                    m.insert("group".into(), json!(label));
                }
                for (c, v) in r.columns.iter().zip(&r.values) {
                    m.insert(c.clone(), json!(v));
                }
                Value::Object(m)
            })
            .collect(),
    )
}

/// A Markdown table cell: `|` escaped, line breaks as spaces.
pub fn md_cell(text: &str) -> String {
    text.replace('|', "\\|").replace('\n', " ")
}

/// A Markdown table, each cell as [`LeaderRow::text`] shows it; on a
/// grouped board each group opens with a row holding its heading in bold.
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
    for g in grouped(rows) {
        if let Some(label) = g.label {
            out.push_str(&format!(
                "| **{}** |{}\n",
                md_cell(label),
                " |".repeat(cols.len())
            ));
        }
        for r in g.rows {
            let cells: Vec<String> = (0..r.values.len()).map(|i| r.text(i)).collect();
            out.push_str(&format!(
                "| {} | {} |\n",
                md_cell(name(r)),
                cells.join(" | ")
            ));
        }
    }
    out
}

/// LaTeX's special characters escaped for a table cell.
pub fn latex_escape(text: &str) -> String {
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
/// two decimals); on a grouped board each group opens with
/// `\multicolumn{N}{l}{\textit{heading}} \\`, as the paper's tables do.
pub fn latex_rows(rows: &[LeaderRow]) -> String {
    let width = columns(rows).len() + 1;
    let mut out = String::new();
    for g in grouped(rows) {
        if let Some(label) = g.label {
            out.push_str(&format!(
                "\\multicolumn{{{width}}}{{l}}{{\\textit{{{}}}}} \\\\\n",
                latex_escape(label)
            ));
        }
        out.push_str(&latex_plain_rows(&g.rows));
    }
    out
}

fn latex_plain_rows(rows: &[&LeaderRow]) -> String {
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

/// An export format that is none of [`TableFormat`]'s.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("export format {found:?}: expected csv, markdown or latex")]
pub struct UnknownFormat {
    /// The format asked for.
    pub found: String,
}

/// What a report's tables can be exported as (`knoblab score … --export`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TableFormat {
    /// Comma-separated values, one table after another.
    Csv,
    /// Markdown pipe tables.
    Markdown,
    /// LaTeX `tabular` environments, as a paper prints them.
    Latex,
}

impl TableFormat {
    /// Reads `csv`, `markdown` (`md`) or `latex` (`tex`).
    pub fn parse(text: &str) -> Result<TableFormat, UnknownFormat> {
        match text.trim().to_ascii_lowercase().as_str() {
            "csv" => Ok(TableFormat::Csv),
            "markdown" | "md" => Ok(TableFormat::Markdown),
            "latex" | "tex" => Ok(TableFormat::Latex),
            _ => Err(UnknownFormat {
                found: text.to_string(),
            }),
        }
    }

    /// The file extension of the format.
    pub fn extension(self) -> &'static str {
        match self {
            TableFormat::Csv => "csv",
            TableFormat::Markdown => "md",
            TableFormat::Latex => "tex",
        }
    }
}

/// One table in a format: see [`table_csv`], [`table_markdown`] and
/// [`table_latex`].
pub fn table(table: &TableView, format: TableFormat) -> String {
    match format {
        TableFormat::Csv => table_csv(table),
        TableFormat::Markdown => table_markdown(table),
        TableFormat::Latex => table_latex(table),
    }
}

/// Tables in a format, one after another: CSV and Markdown tables each
/// under a line with their title (`# title` for CSV, `### title` for
/// Markdown) and a blank line between; LaTeX tables each a `table`
/// environment with its title as the caption.
pub fn tables(list: &[TableView], format: TableFormat) -> String {
    list.iter()
        .map(|t| match format {
            TableFormat::Csv => format!("# {}\n{}", t.title, table_csv(t)),
            TableFormat::Markdown => format!("### {}\n\n{}", t.title, table_markdown(t)),
            TableFormat::Latex => table_latex(t),
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// CSV of a table: the header, then every row; an aggregate cell is its
/// number at full precision (a fraction in 0–1, as the `--json` document
/// has it), any other cell its text; a heading row keeps its cells in
/// place, empty where a heading runs on.
pub fn table_csv(table: &TableView) -> String {
    let mut out = table
        .header
        .iter()
        .map(|h| csv_field(h))
        .collect::<Vec<_>>()
        .join(",");
    out.push('\n');
    for row in &table.rows {
        let fields: Vec<String> = row
            .iter()
            .map(|c| match c.value {
                Some(v) => v.to_string(),
                None if c.text == "–" => String::new(),
                None => csv_field(&c.text),
            })
            .collect();
        out.push_str(&fields.join(","));
        out.push('\n');
    }
    out
}

/// A Markdown table as the page shows it (percentages with one decimal);
/// the text of a heading row in bold.
pub fn table_markdown(table: &TableView) -> String {
    let mut out = format!(
        "| {} |\n|---|{}\n",
        table
            .header
            .iter()
            .map(|h| md_cell(h))
            .collect::<Vec<_>>()
            .join(" | "),
        "---:|".repeat(table.header.len().saturating_sub(1))
    );
    for (i, row) in table.rows.iter().enumerate() {
        let heading = table.span_rows.contains(&i);
        let cells: Vec<String> = row
            .iter()
            .map(|c| match (heading, c.text.is_empty()) {
                (true, false) => format!("**{}**", md_cell(&c.text)),
                _ => md_cell(&c.text),
            })
            .collect();
        out.push_str(&format!("| {} |\n", cells.join(" | ")));
    }
    out
}

/// A LaTeX `table` (booktabs rules) as a paper prints it: the title as
/// caption; column-group rows above the header, each group centred over
/// its columns with a rule under it; a row group's heading in italics
/// across the table; cells as the page shows them ("–" as `--`).
pub fn table_latex(table: &TableView) -> String {
    let width = table.header.len();
    let leading = table.column_group_rows();
    let mut out = String::new();
    out.push_str("\\begin{table}[t]\n\\centering\n");
    out.push_str(&format!("\\caption{{{}}}\n", latex_escape(&table.title)));
    out.push_str(&format!(
        "\\begin{{tabular}}{{l{}}}\n\\toprule\n",
        "r".repeat(width.saturating_sub(1))
    ));
    for &i in &leading {
        let mut cells = Vec::new();
        let mut rules = Vec::new();
        let mut at = 1;
        for (text, n) in table.spans(i) {
            if text.is_empty() {
                cells.push(String::new());
            } else {
                cells.push(format!(
                    "\\multicolumn{{{n}}}{{c}}{{{}}}",
                    latex_escape(text)
                ));
                rules.push(format!("\\cmidrule(lr){{{at}-{}}}", at + n - 1));
            }
            at += n;
        }
        out.push_str(&format!("{} \\\\\n", cells.join(" & ")));
        if !rules.is_empty() {
            out.push_str(&format!("{}\n", rules.join(" ")));
        }
    }
    let header: Vec<String> = table.header.iter().map(|h| latex_escape(h)).collect();
    out.push_str(&format!("{} \\\\\n\\midrule\n", header.join(" & ")));
    for (i, row) in table.rows.iter().enumerate() {
        if leading.contains(&i) {
            continue;
        }
        if table.span_rows.contains(&i) {
            let cells: Vec<String> = table
                .spans(i)
                .into_iter()
                .map(|(text, n)| match (text.is_empty(), n) {
                    (true, _) => String::new(),
                    (false, 1) => format!("\\textit{{{}}}", latex_escape(text)),
                    (false, n) => {
                        format!(
                            "\\multicolumn{{{n}}}{{l}}{{\\textit{{{}}}}}",
                            latex_escape(text)
                        )
                    }
                })
                .collect();
            out.push_str(&format!("{} \\\\\n", cells.join(" & ")));
            continue;
        }
        let cells: Vec<String> = row
            .iter()
            .map(|c| match c.text.as_str() {
                "–" => "--".to_string(),
                t => latex_escape(t),
            })
            .collect();
        out.push_str(&format!("{} \\\\\n", cells.join(" & ")));
    }
    out.push_str("\\bottomrule\n\\end{tabular}\n\\end{table}\n");
    out
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
    /// The rows as comma-separated values.
    Csv,
    /// The rows as a JSON array.
    Json,
    /// The rows as a Markdown pipe table.
    Markdown,
    /// The rows as a LaTeX `tabular`.
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
#[allow(clippy::disallowed_methods)] // tests parse what they check directly (#47)
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
            group: None,
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
