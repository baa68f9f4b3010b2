//! Paths worded as shell words, for the commands xcsh tells people to run.

use std::path::Path;

/// `path` as one shell word: as it is when it holds only characters no
/// shell treats specially, else in single quotes.
pub fn shell_word(path: &Path) -> String {
    let text = path.display().to_string();
    let plain = !text.is_empty()
        && text
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "/._-+,:@%=".contains(c));
    if plain {
        text
    } else {
        format!("'{}'", text.replace('\'', r"'\''"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_trust_command_is_quoted_for_the_shell_when_it_must_be() {
        assert_eq!(
            shell_word(Path::new("/src/my-proj_1.2")),
            "/src/my-proj_1.2"
        );
        assert_eq!(shell_word(Path::new("/src/my proj")), "'/src/my proj'");
        assert_eq!(shell_word(Path::new("/src/it's")), r"'/src/it'\''s'");
    }
}
