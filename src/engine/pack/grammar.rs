//! The identifier grammars of HCP.md: pack_id (§3.2), verb_key and arg names
//! (§4), environment variable names (§8.1), Skill names (§5.2), and the
//! `{arg}` / `${NAME}` placeholders of adapters (§6.3, §6.4).

// The grammars are matched by hand rather than with `regex`: compiling the
// five patterns cost every hcpx run (an `exec` included) a few hundred
// microseconds before it did anything. The unit tests check each matcher
// against its pattern, written out below, on every short string of a
// telling alphabet.

fn lower_or_digit(b: u8) -> bool {
    b.is_ascii_lowercase() || b.is_ascii_digit()
}

/// Words of `[a-z0-9]+` joined by single bytes of `separators`:
/// `^[a-z0-9]+([<separators>][a-z0-9]+)*$`.
fn is_joined_words(s: &str, separators: &[u8]) -> bool {
    let mut previous_was_separator = true; // nothing yet: a word must start
    for &b in s.as_bytes() {
        if lower_or_digit(b) {
            previous_was_separator = false;
        } else if separators.contains(&b) && !previous_was_separator {
            previous_was_separator = true;
        } else {
            return false;
        }
    }
    !previous_was_separator
}

/// One identifier word: a first byte that `first` takes, then bytes that
/// `rest` takes.
fn is_word(s: &str, first: impl Fn(u8) -> bool, rest: impl Fn(u8) -> bool) -> bool {
    match s.as_bytes().split_first() {
        Some((&b, tail)) => first(b) && tail.iter().all(|&b| rest(b)),
        None => false,
    }
}

/// §3.2 pattern: `^[a-z0-9]+([.-][a-z0-9]+)*$`.
fn pack_id_grammar(s: &str) -> bool {
    is_joined_words(s, b".-")
}

/// §4 pattern: `^[a-z][a-z0-9_-]*(\.[a-z][a-z0-9_-]*)*$`.
fn verb_key_grammar(s: &str) -> bool {
    s.split('.').all(|part| {
        is_word(
            part,
            |b| b.is_ascii_lowercase(),
            |b| lower_or_digit(b) || b == b'_' || b == b'-',
        )
    })
}

/// §3.2: grammar and 2–64 characters.
pub fn is_pack_id(s: &str) -> bool {
    (2..=64).contains(&s.len()) && pack_id_grammar(s)
}

/// §3.2: `hcp-cli` and `hcp.*` belong to the bootstrap pack.
pub fn is_reserved_pack_id(s: &str) -> bool {
    s == "hcp-cli" || s.starts_with("hcp.")
}

/// §14.10: the Skill names `hcp-cli` and `hcp-*` belong to the bootstrap
/// pack's Skill.
pub fn is_reserved_skill_name(s: &str) -> bool {
    s == "hcp-cli" || s.starts_with("hcp-")
}

/// §4: grammar and at most 64 characters.
pub fn is_verb_key(s: &str) -> bool {
    s.len() <= 64 && verb_key_grammar(s)
}

/// §4: `^[a-z][a-z0-9_]*$`.
pub fn is_arg_name(s: &str) -> bool {
    is_word(
        s,
        |b| b.is_ascii_lowercase(),
        |b| lower_or_digit(b) || b == b'_',
    )
}

/// §8.1: `^[A-Z_][A-Z0-9_]*$`.
pub fn is_env_name(s: &str) -> bool {
    is_word(
        s,
        |b| b.is_ascii_uppercase() || b == b'_',
        |b| b.is_ascii_uppercase() || b.is_ascii_digit() || b == b'_',
    )
}

/// §5.2 (Agent Skills): words of a-z and 0-9 joined by single hyphens,
/// 1–64 characters.
pub fn is_skill_name(s: &str) -> bool {
    (1..=64).contains(&s.len()) && is_joined_words(s, b"-")
}

/// A program name for `requires.bins`: a bare file name (no `/`), printable,
/// no white space, at most 255 bytes.
pub fn is_program_name(s: &str) -> bool {
    !s.is_empty()
        && s.len() <= 255
        && s != "."
        && s != ".."
        && !s
            .chars()
            .any(|c| c == '/' || c.is_whitespace() || c.is_control())
}

