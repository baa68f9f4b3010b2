//! One structural rewrite, compiled once and run over source texts.

use std::borrow::Cow;

use ast_grep_core::matcher::PatternError;
use ast_grep_core::tree_sitter::StrDoc;
use ast_grep_core::{AstGrep, Language as _, Pattern};
use ast_grep_language::{LanguageExt, SupportLang};

use crate::{AstEditError, Language};

/// A compiled pattern with its rewrite template.
#[derive(Clone)]
pub(crate) struct Rewriter {
    language: Language,
    pattern: Pattern,
    template: String,
}

/// One replacement in a source text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Replacement {
    /// 1-based line of the match's start.
    pub line: usize,
    /// 1-based byte column of the match's start.
    pub column: usize,
    /// The matched text.
    pub matched: String,
    /// What replaces it.
    pub replacement: String,
}

/// The result of rewriting one source text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Rewritten {
    /// The replacements, in source order.
    pub replacements: Vec<Replacement>,
    /// The whole text after them.
    pub text: String,
    /// True when the limit cut off further matches.
    pub truncated: bool,
}

/// Where a source text fails to parse.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct SyntaxError {
    /// 1-based line of the first error node.
    pub line: usize,
}

impl Rewriter {
    /// Compiles `pattern` for `language`.
    ///
    /// # Errors
    ///
    /// [`AstEditError::InvalidPattern`] when the pattern is not one valid
    /// syntax node of the language (tree-sitter recovers from errors, so a
    /// pattern with an error node is refused rather than half-matched).
    pub fn new(pattern: &str, template: &str, language: Language) -> Result<Self, AstEditError> {
        let invalid = |reason: String| AstEditError::InvalidPattern {
            pattern: pattern.to_owned(),
            language: language.display_name(),
            reason,
        };
        let grammar = language.grammar();
        let not_valid = || invalid(format!("it is not valid {language} syntax"));
        let compiled = match Pattern::try_new(pattern, grammar) {
            Ok(compiled) if compiled.has_error() => return Err(not_valid()),
            Ok(compiled) => compiled,
            // Error recovery can split broken code into several nodes:
            // name the syntax error, not its side effect.
            Err(_) if has_syntax_error(pattern, grammar) => return Err(not_valid()),
            Err(error) => {
                return Err(invalid(match error {
                    PatternError::NoContent(_) => "it is empty".to_owned(),
                    PatternError::MultipleNode(_) => {
                        "it must be a single syntax node, not several".to_owned()
                    }
                    PatternError::RootMultiMetaVar(_) => {
                        "a `$$$` metavariable cannot be the whole pattern".to_owned()
                    }
                    other => other.to_string(),
                }));
            }
        };
        let compiled = if language == Language::Go
            && root_kind(&compiled, grammar).as_deref() == Some("type_conversion_expression")
        {
            // Out of context Go parses `fmt.Println($A)` as a type
            // conversion, which never matches the calls in function bodies.
            // Parse it as a statement in a function, as ast-grep advises.
            Pattern::contextual(
                &format!("func t() {{ {pattern} }}"),
                "call_expression",
                grammar,
            )
            .map_err(|e| invalid(e.to_string()))?
        } else {
            compiled
        };
        Ok(Self {
            language,
            pattern: compiled,
            template: template.to_owned(),
        })
    }

    /// Rewrites `source`, making at most `limit` replacements.
    ///
    /// # Errors
    ///
    /// [`SyntaxError`] if `source` does not parse cleanly: a file the
    /// grammar cannot read is reported, never edited.
    pub fn rewrite(&self, source: &str, limit: usize) -> Result<Rewritten, SyntaxError> {
        let grep: AstGrep<StrDoc<SupportLang>> = AstGrep::try_new(source, self.language.grammar())
            .map_err(|_| SyntaxError { line: 1 })?;
        let root = grep.root();
        if root.get_inner_node().has_error() {
            let line = root
                .dfs()
                .find(|node| node.is_error() || node.is_missing())
                .map_or(1, |node| node.start_pos().line() + 1);
            return Err(SyntaxError { line });
        }
        let mut edits = root.replace_all(&self.pattern, self.template.as_str());
        edits.sort_by_key(|edit| edit.position);
        let truncated = edits.len() > limit;
        edits.truncate(limit);

        let mut text = String::with_capacity(source.len());
        let mut replacements = Vec::with_capacity(edits.len());
        let mut copied = 0;
        let mut line = 1;
        let mut line_start = 0;
        for edit in &edits {
            let start = edit.position;
            let end = start + edit.deleted_length;
            for (offset, byte) in source.as_bytes()[copied..start].iter().enumerate() {
                if *byte == b'\n' {
                    line += 1;
                    line_start = copied + offset + 1;
                }
            }
            let replacement = String::from_utf8_lossy(&edit.inserted_text).into_owned();
            text.push_str(&source[copied..start]);
            text.push_str(&replacement);
            replacements.push(Replacement {
                line,
                column: start - line_start + 1,
                matched: source[start..end].to_owned(),
                replacement,
            });
            // Count the matched text's lines too, so the next match's line is right.
            for (offset, byte) in source.as_bytes()[start..end].iter().enumerate() {
                if *byte == b'\n' {
                    line += 1;
                    line_start = start + offset + 1;
                }
            }
            copied = end;
        }
        text.push_str(&source[copied..]);
        Ok(Rewritten {
            replacements,
            text,
            truncated,
        })
    }
}

