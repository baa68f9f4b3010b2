//! The host table a C pack gets, and the functions in it.

use std::ffi::c_char;
use std::sync::{Arc, Weak};

use abi_stable::sabi_trait::TD_Opaque;
use abi_stable::std_types::RStr;
use xcsh_c_abi::{
    XCSH_INVALID_ARGUMENT, XCSH_LOG_DEBUG, XCSH_LOG_INFO, XCSH_LOG_TRACE, XCSH_LOG_WARN, XCSH_OK,
    XCSH_OUTSIDE_ROOT, XCSH_PACK_ABI_VERSION, XCSH_REFUSED, XCSH_STORE_UNAVAILABLE, XcshCall,
    XcshHost, XcshLogLevel, XcshOutput, XcshPendingAction, XcshStatus, XcshStr, XcshString,
};
use xcsh_plugin_api::abi::v1::{CustomToolPendingAction_TO, ExecuteContextRef, FfiLogLevel};
use xcsh_plugin_api::abi::v2::CustomToolApiV2Handle;

use super::action::{CAction, HostRef};
use super::output::Output;
use crate::STORE_UNAVAILABLE;

/// One session's host table (or, with no API, the table the loader reads
/// a pack's name with): the C table and what its pointers point into.
pub(crate) struct HostTable {
    table: XcshHost,
    api: Option<CustomToolApiV2Handle>,
    pack: Arc<str>,
    outside_root_allowed: bool,
    me: Weak<HostTable>,
    // What `table.cwd` and `table.config_json` borrow.
    _cwd: Box<[u8]>,
    _config: Box<str>,
}

// SAFETY: the table's pointers point into the `HostTable` itself, which is
// never changed once built; the API handle is `Send + Sync`.
unsafe impl Send for HostTable {}
// SAFETY: as above.
unsafe impl Sync for HostTable {}

impl HostTable {
    /// The table for the pack `pack`, pushing through `api` (none: every
    /// push gets `STORE_UNAVAILABLE`).
    pub(crate) fn new(
        api: Option<CustomToolApiV2Handle>,
        pack: &str,
        cwd: &std::path::Path,
        outside_root_allowed: bool,
        config: &str,
    ) -> Arc<Self> {
        let (cwd, config): (Box<[u8]>, Box<str>) = (path_bytes(cwd).into(), config.into());
        Arc::new_cyclic(|me: &Weak<Self>| Self {
            table: XcshHost {
                abi_version: XCSH_PACK_ABI_VERSION,
                host_data: me.as_ptr().cast(),
                cwd: XcshStr::from_bytes(&cwd),
                outside_root_allowed,
                config_json: XcshStr::new(&config),
                log,
                push_pending_action,
                is_cancelled,
                confine_path,
                free_string,
                add_text,
                set_details,
                set_error,
            },
            api,
            pack: pack.into(),
            outside_root_allowed,
            me: me.clone(),
            _cwd: cwd,
            _config: config,
        })
    }

    /// The C table.
    pub(crate) fn table(&self) -> *const XcshHost {
        &raw const self.table
    }

    /// The table, kept alive by the reference.
    fn host_ref(&self) -> Option<HostRef> {
        let keep: Arc<Self> = self.me.upgrade()?;
        Some(HostRef {
            table: self.table(),
            _keep: keep,
        })
    }
}

/// What `XcshCall::call_data` points to during one `execute`.
pub(crate) struct CallData<'a, 'b> {
    pub(crate) context: &'a ExecuteContextRef<'b>,
}

/// The host table behind `host`, if it is one of ours.
///
/// # Safety
///
/// `host` is `NULL` or a table the host handed out, still alive.
unsafe fn table_of<'a>(host: *const XcshHost) -> Option<&'a HostTable> {
    // SAFETY: the caller promises a live table of ours; its `host_data`
    // points to the `HostTable` holding it.
    unsafe { host.as_ref()?.host_data.cast::<HostTable>().as_ref() }
}

/// The bytes of an `XcshStr` as UTF-8: `Ok(None)` for `NULL`.
///
/// # Safety
///
/// As [`XcshStr::bytes`].
unsafe fn text<'a>(string: XcshStr, what: &str) -> Result<Option<&'a str>, String> {
    // SAFETY: the caller's promise.
    match unsafe { string.bytes() } {
        None => Ok(None),
        Some(bytes) => std::str::from_utf8(bytes)
            .map(Some)
            .map_err(|_| format!("{what} is not UTF-8")),
    }
}

/// Writes `message` into `out` (a string the pack frees with
/// `free_string`); `NULL` is ignored.
///
/// # Safety
///
/// `out` is `NULL` or points to a writable `XcshString`.
unsafe fn write_string(out: *mut XcshString, message: &str) {
    // SAFETY: the caller's promise.
    unsafe { write_bytes(out, message.as_bytes()) }
}

