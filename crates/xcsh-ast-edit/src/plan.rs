//! Planning an edit: which files change, and how, without writing anything.

use std::fs;
use std::path::{Path, PathBuf};

use crate::apply::PlannedWrite;
use crate::filter::GlobFilter;
use crate::rewrite::{Replacement, Rewriter};
use crate::source::read_source;
use crate::walk::walk;
use crate::{AstEditError, AstEditOptions, AstEditParams, Language};
use xcsh_safe_fs::Snapshot;

/// One file the edit changes.
#[derive(Debug)]
pub(crate) struct FileChange {
    /// What apply will write.
    pub write: PlannedWrite,
    /// The text the preview read, for the diff.
    pub original: String,
    /// The replacements, in source order.
    pub replacements: Vec<Replacement>,
}

/// A file that was not searched, and why.
#[derive(Debug)]
pub(crate) struct Skipped {
    /// How messages name it.
    pub display: String,
    /// Why, in one line.
    pub reason: String,
}

/// A file whose syntax tree has errors: reported, never edited.
#[derive(Debug)]
pub(crate) struct ParseFailure {
    /// How messages name it.
    pub display: String,
    /// 1-based line of the first error.
    pub line: usize,
}

/// The outcome of a preview.
#[derive(Debug)]
pub(crate) struct Plan {
    /// The language searched.
    pub language: Language,
    /// The files that change, in walk order.
    pub changes: Vec<FileChange>,
    /// Files that do not parse.
    pub parse_errors: Vec<ParseFailure>,
    /// Files that were not searched.
    pub skipped: Vec<Skipped>,
    /// How many files were parsed and searched.
    pub files_searched: usize,
    /// True when `max_replacements` or `max_files` stopped the search early.
    pub limit_reached: bool,
}

impl Plan {
    /// Replacements over all files.
    pub fn total_replacements(&self) -> usize {
        self.changes.iter().map(|c| c.replacements.len()).sum()
    }

    /// What the pending action keeps.
    pub fn into_writes(self) -> Vec<PlannedWrite> {
        self.changes.into_iter().map(|c| c.write).collect()
    }
}

/// Runs `params` against the files under the working directory `cwd`,
/// changing nothing on disk.
///
/// The path to search is resolved (symlinks included) before anything is
/// read; unless `options` allow it, one that resolves outside `cwd` is
/// refused. Files are named by where they really are, relative to `cwd`.
///
/// # Errors
///
/// Unknown language, invalid pattern or glob, a path that cannot be read
/// or lies outside the working directory, a file named by `path` that
/// cannot be searched (not a regular file, too large, binary, not UTF-8),
/// or [`AstEditError::Cancelled`] once `cancelled()` turns true.
pub(crate) fn plan(
    params: &AstEditParams,
    cwd: &Path,
    options: &AstEditOptions,
    cancelled: impl Fn() -> bool,
) -> Result<Plan, AstEditError> {
    let language = Language::parse(&params.language)?;
    let rewriter = Rewriter::new(&params.pattern, &params.rewrite, language)?;
    let filter = GlobFilter::new(&params.globs)?;
    let target = resolve_target(params.path.as_deref(), cwd, options)?;
    let walk = walk(&target.path, target.is_dir, language, &filter);
    let display = |path: &Path| display_path(path, &target.root);

    let mut plan = Plan {
        language,
        changes: Vec::new(),
        parse_errors: Vec::new(),
        skipped: walk
            .errors
            .iter()
            .map(|(path, reason)| Skipped {
                display: display(path),
                reason: reason.clone(),
            })
            .collect(),
        files_searched: 0,
        limit_reached: false,
    };
    let max_files = params.max_files.map_or(usize::MAX, |n| n as usize);
    let max_replacements = params.max_replacements.map_or(usize::MAX, |n| n as usize);
    let mut total = 0;
    for path in &walk.files {
        if cancelled() {
            return Err(AstEditError::Cancelled);
        }
        if plan.changes.len() >= max_files || total >= max_replacements {
            // Files are left unsearched.
            plan.limit_reached = true;
            break;
        }
        let source = match read_source(path) {
            Ok(source) => source,
            // A file the caller named is not silently passed over.
            Err(reason) if !target.is_dir => {
                return Err(AstEditError::CannotEdit {
                    path: display(path),
                    reason: reason.to_string(),
                });
            }
            Err(reason) => {
                plan.skipped.push(Skipped {
                    display: display(path),
                    reason: reason.to_string(),
                });
                continue;
            }
        };
        plan.files_searched += 1;
        let rewritten = match rewriter.rewrite(&source, max_replacements - total) {
            Ok(rewritten) => rewritten,
            Err(error) => {
                plan.parse_errors.push(ParseFailure {
                    display: display(path),
                    line: error.line,
                });
                continue;
            }
        };
        plan.limit_reached |= rewritten.truncated;
        if rewritten.replacements.is_empty() {
            continue;
        }
        let write_path = match fs::canonicalize(path) {
            Ok(resolved) => resolved,
            Err(error) => {
                plan.skipped.push(Skipped {
                    display: display(path),
                    reason: format!("cannot resolve path: {error}"),
                });
                continue;
            }
        };
        total += rewritten.replacements.len();
        plan.changes.push(FileChange {
            write: PlannedWrite {
                snapshot: Snapshot::of(write_path, display(path), source.as_bytes()),
                replacements: rewritten.replacements.len(),
                new_content: rewritten.text,
            },
            original: source,
            replacements: rewritten.replacements,
        });
    }
    Ok(plan)
}

