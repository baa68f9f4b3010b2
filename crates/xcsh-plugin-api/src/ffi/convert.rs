//! SDK values into their FFI form: the pack side of the boundary. (The
//! host side, FFI into these values, is the loader's `convert` module.)

use abi_stable::std_types::{ROption, RVec};

use crate::abi::v1::{FfiContentBlock, FfiLogLevel, FfiToolHints, FfiToolOutput};
use crate::sdk::{ContentBlock, LogLevel, ToolHints, ToolOutput};

impl From<ContentBlock> for FfiContentBlock {
    fn from(block: ContentBlock) -> Self {
        match block {
            ContentBlock::Text(text) => Self::Text { text: text.into() },
            ContentBlock::Image { data, mime_type } => Self::Image {
                data: data.into(),
                mime_type: mime_type.into(),
            },
        }
    }
}

impl From<ToolOutput> for FfiToolOutput {
    fn from(output: ToolOutput) -> Self {
        Self {
            content: output
                .content
                .into_iter()
                .map(Into::into)
                .collect::<RVec<_>>(),
            details_json: match output.details {
                Some(details) => ROption::RSome(details.to_string().into()),
                None => ROption::RNone,
            },
        }
    }
}

impl From<ToolHints> for FfiToolHints {
    fn from(hints: ToolHints) -> Self {
        Self {
            read_only: hints.read_only.into(),
            destructive: hints.destructive.into(),
            idempotent: hints.idempotent.into(),
            open_world: hints.open_world.into(),
        }
    }
}

impl From<LogLevel> for FfiLogLevel {
    fn from(level: LogLevel) -> Self {
        match level {
            LogLevel::Trace => Self::Trace,
            LogLevel::Debug => Self::Debug,
            LogLevel::Info => Self::Info,
            LogLevel::Warn => Self::Warn,
            LogLevel::Error => Self::Error,
        }
    }
}
