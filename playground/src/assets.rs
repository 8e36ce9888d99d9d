//! The page's files, compiled into the binary so `varia serve` works wherever it is
//! installed (no build step, no files read at run time). A request's path is only
//! compared with these names.

pub struct Asset {
    pub content_type: &'static str,
    pub body: &'static str,
}

const HTML: &str = "text/html; charset=utf-8";
const JS: &str = "text/javascript; charset=utf-8";
const CSS: &str = "text/css; charset=utf-8";

/// Every file the server sends, by its path.
pub const ASSETS: &[(&str, Asset)] = &[
    ("/", Asset { content_type: HTML, body: include_str!("../assets/index.html") }),
    ("/app.js", Asset { content_type: JS, body: include_str!("../assets/app.js") }),
    ("/api.js", Asset { content_type: JS, body: include_str!("../assets/api.js") }),
    ("/board.js", Asset { content_type: JS, body: include_str!("../assets/board.js") }),
    ("/solo.js", Asset { content_type: JS, body: include_str!("../assets/solo.js") }),
    ("/fx.js", Asset { content_type: JS, body: include_str!("../assets/fx.js") }),
    ("/realm.js", Asset { content_type: JS, body: include_str!("../assets/realm.js") }),
    ("/style.css", Asset { content_type: CSS, body: include_str!("../assets/style.css") }),
];

/// The file served at `path` (`/index.html` is `/`).
pub fn find(path: &str) -> Option<&'static Asset> {
    let path = if path == "/index.html" { "/" } else { path };
    ASSETS.iter().find(|(p, _)| *p == path).map(|(_, a)| a)
}
