use std::fs;

use tempfile::TempDir;

use super::*;
use crate::RenameRule;

fn dir_with(files: &[&str]) -> TempDir {
    let dir = TempDir::new().unwrap();
    for file in files {
        let path = dir.path().join(file);
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        fs::write(path, file.as_bytes()).unwrap();
    }
    dir
}

fn params(files: &[&str], rule: RenameRule) -> BatchRenameParams {
    BatchRenameParams {
        files: files.iter().map(|f| f.to_string()).collect(),
        rule,
    }
}

fn regex(pattern: &str, replacement: &str) -> RenameRule {
    RenameRule::Regex {
        pattern: pattern.into(),
        replacement: replacement.into(),
    }
}

#[test]
fn plans_renames_in_place_and_keeps_unchanged_apart() {
    let dir = dir_with(&["a.txt", "sub/b.txt", "c.md"]);
    let plan = RenamePlan::new(
        dir.path(),
        &params(&["a.txt", "sub/b.txt", "c.md"], regex(r"\.txt$", ".md")),
    )
    .unwrap();
    assert_eq!(plan.lines(), ["a.txt → a.md", "sub/b.txt → sub/b.md"]);
    assert_eq!(plan.unchanged, ["c.md"]);
    assert_eq!(plan.renames[1].to, dir.path().join("sub/b.md"));
    assert_eq!(plan.count_text(), "2 files");
}

#[test]
fn missing_source_is_refused() {
    let dir = dir_with(&["a.txt"]);
    let err =
        RenamePlan::new(dir.path(), &params(&["a.txt", "gone.txt"], regex("a", "b"))).unwrap_err();
    assert_eq!(err.to_string(), "gone.txt: no such file");
}

#[test]
fn directories_are_not_files() {
    let dir = dir_with(&["sub/x"]);
    let err = RenamePlan::new(dir.path(), &params(&["sub"], regex("s", "t"))).unwrap_err();
    assert_eq!(err.to_string(), "sub: no such file");
}

#[test]
fn two_files_onto_one_name_collide() {
    let dir = dir_with(&["a1.txt", "a2.txt"]);
    let err =
        RenamePlan::new(dir.path(), &params(&["a1.txt", "a2.txt"], regex(r"\d", ""))).unwrap_err();
    assert_eq!(
        err.to_string(),
        "a1.txt and a2.txt would both be renamed to a.txt"
    );
}

#[test]
fn existing_target_is_refused() {
    let dir = dir_with(&["a.txt", "b.txt"]);
    let err = RenamePlan::new(dir.path(), &params(&["a.txt"], regex("a", "b"))).unwrap_err();
    assert_eq!(err.to_string(), "a.txt: b.txt already exists");
}

#[test]
fn chains_and_swaps_are_refused() {
    let dir = dir_with(&["a", "b"]);
    let err = RenamePlan::new(dir.path(), &params(&["a", "b"], regex("^a$", "b"))).unwrap_err();
    assert_eq!(err.to_string(), "a: b already exists");
    let err = RenamePlan::new(dir.path(), &params(&["a", "b"], regex("^(a|b)$", "x"))).unwrap_err();
    assert_eq!(err.to_string(), "a and b would both be renamed to x");
}

#[test]
fn a_rule_that_changes_nothing_plans_nothing() {
    let dir = dir_with(&["a", "b"]);
    let plan = RenamePlan::new(
        dir.path(),
        &params(
            &["a", "b"],
            RenameRule::Suffix {
                suffix: String::new(),
            },
        ),
    )
    .unwrap();
    assert!(plan.renames.is_empty());
    assert_eq!(plan.unchanged, ["a", "b"]);
}

#[test]
fn invalid_new_names_are_refused() {
    let dir = dir_with(&["a.txt"]);
    for replacement in ["", "x/y", ".."] {
        let err = RenamePlan::new(dir.path(), &params(&["a.txt"], regex("^.*$", replacement)))
            .unwrap_err();
        assert_eq!(
            err,
            PlanError::InvalidName {
                file: "a.txt".into(),
                name: replacement.into(),
            }
        );
    }
}

#[test]
fn the_same_file_listed_twice_is_refused() {
    let dir = dir_with(&["a.txt"]);
    for second in ["a.txt", "./a.txt"] {
        let err =
            RenamePlan::new(dir.path(), &params(&["a.txt", second], regex("a", "b"))).unwrap_err();
        assert_eq!(err.to_string(), format!("{second}: listed more than once"));
    }
}

