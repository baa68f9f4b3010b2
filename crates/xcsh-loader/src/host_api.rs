//! The host side of `CustomToolApi`: what a pack's factory and tools get.

use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Weak};

use abi_stable::sabi_trait::TD_Opaque;
use abi_stable::std_types::{RArc, RResult, RStr, RString};
use xcsh_core::{LogLevel, PackOptions, PendingActionStore, Session};
use xcsh_plugin_api::abi::v1::{
    CustomToolApi, CustomToolApi_TO, CustomToolApiHandle, CustomToolPendingActionBox, FfiError,
    FfiLogLevel,
};
use xcsh_plugin_api::abi::v2::{CustomToolApiV2, CustomToolApiV2_TO, CustomToolApiV2Handle};

use crate::crash::Origin;
use crate::{call_log, convert, pack_action};

/// The exact error a pack gets when it pushes in a runtime without a store.
pub const STORE_UNAVAILABLE: &str =
    "Pending action store unavailable for custom tools in this runtime.";

/// What a pack's tools are bound to: one session's store (or none) and a
/// working directory.
#[derive(Clone)]
pub struct HostBinding {
    store: Option<Weak<PendingActionStore>>,
    cwd: PathBuf,
    settings: Arc<PackOptions>,
}

impl HostBinding {
    /// Bound to `session`'s store and working directory. The binding does not
    /// keep the session alive: pushes after it ends get [`STORE_UNAVAILABLE`].
    pub fn for_session(session: &Session) -> Self {
        Self {
            store: Some(Arc::downgrade(session.store())),
            cwd: session.cwd().to_path_buf(),
            settings: session.pack_options(),
        }
    }

    /// A runtime with no store (e.g. listing tools): every push fails with
    /// [`STORE_UNAVAILABLE`].
    pub fn without_store(cwd: impl Into<PathBuf>) -> Self {
        Self {
            store: None,
            cwd: cwd.into(),
            settings: Arc::default(),
        }
    }

    /// The working directory.
    pub fn cwd(&self) -> &Path {
        &self.cwd
    }

    /// A host API for the pack called `pack`.
    /// What the session tells its packs (`--allow-outside-root`, their
    /// configuration tables).
    pub fn settings(&self) -> &PackOptions {
        &self.settings
    }

    pub(crate) fn api(&self, pack: &str, origin: &Arc<Origin>) -> CustomToolApiHandle {
        CustomToolApi_TO::from_ptr(RArc::new(self.host_api(pack, origin, "{}")), TD_Opaque)
    }

    /// The version 2 host API, handing the pack `config` (its table as
    /// JSON, already checked).
    pub(crate) fn api_v2(
        &self,
        pack: &str,
        origin: &Arc<Origin>,
        config: String,
    ) -> CustomToolApiV2Handle {
        CustomToolApiV2_TO::from_ptr(RArc::new(self.host_api(pack, origin, &config)), TD_Opaque)
    }

    fn host_api(&self, pack: &str, origin: &Arc<Origin>, config: &str) -> HostApi {
        HostApi {
            binding: self.clone(),
            pack: pack.into(),
            origin: Arc::clone(origin),
            config: config.into(),
        }
    }
}

impl fmt::Debug for HostBinding {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("HostBinding")
            .field("has_store", &self.store.is_some())
            .field("cwd", &self.cwd)
            .finish()
    }
}

#[derive(Clone)]
struct HostApi {
    binding: HostBinding,
    pack: Arc<str>,
    origin: Arc<Origin>,
    config: Arc<str>,
}

impl HostApi {
    fn push(&self, action: CustomToolPendingActionBox) -> Result<(), String> {
        let store = self
            .binding
            .store
            .as_ref()
            .and_then(Weak::upgrade)
            .ok_or_else(|| STORE_UNAVAILABLE.to_owned())?;
        let action = pack_action::adapt(action, &self.pack, &self.origin)?;
        // Only the thread of a call still running may push (see
        // `xcsh_core::push_for_running_call`): a call that timed out, or a
        // thread a tool left behind, gets `PUSH_OUTSIDE_CALL`.
        xcsh_core::push_for_running_call(&store, action).map_err(|refused| {
            tracing::warn!(pack = %self.pack, "{refused}");
            refused.to_string()
        })?;
        Ok(())
    }
}

// Called by pack code through `extern "C"` shims: a panic here would abort,
// so each entry point catches its own.
impl CustomToolApi for HostApi {
    fn push_pending_action(&self, action: CustomToolPendingActionBox) -> RResult<(), FfiError> {
        convert::push_outcome(std::panic::catch_unwind(std::panic::AssertUnwindSafe(
            || self.push(action),
        )))
    }

    fn cwd(&self) -> RString {
        convert::path(&self.binding.cwd)
    }

    fn log(&self, level: FfiLogLevel, message: RStr<'_>) {
        let (pack, message) = (&*self.pack, message.as_str());
        let level = convert::log_level(level);
        match level {
            LogLevel::Trace => tracing::trace!(target: "xcsh::pack", pack, "{message}"),
            LogLevel::Debug => tracing::debug!(target: "xcsh::pack", pack, "{message}"),
            LogLevel::Info => tracing::info!(target: "xcsh::pack", pack, "{message}"),
            LogLevel::Warn => tracing::warn!(target: "xcsh::pack", pack, "{message}"),
            LogLevel::Error => tracing::error!(target: "xcsh::pack", pack, "{message}"),
        }
        // A sink that panics must not unwind into the pack.
        let forwarded = std::panic::catch_unwind(|| call_log::forward(pack, level, message));
        if forwarded.is_err() {
            tracing::error!(pack, "log sink panicked");
        }
    }
}

// The same host, as version 2 packs see it.
impl CustomToolApiV2 for HostApi {
    fn push_pending_action(&self, action: CustomToolPendingActionBox) -> RResult<(), FfiError> {
        CustomToolApi::push_pending_action(self, action)
    }

    fn cwd(&self) -> RString {
        CustomToolApi::cwd(self)
    }

    fn log(&self, level: FfiLogLevel, message: RStr<'_>) {
        CustomToolApi::log(self, level, message);
    }

    fn outside_root_allowed(&self) -> bool {
        self.binding.settings.allow_outside_root
    }

    fn pack_config(&self) -> RString {
        RString::from(&*self.config)
    }
}
