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
