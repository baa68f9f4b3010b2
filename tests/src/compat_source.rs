//! The pack under `tests/compat/pack`, its source untouched, built against
//! the *current* `xcsh-plugin-api`: code written for 1.0.0 must compile
//! against every 1.x (the library built against 1.0.0 itself is
//! [`compat_pack_path`](crate::compat_pack_path)).

use std::fs;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use xcsh_loader::discover::pack_file_name;

use crate::build::{cargo_build, profile_dir, run};

/// The copy's package name: not the original's, so its library does not
/// replace the one built against 1.0.0 in the shared target directory.
pub const COMPAT_SOURCE_PACK: &str = "compat-pack-v1-current-sdk";

/// The dependency line of the compat pack's manifest that the copy points
/// at the current API instead.
const FROZEN_DEPENDENCY: &str = r#"xcsh-plugin-api = { path = "../xcsh-plugin-api-1.0.0" }"#;

/// Builds the copy once per test process and returns its library. Panics
/// (showing cargo's errors) if the 1.0.0 source no longer compiles.
pub fn compat_source_pack_path() -> PathBuf {
    static BUILT: OnceLock<PathBuf> = OnceLock::new();
    BUILT
        .get_or_init(|| {
            let profile = profile_dir();
            // Under the target directory (not a temporary one), so the
            // next run rebuilds only what changed.
            let crate_dir = profile.join(COMPAT_SOURCE_PACK);
            write_copy(&crate_dir);
            run(cargo_build(&profile, &crate_dir), "the 1.0.0 pack source");
            profile.join(pack_file_name(COMPAT_SOURCE_PACK))
        })
        .clone()
}

/// Writes the copy: the compat pack's manifest with its name and its
/// `xcsh-plugin-api` dependency replaced (and a workspace of its own), its
/// `src/` as it is, and the main workspace's lock file, so it builds with
/// the versions the workspace uses.
fn write_copy(crate_dir: &Path) {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap();
    let original = root.join("tests/compat/pack");
    let manifest = fs::read_to_string(original.join("Cargo.toml")).unwrap();
    let api = root.join("crates/xcsh-plugin-api");
    let manifest = replace_once(
        &manifest,
        FROZEN_DEPENDENCY,
        &format!(
            "xcsh-plugin-api = {{ path = {:?} }}",
            api.display().to_string()
        ),
    );
    let manifest = replace_once(
        &manifest,
        r#"name = "compat-pack-v1""#,
        &format!("name = {COMPAT_SOURCE_PACK:?}"),
    );
    let _ = fs::remove_dir_all(crate_dir.join("src"));
    copy_dir(&original.join("src"), &crate_dir.join("src"));
    fs::write(
        crate_dir.join("Cargo.toml"),
        format!("{manifest}\n[workspace]\n"),
    )
    .unwrap();
    fs::copy(root.join("Cargo.lock"), crate_dir.join("Cargo.lock")).unwrap();
}

fn replace_once(text: &str, from: &str, to: &str) -> String {
    assert_eq!(
        text.matches(from).count(),
        1,
        "tests/compat/pack/Cargo.toml should contain `{from}` once"
    );
    text.replacen(from, to, 1)
}

fn copy_dir(from: &Path, to: &Path) {
    fs::create_dir_all(to).unwrap();
    for entry in fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_dir(&entry.path(), &target);
        } else {
            fs::copy(entry.path(), target).unwrap();
        }
    }
}
