//! The plain C interface of xcsh tool packs: the `#[repr(C)]` types behind
//! `include/xcsh_pack.h`.
//!
//! A pack written in C, C++, Zig, Go (`-buildmode=c-shared`) or any other
//! language that makes a shared library with a C interface exports two
//! symbols: [`XCSH_PACK_ABI_VERSION_SYMBOL`] (a `const uint32_t` holding
//! the version of this interface it was built against) and
//! [`XCSH_PACK_ENTRY_SYMBOL`], a function receiving the host's table
//! ([`XcshHost`]) and filling the pack's ([`XcshPack`]). The loader
//! (`xcsh-loader`) recognises such a library by those symbols and gives its
//! tools everything a Rust pack's tools get.
//!
//! The header is generated from this file by cbindgen; a test compares the
//! committed header with a fresh generation. The interface is versioned on
//! its own ([`XCSH_PACK_ABI_VERSION`]), apart from this crate's version and
//! `xcsh-plugin-api`'s.
//!
//! # Ownership
//!
//! - Every [`XcshStr`] handed across is *borrowed*: valid for the duration
//!   of the call it is passed to (or returned from), owned by the side that
//!   made it. The receiver copies what it keeps. Nothing is freed across
//!   the boundary, with two exceptions below.
//! - The pack's table ([`XcshPack`], its [`XcshTool`]s and their strings)
//!   must stay valid for as long as the library is loaded, which is the
//!   rest of the process (libraries are never unloaded): static storage.
//! - An [`XcshString`] the host fills (a push's refusal message, a confined
//!   path) is allocated by the host and freed by the pack with the host
//!   table's `free_string`, exactly once.
//! - A pending action's `user_data` belongs to the host from the moment
//!   `push_pending_action` is called, whatever it returns: the host calls
//!   the action's `release` (when not `NULL`) exactly once, after the last
//!   `apply` or `reject`, or when the action is dropped unresolved (the
//!   session ended, or the push was refused: then before the push
//!   returns).
//! - [`XcshOutput`] is the host's; the pack only writes to it through the
//!   host table's `add_text`, `set_details` and `set_error`.
//!
//! Strings are UTF-8 with their length in bytes; they need not end in NUL
//! (those the host allocates do, for convenience).
#![deny(missing_docs)]
#![no_std]

use core::ffi::{c_char, c_void};

/// The version of the C interface this header describes. A pack exports
/// the version it was built against in `xcsh_pack_abi_version`; the loader
/// refuses one it does not know.
pub const XCSH_PACK_ABI_VERSION: u32 = 1;

/// The name of the data symbol holding the pack's interface version.
pub const XCSH_PACK_ABI_VERSION_SYMBOL: &str = "xcsh_pack_abi_version";

/// The name of the pack's entry function.
pub const XCSH_PACK_ENTRY_SYMBOL: &str = "xcsh_pack_entry";

/// What a host function or the pack's entry returns: [`XCSH_OK`] or one of
/// the error codes below.
pub type XcshStatus = i32;

/// Done.
pub const XCSH_OK: XcshStatus = 0;
/// `push_pending_action` in a runtime with no pending-action store (e.g.
/// `xcsh tools`); the message is `Pending action store unavailable for
/// custom tools in this runtime.`
pub const XCSH_STORE_UNAVAILABLE: XcshStatus = 1;
/// The host refused the request; the message says why (e.g. a push from a
/// thread that is not running a call, an empty label, invalid details
/// JSON). From the entry: the pack refuses to load, `XcshPack::error`
/// saying why.
pub const XCSH_REFUSED: XcshStatus = 2;
/// An argument was invalid: a `NULL` pointer where one is required, or a
/// string that is not UTF-8.
pub const XCSH_INVALID_ARGUMENT: XcshStatus = 3;
/// `confine_path`: the path leads outside the working directory (and the
/// user did not start xcsh with `--allow-outside-root`).
pub const XCSH_OUTSIDE_ROOT: XcshStatus = 4;

