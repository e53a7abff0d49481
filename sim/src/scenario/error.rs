//! Scenario errors carry where the problem is (file, line, column, field path) so a person
//! editing a scenario by hand can fix it without reading the compiler.

use std::fmt;
use std::path::PathBuf;

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ScenarioError {
    /// The scenario file, when loaded from one.
    pub file: Option<PathBuf>,
    /// 1-based line and column of the offending item; 0 when unknown (e.g. I/O errors).
    pub line: usize,
    pub column: usize,
    /// Dotted field path, e.g. `threads[0].calls[3].kernel`; empty for whole-file errors.
    pub path: String,
    pub message: String,
}

impl ScenarioError {
    pub(crate) fn new(
        line: usize,
        column: usize,
        path: impl Into<String>,
        message: impl Into<String>,
    ) -> Self {
        Self {
            file: None,
            line,
            column,
            path: path.into(),
            message: message.into(),
        }
    }
}

impl fmt::Display for ScenarioError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.file {
            Some(p) => write!(f, "{}", p.display())?,
            None => write!(f, "<scenario>")?,
        }
        if self.line > 0 {
            write!(f, ":{}:{}", self.line, self.column)?;
        }
        if !self.path.is_empty() {
            write!(f, ": {}", self.path)?;
        }
        write!(f, ": {}", self.message)
    }
}

impl std::error::Error for ScenarioError {}
