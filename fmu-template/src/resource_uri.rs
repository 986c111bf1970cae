//! `fmuResourceLocation` (a URI, RFC 8089) to a local path, in the forms importers pass
//! on Linux and on Windows:
//!
//! - `file:///abs/path/`, `file:/abs/path`, `file://localhost/abs/path`;
//! - Windows drives: `file:///C:/fmu/resources/`, `file:/C:/...`, `file://C:/...`, the
//!   old `file:///C|/...`, a percent-encoded colon `file:///C%3A/...`;
//! - Windows shares (UNC): `file://server/share/...` and `file:////server/share/...`;
//! - a plain path instead of a URI (some importers pass one): `/abs/path`, and on
//!   Windows `C:\...`, `C:/...`, `\\server\share\...`.
//!
//! Percent-encoding (`%20`) is decoded everywhere, with or without the trailing slash.
//! The parsing is the same on every platform ([`Flavor`] picks the path syntax), so both
//! syntaxes are unit-tested wherever the tests run.

use std::path::PathBuf;

/// Whose path syntax the result follows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Flavor {
    /// `/abs/path`; a URI host other than `localhost` is refused.
    Unix,
    /// `C:\abs\path` or `\\server\share\path`.
    Windows,
}

impl Flavor {
    /// The platform this library was built for.
    pub const HOST: Flavor = if cfg!(windows) { Flavor::Windows } else { Flavor::Unix };
}

/// The folder named by `uri`, on this platform.
pub fn resource_dir(uri: &str) -> Result<PathBuf, String> {
    local_path(uri, Flavor::HOST).map(PathBuf::from)
}

/// The local path named by `uri`, in the syntax of `flavor`.
pub fn local_path(uri: &str, flavor: Flavor) -> Result<String, String> {
    let bad = |why: &str| format!("fmuResourceLocation '{uri}' {why}");
    let decode = |s: &str| percent_decode(s).ok_or_else(|| bad("has a bad percent-encoding"));
    let scheme = uri.get(..5).filter(|s| s.eq_ignore_ascii_case("file:"));
    let path = if scheme.is_some() {
        let rest = &uri[5..];
        match rest.strip_prefix("//") {
            // file://authority/path
            Some(r) => {
                let (host, path) = r.split_at(r.find('/').unwrap_or(r.len()));
                let host = decode(host)?;
                let path = decode(path)?;
                if host.is_empty() || host.eq_ignore_ascii_case("localhost") {
                    path
                } else if is_drive(&host) {
                    // file://C:/x: not RFC 8089, but written by some tools
                    format!("/{host}{path}")
                } else {
                    match flavor {
                        Flavor::Windows => format!("//{host}{path}"),
                        Flavor::Unix => {
                            return Err(bad(&format!(
                                "names a remote host ('{host}'); only local files are supported"
                            )))
                        }
                    }
                }
            }
            None => decode(rest)?,
        }
    } else if uri.contains("://") {
        return Err(bad("is not a file: URI"));
    } else {
        // a plain path
        uri.to_string()
    };
    match flavor {
        Flavor::Unix => {
            if path.starts_with('/') {
                Ok(path)
            } else {
                Err(bad("is not an absolute path"))
            }
        }
        Flavor::Windows => windows_path(&path).ok_or_else(|| bad("is not an absolute path")),
    }
}

/// `C:` (or the old `C|`).
fn is_drive(s: &str) -> bool {
    let b = s.as_bytes();
    b.len() == 2 && b[0].is_ascii_alphabetic() && (b[1] == b':' || b[1] == b'|')
}

/// A decoded URI path or a plain path as an absolute Windows path: `/C:/x` and `C:/x`
/// to `C:\x`, `//server/share/x` to `\\server\share\x`, `/x` to `\x` (the current
/// drive's root). None when it is relative.
fn windows_path(p: &str) -> Option<String> {
    let p = p.replace('/', "\\");
    let drive_at = |s: &str| {
        s.get(..2).filter(|d| is_drive(d)).map(|d| {
            let rest = &s[2..];
            (rest.is_empty() || rest.starts_with('\\')).then(|| format!("{}:{}", &d[..1], if rest.is_empty() { "\\" } else { rest }))
        })
    };
    if let Some(r) = p.strip_prefix('\\') {
        if let Some(d) = drive_at(r) {
            return d; // \C:\x (from /C:/x)
        }
        if r.starts_with('\\') {
            // \\server\share: needs both parts
            let mut parts = r[1..].split('\\');
            let server = parts.next().unwrap_or("");
            let share = parts.next().unwrap_or("");
            return (!server.is_empty() && !share.is_empty()).then_some(p);
        }
        return Some(p);
    }
    drive_at(&p).flatten()
}

