//! The whole preview → resolve flow over a small real source tree of each
//! supported language.

use serde_json::json;

use crate::support::{Fixture, ast_edit_action};

/// One language's tree, edit and expectations.
struct Case {
    language: &'static str,
    /// The tree, ignored files and files of other languages included.
    files: &'static [(&'static str, &'static str)],
    pattern: &'static str,
    rewrite: &'static str,
    /// Every file the edit changes, with its content afterwards.
    expected: &'static [(&'static str, &'static str)],
    label: &'static str,
    /// A pattern that does not parse, and the error it gives.
    invalid_pattern: (&'static str, &'static str),
}

impl Case {
    fn fixture(&self) -> Fixture {
        Fixture::new(self.files)
    }

    fn edit(&self, fixture: &Fixture) -> xcsh_core::ToolResult {
        fixture.ast_edit(json!({
            "pattern": self.pattern,
            "rewrite": self.rewrite,
            "language": self.language,
        }))
    }

    fn check(&self) {
        self.preview_then_apply();
        self.preview_then_discard();
        self.stale_file_is_left_as_the_user_edited_it();
        self.zero_matches_push_nothing();
        self.invalid_pattern_is_one_clear_line();
    }

    fn preview_then_apply(&self) {
        let fx = self.fixture();
        let before = fx.snapshot();

        let preview = self.edit(&fx);
        assert!(!preview.is_error, "{}", preview.text());
        let text = preview.text();
        assert!(text.starts_with(&format!("{}\n", self.label)), "{text}");
        for (path, _) in self.expected {
            assert!(
                text.contains(&format!("--- a/{path}\n+++ b/{path}\n")),
                "{text}"
            );
        }
        assert_eq!(fx.snapshot(), before, "preview must not write");
        assert_eq!(fx.pending(), [ast_edit_action(self.label)]);
        let details = preview.details.unwrap();
        assert_eq!(details["totalFiles"], self.expected.len());
        let per_file: usize = details["files"]
            .as_array()
            .unwrap()
            .iter()
            .map(|f| f["replacements"].as_u64().unwrap() as usize)
            .sum();
        assert_eq!(details["totalReplacements"], per_file);

        let applied = fx.resolve("apply", "looks right");
        assert!(!applied.is_error, "{}", applied.text());
        let replacements = self.label.split(' ').nth(2).unwrap();
        assert_eq!(
            applied.text(),
            format!(
                "Applied {replacements} replacement(s) in {} file(s).",
                self.expected.len()
            )
        );
        assert!(fx.pending().is_empty());
        let mut after = before.clone();
        for (path, content) in self.expected {
            assert_eq!(fx.read(path), *content, "{path}");
            after.insert(path.into(), content.as_bytes().to_vec());
        }
        assert_eq!(fx.snapshot(), after, "only the previewed files change");
    }

    fn preview_then_discard(&self) {
        let fx = self.fixture();
        let before = fx.snapshot();
        assert!(!self.edit(&fx).is_error);
        let discarded = fx.resolve("discard", "not now");
        assert_eq!(
            discarded.text(),
            format!("Discarded: {}. Reason: not now", self.label)
        );
        assert!(fx.pending().is_empty());
        assert_eq!(fx.snapshot(), before, "discard must not write");
    }

    fn stale_file_is_left_as_the_user_edited_it(&self) {
        let fx = self.fixture();
        assert!(!self.edit(&fx).is_error);
        let (edited, _) = self.expected[0];
        let user_version = format!("{}\n", fx.read(edited));
        fx.write(edited, &user_version);

        let applied = fx.resolve("apply", "go");
        assert!(!applied.is_error, "{}", applied.text());
        let text = applied.text();
        assert!(
            text.ends_with(&format!(
                "\nNot written, changed since the preview (stale): {edited}"
            )),
            "{text}"
        );
        assert_eq!(fx.read(edited), user_version);
        for (path, content) in &self.expected[1..] {
            assert_eq!(fx.read(path), *content, "{path}");
        }
        let details = applied.details.unwrap();
        assert_eq!(details["sourceResultDetails"]["stale"], json!([edited]));
    }

