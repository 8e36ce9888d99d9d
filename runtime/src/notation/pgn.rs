//! PGN, the game-record format: its syntax, read and written. Playing a record's moves
//! is the game's part (`Game::from_pgn`, `Game::to_pgn`); this module only knows text.
//!
//! Read: tag pairs (`[Name "value"]`, with `\"` and `\\` escapes), movetext with move
//! numbers (`12.`, `12...`), SAN moves, comments (`{…}` and `;` to the end of the line),
//! NAGs (`$1`), annotations (`!`, `?!`), variations (`(…)`, nested; skipped: only the
//! main line is kept), `%` escape lines, and the result (`1-0`, `0-1`, `1/2-1/2`, `*`).
//! A file may hold many games. Anything malformed is an error naming its line and
//! column (1-based, in characters).
//!
//! Written: the Seven Tag Roster first, then the other tags, movetext wrapped before 80
//! columns, comments in braces, and the result.

use thiserror::Error;

/// One game of a PGN file.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PgnGame {
    /// Tag pairs in file order.
    pub tags: Vec<(String, String)>,
    /// Comments before the first move.
    pub intro: Vec<String>,
    pub moves: Vec<PgnMove>,
    /// The game-termination marker, if the movetext has one.
    pub result: Option<String>,
    /// The line the game starts on (1-based; 0 when built in memory).
    pub line: usize,
}

/// One move of the main line.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PgnMove {
    /// As written, annotations included (`Nf3!`).
    pub san: String,
    /// Where it is written (1-based; 0 when built in memory).
    pub line: usize,
    pub col: usize,
    /// Comments after it.
    pub comments: Vec<String>,
    /// Numeric annotation glyphs after it (`$1` is 1).
    pub nags: Vec<u8>,
}

impl PgnGame {
    /// The value of a tag (names compare exactly, as PGN's are case-sensitive).
    pub fn tag(&self, name: &str) -> Option<&str> {
        self.tags.iter().find(|(n, _)| n == name).map(|(_, v)| v.as_str())
    }

    /// Sets a tag, replacing one of the same name.
    pub fn set_tag(&mut self, name: &str, value: impl Into<String>) {
        let value = value.into();
        match self.tags.iter_mut().find(|(n, _)| n == name) {
            Some(t) => t.1 = value,
            None => self.tags.push((name.to_string(), value)),
        }
    }
}

/// Why a PGN text (or one of its games) cannot be read.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum PgnError {
    /// The text is not PGN here.
    #[error("line {line}, column {col}: {why}")]
    Syntax { line: usize, col: usize, why: String },
    /// A move of the main line cannot be played (1-based index).
    #[error("line {line}, column {col}: move {index} (`{text}`): {why}")]
    Move { line: usize, col: usize, index: usize, text: String, why: String },
    /// A tag's value cannot be used (a FEN that does not read, another variant).
    #[error("line {line}: the {tag} tag: {why}")]
    Tag { line: usize, tag: String, why: String },
    /// The text holds no game (or not the one asked for).
    #[error("{0}")]
    NoGame(String),
}

/// A reader over the characters of the text, counting lines and columns.
struct Reader<'a> {
    chars: std::iter::Peekable<std::str::Chars<'a>>,
    line: usize,
    col: usize,
}

impl Reader<'_> {
    fn peek(&mut self) -> Option<char> {
        self.chars.peek().copied()
    }

    fn next(&mut self) -> Option<char> {
        let c = self.chars.next()?;
        if c == '\n' {
            self.line += 1;
            self.col = 1;
        } else {
            self.col += 1;
        }
        Some(c)
    }

    fn error<T>(line: usize, col: usize, why: impl Into<String>) -> Result<T, PgnError> {
        Err(PgnError::Syntax { line, col, why: why.into() })
    }
}

/// Characters that may continue a symbol (a move, a move number, a result).
fn symbol_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || "_+#=:-/@!?.*".contains(c)
}

fn is_result(s: &str) -> bool {
    matches!(s, "1-0" | "0-1" | "1/2-1/2" | "*")
}

