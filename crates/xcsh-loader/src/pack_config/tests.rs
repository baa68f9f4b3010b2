use serde_json::json;

use super::*;

const SCHEMA: &str = r#"{"type":"object","additionalProperties":false,
  "properties":{"max_files":{"type":"integer","minimum":1},
                "limits":{"type":"object","properties":{"bytes":{"type":"integer"}}}}}"#;

fn message(result: Result<String, LoadError>) -> String {
    result.unwrap_err().to_string()
}

#[test]
fn a_valid_table_reaches_the_pack_as_json() {
    let table = json!({"max_files": 3});
    assert_eq!(
        checked("t", SCHEMA, Some(&table)).unwrap(),
        r#"{"max_files":3}"#
    );
    assert_eq!(checked("t", SCHEMA, None).unwrap(), "{}");
}

#[test]
fn a_bad_value_is_refused_naming_its_key() {
    let table = json!({"max_files": "many", "limits": {"bytes": true}});
    assert_eq!(
        message(checked("text-replace", SCHEMA, Some(&table))),
        r#"[packs.text-replace] limits.bytes: true is not of type "integer"; [packs.text-replace] max_files: "many" is not of type "integer""#
    );
}

#[test]
fn an_unknown_key_is_refused() {
    let table = json!({"max_file": 3});
    assert_eq!(
        message(checked("text-replace", SCHEMA, Some(&table))),
        "[packs.text-replace]: Additional properties are not allowed ('max_file' was unexpected)"
    );
}

#[test]
fn a_table_for_a_pack_without_configuration_is_refused() {
    let table = json!({"x": 1});
    assert_eq!(
        message(checked("plain", "", Some(&table))),
        "[packs.plain]: this pack takes no configuration (remove the table)"
    );
    assert_eq!(checked("plain", "", None).unwrap(), "{}");
}
