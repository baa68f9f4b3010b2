//! Lists and counts worded as a sentence.

/// `a`, `a and b`, `a, b and c` (empty for none).
pub fn and_list<S: AsRef<str>>(items: &[S]) -> String {
    match items {
        [] => String::new(),
        [one] => one.as_ref().to_owned(),
        [rest @ .., last] => {
            let rest: Vec<&str> = rest.iter().map(AsRef::as_ref).collect();
            format!("{} and {}", rest.join(", "), last.as_ref())
        }
    }
}

/// `1 pack`, `2 packs`.
pub fn count(n: usize, noun: &str) -> String {
    format!("{n} {noun}{}", if n == 1 { "" } else { "s" })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn and_list_joins_like_a_sentence() {
        assert_eq!(and_list::<&str>(&[]), "");
        assert_eq!(and_list(&["a"]), "a");
        assert_eq!(and_list(&["a", "b"]), "a and b");
        assert_eq!(and_list(&["a", "b", "c"]), "a, b and c");
    }

    #[test]
    fn count_adds_an_s_except_for_one() {
        assert_eq!(count(0, "pack"), "0 packs");
        assert_eq!(count(1, "pack"), "1 pack");
        assert_eq!(count(2, "pack"), "2 packs");
    }
}
