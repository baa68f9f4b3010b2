//! The user's secrets (the journal's key, the MCP token) live in the
//! private directory of xcsh's data directory, `{data}/private`, which no
//! isolated pack can read, in either mode of the sandbox: the hostile pack
//! tries to read both files and to list the directory, gets nothing, and
//! a journal entry forged without the key (an "approved by a person") does
//! not verify. An older data directory's key and token are moved in, so
//! its journals still verify; a private directory that is a link, or open
//! to others, is refused in one line.
//!
//! The data directory lies outside the temporary directory here (which
//! the namespaces replace with an empty one): where the pack could see it
//! but for the private directory's hiding.

use std::fs;
use std::os::unix::fs::PermissionsExt as _;
use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::json;
use xcsh_agent::journal::chain::{Key, unseal};

use super::fallback::{MODES, Mode, attack, run_command};
use super::hostile::call;
use super::sandbox::outside;
use crate::support::{Env, Output, arg, batch_rename, preview_line, resolve_line};

/// A journal key (64 hex digits) and an MCP token, as xcsh writes them.
const KEY: &str = "5f0c2a9d81e3b7460c1d2e3f405162738495a6b7c8d9eafb0c1d2e3f40516273\n";
const TOKEN: &str = "xcsh-test-token-not-for-packs\n";

/// `command` using the data directory `data`.
fn with_data(mut command: Command, data: &Path) -> Command {
    command.env("XCSH_DATA_DIR", data);
    command
}

/// Writes `text` to `path`, readable and writable by the user only.
fn write_private(path: &Path, text: &str) {
    fs::write(path, text).unwrap();
    fs::set_permissions(path, fs::Permissions::from_mode(0o600)).unwrap();
}

/// `xcsh journal --verify` in `env`'s working directory, over `data`.
fn verify(env: &Env, data: &Path) -> Output {
    env.run_command(with_data(env.command(&["journal", "--verify"]), data), "")
}

/// The journal of `env`'s (untrusted) working directory in `data`.
fn journal_in(env: &Env, data: &Path) -> PathBuf {
    let place = xcsh_agent::journal::Place::of(None, env.work(), false, Some(data));
    place.path().expect("a data directory").to_path_buf()
}

#[test]
fn no_pack_reads_the_journal_key_or_the_mcp_token_and_a_forged_entry_does_not_verify() {
    for mode in MODES {
        let env = Env::new();
        mode.configure(&env, "");
        let data_dir = outside();
        let data = fs::canonicalize(data_dir.path()).unwrap();
        let private = data.join("private");
        fs::create_dir(&private).unwrap();
        fs::set_permissions(&private, fs::Permissions::from_mode(0o700)).unwrap();
        let (key, token) = (private.join("journal.key"), private.join("mcp-token"));
        write_private(&key, KEY);
        write_private(&token, TOKEN);
        let answers = attack(
            &env,
            mode,
            with_data(run_command(&env, mode), &data),
            vec![
                call("read_path", json!({"text": arg(&key)})),
                call("read_path", json!({"text": arg(&token)})),
                call("list_dir", json!({"text": arg(&private)})),
            ],
        );
        let (unread, listed) = match mode {
            // An empty directory over the private one.
            Mode::Namespaces => ("No such file or directory (os error 2)", "listed: []"),
            Mode::Fallback | Mode::Unavailable => ("Permission denied (os error 13)", ""),
        };
        let listed = if listed.is_empty() {
            format!("{}: {unread}", private.display())
        } else {
            listed.to_owned()
        };
        assert_eq!(
            answers,
            [
                format!("{}: {unread}", key.display()),
                format!("{}: {unread}", token.display()),
                listed,
            ],
            "{mode:?}"
        );
        assert_eq!(fs::read_to_string(&key).unwrap(), KEY, "{mode:?}");
        assert_eq!(fs::read_to_string(&token).unwrap(), TOKEN, "{mode:?}");

        // The session's journal verifies with the key; an entry forged
        // without it (the empty key, the best a pack can guess) does not.
        let journal = journal_in(&env, &data);
        let verified = verify(&env, &data);
        assert_eq!(verified.code, Some(0), "{mode:?}: {verified:?}");
        let text = fs::read_to_string(&journal).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        let at = lines
            .iter()
            .position(|line| line.contains("\"decidedBy\":\"model\""))
            .expect("an apply decided by the model");
        let (unsealed, _) = unseal(lines[at]).unwrap();
        let forged_fields = unsealed.replace("\"decidedBy\":\"model\"", "\"decidedBy\":\"person\"");
        let previous = if at == 0 {
            String::new()
        } else {
            unseal(lines[at - 1]).unwrap().1.chain
        };
        let chain = Key::none().link(&previous, &forged_fields);
        let forged = format!(
            "{},\"chain\":\"{chain}\"}}",
            &forged_fields[..forged_fields.len() - 1]
        );
        let mut edited: Vec<String> = lines.iter().map(|line| (*line).to_owned()).collect();
        edited[at] = forged;
        fs::write(&journal, format!("{}\n", edited.join("\n"))).unwrap();
        let output = verify(&env, &data);
        assert_eq!(output.code, Some(1), "{mode:?}: {output:?}");
        assert_eq!(
            output.stderr,
            format!(
                "error: journal {}: entry {} breaks the chain: its seal does not match: it was edited, or the entry before it was replaced or moved\n",
                journal.display(),
                at + 1
            ),
            "{mode:?}"
        );
    }
}

