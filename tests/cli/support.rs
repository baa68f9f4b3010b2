//! Running `xcsh` in isolation: its own working directory and home, no
//! inherited plugin path or log settings.

use std::fs;
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use tempfile::TempDir;
use xcsh_loader::discover::pack_file_name;

pub use xcsh_test_support::{c_pack_path, pack_path};

/// The binary under test.
pub const XCSH: &str = env!("CARGO_BIN_EXE_xcsh");

/// This process's `PATH` with no `bwrap` on it: each directory holding
/// one is replaced by a directory of links to everything else in it (made
/// once per test run, where a sandboxed pack sees it too: not in the
/// private `/tmp`), so that `sh`, `git` and the like are still found.
pub fn path_without_bwrap() -> std::ffi::OsString {
    static PATH: std::sync::OnceLock<std::ffi::OsString> = std::sync::OnceLock::new();
    PATH.get_or_init(|| {
        let path = std::env::var_os("PATH").unwrap_or_default();
        // The shadow directories must be visible inside the sandbox, whose
        // /tmp, /run and temporary directory are private and empty: a target
        // directory under /tmp (a clone there) would hide them and every
        // command a pack runs from PATH.
        let private = [
            PathBuf::from("/tmp"),
            PathBuf::from("/run"),
            fs::canonicalize(std::env::temp_dir()).unwrap_or_else(|_| "/tmp".into()),
        ];
        let visible = |dir: &Path| {
            let dir = fs::canonicalize(dir).unwrap_or_else(|_| dir.to_path_buf());
            !private.iter().any(|p| dir.starts_with(p))
        };
        let base = [
            PathBuf::from(env!("CARGO_TARGET_TMPDIR")),
            PathBuf::from("/var/tmp"),
        ]
        .into_iter()
        .find(|dir| visible(dir))
        .expect("no directory outside /tmp, /run and TMPDIR for the PATH without bwrap");
        let shadows = base.join(format!("xcsh-no-bwrap-{}", std::process::id()));
        let kept: Vec<PathBuf> = std::env::split_paths(&path)
            .enumerate()
            .map(|(n, dir)| {
                if !dir.join("bwrap").exists() {
                    return dir;
                }
                let shadow = shadows.join(n.to_string());
                fs::create_dir_all(&shadow).unwrap();
                for entry in fs::read_dir(&dir).unwrap().flatten() {
                    if entry.file_name() != "bwrap" {
                        let _ = std::os::unix::fs::symlink(
                            entry.path(),
                            shadow.join(entry.file_name()),
                        );
                    }
                }
                shadow
            })
            .collect();
        let joined = std::env::join_paths(&kept).unwrap();
        assert!(
            std::env::split_paths(&joined).all(|dir| !dir.join("bwrap").exists()),
            "a bwrap is still on {joined:?}"
        );
        joined
    })
    .clone()
}

/// A working directory and a home for one `xcsh` run.
pub struct Env {
    pub work: TempDir,
    pub home: TempDir,
}

/// What a finished run printed.
#[derive(Debug)]
pub struct Output {
    pub code: Option<i32>,
    pub stdout: String,
    pub stderr: String,
}

impl Env {
    pub fn new() -> Self {
        Self {
            work: TempDir::new().unwrap(),
            home: TempDir::new().unwrap(),
        }
    }

    pub fn work(&self) -> &Path {
        self.work.path()
    }

    /// The user's xcsh config directory as the `dirs` crate finds it under
    /// this home.
    pub fn user_config_dir(&self) -> PathBuf {
        self.user_base("config").join("xcsh")
    }

    /// The user's xcsh data directory (history, default plugin directory).
    pub fn user_data_dir(&self) -> PathBuf {
        self.user_base("data").join("xcsh")
    }

    #[cfg(target_os = "macos")]
    fn user_base(&self, _: &str) -> PathBuf {
        self.home.path().join("Library/Application Support")
    }

    #[cfg(not(target_os = "macos"))]
    fn user_base(&self, kind: &str) -> PathBuf {
        match kind {
            "config" => self.home.path().join(".config"),
            _ => self.home.path().join(".local/share"),
        }
    }

    /// `xcsh ARGS` in the working directory with an isolated environment.
    pub fn command(&self, args: &[&str]) -> Command {
        let mut command = Command::new(XCSH);
        command
            .args(args)
            .current_dir(self.work())
            .env("HOME", self.home.path())
            .env("XDG_CONFIG_HOME", self.user_base("config"))
            .env("XDG_DATA_HOME", self.user_base("data"))
            .env_remove("XCSH_PLUGIN_PATH")
            .env_remove("RUST_LOG")
            // The namespace sandbox is xcsh's own: no test may find a
            // system bubblewrap, nor be told of one.
            .env("PATH", path_without_bwrap())
            .env_remove("XCSH_BWRAP");
        command
    }

    /// Runs `xcsh ARGS` with `stdin` as standard input.
    pub fn run(&self, args: &[&str], stdin: &str) -> Output {
        self.run_command(self.command(args), stdin)
    }

    pub fn run_command(&self, mut command: Command, stdin: &str) -> Output {
        command
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        let mut child = spawn_when_not_busy(&mut command);
        child
            .stdin
            .take()
            .unwrap()
            .write_all(stdin.as_bytes())
            .unwrap();
        let output = child.wait_with_output().unwrap();
        Output {
            code: output.status.code(),
            stdout: String::from_utf8(output.stdout).unwrap(),
            stderr: String::from_utf8(output.stderr).unwrap(),
        }
    }

