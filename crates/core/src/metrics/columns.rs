//! The VGEBench metric columns, defined once: each metric's key (its field
//! and JSON key), its short label, its label with a gloss for people who
//! do not know the paper, which way is better, and how it is shown. Every
//! table of metrics (the CLI's, the Score page's trajectory view, the
//! player's end panel and baseline table, the Agent page's results and
//! its CSV export) reads this list instead of typing the columns out.
//!
//! [`COLUMNS`] is in the order of the paper's main table. The page's
//! tables and the CSV export put the rates first ([`rates_first`]), as
//! they always have; that order is derived from this one, not written
//! again.

use super::Metrics;
use crate::display::{number, percent};

/// Which way a metric improves.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Better {
    /// More is better (every rate).
    Higher,
    /// Less is better (VSPS, GVPE and the distances); headings mark it `↓`.
    Lower,
}

/// How a metric is shown in a table for people.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// A fraction in [0, 1], shown as a percentage ([`percent`]).
    Percent,
    /// A plain number (a ratio of counts or a distance on the 0–1000
    /// scale), shown with two decimals ([`number`]).
    Number,
}

/// One metric column.
#[derive(Debug, Clone, Copy)]
pub struct Column {
    /// The field of [`Metrics`] and the key in `knoblab metrics --json`.
    pub key: &'static str,
    /// The short label, as the paper writes it (`SR`, `Avg W-Dist`).
    pub label: &'static str,
    /// The label with what it means, for the player's end panel.
    pub explained: &'static str,
    /// Which way is better.
    pub better: Better,
    /// How the value is shown.
    pub format: Format,
    /// The value in a set of metrics.
    pub get: fn(&Metrics) -> Option<f64>,
}

impl Column {
    /// The short label, with `↓` when lower is better (the paper's tables).
    pub fn heading(&self) -> String {
        match self.better {
            Better::Higher => self.label.to_string(),
            Better::Lower => format!("{}↓", self.label),
        }
    }

    /// Whether the column is a rate (shown as a percentage).
    pub fn is_rate(&self) -> bool {
        self.format == Format::Percent
    }

    /// The column's value in `m`.
    pub fn value(&self, m: &Metrics) -> Option<f64> {
        (self.get)(m)
    }

    /// A value as this column shows it ("–" when undefined).
    pub fn show_value(&self, v: Option<f64>) -> String {
        match self.format {
            Format::Percent => percent(v),
            Format::Number => number(v),
        }
    }

    /// The column's value in `m`, as shown.
    pub fn show(&self, m: &Metrics) -> String {
        self.show_value(self.value(m))
    }
}

/// The twelve metrics of the main table, in the paper's order.
pub const COLUMNS: [Column; 12] = [
    Column {
        key: "sr",
        label: "SR",
        explained: "SR (success)",
        better: Better::Higher,
        format: Format::Percent,
        get: |m| m.sr,
    },
    Column {
        key: "ssr",
        label: "SSR",
        explained: "SSR (goals reached)",
        better: Better::Higher,
        format: Format::Percent,
        get: |m| m.ssr,
    },
    Column {
        key: "spl",
        label: "SPL",
        explained: "SPL (path efficiency)",
        better: Better::Higher,
        format: Format::Percent,
        get: |m| m.spl,
    },
    Column {
        key: "state_f1",
        label: "State-F1",
        explained: "State-F1",
        better: Better::Higher,
        format: Format::Percent,
        get: |m| m.state_f1,
    },
    Column {
        key: "eir",
        label: "EIR",
        explained: "EIR (on a part)",
        better: Better::Higher,
        format: Format::Percent,
        get: |m| m.eir,
    },
    Column {
        key: "tir",
        label: "TIR",
        explained: "TIR (on the right part)",
        better: Better::Higher,
        format: Format::Percent,
        get: |m| m.tir,
    },
    Column {
        key: "vsps",
        label: "VSPS",
        explained: "VSPS (lower is better)",
        better: Better::Lower,
        format: Format::Number,
        get: |m| m.vsps,
    },
    Column {
        key: "gvpe",
        label: "GVPE",
        explained: "GVPE (lower is better)",
        better: Better::Lower,
        format: Format::Number,
        get: |m| m.gvpe,
    },
    Column {
        key: "eer",
        label: "EER",
        explained: "EER (effective steps)",
        better: Better::Higher,
        format: Format::Percent,
        get: |m| m.eer,
    },
    Column {
        key: "psr",
        label: "PSR",
        explained: "PSR (goals in C_opt steps)",
        better: Better::Higher,
        format: Format::Percent,
        get: |m| m.psr,
    },
    Column {
        key: "avg_dist",
        label: "Avg Dist",
        explained: "Avg Dist (0–1000)",
        better: Better::Lower,
        format: Format::Number,
        get: |m| m.avg_dist,
    },
    Column {
        key: "avg_w_dist",
        label: "Avg W-Dist",
        explained: "Avg W-Dist (0–1000)",
        better: Better::Lower,
        format: Format::Number,
        get: |m| m.avg_w_dist,
    },
];