/// A session over batch-rename (in process) in `env`, using `data`.
fn session(env: &Env, data: &Path, file: &str) {
    env.write(file, "a");
    let script = format!(
        "{}\n{}\n",
        preview_line(&[file], json!({"kind": "prefix", "prefix": "old-"})),
        resolve_line("apply", "ok")
    );
    let command = with_data(
        env.command(&["run", "--plugin", arg(&batch_rename()), "-"]),
        data,
    );
    let output = env.run_command(command, &script);
    assert_eq!(output.code, Some(0), "{output:?}");
}

#[test]
fn an_older_data_directory_s_key_and_token_are_moved_in_and_its_journal_still_verifies() {
    let env = Env::new();
    let data_dir = outside();
    let data = fs::canonicalize(data_dir.path()).unwrap();
    session(&env, &data, "a.txt");
    let private = data.join("private");
    let key = fs::read_to_string(private.join("journal.key")).unwrap();
    // As an older xcsh left it: the key in the data directory itself, and
    // a token beside it.
    fs::rename(private.join("journal.key"), data.join("journal.key")).unwrap();
    fs::remove_dir(&private).unwrap();
    write_private(&data.join("mcp-token"), TOKEN);

    let verified = verify(&env, &data);
    assert_eq!(verified.code, Some(0), "{verified:?}");
    assert_eq!(
        verified.stdout,
        format!(
            "Journal {} verifies: 2 entries chained, none edited, removed or moved.\n",
            journal_in(&env, &data).display()
        )
    );
    assert_eq!(
        fs::read_to_string(private.join("journal.key")).unwrap(),
        key
    );
    assert!(!data.join("journal.key").exists());
    let mode = fs::metadata(&private).unwrap().permissions().mode();
    assert_eq!(mode & 0o777, 0o700);

    // A session moves the token in too, and goes on with the same chain.
    session(&env, &data, "b.txt");
    assert_eq!(
        fs::read_to_string(private.join("mcp-token")).unwrap(),
        TOKEN
    );
    assert!(!data.join("mcp-token").exists());
    let verified = verify(&env, &data);
    assert!(
        verified.stdout.contains("verifies: 4 entries"),
        "{verified:?}"
    );
}

