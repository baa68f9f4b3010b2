//! What the agent takes as a pack's identity: only what it opened and
//! recorded itself. A pack's load-time code runs before its process answers
//! [`Opened`](xcsh_isolate_protocol::Opened), so everything in that reply
//! but the tool list is the pack's word: the path is the one the agent
//! opened, the sandbox state the one reported before any of the pack's code
//! ran, and the name must be the one its file carries.

use std::path::Path;

use xcsh_isolate_protocol::{Opened, SandboxStatus};

use super::handover::Namespaces;
use super::start_error::StartError;

/// `opened` with the agent's own record in place of the pack's word:
/// `path` (what the agent opened) and `sandbox` (what the process reported
/// before mapping the pack, inside the namespaces the agent set up, or
/// alone where `namespaces` were unavailable).
///
/// # Errors
///
/// [`StartError::NotNamedForPack`]: the declared name is not the one the
/// file name carries (a pack's process claiming to be another pack).
pub fn recorded(
    opened: Opened,
    path: &Path,
    sandbox: SandboxStatus,
    namespaces: &Namespaces,
) -> Result<Opened, StartError> {
    if let Some(carried) = name_in_file(path)
        && carried != opened.name.replace('-', "_")
    {
        return Err(StartError::NotNamedForPack {
            claimed: opened.name,
            file: path
                .file_name()
                .map_or_else(String::new, |n| n.to_string_lossy().into_owned()),
        });
    }
    let sandbox = match namespaces {
        Namespaces::Entered(_) => SandboxStatus::Namespaces {
            landlock: Box::new(sandbox),
        },
        Namespaces::Unavailable(reason) => SandboxStatus::LandlockOnly {
            reason: reason.clone(),
            landlock: Box::new(sandbox),
        },
        Namespaces::NotWanted => sandbox,
    };
    Ok(Opened {
        path: path.to_path_buf(),
        sandbox,
        ..opened
    })
}

/// The crate name a library's file carries, with `-` written `_` as
/// cargo writes it: `libbatch_rename.so` → `batch_rename`. `None` for a
/// name that is not UTF-8.
fn name_in_file(path: &Path) -> Option<String> {
    let stem = path.file_stem()?.to_str()?;
    let stem = stem.strip_prefix("lib").unwrap_or(stem);
    Some(stem.replace('-', "_"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn opened(name: &str) -> Opened {
        Opened {
            name: name.to_owned(),
            version: "6.6.6".to_owned(),
            abi_version: "1.0.0".to_owned(),
            path: "/forged/libharmless.so".into(),
            tools: Vec::new(),
            sandbox: SandboxStatus::Enforced {
                abi: 99,
                seccomp: true,
            },
        }
    }

    #[test]
    fn path_and_sandbox_are_the_agent_s_and_the_name_must_match_the_file() {
        let path = Path::new("/packs/libbatch_rename.so");
        let status = SandboxStatus::Unconfined {
            reason: "this kernel has no Landlock".to_owned(),
            seccomp: true,
        };
        let kept = recorded(
            opened("batch-rename"),
            path,
            status.clone(),
            &Namespaces::NotWanted,
        )
        .unwrap();
        assert_eq!(kept.path, path);
        assert_eq!(kept.sandbox, status);
        assert_eq!(kept.name, "batch-rename");
        assert_eq!(
            recorded(
                opened("harmless"),
                path,
                status.clone(),
                &Namespaces::NotWanted
            )
            .unwrap_err()
            .to_string(),
            "its process says it is pack \"harmless\", but its file libbatch_rename.so is not named for that pack"
        );
        let wrapped = recorded(
            opened("batch-rename"),
            path,
            status.clone(),
            &Namespaces::Entered(crate::namespaces::Engine::BuiltIn),
        )
        .unwrap();
        assert_eq!(
            wrapped.sandbox,
            SandboxStatus::Namespaces {
                landlock: Box::new(status.clone())
            }
        );
        let alone = Namespaces::Unavailable("the config sets namespaces = false".to_owned());
        let wrapped = recorded(opened("batch-rename"), path, status.clone(), &alone).unwrap();
        assert_eq!(
            wrapped.sandbox,
            SandboxStatus::LandlockOnly {
                reason: "the config sets namespaces = false".to_owned(),
                landlock: Box::new(status)
            }
        );
    }
}