/// The columns with the rates first, each group in the paper's order (the
/// order of the page's tables and of the Agent page's CSV export).
pub fn rates_first() -> impl Iterator<Item = &'static Column> {
    let rates = COLUMNS.iter().filter(|c| c.is_rate());
    rates.chain(COLUMNS.iter().filter(|c| !c.is_rate()))
}

/// The column of a key (`"sr"`, `"avg_dist"`), if it is one of the twelve.
pub fn column(key: &str) -> Option<&'static Column> {
    COLUMNS.iter().find(|c| c.key == key)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> Metrics {
        Metrics {
            sr: Some(1.0),
            ssr: Some(0.5),
            spl: Some(0.25),
            state_f1: Some(0.125),
            eir: Some(0.2),
            tir: Some(0.3),
            vsps: Some(1.5),
            gvpe: None,
            eer: Some(0.4),
            psr: Some(0.6),
            avg_dist: Some(12.345),
            avg_w_dist: Some(20.0),
            errors: Default::default(),
            view_switches: Default::default(),
        }
    }

    #[test]
    fn every_key_is_the_field_of_that_name_in_the_json_document() {
        let m = sample();
        let doc = serde_json::to_value(&m).unwrap();
        for c in &COLUMNS {
            assert_eq!(
                doc.get(c.key).and_then(|v| v.as_f64()),
                c.value(&m),
                "{}",
                c.key
            );
        }
        // Twelve distinct metrics, every one of the struct's numbers.
        let numbers = doc
            .as_object()
            .unwrap()
            .values()
            .filter(|v| !v.is_object())
            .count();
        assert_eq!(numbers, COLUMNS.len());
    }

    #[test]
    fn lower_is_better_is_marked_and_shown_as_a_number() {
        let m = sample();
        let vsps = column("vsps").unwrap();
        assert_eq!(vsps.heading(), "VSPS↓");
        assert_eq!(vsps.show(&m), "1.50");
        assert_eq!(column("gvpe").unwrap().show(&m), "–");
        let sr = column("sr").unwrap();
        assert_eq!(sr.heading(), "SR");
        assert_eq!(sr.show(&m), "100.0");
        assert!(column("errors").is_none());
    }

    #[test]
    fn the_page_order_puts_the_rates_first_and_keeps_each_group_in_order() {
        let labels: Vec<&str> = rates_first().map(|c| c.label).collect();
        assert_eq!(
            labels,
            [
                "SR",
                "SSR",
                "SPL",
                "State-F1",
                "EIR",
                "TIR",
                "EER",
                "PSR",
                "VSPS",
                "GVPE",
                "Avg Dist",
                "Avg W-Dist"
            ]
        );
    }
}
