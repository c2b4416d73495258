//! Problems found while loading or validating a bundle. Validation reports
//! every problem at once, each with where it is and what would be valid.

use std::fmt;

use serde::Serialize;

/// How serious a problem is: errors refuse the bundle, warnings do not.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Severity {
    Warning,
    Error,
}

/// Where a problem is: the file, and inside it the state, component and
/// field when they apply.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Location {
    pub file: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub state: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub component: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub field: Option<String>,
}

/// One problem: where, what is wrong, and what would be valid.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Diagnostic {
    pub severity: Severity,
    pub location: Location,
    pub message: String,
}

/// Why a bundle could not be loaded: every error found (and the warnings
/// seen on the way).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct LoadError {
    pub source: String,
    pub diagnostics: Vec<Diagnostic>,
}

impl LoadError {
    /// Placeholder until loading is built.
    pub fn not_built(source: &str) -> Self {
        LoadError {
            source: source.to_string(),
            diagnostics: vec![Diagnostic {
                severity: Severity::Error,
                location: Location::default(),
                message: "bundle loading is not built yet".into(),
            }],
        }
    }
}

impl fmt::Display for Location {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.file)?;
        if let Some(state) = &self.state {
            write!(f, ", state {state}")?;
        }
        if let Some(component) = &self.component {
            write!(f, ", component {component}")?;
        }
        if let Some(field) = &self.field {
            write!(f, ", field {field}")?;
        }
        Ok(())
    }
}

impl fmt::Display for LoadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "{}: {} problem(s)", self.source, self.diagnostics.len())?;
        for d in &self.diagnostics {
            let level = match d.severity {
                Severity::Error => "error",
                Severity::Warning => "warning",
            };
            writeln!(f, "  {level}: {}: {}", d.location, d.message)?;
        }
        Ok(())
    }
}

impl std::error::Error for LoadError {}
