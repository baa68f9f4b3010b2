//! The `preserve-order` feature: the re-exported serde_json keeps an
//! object's keys in the order a document had them and in insertion order,
//! so a pack that rewrites a JSON file leaves its key order alone. (Built
//! only with the feature: `cargo test -p xcsh-plugin-api --features
//! preserve-order --test preserve_order`, which .ci/run runs.)

use xcsh_plugin_api::serde_json::{self, Value, json};

#[test]
fn a_documents_key_order_survives_a_round_trip() {
    let document = r#"{"zeta":1,"alpha":{"y":true,"b":null},"mid":[{"k2":2,"k1":1}]}"#;
    let value: Value = serde_json::from_str(document).unwrap();
    assert_eq!(serde_json::to_string(&value).unwrap(), document);
}

#[test]
fn inserted_keys_keep_their_order() {
    let mut value = json!({"version": 2});
    value["name"] = json!("pack");
    value["authors"] = json!([]);
    let keys: Vec<&String> = value.as_object().unwrap().keys().collect();
    assert_eq!(keys, ["version", "name", "authors"]);
}