fn percent_decode(s: &str) -> Option<String> {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            let hex = s.get(i + 1..i + 3)?;
            out.push(u8::from_str_radix(hex, 16).ok()?);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8(out).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn accepts_the_forms_linux_importers_use() {
        for (uri, path) in [
            ("file:///tmp/fmu/resources/", "/tmp/fmu/resources/"),
            ("file:///tmp/fmu/resources", "/tmp/fmu/resources"),
            ("file:/tmp/fmu/resources/", "/tmp/fmu/resources/"),
            ("file://localhost/tmp/fmu/resources", "/tmp/fmu/resources"),
            ("FILE://LOCALHOST/tmp/fmu", "/tmp/fmu"),
            ("file:///tmp/my%20fmu/resources/", "/tmp/my fmu/resources/"),
            ("/tmp/fmu/resources", "/tmp/fmu/resources"),
        ] {
            assert_eq!(local_path(uri, Flavor::Unix).unwrap(), path, "{uri}");
        }
    }

    #[test]
    fn accepts_the_forms_windows_importers_use() {
        for (uri, path) in [
            ("file:///C:/fmu/resources/", r"C:\fmu\resources\"),
            ("file:///C:/fmu/resources", r"C:\fmu\resources"),
            ("file:/C:/fmu/resources/", r"C:\fmu\resources\"),
            ("file://localhost/C:/fmu/resources", r"C:\fmu\resources"),
            ("file://C:/fmu/resources", r"C:\fmu\resources"),
            ("file:///C|/fmu/resources", r"C:\fmu\resources"),
            ("file:///C%3A/my%20fmu/resources/", r"C:\my fmu\resources\"),
            ("file:///d:/Users/J%C3%BCrgen/fmu", r"d:\Users\Jürgen\fmu"),
            ("file:///C:", r"C:\"),
            ("file://server/share/fmu/resources/", r"\\server\share\fmu\resources\"),
            ("file:////server/share/fmu", r"\\server\share\fmu"),
            (r"C:\Users\me\AppData\Local\Temp\fmu\resources", r"C:\Users\me\AppData\Local\Temp\fmu\resources"),
            ("C:/fmu/resources/", r"C:\fmu\resources\"),
            (r"\\server\share\fmu", r"\\server\share\fmu"),
            ("file:///fmu/resources", r"\fmu\resources"),
        ] {
            assert_eq!(local_path(uri, Flavor::Windows).unwrap(), path, "{uri}");
        }
    }

    #[test]
    fn refuses_what_is_not_a_local_file_uri() {
        for (uri, flavor) in [
            ("http://x/y", Flavor::Unix),
            ("http://x/y", Flavor::Windows),
            ("file://server/share", Flavor::Unix),
            ("file:///tmp/%zz", Flavor::Unix),
            ("file:///C:/%zz", Flavor::Windows),
            ("file:relative", Flavor::Unix),
            ("file:relative", Flavor::Windows),
            ("relative/path", Flavor::Unix),
            ("relative\\path", Flavor::Windows),
            ("C:relative", Flavor::Windows),
            (r"C:\fmu", Flavor::Unix),
            (r"\\server", Flavor::Windows),
            ("file:///C:fmu", Flavor::Windows),
        ] {
            assert!(local_path(uri, flavor).is_err(), "{uri} ({flavor:?})");
        }
    }

    #[test]
    fn messages_name_the_uri() {
        let e = local_path("file://server/share", Flavor::Unix).unwrap_err();
        assert!(e.contains("'file://server/share'") && e.contains("remote host ('server')"), "{e}");
    }
}
