//! The arguments benchmarked calls send.

use serde_json::{Value, json};
use xcsh_bench_pack::{PlanRenameParams, RenameRule};

/// How many files a batch-rename-sized call names.
pub const BATCH_FILES: usize = 8;

/// A batch-rename-sized call: eight files under `src/` and a prefix rule,
/// as a model would send to `batch_rename_preview` (about 200 bytes of
/// JSON).
pub fn batch_rename_arguments() -> Value {
    let files: Vec<String> = (0..BATCH_FILES)
        .map(|i| format!("src/module_{i}/notes_{i}.txt"))
        .collect();
    json!({"files": files, "rule": {"kind": "prefix", "prefix": "old_"}})
}

/// [`batch_rename_arguments`] already decoded: what the tool's code gets.
pub fn batch_rename_params() -> PlanRenameParams {
    PlanRenameParams {
        files: (0..BATCH_FILES)
            .map(|i| format!("src/module_{i}/notes_{i}.txt"))
            .collect(),
        rule: RenameRule::Prefix {
            prefix: "old_".into(),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_and_typed_arguments_agree() {
        let decoded: PlanRenameParams = serde_json::from_value(batch_rename_arguments()).unwrap();
        assert_eq!(decoded, batch_rename_params());
    }
}