/// A log line's level.
pub type XcshLogLevel = u32;

/// Finest detail.
pub const XCSH_LOG_TRACE: XcshLogLevel = 0;
/// Debugging.
pub const XCSH_LOG_DEBUG: XcshLogLevel = 1;
/// Information.
pub const XCSH_LOG_INFO: XcshLogLevel = 2;
/// A warning.
pub const XCSH_LOG_WARN: XcshLogLevel = 3;
/// An error.
pub const XCSH_LOG_ERROR: XcshLogLevel = 4;

/// A tool hint's value: not stated, false or true.
pub type XcshHint = i8;

/// The tool does not say.
pub const XCSH_HINT_UNSET: XcshHint = -1;
/// False.
pub const XCSH_HINT_FALSE: XcshHint = 0;
/// True.
pub const XCSH_HINT_TRUE: XcshHint = 1;

/// A borrowed UTF-8 string: `len` bytes at `ptr`, valid while the call it
/// crosses lasts. `ptr` may be `NULL` only where a field says the string is
/// optional (then `len` is 0 and the string is absent).
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct XcshStr {
    /// The first byte (need not be followed by NUL).
    pub ptr: *const c_char,
    /// The length in bytes.
    pub len: usize,
}

/// A string the host allocated for the pack: `len` bytes at `ptr`,
/// followed by a NUL. The pack frees it with the host table's
/// `free_string`, once; `free_string` leaves `{NULL, 0}` behind.
#[repr(C)]
#[derive(Debug)]
pub struct XcshString {
    /// The first byte, or `NULL` when the host wrote nothing.
    pub ptr: *mut c_char,
    /// The length in bytes, without the NUL.
    pub len: usize,
}

/// The result a tool call, an apply or a reject is building. Opaque: the
/// host owns it; the pack writes to it only with the host table's
/// `add_text`, `set_details` and `set_error`, during the call it was given
/// to.
#[derive(Debug)]
pub struct XcshOutput {
    _opaque: [u8; 0],
}

/// One running tool call, lent to `execute` for the duration of the call.
#[repr(C)]
#[derive(Debug)]
pub struct XcshCall {
    /// The host table of the session the call runs in.
    pub host: *const XcshHost,
    /// The call's id.
    pub call_id: XcshStr,
    /// The session's working directory, byte for byte: on Unix a path
    /// need not be UTF-8.
    pub cwd: XcshStr,
    /// The host's own; the pack never reads it.
    pub call_data: *const c_void,
}

/// A pending action's apply or reject: `reason` is the resolving reason;
/// the result goes into `out`. A reject that writes nothing keeps the
/// host's default discard message.
pub type XcshResolveFn = unsafe extern "C" fn(
    host: *const XcshHost,
    user_data: *mut c_void,
    reason: XcshStr,
    out: *mut XcshOutput,
);

/// Frees a pending action's `user_data`; called exactly once.
pub type XcshReleaseFn = unsafe extern "C" fn(user_data: *mut c_void);

/// A tool's `execute`: the arguments as a JSON object (already checked
/// against the tool's schema), the result into `out`. It may run on
/// several threads at once.
pub type XcshExecuteFn = unsafe extern "C" fn(
    call: *const XcshCall,
    tool_data: *mut c_void,
    arguments_json: XcshStr,
    out: *mut XcshOutput,
);

