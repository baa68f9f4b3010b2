//! Turning a caught panic into a message.

use std::any::Any;

/// The message of a caught panic payload (`&str` or `String` payloads;
/// anything else reads as `unknown panic payload`).
///
/// ```
/// let payload = std::panic::catch_unwind(|| panic!("boom {}", 7)).unwrap_err();
/// assert_eq!(xcsh_tool_types::panic_message(&*payload), "boom 7");
/// ```
pub fn panic_message(payload: &(dyn Any + Send)) -> String {
    if let Some(message) = payload.downcast_ref::<&str>() {
        (*message).to_owned()
    } else if let Some(message) = payload.downcast_ref::<String>() {
        message.clone()
    } else {
        "unknown panic payload".to_owned()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn str_string_and_other_payloads() {
        let payload: Box<dyn Any + Send> = Box::new("static");
        assert_eq!(panic_message(&*payload), "static");
        let payload: Box<dyn Any + Send> = Box::new(String::from("owned"));
        assert_eq!(panic_message(&*payload), "owned");
        let payload: Box<dyn Any + Send> = Box::new(42u8);
        assert_eq!(panic_message(&*payload), "unknown panic payload");
    }
}