    fn zero_matches_push_nothing(&self) {
        let fx = self.fixture();
        let before = fx.snapshot();
        let result = fx.ast_edit(json!({
            "pattern": "never_called_anywhere($A)",
            "rewrite": "x($A)",
            "language": self.language,
        }));
        assert!(!result.is_error);
        assert_eq!(result.text(), "No replacements made");
        assert_eq!(result.details.unwrap()["totalReplacements"], 0);
        assert!(fx.pending().is_empty());
        assert!(fx.session.queued_messages().is_empty());
        assert_eq!(fx.snapshot(), before);
    }

    fn invalid_pattern_is_one_clear_line(&self) {
        let fx = self.fixture();
        let (pattern, message) = self.invalid_pattern;
        let result = fx.ast_edit(json!({
            "pattern": pattern,
            "rewrite": "x",
            "language": self.language,
        }));
        assert!(result.is_error);
        assert_eq!(result.text(), message);
        assert!(fx.pending().is_empty());
    }
}

#[test]
fn rust() {
    Case {
        language: "rust",
        files: &[
            (".gitignore", "target/\n"),
            (
                "src/lib.rs",
                "mod util;\n\npub fn parse(input: &str) -> u32 {\n    let value = input.trim().parse::<u32>().unwrap();\n    value + util::offset().unwrap()\n}\n",
            ),
            (
                "src/util.rs",
                "pub fn offset() -> Option<u32> {\n    std::env::var(\"OFFSET\").ok().map(|v| v.parse().unwrap())\n}\n",
            ),
            ("target/debug/build.rs", "fn f() { a.unwrap(); }\n"),
            ("README.md", "Call `x.unwrap()` with care.\n"),
            ("scripts/tool.py", "x.unwrap()\n"),
        ],
        pattern: "$X.unwrap()",
        rewrite: "$X.expect(\"checked\")",
        expected: &[
            (
                "src/lib.rs",
                "mod util;\n\npub fn parse(input: &str) -> u32 {\n    let value = input.trim().parse::<u32>().expect(\"checked\");\n    value + util::offset().expect(\"checked\")\n}\n",
            ),
            (
                "src/util.rs",
                "pub fn offset() -> Option<u32> {\n    std::env::var(\"OFFSET\").ok().map(|v| v.parse().expect(\"checked\"))\n}\n",
            ),
        ],
        label: "AST Edit: 3 replacements in 2 files",
        invalid_pattern: (
            "fn (",
            "invalid pattern \"fn (\" for Rust: it is not valid Rust syntax",
        ),
    }
    .check();
}

#[test]
fn typescript() {
    Case {
        language: "typescript",
        files: &[
            (".gitignore", "node_modules/\n"),
            (
                "src/app.ts",
                "import { greet } from \"./greet\";\n\nexport function main(args: string[]): void {\n  console.log(greet(args[0] ?? \"world\"));\n  console.log(\"done\", args.length);\n}\n",
            ),
            (
                "src/greet.ts",
                "export function greet(name: string): string {\n  console.log(`greeting ${name}`);\n  return `Hello, ${name}!`;\n}\n",
            ),
            ("node_modules/dep/index.ts", "console.log(1);\n"),
            ("src/legacy.js", "console.log(2);\n"),
        ],
        pattern: "console.log($$$ARGS)",
        rewrite: "logger.info($$$ARGS)",
        expected: &[
            (
                "src/app.ts",
                "import { greet } from \"./greet\";\n\nexport function main(args: string[]): void {\n  logger.info(greet(args[0] ?? \"world\"));\n  logger.info(\"done\", args.length);\n}\n",
            ),
            (
                "src/greet.ts",
                "export function greet(name: string): string {\n  logger.info(`greeting ${name}`);\n  return `Hello, ${name}!`;\n}\n",
            ),
        ],
        label: "AST Edit: 3 replacements in 2 files",
        invalid_pattern: (
            "function (",
            "invalid pattern \"function (\" for TypeScript: it is not valid TypeScript syntax",
        ),
    }
    .check();
}

