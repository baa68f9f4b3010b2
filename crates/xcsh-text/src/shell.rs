//! Paths worded as shell words, for the commands xcsh tells people to run.

use std::path::Path;

/// `path` as one shell word: as it is when it holds only characters no
/// shell treats specially, else in single quotes; a path that is not valid
/// UTF-8 in bash's `$'…'` quotes, each byte that is not part of valid
/// UTF-8 (and each control character) as `\xNN`, so the word pasted into
/// bash names the very same bytes.
pub fn shell_word(path: &Path) -> String {
    let Some(text) = path.to_str() else {
        return ansi_c_word(path);
    };
    let plain = !text.is_empty()
        && text
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "/._-+,:@%=".contains(c));
    if plain {
        text.to_owned()
    } else {
        format!("'{}'", text.replace('\'', r"'\''"))
    }
}

/// `path` in bash's `$'…'` quotes.
#[cfg(unix)]
fn ansi_c_word(path: &Path) -> String {
    use std::fmt::Write as _;
    use std::os::unix::ffi::OsStrExt as _;
    let mut word = String::from("$'");
    for chunk in path.as_os_str().as_bytes().utf8_chunks() {
        for c in chunk.valid().chars() {
            match c {
                '\\' | '\'' => {
                    word.push('\\');
                    word.push(c);
                }
                c if c.is_control() => {
                    for byte in c.to_string().bytes() {
                        let _ = write!(word, "\\x{byte:02x}");
                    }
                }
                c => word.push(c),
            }
        }
        for byte in chunk.invalid() {
            let _ = write!(word, "\\x{byte:02x}");
        }
    }
    word.push('\'');
    word
}

/// Only Unix paths can be bytes that are not Unicode.
#[cfg(not(unix))]
fn ansi_c_word(path: &Path) -> String {
    shell_word(Path::new(&*path.to_string_lossy()))
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

    #[cfg(unix)]
    #[test]
    fn a_path_that_is_not_utf8_is_quoted_as_bash_reads_bytes() {
        use std::os::unix::ffi::OsStrExt as _;
        let path = Path::new(std::ffi::OsStr::from_bytes(b"/w/caf\xe9 it's\\\n\xc3\xa9"));
        assert_eq!(shell_word(path), r"$'/w/caf\xe9 it\'s\\\x0aé'");
    }

    #[cfg(unix)]
    #[test]
    fn bash_reads_the_quoted_word_back_as_the_same_bytes() {
        use std::os::unix::ffi::OsStrExt as _;
        let bytes = b"/w/caf\xe9 it's\\\n\xff\xc3\xa9a";
        let word = shell_word(Path::new(std::ffi::OsStr::from_bytes(bytes)));
        let Ok(output) = std::process::Command::new("bash")
            .args(["-c", &format!("printf %s {word}")])
            .output()
        else {
            return; // no bash on this machine
        };
        assert_eq!(output.stdout, bytes, "{word}");
    }
}