    /// Runs `xcsh trust` in the working directory, which must succeed.
    pub fn trust(&self) -> Output {
        let output = self.run(&["trust"], "");
        assert_eq!(output.code, Some(0), "{output:?}");
        output
    }

    /// The journal of sessions in this working directory while it is not
    /// trusted: a file of the user's data directory.
    pub fn user_journal(&self) -> PathBuf {
        let place =
            xcsh_agent::journal::Place::of(None, self.work(), false, Some(&self.user_data_dir()));
        place.path().expect("a data directory").to_path_buf()
    }

    /// The warning a session in this untrusted working directory gives
    /// before its first journal entry.
    pub fn journal_notice(&self) -> String {
        format!(
            "warning: {} is not a trusted directory, so nothing is written in it: this session's journal is kept in {} (xcsh journal there shows it; xcsh trust keeps it in the project)\n",
            canonical(self.work()).display(),
            self.user_journal().display()
        )
    }

    /// Writes `contents` to `relative` under the working directory.
    pub fn write(&self, relative: &str, contents: &str) -> PathBuf {
        write(&self.work().join(relative), contents)
    }

    /// Writes the user's config granting the isolated pack at `pack` the
    /// variables `names` of the agent's environment (an isolated pack gets
    /// no others but the basics).
    pub fn grant_env(&self, pack: &Path, names: &[&str]) {
        write(
            &self.user_config_dir().join("config.toml"),
            &format!(
                "[isolation.packs.{:?}]\nenv = {names:?}\n",
                pack.to_str().unwrap()
            ),
        );
    }

    /// The file names in the working directory, sorted, dot-files left out.
    pub fn files(&self) -> Vec<String> {
        let mut names: Vec<String> = fs::read_dir(self.work())
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .filter(|name| !name.starts_with('.'))
            .collect();
        names.sort();
        names
    }
}

/// Writes `contents` to `path`, creating its directory.
pub fn write(path: &Path, contents: &str) -> PathBuf {
    fs::create_dir_all(path.parent().unwrap()).unwrap();
    fs::write(path, contents).unwrap();
    path.to_path_buf()
}

/// Copies the built pack `name` into `dir` under its library file name.
pub fn copy_pack(name: &str, dir: &Path) -> PathBuf {
    fs::create_dir_all(dir).unwrap();
    let copy = dir.join(pack_file_name(name));
    fs::copy(pack_path(name), &copy).unwrap();
    copy
}

/// The built batch-rename pack.
pub fn batch_rename() -> PathBuf {
    pack_path("batch-rename")
}

/// This workspace's target directory: builds of other crates that use it
/// (`xcsh pack new`'s) reuse the dependencies already compiled there.
pub fn target_dir() -> PathBuf {
    Path::new(env!("CARGO_TARGET_TMPDIR"))
        .parent()
        .expect("the tmp directory is inside the target directory")
        .to_path_buf()
}

/// `path` as a command-line argument.
pub fn arg(path: &Path) -> &str {
    path.to_str().expect("test paths are UTF-8")
}

/// ` (built …)`, as the load report says it of the library at `path`: its
/// modification time in UTC.
pub fn built(path: &Path) -> String {
    let modified = fs::metadata(path).unwrap().modified().unwrap();
    format!(" (built {})", humantime::format_rfc3339_seconds(modified))
}

/// The canonical form of `path`, as the loader reports loaded packs.
pub fn canonical(path: &Path) -> PathBuf {
    fs::canonicalize(path).unwrap()
}

/// A `batch_rename_preview` call line.
pub fn preview_line(files: &[&str], rule: serde_json::Value) -> String {
    serde_json::json!({
        "tool": "batch_rename_preview",
        "arguments": {"files": files, "rule": rule},
    })
    .to_string()
}

/// A `resolve` call line.
pub fn resolve_line(action: &str, reason: &str) -> String {
    serde_json::json!({
        "tool": "resolve",
        "arguments": {"action": action, "reason": reason},
    })
    .to_string()
}

/// The JSON lines of standard output.
pub fn json_lines(stdout: &str) -> Vec<serde_json::Value> {
    stdout
        .lines()
        .map(|line| serde_json::from_str(line).unwrap_or_else(|e| panic!("{e}: {line}")))
        .collect()
}

/// Spawns `command`, trying again while its program is "Text file busy".
///
/// A test that copies an executable and runs it races the other test
/// threads: one that forks while the copy's write descriptor is open holds
/// that descriptor until its own `exec`, and the kernel refuses to execute
/// a file open for writing. The window is a fork's length, so a few tries
/// a few milliseconds apart always get through.
pub fn spawn_when_not_busy(command: &mut Command) -> std::process::Child {
    let mut tries = 0;
    loop {
        match command.spawn() {
            Err(error) if error.kind() == std::io::ErrorKind::ExecutableFileBusy && tries < 100 => {
                tries += 1;
                std::thread::sleep(std::time::Duration::from_millis(10));
            }
            spawned => return spawned.expect("spawn xcsh"),
        }
    }
}

/// `template` with another program, given `leading` arguments before
/// `template`'s own: the same arguments, directory and environment.
pub fn with_program(template: &Command, program: &Path, leading: &[&std::ffi::OsStr]) -> Command {
    let mut command = Command::new(program);
    command.args(leading).args(template.get_args());
    if let Some(dir) = template.get_current_dir() {
        command.current_dir(dir);
    }
    for (key, value) in template.get_envs() {
        match value {
            Some(value) => command.env(key, value),
            None => command.env_remove(key),
        };
    }
    command
}
