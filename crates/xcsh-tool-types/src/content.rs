//! Content blocks: what a tool result shows the model.

use serde::{Deserialize, Serialize};

/// One block of tool-result content.
///
/// Serialises in the shape model providers use:
/// `{"type": "text", "text": …}` or
/// `{"type": "image", "data": …, "mimeType": …}`.
///
/// `Text` holds its text directly (`ContentBlock::Text(text)`), as in the
/// SDK's first release: code written against xcsh-plugin-api 1.0.0 matches
/// and builds it unchanged.
#[derive(Clone, Debug, PartialEq, Eq, Deserialize)]
#[serde(from = "OwnedWire")]
pub enum ContentBlock {
    /// Plain text.
    Text(String),
    /// An image, base64-encoded.
    Image {
        /// Base64-encoded image bytes.
        data: String,
        /// The image's MIME type, e.g. `image/png`.
        mime_type: String,
    },
}

/// The serialised shape, borrowed (serialising copies no text).
#[derive(Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
enum Wire<'a> {
    Text {
        text: &'a str,
    },
    Image {
        data: &'a str,
        #[serde(rename = "mimeType")]
        mime_type: &'a str,
    },
}

/// The serialised shape, owned, for reading.
#[derive(Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
enum OwnedWire {
    Text {
        text: String,
    },
    Image {
        data: String,
        #[serde(rename = "mimeType")]
        mime_type: String,
    },
}

impl Serialize for ContentBlock {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            Self::Text(text) => Wire::Text { text },
            Self::Image { data, mime_type } => Wire::Image { data, mime_type },
        }
        .serialize(serializer)
    }
}

impl From<OwnedWire> for ContentBlock {
    fn from(wire: OwnedWire) -> Self {
        match wire {
            OwnedWire::Text { text } => Self::Text(text),
            OwnedWire::Image { data, mime_type } => Self::Image { data, mime_type },
        }
    }
}

impl ContentBlock {
    /// A text block.
    pub fn text(text: impl Into<String>) -> Self {
        Self::Text(text.into())
    }

    /// An image block from base64 data and its MIME type.
    pub fn image(data: impl Into<String>, mime_type: impl Into<String>) -> Self {
        Self::Image {
            data: data.into(),
            mime_type: mime_type.into(),
        }
    }

    /// The text of a text block, `None` for other blocks.
    pub fn as_text(&self) -> Option<&str> {
        match self {
            Self::Text(text) => Some(text),
            Self::Image { .. } => None,
        }
    }

    /// True for a text block with no text, which results drop.
    pub fn is_empty_text(&self) -> bool {
        matches!(self, Self::Text(text) if text.is_empty())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn blocks_serialise_in_the_providers_shape_and_read_back() {
        let blocks = [
            ContentBlock::text("hi"),
            ContentBlock::image("AA==", "image/png"),
        ];
        let wire = serde_json::to_value(&blocks).unwrap();
        assert_eq!(
            wire,
            json!([
                {"type": "text", "text": "hi"},
                {"type": "image", "data": "AA==", "mimeType": "image/png"}
            ])
        );
        let read: Vec<ContentBlock> = serde_json::from_value(wire).unwrap();
        assert_eq!(read, blocks);
    }
}
