//! The user's rule for the roctx ranges that are a program's steps (`ROCPROF_XPLANE_STEP_RANGE`,
//! `run --step-range`): a range's exact text, or a pattern in which `*` stands for any text.
//! The frameworks' own step marks (TraceMe `_r`/`step_num`, PyTorch's `ProfilerStep#<n>`) need
//! no rule: `xplane::steps` knows them.

/// A rule a range's whole text must match to be a step.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StepRule {
    /// The pattern's literal pieces around its `*`s (one more than there are `*`s).
    pieces: Vec<String>,
}

impl StepRule {
    /// The rule of `pattern`; an empty pattern (or only `*`s) is refused: it would make every
    /// range a step.
    pub fn parse(pattern: &str) -> Result<StepRule, String> {
        if pattern.chars().all(|c| c == '*') {
            return Err("expected a range name or a pattern with text besides '*'".into());
        }
        Ok(StepRule {
            pieces: pattern.split('*').map(str::to_owned).collect(),
        })
    }

    /// The pattern as the user wrote it.
    pub fn pattern(&self) -> String {
        self.pieces.join("*")
    }

    /// `None` when `text` is not a step by this rule; else the step's number, if a `*` matched
    /// a decimal number (the first such `*`).
    pub fn matches(&self, text: &str) -> Option<Option<i64>> {
        let mut wild = Vec::with_capacity(self.pieces.len() - 1);
        glob(&self.pieces, text, &mut wild).then(|| {
            wild.iter().find_map(|w| {
                (!w.is_empty() && w.bytes().all(|b| b.is_ascii_digit()))
                    .then(|| w.parse().ok())
                    .flatten()
            })
        })
    }

    /// The name of a matching range's step root: the pattern's text before its first `*`
    /// without trailing separators (`decode step *` → `decode step`), else the range's text.
    pub fn root_name<'t>(&'t self, text: &'t str) -> &'t str {
        let head = self.pieces[0].trim_end_matches([' ', '#', '_', '-', ':', '/', '.']);
        if self.pieces.len() > 1 && !head.is_empty() {
            head
        } else {
            text
        }
    }
}

/// Whether `text` is `pieces` joined by `*`s standing for any text; the text each `*` matched
/// goes to `wild`, in order. Leftmost-shortest for every `*` but the last piece, which must end
/// the text: the usual glob result, found without backtracking over more than one piece.
fn glob<'t>(pieces: &[String], text: &'t str, wild: &mut Vec<&'t str>) -> bool {
    let (first, rest) = pieces
        .split_first()
        .expect("a pattern has one piece at least");
    let Some(mut at) = text.strip_prefix(first.as_str()).map(|_| first.len()) else {
        return false;
    };
    let Some((last, middle)) = rest.split_last() else {
        return at == text.len();
    };
    for piece in middle {
        match text[at..].find(piece.as_str()) {
            Some(i) => {
                wild.push(&text[at..at + i]);
                at += i + piece.len();
            }
            None => return false,
        }
    }
    if text.len() - at < last.len() || !text.ends_with(last.as_str()) {
        return false;
    }
    let end = text.len() - last.len();
    if !text.is_char_boundary(end) {
        return false;
    }
    wild.push(&text[at..end]);
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_rule_matches_the_whole_text_with_any_text_for_each_star() {
        let r = |p: &str| StepRule::parse(p).unwrap();
        assert_eq!(r("a*b*c").matches("a1b22c"), Some(Some(1)));
        assert_eq!(r("a*b*c").matches("axb22c"), Some(Some(22)));
        assert_eq!(r("a*b*c").matches("abc"), Some(None));
        assert_eq!(r("a*b*c").matches("a1b22cd"), None);
        assert_eq!(r("a*b*c").matches("ab"), None);
        assert_eq!(r("*x*").matches("x"), Some(None));
        assert_eq!(r("step *").matches("step 99999999999999999999"), Some(None));
        assert_eq!(r("评估 *").matches("评估 3"), Some(Some(3)));
        assert_eq!(r("ab*ba").matches("aba"), None);
        assert_eq!(r("train_step").matches("train_step"), Some(None));
        assert_eq!(r("train_step").matches("train_step 2"), None);
        assert!(StepRule::parse("").is_err());
        assert!(StepRule::parse("**").is_err());
        assert_eq!(r("decode step *").pattern(), "decode step *");
    }

    #[test]
    fn the_root_is_named_by_the_patterns_head_else_by_the_range() {
        let r = |p: &str| StepRule::parse(p).unwrap();
        assert_eq!(r("decode step *").root_name("decode step 3"), "decode step");
        assert_eq!(r("train_step").root_name("train_step"), "train_step");
        assert_eq!(r("*_fwd").root_name("12_fwd"), "12_fwd");
    }
}