#[test]
fn tsx() {
    Case {
        language: "tsx",
        files: &[
            (
                "ui/App.tsx",
                "export function App() {\n  return <div className=\"app\">{render(1)}</div>;\n}\n",
            ),
            (
                "ui/List.tsx",
                "export const List = (items: string[]) => <ul>{items.map((i) => render(i))}</ul>;\n",
            ),
            ("ui/plain.ts", "render(3);\n"),
        ],
        pattern: "render($A)",
        rewrite: "draw($A)",
        expected: &[
            (
                "ui/App.tsx",
                "export function App() {\n  return <div className=\"app\">{draw(1)}</div>;\n}\n",
            ),
            (
                "ui/List.tsx",
                "export const List = (items: string[]) => <ul>{items.map((i) => draw(i))}</ul>;\n",
            ),
        ],
        label: "AST Edit: 2 replacements in 2 files",
        invalid_pattern: (
            "<div",
            "invalid pattern \"<div\" for TSX: it is not valid TSX syntax",
        ),
    }
    .check();
}

#[test]
fn javascript() {
    Case {
        language: "javascript",
        files: &[
            (
                "lib/index.js",
                "var count = 0;\nfunction inc() {\n  var step = 1;\n  count += step;\n  return count;\n}\nmodule.exports = { inc };\n",
            ),
            ("lib/name.mjs", "var name = \"x\";\nexport default name;\n"),
            ("lib/types.ts", "var typed: number = 1;\n"),
        ],
        pattern: "var $A = $B",
        rewrite: "let $A = $B",
        expected: &[
            (
                "lib/index.js",
                "let count = 0;\nfunction inc() {\n  let step = 1;\n  count += step;\n  return count;\n}\nmodule.exports = { inc };\n",
            ),
            ("lib/name.mjs", "let name = \"x\";\nexport default name;\n"),
        ],
        label: "AST Edit: 3 replacements in 2 files",
        invalid_pattern: (
            "var = ;",
            "invalid pattern \"var = ;\" for JavaScript: it is not valid JavaScript syntax",
        ),
    }
    .check();
}

#[test]
fn python() {
    Case {
        language: "python",
        files: &[
            (".gitignore", ".venv/\nbuild/\n"),
            (
                "app/main.py",
                "import logging\n\n\ndef main(argv):\n    print(\"starting\")\n    for arg in argv:\n        print(arg)\n    return 0\n",
            ),
            (
                "app/util.py",
                "def helper(x):\n    print(x * 2)\n    return x\n",
            ),
            ("build/lib/app/main.py", "print(1)\n"),
            ("app/data.json", "{\"print\": \"print(1)\"}\n"),
        ],
        pattern: "print($A)",
        rewrite: "logging.info($A)",
        expected: &[
            (
                "app/main.py",
                "import logging\n\n\ndef main(argv):\n    logging.info(\"starting\")\n    for arg in argv:\n        logging.info(arg)\n    return 0\n",
            ),
            (
                "app/util.py",
                "def helper(x):\n    logging.info(x * 2)\n    return x\n",
            ),
        ],
        label: "AST Edit: 3 replacements in 2 files",
        invalid_pattern: (
            "def (",
            "invalid pattern \"def (\" for Python: it is not valid Python syntax",
        ),
    }
    .check();
}

#[test]
fn go() {
    Case {
        language: "go",
        files: &[
            (".gitignore", "vendor/\n"),
            (
                "cmd/main.go",
                "package main\n\nimport \"fmt\"\n\nfunc main() {\n\tfmt.Println(\"hello\")\n\tfmt.Println(\"a\", 1)\n}\n",
            ),
            (
                "pkg/show.go",
                "package pkg\n\nimport \"fmt\"\n\nfunc Show(x int) {\n\tfmt.Println(x)\n}\n",
            ),
            ("vendor/dep/dep.go", "package dep\n\nfunc f() { fmt.Println(1) }\n"),
        ],
        pattern: "fmt.Println($$$A)",
        rewrite: "log.Println($$$A)",
        expected: &[
            (
                "cmd/main.go",
                "package main\n\nimport \"fmt\"\n\nfunc main() {\n\tlog.Println(\"hello\")\n\tlog.Println(\"a\", 1)\n}\n",
            ),
            (
                "pkg/show.go",
                "package pkg\n\nimport \"fmt\"\n\nfunc Show(x int) {\n\tlog.Println(x)\n}\n",
            ),
        ],
        label: "AST Edit: 3 replacements in 2 files",
        invalid_pattern: (
            "func (",
            "invalid pattern \"func (\" for Go: it is not valid Go syntax",
        ),
    }
    .check();
}
