//! What the user allows `ast_edit` to do beyond its defaults.

/// Settings the agent passes to `ast_edit` from the user's choices.
///
/// The default is the safe one: every path must resolve (symlinks
/// included) inside the session's working directory.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct AstEditOptions {
    /// Let `path` resolve outside the working directory (`..`, absolute
    /// paths, symlinks leading out). The agent sets it from the user's
    /// `--allow-outside-root` flag only; a project's config cannot.
    pub allow_outside_root: bool,
}

impl AstEditOptions {
    /// The defaults, with `allow_outside_root` set to `allow`.
    pub fn allow_outside_root(mut self, allow: bool) -> Self {
        self.allow_outside_root = allow;
        self
    }
}