/// True if `pattern`, parsed as a whole, has syntax errors.
fn has_syntax_error(pattern: &str, grammar: SupportLang) -> bool {
    let source = grammar.pre_process_pattern(pattern);
    AstGrep::try_new(&source, grammar).map_or(true, |grep: AstGrep<StrDoc<SupportLang>>| {
        grep.root().get_inner_node().has_error()
    })
}

/// The node kind a pattern matches, e.g. `call_expression`.
fn root_kind(pattern: &Pattern, grammar: SupportLang) -> Option<String> {
    let ts = grammar.get_ts_language();
    let dump = pattern.dump(&|id| {
        ts.node_kind_for_id(id)
            .map(|kind| Cow::Owned(kind.to_owned()))
    })?;
    dump.kind.map(Cow::into_owned)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rewriter(pattern: &str, template: &str, language: Language) -> Rewriter {
        Rewriter::new(pattern, template, language).unwrap()
    }

    #[test]
    fn rewrites_every_match_with_lines_and_columns() {
        let source = "fn main() {\n    foo(1);\n    let x = foo(bar(2));\n}\n";
        let out = rewriter("foo($A)", "baz($A)", Language::Rust)
            .rewrite(source, usize::MAX)
            .unwrap();
        assert_eq!(
            out.text,
            "fn main() {\n    baz(1);\n    let x = baz(bar(2));\n}\n"
        );
        let positions: Vec<(usize, usize)> = out
            .replacements
            .iter()
            .map(|r| (r.line, r.column))
            .collect();
        assert_eq!(positions, [(2, 5), (3, 13)]);
        assert_eq!(out.replacements[1].matched, "foo(bar(2))");
        assert_eq!(out.replacements[1].replacement, "baz(bar(2))");
    }

    #[test]
    fn lines_after_a_multi_line_match_stay_right() {
        let source = "foo(\n  1,\n)\nfoo(2)\n";
        let out = rewriter("foo($A)", "bar($A)", Language::JavaScript)
            .rewrite(source, usize::MAX)
            .unwrap();
        let lines: Vec<usize> = out.replacements.iter().map(|r| r.line).collect();
        assert_eq!(lines, [1, 4]);
    }

    #[test]
    fn limit_keeps_the_first_matches() {
        let out = rewriter("print($A)", "log($A)", Language::Python)
            .rewrite("print(1)\nprint(2)\nprint(3)\n", 2)
            .unwrap();
        assert_eq!(out.text, "log(1)\nlog(2)\nprint(3)\n");
        assert_eq!(out.replacements.len(), 2);
        assert!(out.truncated);
    }

    #[test]
    fn go_calls_match_although_the_pattern_alone_looks_like_a_conversion() {
        let source = "package main\n\nfunc main() {\n\tfmt.Println(\"a\", 1)\n\tx := int(2)\n}\n";
        let out = rewriter("fmt.Println($$$A)", "log.Println($$$A)", Language::Go)
            .rewrite(source, usize::MAX)
            .unwrap();
        assert_eq!(
            out.text,
            "package main\n\nfunc main() {\n\tlog.Println(\"a\", 1)\n\tx := int(2)\n}\n"
        );
        let out = rewriter("int($A)", "int64($A)", Language::Go)
            .rewrite(source, usize::MAX)
            .unwrap();
        assert_eq!(out.replacements.len(), 1);
    }

    #[test]
    fn no_match_leaves_text_as_is() {
        let source = "package main\n\nfunc main() {}\n";
        let out = rewriter("fmt.Println($A)", "log.Println($A)", Language::Go)
            .rewrite(source, usize::MAX)
            .unwrap();
        assert!(out.replacements.is_empty());
        assert_eq!(out.text, source);
    }

    #[test]
    fn source_with_syntax_errors_is_refused_with_its_line() {
        let err = rewriter("foo($A)", "bar($A)", Language::Rust)
            .rewrite("fn ok() {}\nfn broken( {\n", usize::MAX)
            .unwrap_err();
        assert_eq!(err, SyntaxError { line: 2 });
    }

    #[test]
    fn invalid_patterns_are_refused() {
        let message = |pattern: &str| {
            Rewriter::new(pattern, "x", Language::Rust)
                .err()
                .unwrap()
                .to_string()
        };
        assert_eq!(
            message("fn ("),
            "invalid pattern \"fn (\" for Rust: it is not valid Rust syntax"
        );
        assert_eq!(message(""), "invalid pattern \"\" for Rust: it is empty");
        assert_eq!(
            message("a; b;"),
            "invalid pattern \"a; b;\" for Rust: it must be a single syntax node, not several"
        );
    }
}
