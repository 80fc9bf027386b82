//! Did-you-mean: the known name closest to a mistyped one, for the hints of
//! `not_found` and `usage` errors (pack ids, verb_keys, arg names; HCP.md
//! §10.1 lets an error carry a hint). A pure function over strings.

/// How alike two names must be (Jaro–Winkler, 0 to 1) to be suggested.
const THRESHOLD: f64 = 0.85;

/// The candidate closest to `word`, if one is close enough and is not
/// `word` itself: few edits apart (one for short names, a third of the
/// length for long ones; a swap of two neighbours is one edit), or alike by
/// Jaro–Winkler. The fewest edits wins, then the highest likeness, then the
/// first candidate.
pub fn closest<'c>(word: &str, candidates: impl IntoIterator<Item = &'c str>) -> Option<&'c str> {
    let mut best: Option<(usize, f64, &'c str)> = None;
    for candidate in candidates {
        if candidate == word {
            continue;
        }
        let edits = strsim::damerau_levenshtein(word, candidate);
        let likeness = strsim::jaro_winkler(word, candidate);
        let allowed = (candidate.chars().count() / 3).max(1);
        if edits > allowed && likeness <= THRESHOLD {
            continue;
        }
        let better = best.is_none_or(|(e, l, _)| edits < e || (edits == e && likeness > l));
        if better {
            best = Some((edits, likeness, candidate));
        }
    }
    best.map(|(_, _, c)| c)
}

/// "did you mean `X`?" for the closest candidate, if any.
pub fn did_you_mean<'c>(
    word: &str,
    candidates: impl IntoIterator<Item = &'c str>,
) -> Option<String> {
    closest(word, candidates).map(|c| format!("did you mean `{c}`?"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn suggests_the_closest_name() {
        let ids = ["demo.clock", "demo.notes", "acme.github"];
        assert_eq!(closest("demo.clok", ids), Some("demo.clock"));
        assert_eq!(closest("demo.note", ids), Some("demo.notes"));
        assert_eq!(closest("acme.gihtub", ids), Some("acme.github"));
        // Short verbs: one edit, or two neighbours swapped.
        assert_eq!(closest("nw", ["now", "between"]), Some("now"));
        assert_eq!(closest("nwo", ["now", "between"]), Some("now"));
    }

    #[test]
    fn nothing_when_nothing_is_close() {
        assert_eq!(closest("zzz", ["demo.clock", "acme.github"]), None);
        assert_eq!(closest("ab", ["xy", "now"]), None);
        assert_eq!(closest("x", Vec::<&str>::new()), None);
    }

    #[test]
    fn never_suggests_the_word_itself() {
        assert_eq!(closest("demo.clock", ["demo.clock"]), None);
    }

    #[test]
    fn the_hint_names_the_candidate() {
        assert_eq!(
            did_you_mean("tiem", ["time", "date"]).as_deref(),
            Some("did you mean `time`?")
        );
    }
}