/// A piece of a template string.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Piece<'a> {
    Text(&'a str),
    /// `{name}`: an arg's value (§6.3).
    Arg(&'a str),
    /// `${NAME}`: Binding material, only in `http` headers (§6.4).
    Material(&'a str),
}

/// Splits a template into text and placeholders. A placeholder is `{` + an
/// arg name + `}`, or `${` + anything up to `}`; other braces are text.
pub fn template_pieces(template: &str) -> Vec<Piece<'_>> {
    let mut pieces = Vec::new();
    let mut text_start = 0;
    let mut i = 0;
    let bytes = template.as_bytes();
    while i < bytes.len() {
        let dollar = bytes[i] == b'$' && bytes.get(i + 1) == Some(&b'{');
        let open = if dollar { i + 1 } else { i };
        if bytes[open] == b'{'
            && let Some(len) = template[open + 1..].find('}')
        {
            let inner = &template[open + 1..open + 1 + len];
            let piece = if dollar {
                Some(Piece::Material(inner))
            } else if is_arg_name(inner) {
                Some(Piece::Arg(inner))
            } else {
                None
            };
            if let Some(piece) = piece {
                if text_start < i {
                    pieces.push(Piece::Text(&template[text_start..i]));
                }
                pieces.push(piece);
                i = open + len + 2;
                text_start = i;
                continue;
            }
        }
        i += 1;
    }
    if text_start < template.len() {
        pieces.push(Piece::Text(&template[text_start..]));
    }
    pieces
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pack_ids() {
        for ok in ["acme.github", "local-notes", "a1", "x.y-z.w"] {
            assert!(is_pack_id(ok), "{ok}");
        }
        for bad in [
            "a",
            "Acme",
            "acme..x",
            "-acme",
            "acme-",
            "acme_x",
            &"a".repeat(65),
        ] {
            assert!(!is_pack_id(bad), "{bad}");
        }
        assert!(is_reserved_pack_id("hcp-cli"));
        assert!(is_reserved_pack_id("hcp.tools"));
        assert!(!is_reserved_pack_id("hcpx"));
    }

    #[test]
    fn verb_keys() {
        for ok in ["list", "issues.list", "a_b-c.d9"] {
            assert!(is_verb_key(ok), "{ok}");
        }
        for bad in ["List", "1list", "issues.", ".list", "a b", &"a".repeat(65)] {
            assert!(!is_verb_key(bad), "{bad}");
        }
    }

    #[test]
    fn env_and_skill_names() {
        assert!(is_env_name("API_TOKEN"));
        assert!(is_env_name("_X1"));
        assert!(!is_env_name("api_token"));
        assert!(!is_env_name("1X"));
        assert!(is_skill_name("acme-notes"));
        assert!(!is_skill_name("Acme"));
        assert!(!is_skill_name(""));
        assert!(is_skill_name("a") && is_skill_name("x2-y3"));
        for bad in ["-a", "a-", "a--b", "a_b", "a.b", &"a".repeat(65)] {
            assert!(!is_skill_name(bad), "{bad}");
        }
    }

    /// Every string of up to `max` characters over `alphabet`.
    fn strings(alphabet: &str, max: usize) -> Vec<String> {
        let mut all = vec![String::new()];
        let mut last = vec![String::new()];
        for _ in 0..max {
            last = last
                .iter()
                .flat_map(|s| alphabet.chars().map(move |c| format!("{s}{c}")))
                .collect();
            all.extend(last.iter().cloned());
        }
        all
    }

    #[test]
    fn hand_matchers_agree_with_the_patterns() {
        let pattern = |p: &str| regex::Regex::new(p).unwrap();
        type Matcher = fn(&str) -> bool;
        let cases: [(&str, Matcher); 5] = [
            (r"^[a-z0-9]+([.-][a-z0-9]+)*$", pack_id_grammar),
            (r"^[a-z][a-z0-9_-]*(\.[a-z][a-z0-9_-]*)*$", verb_key_grammar),
            (r"^[a-z][a-z0-9_]*$", is_arg_name),
            (r"^[A-Z_][A-Z0-9_]*$", is_env_name),
            (r"^[a-z0-9]+(-[a-z0-9]+)*$", |s| is_joined_words(s, b"-")),
        ];
        // One character of each class the patterns tell apart, and some
        // they all refuse (a newline for `$`, a non-ASCII letter).
        let alphabet = "aZ0_-.\n é";
        let inputs = strings(alphabet, 5);
        for (p, matcher) in cases {
            let re = pattern(p);
            for s in &inputs {
                assert_eq!(matcher(s), re.is_match(s), "{p} on {s:?}");
            }
        }
    }

    #[test]
    fn templates() {
        use Piece::*;
        assert_eq!(
            template_pieces("--n={count}"),
            vec![Text("--n="), Arg("count")]
        );
        assert_eq!(
            template_pieces("Bearer ${API_TOKEN}"),
            vec![Text("Bearer "), Material("API_TOKEN")]
        );
        assert_eq!(template_pieces("{a: .b}"), vec![Text("{a: .b}")]);
        assert_eq!(template_pieces("{x}{y}"), vec![Arg("x"), Arg("y")]);
        assert_eq!(template_pieces("{"), vec![Text("{")]);
    }
}