/// The resolved path to search.
struct Target {
    /// The working directory, symlinks resolved: what paths are shown
    /// relative to.
    root: PathBuf,
    /// The path to search, symlinks resolved.
    path: PathBuf,
    /// Whether it is a directory (walked) or a file (named explicitly).
    is_dir: bool,
}

/// Resolves `requested` (default: the working directory) against `cwd`,
/// following every symlink, and refuses it outside `cwd` unless `options`
/// allow that.
fn resolve_target(
    requested: Option<&str>,
    cwd: &Path,
    options: &AstEditOptions,
) -> Result<Target, AstEditError> {
    let canonical = |path: &Path| {
        fs::canonicalize(path).map_err(|source| AstEditError::Path {
            path: path.to_path_buf(),
            source,
        })
    };
    let root = canonical(cwd)?;
    // The path must exist: resolved by the OS, so a missing or unreadable
    // one is named as given.
    let path = match requested {
        // Taken back as printed: a name whose bytes are not UTF-8 is
        // given as `\xNN`.
        Some(requested) => canonical(&cwd.join(xcsh_safe_fs::name::given(cwd, requested)))?,
        None => root.clone(),
    };
    if !options.allow_outside_root && !path.starts_with(&root) {
        // The refusal every tool and pack gives.
        return Err(AstEditError::OutsideRoot(
            xcsh_safe_fs::ConfineError::Outside {
                path: requested.unwrap_or(".").to_owned(),
                resolved: path,
            },
        ));
    }
    let metadata = fs::metadata(&path).map_err(|source| AstEditError::Path {
        path: path.clone(),
        source,
    })?;
    Ok(Target {
        is_dir: metadata.is_dir(),
        root,
        path,
    })
}

/// `path` relative to `cwd` when it lies under it, else as it is, as xcsh
/// prints paths (control characters and bytes that are not UTF-8
/// escaped; the tool takes that form back as a path argument).
fn display_path(path: &Path, cwd: &Path) -> String {
    let shown: PathBuf = match path.strip_prefix(cwd) {
        Ok(relative) if !relative.as_os_str().is_empty() => relative.to_path_buf(),
        _ => path.to_path_buf(),
    };
    xcsh_safe_fs::name::shown(&shown).into_owned()
}