/// Writes `message` (bytes: a path need not be UTF-8) into `out`, as
/// [`write_string`].
///
/// # Safety
///
/// `out` is `NULL` or points to a writable `XcshString`.
unsafe fn write_bytes(out: *mut XcshString, message: &[u8]) {
    let mut bytes = Vec::with_capacity(message.len() + 1);
    bytes.extend_from_slice(message);
    bytes.push(0);
    let len = message.len();
    let ptr = Box::into_raw(bytes.into_boxed_slice()).cast::<c_char>();
    // SAFETY: the caller promises `out` is NULL or writable.
    match unsafe { out.as_mut() } {
        Some(out) => *out = XcshString { ptr, len },
        // SAFETY: not handed out: freed as it was made.
        None => unsafe { free_string(&mut XcshString { ptr, len }) },
    }
}

unsafe extern "C" fn log(host: *const XcshHost, level: XcshLogLevel, message: XcshStr) {
    let _ = std::panic::catch_unwind(|| {
        // SAFETY: the pack passes the table it was given and a string it
        // owns for the call.
        let (Some(host), Ok(Some(message))) = (unsafe { table_of(host) }, unsafe {
            text(message, "message")
        }) else {
            return;
        };
        let level = match level {
            XCSH_LOG_TRACE => FfiLogLevel::Trace,
            XCSH_LOG_DEBUG => FfiLogLevel::Debug,
            XCSH_LOG_INFO => FfiLogLevel::Info,
            XCSH_LOG_WARN => FfiLogLevel::Warn,
            _ => FfiLogLevel::Error,
        };
        match &host.api {
            Some(api) => api.log(level, RStr::from_str(message)),
            None => tracing::info!(target: "xcsh::pack", pack = %host.pack, "{message}"),
        }
    });
}

unsafe extern "C" fn push_pending_action(
    call: *const XcshCall,
    action: *const XcshPendingAction,
    message: *mut XcshString,
) -> XcshStatus {
    let pushed = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        // SAFETY: the pack passes its call and an action it filled.
        unsafe { push(call, action) }
    }));
    let (status, text) = match pushed {
        Ok(Ok(())) => return XCSH_OK,
        Ok(Err(refused)) => refused,
        Err(_) => (XCSH_REFUSED, "host failed to push the action".to_owned()),
    };
    // SAFETY: `message` is NULL or the pack's writable string.
    unsafe { write_string(message, &text) };
    status
}

/// The push: the action adopted first (so `release` runs whatever
/// happens), then handed to the session's store.
///
/// # Safety
///
/// `call` and `action` are NULL or valid for the call.
unsafe fn push(
    call: *const XcshCall,
    action: *const XcshPendingAction,
) -> Result<(), (XcshStatus, String)> {
    let invalid = |what: &str| {
        (
            XCSH_INVALID_ARGUMENT,
            format!("push_pending_action: {what}"),
        )
    };
    // SAFETY: the caller's promise.
    let action = unsafe { action.as_ref() }.ok_or_else(|| invalid("action is NULL"))?;
    // SAFETY: the caller's promise; `host` is the call's table.
    let host = unsafe { call.as_ref().and_then(|call| table_of(call.host)) };
    let host = host
        .and_then(HostTable::host_ref)
        .ok_or_else(|| invalid("call is NULL or not a call of this host"));
    let host = match host {
        Ok(host) => host,
        Err(error) => {
            if let Some(release) = action.release {
                // SAFETY: the host owns `user_data` now and releases it once.
                unsafe { release(action.user_data) };
            }
            return Err(error);
        }
    };
    let mut adopted = CAction {
        label: String::new(),
        source: None,
        details: None,
        apply: action.apply,
        reject: action.reject,
        release: action.release,
        user_data: action.user_data,
        host,
    };
    let strings = |string, what| {
        // SAFETY: the pack's strings, valid for the call.
        unsafe { text(string, what) }
            .map(|text| text.map(str::to_owned))
            .map_err(|e| invalid(&e))
    };
    adopted.label = strings(action.label, "label")?.unwrap_or_default();
    adopted.source = strings(action.source_tool_name, "source tool name")?;
    adopted.details = strings(action.details_json, "details")?;
    if adopted.apply.is_none() {
        return Err(invalid("the action has no apply function"));
    }
    // SAFETY: `call.host` was checked above.
    let table = unsafe { table_of((*call).host) }.expect("checked above");
    let Some(api) = &table.api else {
        return Err((XCSH_STORE_UNAVAILABLE, STORE_UNAVAILABLE.to_owned()));
    };
    let boxed = CustomToolPendingAction_TO::from_value(adopted, TD_Opaque);
    api.push_pending_action(boxed)
        .into_result()
        .map_err(|error| {
            let status = if error.message.as_str() == STORE_UNAVAILABLE {
                XCSH_STORE_UNAVAILABLE
            } else {
                XCSH_REFUSED
            };
            (status, error.message.into_string())
        })
}

unsafe extern "C" fn is_cancelled(call: *const XcshCall) -> bool {
    // SAFETY: the pack passes the call it is running; its `call_data` is
    // the `CallData` the tool adapter made for it.
    let data = unsafe {
        call.as_ref()
            .and_then(|c| c.call_data.cast::<CallData<'_, '_>>().as_ref())
    };
    data.is_some_and(|data| data.context.is_cancelled())
}

