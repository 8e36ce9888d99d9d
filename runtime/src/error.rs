//! Errors a user can act on. Each carries the place to fix: a file position, a square,
//! a move index.

use std::fmt;

use thiserror::Error;

/// One problem in a rules file, at a position: printed as `path:line:col: message`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Problem {
    pub file: String,
    /// 1-based; 0 when the problem has no place in the file.
    pub line: usize,
    /// 1-based, in characters.
    pub col: usize,
    pub message: String,
}

impl fmt::Display for Problem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.file.is_empty() {
            write!(f, "{}", self.message)
        } else if self.line == 0 {
            write!(f, "{}: {}", self.file, self.message)
        } else if self.col == 0 {
            write!(f, "{}:{}: {}", self.file, self.line, self.message)
        } else {
            write!(f, "{}:{}:{}: {}", self.file, self.line, self.col, self.message)
        }
    }
}

/// 1-based line and column (in characters) of a byte offset.
pub fn line_col(text: &str, offset: usize) -> (usize, usize) {
    let mut offset = offset.min(text.len());
    while !text.is_char_boundary(offset) {
        offset -= 1;
    }
    let before = &text[..offset];
    let line = before.matches('\n').count() + 1;
    let col = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
    (line, col)
}

/// Why a variant could not be loaded.
#[derive(Debug, Error)]
pub enum LoadError {
    /// A name that no folder of the search path and no built-in variant has.
    #[error("unknown variant `{name}`{hint}; known variants: {}; looked in: {}", known.join(", "), looked_in.join(", "))]
    NotFound {
        name: String,
        /// ` (did you mean `x`?)` or nothing.
        hint: String,
        known: Vec<String>,
        /// The folders searched, in order, and the built-in variants.
        looked_in: Vec<String>,
    },
    /// A variant given by a path that does not exist.
    #[error("no such folder: {path}")]
    NoSuchFolder { path: String },
    /// A path that exists but is not a variant folder.
    #[error("{path} is not a variant: a variant is a folder with a variant.toml")]
    NotAVariant { path: String },
    #[error("{path}: {message}")]
    Io { path: String, message: String },
    /// Every problem found, in file order.
    #[error("{}", problems.iter().map(|p| p.to_string()).collect::<Vec<_>>().join("\n"))]
    Invalid { problems: Vec<Problem> },
}

impl LoadError {
    pub fn problems(&self) -> Vec<Problem> {
        match self {
            LoadError::Invalid { problems } => problems.clone(),
            other => vec![Problem { file: String::new(), line: 0, col: 0, message: other.to_string() }],
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn offsets_become_lines_and_columns() {
        let t = "a = 1\nbé = 2\n";
        assert_eq!(line_col(t, 0), (1, 1));
        assert_eq!(line_col(t, 6), (2, 1));
        assert_eq!(line_col(t, 9), (2, 3)); // after the two-byte é
        assert_eq!(line_col(t, 999), (3, 1));
    }
}
