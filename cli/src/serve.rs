//! `varia serve`: the playground in the browser (crate `varia-playground`). Loads the
//! variants to serve (every one the runtime knows, or those named, plus `--dir`
//! folders), binds 127.0.0.1 unless `--host` says otherwise, prints the URL, and serves
//! until stopped. With `--realm`, a local realm too (its API under `/realm/`, its map
//! on the page).

use std::net::{IpAddr, SocketAddr};
use std::path::PathBuf;

use varia_playground::{Catalog, Source};

use crate::Fail;

#[derive(clap::Args)]
pub struct ServeArgs {
    /// Variants to serve, by name (default: every variant `varia list` shows).
    variants: Vec<String>,
    /// A variant folder to serve too, watched for changes (repeatable).
    #[arg(long = "dir", value_name = "FOLDER")]
    dirs: Vec<PathBuf>,
    /// The port to listen on (0: any free port; the URL printed says which).
    #[arg(long, default_value_t = 8080)]
    port: u16,
    /// The address to listen on. Anything but a loopback address lets other machines play.
    #[arg(long, default_value = "127.0.0.1")]
    host: IpAddr,
    /// Open the page in the default browser.
    #[arg(long)]
    open: bool,
    /// Solo boards' and the realm's clock: `system`, or `manual` (time moves only by POST
    /// /api/clock/wait, for scripted sessions and tests).
    #[arg(long, default_value = "system", value_name = "system|manual")]
    clock: String,
    /// A realm to open on the page (a SQLite file or `postgres://…#schema`, made by
    /// `varia realm new`): its API under /realm/, its map, orders and rounds on the page.
    #[arg(long, value_name = "PATH|URL")]
    realm: Option<String>,
    /// The realm clock's reading at start, in Unix seconds (default: the machine's
    /// time); with `--clock manual` it then moves only by POST /api/clock/wait.
    #[arg(long, value_name = "SECONDS", requires = "realm")]
    at: Option<i64>,
}

pub fn run(args: ServeArgs) -> Result<(), Fail> {
    let mut sources: Vec<Source> = args.variants.iter().cloned().map(Source::Named).collect();
    sources.extend(args.dirs.iter().cloned().map(Source::Folder));
    if sources.is_empty() {
        sources = Catalog::known();
    }
    let clock: std::sync::Arc<dyn varia_playground::TimeSource> = match args.clock.as_str() {
        "system" => std::sync::Arc::new(varia_playground::SystemClock::new()),
        "manual" => std::sync::Arc::new(varia_playground::ManualClock::default()),
        other => return Err(Fail(format!("--clock is `system` or `manual`, not `{other}`"))),
    };
    let catalog = Catalog::load(&sources)?;
    let realm = match &args.realm {
        Some(db) => Some(varia_playground::RealmSite::open(
            db,
            clock.clone(),
            args.at.unwrap_or_else(varia_playground::realm::unix_now),
        )?),
        None => None,
    };
    if !args.host.is_loopback() {
        eprintln!("varia serve: listening on {}: other machines can reach this server", args.host);
    }
    let open = args.open;
    let names = catalog.names();
    let realm_note = args.realm.as_ref().map(|db| format!("; the realm in {} on /?realm", without_secret(db)));
    varia_playground::serve_with_realm(catalog, SocketAddr::new(args.host, args.port), clock, realm, move |addr| {
        let url = format!("http://{addr}/");
        println!("{url}");
        eprintln!(
            "varia serve: {} variants ({}){}; Ctrl-C stops",
            names.len(),
            names.join(", "),
            realm_note.unwrap_or_default()
        );
        if open {
            open_browser(&url);
        }
    })?;
    Ok(())
}

/// A database location as it may be printed: a URL's user and password left out.
fn without_secret(db: &str) -> String {
    match db.split_once("://") {
        Some((scheme, rest)) => match rest.split_once('@') {
            Some((_, host)) => format!("{scheme}://…@{host}"),
            None => db.to_string(),
        },
        None => db.to_string(),
    }
}

/// Opens `url` with the desktop's opener; a failure is reported, not fatal.
fn open_browser(url: &str) {
    let opener = if cfg!(target_os = "macos") { "open" } else { "xdg-open" };
    if let Err(e) = std::process::Command::new(opener)
        .arg(url)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
    {
        eprintln!("varia serve: could not open a browser ({opener}: {e}); open {url} yourself");
    }
}

#[cfg(test)]
mod tests {
    use super::without_secret;

    #[test]
    fn a_database_url_is_printed_without_its_user_and_password() {
        assert_eq!(
            without_secret("postgres://ann:s3cret@db.example:5432/v#realm"),
            "postgres://…@db.example:5432/v#realm"
        );
        assert_eq!(without_secret("postgres://db.example/v"), "postgres://db.example/v");
        assert_eq!(without_secret("realms/a@b.db"), "realms/a@b.db");
    }
}
