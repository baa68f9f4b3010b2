//! The guide's claims about the `xcsh` front ends are each checked by a
//! test that exercises them: every paragraph of `src/guide.md`, and of
//! the repository's `docs/writing-packs.md` (where an author starts), that
//! names `xcsh` or a front end carries a `<!-- checked by: FILE TEST -->`
//! line, and each named test exists. A claim added without a test, or a
//! test renamed or removed under a claim, fails here. (The guide's
//! examples are compiled and run as doctests of the `guide` module.)

use std::path::{Path, PathBuf};

const GUIDE: &str = include_str!("../src/guide.md");
const MARKER: &str = "<!-- checked by: ";

/// The workspace root.
fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .ancestors()
        .nth(2)
        .unwrap()
        .to_path_buf()
}

/// The guides checked: the crate docs' and the repository's
/// `docs/writing-packs.md`, by name.
fn guides() -> Vec<(&'static str, String)> {
    let start = root().join("docs/writing-packs.md");
    let start = std::fs::read_to_string(&start)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", start.display()));
    vec![
        ("src/guide.md", GUIDE.to_owned()),
        ("docs/writing-packs.md", start),
    ]
}

/// A guide's paragraphs outside code blocks.
fn paragraphs(guide: &str) -> Vec<String> {
    let mut paragraphs = vec![String::new()];
    let mut in_code = false;
    for line in guide.lines() {
        if line.trim_start().starts_with("```") {
            in_code = !in_code;
            continue;
        }
        if in_code {
            continue;
        }
        if line.trim().is_empty() {
            paragraphs.push(String::new());
        } else {
            let last = paragraphs.last_mut().expect("one at least");
            last.push_str(line);
            last.push('\n');
        }
    }
    paragraphs.retain(|p| !p.is_empty());
    paragraphs
}

/// Whether `paragraph` says something about the agent's front ends.
fn is_front_end_claim(paragraph: &str) -> bool {
    let prose: String = paragraph
        .lines()
        .filter(|line| !line.starts_with(MARKER))
        .collect::<Vec<_>>()
        .join(" ");
    prose.contains("`xcsh ")
        || prose.contains("`xcsh`")
        || prose.contains("front end")
        || prose.contains("xcsh with --allow-outside-root")
}

#[test]
fn every_front_end_claim_of_the_guide_names_a_test() {
    for (name, guide) in guides() {
        let unchecked: Vec<String> = paragraphs(&guide)
            .into_iter()
            .filter(|p| is_front_end_claim(p) && !p.contains(MARKER))
            .collect();
        assert!(
            unchecked.is_empty(),
            "{name}: paragraphs about the front ends with no `{MARKER}FILE TEST -->` line:\n\n{}",
            unchecked.join("\n")
        );
    }
}

#[test]
fn every_test_the_guide_names_exists() {
    let root = root();
    for (name, guide) in guides() {
        let markers: Vec<&str> = guide
            .lines()
            .filter_map(|line| line.strip_prefix(MARKER)?.strip_suffix(" -->"))
            .collect();
        assert!(markers.len() >= 10, "{name}: {markers:?}");
        for marker in markers {
            let (file, test) = marker
                .split_once(' ')
                .unwrap_or_else(|| panic!("{name}: `{marker}` is not FILE TEST"));
            let source = std::fs::read_to_string(root.join(file))
                .unwrap_or_else(|e| panic!("{name} names {file}: {e}"));
            assert!(
                source.contains(&format!("fn {test}(")),
                "{name} names the test {test} in {file}, which has no such test"
            );
        }
    }
}