/// Reads every game of a PGN text.
pub fn parse(text: &str) -> Result<Vec<PgnGame>, PgnError> {
    let mut r = Reader { chars: text.chars().peekable(), line: 1, col: 1 };
    let mut games = Vec::new();
    let mut game = PgnGame::default();
    // Whether the current game has movetext yet (a tag after movetext starts a new game).
    let mut in_moves = false;
    // Open variations, with where each began.
    let mut variations: Vec<(usize, usize)> = Vec::new();
    let mut started = false;
    let finish = |game: &mut PgnGame, games: &mut Vec<PgnGame>| {
        games.push(std::mem::take(game));
    };
    loop {
        let (line, col) = (r.line, r.col);
        let Some(c) = r.peek() else { break };
        if c == '%' && col == 1 {
            while r.peek().is_some_and(|c| c != '\n') {
                r.next();
            }
            continue;
        }
        if c.is_whitespace() {
            r.next();
            continue;
        }
        if !started {
            game.line = line;
            started = true;
        }
        match c {
            '{' => {
                r.next();
                let mut body = String::new();
                loop {
                    match r.next() {
                        Some('}') => break,
                        Some(c) => body.push(c),
                        None => return Reader::error(line, col, "this comment `{` is never closed with `}`"),
                    }
                }
                if variations.is_empty() {
                    let body = body.split_whitespace().collect::<Vec<_>>().join(" ");
                    match game.moves.last_mut() {
                        Some(m) => m.comments.push(body),
                        None => game.intro.push(body),
                    }
                }
            }
            ';' => {
                let mut body = String::new();
                r.next();
                while let Some(c) = r.peek().filter(|&c| c != '\n') {
                    body.push(c);
                    r.next();
                }
                if variations.is_empty() {
                    let body = body.trim().to_string();
                    match game.moves.last_mut() {
                        Some(m) => m.comments.push(body),
                        None => game.intro.push(body),
                    }
                }
            }
            '[' => {
                if !variations.is_empty() {
                    return Reader::error(line, col, "a tag `[` inside a variation");
                }
                if in_moves {
                    // No result marker ended the last game: a new game starts here.
                    finish(&mut game, &mut games);
                    game.line = line;
                    in_moves = false;
                }
                r.next();
                let (name, value) = tag_pair(&mut r, line, col)?;
                game.tags.push((name, value));
            }
            ']' => return Reader::error(line, col, "`]` without a tag before it"),
            '(' => {
                r.next();
                if game.moves.is_empty() {
                    return Reader::error(line, col, "a variation `(` before any move");
                }
                variations.push((line, col));
                in_moves = true;
            }
            ')' => {
                r.next();
                if variations.pop().is_none() {
                    return Reader::error(line, col, "`)` without a variation `(` to close");
                }
            }
            '$' => {
                r.next();
                let mut n = String::new();
                while let Some(d) = r.peek().filter(char::is_ascii_digit) {
                    n.push(d);
                    r.next();
                }
                let nag: u8 = n.parse().map_err(|_| PgnError::Syntax {
                    line,
                    col,
                    why: format!("`${n}` is not a NAG ($0 to $255)"),
                })?;
                if variations.is_empty() {
                    match game.moves.last_mut() {
                        Some(m) => m.nags.push(nag),
                        None => return Reader::error(line, col, "a NAG before any move"),
                    }
                }
            }
            c if symbol_char(c) => {
                let mut s = String::new();
                while let Some(c) = r.peek().filter(|&c| symbol_char(c)) {
                    s.push(c);
                    r.next();
                }
                in_moves = true;
                if !variations.is_empty() {
                    continue;
                }
                if is_result(&s) {
                    game.result = Some(s);
                    finish(&mut game, &mut games);
                    in_moves = false;
                    started = false;
                    continue;
                }
                // A move number (`12.`, `12...`), perhaps written against its move (`12.e4`).
                let digits = s.chars().take_while(char::is_ascii_digit).count();
                let dots = s[digits..].chars().take_while(|&c| c == '.').count();
                let (skip, rest) = if digits > 0 && dots > 0 {
                    (digits + dots, &s[digits + dots..])
                } else if digits == s.len() {
                    (digits, "")
                } else {
                    (0, s.as_str())
                };
                let rest = rest.trim_start_matches('.');
                if rest.is_empty() {
                    continue;
                }
                if rest.chars().all(|c| c == '!' || c == '?') {
                    match game.moves.last_mut() {
                        Some(m) => m.san.push_str(rest),
                        None => return Reader::error(line, col, format!("`{rest}` before any move")),
                    }
                    continue;
                }
                let col = col + skip + (s.len() - skip - rest.len());
                game.moves.push(PgnMove { san: rest.to_string(), line, col, ..PgnMove::default() });
            }
            other => return Reader::error(line, col, format!("`{other}` has no meaning in PGN here")),
        }
    }
    if let Some((line, col)) = variations.last() {
        return Reader::error(*line, *col, "this variation `(` is never closed with `)`");
    }
    if started && (in_moves || !game.tags.is_empty() || !game.intro.is_empty()) {
        games.push(game);
    }
    Ok(games)
}

