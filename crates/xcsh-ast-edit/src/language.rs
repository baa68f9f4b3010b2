//! The languages `ast_edit` parses, and which files belong to each.

use std::fmt;
use std::path::Path;

use ast_grep_language::SupportLang;

use crate::AstEditError;

/// A language `ast_edit` can parse: the grammars this crate is built with.
///
/// TypeScript and TSX are distinct grammars (as in ast-grep): `typescript`
/// covers `.ts`, `.mts` and `.cts` files, `tsx` covers `.tsx`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Language {
    /// Rust (`.rs`).
    Rust,
    /// TypeScript (`.ts`, `.mts`, `.cts`).
    TypeScript,
    /// TypeScript with JSX (`.tsx`).
    Tsx,
    /// JavaScript, JSX included (`.js`, `.mjs`, `.cjs`, `.jsx`).
    JavaScript,
    /// Python (`.py`, `.pyi`).
    Python,
    /// Go (`.go`).
    Go,
}

impl Language {
    /// Every supported language, in the order error messages list them.
    pub const ALL: [Language; 6] = [
        Self::Rust,
        Self::TypeScript,
        Self::Tsx,
        Self::JavaScript,
        Self::Python,
        Self::Go,
    ];

    /// Parses a language name or alias, case-insensitively (`rust`/`rs`,
    /// `typescript`/`ts`, `tsx`, `javascript`/`js`/`jsx`, `python`/`py`,
    /// `go`/`golang`).
    ///
    /// # Errors
    ///
    /// [`AstEditError::UnknownLanguage`] naming the accepted names.
    pub fn parse(name: &str) -> Result<Self, AstEditError> {
        let name = name.trim();
        Self::ALL
            .into_iter()
            .find(|lang| lang.aliases().iter().any(|a| a.eq_ignore_ascii_case(name)))
            .ok_or_else(|| AstEditError::UnknownLanguage {
                name: name.to_owned(),
                expected: Self::ALL.map(Self::name).join(", "),
            })
    }

    /// The canonical lowercase name.
    pub fn name(self) -> &'static str {
        self.aliases()[0]
    }

    fn aliases(self) -> &'static [&'static str] {
        match self {
            Self::Rust => &["rust", "rs"],
            Self::TypeScript => &["typescript", "ts"],
            Self::Tsx => &["tsx"],
            Self::JavaScript => &["javascript", "js", "jsx"],
            Self::Python => &["python", "py"],
            Self::Go => &["go", "golang"],
        }
    }

    /// File extensions a directory walk picks up for this language.
    pub fn extensions(self) -> &'static [&'static str] {
        match self {
            Self::Rust => &["rs"],
            Self::TypeScript => &["ts", "mts", "cts"],
            Self::Tsx => &["tsx"],
            Self::JavaScript => &["js", "mjs", "cjs", "jsx"],
            Self::Python => &["py", "pyi"],
            Self::Go => &["go"],
        }
    }

    /// True if a directory walk should search `path` for this language.
    pub fn matches_path(self, path: &Path) -> bool {
        path.extension()
            .and_then(|ext| ext.to_str())
            .is_some_and(|ext| self.extensions().contains(&ext))
    }

    /// The human name used in messages, e.g. `Rust`.
    pub fn display_name(self) -> &'static str {
        match self {
            Self::Rust => "Rust",
            Self::TypeScript => "TypeScript",
            Self::Tsx => "TSX",
            Self::JavaScript => "JavaScript",
            Self::Python => "Python",
            Self::Go => "Go",
        }
    }

    /// The ast-grep grammar. Only the variants listed here are compiled in
    /// (see the crate's grammar features); others would panic at parse time.
    pub(crate) fn grammar(self) -> SupportLang {
        match self {
            Self::Rust => SupportLang::Rust,
            Self::TypeScript => SupportLang::TypeScript,
            Self::Tsx => SupportLang::Tsx,
            Self::JavaScript => SupportLang::JavaScript,
            Self::Python => SupportLang::Python,
            Self::Go => SupportLang::Go,
        }
    }
}

impl fmt::Display for Language {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.display_name())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_and_aliases_parse_case_insensitively() {
        for (name, lang) in [
            ("rust", Language::Rust),
            ("RS", Language::Rust),
            ("ts", Language::TypeScript),
            ("TypeScript", Language::TypeScript),
            ("tsx", Language::Tsx),
            ("jsx", Language::JavaScript),
            ("py", Language::Python),
            ("golang", Language::Go),
        ] {
            assert_eq!(Language::parse(name).unwrap(), lang, "{name}");
        }
    }

    #[test]
    fn unknown_language_names_the_accepted_ones() {
        let err = Language::parse("cobol").unwrap_err();
        assert_eq!(
            err.to_string(),
            "unknown language \"cobol\": expected one of rust, typescript, tsx, javascript, python, go"
        );
    }

    #[test]
    fn every_grammar_is_compiled_in() {
        use ast_grep_language::LanguageExt;
        for lang in Language::ALL {
            let root = lang.grammar().ast_grep("x");
            assert!(!root.root().text().is_empty(), "{lang}");
        }
    }
}
