//! Each pack's configuration table (`[packs.NAME]`): the user's, narrowed
//! by a trusted project's.
//!
//! A project may only narrow what the user set, key by key: a number only
//! lower, a list only to a subset, a boolean only from `true` to `false`,
//! anything else only to the same value. A key the user did not set, or a
//! value that widens the user's, is ignored with a warning naming it. (Pack
//! authors phrase switches as permissions, `allow_delete = true`, so that
//! `false` is the narrow side.)

use std::collections::BTreeMap;

use serde_json::Value;

/// Pack configuration tables by pack name.
pub type PackTables = BTreeMap<String, Value>;

/// One key of a project's table that was ignored, and why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Widening {
    /// The pack.
    pub pack: String,
    /// The key (dotted for nested tables).
    pub key: String,
    /// Why, e.g. `10 is more than the user's 5`.
    pub why: String,
}

/// A `[packs.NAME]` table that names no pack of the session.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UnknownTable {
    /// The table's name (`NAME`).
    pub table: String,
    /// The pack name closest to it, when one is close (the same name with
    /// `_` for `-`, or a small misspelling).
    pub closest: Option<String>,
}

/// The tables of `tables` that name none of `packs` (the names of the
/// packs the session loaded or offers: their package names), each with
/// the closest pack name.
pub fn unknown_tables<'a>(
    tables: &PackTables,
    packs: impl IntoIterator<Item = &'a str> + Clone,
) -> Vec<UnknownTable> {
    tables
        .keys()
        .filter(|table| !packs.clone().into_iter().any(|pack| pack == table.as_str()))
        .map(|table| UnknownTable {
            table: table.clone(),
            closest: closest(table, packs.clone()),
        })
        .collect()
}

/// The pack name closest to `table`: one that differs only in `-` and `_`
/// (a crate name for a package name) or in case, else the nearest within
/// a third of the name's length in edits.
fn closest<'a>(table: &str, packs: impl IntoIterator<Item = &'a str>) -> Option<String> {
    let normal = |name: &str| name.to_lowercase().replace('_', "-");
    let wanted = normal(table);
    let limit = (wanted.chars().count() / 3).max(1);
    packs
        .into_iter()
        .map(|pack| (strsim::levenshtein(&normal(pack), &wanted), pack))
        .filter(|(distance, _)| *distance <= limit)
        .min()
        .map(|(_, pack)| pack.to_owned())
}

/// The user's tables with what the project's narrow applied, and every
/// key of the project's that was ignored.
pub fn narrow(user: &PackTables, project: &PackTables) -> (PackTables, Vec<Widening>) {
    let mut merged = user.clone();
    let mut ignored = Vec::new();
    for (pack, table) in project {
        let Some(users) = user.get(pack) else {
            for key in keys(table) {
                ignored.push(Widening {
                    pack: pack.clone(),
                    key,
                    why: "the user's config does not configure this pack".to_owned(),
                });
            }
            continue;
        };
        let mut result = users.clone();
        narrow_value(pack, "", users, table, &mut result, &mut ignored);
        merged.insert(pack.clone(), result);
    }
    (merged, ignored)
}

fn keys(table: &Value) -> Vec<String> {
    match table {
        Value::Object(map) => map.keys().cloned().collect(),
        _ => vec![String::new()],
    }
}

/// Applies `project` (at `key`) over `user` into `result` where it narrows.
fn narrow_value(
    pack: &str,
    key: &str,
    user: &Value,
    project: &Value,
    result: &mut Value,
    ignored: &mut Vec<Widening>,
) {
    let refuse = |why: String, ignored: &mut Vec<Widening>| {
        ignored.push(Widening {
            pack: pack.to_owned(),
            key: key.to_owned(),
            why,
        });
    };
    match (user, project) {
        (Value::Object(users), Value::Object(projects)) => {
            for (name, value) in projects {
                let at = if key.is_empty() {
                    name.clone()
                } else {
                    format!("{key}.{name}")
                };
                match (users.get(name), result.get_mut(name)) {
                    (Some(users), Some(slot)) => {
                        narrow_value(pack, &at, users, value, slot, ignored);
                    }
                    _ => ignored.push(Widening {
                        pack: pack.to_owned(),
                        key: at,
                        why: "the user's config does not set it".to_owned(),
                    }),
                }
            }
        }
        (Value::Number(u), Value::Number(p)) => match (u.as_f64(), p.as_f64()) {
            (Some(u), Some(p)) if p <= u => *result = project.clone(),
            _ => refuse(format!("{project} is more than the user's {user}"), ignored),
        },
        (Value::Bool(u), Value::Bool(p)) => {
            if *p && !*u {
                refuse("true widens the user's false".to_owned(), ignored);
            } else {
                *result = project.clone();
            }
        }
        (Value::Array(u), Value::Array(p)) => {
            if let Some(extra) = p.iter().find(|item| !u.contains(item)) {
                refuse(format!("{extra} is not in the user's list"), ignored);
            } else {
                *result = project.clone();
            }
        }
        _ if user == project => {}
        _ => refuse(format!("{project} differs from the user's {user}"), ignored),
    }
}

#[cfg(test)]
mod tests;