unsafe extern "C" fn confine_path(
    call: *const XcshCall,
    path: XcshStr,
    resolved: *mut XcshString,
) -> XcshStatus {
    let outcome = std::panic::catch_unwind(|| {
        // SAFETY: the pack passes its call, its table and its string.
        let call = unsafe { call.as_ref() }.ok_or("confine_path: call is NULL".to_owned())?;
        // SAFETY: as above.
        let host = unsafe { table_of(call.host) }.ok_or("confine_path: not a call of this host")?;
        // SAFETY: as above.
        let cwd = path_of(unsafe { call.cwd.bytes() }.unwrap_or_default());
        // SAFETY: as above.
        let path = unsafe { path.bytes() }.ok_or("confine_path: path is NULL")?;
        Ok::<_, String>(xcsh_safe_fs::confine(
            &cwd,
            path_of(path),
            host.outside_root_allowed,
        ))
    });
    let (status, text) = match outcome {
        Ok(Ok(Ok(path))) => (XCSH_OK, path_bytes(&path).into_owned()),
        Ok(Ok(Err(error @ xcsh_safe_fs::ConfineError::Outside { .. }))) => {
            (XCSH_OUTSIDE_ROOT, error.to_string().into_bytes())
        }
        Ok(Ok(Err(error))) => (XCSH_REFUSED, error.to_string().into_bytes()),
        Ok(Err(message)) => (XCSH_INVALID_ARGUMENT, message.into_bytes()),
        Err(_) => (XCSH_REFUSED, b"host failed to resolve the path".to_vec()),
    };
    // SAFETY: `resolved` is NULL or the pack's writable string.
    unsafe { write_bytes(resolved, &text) };
    status
}

unsafe extern "C" fn free_string(string: *mut XcshString) {
    // SAFETY: the pack passes NULL or a string the host wrote.
    let Some(string) = (unsafe { string.as_mut() }) else {
        return;
    };
    if !string.ptr.is_null() {
        let bytes = std::ptr::slice_from_raw_parts_mut(string.ptr.cast::<u8>(), string.len + 1);
        // SAFETY: `write_string` made it from a boxed slice of `len + 1`
        // bytes; the pack frees each once.
        drop(unsafe { Box::from_raw(bytes) });
    }
    *string = XcshString {
        ptr: std::ptr::null_mut(),
        len: 0,
    };
}

/// The `Output` behind `out`.
///
/// # Safety
///
/// `out` is NULL or the `XcshOutput` the host lent for the running call.
unsafe fn output<'a>(out: *mut XcshOutput) -> Option<&'a mut Output> {
    // SAFETY: the caller's promise: it is an `Output` of ours.
    unsafe { out.cast::<Output>().as_mut() }
}

unsafe extern "C" fn add_text(out: *mut XcshOutput, text: XcshStr) -> XcshStatus {
    // SAFETY: the pack passes its output and its string.
    let (Some(out), text) = (unsafe { output(out) }, unsafe { self::text(text, "text") }) else {
        return XCSH_INVALID_ARGUMENT;
    };
    out.add_text(text.map(|t| t.unwrap_or_default()).ok());
    XCSH_OK
}

unsafe extern "C" fn set_details(out: *mut XcshOutput, json: XcshStr) -> XcshStatus {
    // SAFETY: the pack passes its output and its string.
    let (Some(out), json) = (unsafe { output(out) }, unsafe { text(json, "details") }) else {
        return XCSH_INVALID_ARGUMENT;
    };
    match json {
        Ok(Some(json)) => out.set_details(Some(json)),
        Ok(None) => return XCSH_INVALID_ARGUMENT,
        Err(_) => out.set_details(None),
    }
    XCSH_OK
}

unsafe extern "C" fn set_error(out: *mut XcshOutput, is_error: bool) {
    // SAFETY: the pack passes its output.
    if let Some(out) = unsafe { output(out) } {
        out.set_error(is_error);
    }
}

/// The bytes of `path` (on Unix, exactly; elsewhere a path is Unicode).
pub(crate) fn path_bytes(path: &std::path::Path) -> std::borrow::Cow<'_, [u8]> {
    #[cfg(unix)]
    {
        use std::os::unix::ffi::OsStrExt as _;
        std::borrow::Cow::Borrowed(path.as_os_str().as_bytes())
    }
    #[cfg(not(unix))]
    {
        std::borrow::Cow::Owned(path.to_string_lossy().into_owned().into_bytes())
    }
}

/// The path `bytes` name (on Unix, exactly; elsewhere read as UTF-8).
fn path_of(bytes: &[u8]) -> std::path::PathBuf {
    #[cfg(unix)]
    {
        use std::os::unix::ffi::OsStrExt as _;
        std::path::PathBuf::from(std::ffi::OsStr::from_bytes(bytes))
    }
    #[cfg(not(unix))]
    {
        std::path::PathBuf::from(String::from_utf8_lossy(bytes).into_owned())
    }
}
