use super::*;

fn answer_of(line: &[u8]) -> Value {
    match parse(line) {
        Parsed::Answer(error, id) => serde_json::from_slice(&error_line(error, id)).unwrap(),
        other => panic!("expected an answer, got {other:?}"),
    }
}

fn error(id: Value, code: i32, message: &str) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "error": {"code": code, "message": message}})
}

#[test]
fn text_that_is_not_json_is_a_parse_error_with_a_null_id() {
    assert_eq!(
        answer_of(b"garbage\n"),
        error(Value::Null, -32700, "Parse error: expected value")
    );
    assert_eq!(
        answer_of(br#"{"jsonrpc": "2.0", "id": 1, "#),
        error(
            Value::Null,
            -32700,
            "Parse error: EOF while parsing a value"
        )
    );
    assert_eq!(
        answer_of(b"\xff\xfe\n"),
        error(Value::Null, -32700, "Parse error: expected value")
    );
}

#[test]
fn json_that_is_not_a_message_is_an_invalid_request_with_its_id_when_readable() {
    assert_eq!(
        answer_of(br#"{"jsonrpc": "1.0", "id": 7, "method": "tools/list"}"#),
        error(
            json!(7),
            -32600,
            "Invalid request: \"jsonrpc\" must be \"2.0\""
        )
    );
    assert_eq!(
        answer_of(br#"{"jsonrpc": "2.0", "id": null, "method": "tools/list"}"#),
        error(
            Value::Null,
            -32600,
            "Invalid request: \"id\" must be a string or an integer"
        )
    );
    assert_eq!(
        answer_of(b"[1, 2]\r\n"),
        error(
            Value::Null,
            -32600,
            "Invalid request: a message must be a JSON object"
        )
    );
    assert_eq!(
        answer_of(br#"{"jsonrpc": "2.0", "id": "x", "method": 5}"#),
        error(
            json!("x"),
            -32600,
            "Invalid request: \"method\" must be a string"
        )
    );
}

#[test]
fn blank_lines_and_notifications_get_no_answer() {
    assert!(matches!(parse(b"  \r\n"), Parsed::Skip));
    assert!(matches!(
        parse(br#"{"jsonrpc": "1.0", "method": "notifications/whatever"}"#),
        Parsed::Skip
    ));
}

#[test]
fn a_valid_message_with_a_byte_order_mark_passes() {
    assert!(matches!(
        parse(b"\xEF\xBB\xBF{\"jsonrpc\": \"2.0\", \"id\": 1, \"method\": \"ping\"}\r\n"),
        Parsed::Message(_)
    ));
}

#[test]
fn the_id_of_a_cut_message_is_read_when_it_comes_first() {
    let cut = br#"{"jsonrpc": "2.0", "id": 42, "method": "tools/call", "params": {"name": "x", "arguments": {"pad": "AAAA"#;
    assert_eq!(id_in_prefix(cut), Some(RequestId::Number(42)));
    let named = br#"{"id": "req-1", "params": {"pad": "AAAA"#;
    assert_eq!(id_in_prefix(named), Some(RequestId::String("req-1".into())));
    let late = br#"{"jsonrpc": "2.0", "params": {"pad": "AAAA"#;
    assert_eq!(id_in_prefix(late), None);
    assert_eq!(id_in_prefix(b"AAAA"), None);
}