#[test]
fn a_private_directory_that_is_a_link_or_open_to_others_is_refused() {
    let env = Env::new();
    let data_dir = outside();
    let data = fs::canonicalize(data_dir.path()).unwrap();
    let private = data.join("private");
    let elsewhere = outside();
    std::os::unix::fs::symlink(elsewhere.path(), &private).unwrap();
    let run = || {
        env.run_command(
            with_data(
                env.command(&["run", "--plugin", arg(&batch_rename()), "-"]),
                &data,
            ),
            "",
        )
    };
    let output = run();
    assert_eq!(output.code, Some(1), "{output:?}");
    assert_eq!(
        output.stderr,
        format!(
            "error: refusing the private directory that is a symbolic link: {} (fix: remove it; xcsh makes it again)\n",
            private.display()
        )
    );
    assert_eq!(fs::read_dir(elsewhere.path()).unwrap().count(), 0);

    fs::remove_file(&private).unwrap();
    fs::create_dir(&private).unwrap();
    fs::set_permissions(&private, fs::Permissions::from_mode(0o750)).unwrap();
    let output = run();
    assert_eq!(output.code, Some(1), "{output:?}");
    assert_eq!(
        output.stderr,
        format!(
            "error: refusing the private directory open to its group or others: {} (fix: chmod 700 {})\n",
            private.display(),
            private.display()
        )
    );
    assert_eq!(fs::read_dir(&private).unwrap().count(), 0);
    // `xcsh journal --verify` reads no key through it either.
    let verified = verify(&env, &data);
    assert!(
        verified.stderr.contains(&format!(
            "refusing the private directory open to its group or others: {}",
            private.display()
        )),
        "{verified:?}"
    );
}

#[test]
fn a_data_directory_in_the_working_directory_keeps_its_secrets_from_the_pack() {
    for mode in MODES {
        let env = Env::new();
        mode.configure(&env, "");
        let work = fs::canonicalize(env.work()).unwrap();
        let data = work.join("xcsh-data");
        let private = data.join("private");
        fs::create_dir_all(&private).unwrap();
        fs::set_permissions(&private, fs::Permissions::from_mode(0o700)).unwrap();
        let key = private.join("journal.key");
        write_private(&key, KEY);
        let stolen = work.join("stolen");
        let beside = work.join("new.txt");
        let answers = attack(
            &env,
            mode,
            with_data(run_command(&env, mode), &data),
            vec![
                call("read_path", json!({"text": arg(&key)})),
                call("overwrite_in_place", json!({"text": arg(&key)})),
                call(
                    "plant_script",
                    json!({"paths": [arg(&key)], "script": "0000\n"}),
                ),
                call(
                    "move_path",
                    json!({"from": arg(&private), "to": arg(&stolen)}),
                ),
                call("move_path", json!({"from": arg(&data), "to": arg(&stolen)})),
                // A new file beside the data directory, read back.
                call(
                    "plant_script",
                    json!({"paths": [arg(&beside)], "script": "mine\n"}),
                ),
                call("read_path", json!({"text": arg(&beside)})),
            ],
        );
        let expected = match mode {
            Mode::Namespaces => [
                format!("{}: No such file or directory (os error 2)", key.display()),
                format!("{}: No such file or directory (os error 2)", key.display()),
                "planted".to_owned(),
                // A mount point of its own, and one bound read-only.
                format!(
                    "{}: Invalid cross-device link (os error 18)",
                    private.display()
                ),
                format!("{}: Device or resource busy (os error 16)", data.display()),
                "planted".to_owned(),
                "read: mine\n".to_owned(),
            ],
            Mode::Fallback | Mode::Unavailable => [
                format!("{}: Permission denied (os error 13)", key.display()),
                format!("{}: Permission denied (os error 13)", key.display()),
                format!("{}: Permission denied (os error 13)", key.display()),
                format!("{}: Permission denied (os error 13)", private.display()),
                format!("{}: Permission denied (os error 13)", data.display()),
                // Without namespaces nothing is made beside it (see
                // docs/isolation.md, Secrets).
                format!("{}: Permission denied (os error 13)", beside.display()),
                format!(
                    "{}: No such file or directory (os error 2)",
                    beside.display()
                ),
            ],
        };
        assert_eq!(answers, expected, "{mode:?}");
        assert_eq!(fs::read_to_string(&key).unwrap(), KEY, "{mode:?}");
        assert_eq!(
            fs::read_dir(&private).unwrap().count(),
            1,
            "{mode:?}: nothing planted beside the key"
        );
        assert!(!stolen.exists(), "{mode:?}");
    }
}