/// A change a tool proposes, to be applied or discarded by `resolve`. The
/// pack fills one (usually on its stack) and hands it to
/// `push_pending_action`, which copies the strings.
#[repr(C)]
#[derive(Debug)]
pub struct XcshPendingAction {
    /// What the user sees in the pending list, e.g. `Batch Rename: 2
    /// files`; must not be empty.
    pub label: XcshStr,
    /// The tool that made it; optional (`ptr` `NULL`).
    pub source_tool_name: XcshStr,
    /// A JSON value shown with the action; optional (`ptr` `NULL`).
    pub details_json: XcshStr,
    /// Carries the change out; required. An error result (`set_error`)
    /// keeps the action pending.
    pub apply: Option<
        unsafe extern "C" fn(
            host: *const XcshHost,
            user_data: *mut c_void,
            reason: XcshStr,
            out: *mut XcshOutput,
        ),
    >,
    /// Runs on discard; optional.
    pub reject: Option<
        unsafe extern "C" fn(
            host: *const XcshHost,
            user_data: *mut c_void,
            reason: XcshStr,
            out: *mut XcshOutput,
        ),
    >,
    /// Frees `user_data`; optional.
    pub release: Option<unsafe extern "C" fn(user_data: *mut c_void)>,
    /// The pack's own, passed to `apply`, `reject` and `release`.
    pub user_data: *mut c_void,
}

/// What the host offers the pack. The table passed to `xcsh_pack_entry`
/// and the one in each [`XcshCall`] stay valid while the session's tools
/// and pending actions live; a pack may keep the pointer in an action's
/// `user_data`. Every function may be called from any thread.
#[repr(C)]
#[derive(Debug)]
pub struct XcshHost {
    /// The interface version the host speaks ([`XCSH_PACK_ABI_VERSION`]).
    pub abi_version: u32,
    /// The host's own; the pack never reads it.
    pub host_data: *const c_void,
    /// The session's working directory, byte for byte: on Unix a path
    /// need not be UTF-8.
    pub cwd: XcshStr,
    /// True when the user started xcsh with `--allow-outside-root`.
    pub outside_root_allowed: bool,
    /// The pack's configuration table as a JSON object (`{}` without one).
    pub config_json: XcshStr,
    /// Writes a line to the host's log (and, during a call, to the front
    /// end's log stream), naming the pack.
    pub log: unsafe extern "C" fn(host: *const XcshHost, level: XcshLogLevel, message: XcshStr),
    /// Pushes a pending action onto the session's stack (the newest is
    /// resolved first). Only the thread running `call` may push. On an
    /// error, `message` (when not `NULL`) receives the host's one-line
    /// message, which the pack frees with `free_string`; without a store
    /// the status is [`XCSH_STORE_UNAVAILABLE`] and the message exactly
    /// `Pending action store unavailable for custom tools in this
    /// runtime.` The host owns `action->user_data` from this call on.
    pub push_pending_action: unsafe extern "C" fn(
        call: *const XcshCall,
        action: *const XcshPendingAction,
        message: *mut XcshString,
    ) -> XcshStatus,
    /// True once the host cancelled `call` (the user stopped it, or its
    /// time ran out): stop early.
    pub is_cancelled: unsafe extern "C" fn(call: *const XcshCall) -> bool,
    /// Resolves `path` (relative to the working directory, or absolute) as
    /// the agent's own tools do: `.` and `..` applied, every link
    /// followed, a name printed with `\xNN` escapes taken back as its
    /// bytes. Writes the resolved path (its bytes, which on Unix need not
    /// be UTF-8), or on [`XCSH_OUTSIDE_ROOT`] or [`XCSH_INVALID_ARGUMENT`]
    /// the host's message, to `resolved` (freed with `free_string`).
    pub confine_path: unsafe extern "C" fn(
        call: *const XcshCall,
        path: XcshStr,
        resolved: *mut XcshString,
    ) -> XcshStatus,
    /// Frees a string the host allocated and sets it to `{NULL, 0}`; a
    /// `NULL` pointer or an empty string is ignored.
    pub free_string: unsafe extern "C" fn(string: *mut XcshString),
    /// Appends a text block to the result.
    pub add_text: unsafe extern "C" fn(out: *mut XcshOutput, text: XcshStr) -> XcshStatus,
    /// Sets the result's details, a JSON value; JSON the host cannot parse
    /// makes the result an error naming the problem.
    pub set_details: unsafe extern "C" fn(out: *mut XcshOutput, json: XcshStr) -> XcshStatus,
    /// Marks the result as an error (its text blocks are the message).
    pub set_error: unsafe extern "C" fn(out: *mut XcshOutput, is_error: bool),
}

