//! The `globs` argument: include and `!`-exclude filters on relative paths.

use std::path::Path;

use globset::{Glob, GlobSet, GlobSetBuilder};

use crate::AstEditError;

/// Include and exclude glob sets. A path passes when it matches some
/// include glob (or there are none) and no exclude glob.
#[derive(Clone, Debug)]
pub(crate) struct GlobFilter {
    include: Option<GlobSet>,
    exclude: GlobSet,
}

impl GlobFilter {
    /// Compiles `globs`; a leading `!` makes a glob exclude.
    ///
    /// # Errors
    ///
    /// [`AstEditError::InvalidGlob`] for a glob that does not compile.
    pub fn new(globs: &[String]) -> Result<Self, AstEditError> {
        let mut include = GlobSetBuilder::new();
        let mut exclude = GlobSetBuilder::new();
        let mut has_include = false;
        for glob in globs {
            let (builder, text) = match glob.strip_prefix('!') {
                Some(negated) => (&mut exclude, negated),
                None => {
                    has_include = true;
                    (&mut include, glob.as_str())
                }
            };
            let compiled = Glob::new(text).map_err(|error| AstEditError::InvalidGlob {
                glob: glob.clone(),
                reason: error.kind().to_string(),
            })?;
            builder.add(compiled);
        }
        let build = |builder: GlobSetBuilder| {
            builder.build().map_err(|error| AstEditError::InvalidGlob {
                glob: error.glob().unwrap_or_default().to_owned(),
                reason: error.kind().to_string(),
            })
        };
        Ok(Self {
            include: if has_include {
                Some(build(include)?)
            } else {
                None
            },
            exclude: build(exclude)?,
        })
    }

    /// True if `relative` (a path relative to the searched directory) passes.
    pub fn allows(&self, relative: &Path) -> bool {
        self.include
            .as_ref()
            .is_none_or(|set| set.is_match(relative))
            && !self.exclude.is_match(relative)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn filter(globs: &[&str]) -> GlobFilter {
        GlobFilter::new(&globs.iter().map(|g| g.to_string()).collect::<Vec<_>>()).unwrap()
    }

    #[test]
    fn no_globs_allow_everything() {
        assert!(filter(&[]).allows(Path::new("src/a.rs")));
    }

    #[test]
    fn includes_and_excludes_combine() {
        let f = filter(&["src/**", "!**/generated/**"]);
        assert!(f.allows(Path::new("src/a.rs")));
        assert!(!f.allows(Path::new("src/generated/b.rs")));
        assert!(!f.allows(Path::new("tests/c.rs")));
    }

    #[test]
    fn star_crosses_directories() {
        assert!(filter(&["*.rs"]).allows(Path::new("deep/down/x.rs")));
    }

    #[test]
    fn invalid_glob_is_named() {
        let err = GlobFilter::new(&["src/[".to_owned()]).unwrap_err();
        assert_eq!(
            err.to_string(),
            "invalid glob \"src/[\": unclosed character class; missing ']'"
        );
    }
}