/// The rest of a tag pair after its `[`: a name, a quoted value, `]`.
fn tag_pair(r: &mut Reader<'_>, line: usize, col: usize) -> Result<(String, String), PgnError> {
    while r.peek().is_some_and(|c| c == ' ' || c == '\t') {
        r.next();
    }
    let mut name = String::new();
    while let Some(c) = r.peek().filter(|c| c.is_ascii_alphanumeric() || *c == '_') {
        name.push(c);
        r.next();
    }
    if name.is_empty() {
        return Reader::error(r.line, r.col, "a tag needs a name after `[` (like [Event \"…\"])");
    }
    while r.peek().is_some_and(|c| c == ' ' || c == '\t') {
        r.next();
    }
    if r.peek() != Some('"') {
        return Reader::error(r.line, r.col, format!("the tag {name} needs a value in double quotes"));
    }
    let (sl, sc) = (r.line, r.col);
    r.next();
    let mut value = String::new();
    loop {
        match r.next() {
            Some('"') => break,
            Some('\\') => match r.next() {
                Some(c @ ('"' | '\\')) => value.push(c),
                _ => {
                    return Reader::error(sl, sc, format!("the value of {name}: only \\\" and \\\\ may follow a `\\`"));
                }
            },
            Some('\n') | None => {
                return Reader::error(sl, sc, format!("the value of {name} is never closed with `\"`"));
            }
            Some(c) => value.push(c),
        }
    }
    while r.peek().is_some_and(|c| c == ' ' || c == '\t') {
        r.next();
    }
    if r.peek() != Some(']') {
        return Reader::error(line, col, format!("the tag {name} is never closed with `]`"));
    }
    r.next();
    Ok((name, value))
}

/// The Seven Tag Roster, in its order.
const ROSTER: [&str; 7] = ["Event", "Site", "Date", "Round", "White", "Black", "Result"];

fn escape(v: &str) -> String {
    v.replace('\\', "\\\\").replace('"', "\\\"")
}

