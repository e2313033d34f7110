//! A training command as the user typed it, split into its words.

use crate::{Result, WorkflowError};

/// Splits a command line the way a shell would for plain words and quotes (no expansion).
pub fn split_command(line: &str) -> Result<Vec<String>> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let (mut quote, mut any) = (None::<char>, false);
    let mut chars = line.chars();
    while let Some(c) = chars.next() {
        match (quote, c) {
            (Some(q), c) if c == q => quote = None,
            (Some('"'), '\\') => cur.extend(chars.next()),
            (Some(_), c) => cur.push(c),
            (None, '\'' | '"') => {
                quote = Some(c);
                any = true;
            }
            (None, '\\') => {
                cur.extend(chars.next());
                any = true;
            }
            (None, c) if c.is_whitespace() => {
                if any || !cur.is_empty() {
                    out.push(std::mem::take(&mut cur));
                }
                any = false;
            }
            (None, c) => cur.push(c),
        }
    }
    if quote.is_some() {
        return Err(WorkflowError::Invalid(format!(
            "unclosed quote in `{line}`"
        )));
    }
    if any || !cur.is_empty() {
        out.push(cur);
    }
    if out.is_empty() {
        return Err(WorkflowError::Invalid(
            "the command is empty: e.g. python train.py --epochs 1".into(),
        ));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::split_command;

    #[test]
    fn commands_split_like_a_shell_splits_words_and_quotes() {
        assert_eq!(
            split_command("python train.py --lr 3e-4").unwrap(),
            ["python", "train.py", "--lr", "3e-4"]
        );
        assert_eq!(
            split_command(r#"python "my train.py" --name 'a b' x\ y """#).unwrap(),
            ["python", "my train.py", "--name", "a b", "x y", ""]
        );
        assert!(split_command("python 'oops")
            .unwrap_err()
            .to_string()
            .contains("unclosed quote"));
        assert!(split_command("   ").is_err());
    }
}
