//! Problems found while loading or validating a bundle. Validation reports
//! every problem at once, each with where it is and what would be valid.

use std::fmt;

use serde::Serialize;

/// How serious a problem is: errors refuse the bundle, warnings do not.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Severity {
    /// Worth fixing; the bundle still loads.
    Warning,
    /// The bundle is refused.
    Error,
}

/// Where a problem is: the file, and inside it the state, component and
/// field when they apply; for a file that is not valid JSON, the line and
/// column (1-based, as `serde_json` counts them).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Location {
    /// The bundle file (`ssm.json`), or the bundle itself.
    pub file: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    /// The state, when the problem is in one.
    pub state: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    /// The component, when the problem is in one.
    pub component: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    /// The field inside the file (`front.file`).
    pub field: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    /// The line, for a file that is not valid JSON.
    pub line: Option<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    /// The column, for a file that is not valid JSON.
    pub column: Option<usize>,
}

impl Location {
    /// A whole file.
    pub fn file(file: impl Into<String>) -> Self {
        Location {
            file: file.into(),
            ..Location::default()
        }
    }

    /// The same location, inside `state`.
    pub fn state(mut self, state: impl Into<String>) -> Self {
        self.state = Some(state.into());
        self
    }

    /// The same location, on `component` (or `immediate` / `timed_wait`).
    pub fn component(mut self, component: impl Into<String>) -> Self {
        self.component = Some(component.into());
        self
    }

    /// The same location, at `field` (a path such as `[0].bbox[2].coordinate`).
    pub fn field(mut self, field: impl Into<String>) -> Self {
        self.field = Some(field.into());
        self
    }

    /// The same location, at a line and column of the file's text.
    pub fn at(mut self, line: usize, column: usize) -> Self {
        self.line = Some(line);
        self.column = Some(column);
        self
    }
}

/// One problem: where, what is wrong, and what would be valid.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Diagnostic {
    /// Whether it refuses the bundle.
    pub severity: Severity,
    /// Where it is.
    pub location: Location,
    /// What is wrong, and what would be valid.
    pub message: String,
}

impl Diagnostic {
    /// A problem that refuses the bundle.
    pub fn error(location: Location, message: impl Into<String>) -> Self {
        Diagnostic {
            severity: Severity::Error,
            location,
            message: message.into(),
        }
    }

    /// A problem worth knowing that does not refuse the bundle.
    pub fn warning(location: Location, message: impl Into<String>) -> Self {
        Diagnostic {
            severity: Severity::Warning,
            location,
            message: message.into(),
        }
    }

    /// Whether this problem refuses the bundle.
    pub fn is_error(&self) -> bool {
        self.severity == Severity::Error
    }
}

/// Why a bundle could not be loaded: every error found (and the warnings
/// seen on the way).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct LoadError {
    /// The bundle as named to the loader (a path, a file name).
    pub source: String,
    /// Every problem found, errors and warnings.
    pub diagnostics: Vec<Diagnostic>,
}

impl LoadError {
    /// A load that failed for one reason.
    pub fn single(source: &str, diagnostic: Diagnostic) -> Self {
        LoadError {
            source: source.to_string(),
            diagnostics: vec![diagnostic],
        }
    }

    /// The errors only (not the warnings).
    pub fn errors(&self) -> impl Iterator<Item = &Diagnostic> {
        self.diagnostics.iter().filter(|d| d.is_error())
    }
}

impl fmt::Display for Location {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.file)?;
        if let Some(line) = self.line {
            write!(f, ":{line}")?;
            if let Some(column) = self.column {
                write!(f, ":{column}")?;
            }
        }
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

impl fmt::Display for Diagnostic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let level = match self.severity {
            Severity::Error => "error",
            Severity::Warning => "warning",
        };
        write!(f, "{level}: {}: {}", self.location, self.message)
    }
}

impl fmt::Display for LoadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "{}: {} problem(s)", self.source, self.diagnostics.len())?;
        for d in &self.diagnostics {
            writeln!(f, "  {d}")?;
        }
        Ok(())
    }
}

impl std::error::Error for LoadError {}
