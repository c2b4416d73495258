//! The core's typed errors as the exceptions of `knoblab.errors`.
//!
//! The classes are written in Python (`knoblab/errors.py`) so that each can
//! be a `KnobLabError` and the builtin users catch (`ValueError`,
//! `FileNotFoundError`, …) at once, which PyO3's one-base exceptions cannot
//! be. Here each error is given its kind by its Rust type (never by its
//! message), the file at fault and its line where the error carries them,
//! and whether that file is missing (the path given does not exist), which
//! picks the kind's `…NotFoundError`.

use std::path::Path;

use pyo3::exceptions::PyRuntimeError;
use pyo3::prelude::*;

use knoblab_app::documents::library::LibraryError;
use knoblab_app::run::EvalError;
use knoblab_app::scoring::{InputKind, ScoreError};
use knoblab_core::bundle::LoadError;
use knoblab_core::metrics::MetricsError;
use knoblab_core::sim::SimError;

/// The kinds of error, by the names `knoblab.errors._error` knows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    /// `KnobLabError` itself.
    Base,
    /// `BundleError`.
    Bundle,
    /// `ResultsError`.
    Results,
    /// `GroundTruthError`.
    GroundTruth,
    /// `OptionsError`.
    Options,
    /// `MetricsError`.
    Metrics,
    /// `RunRefusedError`.
    RunRefused,
    /// `EpisodeError`.
    Episode,
    /// `OutputError`.
    Output,
}

impl Kind {
    fn name(self) -> &'static str {
        match self {
            Kind::Base => "",
            Kind::Bundle => "bundle",
            Kind::Results => "results",
            Kind::GroundTruth => "ground_truth",
            Kind::Options => "options",
            Kind::Metrics => "metrics",
            Kind::RunRefused => "run_refused",
            Kind::Episode => "episode",
            Kind::Output => "output",
        }
    }
}

/// One error on its way to Python.
#[derive(Debug, Clone)]
pub(crate) struct Raised {
    kind: Kind,
    message: String,
    path: Option<String>,
    line: Option<usize>,
    missing: bool,
}

impl Raised {
    /// An error of a kind with the core's message.
    pub(crate) fn new(kind: Kind, message: impl Into<String>) -> Raised {
        Raised {
            kind,
            message: message.into(),
            path: None,
            line: None,
            missing: false,
        }
    }

    /// The file at fault; a path that does not exist makes the error its
    /// kind's `…NotFoundError` (also a `FileNotFoundError`).
    pub(crate) fn at(mut self, path: &Path) -> Raised {
        self.missing = !path.exists();
        self.path = Some(path.display().to_string());
        self
    }

    /// The file at fault and its line, as the error carries them.
    fn at_line(mut self, path: &str, line: usize) -> Raised {
        self.path = Some(path.to_string());
        self.line = Some(line);
        self
    }

    /// The kind of the error.
    pub(crate) fn kind(&self) -> Kind {
        self.kind
    }

    fn build(&self, py: Python<'_>) -> PyResult<PyErr> {
        let make = py.import("knoblab.errors")?.getattr("_error")?;
        let value = make.call1((
            self.kind.name(),
            &self.message,
            self.path.as_deref(),
            self.line,
            self.missing,
        ))?;
        Ok(PyErr::from_value(value))
    }
}

impl From<Raised> for PyErr {
    fn from(r: Raised) -> PyErr {
        Python::with_gil(|py| match r.build(py) {
            Ok(e) => e,
            // `knoblab.errors` is part of the package; if it cannot be
            // imported, say so with the message it would have carried.
            Err(e) => PyRuntimeError::new_err(format!(
                "{} (knoblab.errors could not be used: {e})",
                r.message
            )),
        })
    }
}

/// A document's error, its kind by its type ([`ScoreError::kind`], with
/// the file and line where the error carries them).
pub(crate) fn document(e: ScoreError) -> Raised {
    let message = e.to_string();
    let kind = match e.kind() {
        InputKind::Bundle => Kind::Bundle,
        InputKind::Results => Kind::Results,
        InputKind::GroundTruth => Kind::GroundTruth,
        InputKind::Options => Kind::Options,
        InputKind::Metrics => Kind::Metrics,
    };
    match e.line() {
        Some((path, line)) => Raised::new(kind, message).at_line(path, line),
        None => Raised::new(kind, message),
    }
}

/// A library's error: a device or a file of it that could not be read.
pub(crate) fn library(e: LibraryError) -> Raised {
    Raised::new(Kind::Bundle, e.to_string())
}

/// A document's error, with the input of its kind that is at fault: of
/// the paths given for that kind, the first that is missing, else the
/// only one (with several, none is named: the message says which).
pub(crate) fn document_at(e: ScoreError, inputs: &[(Kind, &Path)]) -> Raised {
    let raised = document(e);
    if raised.line.is_some() {
        return raised; // it names its own file and line
    }
    let of_kind: Vec<&Path> = inputs
        .iter()
        .filter(|(k, _)| *k == raised.kind())
        .map(|(_, p)| *p)
        .collect();
    if let Some(missing) = of_kind.iter().find(|p| !p.exists()) {
        return raised.at(missing);
    }
    match of_kind.as_slice() {
        [only] => raised.at(only),
        _ => raised,
    }
}

/// A bundle that could not be loaded.
pub(crate) fn load(e: LoadError) -> Raised {
    Raised::new(Kind::Bundle, e.to_string())
}

/// Misuse of an episode.
pub(crate) fn sim(e: SimError) -> Raised {
    Raised::new(Kind::Episode, e.to_string())
}

/// Episodes that cannot be scored.
pub(crate) fn metrics(e: MetricsError) -> Raised {
    Raised::new(Kind::Metrics, e.to_string())
}

/// Anything else of the core's (a document that cannot be written).
pub(crate) fn other(message: impl Into<String>) -> Raised {
    Raised::new(Kind::Base, message)
}

/// A run's error, with the file it names (a bundle, library or replay
/// file that is not there makes a `BundleNotFoundError`).
pub(crate) fn eval(e: EvalError) -> Raised {
    let message = e.to_string();
    match e {
        EvalError::Option { .. } | EvalError::EmptyPlan => Raised::new(Kind::Options, message),
        EvalError::Load { path, .. } => Raised::new(Kind::Bundle, message).at(Path::new(&path)),
        EvalError::NoDevice { .. } | EvalError::NoDevices => Raised::new(Kind::Bundle, message),
        EvalError::BadLine { path, line, .. } => {
            Raised::new(Kind::Results, message).at_line(&path, line)
        }
        EvalError::Spec { path, .. } => Raised::new(Kind::Results, message).at(Path::new(&path)),
        EvalError::Refused { path, .. } => {
            Raised::new(Kind::RunRefused, message).at(Path::new(&path))
        }
        EvalError::Io { path, .. } => {
            let mut raised = Raised::new(Kind::Output, message);
            raised.path = Some(path);
            raised
        }
    }
}
