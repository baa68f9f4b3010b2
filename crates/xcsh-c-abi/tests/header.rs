//! The committed header is what cbindgen makes of the Rust definitions,
//! and it compiles cleanly as C11 and as C++.

use std::path::{Path, PathBuf};
use std::process::Command;

fn crate_dir() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn header_path() -> PathBuf {
    crate_dir().join("include/xcsh_pack.h")
}

/// The header cbindgen generates now from `src/lib.rs` and `cbindgen.toml`.
fn generated() -> String {
    let config = cbindgen::Config::from_file(crate_dir().join("cbindgen.toml"))
        .expect("cbindgen.toml is readable");
    let bindings = cbindgen::Builder::new()
        .with_config(config)
        .with_src(crate_dir().join("src/lib.rs"))
        .generate()
        .expect("cbindgen generates the header");
    let mut out = Vec::new();
    bindings.write(&mut out);
    String::from_utf8(out).expect("the header is UTF-8")
}

#[test]
fn the_committed_header_matches_the_rust_definitions() {
    let fresh = generated();
    let path = header_path();
    if std::env::var_os("XCSH_BLESS").is_some() {
        std::fs::write(&path, &fresh).unwrap();
    }
    let committed = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        committed == fresh,
        "crates/xcsh-c-abi/include/xcsh_pack.h differs from crates/xcsh-c-abi/src/lib.rs: \
         regenerate it with `XCSH_BLESS=1 cargo test -p xcsh-c-abi --test header` and commit it"
    );
}

/// A compiler from the environment (`CC`/`CXX`) or the usual name.
fn compiler(variable: &str, default: &str) -> String {
    std::env::var(variable).unwrap_or_else(|_| default.to_owned())
}

/// Compiles `source` (with `extension`) including the header with `args`.
fn compile(program: &str, extension: &str, args: &[&str]) {
    let dir = tempfile_dir();
    let source = dir.join(format!("use.{extension}"));
    std::fs::write(
        &source,
        "#include \"xcsh_pack.h\"\n\
         XCSH_PACK_DEFINE_VERSION;\n\
         static const XcshTool TOOLS[1] = {{XCSH_STR_INIT(\"t\"), XCSH_STR_INIT(\"T\"), \
         XCSH_STR_INIT(\"d\"), XCSH_STR_INIT(\"{}\"), {XCSH_HINT_UNSET, XCSH_HINT_UNSET, \
         XCSH_HINT_UNSET, XCSH_HINT_UNSET}, NULL, NULL}};\n\
         XcshStatus xcsh_pack_entry(const XcshHost *host, XcshPack *pack) {\n\
             (void)host;\n\
             pack->name = XCSH_STR(\"p\");\n\
             pack->version = XCSH_STR(\"1\");\n\
             pack->tools = TOOLS;\n\
             pack->tool_count = 1;\n\
             return XCSH_OK;\n\
         }\n",
    )
    .unwrap();
    let output = Command::new(program)
        .args(args)
        .arg("-I")
        .arg(crate_dir().join("include"))
        .args(["-fsyntax-only"])
        .arg(&source)
        .output()
        .unwrap_or_else(|e| {
            panic!("cannot run {program} ({e}): install a C and C++ compiler (Debian: apt-get install gcc g++) or set CC/CXX")
        });
    assert!(
        output.status.success(),
        "{program} {args:?} refused the header:\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    std::fs::remove_dir_all(dir).ok();
}

fn tempfile_dir() -> PathBuf {
    use std::sync::atomic::{AtomicUsize, Ordering};
    static NEXT: AtomicUsize = AtomicUsize::new(0);
    let dir = std::env::temp_dir().join(format!(
        "xcsh-c-abi-header-{}-{}",
        std::process::id(),
        NEXT.fetch_add(1, Ordering::Relaxed)
    ));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

#[test]
fn the_header_compiles_as_strict_c11() {
    compile(
        &compiler("CC", "cc"),
        "c",
        &["-Wall", "-Wextra", "-Werror", "-std=c11", "-x", "c"],
    );
}

#[test]
fn the_header_compiles_as_cxx() {
    compile(
        &compiler("CXX", "c++"),
        "cpp",
        &["-Wall", "-Wextra", "-Werror", "-std=c++17", "-x", "c++"],
    );
}
