//! Running `xcsh` as an ordinary user: `xcsh-test`, created with the
//! system's `useradd` when missing, switched to with `setpriv`. Only root
//! can do either, so where the tests do not run as root [`UserEnv::new`]
//! prints why and gives `None`, and the test that asked passes without
//! running. CI runs them as root: there they run, and a user that cannot
//! be created fails them.

use std::ffi::OsStr;
use std::os::unix::fs::PermissionsExt as _;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

use tempfile::TempDir;

use super::hostile::hostile;
use super::namespaces::kill_parent_line;
use crate::support::{Env, XCSH, arg, batch_rename, copy_pack, with_program};

/// The ordinary user's name.
pub const NAME: &str = "xcsh-test";

/// The ordinary user's ids.
#[derive(Clone, Copy, Debug)]
pub struct User {
    pub uid: u32,
    pub gid: u32,
}

/// `id -u NAME` or `id -g NAME`, when the user exists.
fn id(flag: &str) -> Option<u32> {
    let output = Command::new("id").args([flag, NAME]).output().ok()?;
    String::from_utf8(output.stdout).ok()?.trim().parse().ok()
}

fn existing() -> Option<User> {
    Some(User {
        uid: id("-u")?,
        gid: id("-g")?,
    })
}

/// The ordinary user, created if missing; `None` when the tests do not
/// run as root. As root, a user that cannot be created fails the test
/// (CI runs as root: these tests must not quietly pass there).
fn user() -> Option<User> {
    static USER: OnceLock<Option<User>> = OnceLock::new();
    *USER.get_or_init(|| {
        if !rustix::process::geteuid().is_root() {
            return None;
        }
        // Another test process may be adding it at the same time (then
        // `useradd` fails and the user is there), or hold the lock on
        // `/etc/passwd` (then it fails and is tried again).
        for _ in 0..50 {
            if let Some(user) = existing() {
                return Some(user);
            }
            let status = Command::new("useradd")
                .args([
                    "--user-group",
                    "--no-create-home",
                    "--shell",
                    "/usr/sbin/nologin",
                ])
                .arg(NAME)
                .status()
                .unwrap_or_else(|e| panic!("useradd, to create user {NAME}: {e}"));
            if !status.success() {
                std::thread::sleep(std::time::Duration::from_millis(100));
            }
        }
        Some(existing().unwrap_or_else(|| panic!("useradd could not create user {NAME}")))
    })
}

/// Whether `user` can run this build's `xcsh` and read the packs where
/// they are (not when the target directory is under a home of mode 0700).
fn reaches_the_build(user: User) -> bool {
    let mut test = Command::new("test");
    test.args([
        "-x",
        XCSH,
        "-a",
        "-r",
        arg(&hostile()),
        "-a",
        "-r",
        arg(&batch_rename()),
    ]);
    as_user(&test, user)
        .status()
        .is_ok_and(|status| status.success())
}

/// `template` run as `user` (`setpriv`, with the user's groups and no
/// capability).
fn as_user(template: &Command, user: User) -> Command {
    let (uid, gid) = (user.uid.to_string(), user.gid.to_string());
    let program = Path::new(template.get_program());
    let leading: [&OsStr; 7] = [
        "--reuid".as_ref(),
        uid.as_ref(),
        "--regid".as_ref(),
        gid.as_ref(),
        "--init-groups".as_ref(),
        "--".as_ref(),
        program.as_os_str(),
    ];
    with_program(template, Path::new("setpriv"), &leading)
}

/// A working directory and a home owned by the ordinary user, outside the
/// temporary directory (which a pack's sandbox replaces with an empty one
/// of its own: there the pack would find nothing rather than be refused),
/// and the binary and packs it runs.
pub struct UserEnv {
    /// The working directory and home, both the user's.
    pub env: Env,
    pub user: User,
    xcsh: PathBuf,
    batch_rename: PathBuf,
    hostile: PathBuf,
    /// Holds the above; removed last.
    _base: TempDir,
}

impl UserEnv {
    /// The ordinary user's environment, or `None` (with the reason
    /// printed) where the tests do not run as root.
    pub fn new() -> Option<Self> {
        let Some(user) = user() else {
            eprintln!(
                "skipped: this test runs as user {NAME}, and only root can create it and switch to it"
            );
            return None;
        };
        let base = TempDir::new_in("/var/tmp").expect("/var/tmp, which every user may reach");
        std::fs::set_permissions(base.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
        let (xcsh, batch_rename, hostile) = if reaches_the_build(user) {
            (PathBuf::from(XCSH), batch_rename(), hostile())
        } else {
            let bin = base.path().join("bin");
            std::fs::create_dir(&bin).unwrap();
            std::fs::copy(XCSH, bin.join("xcsh")).unwrap();
            (
                bin.join("xcsh"),
                copy_pack("batch-rename", &bin),
                copy_pack("fixture-hostile", &bin),
            )
        };
        let owned = || {
            let dir = TempDir::new_in(base.path()).unwrap();
            std::os::unix::fs::chown(dir.path(), Some(user.uid), Some(user.gid)).unwrap();
            dir
        };
        let env = Env {
            work: owned(),
            home: owned(),
        };
        Some(Self {
            env,
            user,
            xcsh,
            batch_rename,
            hostile,
            _base: base,
        })
    }

    /// `xcsh ARGS` as the user, in its working directory with its home.
    pub fn command(&self, args: &[&str]) -> Command {
        let template = with_program(&self.env.command(args), &self.xcsh, &[]);
        as_user(&template, self.user)
    }

    /// `xcsh run --isolate` over batch-rename and the hostile pack, as the
    /// user.
    pub fn isolated(&self) -> Command {
        self.command(&[
            "run",
            "--isolate",
            "--plugin",
            arg(&self.batch_rename),
            "--plugin",
            arg(&self.hostile),
            "-",
        ])
    }

    /// The status line `xcsh tools` gives the hostile pack's
    /// `kill_parent`, as the user.
    pub fn status(&self) -> String {
        let command = self.command(&["tools", "--isolate", "--plugin", arg(&self.hostile)]);
        kill_parent_line(&self.env.run_command(command, ""))
    }

    /// Checks the session ran as the user: the journal it kept for the
    /// (untrusted) working directory in the user's data directory is the
    /// user's.
    pub fn assert_ran_as_user(&self) {
        use std::os::unix::fs::MetadataExt as _;
        let journal = self.env.user_journal();
        let owner = std::fs::metadata(&journal).unwrap().uid();
        assert_eq!(
            owner,
            self.user.uid,
            "{} is not {NAME}'s",
            journal.display()
        );
    }

    /// Writes `contents` to `relative` under the user's home, every
    /// directory and the file the user's, as the user's own would be.
    pub fn write_own(&self, relative: &str, contents: &str) -> PathBuf {
        let home = self.env.home.path();
        let path = crate::support::write(&home.join(relative), contents);
        for owned in path
            .ancestors()
            .take_while(|p| p.starts_with(home) && *p != home)
        {
            std::os::unix::fs::chown(owned, Some(self.user.uid), Some(self.user.gid)).unwrap();
        }
        path
    }
}