/// A tool's hints for clients (MCP annotations); each an [`XcshHint`].
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct XcshHints {
    /// It changes nothing.
    pub read_only: XcshHint,
    /// What it changes may be lost.
    pub destructive: XcshHint,
    /// Calling it again with the same arguments changes nothing more.
    pub idempotent: XcshHint,
    /// It reaches outside the working directory (e.g. the network).
    pub open_world: XcshHint,
}

/// One tool of the pack.
#[repr(C)]
#[derive(Debug)]
pub struct XcshTool {
    /// The name the model calls (letters, digits, `_` and `-`).
    pub name: XcshStr,
    /// A short human label.
    pub label: XcshStr,
    /// What the tool does, for the model.
    pub description: XcshStr,
    /// The JSON Schema of its arguments (an object schema).
    pub parameters_json: XcshStr,
    /// Its hints.
    pub hints: XcshHints,
    /// Runs the tool; required.
    pub execute: Option<
        unsafe extern "C" fn(
            call: *const XcshCall,
            tool_data: *mut c_void,
            arguments_json: XcshStr,
            out: *mut XcshOutput,
        ),
    >,
    /// The pack's own, passed to `execute`.
    pub tool_data: *mut c_void,
}

/// The pack's table, filled by `xcsh_pack_entry`. Everything it points to
/// must stay valid for the rest of the process (static storage).
#[repr(C)]
#[derive(Debug)]
pub struct XcshPack {
    /// The pack's name, e.g. `batch-rename-c`.
    pub name: XcshStr,
    /// The pack's own version, e.g. `0.1.0`.
    pub version: XcshStr,
    /// The first of `tool_count` tools.
    pub tools: *const XcshTool,
    /// How many tools `tools` holds; at least one.
    pub tool_count: usize,
    /// Why the entry returned an error (optional; read before the entry's
    /// return only).
    pub error: XcshStr,
}

/// The pack's entry function, exported as `xcsh_pack_entry`: fills `pack`
/// and returns [`XCSH_OK`], or [`XCSH_REFUSED`] with `pack->error` saying
/// why. The host may call it more than once (once per session); each call
/// must fill the same name, version and tools.
pub type XcshPackEntryFn =
    unsafe extern "C" fn(host: *const XcshHost, pack: *mut XcshPack) -> XcshStatus;

impl XcshStr {
    /// A borrowed view of `text`.
    pub const fn new(text: &str) -> Self {
        Self {
            ptr: text.as_ptr().cast(),
            len: text.len(),
        }
    }

    /// A borrowed view of `bytes` (a path's, which need not be UTF-8).
    pub const fn from_bytes(bytes: &[u8]) -> Self {
        Self {
            ptr: bytes.as_ptr().cast(),
            len: bytes.len(),
        }
    }

    /// The absent string (`{NULL, 0}`).
    pub const fn none() -> Self {
        Self {
            ptr: core::ptr::null(),
            len: 0,
        }
    }

    /// The bytes, or `None` for `ptr` `NULL`.
    ///
    /// # Safety
    ///
    /// Unless `ptr` is `NULL`, it must point to `len` readable bytes that
    /// stay valid and unchanged for `'a`.
    pub unsafe fn bytes<'a>(self) -> Option<&'a [u8]> {
        if self.ptr.is_null() {
            return None;
        }
        // SAFETY: the caller promises `len` readable bytes at `ptr` for 'a.
        Some(unsafe { core::slice::from_raw_parts(self.ptr.cast::<u8>(), self.len) })
    }
}
