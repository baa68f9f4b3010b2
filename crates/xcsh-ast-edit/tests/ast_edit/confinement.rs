//! Paths that resolve outside the working directory (`..`, absolute paths,
//! symlinks leading out) are refused unless the user allows them; previews
//! name the real file a symlink leads to.

use std::fs;
use std::path::{Path, PathBuf};

use serde_json::{Value, json};
use tempfile::TempDir;
use xcsh_ast_edit::AstEditOptions;

use crate::support::Fixture;

const SOURCE: &str = "fn f() { old(1); }\n";

fn rename_old(path: &str) -> Value {
    json!({"pattern": "old($A)", "rewrite": "new($A)", "language": "rust", "path": path})
}

/// A directory beside the fixture's, holding `a.rs`.
fn outside() -> (TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("a.rs");
    fs::write(&file, SOURCE).unwrap();
    let file = fs::canonicalize(file).unwrap();
    (dir, file)
}

/// `to` relative to `from` through `..`: both are temporary directories
/// with the same parent.
fn dot_dot_path(from: &Path, to: &Path) -> String {
    assert_eq!(from.parent(), to.parent());
    format!("../{}/a.rs", to.file_name().unwrap().to_string_lossy())
}

fn refusal(path: &str, resolved: &Path) -> String {
    format!(
        "path {path} is outside the working directory: it resolves to {} \
         (start xcsh with --allow-outside-root to allow this)",
        resolved.display()
    )
}

#[test]
fn dot_dot_absolute_and_escaping_symlinks_are_refused() {
    let fx = Fixture::new(&[("in.rs", SOURCE)]);
    let (dir, file) = outside();
    #[cfg(unix)]
    {
        std::os::unix::fs::symlink(&file, fx.path("link.rs")).unwrap();
        std::os::unix::fs::symlink(dir.path(), fx.path("linkdir")).unwrap();
    }
    let dot_dot = dot_dot_path(&fx.path(""), dir.path());
    let absolute = file.display().to_string();
    let mut cases = vec![
        (dot_dot.as_str(), file.clone()),
        (absolute.as_str(), file.clone()),
    ];
    if cfg!(unix) {
        cases.push(("link.rs", file.clone()));
        cases.push(("linkdir", file.parent().unwrap().to_path_buf()));
    }
    for (path, resolved) in cases {
        let result = fx.ast_edit(rename_old(path));
        assert!(result.is_error, "{path}");
        assert_eq!(result.text(), refusal(path, &resolved));
    }
    assert!(fx.pending().is_empty());
    assert_eq!(fs::read_to_string(&file).unwrap(), SOURCE);
}

#[test]
fn a_path_through_the_root_and_back_in_is_allowed() {
    let fx = Fixture::new(&[("src/a.rs", SOURCE)]);
    let name = fx
        .path("")
        .file_name()
        .unwrap()
        .to_string_lossy()
        .into_owned();
    let result = fx.ast_edit(rename_old(&format!("../{name}/src/a.rs")));
    assert!(
        result
            .text()
            .starts_with("AST Edit: 1 replacement in 1 file\n\nsrc/a.rs: "),
        "{}",
        result.text()
    );
    let absolute = fx.path("src/a.rs").display().to_string();
    assert!(!fx.ast_edit(rename_old(&absolute)).is_error);
}

#[test]
fn outside_paths_are_edited_when_the_user_allows_it() {
    let allowed = AstEditOptions::default().allow_outside_root(true);
    let fx = Fixture::with_options(&[], allowed);
    let (dir, file) = outside();
    let preview = fx.ast_edit(rename_old(&dot_dot_path(&fx.path(""), dir.path())));
    assert!(!preview.is_error, "{}", preview.text());
    // Outside the root, the file is named by its absolute path.
    assert_eq!(
        preview.details.unwrap()["files"][0]["path"],
        file.display().to_string()
    );
    assert_eq!(
        fx.resolve("apply", "allowed").text(),
        "Applied 1 replacement(s) in 1 file(s)."
    );
    assert_eq!(fs::read_to_string(&file).unwrap(), "fn f() { new(1); }\n");
}

#[cfg(unix)]
#[test]
fn a_symlink_inside_the_root_previews_the_real_file() {
    let fx = Fixture::new(&[("real/a.rs", SOURCE)]);
    std::os::unix::fs::symlink(fx.path("real/a.rs"), fx.path("link.rs")).unwrap();
    let preview = fx.ast_edit(rename_old("link.rs"));
    let text = preview.text();
    assert!(
        text.starts_with("AST Edit: 1 replacement in 1 file\n\nreal/a.rs: 1 replacement\n"),
        "{text}"
    );
    assert!(
        text.contains("--- a/real/a.rs\n+++ b/real/a.rs\n"),
        "{text}"
    );
    assert!(!text.contains("link.rs"), "{text}");
    assert_eq!(preview.details.unwrap()["files"][0]["path"], "real/a.rs");
}