#[test]
fn files_outside_the_working_directory_are_refused() {
    let parent = TempDir::new().unwrap();
    let root = parent.path().join("work");
    let outside = parent.path().join("outside");
    for dir in [&root, &outside] {
        fs::create_dir(dir).unwrap();
        fs::write(dir.join("a.txt"), "a").unwrap();
    }
    let outside = fs::canonicalize(&outside).unwrap();
    #[cfg(unix)]
    {
        std::os::unix::fs::symlink(outside.join("a.txt"), root.join("link.txt")).unwrap();
        std::os::unix::fs::symlink(&outside, root.join("linkdir")).unwrap();
    }
    let absolute = outside.join("a.txt").display().to_string();
    let mut cases = vec![
        ("../outside/a.txt", outside.join("a.txt")),
        (absolute.as_str(), outside.join("a.txt")),
    ];
    if cfg!(unix) {
        cases.push(("link.txt", outside.join("a.txt")));
        cases.push(("linkdir/a.txt", outside.join("a.txt")));
    }
    for (file, resolved) in cases {
        let err = RenamePlan::new(&root, &params(&[file], regex("a", "b"))).unwrap_err();
        assert_eq!(
            err.to_string(),
            format!(
                "{file}: outside the working directory (it resolves to {}); \
                 batch-rename only renames files inside it",
                resolved.display()
            )
        );
    }
    assert_eq!(fs::read_to_string(outside.join("a.txt")).unwrap(), "a");
}

#[cfg(unix)]
#[test]
fn a_directory_link_leading_out_is_refused_even_for_a_link_back_in() {
    let parent = TempDir::new().unwrap();
    let root = parent.path().join("work");
    let outside = parent.path().join("outside");
    fs::create_dir_all(&root).unwrap();
    fs::create_dir_all(&outside).unwrap();
    fs::write(root.join("a.txt"), "a").unwrap();
    // work/out → outside, and outside/back.txt → work/a.txt: the file is
    // inside, but the rename would happen in outside/.
    std::os::unix::fs::symlink(&outside, root.join("out")).unwrap();
    std::os::unix::fs::symlink(root.join("a.txt"), outside.join("back.txt")).unwrap();
    let err = RenamePlan::new(&root, &params(&["out/back.txt"], regex("b", "c"))).unwrap_err();
    assert_eq!(
        err.to_string(),
        format!(
            "out/back.txt: outside the working directory (it resolves to {}); \
             batch-rename only renames files inside it",
            fs::canonicalize(&outside).unwrap().display()
        )
    );
}

#[test]
fn paths_inside_the_working_directory_are_fine_however_written() {
    let dir = dir_with(&["a.txt", "sub/b.txt"]);
    let absolute = dir.path().join("sub/b.txt").display().to_string();
    let plan = RenamePlan::new(
        dir.path(),
        &params(&["sub/../a.txt", &absolute], regex("^", "x-")),
    )
    .unwrap();
    assert_eq!(plan.renames.len(), 2);
}

#[test]
fn a_name_with_a_line_break_or_an_escape_is_shown_on_its_one_line() {
    let dir = dir_with(&["a\nb.txt"]);
    let rule = RenameRule::Suffix {
        suffix: "\r✓ x\u{1b}[2K".to_owned(),
    };
    let plan = RenamePlan::new(dir.path(), &params(&["a\nb.txt"], rule)).unwrap();
    assert_eq!(plan.lines(), ["a\\nb.txt → a\\nb\\r✓ x\\u{1b}[2K.txt"]);
    // The plan itself keeps the names exact.
    assert_eq!(plan.renames[0].to_display, "a\nb\r✓ x\u{1b}[2K.txt");
}

#[cfg(unix)]
#[test]
fn a_name_that_is_not_utf8_is_found_as_printed_and_keeps_its_bytes() {
    use std::os::unix::ffi::OsStrExt as _;
    let raw = |bytes: &[u8]| PathBuf::from(std::ffi::OsStr::from_bytes(bytes));
    let dir = TempDir::new().unwrap();
    let cwd = dir.path().join(raw(b"caf\xe9"));
    fs::create_dir_all(cwd.join(raw(b"d\xe9"))).unwrap();
    fs::write(cwd.join(raw(b"d\xe9/\xff.txt")), "x").unwrap();
    let rule = RenameRule::Suffix {
        suffix: "-old".to_owned(),
    };
    let plan = RenamePlan::new(&cwd, &params(&[r"d\xe9/\xff.txt"], rule)).unwrap();
    assert_eq!(plan.lines(), [r"d\xe9/\xff.txt → d\xe9/\xff-old.txt"]);
    assert_eq!(plan.renames[0].to_display, r"d\xe9/\xff-old.txt");
    assert_eq!(plan.renames[0].to, cwd.join(raw(b"d\xe9/\xff-old.txt")));
}
