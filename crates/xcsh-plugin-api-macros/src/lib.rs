//! The `#[params]` attribute of `xcsh-plugin-api`. Use it as
//! `xcsh_plugin_api::params` (or from its prelude); do not depend on this
//! crate directly.
#![deny(missing_docs)]
#![forbid(unsafe_code)]

use proc_macro::TokenStream;

/// The derives and attributes every parameter type needs, with paths into
/// `xcsh-plugin-api`'s re-exports of serde and schemars.
const DERIVES: &str = r#"
    #[derive(::xcsh_plugin_api::serde::Deserialize, ::xcsh_plugin_api::schemars::JsonSchema)]
    #[serde(crate = "::xcsh_plugin_api::serde")]
    #[schemars(crate = "::xcsh_plugin_api::schemars")]
"#;

/// Refuses fields the type does not name (the schema says
/// `additionalProperties: false`).
const DENY_UNKNOWN: &str = "#[serde(deny_unknown_fields)]";

/// Makes a struct or enum a tool's parameters: derives serde's
/// `Deserialize` and schemars' `JsonSchema` through `xcsh-plugin-api`'s
/// re-exports, and refuses unknown fields. `#[params(allow_unknown_fields)]`
/// keeps unknown fields (and ignores them). See `xcsh_plugin_api::params`.
#[proc_macro_attribute]
pub fn params(attribute: TokenStream, item: TokenStream) -> TokenStream {
    let option = attribute.to_string();
    let deny_unknown = match option.trim() {
        "" => true,
        "allow_unknown_fields" => false,
        other => {
            let message = format!(
                "unknown #[params] option `{other}`: the only option is `allow_unknown_fields`"
            );
            return format!("::core::compile_error!({message:?});")
                .parse()
                .expect("a compile_error! call parses");
        }
    };
    let mut output: TokenStream = DERIVES.parse().expect("the derive attributes parse");
    if deny_unknown {
        output.extend(
            DENY_UNKNOWN
                .parse::<TokenStream>()
                .expect("the attribute parses"),
        );
    }
    output.extend(item);
    output
}