/// Writes a game. Move numbers start from the `FEN` tag's full-move number and side to
/// move (1 and white without one); the result is the `Result` tag's (or `*`).
pub fn write(g: &PgnGame) -> String {
    let mut out = String::new();
    let mut tags: Vec<(&str, &str)> = Vec::new();
    for name in ROSTER {
        let value = g.tag(name).unwrap_or(match name {
            "Date" => "????.??.??",
            "Result" => g.result.as_deref().unwrap_or("*"),
            _ => "?",
        });
        tags.push((name, value));
    }
    for (n, v) in &g.tags {
        if !ROSTER.contains(&n.as_str()) {
            tags.push((n, v));
        }
    }
    for (n, v) in tags {
        out.push_str(&format!("[{n} \"{}\"]\n", escape(v)));
    }
    out.push('\n');
    let (mut number, mut black) = (1u32, false);
    if let Some(fen) = g.tag("FEN") {
        let fields: Vec<&str> = fen.split_whitespace().collect();
        black = fields.get(1) == Some(&"b");
        number = fields.get(5).and_then(|n| n.parse().ok()).filter(|&n| n > 0).unwrap_or(1);
    }
    let mut words: Vec<String> = g.intro.iter().map(|c| format!("{{{c}}}")).collect();
    let mut after_comment = true;
    for m in &g.moves {
        if !black {
            words.push(format!("{number}."));
        } else if after_comment {
            words.push(format!("{number}..."));
        }
        words.push(m.san.clone());
        words.extend(m.nags.iter().map(|n| format!("${n}")));
        words.extend(m.comments.iter().map(|c| format!("{{{c}}}")));
        after_comment = !m.comments.is_empty() || !m.nags.is_empty();
        if black {
            number += 1;
        }
        black = !black;
    }
    words.push(g.result.clone().or_else(|| g.tag("Result").map(str::to_string)).unwrap_or_else(|| "*".into()));
    let mut line = String::new();
    for w in words {
        if !line.is_empty() && line.len() + 1 + w.len() > 79 {
            out.push_str(&line);
            out.push('\n');
            line.clear();
        }
        if !line.is_empty() {
            line.push(' ');
        }
        line.push_str(&w);
    }
    out.push_str(&line);
    out.push('\n');
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_game_with_everything_reads() {
        let text = "% an escape line\n[Event \"Test \\\"quoted\\\"\"]\n[White \"a\\\\b\"]\n\n{intro} 1. e4 $1 {best by test} e5 2.Nf3 (2. f4 exf4 (2... d5)) 2... Nc6!? ; to the end\n3. Bb5 a6 1-0\n";
        let games = parse(text).unwrap();
        assert_eq!(games.len(), 1);
        let g = &games[0];
        assert_eq!(g.tag("Event"), Some("Test \"quoted\""));
        assert_eq!(g.tag("White"), Some("a\\b"));
        assert_eq!(g.intro, ["intro"]);
        let sans: Vec<&str> = g.moves.iter().map(|m| m.san.as_str()).collect();
        assert_eq!(sans, ["e4", "e5", "Nf3", "Nc6!?", "Bb5", "a6"]);
        assert_eq!(
            (g.moves[0].nags.as_slice(), g.moves[0].comments.as_slice()),
            (&[1u8][..], &["best by test".to_string()][..])
        );
        assert_eq!(g.moves[3].comments, ["to the end"]);
        // Positions: `2.Nf3` is on line 5, its N in column 38 (counted by hand).
        assert_eq!((g.moves[2].line, g.moves[2].col), (5, 38));
        assert_eq!((g.moves[4].line, g.moves[4].col), (6, 4));
        assert_eq!(g.result.as_deref(), Some("1-0"));
        assert_eq!(g.line, 2);
    }

    #[test]
    fn several_games_and_missing_results() {
        let text = "[Event \"1\"]\n1. e4 *\n\n[Event \"2\"]\n1. d4 d5\n[Event \"3\"]\n1. c4";
        let games = parse(text).unwrap();
        let events: Vec<_> = games.iter().map(|g| (g.tag("Event").unwrap(), g.moves.len(), g.result.clone())).collect();
        assert_eq!(events, [("1", 1, Some("*".into())), ("2", 2, None), ("3", 1, None)]);
        assert_eq!(parse("").unwrap(), Vec::new());
        assert_eq!(parse("  \n").unwrap(), Vec::new());
    }

    #[test]
    fn malformed_text_names_line_and_column() {
        let err = |t: &str| parse(t).unwrap_err().to_string();
        assert_eq!(err("[Event \"x]\n1. e4"), "line 1, column 8: the value of Event is never closed with `\"`");
        assert_eq!(err("[Event x]"), "line 1, column 8: the tag Event needs a value in double quotes");
        assert_eq!(err("[Event \"x\"\n"), "line 1, column 1: the tag Event is never closed with `]`");
        assert_eq!(err("1. e4 {unclosed\n2. d4"), "line 1, column 7: this comment `{` is never closed with `}`");
        assert_eq!(err("1. e4 e5 (2. f4\n"), "line 1, column 10: this variation `(` is never closed with `)`");
        assert_eq!(err("1. e4 )"), "line 1, column 7: `)` without a variation `(` to close");
        assert_eq!(err("1. e4\n  e5 ]"), "line 2, column 6: `]` without a tag before it");
        assert_eq!(err("1. e4 $300"), "line 1, column 7: `$300` is not a NAG ($0 to $255)");
        assert_eq!(err("1. e4 & e5"), "line 1, column 7: `&` has no meaning in PGN here");
        assert_eq!(err("( e4 )"), "line 1, column 1: a variation `(` before any move");
        assert_eq!(err("[ \"x\"]"), "line 1, column 3: a tag needs a name after `[` (like [Event \"…\"])");
    }

    #[test]
    fn writing_numbers_moves_and_wraps() {
        let mut g = PgnGame::default();
        g.set_tag("Event", "E \"1\"");
        g.set_tag("Variant", "Capablanca");
        g.set_tag("Result", "0-1");
        let mv = |s: &str, c: &[&str]| PgnMove {
            san: s.into(),
            comments: c.iter().map(|s| s.to_string()).collect(),
            ..PgnMove::default()
        };
        g.moves = vec![mv("e4", &["+0.30/9"]), mv("e5", &[]), mv("Nf3", &[])];
        let text = write(&g);
        assert_eq!(
            text,
            "[Event \"E \\\"1\\\"\"]\n[Site \"?\"]\n[Date \"????.??.??\"]\n[Round \"?\"]\n[White \"?\"]\n[Black \"?\"]\n[Result \"0-1\"]\n[Variant \"Capablanca\"]\n\n1. e4 {+0.30/9} 1... e5 2. Nf3 0-1\n"
        );
        assert_eq!(
            parse(&text).unwrap()[0].moves.iter().map(|m| m.san.clone()).collect::<Vec<_>>(),
            ["e4", "e5", "Nf3"]
        );
        // Black first, from move 12 of a FEN; long games wrap before 80 columns.
        g.set_tag("FEN", "8/8/8/8/8/8/8/8 b - - 0 12");
        g.moves = (0..40).map(|_| mv("Kh1", &[])).collect();
        let text = write(&g);
        assert!(text.contains("\n12... Kh1 13. Kh1 Kh1 14. Kh1"), "{text}");
        assert!(text.lines().all(|l| l.chars().count() < 80), "{text}");
    }
}
