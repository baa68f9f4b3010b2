//! The acts of `reach.rs` where ownership matters, by a pack run as an
//! ordinary user (`as_user.rs`) in the namespace sandbox: the user's own files
//! outside the working directory, and the user's own xcsh configuration
//! and registry in its home, keep their metadata and contents, and killing
//! its parent reaches only its sandbox. These need root to switch user (CI
//! runs as root); run otherwise, each prints `skipped: …` and passes.

use serde_json::json;

use super::as_user::UserEnv;
use super::file_state::{FileState, set_xattr};
use super::hostile::{call, run_between, texts};
use super::reach::{READ_ONLY, assert_refused, each, metadata_attacks, session};
use crate::support::arg;

/// The user's environment, its packs checked to run in namespaces.
fn user_env() -> Option<UserEnv> {
    let user = UserEnv::new()?;
    let line = user.status();
    assert!(
        line.contains(", isolated, sandboxed (namespaces, Landlock ABI "),
        "{line}"
    );
    Some(user)
}

#[test]
fn as_an_ordinary_user_its_own_file_outside_keeps_its_metadata() {
    let Some(user) = user_env() else { return };
    let notes = user.write_own("notes.txt", "the user's notes\n");
    set_xattr(&notes, "user.kept", "yes");
    let before = FileState::of(&notes);
    assert_eq!(before.uid, user.user.uid);
    // To root: someone else.
    let attacks = metadata_attacks(&notes, 0);
    let refusals = each(&notes, READ_ONLY, attacks.len());
    let output = run_between(&user.env, user.isolated(), &session(attacks));
    user.assert_ran_as_user();
    assert_refused(&output, &refusals);
    assert_eq!(FileState::of(&notes), before);
}

#[test]
fn as_an_ordinary_user_its_xcsh_config_and_registry_are_read_only_to_the_pack() {
    let Some(user) = user_env() else { return };
    let config = user.write_own(".config/xcsh/config.toml", "# the user's own\n");
    let registry = user.write_own(
        ".local/share/xcsh/packs.json",
        "{\"version\":1,\"packs\":{}}\n",
    );
    assert_eq!(config, user.env.user_config_dir().join("config.toml"));
    assert_eq!(
        registry,
        user.env
            .user_data_dir()
            .join(xcsh_sources::REGISTRY_FILE_NAME)
    );
    let before = [FileState::of(&config), FileState::of(&registry)];
    let plant = |path: &std::path::Path| {
        call(
            "plant_script",
            json!({"paths": [arg(path)], "script": "forged"}),
        )
    };
    let attacks = vec![
        plant(&config),
        plant(&registry),
        call("chmod", json!({"path": arg(&registry), "mode": 0o666})),
    ];
    let refusals = [each(&config, READ_ONLY, 1), each(&registry, READ_ONLY, 2)].concat();
    let output = run_between(&user.env, user.isolated(), &session(attacks));
    user.assert_ran_as_user();
    assert_refused(&output, &refusals);
    assert_eq!([FileState::of(&config), FileState::of(&registry)], before);
}

#[test]
fn as_an_ordinary_user_killing_its_parent_reaches_only_its_sandbox() {
    let Some(user) = user_env() else { return };
    let output = run_between(
        &user.env,
        user.isolated(),
        &[call("kill_parent", json!({})), call("progress", json!({}))],
    );
    user.assert_ran_as_user();
    let texts = texts(&output);
    assert!(
        texts[1] == "signalled 1" || texts[1].starts_with("Tool kill_parent crashed: "),
        "{texts:?}"
    );
    assert!(texts[2].starts_with("done in "), "{texts:?}");
}
