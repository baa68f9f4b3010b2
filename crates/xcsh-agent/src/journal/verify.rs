//! `xcsh journal --verify`: walks the chain from the first entry and names
//! the first entry that was edited, removed from before it, or moved.

use std::io::{self, BufReader};
use std::path::Path;

use super::chain::{self, Key, Link};
use super::open;

/// What the walk found.
#[derive(Debug, PartialEq, Eq)]
pub enum Verdict {
    /// Every entry chains to the one before: the count.
    Intact(u64),
    /// The first entry that does not, with why (one line).
    Broken {
        /// Its line number, from 1.
        line: u64,
        /// What is wrong with it.
        why: String,
    },
}

/// Walks the journal at `path` with `key`, and holds its end against
/// `anchor` (where xcsh last left the chain, see
/// [`anchor`](super::anchor)): a journal that ends before it, or holds
/// another entry there, is broken.
///
/// # Errors
///
/// The journal cannot be opened (no journal, a link, not a regular
/// file, …) or read.
pub fn verify(path: &Path, key: &Key, anchor: Option<&Link>) -> io::Result<Verdict> {
    let verdict = walk(path, key, anchor)?;
    let (Verdict::Intact(count), Some(anchor)) = (&verdict, anchor) else {
        return Ok(verdict);
    };
    if *count < anchor.seq {
        return Ok(Verdict::Broken {
            line: count + 1,
            why: format!(
                "it is missing: xcsh wrote {} entr{}, the journal holds {count} (cut short, emptied or replaced)",
                anchor.seq,
                if anchor.seq == 1 { "y" } else { "ies" }
            ),
        });
    }
    Ok(verdict)
}

fn walk(path: &Path, key: &Key, anchor: Option<&Link>) -> io::Result<Verdict> {
    let mut reader = BufReader::new(open::for_reading(path)?);
    let mut previous = String::new();
    let mut line_number = 0;
    loop {
        let line = match open::read_line(&mut reader) {
            Ok(Some(line)) => line,
            Ok(None) => return Ok(Verdict::Intact(line_number)),
            Err(error) if error.kind() == io::ErrorKind::InvalidData => {
                return Ok(Verdict::Broken {
                    line: line_number + 1,
                    why: format!("it is {error}"),
                });
            }
            Err(error) => return Err(error),
        };
        line_number += 1;
        let broken = |why: String| {
            Ok(Verdict::Broken {
                line: line_number,
                why,
            })
        };
        let Some((unsealed, link)) = std::str::from_utf8(&line).ok().and_then(chain::unseal) else {
            return broken(
                "it is not a sealed journal entry (edited, or written by another program)".into(),
            );
        };
        if link.seq > line_number {
            return broken(format!(
                "it is entry {} of its chain: entries before it were removed",
                link.seq
            ));
        }
        if link.seq < line_number {
            return broken(format!(
                "it is entry {} of its chain: entries were moved, repeated or inserted before it",
                link.seq
            ));
        }
        if key.link(&previous, &unsealed) != link.chain {
            return broken(
                "its seal does not match: it was edited, or the entry before it was replaced or moved"
                    .into(),
            );
        }
        if anchor.is_some_and(|anchor| anchor.seq == link.seq && anchor.chain != link.chain) {
            return broken(
                "it is not the entry xcsh wrote there: the journal was replaced by another one"
                    .into(),
            );
        }
        previous = link.chain;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn journal(lines: &[String]) -> tempfile::NamedTempFile {
        let mut file = tempfile::NamedTempFile::new().unwrap();
        for line in lines {
            io::Write::write_all(&mut file, format!("{line}\n").as_bytes()).unwrap();
        }
        file
    }

    fn sealed(key: &Key, count: usize) -> Vec<String> {
        let mut previous = None;
        (0..count)
            .map(|i| {
                let (line, link) =
                    chain::seal(key, previous.as_ref(), &format!("{{\"event\":\"e{i}\"}}"));
                previous = Some(link);
                line
            })
            .collect()
    }

    #[test]
    fn an_intact_journal_verifies_and_each_tampering_is_named() {
        let key = Key::of_user(tempfile::tempdir().unwrap().path(), true).unwrap();
        let lines = sealed(&key, 4);
        let intact = journal(&lines);
        assert_eq!(
            verify(intact.path(), &key, None).unwrap(),
            Verdict::Intact(4)
        );
        assert_eq!(
            verify(journal(&[]).path(), &key, None).unwrap(),
            Verdict::Intact(0)
        );

        let mut edited = lines.clone();
        edited[2] = edited[2].replace("e2", "e9");
        assert_eq!(
            verify(journal(&edited).path(), &key, None).unwrap(),
            Verdict::Broken {
                line: 3,
                why: "its seal does not match: it was edited, or the entry before it was replaced or moved".into()
            }
        );

        let mut removed = lines.clone();
        removed.remove(1);
        assert_eq!(
            verify(journal(&removed).path(), &key, None).unwrap(),
            Verdict::Broken {
                line: 2,
                why: "it is entry 3 of its chain: entries before it were removed".into()
            }
        );

        let mut reordered = lines.clone();
        reordered.swap(1, 2);
        assert_eq!(
            verify(journal(&reordered).path(), &key, None).unwrap(),
            Verdict::Broken {
                line: 2,
                why: "it is entry 3 of its chain: entries before it were removed".into()
            }
        );

        // A whole journal written anew without the user's key.
        let forged = sealed(&Key::none(), 4);
        assert!(matches!(
            verify(journal(&forged).path(), &key, None).unwrap(),
            Verdict::Broken { line: 1, .. }
        ));
    }

    #[test]
    fn a_journal_cut_short_emptied_or_swapped_is_held_against_its_anchor() {
        let key = Key::of_user(tempfile::tempdir().unwrap().path(), true).unwrap();
        let lines = sealed(&key, 4);
        let (_, end) = chain::unseal(&lines[3]).unwrap();
        assert_eq!(
            verify(journal(&lines).path(), &key, Some(&end)).unwrap(),
            Verdict::Intact(4)
        );
        assert_eq!(
            verify(journal(&lines[..2]).path(), &key, Some(&end)).unwrap(),
            Verdict::Broken {
                line: 3,
                why: "it is missing: xcsh wrote 4 entries, the journal holds 2 (cut short, emptied or replaced)".into()
            }
        );
        assert_eq!(
            verify(journal(&[]).path(), &key, Some(&end)).unwrap(),
            Verdict::Broken {
                line: 1,
                why: "it is missing: xcsh wrote 4 entries, the journal holds 0 (cut short, emptied or replaced)".into()
            }
        );
        // Another journal with the same key and as many entries.
        let mut previous = None;
        let other: Vec<String> = (0..4)
            .map(|i| {
                let (line, link) =
                    chain::seal(&key, previous.as_ref(), &format!("{{\"event\":\"x{i}\"}}"));
                previous = Some(link);
                line
            })
            .collect();
        assert_eq!(
            verify(journal(&other).path(), &key, Some(&end)).unwrap(),
            Verdict::Broken {
                line: 4,
                why:
                    "it is not the entry xcsh wrote there: the journal was replaced by another one"
                        .into()
            }
        );
    }
}
