//! `varia serve`: it prints its URL on 127.0.0.1, serves the variants named (and `--dir`
//! folders), and refuses bad ones before it binds.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::process::{Child, Command, Stdio};

fn varia() -> Command {
    Command::new(env!("CARGO_BIN_EXE_varia"))
}

/// Kills the server when the test ends, passed or not.
struct Server(Child);

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// A plain HTTP/1.1 GET; returns the status line and the body.
fn get(addr: &str, path: &str) -> (String, String) {
    let mut s = TcpStream::connect(addr).unwrap();
    write!(s, "GET {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n\r\n").unwrap();
    let mut text = String::new();
    s.read_to_string(&mut text).unwrap();
    let status = text.lines().next().unwrap_or_default().to_string();
    let body = text.split_once("\r\n\r\n").map(|(_, b)| b.to_string()).unwrap_or_default();
    (status, body)
}

#[test]
fn serve_prints_its_loopback_url_and_serves_the_variants_named() {
    let dir = std::env::temp_dir().join(format!("varia-serve-cli-{}", std::process::id())).join("mine");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("variant.toml"), "extends = \"standard\"\ntitle = \"Mine\"\n").unwrap();
    let mut child = varia()
        .args(["serve", "--port", "0", "standard", "decachess", "--dir"])
        .arg(&dir)
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let stdout = child.stdout.take().unwrap();
    let _server = Server(child);
    let mut line = String::new();
    BufReader::new(stdout).read_line(&mut line).unwrap();
    let url = line.trim();
    let addr =
        url.strip_prefix("http://127.0.0.1:").and_then(|r| r.strip_suffix('/')).unwrap_or_else(|| panic!("{url}"));
    let addr = format!("127.0.0.1:{addr}");
    let (status, body) = get(&addr, "/api/variants");
    assert!(status.ends_with("200 OK"), "{status}");
    let list: serde_json::Value = serde_json::from_str(&body).unwrap();
    let names: Vec<&str> = list.as_array().unwrap().iter().map(|v| v["name"].as_str().unwrap()).collect();
    assert_eq!(names, ["standard", "decachess", "mine"]);
    assert_eq!(list[2]["title"], "Mine");
    let (status, body) = get(&addr, "/");
    assert!(status.ends_with("200 OK"), "{status}");
    assert!(body.contains("Varia playground"));
}

#[test]
fn serve_refuses_an_unknown_variant_or_a_path_before_it_binds() {
    let out = varia().args(["serve", "--port", "0", "nosuch"]).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.starts_with("error: variant `nosuch`: unknown variant `nosuch`"), "{err}");
    let out = varia().args(["serve", "--port", "0", "../scripts/standard"]).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("is not a variant name (use --dir for a folder)"), "{err}");
}

#[test]
fn serve_refuses_a_bad_clock_before_it_binds() {
    let out = varia().args(["serve", "--port", "0", "--clock", "sundial", "standard"]).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(out.stdout.is_empty(), "no URL: nothing was served");
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(err.trim_end(), "error: --clock is `system` or `manual`, not `sundial`");
}

#[test]
fn serve_refuses_a_missing_realm_and_a_clock_start_without_one() {
    let dir = std::env::temp_dir().join(format!("varia-serve-cli-norealm-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let db = dir.join("nosuch.db");
    let out = varia().args(["serve", "--port", "0", "standard", "--realm"]).arg(&db).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("no realm there (make one with `varia realm new`)"), "{err}");
    assert!(!db.exists(), "opening a realm never makes one");
    // --at sets the realm's clock: without --realm it is a usage error (clap's exit 2).
    let out = varia().args(["serve", "--port", "0", "standard", "--at", "1000000"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--realm"));
}

#[test]
fn serve_opens_a_realm_made_by_varia_realm_new_on_its_clock() {
    let dir = std::env::temp_dir().join(format!("varia-serve-cli-realm-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("realm.toml"), "name = \"Testland\"\nround_hours = 6\n").unwrap();
    let db = dir.join("realm.db");
    let made = varia()
        .args(["realm", "new", "--at", "1000000", "--config"])
        .arg(dir.join("realm.toml"))
        .arg("--db")
        .arg(&db)
        .output()
        .unwrap();
    assert!(made.status.success(), "{}", String::from_utf8_lossy(&made.stderr));
    let joined =
        varia().args(["realm", "join", "--at", "1000000", "--player", "alice", "--db"]).arg(&db).output().unwrap();
    let out = String::from_utf8_lossy(&joined.stdout);
    let token = out.lines().find_map(|l| l.strip_prefix("token: ")).unwrap_or_else(|| panic!("{out}")).to_string();
    let mut child = varia()
        .args(["serve", "--port", "0", "standard", "--clock", "manual", "--at", "1000000", "--realm"])
        .arg(&db)
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let stdout = child.stdout.take().unwrap();
    let _server = Server(child);
    let mut line = String::new();
    BufReader::new(stdout).read_line(&mut line).unwrap();
    let addr = line.trim().trim_start_matches("http://").trim_end_matches('/').to_string();
    let (status, body) = get(&addr, "/api/realm");
    assert!(status.ends_with("200 OK"), "{status}");
    let info: serde_json::Value = serde_json::from_str(&body).unwrap();
    assert_eq!((&info["open"], &info["name"]), (&serde_json::json!(true), &serde_json::json!("Testland")));
    // The realm's own API under /realm, on the manual clock started at --at: the first
    // 6-hour deadline after 1,000,000 s is 1,015,200.
    let mut s = TcpStream::connect(&addr).unwrap();
    write!(
        s,
        "GET /realm/world HTTP/1.1\r\nHost: {addr}\r\nAuthorization: Bearer {token}\r\nConnection: close\r\n\r\n"
    )
    .unwrap();
    let mut text = String::new();
    s.read_to_string(&mut text).unwrap();
    assert!(text.starts_with("HTTP/1.1 200 OK"), "{text}");
    let view: serde_json::Value = serde_json::from_str(text.split_once("\r\n\r\n").unwrap().1).unwrap();
    assert_eq!(
        (view["player"].as_str(), view["now"].as_i64(), view["deadline"].as_i64()),
        (Some("alice"), Some(1_000_000), Some(1_015_200))
    );
}
