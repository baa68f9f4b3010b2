//! The unified diff a preview shows of a file's old and new text.

use similar::TextDiff;

/// Lines of unchanged context [`unified_diff`] shows around each change.
pub const DIFF_CONTEXT_LINES: usize = 3;

/// The unified diff of the file `name` from `old` to `new`, as `ast_edit`
/// shows it in its previews: the headers `--- a/{name}` and
/// `+++ b/{name}`, then each hunk (`@@ -l,n +l,n @@`) with
/// [`DIFF_CONTEXT_LINES`] lines of context. A last line without a newline
/// is marked `\ No newline at end of file`. Empty when the two texts are
/// the same.
///
/// ```
/// use xcsh_tool_types::unified_diff;
///
/// let diff = unified_diff("notes.txt", "one\ntwo\nthree\n", "one\n2\nthree\n");
/// assert_eq!(
///     diff,
///     "--- a/notes.txt\n+++ b/notes.txt\n@@ -1,3 +1,3 @@\n one\n-two\n+2\n three\n"
/// );
/// assert_eq!(unified_diff("same.txt", "x\n", "x\n"), "");
/// ```
pub fn unified_diff(name: &str, old: &str, new: &str) -> String {
    TextDiff::from_lines(old, new)
        .unified_diff()
        .context_radius(DIFF_CONTEXT_LINES)
        .header(&format!("a/{name}"), &format!("b/{name}"))
        .to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hunks_keep_three_lines_of_context_and_far_changes_apart() {
        let old: String = (1..=20).map(|n| format!("{n}\n")).collect();
        let new = old
            .replacen("2\n", "two\n", 1)
            .replace("18\n", "eighteen\n");
        assert_eq!(
            unified_diff("n.txt", &old, &new),
            "--- a/n.txt\n+++ b/n.txt\n\
             @@ -1,5 +1,5 @@\n 1\n-2\n+two\n 3\n 4\n 5\n\
             @@ -15,6 +15,6 @@\n 15\n 16\n 17\n-18\n+eighteen\n 19\n 20\n"
        );
    }

    #[test]
    fn a_missing_final_newline_is_marked() {
        assert_eq!(
            unified_diff("a", "x", "y"),
            "--- a/a\n+++ b/a\n@@ -1 +1 @@\n-x\n\\ No newline at end of file\n+y\n\\ No newline at end of file\n"
        );
    }
}
