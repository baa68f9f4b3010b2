//! A real local model server for the `xcsh agent` tests: llama-cpp-python's
//! OpenAI-compatible server serving SmolLM2-135M-Instruct, provisioned by
//! `scripts/model-fixture` under the target directory (`.ci/run` runs it
//! before the build; a test that finds nothing there runs it itself) and
//! started once per test process on a free loopback port.
//!
//! One server serves every test of a process, one test at a time
//! ([`ModelServer::lock`]): it answers one request at a time anyway, and
//! two-core machines have no room for a server per test. It is told to
//! exit when its standard input closes, so it never outlives the test
//! process, even one that is killed.

use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::{Mutex, MutexGuard, OnceLock};
use std::time::{Duration, Instant};

use crate::build::profile_dir;

/// The llama-cpp-python release the tests are written against.
pub const LLAMA_CPP_PYTHON: &str = "llama-cpp-python[server]==0.3.36";

/// How long a server may take to start answering.
const START_TIMEOUT: Duration = Duration::from_secs(120);

/// Starts `llama_cpp.server` with the arguments after `--`, in a thread of
/// a Python that exits when its standard input reaches its end.
const LAUNCHER: &str = r"
import os, runpy, sys, threading
def watch():
    sys.stdin.buffer.read()
    os._exit(0)
threading.Thread(target=watch, daemon=True).start()
sys.argv = ['llama_cpp.server'] + sys.argv[1:]
runpy.run_module('llama_cpp.server', run_name='__main__')
";

/// The provisioned environment: its Python and the model file.
fn fixture() -> &'static Path {
    static VENV: OnceLock<PathBuf> = OnceLock::new();
    VENV.get_or_init(|| {
        let target = profile_dir()
            .parent()
            .map(Path::to_path_buf)
            .expect("the profile directory has a parent");
        let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("../scripts/model-fixture");
        let output = Command::new("bash")
            .arg(&script)
            .arg(&target)
            .output()
            .unwrap_or_else(|error| panic!("cannot run {}: {error}", script.display()));
        // The script's own one line says which step failed.
        assert!(
            output.status.success(),
            "{}",
            String::from_utf8_lossy(&output.stderr).trim()
        );
        PathBuf::from(String::from_utf8_lossy(&output.stdout).trim())
    })
}

/// A running model server; stopped when dropped.
#[derive(Debug)]
pub struct ModelServer {
    child: Child,
    _stdin: ChildStdin,
    port: u16,
}

impl ModelServer {
    /// The process's server, started at the first call, held by this test
    /// until the guard drops (a test that failed holding it does not stop
    /// the others).
    ///
    /// # Panics
    ///
    /// When the fixture cannot be provisioned or the server does not start.
    pub fn lock() -> MutexGuard<'static, Self> {
        static SERVER: OnceLock<Mutex<ModelServer>> = OnceLock::new();
        SERVER
            .get_or_init(|| Mutex::new(Self::start()))
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Starts a server with the `chatml-function-calling` chat format (the
    /// one that honours a named `tool_choice`) and waits until it answers.
    ///
    /// # Panics
    ///
    /// When the fixture cannot be provisioned or the server does not start.
    fn start() -> Self {
        let venv = fixture();
        let port = free_port();
        let log_path = venv
            .parent()
            .expect("the fixture is in the target directory")
            .join(format!("model-server-{port}.log"));
        let log = std::fs::File::create(&log_path).expect("the server's log file");
        let mut child = Command::new(venv.join("bin/python"))
            .arg("-c")
            .arg(LAUNCHER)
            .arg("--model")
            .arg(venv.join("model.gguf"))
            .args(["--chat_format", "chatml-function-calling"])
            .args(["--host", "127.0.0.1", "--port", &port.to_string()])
            // One thread: llama.cpp's threads wait for each other by
            // spinning, and on a loaded two-core machine two of them made
            // a one-second answer take minutes.
            .args(["--n_ctx", "4096", "--n_threads", "1", "--verbose", "false"])
            .stdin(Stdio::piped())
            .stdout(Stdio::null())
            .stderr(log)
            .spawn()
            .expect("cannot start the model server");
        let stdin = child.stdin.take().expect("piped");
        let started = Instant::now();
        loop {
            if let Some(status) = child.try_wait().expect("the server's status") {
                let log = std::fs::read_to_string(&log_path).unwrap_or_default();
                panic!("the model server exited ({status}) before answering:\n{log}");
            }
            if TcpStream::connect(("127.0.0.1", port)).is_ok() {
                break;
            }
            assert!(
                started.elapsed() < START_TIMEOUT,
                "the model server did not listen within {START_TIMEOUT:?}"
            );
            std::thread::sleep(Duration::from_millis(100));
        }
        Self {
            child,
            _stdin: stdin,
            port,
        }
    }

    /// The OpenAI-compatible base URL, `http://127.0.0.1:{port}/v1`.
    pub fn base_url(&self) -> String {
        format!("http://127.0.0.1:{}/v1", self.port)
    }

    /// The server's root, `http://127.0.0.1:{port}`.
    pub fn root_url(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }
}

impl Drop for ModelServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A loopback port nobody listens on right now.
pub fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .and_then(|listener| listener.local_addr())
        .map(|address| address.port())
        .expect("a free loopback port")
}
