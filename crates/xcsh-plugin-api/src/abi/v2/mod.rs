//! ABI version 2: version 1 and what the host tells a pack of the user's
//! settings (`--allow-outside-root`, the pack's configuration table).
//!
//! Only the host API, the factory and the root module are new; tools and
//! pending actions are v1's, unchanged. A host that knows version 2 loads
//! both versions; a host that only knows version 1 refuses a version 2
//! pack by its version strings, in one line. Frozen once released, as v1.

mod factory;
mod host_api;
mod root;

pub use factory::{CustomToolFactoryV2, CustomToolFactoryV2Ref};
pub use host_api::{CustomToolApiV2, CustomToolApiV2_TO, CustomToolApiV2Handle};
pub use root::{ABI_VERSION, ToolPackModuleV2, ToolPackModuleV2Ref};
