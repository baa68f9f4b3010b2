//! Counted nouns for labels and summaries, with correct plurals.

/// `1 replacement`, `3 replacements`.
pub(crate) fn count(n: usize, noun: &str) -> String {
    if n == 1 {
        format!("{n} {noun}")
    } else {
        format!("{n} {noun}s")
    }
}

/// The pending action's label:
/// `AST Edit: {n} replacement{s} in {m} file{s}`.
pub(crate) fn preview_label(replacements: usize, files: usize) -> String {
    format!(
        "AST Edit: {} in {}",
        count(replacements, "replacement"),
        count(files, "file")
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn label_uses_correct_plurals() {
        assert_eq!(preview_label(1, 1), "AST Edit: 1 replacement in 1 file");
        assert_eq!(preview_label(3, 2), "AST Edit: 3 replacements in 2 files");
        assert_eq!(preview_label(2, 1), "AST Edit: 2 replacements in 1 file");
    }
}
