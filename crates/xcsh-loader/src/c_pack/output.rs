//! The result a C pack writes into an `XcshOutput`.

use abi_stable::std_types::{ROption, RResult, RString, RVec};
use xcsh_plugin_api::abi::v1::{FfiContentBlock, FfiError, FfiToolOutput};

/// What the pack wrote: text blocks, details, the error flag.
#[derive(Debug, Default)]
pub(crate) struct Output {
    texts: Vec<String>,
    details: Option<String>,
    is_error: bool,
    /// The first thing the pack wrote that was not UTF-8.
    invalid: Option<&'static str>,
}

impl Output {
    /// Appends a text block (`None`: bytes that were not UTF-8).
    pub(crate) fn add_text(&mut self, text: Option<&str>) {
        match text {
            Some(text) => self.texts.push(text.to_owned()),
            None => self.invalid = self.invalid.or(Some("text")),
        }
    }

    /// Sets the details JSON (`None`: bytes that were not UTF-8).
    pub(crate) fn set_details(&mut self, json: Option<&str>) {
        match json {
            Some(json) => self.details = Some(json.to_owned()),
            None => self.invalid = self.invalid.or(Some("details")),
        }
    }

    /// Marks the result as an error, or not.
    pub(crate) fn set_error(&mut self, is_error: bool) {
        self.is_error = is_error;
    }

    /// Whether the pack wrote nothing at all (a reject keeping the host's
    /// message).
    pub(crate) fn is_empty(&self) -> bool {
        self.texts.is_empty() && self.details.is_none() && !self.is_error && self.invalid.is_none()
    }

    /// The result as the v1 ABI's: an error's message is its text blocks.
    pub(crate) fn into_result(self) -> RResult<FfiToolOutput, FfiError> {
        if let Some(what) = self.invalid {
            return RResult::RErr(FfiError::error(format!(
                "pack returned {what} that is not UTF-8"
            )));
        }
        if self.is_error {
            let message = if self.texts.is_empty() {
                "the pack reported an error without a message".to_owned()
            } else {
                self.texts.join("\n")
            };
            return RResult::RErr(FfiError::error(message));
        }
        RResult::ROk(FfiToolOutput {
            content: self
                .texts
                .into_iter()
                .map(|text| FfiContentBlock::Text {
                    text: RString::from(text),
                })
                .collect::<RVec<_>>(),
            details_json: self.details.map(RString::from).into(),
        })
    }

    /// A reject's result: `None` when the pack wrote nothing.
    pub(crate) fn into_optional(self) -> RResult<ROption<FfiToolOutput>, FfiError> {
        if self.is_empty() {
            return RResult::ROk(ROption::RNone);
        }
        match self.into_result() {
            RResult::ROk(output) => RResult::ROk(ROption::RSome(output)),
            RResult::RErr(error) => RResult::RErr(error),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_error_is_its_text_and_invalid_utf8_is_named() {
        let mut output = Output::default();
        output.add_text(Some("no such file"));
        output.set_error(true);
        assert_eq!(
            output.into_result().unwrap_err().message.as_str(),
            "no such file"
        );
        let mut output = Output::default();
        output.add_text(None);
        assert_eq!(
            output.into_result().unwrap_err().message.as_str(),
            "pack returned text that is not UTF-8"
        );
        assert!(matches!(
            Output::default().into_optional(),
            RResult::ROk(ROption::RNone)
        ));
    }
}
