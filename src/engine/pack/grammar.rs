//! The identifier grammars of HCP.md: pack_id (§3.2), verb_key and arg names
//! (§4), environment variable names (§8.1), Skill names (§5.2), and the
//! `{arg}` / `${NAME}` placeholders of adapters (§6.3, §6.4).

use regex::Regex;
use std::sync::LazyLock;

fn regex(pattern: &str) -> Regex {
    // The patterns below are literals checked by the unit tests.
    #[allow(clippy::unwrap_used)]
    Regex::new(pattern).unwrap()
}

static PACK_ID: LazyLock<Regex> = LazyLock::new(|| regex(r"^[a-z0-9]+([.-][a-z0-9]+)*$"));
static VERB_KEY: LazyLock<Regex> =
    LazyLock::new(|| regex(r"^[a-z][a-z0-9_-]*(\.[a-z][a-z0-9_-]*)*$"));
static ARG_NAME: LazyLock<Regex> = LazyLock::new(|| regex(r"^[a-z][a-z0-9_]*$"));
static ENV_NAME: LazyLock<Regex> = LazyLock::new(|| regex(r"^[A-Z_][A-Z0-9_]*$"));
static SKILL_NAME: LazyLock<Regex> = LazyLock::new(|| regex(r"^[a-z0-9]+(-[a-z0-9]+)*$"));

/// §3.2: grammar and 2–64 characters.
pub fn is_pack_id(s: &str) -> bool {
    (2..=64).contains(&s.len()) && PACK_ID.is_match(s)
}

/// §3.2: `hcp-cli` and `hcp.*` belong to the bootstrap pack.
pub fn is_reserved_pack_id(s: &str) -> bool {
    s == "hcp-cli" || s.starts_with("hcp.")
}

/// §4: grammar and at most 64 characters.
pub fn is_verb_key(s: &str) -> bool {
    s.len() <= 64 && VERB_KEY.is_match(s)
}

pub fn is_arg_name(s: &str) -> bool {
    ARG_NAME.is_match(s)
}

pub fn is_env_name(s: &str) -> bool {
    ENV_NAME.is_match(s)
}

/// §5.2 (Agent Skills): words of a-z and 0-9 joined by single hyphens,
/// 1–64 characters.
pub fn is_skill_name(s: &str) -> bool {
    (1..=64).contains(&s.len()) && SKILL_NAME.is_match(s)
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
